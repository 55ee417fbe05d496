#!/usr/bin/env bash
# Configures and builds cookgraph (and its tests) into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
# The Python module (docs/python.md) into Debian python3's dist-packages, as root.
if [ "$(id -u)" -eq 0 ]; then
  cmake --install build --component python --strip >/dev/null  # debug information stays in build/
else
  echo "build: to install the Python module, run as root: cmake --install build --component python --strip"
fi
