// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// libFuzzer target over the resume reader (ecmo::internal::ParseResumeText,
// plugin/src/sweep_io.h): the text of a JSON-lines file as a sweep of 3
// points, 2 objectives, 2 parameters reads it back with --resume.
// Invariants: no crash, no exception, a bounded message; an accepted file
// yields points whose index, warm_start_from and vector sizes the sweep can use
// without bounds checks, and whose preferences are the sweep's; a refusal names
// the file.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "sweep_io.h"

namespace {

const ecmo::internal::ResumeExpectation& Expectation() {
  static const ecmo::internal::ResumeExpectation* expect = [] {
    auto* e = new ecmo::internal::ResumeExpectation;
    e->path = "fuzz.jsonl";
    e->problem_name = "gebken_circle";
    e->num_objectives = 2;
    e->num_parameters = 2;
    e->num_constraints = 1;
    e->preferences = {{0.25, 0.75}, {0.5, 0.5}, {0.75, 0.25}};
    // A small settings object, so that the fuzzer can reach the checks
    // behind it from the seeds.
    e->settings = {{"strategy", "wc-augmented-lagrangian"}};
    return e;
  }();
  return *expect;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const ecmo::internal::ResumeExpectation& expect = Expectation();
  ecmo::internal::ResumeContents contents;
  std::string error;
  const int n = static_cast<int>(expect.preferences.size());
  if (!ecmo::internal::ParseResumeText(text, expect, &contents, &error)) {
    if (error.rfind("fuzz.jsonl:", 0) != 0) std::abort();
    // Values from the file are quoted cut short (a 10 MB "index" was
    // echoed whole).
    if (error.size() > 20000) std::abort();
    return 0;
  }
  if (static_cast<int>(contents.points.size()) > n) std::abort();
  if (contents.valid_prefix_bytes < 0 ||
      contents.valid_prefix_bytes > static_cast<int64_t>(size)) {
    std::abort();
  }
  for (const ecmo::internal::ResumedLine& p : contents.points) {
    if (p.index < 0 || p.index >= n) std::abort();
    if (p.warm_start_from < -1 || p.warm_start_from >= n ||
        p.warm_start_from == p.index) {
      std::abort();
    }
    const ecmo::Solver::Summary& s = p.summary;
    if (s.z.size() != 0 && s.z.size() != expect.num_parameters) std::abort();
    if (s.objectives.size() != 0 &&
        s.objectives.size() != expect.num_objectives) {
      std::abort();
    }
    if (s.preference.size() != expect.preferences[p.index].size()) {
      std::abort();
    }
    if (s.iterations < -1) std::abort();
  }
  return 0;
}
