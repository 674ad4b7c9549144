#!/usr/bin/env bash
# Runs on the GPU machine, from the folder bench/gpu/pack.sh filled, the steps named (search and
# tests, in this order, when none is): each under its own time limit, its output in STEP.txt.
# After each step everything so far is packed into $OUT/gpu-results.tar.gz (the device tool
# brings back a few files only), so a call stopped at its limit still returns the steps it
# finished; the last lines of each step are printed. The default steps' limits add up to 535 s:
# one device call (10 minutes at most) holds them, and a session's 15 minutes of device time
# leave room to start the machine. The most wanted figures come first; the other steps (those of
# issues already resolved) run when named, in a second call when device time is left.
#   search        issue H's check: 2-minute MCTS searches of axpy 2^26, matmul 256x256x32 and
#                 matmul 1024^3 on the GPU (8 searching threads), their best candidates timed
#                 kernel-only beside cuBLAS in the same call (bench_gpu RUN_DIR..., compare.py),
#                 and per search: best / cuBLAS, the GPU's idle share, bound violations
#                 (search_summary.py, search_summary.json)
#   continue      the searches of matmul 256x256x32 and 1024^3 again, each started from the
#                 fastest candidates of an earlier H200 search of it (the logs measured_times_test
#                 keeps, --start-from), summarised the same way: what a search builds on another
#                 reaches, beside what one reaches from nothing
#   tests         the GPU halves of the CUDA evaluator's tests (the GPU characterization's is
#                 left to the characterize step, which measures the same)
#   characterize  the GPU's description measured (sculpt characterize --device cuda: seconds on
#                 an H100, killed past 45 s), written to sm_90.json and compared with the shipped
#   model         the lower bound against measured times: 100 random candidates each of axpy
#                 2^26, matmul 256x256x32 and matmul 1024^3 (45 s each at most) and the recipes,
#                 with the median and 10th percentile of measured / bound (gpu_bound_test)
#   bench         the hand-fixed candidates (bench_gpu), timed kernel-only against cuBLAS
#                 (compare.py)
#   candidates    20 random candidates per zoo kernel compiled, run and checked on the GPU
#   replay        issue I's check: a CPU search's three best candidates (matmul 128^3, 10
#                 evaluations) checked and timed again on the GPU (sculpt replay --measure)
#   python        issue O's GPU check: sculpt::load of a GPU kernel run on device memory
#                 (executable_test), and the Python module's GPU test: a CUDA search run on
#                 PyTorch tensors (tests/python, mark gpu; it skips with the reason where the
#                 machine's python3 is not the one the module was built for)
#   space         the space benchmark (decisions/s) on one core and on every core (run when named:
#                 no open issue asks for it)
# SEARCH_FLAGS adds flags to every search of the search and continue steps: SEARCH_FLAGS=
# "--screen 8" bash run.sh search screens the GPU's rollouts by the learnt model (off on a GPU
# by default, search/algorithms/mcts.h).
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

# searches PREFIX KERNEL:SIZE...: a 2-minute MCTS search of each (8 searching threads), steps
# PREFIX_KERNEL_SIZE, then their best candidates timed kernel-only beside cuBLAS (PREFIX_best,
# PREFIX_compare) and summarised (PREFIX_summary). A `continue` search starts from the H200's
# searches that measured_times_test keeps (starts/KERNEL_SIZE*.jsonl, --start-from).
searches() {
  local prefix="$1" runs=() problem kernel size dir more log flags
  shift
  read -ra flags <<<"${SEARCH_FLAGS:-}"
  for problem in "$@"; do
    kernel="${problem%%:*}" size="${problem#*:}"
    dir="$results/runs/$kernel-$size" more=()
    if [ "$prefix" = continue ]; then
      dir="$results/runs/continue-$kernel-$size"
      for log in "$here/starts/${kernel}_$size"*.jsonl; do more+=(--start-from "$log"); done
    fi
    step "${prefix}_${kernel}_$size" 135 "$here/sculpt" search --kernel "$kernel" --size "$size" \
      --device cuda --algorithm mcts --threads 8 --budget 2m --evals 100000 "${more[@]}" "${flags[@]}" \
      --out "$dir"
    runs+=("$dir")
  done
  step "${prefix}_best" 40 "$here/bench_gpu" "$results/${prefix}_best" "${runs[@]}"
  step "${prefix}_compare" 50 python3 "$here/compare.py" "$results/${prefix}_best" \
    "$here/cublas_reference.py"
  step "${prefix}_summary" 10 python3 "$here/search_summary.py" \
    "$results/${prefix}_best/compare.json" "${runs[@]}"
}

steps=("$@")
((${#steps[@]})) || steps=(search tests)
nvidia-smi >"$results/nvidia-smi.txt" 2>&1
for s in "${steps[@]}"; do
  case "$s" in
    tests)
      step cuda_device_test 30 "$here/cuda_device_test" \
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
    python)
      # sculpt::load of a GPU kernel on device memory, then the Python module on PyTorch tensors
      # (issue O); the module imports only where the machine's python3 is the one it was built for.
      step executable_test 60 "$here/executable_test" --gtest_filter='LoadGpu*'
      step python_gpu 120 env PYTHONPATH="$here/python" LD_LIBRARY_PATH="$here" \
        python3 -m pytest -q -p no:cacheprovider -m gpu -rs "$here/tests_python"
      ;;
    replay)
      step replay_cpu_search 90 "$here/sculpt" search --kernel matmul --size 128x128x128 \
        --device cpu --evals 10 --out "$results/runs/cpu-matmul-128"
      step replay_on_gpu 30 "$here/sculpt" replay "$results/runs/cpu-matmul-128" --best 3 \
        --measure --device cuda
      ;;
    search)
      searches search axpy:67108864 matmul:256x256x32 matmul:1024x1024x1024
      ;;
    continue)
      searches continue matmul:256x256x32 matmul:1024x1024x1024
      ;;
    *)
      echo "run.sh: unknown step '$s' (tests, characterize, model, bench, candidates, search, continue, replay, space, python)" >&2
      exit 2
      ;;
  esac
done
echo "results: \$OUT/gpu-results.tar.gz"
