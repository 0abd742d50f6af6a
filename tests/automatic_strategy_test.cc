// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// StrategyType::AUTOMATIC, the default: which strategy it runs on which
// problem (Summary::strategy, Summary::strategy_choice), that its points
// are the analytic WC points, and that a WC_SQP attempt that does not
// converge is followed by WC_AUGMENTED_LAGRANGIAN from the same start, the
// better of the two reported with the work of both (checked against the
// two strategies run separately).

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ceres/sphere_manifold.h"
#include "ecmo/mtbl.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "test_files.h"
#include "test_problems.h"

namespace ecmo {
namespace {

using testing::Contains;

// ||x - c||^2 over 11 parameters.
struct Distance {
  explicit Distance(double c) : c(c) {}
  template <typename T>
  bool operator()(const T* x, T* f) const {
    f[0] = T(0.0);
    for (int i = 0; i < 11; ++i) f[0] += (x[i] - c) * (x[i] - c);
    return true;
  }
  double c;
};

// v_i + 2.
struct Coordinate {
  explicit Coordinate(int i) : i(i) {}
  template <typename T>
  bool operator()(const T* v, T* f) const {
    f[0] = v[i] + T(2.0);
    return true;
  }
  int i;
};

// A bilevel problem in the full space with n_y = 12 (k = 13): the lower
// level g = 1/2 sum_i (y_i - x)^2 has y*(x) = x (every entry), and the
// upper objectives f_s = sum_i (y_i - c_s)^2 with c = (1, -1) make
// F(x) = 12 ((x - 1)^2, (x + 1)^2) on the lower level's solutions.
class ShiftLowerLevel final : public LowerLevel {
 public:
  static constexpr int kNy = 12;
  int NumUpperParameters() const override { return 1; }
  int NumLowerParameters() const override { return kNy; }
  bool GradY(const double* x, const double* y, double* h) const override {
    for (int i = 0; i < kNy; ++i) h[i] = y[i] - x[0];
    return true;
  }
  bool GradYJacobianTransposeProduct(const double* /*x*/,
                                     const double* /*y*/,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    out_x[0] = 0.0;
    for (int i = 0; i < kNy; ++i) {
      out_x[0] -= v[i];
      out_y[i] = v[i];
    }
    return true;
  }
};

class SquaredDistanceToConstant final
    : public ceres::SizedCostFunction<1, ShiftLowerLevel::kNy> {
 public:
  explicit SquaredDistanceToConstant(double c) : c_(c) {}
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    const double* y = parameters[0];
    residuals[0] = 0.0;
    for (int i = 0; i < ShiftLowerLevel::kNy; ++i) {
      residuals[0] += (y[i] - c_) * (y[i] - c_);
      if (jacobians != nullptr && jacobians[0] != nullptr) {
        jacobians[0][i] = 2.0 * (y[i] - c_);
      }
    }
    return true;
  }

