// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// mtbl_example_iii_matrix_free: synthetic MTBL example (iii) as a
// matrix-free MtblEvaluator over a hand-written LowerLevel, the registry's
// evaluator-only entry (see ProblemInfo::build_evaluator).

#include <memory>
#include <string>
#include <utility>

#include "ceres/sized_cost_function.h"
#include "ecmo/mtbl.h"
#include "registry_internal.h"

namespace ecmo {
namespace problems {
namespace internal {
namespace {

// g = 1/2 (y1 - x)^2 + 1/2 (y2 - x)^2 + 1/4 y3^4, every derivative by hand:
//   h = grad_y g = (y1 - x, y2 - x, y3^3),
//   H_yy = diag(1, 1, 3 y3^2),  H_yx = (-1, -1, 0)^T.
class ExampleIiiLowerLevel final : public LowerLevel {
 public:
  int NumUpperParameters() const override { return 1; }
  int NumLowerParameters() const override { return 3; }
  bool Value(const double* x, const double* y, double* g) const override {
    const double d1 = y[0] - x[0], d2 = y[1] - x[0];
    *g = 0.5 * d1 * d1 + 0.5 * d2 * d2 + 0.25 * y[2] * y[2] * y[2] * y[2];
    return true;
  }
  bool GradY(const double* x, const double* y, double* h) const override {
    h[0] = y[0] - x[0];
    h[1] = y[1] - x[0];
    h[2] = y[2] * y[2] * y[2];
    return true;
  }
  bool GradYJacobianTransposeProduct(const double* /*x*/,
                                     const double* y,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    out_x[0] = -v[0] - v[1];
    out_y[0] = v[0];
    out_y[1] = v[1];
    out_y[2] = 3.0 * y[2] * y[2] * v[2];
    return true;
  }
  bool GradYJacobianProduct(const double* /*x*/,
                            const double* y,
                            const double* w_x,
                            const double* w_y,
                            double* out) const override {
    out[0] = w_y[0] - w_x[0];
    out[1] = w_y[1] - w_x[0];
    out[2] = 3.0 * y[2] * y[2] * w_y[2];
    return true;
  }
};

// f = (y1 - target)^2 + (y2 - x)^2 + y3^2 over the blocks (x, y), with its
// gradient by hand.
class UpperObjective final : public ceres::SizedCostFunction<1, 1, 3> {
 public:
  explicit UpperObjective(double target) : target_(target) {}
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    const double x = parameters[0][0];
    const double* y = parameters[1];
    const double a = y[0] - target_, b = y[1] - x;
    residuals[0] = a * a + b * b + y[2] * y[2];
    if (jacobians != nullptr) {
      if (jacobians[0] != nullptr) jacobians[0][0] = -2.0 * b;
      if (jacobians[1] != nullptr) {
        jacobians[1][0] = 2.0 * a;
        jacobians[1][1] = 2.0 * b;
        jacobians[1][2] = 2.0 * y[2];
      }
    }
    return true;
  }

 private:
  double target_;
};

}  // namespace

ProblemInfo MtblExampleIiiMatrixFree(const ProblemInfo& twin) {
  ProblemInfo info;
  info.name = "mtbl_example_iii_matrix_free";
  info.description =
      "Synthetic MTBL example (iii), the same problem as " + twin.name +
      " (same objectives, start point, offsets and analytic front), built "
      "as a matrix-free ecmo::MtblEvaluator: a hand-written "
      "ecmo::LowerLevel supplies h = grad_y g and the Hessian-vector "
      "products of g, so the constraint Jacobian is never formed. "
      "Evaluator-only: it has no ecmo::Problem, so the Ipopt reference "
      "(--reference=ipopt) does not take it; use " +
      twin.name + " for that.";
  info.num_objectives = twin.num_objectives;
  info.num_parameters = twin.num_parameters;
  info.num_constraints = twin.num_constraints;
  info.objective_offset = twin.objective_offset;
  info.pareto_point = twin.pareto_point;
  info.pareto_front = twin.pareto_front;
  info.build_evaluator =
      [](int /*problem_size*/,
         std::string* error) -> std::unique_ptr<EvaluatorInstance> {
    auto lower = std::make_shared<ExampleIiiLowerLevel>();
    auto evaluator = std::make_unique<MtblEvaluator>(lower.get());
    evaluator->AddUpperObjective(
        new UpperObjective(1.0), {MtblBlock::X, MtblBlock::Y}, "f1");
    evaluator->AddUpperObjective(
        new UpperObjective(2.0), {MtblBlock::X, MtblBlock::Y}, "f2");
    if (!evaluator->IsValid(error)) return nullptr;
    auto instance = std::make_unique<EvaluatorInstance>();
    instance->start = Eigen::Vector4d(0.0, 0.0, 0.0, 1.0);  // x; y
    instance->storage = std::move(lower);
    instance->evaluator = std::move(evaluator);
    return instance;
  };
  return info;
}

}  // namespace internal
}  // namespace problems
}  // namespace ecmo
