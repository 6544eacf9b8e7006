#!/usr/bin/env bash
# Sets up, builds and runs the tests. Without a GPU the GPU-labelled tests are left out (ctest --preset cpu);
# with one, everything runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if nvidia-smi -L >/dev/null 2>&1; then preset=all; else preset=cpu; fi
ctest --preset "$preset" -j"$(nproc)"
