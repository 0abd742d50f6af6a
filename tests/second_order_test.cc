// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The second-order test (ecmo/second_order.h) and Solve's escape from
// saddles (issue 57 item 4), against closed forms:
//  (a) AnalyzeSecondOrder at hand-made points: the smallest eigenvalue of
//      the reduced Hessian equals the analytic one; a weakly active bound
//      allows the inward direction only (an indefinite but copositive
//      Hessian on a quadrant is no saddle, one whose negative eigenvector
//      points into the quadrant is); dense and Lanczos agree with Eigen's
//      eigenvalues of the known matrix;
//  (b) Solve started on a symmetry plane, where every gradient keeps the
//      iterates on a saddle (first-order certified there, as the run with
//      the test off shows), ends at the closed-form WC minimizer below it;
//      with max_saddle_escapes = 0 it ends NO_CONVERGENCE with "saddle
//      point" in the message; a restart cut short by max_iterations
//      returns its better, uncertified point.

#include "ecmo/second_order.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "ceres/autodiff_cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

// c + a x^4 / 4 - b x^2 / 2 + (y - y0)^2 over z = (x, y): a double well in
// x (a = 0: a concave parabola), a quadratic in y.
struct Well {
  Well(double c, double a, double b, double y0) : c(c), a(a), b(b), y0(y0) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = c + a * pow(z[0], 4) / 4.0 - b * z[0] * z[0] / 2.0 +
           (z[1] - y0) * (z[1] - y0);
    return true;
  }
  double c, a, b, y0;
};

void AddWells(double c, double a, double b, double* z, Problem* problem) {
  problem->AddObjective(
      new ceres::AutoDiffCostFunction<Well, 1, 2>(new Well(c, a, b, 1.0)),
      {z});
  problem->AddObjective(
      new ceres::AutoDiffCostFunction<Well, 1, 2>(new Well(c, a, b, -1.0)),
      {z});
}

// The WC value max_s lambda_s f_s (r = 0, w = 1) at z of the two wells
// AddWells(3.0, 1.0, 2.0, ...) adds, from their closed form.
double WellsWcValue(double l1, double l2, const double* z) {
  const double x2 = z[0] * z[0];
  const double base = 3.0 + x2 * x2 / 4.0 - x2;
  return std::max(l1 * (base + (z[1] - 1.0) * (z[1] - 1.0)),
                  l2 * (base + (z[1] + 1.0) * (z[1] + 1.0)));
}

Solver::Options PaperForm() {
  Solver::Options options;
  options.objective_offset = {0.0, 0.0};  // r = 0, w = 1
  return options;
}

// ---- (b) Solve from a saddle ---------------------------------------------

