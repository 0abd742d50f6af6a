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
      kOptions,
      refine_to,
      refine_to >= kRefineWhereNeeded && refine_to <= kMaxPreferenceCount,
      "in [0, 1000000] (0: no refinement; the points are kept in memory) "
      "or kRefineWhereNeeded (-1)");
  ECMO_OPTION_CHECK(kOptions,
                    refine_gap_ratio,
                    refine_gap_ratio >= 1.0 && std::isfinite(refine_gap_ratio),
                    ">= 1 and finite (the largest hole over the mean "
                    "neighbour distance at which refinement stops)");
  ECMO_OPTION_CHECK(
      kOptions,
      reference_point_offset,
      reference_point_offset >= 0.0 && std::isfinite(reference_point_offset),
      ">= 0 and finite");
  if (!internal::CheckEntries(kOptions,
                              "reference_point",
                              reference_point,
                              internal::IsFinite,
                              "finite",
                              error)) {
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

EvaluatorFactory MakeEvaluatorFactory(ProblemFactory factory) {
  return [factory](std::string* error) -> std::unique_ptr<EvaluatorInstance> {
    if (!factory) {
      *error = "The problem factory is empty.";
      return nullptr;
    }
    std::shared_ptr<const Problem> problem = factory();
    if (problem == nullptr) {
      *error = "The problem factory returned no problem.";
      return nullptr;
    }
    std::string why;
    if (!problem->IsValid(&why)) {
      *error = "Invalid problem: " + why;
      return nullptr;
    }
    auto instance = std::make_unique<EvaluatorInstance>();
    instance->evaluator = std::make_unique<ProblemEvaluator>(problem.get());
    instance->start.resize(problem->NumParameters());
    problem->GetParameters(instance->start.data());
    instance->problem = problem.get();
    instance->storage = std::const_pointer_cast<Problem>(problem);
    return instance;
  };
}

namespace internal {

WorkerSource FactorySource(const EvaluatorFactory& factory) {
  internal::WorkerSource source;
  source.build = [&factory](int, internal::Worker* worker, std::string* error) {
    if (!factory) {
      *error = "The evaluator factory is empty.";
      return false;
    }
    worker->instance = factory(error);
    if (worker->instance == nullptr || worker->instance->evaluator == nullptr) {
      if (error->empty())
        *error = "The evaluator factory returned no evaluator.";
      return false;
    }
    worker->evaluator = worker->instance->evaluator.get();
    worker->problem = worker->instance->problem;
    worker->start = worker->instance->start;
    return true;
  };
  return source;
}

}  // namespace internal

namespace {

using internal::FactorySource;

void RunSweep(const ParetoSweep::Options& options,
              internal::WorkerSource source,
              const std::vector<std::vector<double>>& preferences,
              ParetoSweep::Summary* summary) {
  if (summary == nullptr) return;
  internal::SweepRunner runner(
      options, std::move(source), preferences, summary);
  runner.Run();
}

}  // namespace

void Sweep(const ParetoSweep::Options& options,
           const EvaluatorFactory& factory,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary) {
  RunSweep(options, FactorySource(factory), preferences, summary);
}

void Sweep(const ParetoSweep::Options& options,
           Evaluator* evaluator,
           const Eigen::VectorXd& start,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary) {
  internal::WorkerSource source;
  source.build = [evaluator, &start](
                     int, internal::Worker* worker, std::string* error) {
    if (evaluator == nullptr) {
      *error = "The evaluator is null.";
      return false;
    }
    worker->evaluator = evaluator;
    worker->start = start;
    return true;
  };
  source.max_threads = 1;
  source.max_threads_reason =
      "the sweep runs on one Evaluator, which is not thread-safe; pass an "
      "EvaluatorFactory to run on several threads";
  RunSweep(options, std::move(source), preferences, summary);
}

void Sweep(const ParetoSweep::Options& options,
           const ProblemFactory& factory,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary) {
  const EvaluatorFactory evaluators = MakeEvaluatorFactory(factory);
  RunSweep(options, FactorySource(evaluators), preferences, summary);
}

void Sweep(const ParetoSweep::Options& options,
           const Problem& problem,
           ThreadSafety thread_safety,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary) {
  // Each worker evaluates the user's problem through its own evaluator.
  internal::WorkerSource source;
  source.build = [&problem](int, internal::Worker* worker, std::string* error) {
    std::string why;
    if (!problem.IsValid(&why)) {
      *error = "Invalid problem: " + why;
      return false;
    }
    worker->instance = std::make_unique<EvaluatorInstance>();
    worker->instance->evaluator = std::make_unique<ProblemEvaluator>(&problem);
    worker->evaluator = worker->instance->evaluator.get();
    worker->problem = &problem;
    worker->start.resize(problem.NumParameters());
    problem.GetParameters(worker->start.data());
    return true;
  };
  if (thread_safety == ThreadSafety::NONE) {
    source.max_threads = 1;
    source.max_threads_reason =
        "the shared problem is declared ThreadSafety::NONE";
  } else if (options.point_solver) {
    source.max_threads = 1;
    source.max_threads_reason =
        "a point_solver on a shared problem needs its parameter blocks; "
        "pass a ProblemFactory to run it on several threads";
  }
  RunSweep(options, std::move(source), preferences, summary);
}

}  // namespace ecmo
