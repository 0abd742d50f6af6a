// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// User functions are never evaluated outside the bounds (issue 57 item 5):
//  (a) the default Hessian products (gradient differences) take one-sided
//      steps at active bounds, split into a forward and a backward part
//      when the direction leaves the box on both sides, and still equal
//      the analytic Hessian product;
//  (b) a warm-started sweep's secant predictions are projected onto the
//      bounds before the first evaluation.
// A recording evaluator counts every point evaluated outside the box; the
// count must be exactly 0.

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "test_vectors.h"

namespace ecmo {
namespace {

using testing::kInf;

// How far outside [lower, upper] a point lies (0 inside).
double Outside(const Eigen::VectorXd& lower,
               const Eigen::VectorXd& upper,
               const double* z) {
  double worst = 0.0;
  for (int i = 0; i < lower.size(); ++i) {
    worst = std::max({worst, lower[i] - z[i], z[i] - upper[i]});
  }
  return worst;
}

// f_1 = 1/2 sum_i c_i z_i^2 + z_0 z_1 z_2, f_2 = sum_i z_i (no
// constraints) in a box; records evaluations outside the box. Hessian
// products come from the base class's gradient differences.
class CubicInABox final : public Evaluator {
 public:
  CubicInABox(const Eigen::Vector3d& lower, const Eigen::Vector3d& upper) {
    SetBounds(lower, upper);
  }
  int NumParameters() const override { return 3; }
  int NumObjectives() const override { return 2; }
  int NumConstraints() const override { return 0; }

  // The analytic Hessian of a_1 f_1 + a_2 f_2 at z.
  static Eigen::Matrix3d Hessian(double a1, const Eigen::Vector3d& z) {
    Eigen::Matrix3d h;
    h << kC[0], z[2], z[1],  //
        z[2], kC[1], z[0],   //
        z[1], z[0], kC[2];
    return a1 * h;
  }

  int outside = 0;
  double worst = 0.0;

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* /*h*/,
                  double* grad_f,
                  std::string* /*error*/) override {
    const double out = Outside(lower_bounds(), upper_bounds(), z);
    if (out > 0.0) ++outside;
    worst = std::max(worst, out);
    f[0] = 0.5 * (kC[0] * z[0] * z[0] + kC[1] * z[1] * z[1] +
                  kC[2] * z[2] * z[2]) +
           z[0] * z[1] * z[2];
    f[1] = z[0] + z[1] + z[2];
    if (grad_f != nullptr) {
      grad_f[0] = kC[0] * z[0] + z[1] * z[2];
      grad_f[1] = kC[1] * z[1] + z[0] * z[2];
      grad_f[2] = kC[2] * z[2] + z[0] * z[1];
      grad_f[3] = grad_f[4] = grad_f[5] = 1.0;
    }
    return true;
  }
  void DoJacobianTransposeMultiply(const double* /*v*/,
                                   double* out) const override {
    Eigen::Map<Eigen::Vector3d>(out).setZero();
  }
  void DoJacobianMultiply(const double* /*x*/, double* /*out*/) const override {
  }

