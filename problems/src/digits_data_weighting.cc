// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// digits_data_weighting (see ecmo/problems/digits.h): the lower level is
// mtbl_logistic's MtblLogisticLowerLevel on three label versions of the
// same images (one source each); the upper objectives are the shared
// cross-entropy cost on each digit pair's validation images plus the
// proximal term on the source logits.

#include <cmath>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ceres/cost_function.h"
#include "digits_internal.h"
#include "ecmo/lower_level_solver.h"
#include "ecmo/problems/digits.h"
#include "ecmo/problems/mtbl_logistic.h"

namespace ecmo {
namespace problems {

namespace {

constexpr int kSources = 3;

// f_s(x, y) = CE_s(y) + delta/2 ||x||^2 over the blocks {x, y}: the shared
// cross-entropy cost on y plus the proximal term on x. Immutable.
class ProximalCrossEntropyCost final : public ceres::CostFunction {
 public:
  ProximalCrossEntropyCost(internal::RowMatrix features,
                           std::vector<int> labels,
                           int nx,
                           double proximal)
      : cross_entropy_(
            std::move(features), std::move(labels), internal::kDigitsClasses),
        nx_(nx),
        proximal_(proximal) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(nx_);
    mutable_parameter_block_sizes()->push_back(
        cross_entropy_.parameter_block_sizes()[0]);
  }

  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    double* y_jacobian[1] = {jacobians != nullptr ? jacobians[1] : nullptr};
    if (!cross_entropy_.Evaluate(parameters + 1,
                                 residuals,
                                 jacobians != nullptr ? y_jacobian : nullptr)) {
      return false;
    }
    const Eigen::Map<const Eigen::VectorXd> x(parameters[0], nx_);
    residuals[0] += 0.5 * proximal_ * x.squaredNorm();
    if (jacobians != nullptr && jacobians[0] != nullptr) {
      Eigen::Map<Eigen::VectorXd>(jacobians[0], nx_) = proximal_ * x;
    }
    return std::isfinite(residuals[0]);
  }

 private:
  internal::CrossEntropyCost cross_entropy_;
  int nx_;
  double proximal_;
};

bool CheckOptions(const DigitsDataWeightingOptions& o, std::string* error) {
  std::ostringstream os;
  if (o.train_images < internal::kDigitsClasses) {
    os << "train_images = " << o.train_images << "; needs >= 10.";
  } else if (o.validation_images < 2 * kDigitsNumTasks) {
    os << "validation_images = " << o.validation_images
       << "; needs >= 10 (every digit validated).";
  } else if (!(o.label_noise >= 0.0 && o.label_noise <= 1.0)) {
    os << "label_noise = " << o.label_noise << "; needs [0, 1].";
  } else if (!(o.l2 >= 0.0) || !std::isfinite(o.l2)) {
    os << "l2 = " << o.l2 << "; needs >= 0 and finite.";
  } else if (!(o.proximal >= 0.0) || !std::isfinite(o.proximal)) {
    os << "proximal = " << o.proximal << "; needs >= 0 and finite.";
  } else if (o.start_newton_iterations < 0) {
    os << "start_newton_iterations = " << o.start_newton_iterations
       << "; needs >= 0.";
  }
  if (os.str().empty()) return true;
  *error = "BuildDigitsDataWeighting: " + os.str();
  return false;
}

}  // namespace

