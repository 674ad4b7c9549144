#!/usr/bin/env bash
# Runs on the GPU machine, from the folder bench/gpu/pack.sh filled, the steps named (all, in
# this order, when none is): each under its own time limit, its output in STEP.txt. After each
# step everything so far is packed into $OUT/gpu-results.tar.gz (the device tool brings back a
# few files only), so a call stopped at its limit still returns the steps it finished; the last
# lines of each step are printed. The step limits add up to 540 s: one device call (10 minutes
# at most) holds them all, and a session's 15 minutes of device time leave room to start the
# machine. The most wanted figures come first.
#   tests         the GPU halves of the CUDA evaluator's tests (the GPU characterization's is
#                 left to the next step, which measures the same)
#   characterize  the GPU's description measured (sculpt characterize --device cuda: seconds on
#                 an H100, killed past 45 s), written to sm_90.json and compared with the shipped
#   model         the lower bound against measured times: 100 random candidates each of axpy
#                 2^26, matmul 256x256x32 and matmul 1024^3 (45 s each at most) and the recipes,
#                 with the median and 10th percentile of measured / bound (gpu_bound_test)
#   bench         the hand-fixed candidates (bench_gpu), timed kernel-only against cuBLAS
#                 (compare.py)
#   candidates    20 random candidates per zoo kernel compiled, run and checked on the GPU
#   search        a 40-second random search for a 1024^3 matmul on the GPU
#   space         the space benchmark (decisions/s) on one core and on every core (run when named:
#                 no open issue asks for it)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:?run.sh writes its results under \$OUT}"
results="$(mktemp -d)"
export LD_LIBRARY_PATH="$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# step NAME SECONDS COMMAND...: runs COMMAND in $results, output to NAME.txt.
step() {
  local name="$1" limit="$2"
  shift 2
  (cd "$results" && timeout "$limit" "$@") >"$results/$name.txt" 2>&1
  echo "exit status $?" >>"$results/$name.txt"
  echo "== $name"
  tail -n 8 "$results/$name.txt"
  tar czf "$out/gpu-results.tar.gz" -C "$results" .
}

steps=("$@")
((${#steps[@]})) || steps=(tests characterize model bench candidates search)
nvidia-smi >"$results/nvidia-smi.txt" 2>&1
for s in "${steps[@]}"; do
  case "$s" in
    tests)
      step cuda_device_test 50 "$here/cuda_device_test" \
        --gtest_filter='*/gpu:-*GpuCharacterization*'
      ;;
    characterize)
      step characterize 45 "$here/sculpt" characterize --device cuda --out "$results/sm_90.json"
      ;;
    model)
      step gpu_bound_test 170 "$here/gpu_bound_test"
      ;;
    space)
      step bench_gpu_space 75 "$here/bench_gpu_space" \
        --benchmark_filter='GpuCopyCandidate|GpuRandomDescent|DescentDecision' \
        --benchmark_out="$results/bench_gpu_space.json"
      ;;
    bench)
      step bench_gpu 75 "$here/bench_gpu" "$results/bench"
      step compare 90 python3 "$here/compare.py" "$results/bench" "$here/cublas_reference.py"
      ;;
    candidates)
      step gpu_candidates_test 60 env SCULPT_CANDIDATES=20 "$here/gpu_candidates_test" \
        --gtest_filter='Gpu*:*/Gpu*'
      ;;
    search)
      step search 50 "$here/sculpt" search --kernel matmul --size 1024x1024x1024 --budget 40s \
        --device cuda --out "$results/search"
      ;;
    *)
      echo "run.sh: unknown step '$s' (tests, characterize, model, bench, candidates, search, space)" >&2
      exit 2
      ;;
  esac
done
echo "results: \$OUT/gpu-results.tar.gz"
