// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Replays every file of fuzz/corpus/<target> through a fuzz target's entry
// point with the regular compiler (one helper for the *_regression_test.cc
// files, each of which includes its target's source).
#ifndef ECMO_TESTS_FUZZ_CORPUS_REPLAY_H_
#define ECMO_TESTS_FUZZ_CORPUS_REPLAY_H_

#include <dirent.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace ecmo {
namespace testing {

// Runs `entry` on every input of the target's corpus (the target aborts on
// a failed invariant) and returns how many there were; -1 (and a test
// failure) when the corpus folder cannot be opened.
inline int ReplayCorpus(const std::string& target,
                        int (*entry)(const uint8_t*, size_t)) {
  const std::string dir =
      std::string(ECMO_SOURCE_DIR) + "/fuzz/corpus/" + target;
  DIR* d = opendir(dir.c_str());
  EXPECT_NE(d, nullptr) << dir;
  if (d == nullptr) return -1;
  int count = 0;
  while (dirent* item = readdir(d)) {
    const std::string name = item->d_name;
    if (name == "." || name == "..") continue;
    std::ifstream file(dir + "/" + name, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                  std::istreambuf_iterator<char>());
    SCOPED_TRACE(name);
    entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++count;
  }
  closedir(d);
  return count;
}

}  // namespace testing
}  // namespace ecmo

#endif  // ECMO_TESTS_FUZZ_CORPUS_REPLAY_H_
