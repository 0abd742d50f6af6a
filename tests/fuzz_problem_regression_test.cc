// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Replays every input of fuzz/corpus/problem_fuzzer (the seed corpus and the
// crashes found so far) through the fuzz target with the regular compiler,
// so each past finding stays a regression test without libFuzzer.

#include <dirent.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "../fuzz/problem_fuzzer.cc"

namespace {

TEST(FuzzProblemRegression, EveryCorpusInputRuns) {
  const std::string dir =
      std::string(ECMO_SOURCE_DIR) + "/fuzz/corpus/problem_fuzzer";
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  int count = 0;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    std::ifstream file(dir + "/" + name, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                  std::istreambuf_iterator<char>());
    SCOPED_TRACE(name);
    // Aborts (a failed invariant) on a regression.
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                           bytes.size());
    ++count;
  }
  closedir(d);
  EXPECT_GE(count, 1);
}

}  // namespace
