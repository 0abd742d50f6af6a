// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Replays every input of fuzz/corpus/text_fuzzer (the seed corpus and the
// crashes found so far) through the fuzz target with the regular compiler,
// so each past finding stays a regression test without libFuzzer.

#include "fuzz_corpus_replay.h"

#include "../fuzz/text_fuzzer.cc"

namespace {

TEST(FuzzTextRegression, EveryCorpusInputRuns) {
  EXPECT_GE(ecmo::testing::ReplayCorpus("text_fuzzer", &LLVMFuzzerTestOneInput),
            1);
}

}  // namespace
