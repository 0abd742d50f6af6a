// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// What the readers of users' data files (g2o_pose_graph.h, bal_problem.h)
// share: messages of the form "path:line: what", a safe rendering of bad
// text inside them, and opening a file with a message that says why it
// cannot be read.

#ifndef ECMO_EXAMPLES_PIPELINES_TEXT_FILE_H_
#define ECMO_EXAMPLES_PIPELINES_TEXT_FILE_H_

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace ecmo_pipelines {

// Reports "path:line: what" into *error (may be null; line <= 0 leaves the
// line out); returns false so that callers can `return Fail(...)`.
inline bool Fail(const std::string& path,
                 int line,
                 const std::string& what,
                 std::string* error) {
  if (error != nullptr) {
    std::ostringstream message;
    message << path;
    if (line > 0) message << ":" << line;
    message << ": " << what;
    *error = message.str();
  }
  return false;
}

// `text` as a message can show it: at most 40 characters, anything that is
// not printable ASCII as \xNN (a binary file's first field is garbage).
inline std::string Printable(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  if (text.size() > 40) out += "...";
  return out;
}

// Opens `path` for reading into *in; false with "path: why" in *error
// otherwise. `kind` names the expected content ("a g2o file"): an
// ifstream opens a directory without complaint and then reads nothing, so
// a directory is refused here by name.
inline bool OpenTextFile(const std::string& path,
                         const char* kind,
                         std::ifstream* in,
                         std::string* error) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    return Fail(path, 0, std::string("is a directory, not ") + kind, error);
  }
  in->open(path);
  if (!*in) return Fail(path, 0, "cannot open the file for reading", error);
  return true;
}

}  // namespace ecmo_pipelines

#endif  // ECMO_EXAMPLES_PIPELINES_TEXT_FILE_H_
