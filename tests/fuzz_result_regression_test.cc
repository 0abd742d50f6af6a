// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Replays every input of fuzz/corpus/result_fuzzer (seeds, and the inputs
// of issue 60: arrays nested 60,000 deep, a 1 MB string) through the fuzz
// target of ecmo_plot's reader with the regular compiler.

#include "fuzz_corpus_replay.h"

#include "../fuzz/result_fuzzer.cc"

namespace {

TEST(FuzzResultRegression, EveryCorpusInputRuns) {
  EXPECT_GE(
      ecmo::testing::ReplayCorpus("result_fuzzer", &LLVMFuzzerTestOneInput),
      5);
}

}  // namespace
