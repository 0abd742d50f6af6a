// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Replays every input of fuzz/corpus/resume_fuzzer (the seed corpus and the
// findings so far: an out-of-range warm_start_from that crashed a resume, an
// iteration count that overflowed int) through the fuzz target with the
// regular compiler, so each stays a regression test without libFuzzer.

#include "fuzz_corpus_replay.h"

#include "../fuzz/resume_fuzzer.cc"

namespace {

TEST(FuzzResumeRegression, EveryCorpusInputRuns) {
  EXPECT_GE(
      ecmo::testing::ReplayCorpus("resume_fuzzer", &LLVMFuzzerTestOneInput), 9);
}

}  // namespace
