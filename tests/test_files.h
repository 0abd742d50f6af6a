// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Files and text of the tests that run the tools or read what they wrote.
#ifndef ECMO_TESTS_TEST_FILES_H_
#define ECMO_TESTS_TEST_FILES_H_

#include <fstream>
#include <sstream>
#include <string>

namespace ecmo {
namespace testing {

// The whole file, or "" when it cannot be read.
inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Replaces the file's contents with `text`.
inline void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc | std::ios::binary);
  out << text;
}

// True when `part` occurs in `text`.
inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace testing
}  // namespace ecmo

#endif  // ECMO_TESTS_TEST_FILES_H_