 private:
  double c_;
};

TEST(AutomaticStrategy, UsesWcNewtonOnAFullSpaceBilevelProblem) {
  ShiftLowerLevel lower;
  MtblEvaluator evaluator(&lower);
  evaluator.AddUpperObjective(new SquaredDistanceToConstant(1.0),
                              {MtblBlock::Y}, "f1");
  evaluator.AddUpperObjective(new SquaredDistanceToConstant(-1.0),
                              {MtblBlock::Y}, "f2");
  std::string error;
  ASSERT_TRUE(evaluator.IsValid(&error)) << error;
  ASSERT_GT(evaluator.NumParameters(), kAutomaticSqpMaxParameters);
  // The WC point with r = 0: lambda_1 (x - 1)^2 = lambda_2 (x + 1)^2 for
  // x in [-1, 1], i.e. x = (sqrt(l1) - sqrt(l2)) / (sqrt(l1) + sqrt(l2)).
  const double l1 = 0.3, l2 = 0.7;
  const double x_star =
      (std::sqrt(l1) - std::sqrt(l2)) / (std::sqrt(l1) + std::sqrt(l2));
  Solver::Options options;
  options.objective_offset = {0.0, 0.0};
  Eigen::VectorXd z = Eigen::VectorXd::Constant(1 + ShiftLowerLevel::kNy, 0.5);
  z[0] = 0.8;
  Solver::Summary summary;
  Solve(options, &evaluator, {l1, l2}, &z, &summary);
  ASSERT_TRUE(summary.IsCertified(options)) << summary.message;
  EXPECT_EQ(summary.strategy, StrategyType::WC_NEWTON);
  EXPECT_TRUE(Contains(summary.strategy_choice, "exact Hessian products"))
      << summary.strategy_choice;
  EXPECT_GT(summary.evaluations.hessian_products, 0);
  EXPECT_NEAR(z[0], x_star, 1e-6);
  for (int i = 1; i <= ShiftLowerLevel::kNy; ++i) {
    EXPECT_NEAR(z[i], x_star, 1e-6) << i;
  }
  // The same evaluator without its exact products (the forward-difference
  // default) keeps the augmented Lagrangian.
  class WithoutExactProducts final : public Evaluator {
   public:
    explicit WithoutExactProducts(Evaluator* inner) : inner_(inner) {}
    int NumParameters() const override { return inner_->NumParameters(); }
    int NumObjectives() const override { return inner_->NumObjectives(); }
    int NumConstraints() const override { return inner_->NumConstraints(); }

   protected:
    bool DoEvaluate(const double* z,
                    double* f,
                    double* h,
                    double* grad_f,
                    std::string* error) override {
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
  };
  WithoutExactProducts plain(&evaluator);
  z.setConstant(0.5);
  z[0] = 0.8;
  Solve(options, &plain, {l1, l2}, &z, &summary);
  EXPECT_EQ(summary.strategy, StrategyType::WC_AUGMENTED_LAGRANGIAN);
}

TEST(AutomaticStrategy, IsTheDefault) {
  EXPECT_EQ(Solver::Options().strategy, StrategyType::AUTOMATIC);
  StrategyType parsed = StrategyType::WC_NEWTON;
  ASSERT_TRUE(StringToStrategyType("automatic", &parsed));
  EXPECT_EQ(parsed, StrategyType::AUTOMATIC);
}

// Small equality-constrained registry problems: WC_SQP, at the analytic
// WC point.
TEST(AutomaticStrategy, SolvesSmallEqualityConstrainedProblemsBySqp) {
  for (const char* name : {"gebken_circle", "circle_quarter", "convex_line"}) {
    const problems::ProblemInfo* info = problems::Find(name);
    ASSERT_NE(info, nullptr) << name;
    for (double l1 : {0.2, 0.5, 0.8}) {
      auto instance = info->build();
      Solver::Options options;
      options.objective_offset = info->objective_offset;
      Solver::Summary summary;
      Solve(options, &instance->problem, {l1, 1.0 - l1}, &summary);
      SCOPED_TRACE(std::string(name) + ": " + summary.message);
      ASSERT_TRUE(summary.IsCertified(options));
      EXPECT_EQ(summary.strategy, StrategyType::WC_SQP);
      EXPECT_TRUE(Contains(summary.strategy_choice,
                           "wc-sqp: 2 parameters, equality constraints only"))
          << summary.strategy_choice;
      EXPECT_TRUE(Contains(summary.FullReport(), "Chosen automatically"));
      const Eigen::VectorXd expected = info->pareto_point(
          Eigen::Vector2d(l1, 1.0 - l1),
          Eigen::Map<const Eigen::VectorXd>(info->objective_offset.data(), 2));
      EXPECT_LE((summary.z - expected).norm(), 1e-5)
          << summary.z.transpose() << " vs " << expected.transpose();
    }
  }
}

// Bounds, inequalities and more than kAutomaticSqpMaxParameters parameters:
// WC_AUGMENTED_LAGRANGIAN, and the summary says why.
TEST(AutomaticStrategy, UsesTheAugmentedLagrangianWhereSqpDoesNotApply) {
  struct Expected {
    const char* problem;
    const char* reason;
  };
  for (const Expected& e : {Expected{"bounded_segment", "bounds"},
                            Expected{"disk_biobjective", "inequality"},
                            Expected{"mixed_biobjective", "inequality"}}) {
    const problems::ProblemInfo* info = problems::Find(e.problem);
    ASSERT_NE(info, nullptr) << e.problem;
    auto instance = info->build();
    Solver::Options options;
    options.objective_offset = info->objective_offset;
    Solver::Summary summary;
    Solve(options, &instance->problem, {0.4, 0.6}, &summary);
    SCOPED_TRACE(std::string(e.problem) + ": " + summary.message);
    ASSERT_TRUE(summary.IsCertified(options));
    EXPECT_EQ(summary.strategy, StrategyType::WC_AUGMENTED_LAGRANGIAN);
    EXPECT_TRUE(Contains(summary.strategy_choice, e.reason))
        << summary.strategy_choice;
    const Eigen::VectorXd expected = info->pareto_point(
        Eigen::Vector2d(0.4, 0.6),
        Eigen::Map<const Eigen::VectorXd>(info->objective_offset.data(), 2));
    EXPECT_LE((summary.z - expected).norm(), 1e-5);
  }

  // k = 11 > kAutomaticSqpMaxParameters: f_s = ||z - c_s||^2 with c_1 = 0,
  // c_2 = 1 (every entry); the WC point with offset 0 and lambda = (1/2,
  // 1/2) is z = 1/2.
  ASSERT_EQ(kAutomaticSqpMaxParameters, 10);
  std::vector<double> z(11, 0.2);
  Problem problem;
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<Distance, 1, 11>(new Distance(0.0)),
      {z.data()});
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<Distance, 1, 11>(new Distance(1.0)),
      {z.data()});
  Solver::Options options;
  options.objective_offset = {1.0, 1.0};
  Solver::Summary summary;
  Solve(options, problem, {0.5, 0.5}, &summary);
  ASSERT_TRUE(summary.IsCertified(options)) << summary.message;
  EXPECT_EQ(summary.strategy, StrategyType::WC_AUGMENTED_LAGRANGIAN);
  EXPECT_TRUE(Contains(summary.strategy_choice, "11 parameters"))
      << summary.strategy_choice;
  EXPECT_LE((summary.z - Eigen::VectorXd::Constant(11, 0.5)).norm(), 1e-6);
}

