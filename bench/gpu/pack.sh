#!/usr/bin/env bash
# Packs what a run on the GPU machine needs into .gpu/ (ignored by git), for the device tool's
# `carry`: the GPU-facing binaries of BUILD_DIR without their debug sections, the shared
# libraries they load beyond glibc and libstdc++, compare.py, the cuBLAS reference timer, the
# logs the `continue` step starts from, and run.sh, which runs it all there.
#   bench/gpu/pack.sh [BUILD_DIR (build)] [CUBLAS_REFERENCE (../shared/bench/cublas_reference.py)]
# Then call the device tool with carry [".gpu"] and the command `bash .gpu/run.sh` (or
# `bash .gpu/run.sh STEP...`, see run.sh); the results come back as $OUT/gpu-results.tar.gz.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
reference="${2:-../shared/bench/cublas_reference.py}"
binaries=(sculpt bench_gpu bench_gpu_space cuda_device_test gpu_candidates_test gpu_bound_test
  executable_test)

for b in "${binaries[@]}"; do
  [ -x "$build/bin/$b" ] || { echo "pack.sh: $build/bin/$b is missing (build with the CUDA header)" >&2; exit 2; }
done
[ -f "$reference" ] || { echo "pack.sh: no cuBLAS reference at $reference" >&2; exit 2; }

rm -rf .gpu
mkdir .gpu
for b in "${binaries[@]}"; do
  objcopy --strip-debug "$build/bin/$b" ".gpu/$b"
  # The machine has its own C and C++ runtimes (newer); the rest travels.
  ldd "$build/bin/$b" | awk '/=> \//{print $3}' |
    grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -n "$lib" .gpu/; done
done
cp bench/gpu/compare.py bench/gpu/search_summary.py bench/gpu/run.sh .gpu/
# The Python module (built for this machine's Python: the `python` step says when the GPU
# machine's differs) with the shared libraries it loads, and its GPU tests.
if [ -d "$build/python/sculpt" ]; then
  mkdir -p .gpu/python/sculpt .gpu/tests_python
  cp "$build"/python/sculpt/*.py .gpu/python/sculpt/
  for module in "$build"/python/sculpt/_sculpt*.so; do
    objcopy --strip-debug "$module" ".gpu/python/sculpt/$(basename "$module")"
    ldd "$module" | awk '/=> \//{print $3}' |
      grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*|libpython[^/]*)\.so' |
      while read -r lib; do cp -n "$lib" .gpu/; done
  done
  cp tests/python/*.py .gpu/tests_python/
fi
# What the `continue` step's searches start from.
mkdir .gpu/starts
cp tests/perf_model/h200/matmul_*.jsonl .gpu/starts/
cp "$reference" .gpu/cublas_reference.py
echo "packed $(du -sh .gpu | cut -f1) into .gpu/ (the device tool carries 64 MiB at most)"
