#!/usr/bin/env bash
# Builds sculpt (installing what is missing) and runs its tests: every label but `gpu`
# (needs a GPU) and `slow` (long suites). Pass ctest options to narrow it, e.g. `-L unit`.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --no-run
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE 'gpu|slow' "$@"
