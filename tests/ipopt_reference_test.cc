// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Tests of the Ipopt-backed reference WC solver (ecmo/ipopt_reference.h).
//
// Oracles are independent of the plugin's strategies: closed-form WC
// solutions on the unit circle (derived below), the registry's known Pareto
// points, and Ipopt's documented exit statuses.

#include "ecmo/ipopt_reference.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registry.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

// ---------------------------------------------------------------------------
// gebken_circle, built locally: f1 = |z - (2, 1)|^2, f2 = |z - (2, -1)|^2,
// h = -z1^2 - z2^2 + 1.
struct F1 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - 2.0) * (z[0] - 2.0) + (z[1] - 1.0) * (z[1] - 1.0);
    return true;
  }
};
struct F2 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - 2.0) * (z[0] - 2.0) + (z[1] + 1.0) * (z[1] + 1.0);
    return true;
  }
};
struct Circle {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = -z[0] * z[0] - z[1] * z[1] + 1.0;
    return true;
  }
};
// h = z1^2 + 1 has no root: the WC problem is infeasible.
struct NoRoot {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] * z[0] + 1.0;
    return true;
  }
};
// f1, but NaN after the first `healthy_calls` evaluations (0: always NaN).
struct F1ThenNan {
  explicit F1ThenNan(int healthy_calls) : healthy_calls(healthy_calls) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    if (calls->fetch_add(1) >= healthy_calls) {
      f[0] = T(std::numeric_limits<double>::quiet_NaN());
    } else {
      f[0] = (z[0] - 2.0) * (z[0] - 2.0) + (z[1] - 1.0) * (z[1] - 1.0);
    }
    return true;
  }
  int healthy_calls;
  std::shared_ptr<std::atomic<int>> calls =
      std::make_shared<std::atomic<int>>(0);
};

// A problem and the parameter block it points into, at a stable address.
struct TestProblem {
  double z[2] = {0.5, 0.5};
  Problem problem;
};

enum class Variant { kCircle, kInfeasible, kNanAtStart, kNanLater };

std::unique_ptr<TestProblem> MakeGebken(Variant variant = Variant::kCircle) {
  auto p = std::make_unique<TestProblem>();
  if (variant == Variant::kNanAtStart || variant == Variant::kNanLater) {
    p->problem.AddObjective(
        new ceres::AutoDiffCostFunction<F1ThenNan, 1, 2>(
            new F1ThenNan(variant == Variant::kNanAtStart ? 0 : 12)),
        {p->z},
        "nan_objective");
  } else {
    p->problem.AddObjective(
        new ceres::AutoDiffCostFunction<F1, 1, 2>(new F1), {p->z}, "f1");
  }
  p->problem.AddObjective(
      new ceres::AutoDiffCostFunction<F2, 1, 2>(new F2), {p->z}, "f2");
  if (variant == Variant::kInfeasible) {
    p->problem.AddConstraint(
        new ceres::AutoDiffCostFunction<NoRoot, 1, 2>(new NoRoot),
        {p->z},
        "no_root");
  } else {
    p->problem.AddConstraint(
        new ceres::AutoDiffCostFunction<Circle, 1, 2>(new Circle),
        {p->z},
        "circle");
  }
  return p;
}

// The closed-form WC solution of gebken_circle for a preference where both
// inequalities are active: z = (c, s) on the unit circle with
// l1 f1 = l2 f2, where on the circle f1 = 6 - 4c - 2s, f2 = 6 - 4c + 2s:
//   l1 (6 - 4c - 2s) = l2 (6 - 4c + 2s)
//   <=> s = (6 - 4c)(l1 - l2) / (2 (l1 + l2)) = (3 - 2c)(l1 - l2)   (l1+l2=1)
// which with c^2 + s^2 = 1 is a quadratic in c (largest root: the crossing
// on the Pareto arc). Multipliers: the tangent t = (-s, c) component of
// stationarity, w1 l1 grad f1 . t + w2 l2 grad f2 . t = 0 with
// grad f1 . t = 4s - 2c, grad f2 . t = 4s + 2c and w1 + w2 = 1, gives w;
// the normal component (grad h = -2z, |z| = 1) gives
// nu = (w1 l1 grad f1 . z + w2 l2 grad f2 . z) / 2 with
// grad f1 . z = 2 (1 - 2c - s), grad f2 . z = 2 (1 - 2c + s).
struct WcPoint {
  Eigen::Vector2d z;
  double rho;
  Eigen::Vector2d omega;
  double nu;
};

