#!/usr/bin/env bash
# Runs the whole test suite a second time under AddressSanitizer +
# UndefinedBehaviorSanitizer (./build-asan), and the sweep tests under
# ThreadSanitizer (./build-tsan). Any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
common=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_BENCHMARKS=OFF -DBUILD_EXAMPLES=ON)

asan="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B build-asan "${common[@]}" -DCMAKE_CXX_FLAGS="$asan" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" > build-asan.log 2>&1 \
  || { cat build-asan.log; exit 1; }
cmake --build build-asan -j"$(nproc)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j"$(nproc)" -E install_and_find_package)

tsan="-fsanitize=thread -fno-omit-frame-pointer"
cmake -S . -B build-tsan "${common[@]}" -DCMAKE_CXX_FLAGS="$tsan" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" > build-tsan.log 2>&1 \
  || { cat build-tsan.log; exit 1; }
# Only the multi-threaded code paths need TSan: the sweep and determinism
# tests, the concurrent Ipopt reference test, and ecmo_solve for the kill
# and resume test.
cmake --build build-tsan -j"$(nproc)" --target sweep_test sweep_pareto_test \
  sweep_streaming_test determinism_test ipopt_reference_test ecmo_solve
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
   ctest --output-on-failure -j"$(nproc)" \
     -R 'Sweep|ParetoSweep|WarmStart|Determinism|Concurren|Thread')