TEST(AutomaticStrategy, UsesTheAugmentedLagrangianOnAManifold) {
  // f_s = x_s + 2 (s = 1, 2) on the unit sphere in R^3, r = 0: the WC
  // point of lambda = (1/2, 1/2) is x = (-1, -1, 0) / sqrt(2).
  double x[3] = {0.0, 0.0, 1.0};
  Problem problem;
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<Coordinate, 1, 3>(new Coordinate(0)),
      {x});
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<Coordinate, 1, 3>(new Coordinate(1)),
      {x});
  problem.SetManifold(x, new ceres::SphereManifold<3>());
  Solver::Options options;
  options.reference_point = {0.0, 0.0};
  Solver::Summary summary;
  Solve(options, problem, {0.5, 0.5}, &summary);
  EXPECT_TRUE(summary.IsCertified(options)) << summary.message;
  EXPECT_EQ(summary.strategy, StrategyType::WC_AUGMENTED_LAGRANGIAN);
  EXPECT_TRUE(Contains(summary.strategy_choice, "a manifold"))
      << summary.strategy_choice;
  const double c = -1.0 / std::sqrt(2.0);
  EXPECT_LE((summary.z - Eigen::Vector3d(c, c, 0.0)).norm(), 1e-5)
      << summary.z.transpose();
}

Solver::Summary SolveGebken(StrategyType strategy, int max_iterations) {
  double z[2] = {0.5, 0.5};
  Problem problem;
  testing::BuildGebken(z, &problem);
  Solver::Options options;
  options.strategy = strategy;
  options.max_iterations = max_iterations;
  // The paper's form: no single-objective solves, whose own strategy would
  // differ between the three runs compared below.
  options.objective_offset = {0.0, 0.0};
  Solver::Summary summary;
  Solve(options, problem, {0.3, 0.7}, &summary);
  return summary;
}