WcPoint BothActive(double l1, double l2) {
  const double d = l1 - l2;
  // (1 + 4d^2) c^2 - 12 d^2 c + 9 d^2 - 1 = 0.
  const double a = 1.0 + 4.0 * d * d;
  const double b = -12.0 * d * d;
  const double cc = 9.0 * d * d - 1.0;
  const double c = (-b + std::sqrt(b * b - 4.0 * a * cc)) / (2.0 * a);
  const double s = (3.0 - 2.0 * c) * d;
  WcPoint p;
  p.z = Eigen::Vector2d(c, s);
  p.rho = l1 * (6.0 - 4.0 * c - 2.0 * s);
  const double t1 = l1 * (4.0 * s - 2.0 * c);
  const double t2 = l2 * (4.0 * s + 2.0 * c);
  const double w1 = t2 / (t2 - t1);
  p.omega = Eigen::Vector2d(w1, 1.0 - w1);
  p.nu = (w1 * l1 * 2.0 * (1.0 - 2.0 * c - s) +
          (1.0 - w1) * l2 * 2.0 * (1.0 - 2.0 * c + s)) /
         2.0;
  return p;
}

// lambda = (0.3, 0.7): the minimizer of f2 on the circle, z = (2, -1)/sqrt5,
// already has 0.7 f2 = 0.7 (6 - 2 sqrt5) = 1.0695 > 0.3 f1 = 0.9950, so only
// the second inequality is active: omega = (0, 1), and the normal component
// 0.7 * 2 (z - (2, -1)) - 2 nu z = 0 with z - (2, -1) = (1 - sqrt5) z gives
// nu = 0.7 (1 - sqrt5).
WcPoint OneActive() {
  const double r5 = std::sqrt(5.0);
  WcPoint p;
  p.z = Eigen::Vector2d(2.0 / r5, -1.0 / r5);
  p.rho = 0.7 * (6.0 - 2.0 * r5);
  p.omega = Eigen::Vector2d(0.0, 1.0);
  p.nu = 0.7 * (1.0 - r5);
  return p;
}

void ExpectWcPoint(const IpoptReference::Summary& summary,
                   const WcPoint& expected) {
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  ASSERT_EQ(summary.z.size(), 2);
  EXPECT_NEAR(summary.z[0], expected.z[0], 1e-7);
  EXPECT_NEAR(summary.z[1], expected.z[1], 1e-7);
  EXPECT_NEAR(summary.final_rho, expected.rho, 1e-8);
  ASSERT_EQ(summary.omega.size(), 2);
  ASSERT_EQ(summary.nu.size(), 1);
  EXPECT_NEAR(summary.omega[0], expected.omega[0], 1e-6);
  EXPECT_NEAR(summary.omega[1], expected.omega[1], 1e-6);
  EXPECT_NEAR(summary.nu[0], expected.nu, 1e-6);
  EXPECT_LE(summary.kkt.with_solver_multipliers.SquaredNorm(), 1e-14);
  EXPECT_LE(summary.kkt.with_least_squares_multipliers.SquaredNorm(), 1e-14);
  EXPECT_LE(summary.constraint_norm, 1e-9);
}

