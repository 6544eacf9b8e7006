#!/usr/bin/env bash
# tilewise as a user gets it (issue 29), after scripts/test.sh built build/release:
#   1. `cmake --install` into a temporary prefix, made read-only; the example (examples/) configured and built as a
#      project of its own with find_package(tilewise), and run from outside the source tree: with a GPU it must pass
#      its checks, without one it must get as far as the library's "no CUDA GPU" error.
#   2. `pip install .` (scikit-build-core over the same CMake) into a virtual environment with torch from PyPI, and the
#      Python tests run against the installed package: the CPU ones everywhere, the GPU ones where a GPU is.
# Options: --add-subdirectory also builds the example with tilewise added from source (a third build of the library).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build=${TILEWISE_BUILD_DIR:-build/release}
venv=$(realpath -m "${TILEWISE_VENV:-build/python-venv}")
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
launchers=()
if command -v ccache >/dev/null; then
  launchers=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

run_example() {  # $1: the built example
  local rc=0
  (cd "$work" && "$1") >"$work/example.log" 2>&1 || rc=$?
  cat "$work/example.log"
  if [ "$rc" -eq 0 ]; then return 0; fi
  if [ "$rc" -eq 2 ] && ! nvidia-smi -L >/dev/null 2>&1 && grep -q "tilewise: no CUDA GPU is usable here" "$work/example.log" &&
     grep -q "^int4 g128: " "$work/example.log"; then
    echo "example: ran to the library's GPU check (no GPU here)"
    return 0
  fi
  echo "example failed (exit $rc)" >&2
  return 1
}

echo "=== the installed package"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
chmod -R a-w "$work/prefix"
ls "$work/prefix/include/tilewise" "$work/prefix"/lib*/cmake/tilewise
if grep -rlE "nlohmann|receipt|#include \"(core|select|families|device|jit)/" "$work/prefix/include"; then
  echo "the public headers name JSON or receipt types" >&2
  exit 1
fi
cmake -S examples -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/example" -j2 >/dev/null
run_example "$work/example/linear"

if [ "${1:-}" = "--add-subdirectory" ]; then
  echo "=== the example with tilewise added from source"
  cmake -S examples -B "$work/example-src" -DTILEWISE_SOURCE_DIR="$repo" -DCMAKE_BUILD_TYPE=Release \
    "${launchers[@]}" >/dev/null
  cmake --build "$work/example-src" -j2 >/dev/null
  run_example "$work/example-src/linear"
fi

echo "=== pip install ."
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" 2>/dev/null || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$venv"
  }
fi
start=$SECONDS
"$venv/bin/pip" install -q --no-cache-dir --upgrade pip >/dev/null
# torch from PyPI brings about 5 GB of CUDA wheels. One `pip install` downloads every wheel before it installs any
# and keeps a cached copy, about twice that at its peak (a CI run once ran out of disk there), so the resolved set is
# installed a few wheels at a time without a cache.
"$venv/bin/pip" install -q --no-cache-dir --dry-run --report "$work/torch-plan.json" torch pytest numpy
"$venv/bin/python" -c 'import json, sys
for item in json.load(open(sys.argv[1]))["install"]:
    print(item["metadata"]["name"] + "==" + item["metadata"]["version"])' "$work/torch-plan.json" >"$work/torch-pins.txt"
echo "torch and pytest: $(wc -l <"$work/torch-pins.txt") wheels, $(df -h --output=avail "$work" | tail -n 1 | tr -d ' ') free"
xargs -r -n 4 "$venv/bin/pip" install -q --no-cache-dir --no-deps <"$work/torch-pins.txt"
"$venv/bin/pip" check
echo "torch and pytest: $((SECONDS - start)) s"
start=$SECONDS
# The build folder is kept (build/pip), so a second run compiles only what changed.
SKBUILD_BUILD_DIR=$repo/build/pip CMAKE_ARGS="${launchers[*]}" CMAKE_BUILD_PARALLEL_LEVEL=2 \
  "$venv/bin/pip" install -q "$repo"
echo "pip install .: $((SECONDS - start)) s"
# From a folder where the source tree's python/ is not importable: the installed package is what runs.
cd "$work"
"$venv/bin/python" -c "import tilewise, os; print('tilewise from', os.path.dirname(tilewise.__file__))"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$repo/tests/python"
