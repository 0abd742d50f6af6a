// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The registry entries of the digits MTBL instances (problems/digits.h):
// evaluator-only and fixed-size, built with the default options.

#include <memory>
#include <string>
#include <utility>

#include "ecmo/problems/digits.h"
#include "registry_internal.h"

namespace ecmo {
namespace problems {
namespace internal {

namespace {

// The registry's build_evaluator from a digits builder.
template <typename Options,
          std::unique_ptr<DigitsInstance> (*Build)(const Options&,
                                                   std::string*)>
std::unique_ptr<EvaluatorInstance> BuildDigitsEntry(const char* name,
                                                    std::string* error) {
  std::shared_ptr<DigitsInstance> built(Build(Options(), error).release());
  if (built == nullptr) {
    *error = std::string(name) + ": " + *error;
    return nullptr;
  }
  auto instance = std::make_unique<EvaluatorInstance>();
  instance->start = built->start;
  // The evaluator moves into the instance; `storage` keeps the lower level
  // it points into alive (and is destroyed after it).
  instance->evaluator = std::move(built->evaluator);
  instance->storage = built;
  return instance;
}

}  // namespace

ProblemInfo DigitsDataWeighting() {
  const int ny = 10 * 64;  // 10 classes x 64 pixels, no bias
  ProblemInfo info;
  info.name = "digits_data_weighting";
  info.description =
      "Multi-task bilevel data re-weighting on the UCI handwritten digits "
      "(data/digits.csv.gz, CC BY 4.0; seed 1): x = logits of 3 softmax "
      "source weights, y = a 10-class linear softmax classifier on the 64 "
      "pixels (n_y = 640, L2 weight 1e-3: strongly convex lower level). The "
      "300 training images come in 3 label versions (A clean on digits 0-4, "
      "B clean on 5-9, C noisy everywhere; noise 0.8); g = the "
      "source-weighted training cross-entropy. S = 5 upper objectives: the "
      "validation cross-entropy of each digit pair (0,1) .. (8,9) on 600 "
      "held-out images, plus 1e-3/2 ||x||^2 (without it the optimum is at "
      "x = infinity). Matrix-free ecmo::MtblEvaluator with exact products. "
      "Evaluator-only. No analytic front; objectives are positive. The data "
      "file is found as ecmo::problems::DefaultDigitsPath() says "
      "($ECMO_DATA_DIR/digits.csv.gz first).";
  info.num_objectives = kDigitsNumTasks;
  info.num_parameters = 3 + ny;
  info.num_constraints = ny;
  info.objective_offset = std::vector<double>(kDigitsNumTasks, 0.0);
  info.build_evaluator = [](int, std::string* error) {
    return BuildDigitsEntry<DigitsDataWeightingOptions,
                            &BuildDigitsDataWeighting>("digits_data_weighting",
                                                       error);
  };
  return info;
}

ProblemInfo DigitsDataWeightingReduced() {
  ProblemInfo info = DigitsDataWeighting();
  info.name = "digits_data_weighting_reduced";
  info.description =
      "digits_data_weighting in the reduced form "
      "(ecmo::ReducedMtblEvaluator): the same instance, variables x only "
      "(the 3 source logits, so z in the results is x), y = y*(x) by a "
      "warm-started Newton-CG lower-level solve at every evaluation and "
      "hypergradients by CG on grad^2_yy g; no constraints. Valid because "
      "the lower level is strongly convex (L2 weight 1e-3). Its points are "
      "the full-space problem's at (x, y*(x)); a point costs about a "
      "second where the full space takes half a minute (benchmarks/README.md, "
      "the digits data-weighting front against the grid). Evaluator-only. "
      "Objectives are cross-entropies plus the proximal term (positive).";
  info.num_parameters = 3;  // the source logits
  info.num_constraints = 0;
  info.build_evaluator =
      [](int, std::string* error) -> std::unique_ptr<EvaluatorInstance> {
    std::shared_ptr<DigitsInstance> built(
        BuildDigitsDataWeighting(DigitsDataWeightingOptions(), error)
            .release());
    if (built == nullptr) {
      *error = "digits_data_weighting_reduced: " + *error;
      return nullptr;
    }
    return ReducedEvaluatorInstance(std::move(built));
  };
  return info;
}

ProblemInfo DigitsMetaLearning() {
  const DigitsMetaLearningOptions defaults;
  int nx = 0, in = 64;
  for (int h : defaults.hidden_sizes) {
    nx += h * (in + 1);
    in = h;
  }
  nx += defaults.representation_size * (in + 1);
  const int ny = 10 * (defaults.representation_size + 1);
  ProblemInfo info;
  info.name = "digits_meta_learning";
  info.description =
      "Multi-task bilevel meta-learning on the UCI handwritten digits "
      "(data/digits.csv.gz, CC BY 4.0; seed 1): x = a shared ReLU MLP "
      "feature extractor (64-" +
      [&] {
        std::string s;
        for (int h : defaults.hidden_sizes) s += std::to_string(h) + "-";
        return s;
      }() +
      std::to_string(defaults.representation_size) +
      ", n_x = " + std::to_string(nx) +
      "), y = the final linear classifier to 10 logits (n_y = " +
      std::to_string(ny) +
      ", no L2: merely convex lower level, y* not unique). Five tasks, one "
      "per digit pair; each trains on 100 and validates on 60 images (80% "
      "its pair, 20% other digits; all subsets disjoint). g = the mean "
      "training cross-entropy over the five subsets; f_s = task s's "
      "validation cross-entropy. Matrix-free ecmo::MtblEvaluator: exact "
      "Hessian-vector products by forward-mode differentiation of the "
      "back-propagated gradient. Evaluator-only. No analytic front; "
      "objectives are positive.";
  info.num_objectives = kDigitsNumTasks;
  info.num_parameters = nx + ny;
  info.num_constraints = ny;
  info.objective_offset = std::vector<double>(kDigitsNumTasks, 0.0);
  info.build_evaluator = [](int, std::string* error) {
    return BuildDigitsEntry<DigitsMetaLearningOptions,
                            &BuildDigitsMetaLearning>("digits_meta_learning",
                                                      error);
  };
  return info;
}

}  // namespace internal
}  // namespace problems
}  // namespace ecmo