TEST(IpoptReference, SymmetricPreferenceHasKnownSolutionAndMultipliers) {
  auto p = MakeGebken();
  IpoptReference::Summary summary;
  SolveReference(
      IpoptReference::Options(), p->problem, {0.5, 0.5}, {}, &summary);
  // Hand-derived: z = (1, 0), rho = 1/2 * f1(1, 0) = 1, omega = (1/2, 1/2);
  // sum omega_s lambda_s grad f_s = 1/4 (-2, -2) + 1/4 (-2, 2) = (-1, 0)
  // and grad h = (-2, 0), so nu = -1/2.
  WcPoint expected;
  expected.z = Eigen::Vector2d(1.0, 0.0);
  expected.rho = 1.0;
  expected.omega = Eigen::Vector2d(0.5, 0.5);
  expected.nu = -0.5;
  ExpectWcPoint(summary, expected);
  EXPECT_EQ(BothActive(0.5, 0.5).z[0], 1.0);  // The general formula agrees.

  EXPECT_EQ(summary.ipopt_status, 0);
  EXPECT_EQ(summary.ipopt_status_name, "Solve_Succeeded");
  EXPECT_NE(summary.message.find("Ipopt: Solve_Succeeded"), std::string::npos);
  EXPECT_TRUE(summary.IsSolutionUsable());
  EXPECT_GT(summary.iterations, 0);
  EXPECT_GT(summary.evaluations.value_evaluations, 0);
  EXPECT_GT(summary.evaluations.gradient_evaluations, 0);
  EXPECT_GE(summary.total_time_in_seconds, 0.0);
  // max(1/2 f1(z0), 1/2 f2(z0)) with f1(0.5, 0.5) = 2.5, f2(0.5, 0.5) = 4.5.
  EXPECT_DOUBLE_EQ(summary.initial_rho, 2.25);
  EXPECT_NEAR(summary.objectives[0], 2.0, 1e-8);  // unshifted f1(1, 0)
  EXPECT_NEAR(summary.objectives[1], 2.0, 1e-8);
  // The least-squares multipliers agree with Ipopt's.
  EXPECT_NEAR(summary.kkt.least_squares_multipliers.omega[0], 0.5, 1e-6);
  EXPECT_NEAR(summary.kkt.least_squares_multipliers.nu[0], -0.5, 1e-6);
  // The solution is written back into the parameter block.
  EXPECT_NEAR(p->z[0], 1.0, 1e-7);
  EXPECT_NEAR(p->z[1], 0.0, 1e-7);

  EXPECT_NE(summary.BriefReport().find("Solve_Succeeded"), std::string::npos);
  EXPECT_NE(summary.FullReport().find("CONVERGENCE"), std::string::npos);
}

TEST(IpoptReference, AsymmetricPreferenceWithOneActiveInequality) {
  auto p = MakeGebken();
  IpoptReference::Summary summary;
  SolveReference(
      IpoptReference::Options(), p->problem, {0.3, 0.7}, {}, &summary);
  ExpectWcPoint(summary, OneActive());
}

TEST(IpoptReference, AsymmetricPreferenceWithBothInequalitiesActive) {
  for (double l1 : {0.45, 0.55, 0.6}) {
    SCOPED_TRACE(l1);
    const WcPoint expected = BothActive(l1, 1.0 - l1);
    // The closed form is a crossing on the Pareto arc |t| <= atan(1/2).
    ASSERT_LE(std::abs(std::atan2(expected.z[1], expected.z[0])),
              std::atan(0.5));
    auto p = MakeGebken();
    IpoptReference::Summary summary;
    SolveReference(
        IpoptReference::Options(), p->problem, {l1, 1.0 - l1}, {}, &summary);
    ExpectWcPoint(summary, expected);
  }
}

