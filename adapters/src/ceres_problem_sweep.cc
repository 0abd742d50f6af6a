// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Sweeps over CeresProblemAdapter (see ecmo/ceres_problem_sweep.h).

#include "ecmo/ceres_problem_sweep.h"

#include <utility>

namespace ecmo {

EvaluatorFactory MakeCeresProblemFactory(CeresProblemBuilder build) {
  return [build](std::string* error) -> std::unique_ptr<EvaluatorInstance> {
    if (!build) {
      *error = "The ceres::Problem builder is empty.";
      return nullptr;
    }
    std::shared_ptr<CeresProblemInstance> built(build());
    if (built == nullptr || built->problem == nullptr) {
      *error = built == nullptr
                   ? "The ceres::Problem builder returned no instance."
                   : "The ceres::Problem builder returned an instance "
                     "without a problem (CeresProblemInstance::problem).";
      return nullptr;
    }
    auto adapter =
        std::make_unique<CeresProblemAdapter>(built->problem.get(),
                                              built->objectives,
                                              built->constraints,
                                              built->adapter_options);
    std::string why;
    if (!adapter->IsValid(&why)) {
      *error = "Invalid CeresProblemAdapter: " + why;
      return nullptr;
    }
    auto instance = std::make_unique<EvaluatorInstance>();
    instance->start = adapter->GetParameters();
    instance->storage = std::move(built);
    instance->evaluator = std::move(adapter);
    return instance;
  };
}

void Sweep(const ParetoSweep::Options& options,
           CeresProblemAdapter* adapter,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary) {
  if (summary == nullptr) return;
  std::string why;
  if (adapter == nullptr || !adapter->IsValid(&why)) {
    // Through the sweep, so that the summary is a complete FAILURE one.
    const std::string message = adapter == nullptr
                                    ? "The CeresProblemAdapter is null."
                                    : "Invalid CeresProblemAdapter: " + why;
    const EvaluatorFactory refuse = [message](std::string* error) {
      *error = message;
      return std::unique_ptr<EvaluatorInstance>();
    };
    Sweep(options, refuse, preferences, summary);
    return;
  }
  const Eigen::VectorXd start = adapter->GetParameters();
  Sweep(options, static_cast<Evaluator*>(adapter), start, preferences, summary);
}

}  // namespace ecmo