// f_{1,2} = 3 + x^4/4 - x^2 + (y -+ 1)^2: x = 0 is a saddle of every WC
// problem (curvature -2 in x), the minimizers have x = +-sqrt(2), where
// f = 2 + (y -+ 1)^2. lambda = (1/2, 1/2): y = 0, f = (3, 3), rho = 3/2;
// at the saddle f = (4, 4), rho = 2.
TEST(SaddleEscape, DoubleWellLeavesTheSymmetryPlane) {
  for (StrategyType strategy :
       {StrategyType::AUTOMATIC, StrategyType::WC_AUGMENTED_LAGRANGIAN,
        StrategyType::WC_NEWTON}) {
    SCOPED_TRACE(StrategyTypeToString(strategy));
    // With the test off: certified at the saddle.
    {
      double z[2] = {0.0, 0.3};
      Problem problem;
      AddWells(3.0, 1.0, 2.0, z, &problem);
      Solver::Options options = PaperForm();
      options.strategy = strategy;
      options.second_order_check = false;
      Solver::Summary summary;
      Solve(options, &problem, {0.5, 0.5}, &summary);
      ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
          << summary.message;
      EXPECT_EQ(z[0], 0.0);
      EXPECT_NEAR(summary.final_rho, 2.0, 1e-8);
      EXPECT_FALSE(summary.second_order.computed);
      // The analysis of that point finds the saddle: curvature
      // -2 (omega_1 lambda_1 + omega_2 lambda_2) = -2 * 1/2 in x.
      ProblemEvaluator evaluator(&problem);
      SecondOrderReport report;
      std::string error;
      ASSERT_TRUE(AnalyzeSecondOrder(SecondOrderOptions(),
                                     &evaluator,
                                     Eigen::Vector2d(0.5, 0.5),
                                     Eigen::Vector2d::Zero(),
                                     summary.final_rho,
                                     summary.z,
                                     summary.kkt.solver_multipliers,
                                     &report,
                                     &error))
          << error;
      EXPECT_TRUE(report.computed);
      EXPECT_TRUE(report.saddle);
      EXPECT_NEAR(report.min_eigenvalue, -1.0, 1e-6);
      EXPECT_EQ(report.cone_span_dimension, 1);
      EXPECT_NEAR(std::abs(report.direction[0]), 1.0, 1e-8);
    }
    // Default: the minimizer below the saddle.
    double z[2] = {0.0, 0.3};
    Problem problem;
    AddWells(3.0, 1.0, 2.0, z, &problem);
    Solver::Options options = PaperForm();
    options.strategy = strategy;
    Solver::Summary summary;
    Solve(options, &problem, {0.5, 0.5}, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_NEAR(std::abs(z[0]), std::sqrt(2.0), 1e-6);
    EXPECT_NEAR(z[1], 0.0, 1e-6);
    EXPECT_NEAR(summary.final_rho, 1.5, 1e-8);
    EXPECT_EQ(summary.second_order.saddle_escapes, 1);
    EXPECT_TRUE(summary.second_order.computed);
    EXPECT_FALSE(summary.second_order.saddle);
    // Curvature at the minimizer: 3 x^2 - 2 = 4 in x, times 1/2.
    EXPECT_NEAR(summary.second_order.min_eigenvalue, 2.0, 1e-5);
    EXPECT_NE(summary.message.find("saddle point"), std::string::npos);
    EXPECT_NE(summary.FullReport().find("Restarts from saddles"),
              std::string::npos);
  }
}

TEST(SaddleEscape, NoRestartsLeftIsNoConvergenceNamingTheSaddle) {
  double z[2] = {0.0, 0.3};
  Problem problem;
  AddWells(3.0, 1.0, 2.0, z, &problem);
  Solver::Options options = PaperForm();
  options.max_saddle_escapes = 0;
  Solver::Summary summary;
  Solve(options, &problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE);
  EXPECT_TRUE(summary.IsSolutionUsable());
  EXPECT_FALSE(summary.IsCertified(options));
  EXPECT_NE(summary.message.find("saddle point"), std::string::npos)
      << summary.message;
  EXPECT_TRUE(summary.second_order.saddle);
  EXPECT_NEAR(summary.second_order.min_eigenvalue, -1.0, 1e-6);
  EXPECT_EQ(z[0], 0.0);  // the best point found: the saddle
}

// A restart that runs out of iterations before it converges: the point it
// stopped at is returned (NO_CONVERGENCE, not certified) when it is a
// better point of the WC problem than the saddle, as here, where every
// step off the plane x = 0 lowers both objectives. Checked from outside:
// the WC value max(f_1, f_2) / 2 of the returned z, from the closed form,
// is below the saddle's 2.
TEST(SaddleEscape, UnconvergedRestartBelowTheSaddleIsReturned) {
  for (StrategyType strategy :
       {StrategyType::WC_SQP, StrategyType::WC_NEWTON}) {
    for (int max_iterations : {3, 4}) {
      SCOPED_TRACE(std::string(StrategyTypeToString(strategy)) + " " +
                   std::to_string(max_iterations));
      double z[2] = {0.0, 0.3};
      Problem problem;
      AddWells(3.0, 1.0, 2.0, z, &problem);
      Solver::Options options = PaperForm();
      options.strategy = strategy;
      options.max_iterations = max_iterations;
      Solver::Summary summary;
      Solve(options, &problem, {0.5, 0.5}, &summary);
      EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE)
          << summary.message;
      ASSERT_TRUE(summary.IsSolutionUsable());
      EXPECT_FALSE(summary.IsCertified(options));
      EXPECT_EQ(summary.second_order.saddle_escapes, 1);
      EXPECT_FALSE(summary.second_order.computed);
      EXPECT_NE(summary.message.find("saddle point"), std::string::npos)
          << summary.message;
      EXPECT_NE(summary.message.find("smaller WC value"), std::string::npos)
          << summary.message;
      // Off the plane, between the saddle (x = 0) and the well's bottom
      // (|x| = sqrt(2)) or a little past it.
      EXPECT_GT(std::abs(z[0]), 1.0);
      EXPECT_LT(std::abs(z[0]), 1.7);
      const double wc = WellsWcValue(0.5, 0.5, z);
      EXPECT_NEAR(summary.WcValue(), wc, 1e-12);
      EXPECT_LT(wc, 1.6);  // the saddle's is 2, the minimizer's 1.5
      EXPECT_GE(wc, 1.5 - 1e-12);
    }
  }
}

