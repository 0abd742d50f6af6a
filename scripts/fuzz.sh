#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in ./build-fuzz and
# runs the five side by side, each for a bounded time on its committed
# seed corpus:
#   bash scripts/fuzz.sh [seconds per target, default 60]
# A crash leaves its input in build-fuzz/ (crash-*) and fails the script;
# turn it into a regression test before fixing it.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-60}"
bash scripts/install_deps.sh --fuzz
SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# -O1 -g1 as in scripts/sanitize.sh: the build, not the 3 x 60 s of
# fuzzing, is most of this script's time. Without precompiled headers: this
# build of the libraries checks that each of their files includes what it
# uses (cmake/ecmoPrecompiledHeaders.cmake).
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DECMO_FUZZ=ON -DBUILD_TESTING=OFF -DBUILD_EXAMPLES=OFF -DBUILD_BENCHMARKS=OFF \
  -DECMO_PRECOMPILE_HEADERS=OFF \
  -DCMAKE_CXX_FLAGS="$SAN" > build-fuzz.log 2>&1 || { cat build-fuzz.log; exit 1; }
cmake --build build-fuzz -j"$(nproc)" --target problem_fuzzer text_fuzzer resume_fuzzer result_fuzzer \
  mtbl_resume_fuzzer
# -max_len lets the fuzzer grow inputs past libFuzzer's default 4 KB, to
# the sizes where nesting and line limits matter (the seeds include 1 MB
# and 60,000-deep inputs).
# The five targets run side by side (each libFuzzer process is one
# thread), each for the given wall time; then their logs, in order.
targets=(problem_fuzzer text_fuzzer resume_fuzzer result_fuzzer
         mtbl_resume_fuzzer)
pids=()
for target in "${targets[@]}"; do
  work="build-fuzz/corpus-$target"
  mkdir -p "$work"
  echo "fuzz: $target for ${SECONDS_PER_TARGET}s"
  (cd build-fuzz && exec "./fuzz/$target" -max_total_time="$SECONDS_PER_TARGET" \
     -timeout=10 -rss_limit_mb=4096 -max_len=1200000 -print_final_stats=1 \
     "../$work" "../fuzz/corpus/$target" > "fuzz-$target.log" 2>&1) &
  pids+=($!)
done
failed=0
for i in "${!targets[@]}"; do
  status=0
  wait "${pids[$i]}" || status=$?
  echo "fuzz: ${targets[$i]} (exit $status)"
  tail -n 12 "build-fuzz/fuzz-${targets[$i]}.log"
  if [ "$status" -ne 0 ]; then failed=1; fi
done
exit "$failed"
