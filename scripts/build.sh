#!/usr/bin/env bash
# scripts/build.sh [TARGET...]: configures the normal build (./build: g++,
# -O2 with line tables, warnings as errors) and builds TARGET..., by default
# what scripts/run-example.sh runs: the cookgraph binary and the Python
# module, which it then installs for Debian's python3 (as root). `all` builds
# everything (the test binaries and benchmarks too); scripts/test.sh builds
# what its part of the suite needs (docs/testing.md#how-the-test-command-runs).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(cookgraph cookgraph_python)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# Line tables (-g1), not full debug information: a backtrace still names
# file and line, and the build takes a fifth less time. Configure with
# -DCMAKE_BUILD_TYPE=Debug to step through the code in a debugger.
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCOOKGRAPH_WERROR=ON >/dev/null
cmake --build build -j "$(nproc)" --target "${targets[@]}"
# The Python module (docs/python.md) into Debian python3's dist-packages, as
# root, when it was among the targets.
case " ${targets[*]} " in
  *" cookgraph_python "* | *" all "*)
    if [ "$(id -u)" -eq 0 ]; then
      cmake --install build --component python --strip >/dev/null  # line tables stay in build/
    else
      echo "build: to install the Python module, run as root: cmake --install build --component python --strip"
    fi
    ;;
esac