// A warm-started sweep from the saddle plane: the first point escapes, and
// every point is the closed-form minimizer: |x| = sqrt(2), y the root of
// lambda_1 (2 + (y - 1)^2) = lambda_2 (2 + (y + 1)^2) in [-1, 1].
TEST(SaddleEscape, WarmStartedSweepFromTheSaddlePlane) {
  double z[2] = {0.0, 0.3};
  Problem problem;
  AddWells(3.0, 1.0, 2.0, z, &problem);
  ProblemEvaluator evaluator(&problem);
  ParetoSweep::Options options;
  options.solver.objective_offset = {0.0, 0.0};
  std::vector<std::vector<double>> preferences;
  for (int i = 1; i <= 9; ++i) preferences.push_back({i / 10.0, 1 - i / 10.0});
  ParetoSweep::Summary summary;
  Sweep(options, &evaluator, Eigen::Vector2d(0.0, 0.3), preferences, &summary);
  ASSERT_EQ(summary.points.size(), preferences.size()) << summary.message;
  int escapes = 0;
  for (const SweepPoint& point : summary.points) {
    const double l1 = point.preference[0], l2 = point.preference[1];
    SCOPED_TRACE("lambda_1 = " + std::to_string(l1));
    ASSERT_EQ(point.summary.termination_type, ceres::CONVERGENCE)
        << point.summary.message;
    // max_s lambda_s f_s(sqrt(2), y) is convex in y: ternary search.
    auto wc = [&](double y) {
      return std::max(l1 * (2.0 + (y - 1) * (y - 1)),
                      l2 * (2.0 + (y + 1) * (y + 1)));
    };
    double lo = -1.0, hi = 1.0;
    for (int it = 0; it < 200; ++it) {
      const double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
      if (wc(m1) < wc(m2)) {
        hi = m2;
      } else {
        lo = m1;
      }
    }
    const double y = 0.5 * (lo + hi);
    EXPECT_NEAR(std::abs(point.summary.z[0]), std::sqrt(2.0), 1e-6);
    EXPECT_NEAR(point.summary.z[1], y, 1e-6);
    EXPECT_NEAR(point.summary.final_rho, wc(y), 1e-7);
    EXPECT_FALSE(point.summary.second_order.saddle);
    escapes += point.summary.second_order.saddle_escapes;
  }
  EXPECT_GE(escapes, 1);
}

// The same sweep with two iterations per solve, so that warm-started
// points end uncertified: each is solved again cold, the better try is
// kept (checked against an independent cold solve of the same preference),
// the summary counts the retries, and the flag survives a resume.
TEST(SaddleEscape, UnconvergedWarmPointsAreRetriedColdAndCounted) {
  auto wells = [](double c, double* z) {
    auto problem = std::make_unique<Problem>();
    AddWells(c, 1.0, 2.0, z, problem.get());
    return problem;
  };
  double z[2] = {0.0, 0.3};
  auto problem = wells(3.0, z);
  ProblemEvaluator evaluator(problem.get());
  ParetoSweep::Options options;
  options.solver.objective_offset = {0.0, 0.0};  // r = 0, w = 1
  options.solver.strategy = StrategyType::WC_SQP;
  options.solver.max_iterations = 2;
  options.refine_to = 0;
  options.jsonl_path = ::testing::TempDir() + "/saddle_cold_retry.jsonl";
  std::remove(options.jsonl_path.c_str());
  std::vector<std::vector<double>> preferences;
  for (int i = 1; i <= 9; ++i) preferences.push_back({i / 10.0, 1 - i / 10.0});
  const Eigen::Vector2d start(0.0, 0.3);
  ParetoSweep::Summary summary;
  Sweep(options, &evaluator, start, preferences, &summary);
  ASSERT_EQ(summary.points.size(), preferences.size()) << summary.message;
  int retries = 0, kept_cold = 0;
  for (const SweepPoint& point : summary.points) {
    const double l1 = point.preference[0], l2 = point.preference[1];
    SCOPED_TRACE("lambda_1 = " + std::to_string(l1));
    const Solver::Summary& s = point.summary;
    ASSERT_TRUE(s.IsSolutionUsable()) << s.message;
    // The WC value from the closed form at the returned z.
    const double wc = WellsWcValue(l1, l2, s.z.data());
    EXPECT_NEAR(s.WcValue(), wc, 1e-12);
    if (!point.cold_retry) {
      // Not retried: cold from the start, or a warm start that converged.
      EXPECT_TRUE(point.warm_start_from < 0 ||
                  s.termination_type == ceres::CONVERGENCE)
          << s.message;
      continue;
    }
    ++retries;
    if (point.warm_start_from < 0) ++kept_cold;
    EXPECT_NE(s.message.find("cold"), std::string::npos) << s.message;
    // The cold try, solved independently: the kept point is no worse.
    double zc[2] = {0.0, 0.3};
    auto cold_problem = wells(3.0, zc);
    Solver::Options cold_options = options.solver;
    Solver::Summary cold;
    Solve(cold_options, cold_problem.get(), point.preference, &cold);
    ASSERT_TRUE(cold.IsSolutionUsable()) << cold.message;
    EXPECT_LE(wc, cold.WcValue() * (1.0 + 1e-6));
  }
  EXPECT_GE(retries, 1) << summary.FullReport();
  EXPECT_EQ(summary.num_cold_retries, retries);
  EXPECT_EQ(summary.num_cold_retries_kept, kept_cold);
  EXPECT_NE(summary.FullReport().find("retried cold"), std::string::npos);
  // A resume reads the flags back.
  options.resume = true;
  ParetoSweep::Summary resumed;
  Sweep(options, &evaluator, start, preferences, &resumed);
  ASSERT_EQ(resumed.num_resumed, static_cast<int>(preferences.size()))
      << resumed.FullReport();
  EXPECT_EQ(resumed.num_cold_retries, summary.num_cold_retries);
  EXPECT_EQ(resumed.num_cold_retries_kept, summary.num_cold_retries_kept);
  for (size_t i = 0; i < preferences.size(); ++i) {
    EXPECT_EQ(resumed.points[i].cold_retry, summary.points[i].cold_retry) << i;
  }
}

