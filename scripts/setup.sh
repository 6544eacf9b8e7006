#!/usr/bin/env bash
# Installs what the build needs where it is missing (Debian/Ubuntu), then configures and builds the release preset.
# On a machine without package access (the GPU machine) the packages must already be there.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(cmake g++ make ccache nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libtomlplusplus-dev zlib1g-dev)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >/dev/null; then
    echo "setup: could not install ${missing[*]}; continuing in case they are installed another way" >&2
  fi
fi
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
command -v nvcc >/dev/null || { echo "setup: the CUDA toolkit (nvcc) is required; install CUDA 12.8 or newer" >&2; exit 1; }
# ccache, where present, serves the second build of the same sources (`pip install .` in scripts/ci-package.sh).
launchers=()
if command -v ccache >/dev/null; then
  launchers=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake --preset release -DBUILD_TESTING=ON "${launchers[@]}" >/dev/null
cmake --build --preset release -j"$(nproc)"
