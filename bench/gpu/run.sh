#!/usr/bin/env bash
# Runs on the GPU machine, from the folder bench/gpu/pack.sh filled, the steps named (all when
# none is): each under its own time limit, its output in STEP.txt, everything packed into
# $OUT/gpu-results.tar.gz (the device tool brings back a few files only), and the last lines of
# each step printed. A device call runs 10 minutes at most: `run.sh tests`, then
# `run.sh bench search`.
#   tests   the GPU halves of the CUDA evaluator's tests; 50 random candidates per zoo kernel
#           compiled, run and checked on the GPU
#   bench   the hand-fixed candidates (bench_gpu), timed kernel-only against cuBLAS
#           (compare.py); the space benchmark on every core
#   search  a 2-minute random search for a 1024^3 matmul on the GPU
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
}

steps=("$@")
((${#steps[@]})) || steps=(tests bench search)
nvidia-smi >"$results/nvidia-smi.txt" 2>&1
for s in "${steps[@]}"; do
  case "$s" in
    tests)
      step cuda_device_test 120 "$here/cuda_device_test" --gtest_filter='*/gpu'
      step gpu_candidates_test 300 env SCULPT_CANDIDATES=50 "$here/gpu_candidates_test"
      ;;
    bench)
      step bench_gpu 120 "$here/bench_gpu" "$results/bench"
      step compare 150 python3 "$here/compare.py" "$results/bench" "$here/cublas_reference.py"
      step bench_gpu_space 120 "$here/bench_gpu_space" \
        --benchmark_filter='GpuRandomDescent|DescentDecision' \
        --benchmark_out="$results/bench_gpu_space.json"
      ;;
    search)
      step search 200 "$here/sculpt" search --kernel matmul --size 1024x1024x1024 --budget 2m \
        --device cuda --out "$results/search"
      ;;
    *)
      echo "run.sh: unknown step '$s' (tests, bench, search)" >&2
      exit 2
      ;;
  esac
done
tar czf "$out/gpu-results.tar.gz" -C "$results" .
echo "results: \$OUT/gpu-results.tar.gz"