// f_{1,2} = 3 - x^2/2 + (y -+ 1)^2 with 0 <= x <= 2: at x = 0 the lower
// bound is active with a zero multiplier (df/dx = 0) and moving inward
// lowers both objectives. The minimizer is at the upper bound x = 2:
// f = 1 + (y -+ 1)^2, lambda = (1/2, 1/2): y = 0, f = (2, 2), rho = 1.
TEST(SaddleEscape, ZeroMultiplierAtABoundIsASaddle) {
  double z[2] = {0.0, 0.3};
  Problem problem;
  AddWells(3.0, 0.0, 1.0, z, &problem);
  problem.SetParameterLowerBound(z, 0, 0.0);
  problem.SetParameterUpperBound(z, 0, 2.0);
  {
    ProblemEvaluator evaluator(&problem);
    KktMultipliers multipliers;
    multipliers.omega = Eigen::Vector2d(0.5, 0.5);
    SecondOrderReport report;
    std::string error;
    const Eigen::Vector2d at(0.0, 0.0);
    ASSERT_TRUE(AnalyzeSecondOrder(SecondOrderOptions(),
                                   &evaluator,
                                   Eigen::Vector2d(0.5, 0.5),
                                   Eigen::Vector2d::Zero(),
                                   2.0,
                                   at,
                                   multipliers,
                                   &report,
                                   &error))
        << error;
    EXPECT_TRUE(report.saddle);
    EXPECT_EQ(report.num_weakly_active, 1);
    EXPECT_NEAR(report.min_eigenvalue, -0.5, 1e-6);
    EXPECT_NEAR(report.direction[0], 1.0, 1e-8);  // inward only
  }
  Solver::Options options = PaperForm();
  Solver::Summary summary;
  Solve(options, &problem, {0.5, 0.5}, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_NEAR(z[0], 2.0, 1e-9);
  EXPECT_NEAR(z[1], 0.0, 1e-6);
  EXPECT_NEAR(summary.final_rho, 1.0, 1e-8);
  EXPECT_EQ(summary.second_order.saddle_escapes, 1);
  // x is pinned by its upper bound (positive multiplier), y by the two
  // objectives moving together: nothing left to curve.
  EXPECT_EQ(summary.second_order.cone_span_dimension, 0);
}

// S = 1, minimize 2 + y on the circle x^2 + y^2 = 1 from its top (0, 1),
// a KKT point (nu = -1/2) where the Lagrangian's curvature along the
// tangent is 2 nu = -1. The minimizer is (0, -1), f = 1.
struct Height {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = 2.0 + z[1];
    return true;
  }
};
using testing::UnitCircle;

