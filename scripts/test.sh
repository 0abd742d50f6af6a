#!/usr/bin/env bash
# Quick start, tests: installs the dependencies, builds everything, and runs
# the whole test suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
bash scripts/install_deps.sh
# The test files at -O1: the libraries, tools and benchmarks they run stay
# at Release's -O3, and a test file compiles in 62% of the time (g++, 64.5
# -> 40.3 s for sweep_pareto_test.cc on a loaded machine); they were the
# larger half of this build.
bash scripts/build.sh -DBUILD_TESTING=ON -DBUILD_BENCHMARKS=ON -DBUILD_EXAMPLES=ON \
  -DECMO_TEST_COMPILE_OPTIONS=-O1
stage test.sh "build"
cd build
ctest --output-on-failure -j"$(nproc)"