std::unique_ptr<DigitsInstance> BuildDigitsDataWeighting(
    const DigitsDataWeightingOptions& options, std::string* error) {
  std::string local_error;
  if (error == nullptr) error = &local_error;
  if (!CheckOptions(options, error)) return nullptr;
  DigitsData data;
  if (!internal::LoadDigitsForInstance(
          options.data_path, "BuildDigitsDataWeighting", &data, error)) {
    return nullptr;
  }
  const int total = static_cast<int>(data.labels.size());
  std::vector<int> class_sizes(internal::kDigitsClasses, 0);
  for (int label : data.labels) ++class_sizes[label];
  if (options.train_images + options.validation_images > total) {
    *error = "BuildDigitsDataWeighting: train_images + validation_images = " +
             std::to_string(options.train_images + options.validation_images) +
             " exceeds the " + std::to_string(total) +
             " images of the data; reduce them.";
    return nullptr;
  }

  // Splits: training then validation, each stratified by class (counts in
  // proportion to the class sizes), drawn from one pool without
  // replacement, so the two are disjoint.
  std::mt19937_64 rng(options.seed);
  internal::ClassPools pools(data.labels, &rng);
  const std::vector<int> train_counts =
      internal::ProportionalCounts(options.train_images, class_sizes);
  const std::vector<int> validation_counts =
      internal::ProportionalCounts(options.validation_images, class_sizes);
  std::vector<int> train, validation;
  for (int c = 0; c < internal::kDigitsClasses; ++c) {
    if (!pools.Take(c, train_counts[c], &train) ||
        !pools.Take(c, validation_counts[c], &validation)) {
      *error =
          "BuildDigitsDataWeighting: the data have too few images of "
          "digit " +
          std::to_string(c) +
          " for train_images + validation_images; reduce them.";
      return nullptr;
    }
  }

  // Three sources over the same training images: A clean on 0-4, B clean
  // on 5-9, C clean nowhere; a noisy label becomes a uniformly random class
  // with probability label_noise.
  const int n = static_cast<int>(train.size());
  internal::RowMatrix features(kSources * n, internal::kDigitsPixels);
  std::vector<int> labels(kSources * n), sources(kSources * n);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::uniform_int_distribution<int> any_class(0, internal::kDigitsClasses - 1);
  for (int j = 0; j < kSources; ++j) {
    for (int i = 0; i < n; ++i) {
      const int row = j * n + i;
      const int c = data.labels[train[i]];
      features.row(row) = data.images.row(train[i]);
      const bool noisy = j == 2 || (j == 0 ? c >= 5 : c < 5);
      int label = c;
      if (noisy && uniform(rng) < options.label_noise) label = any_class(rng);
      labels[row] = label;
      sources[row] = j;
    }
  }

  auto instance = std::make_unique<DigitsInstance>();
  auto lower =
      std::make_unique<MtblLogisticLowerLevel>(kSources,
                                               internal::kDigitsClasses,
                                               std::move(features),
                                               std::move(labels),
                                               std::move(sources),
                                               options.l2);
  const int ny = lower->NumLowerParameters();
  instance->evaluator = std::make_unique<MtblEvaluator>(lower.get());
  instance->train_rows = {train};
  for (int s = 0; s < kDigitsNumTasks; ++s) {
    std::vector<int> rows;
    for (int i : validation) {
      if (data.labels[i] / 2 == s) rows.push_back(i);
    }
    instance->validation_rows.push_back(rows);
    internal::RowMatrix task_features(rows.size(), internal::kDigitsPixels);
    std::vector<int> task_labels(rows.size());
    for (size_t k = 0; k < rows.size(); ++k) {
      task_features.row(k) = data.images.row(rows[k]);
      task_labels[k] = data.labels[rows[k]];
    }
    const std::string name =
        "digits_" + std::to_string(2 * s) + "_" + std::to_string(2 * s + 1);
    instance->evaluator->AddUpperObjective(
        new ProximalCrossEntropyCost(std::move(task_features),
                                     std::move(task_labels),
                                     kSources,
                                     options.proximal),
        {MtblBlock::X, MtblBlock::Y},
        name);
    instance->objective_names.push_back(name);
  }
  std::string invalid;
  if (!instance->evaluator->IsValid(&invalid)) {
    *error = "BuildDigitsDataWeighting: " + invalid;
    return nullptr;
  }

  Eigen::VectorXd x0 = Eigen::VectorXd::Zero(kSources);
  Eigen::VectorXd y0 = Eigen::VectorXd::Zero(ny);
  if (options.start_newton_iterations > 0) {
    LowerLevelSolver::Options solver;
    solver.max_iterations = options.start_newton_iterations;
    LowerLevelSolver::Summary summary;
    SolveLowerLevel(solver, *lower, x0.data(), &y0, &summary);
  }
  instance->start.resize(kSources + ny);
  instance->start << x0, y0;
  instance->lower_level = std::move(lower);

  std::ostringstream description;
  description
      << "digits_data_weighting (UCI handwritten digits, seed " << options.seed
      << "): x = logits of 3 softmax source weights, y = a linear softmax "
         "classifier on the 64 pixels/16 (10 x 64, no bias, n_y = "
      << ny << "). The " << n
      << " training images (stratified) appear in 3 sources: A with clean "
         "labels on digits 0-4, B on 5-9, C nowhere; a noisy label is a "
         "uniformly random class with probability "
      << options.label_noise << ". g = sum_j softmax(x)_j L_j(y) + "
      << options.l2 << "/2 ||y||^2. f_s = mean cross-entropy on the "
      << validation.size()
      << " clean validation images (disjoint) of digit pair s, plus "
      << options.proximal
      << "/2 ||x||^2 (without it the preferred source's weight runs to "
         "infinity). Start: x = 0, y = "
      << options.start_newton_iterations << " Newton iterations from 0.";
  instance->description = description.str();
  return instance;
}

}  // namespace problems
}  // namespace ecmo