TEST(SaddleEscape, TopOfACircleUnderAnEqualityConstraint) {
  double z[2] = {0.0, 1.0};
  Problem problem;
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<Height, 1, 2>(new Height), {z});
  problem.AddConstraint(
      new ceres::AutoDiffCostFunction<UnitCircle, 1, 2>(new UnitCircle), {z});
  {
    ProblemEvaluator evaluator(&problem);
    KktMultipliers multipliers;
    multipliers.omega = Eigen::VectorXd::Ones(1);
    multipliers.nu = Eigen::VectorXd::Constant(1, -0.5);
    SecondOrderReport report;
    std::string error;
    ASSERT_TRUE(AnalyzeSecondOrder(SecondOrderOptions(),
                                   &evaluator,
                                   Eigen::VectorXd::Ones(1),
                                   Eigen::VectorXd::Zero(1),
                                   3.0,
                                   Eigen::Vector2d(0.0, 1.0),
                                   multipliers,
                                   &report,
                                   &error))
        << error;
    EXPECT_TRUE(report.saddle);
    EXPECT_EQ(report.cone_span_dimension, 1);
    EXPECT_NEAR(report.min_eigenvalue, -1.0, 1e-6);
    EXPECT_NEAR(std::abs(report.direction[0]), 1.0, 1e-8);
  }
  Solver::Options options;
  options.objective_offset = {0.0};
  Solver::Summary summary;
  Solve(options, &problem, {1.0}, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_NEAR(z[0], 0.0, 1e-6);
  EXPECT_NEAR(z[1], -1.0, 1e-8);
  EXPECT_NEAR(summary.final_rho, 1.0, 1e-8);
  EXPECT_GE(summary.second_order.saddle_escapes, 1);
  // The minimizer's curvature along the tangent: 2 nu = 2 * 1/2.
  EXPECT_NEAR(summary.second_order.min_eigenvalue, 1.0, 1e-5);
}

// ---- (a) the analysis on a known matrix -----------------------------------

// f = 1 + z^T A z / 2 (S = 1, no constraints) with bounds given per test.
class Quadratic final : public Evaluator {
 public:
  explicit Quadratic(const Eigen::MatrixXd& a) : a_(a) {}
  void Bound(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
    SetBounds(lower, upper);
  }
  int NumParameters() const override { return static_cast<int>(a_.rows()); }
  int NumObjectives() const override { return 1; }
  int NumConstraints() const override { return 0; }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* /*h*/,
                  double* grad_f,
                  std::string* /*error*/) override {
    const Eigen::Map<const Eigen::VectorXd> x(z, a_.rows());
    f[0] = 1.0 + 0.5 * x.dot(a_ * x);
    if (grad_f != nullptr) {
      Eigen::Map<Eigen::VectorXd>(grad_f, a_.rows()) = a_ * x;
    }
    return true;
  }
  void DoJacobianTransposeMultiply(const double* /*v*/,
                                   double* out) const override {
    Eigen::Map<Eigen::VectorXd>(out, a_.rows()).setZero();
  }
  void DoJacobianMultiply(const double* /*x*/, double* /*out*/) const override {
  }

 private:
  Eigen::MatrixXd a_;
};

SecondOrderReport AnalyzeAtZero(Quadratic* evaluator,
                                const SecondOrderOptions& options) {
  const int k = evaluator->NumParameters();
  KktMultipliers multipliers;
  multipliers.omega = Eigen::VectorXd::Ones(1);
  SecondOrderReport report;
  std::string error;
  EXPECT_TRUE(AnalyzeSecondOrder(options,
                                 evaluator,
                                 Eigen::VectorXd::Ones(1),
                                 Eigen::VectorXd::Zero(1),
                                 1.0,
                                 Eigen::VectorXd::Zero(k),
                                 multipliers,
                                 &report,
                                 &error))
      << error;
  return report;
}

