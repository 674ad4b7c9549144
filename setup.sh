#!/usr/bin/env bash
# Installs sculpt's dependencies (Debian packages), builds it into build/ and runs the main
# job: a search on the default device (the GPU when one answers, else the CPU).
#   ./setup.sh             install, build, run the main job
#   ./setup.sh --no-run    install and build only (test.sh uses this)
# Safe to run again: installed packages are skipped and the build is incremental.
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libboost-dev libisl-dev libgmp-dev
  nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev libtbb-dev libjemalloc-dev libopenblas-dev libdnnl-dev
  clang libclang-rt-14-dev clang-16 libclang-rt-16-dev clang-format chromium
  libopenmpi-dev openmpi-bin
  python3-dev pybind11-dev python3-numpy python3-pytest
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

build_type="${SCULPT_BUILD_TYPE:-RelWithDebInfo}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" ${SCULPT_CMAKE_ARGS:-}
cmake --build build

[ "${1:-}" = "--no-run" ] && exit 0
./build/bin/sculpt --version
# The main job: a two-minute search for a matmul on the default device (the GPU when one
# answers, at 1024^3; else the CPU backend, at the default sizes scaled down to 256^3); the log,
# the best code and the report land in a new folder of runs/ (a search never rewrites an old
# log), and the summary's last line says where the report is.
./build/bin/sculpt search --kernel matmul --budget 2m \
  --out "runs/matmul-$(date +%Y%m%d-%H%M%S)"
