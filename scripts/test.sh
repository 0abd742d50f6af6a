#!/usr/bin/env bash
# Quick start, tests: installs the dependencies, builds everything, and runs
# the whole test suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh -DBUILD_TESTING=ON -DBUILD_BENCHMARKS=ON -DBUILD_EXAMPLES=ON
cd build
ctest --output-on-failure -j"$(nproc)"
