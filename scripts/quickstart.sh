#!/usr/bin/env bash
# Quick start, main job: installs the dependencies, builds, and traces the
# Pareto front of the built-in problem gebken_circle with an 11-point
# preference sweep; prints the report and writes out/gebken_circle.{json,csv}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh -DBUILD_TESTING=OFF -DBUILD_BENCHMARKS=OFF
mkdir -p out
./build/examples/ecmo_solve --problem=gebken_circle --sweep=11 \
  --output=out/gebken_circle.json --csv=out/gebken_circle.csv "$@"