TEST(AnalyzeSecondOrder, WeaklyActiveBoundsAllowInwardDirectionsOnly) {
  const Eigen::Vector2d zero = Eigen::Vector2d::Zero();
  const Eigen::Vector2d inf =
      Eigen::Vector2d::Constant(std::numeric_limits<double>::infinity());
  // Eigenvalues 3 along (1, 1) and -1 along (1, -1): no direction of the
  // quadrant d >= 0 has negative curvature (d^T A d = d1^2 + 4 d1 d2 +
  // d2^2), so the origin is a minimizer on it; the test holds one bound
  // and finds curvature 1 on the other face.
  Eigen::Matrix2d copositive;
  copositive << 1.0, 2.0, 2.0, 1.0;
  for (int dense : {50, 0}) {
    SCOPED_TRACE(dense == 0 ? "Lanczos" : "dense");
    SecondOrderOptions options;
    options.max_dense_dimension = dense;
    Quadratic a(copositive);
    a.Bound(zero, inf);
    SecondOrderReport report = AnalyzeAtZero(&a, options);
    EXPECT_TRUE(report.computed);
    EXPECT_FALSE(report.saddle);
    EXPECT_EQ(report.num_weakly_active, 2);
    EXPECT_EQ(report.num_weakly_active_held, 1);
    EXPECT_EQ(report.cone_span_dimension, 2);
    EXPECT_EQ(report.reduced_dimension, 1);
    EXPECT_NEAR(report.min_eigenvalue, 1.0, 1e-6);
    EXPECT_EQ(report.lanczos, dense == 0);
    // The same matrix without bounds: a saddle along (1, -1).
    Quadratic free(copositive);
    report = AnalyzeAtZero(&free, options);
    EXPECT_TRUE(report.saddle);
    EXPECT_NEAR(report.min_eigenvalue, -1.0, 1e-6);
    EXPECT_NEAR(std::abs(report.direction[0] - report.direction[1]),
                std::sqrt(2.0), 1e-6);
    // Negative eigenvector (1, 1) inside the quadrant: a saddle there.
    Eigen::Matrix2d inward;
    inward << 1.0, -2.0, -2.0, 1.0;
    Quadratic b(inward);
    b.Bound(zero, inf);
    report = AnalyzeAtZero(&b, options);
    EXPECT_TRUE(report.saddle);
    EXPECT_EQ(report.num_weakly_active_held, 0);
    EXPECT_NEAR(report.min_eigenvalue, -1.0, 1e-6);
    EXPECT_GT(report.direction[0], 0.7);
    EXPECT_GT(report.direction[1], 0.7);
  }
}

TEST(AnalyzeSecondOrder, DenseAndLanczosFindTheSmallestEigenvalue) {
  const int k = 120;
  // A = Q diag(-0.5, 1, ..., 10) Q^T, Q orthogonal from a fixed matrix.
  Eigen::MatrixXd m(k, k);
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) m(i, j) = std::sin(1.0 + i * k + 3.0 * j);
  }
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(m)
                                .householderQ();
  Eigen::VectorXd d = Eigen::VectorXd::LinSpaced(k, 1.0, 10.0);
  d[0] = -0.5;
  const Eigen::MatrixXd a = q * d.asDiagonal() * q.transpose();
  const double exact =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a).eigenvalues()[0];
  ASSERT_NEAR(exact, -0.5, 1e-10);
  Quadratic evaluator(a);
  SecondOrderOptions dense;
  dense.max_dense_dimension = k;
  SecondOrderReport report = AnalyzeAtZero(&evaluator, dense);
  EXPECT_FALSE(report.lanczos);
  EXPECT_EQ(report.hessian_products, k);
  EXPECT_NEAR(report.min_eigenvalue, exact, 1e-6);
  EXPECT_TRUE(report.saddle);
  // Lanczos: an upper bound of the smallest eigenvalue, here within 1e-6
  // (the negative eigenvalue is well separated).
  SecondOrderOptions lanczos;
  lanczos.max_dense_dimension = 10;
  lanczos.max_lanczos_iterations = 40;
  report = AnalyzeAtZero(&evaluator, lanczos);
  EXPECT_TRUE(report.lanczos);
  EXPECT_EQ(report.hessian_products, 40);
  EXPECT_GE(report.min_eigenvalue, exact - 1e-8);
  EXPECT_NEAR(report.min_eigenvalue, exact, 1e-6);
  EXPECT_TRUE(report.saddle);
  // The direction is the eigenvector: A d = lambda d.
  EXPECT_LE((a * report.direction - exact * report.direction).norm(), 1e-4);
}

TEST(SecondOrderOptions, RefusedWithAMessage) {
  Solver::Options options;
  std::string error;
  options.second_order.negative_curvature_tolerance = 0.0;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("negative_curvature_tolerance"), std::string::npos);
  options = Solver::Options();
  options.max_saddle_escapes = -1;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("max_saddle_escapes"), std::string::npos);
  options = Solver::Options();
  options.second_order.max_lanczos_iterations = 0;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("max_lanczos_iterations"), std::string::npos);
}

}  // namespace
}  // namespace ecmo
