// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo::Sweep: options, the public entry points and ThinHistory. The
// runner itself is in sweep_runner.h and its .cc files.

#include "ecmo/sweep.h"

#include <cmath>
#include <sstream>

#include "ecmo/internal/report.h"
#include "sweep_runner.h"

namespace ecmo {

const char* ThreadSafetyToString(ThreadSafety safety) {
  switch (safety) {
    case ThreadSafety::NONE:
      return "NONE";
    case ThreadSafety::BASIC:
      return "BASIC";
  }
  return "UNKNOWN";
}

bool ParetoSweep::Options::IsValid(std::string* error) const {
  static constexpr char kOptions[] = "ParetoSweep::Options";
  ECMO_OPTION_CHECK(kOptions, num_threads, num_threads > 0, "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    preference_floor,
                    preference_floor > 0.0 && preference_floor < 1.0,
                    "in (0, 1)");
  ECMO_OPTION_CHECK(
      kOptions,
      progress_every_n_seconds,
      progress_every_n_seconds > 0.0 && std::isfinite(progress_every_n_seconds),
      "> 0 and finite");
  ECMO_OPTION_CHECK(
      kOptions, max_history_entries, max_history_entries >= 0, ">= 0");
  ECMO_OPTION_CHECK(
      kOptions, refine_to, refine_to >= 0, ">= 0 (0: no refinement)");
  ECMO_OPTION_CHECK(
      kOptions,
      reference_point_offset,
      reference_point_offset >= 0.0 && std::isfinite(reference_point_offset),
      ">= 0 and finite");
  if (!internal::CheckEntries(kOptions, "reference_point", reference_point,
                              internal::IsFinite, "finite", error)) {
    return false;
  }
  if (!settings.is_object()) {
    if (error != nullptr) {
      *error =
          "Invalid configuration. ParetoSweep::Options::settings must be a "
          "JSON object.";
    }
    return false;
  }
  if (resume && jsonl_path.empty()) {
    if (error != nullptr) {
      *error =
          "Invalid configuration. ParetoSweep::Options::resume = true needs "
          "ParetoSweep::Options::jsonl_path (the file to resume from).";
    }
    return false;
  }
  if (!internal::CheckNoNull(kOptions, "callbacks", callbacks, error)) {
    return false;
  }
  std::string solver_error;
  if (!solver.IsValid(&solver_error)) {
    if (error != nullptr) *error = solver_error;
    return false;
  }
  return true;
}

void ThinHistory(int max_entries, std::vector<IterationSummary>* history) {
  if (history == nullptr || max_entries < 2 ||
      static_cast<int>(history->size()) <= max_entries) {
    return;
  }
  const std::vector<IterationSummary>& h = *history;
  const double first = std::log(std::max(0, h.front().iteration) + 1.0);
  const double last = std::log(std::max(0, h.back().iteration) + 1.0);
  const double step = (last - first) / (max_entries - 1);
  std::vector<IterationSummary> kept;
  kept.reserve(max_entries + 1);
  kept.push_back(h.front());
  double next = first + step;
  for (size_t i = 1; step > 0.0 && i + 1 < h.size(); ++i) {
    const double x = std::log(std::max(0, h[i].iteration) + 1.0);
    if (x >= next) {
      kept.push_back(h[i]);
      while (next <= x) next += step;
    }
  }
  kept.push_back(h.back());
  *history = std::move(kept);
}

void Sweep(const ParetoSweep::Options& options,
           const ProblemFactory& factory,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary) {
  if (summary == nullptr) return;
  internal::SweepRunner runner(
      options, &factory, nullptr, ThreadSafety::BASIC, preferences, summary);
  runner.Run();
}

void Sweep(const ParetoSweep::Options& options,
           const Problem& problem,
           ThreadSafety thread_safety,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary) {
  if (summary == nullptr) return;
  internal::SweepRunner runner(
      options, nullptr, &problem, thread_safety, preferences, summary);
  runner.Run();
}

}  // namespace ecmo
