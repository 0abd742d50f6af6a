#!/usr/bin/env bash
# Configures and builds ceres-ecmo in ./build (Release). Extra arguments are
# passed to the configure step, e.g. scripts/build.sh -DBUILD_BENCHMARKS=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" > build-configure.log 2>&1 \
  || { cat build-configure.log; exit 1; }
cmake --build build -j"$(nproc)"
