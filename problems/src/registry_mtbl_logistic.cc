// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The registry entry of mtbl_logistic (problems/mtbl_logistic.h): an
// evaluator-only family sized by n_y (ecmo_solve --problem_size).

#include <memory>
#include <string>
#include <utility>

#include "ecmo/problems/mtbl_logistic.h"
#include "registry_internal.h"

namespace ecmo {
namespace problems {
namespace internal {

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
  info.num_parameters =
      defaults.num_sources + defaults.num_lower_parameters;
  info.num_constraints = defaults.num_lower_parameters;
  info.objective_offset = std::vector<double>(defaults.num_tasks, 0.0);
  info.default_problem_size = defaults.num_lower_parameters;
  info.problem_size_description =
      "n_y, the number of lower-level variables (a multiple of 10, >= 10)";
  info.build_evaluator =
      [](int problem_size,
         std::string* error) -> std::unique_ptr<EvaluatorInstance> {
    MtblLogisticOptions options;
    if (problem_size > 0) options.num_lower_parameters = problem_size;
    if (options.num_lower_parameters < options.num_classes) {
      *error = "mtbl_logistic: --problem_size = " +
               std::to_string(problem_size) +
               " is below the number of classes (10); give n_y >= 10";
      return nullptr;
    }
    std::shared_ptr<MtblLogisticInstance> built(
        BuildMtblLogistic(options, error).release());
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

}  // namespace internal
}  // namespace problems
}  // namespace ecmo