// With a small iteration budget WC_SQP stops unconverged: AUTOMATIC then
// runs WC_AUGMENTED_LAGRANGIAN from the same start and reports the better
// point (converged first, then the smaller certificate ratio) with the
// evaluations of both: exactly what the two strategies give when run
// separately.
TEST(AutomaticStrategy, FallsBackToTheAugmentedLagrangianAndKeepsTheBetter) {
  Solver::Options tolerances;
  tolerances.objective_offset = {0.0, 0.0};
  int kept_sqp = 0, took_al = 0, converged = 0;
  for (int iterations = 1; iterations <= 8; ++iterations) {
    SCOPED_TRACE("max_iterations = " + std::to_string(iterations));
    const Solver::Summary sqp = SolveGebken(StrategyType::WC_SQP, iterations);
    const Solver::Summary al =
        SolveGebken(StrategyType::WC_AUGMENTED_LAGRANGIAN, iterations);
    const Solver::Summary automatic =
        SolveGebken(StrategyType::AUTOMATIC, iterations);
    ASSERT_TRUE(sqp.IsSolutionUsable() && al.IsSolutionUsable());
    if (sqp.termination_type == ceres::CONVERGENCE) {
      ++converged;
      EXPECT_EQ(automatic.strategy, StrategyType::WC_SQP);
      EXPECT_EQ(automatic.z, sqp.z);
      EXPECT_EQ(automatic.evaluations.gradient_evaluations,
                sqp.evaluations.gradient_evaluations);
      EXPECT_EQ(automatic.strategy_choice,
                "wc-sqp: 2 parameters, equality constraints only");
      continue;
    }
    const bool al_better =
        al.termination_type == ceres::CONVERGENCE ||
        al.CertificateRatio(tolerances) < sqp.CertificateRatio(tolerances);
    const Solver::Summary& expected = al_better ? al : sqp;
    (al_better ? took_al : kept_sqp) += 1;
    EXPECT_EQ(automatic.strategy, expected.strategy);
    EXPECT_EQ(automatic.termination_type, expected.termination_type);
    EXPECT_EQ(automatic.z, expected.z);
    EXPECT_EQ(automatic.message, expected.message);
    EXPECT_EQ(automatic.evaluations.gradient_evaluations,
              sqp.evaluations.gradient_evaluations +
                  al.evaluations.gradient_evaluations);
    EXPECT_EQ(
        automatic.evaluations.value_evaluations,
        sqp.evaluations.value_evaluations + al.evaluations.value_evaluations);
    EXPECT_TRUE(
        Contains(automatic.strategy_choice, "wc-sqp ended NO_CONVERGENCE"))
        << automatic.strategy_choice;
    EXPECT_TRUE(Contains(automatic.strategy_choice,
                         al_better ? "so wc-augmented-lagrangian solved it"
                                   : "wc-sqp's point is reported"))
        << automatic.strategy_choice;
  }
  // Every branch was taken at least once.
  EXPECT_GT(kept_sqp, 0);
  EXPECT_GT(took_al, 0);
  EXPECT_GT(converged, 0);
}

// Sweeps of the registry's fronts that have no spurious ends: nothing is
// flagged, nothing retried, and every point is the analytic WC point of
// its preference (scales w: the WC point of lambda / w).
TEST(AutomaticStrategy, SweepsFlagNoSpuriousEndsOnOrdinaryFronts) {
  for (const char* name : {"gebken_circle",
                           "circle_quarter",
                           "convex_line",
                           "bounded_segment",
                           "bnh",
                           "mixed_biobjective"}) {
    for (StrategyType strategy :
         {StrategyType::AUTOMATIC, StrategyType::WC_AUGMENTED_LAGRANGIAN}) {
      SCOPED_TRACE(std::string(name) + " with " +
                   StrategyTypeToString(strategy));
      const problems::ProblemInfo* info = problems::Find(name);
      ASSERT_NE(info, nullptr);
      auto instance = info->build();
      std::vector<std::vector<double>> preferences = EvenlySpaced2(33);
      preferences.erase(preferences.begin());
      preferences.pop_back();
      ParetoSweep::Options options;
      options.solver.strategy = strategy;
      options.solver.normalize_objectives = true;
      ParetoSweep::Summary summary;
      Sweep(options,
            instance->problem,
            ThreadSafety::BASIC,
            preferences,
            &summary);
      ASSERT_EQ(summary.num_usable, 31) << summary.FullReport();
      EXPECT_EQ(summary.num_possibly_spurious_ends, 0);
      const bool takes_sqp =
          strategy == StrategyType::AUTOMATIC &&
          instance->problem.NumInequalityConstraints() == 0 &&
          !ProblemEvaluator(&instance->problem).HasBounds();
      EXPECT_EQ(summary.strategies_used,
                std::string(takes_sqp ? "wc-sqp" : "wc-augmented-lagrangian") +
                    " 31");
      EXPECT_NE(summary.FullReport().find("solved by"), std::string::npos);
      const Scalarization& c = summary.scalarization;
      ASSERT_EQ(c.reference_point.size(), 2);
      for (const SweepPoint& point : summary.points) {
        const Solver::Summary& s = point.summary;
        EXPECT_FALSE(point.possibly_spurious_end);
        EXPECT_EQ(s.message.find("spurious"), std::string::npos) << s.message;
        EXPECT_TRUE(s.IsCertified(options.solver)) << s.message;
        Eigen::Vector2d lambda(point.preference[0] / c.objective_scale[0],
                               point.preference[1] / c.objective_scale[1]);
        lambda /= lambda.sum();
        const Eigen::VectorXd expected =
            info->pareto_point(lambda, -c.reference_point);
        EXPECT_LE((s.z - expected).norm(), 1e-5)
            << "lambda_1 = " << point.preference[0] << ": " << s.z.transpose()
            << " vs " << expected.transpose();
      }
    }
  }
}

}  // namespace
}  // namespace ecmo