TEST(IpoptReference, ObjectiveOffsetShiftsTheScalarization) {
  // With offset (o, o) and lambda = (1/2, 1/2) the symmetric point stays
  // the solution; rho grows by o / 2 and objectives stay unshifted.
  auto p = MakeGebken();
  IpoptReference::Summary summary;
  SolveReference(
      IpoptReference::Options(), p->problem, {0.5, 0.5}, {3.0, 3.0}, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_NEAR(summary.final_rho, 2.5, 1e-8);
  EXPECT_NEAR(summary.z[0], 1.0, 1e-7);
  EXPECT_NEAR(summary.objectives[0], 2.0, 1e-8);
  EXPECT_EQ(summary.objective_offset_used, std::vector<double>({3.0, 3.0}));
}

// The offset (or the reference point r = -offset) in the options, through
// the Problem* overload, solves what the legacy positional offset solves.
TEST(IpoptReference, ScalarizationInOptionsEqualsTheLegacyOffset) {
  auto legacy_problem = MakeGebken();
  IpoptReference::Summary legacy;
  SolveReference(IpoptReference::Options(),
                 legacy_problem->problem,
                 {0.3, 0.7},
                 {3.0, 3.0},
                 &legacy);
  ASSERT_EQ(legacy.termination_type, ceres::CONVERGENCE) << legacy.message;
  for (bool as_reference_point : {false, true}) {
    auto p = MakeGebken();
    IpoptReference::Options options;
    if (as_reference_point) {
      options.reference_point = {-3.0, -3.0};
    } else {
      options.objective_offset = {3.0, 3.0};
    }
    IpoptReference::Summary summary;
    Solve(options, &p->problem, {0.3, 0.7}, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_EQ(summary.objective_offset_used, legacy.objective_offset_used);
    EXPECT_NEAR(summary.final_rho, legacy.final_rho, 1e-12);
    EXPECT_NEAR((summary.z - legacy.z).norm(), 0.0, 1e-12);
    EXPECT_GE(summary.constraint_max_norm, 0.0);
    EXPECT_LE(summary.constraint_max_norm, summary.constraint_norm + 1e-15);
  }
  IpoptReference::Options both;
  both.objective_offset = {3.0, 3.0};
  both.reference_point = {-3.0, -3.0};
  std::string error;
  EXPECT_FALSE(both.IsValid(&error));
  EXPECT_NE(error.find("reference_point"), std::string::npos) << error;
}

// Forwards to a ProblemEvaluator through the public interface only, so the
// reference cannot see the Jacobian blocks and must use Jacobian products.
class OpaqueEvaluator : public Evaluator {
 public:
  explicit OpaqueEvaluator(const Problem* problem) : inner_(problem) {}
  int NumParameters() const override { return inner_.NumParameters(); }
  int NumObjectives() const override { return inner_.NumObjectives(); }
  int NumConstraints() const override { return inner_.NumConstraints(); }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override {
    return inner_.Evaluate(z, f, h, grad_f, error);
  }
  void DoJacobianTransposeMultiply(const double* v,
                                   double* out) const override {
    inner_ptr_->JacobianTransposeMultiply(v, out);
  }
  void DoJacobianMultiply(const double* x, double* out) const override {
    inner_ptr_->JacobianMultiply(x, out);
  }

 private:
  ProblemEvaluator inner_;
  ProblemEvaluator* const inner_ptr_ = &inner_;
};

TEST(IpoptReference, GeneralEvaluatorUsesJacobianProducts) {
  auto p = MakeGebken();
  OpaqueEvaluator evaluator(&p->problem);
  Eigen::VectorXd z(2);
  z << 0.5, 0.5;
  IpoptReference::Summary summary;
  SolveReference(
      IpoptReference::Options(), &evaluator, {0.3, 0.7}, {}, &z, &summary);
  ExpectWcPoint(summary, OneActive());
  EXPECT_GT(summary.evaluations.jacobian_products, 0);
  EXPECT_NEAR(z[0], OneActive().z[0], 1e-7);
  // The evaluator overload never touches the parameter blocks.
  EXPECT_EQ(p->z[0], 0.5);
}

TEST(IpoptReference, LandsOnEveryKnownParetoPointOfTheRegistry) {
  int checked = 0;
  for (const problems::ProblemInfo& info : problems::AllProblems()) {
    if (!info.pareto_point) continue;
    const int num_objectives = info.num_objectives;
    for (double l1 : {0.2, 0.5, 0.8}) {
      SCOPED_TRACE(info.name + " lambda1 = " + std::to_string(l1));
      std::unique_ptr<problems::ProblemInstance> instance = info.build();
      const std::vector<double> lambda =
          testing::RegistryPreference(l1, num_objectives);
      IpoptReference::Summary summary;
      SolveReference(IpoptReference::Options(),
                     instance->problem,
                     lambda,
                     info.objective_offset,
                     &summary);
      ASSERT_TRUE(summary.IsSolutionUsable()) << summary.FullReport();
      const Eigen::VectorXd expected = info.pareto_point(
          Eigen::Map<const Eigen::VectorXd>(lambda.data(), num_objectives),
          Eigen::Map<const Eigen::VectorXd>(info.objective_offset.data(),
                                            num_objectives));
      ASSERT_EQ(summary.z.size(), expected.size());
      // Where J_h is rank deficient at the solution (mtbl_example_iii:
      // h3 = y3^3), a feasibility of 1e-12 only pins y3 to about 1e-4, so
      // those coordinates are compared through h instead.
      EXPECT_LE(summary.constraint_norm, 1e-8);
      double max_error = 0.0;
      for (int j = 0; j < expected.size(); ++j) {
        if (info.name == "mtbl_example_iii" && j == 3) continue;
        max_error = std::max(max_error, std::abs(summary.z[j] - expected[j]));
      }
      EXPECT_LE(max_error, 1e-6) << summary.FullReport();
      ++checked;
    }
  }
  EXPECT_GE(checked, 3);
}

TEST(IpoptReference, InfeasibleConstraintIsAFailureWithIpoptsReason) {
  auto p = MakeGebken(Variant::kInfeasible);
  IpoptReference::Summary summary;
  SolveReference(
      IpoptReference::Options(), p->problem, {0.5, 0.5}, {}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_FALSE(summary.IsSolutionUsable());
  EXPECT_NE(summary.message.find("Ipopt: Infeasible_Problem_Detected"),
            std::string::npos)
      << summary.message;
  EXPECT_EQ(summary.ipopt_status, 2);
  // The parameter blocks keep the start point.
  EXPECT_EQ(p->z[0], 0.5);
  EXPECT_EQ(p->z[1], 0.5);
}

TEST(IpoptReference, NanAtTheStartIsAFailureNamingTheCostFunction) {
  auto p = MakeGebken(Variant::kNanAtStart);
  IpoptReference::Summary summary;
  SolveReference(
      IpoptReference::Options(), p->problem, {0.5, 0.5}, {}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("nan_objective"), std::string::npos)
      << summary.message;
  EXPECT_EQ(summary.ipopt_status, IpoptReference::Summary::kIpoptNotRun);
}

TEST(IpoptReference, NanDuringTheSolveIsAFailureNamingTheCostFunction) {
  auto p = MakeGebken(Variant::kNanLater);
  IpoptReference::Summary summary;
  SolveReference(
      IpoptReference::Options(), p->problem, {0.5, 0.5}, {}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE) << summary.message;
  EXPECT_NE(summary.message.find("Ipopt: "), std::string::npos)
      << summary.message;
  EXPECT_NE(summary.message.find("nan_objective"), std::string::npos)
      << summary.message;
  EXPECT_EQ(p->z[0], 0.5);
}

// Issue 19: a budget stop at a point that fails the KKT certificate is not
// a usable answer; the message says so and what failed.
TEST(IpoptReference, BudgetTooSmallIsAFailureNamingTheCertificate) {
  auto p = MakeGebken();
  const std::vector<double> z_start(p->z, p->z + 2);
  IpoptReference::Options options;
  options.max_iterations = 2;
  IpoptReference::Summary summary;
  SolveReference(options, p->problem, {0.5, 0.5}, {}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_FALSE(summary.IsSolutionUsable());
  EXPECT_FALSE(summary.certified);
  EXPECT_NE(summary.message.find("Ipopt: Maximum_Iterations_Exceeded"),
            std::string::npos)
      << summary.message;
  EXPECT_NE(summary.message.find("fails the KKT certificate"),
            std::string::npos)
      << summary.message;
  EXPECT_NE(summary.message.find("max_iterations"), std::string::npos)
      << summary.message;
  EXPECT_EQ(summary.iterations, 2);
  // The inexact point is still reported and scored honestly...
  ASSERT_EQ(summary.z.size(), 2);
  EXPECT_GT(summary.kkt.with_least_squares_multipliers.SquaredNorm(), 1e-10);
  // ...but not written back.
  EXPECT_EQ(std::vector<double>(p->z, p->z + 2), z_start);
}

// A budget stop at a point that does pass the certificate stays usable
// (NO_CONVERGENCE): a warm start at the solution with a budget of one
// iteration.
TEST(IpoptReference, BudgetStopAtACertifiedPointIsUsable) {
  auto p = MakeGebken();
  IpoptReference::Options options;
  IpoptReference::Summary exact;
  SolveReference(options, p->problem, {0.5, 0.5}, {}, &exact);
  ASSERT_EQ(exact.termination_type, ceres::CONVERGENCE) << exact.message;
  ASSERT_TRUE(exact.certified);
  options.max_iterations = 0;
  options.initial_rho = exact.final_rho;
  options.initial_omega.assign(exact.omega.data(),
                               exact.omega.data() + exact.omega.size());
  options.initial_nu.assign(exact.nu.data(), exact.nu.data() + exact.nu.size());
  IpoptReference::Summary summary;
  SolveReference(options, p->problem, {0.5, 0.5}, {}, &summary);
  if (summary.termination_type == ceres::CONVERGENCE) {
    GTEST_SKIP() << "Ipopt converged in 0 iterations";
  }
  EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE) << summary.message;
  EXPECT_TRUE(summary.certified);
  EXPECT_NE(summary.message.find("passes the KKT certificate"),
            std::string::npos)
      << summary.message;
}

TEST(IpoptReference, InvalidOptionsNameTheField) {
  auto p = MakeGebken();
  struct Case {
    std::string field;
    IpoptReference::Options options;
  };
  std::vector<Case> cases(6);
  cases[0].field = "IpoptReference::Options::tolerance = -1";
  cases[0].options.tolerance = -1.0;
  cases[1].field = "IpoptReference::Options::max_iterations";
  cases[1].options.max_iterations = -3;
  cases[2].field = "IpoptReference::Options::print_level";
  cases[2].options.print_level = 13;
  cases[3].field = "linear_solver";  // Rejected by Ipopt itself.
  cases[3].options.linear_solver = "no_such_solver";
  cases[4].field = "IpoptReference::Options::initial_omega[1]";
  cases[4].options.initial_omega = {0.5, -0.5};
  cases[5].field = "IpoptReference::Options::initial_nu";
  cases[5].options.initial_omega = {0.5, 0.5};
  cases[5].options.initial_nu = {1.0, 2.0};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field);
    IpoptReference::Summary summary;
    ::testing::internal::CaptureStdout();
    SolveReference(c.options, p->problem, {0.5, 0.5}, {}, &summary);
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find(c.field), std::string::npos)
        << summary.message;
  }
  std::string error;
  IpoptReference::Options options;
  EXPECT_TRUE(options.IsValid(&error)) << error;
  options.tolerance = -1.0;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_EQ(error,
            "Invalid configuration. IpoptReference::Options::tolerance = -1. "
            "Violated constraint: IpoptReference::Options::tolerance > 0");
  EXPECT_EQ(p->z[0], 0.5);
}

