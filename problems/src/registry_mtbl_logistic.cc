// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The registry entries of mtbl_logistic (problems/mtbl_logistic.h): the
// full-space form and the reduced form over x, evaluator-only families
// sized by n_y (ecmo_solve --problem_size).

#include <memory>
#include <string>
#include <utility>

#include "ecmo/lower_level_solver.h"
#include "ecmo/problems/mtbl_logistic.h"
#include "registry_internal.h"

namespace ecmo {
namespace problems {
namespace internal {

namespace {

// The instance at n_y = problem_size (0: the default); null with *error.
std::shared_ptr<MtblLogisticInstance> BuildSized(int problem_size,
                                                 std::string* error) {
  MtblLogisticOptions options;
  if (problem_size > 0) options.num_lower_parameters = problem_size;
  if (options.num_lower_parameters < options.num_classes) {
    *error = "mtbl_logistic: --problem_size = " + std::to_string(problem_size) +
             " is below the number of classes (10); give n_y >= 10";
    return nullptr;
  }
  return BuildMtblLogistic(options, error);
}

}  // namespace

ProblemInfo MtblLogistic() {
  const MtblLogisticOptions defaults;
  ProblemInfo info;
  info.name = "mtbl_logistic";
  info.description =
      "Synthetic multi-task bilevel learning (seeded): x = logits of 3 "
      "softmax source weights, y = a 10-class multinomial logistic "
      "regression (n_y = 10 d parameters, L2 weight 1e-3: strongly convex "
      "lower level), g = the source-weighted training cross-entropy, and "
      "S = 3 upper objectives, the validation cross-entropies of three "
      "groups of classes; each source has clean labels only on its own "
      "task's classes, so the weights trade the tasks off. h = grad_y g "
      "and its Hessian products are hand-written (matrix-free "
      "ecmo::MtblEvaluator), so n_y can be large. Evaluator-only. "
      "No analytic front; objectives are cross-entropies (positive).";
  info.num_objectives = defaults.num_tasks;
  info.num_parameters = defaults.num_sources + defaults.num_lower_parameters;
  info.num_constraints = defaults.num_lower_parameters;
  info.objective_offset = std::vector<double>(defaults.num_tasks, 0.0);
  info.default_problem_size = defaults.num_lower_parameters;
  info.problem_size_description =
      "n_y, the number of lower-level variables (a multiple of 10, >= 10)";
  info.build_evaluator =
      [](int problem_size,
         std::string* error) -> std::unique_ptr<EvaluatorInstance> {
    std::shared_ptr<MtblLogisticInstance> built =
        BuildSized(problem_size, error);
    if (built == nullptr) return nullptr;
    auto instance = std::make_unique<EvaluatorInstance>();
    instance->start = built->start;
    // The evaluator moves into the instance; `storage` keeps the lower
    // level it points into alive (and is destroyed after it).
    instance->evaluator = std::move(built->evaluator);
    instance->storage = built;
    return instance;
  };
  return info;
}

ProblemInfo MtblLogisticReduced() {
  const MtblLogisticOptions defaults;
  ProblemInfo info = MtblLogistic();
  info.name = "mtbl_logistic_reduced";
  info.description =
      "mtbl_logistic in the reduced form (ecmo::ReducedMtblEvaluator): the "
      "same instance, variables x only (the 3 source logits, so z in the "
      "results is x), y = y*(x) by a warm-started Newton-CG lower-level "
      "solve at every evaluation and hypergradients by CG on grad^2_yy g; "
      "no constraints. Valid because the lower level is strongly convex "
      "(L2 weight 1e-3). Its points are the full-space problem's at "
      "(x, y*(x)). Fastest with --strategy=wc-newton (benchmarks/README.md, "
      "MTBL at scale). Evaluator-only. Objectives are cross-entropies "
      "(positive).";
  info.num_parameters = defaults.num_sources;
  info.num_constraints = 0;
  info.build_evaluator =
      [](int problem_size,
         std::string* error) -> std::unique_ptr<EvaluatorInstance> {
    std::shared_ptr<MtblLogisticInstance> built =
        BuildSized(problem_size, error);
    if (built == nullptr) return nullptr;
    return ReducedEvaluatorInstance(std::move(built));
  };
  return info;
}

}  // namespace internal
}  // namespace problems
}  // namespace ecmo