 private:
  static constexpr double kC[3] = {2.0, 3.0, 5.0};
};

struct ProductCase {
  std::string name;
  Eigen::Vector3d lower, upper, z, x;
  // The components of x the product is taken along (a component fixed by
  // equal bounds drops out).
  Eigen::Vector3d effective_x;
};

TEST(BoundedHessianProducts, OneSidedStepsEqualTheAnalyticProduct) {
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  const Eigen::Vector3d one = Eigen::Vector3d::Ones();
  const std::vector<ProductCase> cases = {
      {"interior", zero, one, {0.3, 0.4, 0.5}, {1, -2, 0.5}, {1, -2, 0.5}},
      {"at a lower bound, pointing out",
       zero, one, {0.0, 0.4, 0.5}, {-1, 0.3, 0.2}, {-1, 0.3, 0.2}},
      {"at an upper bound, pointing out",
       zero, one, {0.3, 1.0, 0.5}, {0.2, 1, -0.4}, {0.2, 1, -0.4}},
      {"out of the box on both sides (split)",
       zero, one, {0.0, 1.0, 0.5}, {-1, 1, 0.7}, {-1, 1, 0.7}},
      {"a box narrower than the step",
       zero, Eigen::Vector3d(1.0, 1e-12, 1.0), {0.5, 0.5e-12, 0.5},
       {0.1, 1, 0.2}, {0.1, 0, 0.2}},
      {"a component fixed by its bounds",
       zero, Eigen::Vector3d(1.0, 0.0, 1.0), {0.5, 0.0, 0.5},
       {0.3, 1, -0.2}, {0.3, 0, -0.2}},
      {"unbounded above", zero, Eigen::Vector3d::Constant(kInf),
       {0.0, 2.0, 3.0}, {-1, 1, 1}, {-1, 1, 1}},
  };
  for (const ProductCase& c : cases) {
    SCOPED_TRACE(c.name);
    CubicInABox evaluator(c.lower, c.upper);
    Eigen::Vector2d f;
    Eigen::Matrix<double, 3, 2> grad;
    std::string error;
    ASSERT_TRUE(
        evaluator.Evaluate(c.z.data(), f.data(), nullptr, grad.data(), &error));
    const Eigen::Vector2d a(0.7, 0.3);
    Eigen::Vector3d product;
    ASSERT_TRUE(evaluator.LagrangianHessianMultiply(
        a.data(), nullptr, c.x.data(), product.data(), &error))
        << error;
    EXPECT_EQ(evaluator.outside, 0) << "worst " << evaluator.worst;
    const Eigen::Vector3d exact =
        CubicInABox::Hessian(a[0], c.z) * c.effective_x;
    // One-sided differences of a cubic: error O(t), t ~ 1.5e-8.
    EXPECT_LE((product - exact).cwiseAbs().maxCoeff(),
              1e-6 * (1.0 + exact.cwiseAbs().maxCoeff()))
        << "product " << product.transpose() << "\nexact   "
        << exact.transpose();
  }
}

// An evaluator that forwards to another and records evaluations outside
// the box (its own Hessian products are the base class's, so that every
// evaluation passes through here).
class BoxRecorder final : public Evaluator {
 public:
  BoxRecorder(Evaluator* inner, int* outside, double* worst)
      : inner_(inner), outside_(outside), worst_(worst) {
    if (inner->HasBounds()) {
      SetBounds(inner->lower_bounds(), inner->upper_bounds());
    }
  }
  int NumParameters() const override { return inner_->NumParameters(); }
  int NumObjectives() const override { return inner_->NumObjectives(); }
  int NumConstraints() const override { return inner_->NumConstraints(); }
  int NumInequalityConstraints() const override {
    return inner_->NumInequalityConstraints();
  }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override {
    const double out = Outside(lower_bounds(), upper_bounds(), z);
    if (out > 0.0) ++*outside_;
    *worst_ = std::max(*worst_, out);
    return inner_->Evaluate(z, f, h, grad_f, error);
  }
  void DoJacobianTransposeMultiply(const double* v,
                                   double* out) const override {
    inner_->JacobianTransposeMultiply(v, out);
  }
  void DoJacobianMultiply(const double* x, double* out) const override {
    inner_->JacobianMultiply(x, out);
  }

 private:
  Evaluator* inner_;
  int* outside_;
  double* worst_;
};

// Das-Dennis grid of `divisions` on the 3-simplex, interior points only.
std::vector<std::vector<double>> InteriorSimplexGrid(int divisions) {
  std::vector<std::vector<double>> out;
  for (int i = 1; i < divisions; ++i) {
    for (int j = 1; i + j < divisions; ++j) {
      const double d = divisions;
      out.push_back({i / d, j / d, (divisions - i - j) / d});
    }
  }
  return out;
}

TEST(BoundedSweep, WarmStartedPredictionsStayInsideTheBox) {
  const problems::ProblemInfo* info = problems::Find("simplex_tri_objective");
  ASSERT_NE(info, nullptr);
  int outside = 0;
  double worst = 0.0;
  const EvaluatorFactory inner = problems::MakeEvaluatorFactory(*info, 0);
  const EvaluatorFactory factory =
      [&](std::string* error) -> std::unique_ptr<EvaluatorInstance> {
    std::shared_ptr<EvaluatorInstance> base = inner(error);
    if (base == nullptr) return nullptr;
    auto instance = std::make_unique<EvaluatorInstance>();
    instance->evaluator =
        std::make_unique<BoxRecorder>(base->evaluator.get(), &outside, &worst);
    instance->start = base->start;
    instance->storage = base;
    return instance;
  };
  ParetoSweep::Options options;
  options.num_threads = 1;  // the counters are not atomic
  options.solver.objective_offset = info->objective_offset;
  const std::vector<std::vector<double>> preferences = InteriorSimplexGrid(9);
  ParetoSweep::Summary summary;
  Sweep(options, factory, preferences, &summary);
  ASSERT_EQ(summary.points.size(), preferences.size()) << summary.message;
  EXPECT_EQ(outside, 0) << "worst distance outside the box " << worst;
  // And the points are the closed-form ones (the projection changes the
  // start only).
  int certified = 0;
  for (const SweepPoint& point : summary.points) {
    if (!point.summary.IsCertified(options.solver)) continue;
    ++certified;
    const Eigen::VectorXd lambda =
        Eigen::Map<const Eigen::VectorXd>(point.preference.data(), 3);
    const Eigen::VectorXd offset = Eigen::Map<const Eigen::VectorXd>(
        info->objective_offset.data(), 3);
    const Eigen::VectorXd exact =
        info->pareto_point(lambda / lambda.sum(), offset);
    EXPECT_LE((point.summary.z - exact).cwiseAbs().maxCoeff(), 1e-5)
        << "lambda " << lambda.transpose();
  }
  EXPECT_EQ(certified, static_cast<int>(preferences.size()));
}

}  // namespace
}  // namespace ecmo