TEST(IpoptReference, InvalidInputsAreFailures) {
  auto p = MakeGebken();
  IpoptReference::Summary summary;
  SolveReference(
      IpoptReference::Options(), p->problem, {0.5, 0.6}, {}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("sum"), std::string::npos) << summary.message;

  SolveReference(IpoptReference::Options(), p->problem, {1.0}, {}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);

  SolveReference(
      IpoptReference::Options(), p->problem, {0.5, 0.5}, {1.0}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("offset"), std::string::npos)
      << summary.message;

  ProblemEvaluator evaluator(&p->problem);
  Eigen::VectorXd wrong_size(3);
  wrong_size.setZero();
  SolveReference(IpoptReference::Options(),
                 &evaluator,
                 {0.5, 0.5},
                 {},
                 &wrong_size,
                 &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  SolveReference(IpoptReference::Options(),
                 nullptr,
                 {0.5, 0.5},
                 {},
                 &wrong_size,
                 &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);

  Problem empty;
  SolveReference(IpoptReference::Options(), empty, {1.0}, {}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
}

TEST(IpoptReference, WarmStartFromTheSolutionConvergesQuickly) {
  auto p = MakeGebken();
  IpoptReference::Summary cold;
  SolveReference(
      IpoptReference::Options(), p->problem, {0.45, 0.55}, {}, &cold);
  ASSERT_EQ(cold.termination_type, ceres::CONVERGENCE) << cold.message;

  IpoptReference::Options options;
  options.initial_rho = cold.final_rho;
  options.initial_z = {cold.z[0], cold.z[1]};
  options.initial_omega = {cold.omega[0], cold.omega[1]};
  options.initial_nu = {cold.nu[0]};
  p->z[0] = -3.0;  // Ignored: initial_z wins.
  IpoptReference::Summary warm;
  SolveReference(options, p->problem, {0.45, 0.55}, {}, &warm);
  ExpectWcPoint(warm, BothActive(0.45, 0.55));
  EXPECT_LT(warm.iterations, cold.iterations);
  EXPECT_DOUBLE_EQ(warm.initial_rho, cold.final_rho);
}

TEST(IpoptReference, PrintsNothingAndIgnoresIpoptOptFile) {
  {
    std::ofstream file("ipopt.opt");
    file << "max_iter 1\n";
  }
  auto p = MakeGebken();
  IpoptReference::Summary summary;
  ::testing::internal::CaptureStdout();
  SolveReference(
      IpoptReference::Options(), p->problem, {0.5, 0.5}, {}, &summary);
  const std::string output = ::testing::internal::GetCapturedStdout();
  std::remove("ipopt.opt");
  EXPECT_EQ(output, "");
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_GT(summary.iterations, 1);
}

TEST(IpoptReference, ConcurrentSolvesFromFourThreadsAgree) {
  const std::vector<double> l1 = {0.45, 0.5, 0.55, 0.3};
  std::vector<IpoptReference::Summary> summaries(l1.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < l1.size(); ++i) {
    threads.emplace_back([&, i] {
      // Several solves per thread so that they overlap.
      for (int repeat = 0; repeat < 5; ++repeat) {
        auto p = MakeGebken();
        SolveReference(IpoptReference::Options(),
                       p->problem,
                       {l1[i], 1.0 - l1[i]},
                       {},
                       &summaries[i]);
        if (!summaries[i].IsSolutionUsable()) return;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < l1.size(); ++i) {
    SCOPED_TRACE(l1[i]);
    ExpectWcPoint(summaries[i],
                  l1[i] == 0.3 ? OneActive() : BothActive(l1[i], 1 - l1[i]));
    // And exactly what a serial solve gives.
    auto p = MakeGebken();
    IpoptReference::Summary serial;
    SolveReference(IpoptReference::Options(),
                   p->problem,
                   {l1[i], 1.0 - l1[i]},
                   {},
                   &serial);
    EXPECT_NEAR((serial.z - summaries[i].z).norm(), 0.0, 1e-12);
  }
}

}  // namespace
}  // namespace ecmo
