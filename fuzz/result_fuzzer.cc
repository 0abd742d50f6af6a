// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// libFuzzer target over what ecmo_plot reads: a saved result file (a sweep
// JSON, a point's JSON or JSON lines) through ecmo::ReadResultFile, then
// every point through ecmo::SummaryFromJson. Invariants: no crash, no
// exception, no unbounded recursion or allocation; a refusal names the
// file; an accepted summary has consistent sizes.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ecmo/result_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One file per process, rewritten for every input.
  static const std::string path =
      "/tmp/ecmo_result_fuzzer_" + std::to_string(::getpid()) + ".json";
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return 0;
  const bool written = std::fwrite(data, 1, size, file) == size;
  std::fclose(file);
  if (!written) return 0;
  std::vector<nlohmann::json> points;
  nlohmann::json document;
  int skipped = 0;
  std::string error;
  if (!ecmo::ReadResultFile(path, &points, &document, &skipped, &error)) {
    if (error.rfind(path, 0) != 0) std::abort();
    return 0;
  }
  if (points.empty() || skipped < 0) std::abort();
  for (const nlohmann::json& point : points) {
    ecmo::Solver::Summary summary;
    if (!ecmo::SummaryFromJson(point, &summary, &error)) continue;
    if (summary.num_parameters != summary.z.size()) std::abort();
    if (summary.num_objectives !=
        static_cast<int>(summary.preference.size())) {
      std::abort();
    }
    // What ecmo_plot prints of a point must be boundable.
    if (ecmo::JsonForMessage(point).size() > 200) std::abort();
  }
  return 0;
}
