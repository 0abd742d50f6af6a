// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Replays every input of fuzz/corpus/problem_fuzzer (the seed corpus and the
// crashes found so far) through the fuzz target with the regular compiler,
// so each past finding stays a regression test without libFuzzer.

#include "fuzz_corpus_replay.h"

#include "../fuzz/problem_fuzzer.cc"

namespace {

TEST(FuzzProblemRegression, EveryCorpusInputRuns) {
  EXPECT_GE(ecmo::testing::ReplayCorpus("problem_fuzzer", &LLVMFuzzerTestOneInput),
            1);
}

}  // namespace
