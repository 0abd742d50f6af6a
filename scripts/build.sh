#!/usr/bin/env bash
# Configures and builds ceres-ecmo in ./build (Release). Extra arguments are
# passed to the configure step, e.g. scripts/build.sh -DBUILD_BENCHMARKS=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
# A unity build (CMAKE_UNITY_BUILD: up to 8 files compiled as one, which
# also links the test files into one program per group, tests/CMakeLists.txt)
# and Ninja for a new tree: together they make a clean build markedly faster
# (tests/README.md, "CI time").
cmake -S . -B build $(cmake_generator build) -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON "$@" \
  > build-configure.log 2>&1 \
  || { cat build-configure.log; exit 1; }
cmake --build build -j"$(nproc)"
