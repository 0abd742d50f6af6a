// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// libFuzzer target over the text inputs the tools parse: preference files,
// preference specifications (--preferences=...), and the numeric lists of
// ecmo_solve. Invariants: no crash; a successful parse yields rows of the
// requested width that lie in the simplex.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

#include "ecmo/preference_grid.h"
#include "fuzz_input.h"

namespace {

void CheckRows(const std::vector<std::vector<double>>& rows, int S) {
  for (const auto& row : rows) {
    if (static_cast<int>(row.size()) != S) std::abort();
    double sum = 0.0;
    for (double w : row) {
      if (!std::isfinite(w) || w < 0.0) std::abort();
      sum += w;
    }
    if (std::abs(sum - 1.0) > 1e-9) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ecmo::fuzz::FuzzInput in(data, size);
  const int S = in.Int(1, 5);
  const std::string text(reinterpret_cast<const char*>(in.rest()),
                         in.remaining());

  // As a preference file.
  char path[] = "/tmp/ecmo_text_fuzzer_XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) {
    if (write(fd, text.data(), text.size()) ==
        static_cast<ssize_t>(text.size())) {
      std::vector<std::vector<double>> rows;
      std::string error;
      if (ecmo::ReadPreferenceFile(path, S, &rows, &error)) CheckRows(rows, S);
    }
    close(fd);
    unlink(path);
  }

  // As a --preferences specification (bounded so grids stay small).
  if (text.size() < 64 && text.rfind("file:", 0) != 0) {
    std::vector<ecmo::NamedPreference> named;
    std::string error;
    if (ecmo::ParsePreferenceSpec(text, S, &named, &error)) {
      if (named.size() > 2000000) std::abort();
      std::vector<std::vector<double>> rows;
      for (const auto& p : named) rows.push_back(p.weights);
      CheckRows(rows, S);
    }
  }
  return 0;
}
