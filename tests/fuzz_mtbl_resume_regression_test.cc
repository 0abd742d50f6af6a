// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Replays every input of fuzz/corpus/mtbl_resume_fuzzer (points.jsonl files
// of real `ecmo_mtbl --smoke` runs, one cut short, the refusals of
// tests/ecmo_mtbl_test.cc, lines nested 60,000 deep, 1 MB strings) through
// the fuzz target of ecmo_mtbl's --resume reader with the regular compiler,
// and checks that the real runs' files are read whole: were the fuzzer's
// study to drift from the one --smoke writes, every seed would be refused
// at its header and the fuzzer would never reach a run's line.

#include <fstream>
#include <iterator>

#include "fuzz_corpus_replay.h"

#include "../fuzz/mtbl_resume_fuzzer.cc"

namespace {

std::string CorpusFile(const std::string& name) {
  std::ifstream in(
      std::string(ECMO_SOURCE_DIR) + "/fuzz/corpus/mtbl_resume_fuzzer/" + name,
      std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

TEST(FuzzMtblResumeRegression, EveryCorpusInputRuns) {
  EXPECT_GE(ecmo::testing::ReplayCorpus("mtbl_resume_fuzzer",
                                        &LLVMFuzzerTestOneInput),
            18);
}

TEST(FuzzMtblResumeRegression, RealSmokeRunsAreReadWhole) {
  const std::vector<FuzzStudy>& studies = Studies();
  ASSERT_EQ(studies.size(), 2u);
  ASSERT_EQ(studies[0].runs.size(), 15u);
  struct Case {
    const char* file;
    int study;    // 0: paper, 1: utopia
    size_t runs;  // read back
    bool cut;     // an unfinished last line to cut off
  };
  for (const Case& c : {Case{"seed-smoke", 0, 15, false},
                        Case{"seed-smoke-utopia", 1, 15, false},
                        Case{"seed-cut-last-line", 0, 14, true}}) {
    SCOPED_TRACE(c.file);
    const std::string text = CorpusFile(c.file);
    std::map<int, FinishedRun> finished;
    int64_t keep_bytes = -2;
    ASSERT_TRUE(CheckRead(studies[c.study], text, &finished, &keep_bytes));
    EXPECT_EQ(finished.size(), c.runs);
    if (c.cut) {
      EXPECT_EQ(keep_bytes, static_cast<int64_t>(text.rfind('\n') + 1));
    } else {
      EXPECT_EQ(keep_bytes, -1);
    }
    // Each file is its own study's only.
    std::map<int, FinishedRun> other;
    EXPECT_FALSE(CheckRead(studies[1 - c.study], text, &other, &keep_bytes));
  }
}

}  // namespace
