// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Verifies every problem of single_objective_problems.h: at the listed
// optimum the constraints vanish, the objective equals f*, and the point is
// a KKT point (least-squares multipliers); and the Ipopt reference reaches
// f* from the collection's start point.

#include "single_objective_problems.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "ecmo/evaluator.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/kkt.h"
#include "ecmo/problem.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace testing {

// gtest names failing cases by this instead of a byte dump.
void PrintTo(const SingleObjectiveProblem& p, std::ostream* os) {
  *os << p.name;
}

}  // namespace testing

namespace {

using testing::SingleObjectiveProblem;
using testing::SingleObjectiveProblems;

class SingleObjective
    : public ::testing::TestWithParam<SingleObjectiveProblem> {};

// f(z) and h(z) of a freshly built problem.
void EvaluateAt(const SingleObjectiveProblem& p,
                const std::vector<double>& at,
                double* f,
                Eigen::VectorXd* h) {
  std::vector<double> z = at;
  Problem problem;
  p.build(z.data(), &problem);
  ProblemEvaluator evaluator(&problem);
  h->resize(p.num_constraints);
  std::string error;
  ASSERT_TRUE(evaluator.Evaluate(z.data(), f, h->data(), nullptr, &error))
      << error;
}

TEST_P(SingleObjective, BuildsAValidProblemOfTheDeclaredSize) {
  const SingleObjectiveProblem& p = GetParam();
  ASSERT_EQ(static_cast<int>(p.start.size()), p.num_parameters);
  ASSERT_EQ(static_cast<int>(p.optimum.size()), p.num_parameters);
  EXPECT_LT(p.optimal_value, 0.0);
  std::vector<double> z = p.start;
  Problem problem;
  p.build(z.data(), &problem);
  std::string error;
  ASSERT_TRUE(problem.IsValid(&error)) << error;
  EXPECT_EQ(problem.NumObjectives(), 1);
  EXPECT_EQ(problem.NumParameters(), p.num_parameters);
  EXPECT_EQ(problem.NumConstraints(), p.num_constraints);
}

// The constraints and the objective at z*, to the accuracy of z*.
TEST_P(SingleObjective, OptimumIsFeasibleWithTheKnownValue) {
  const SingleObjectiveProblem& p = GetParam();
  double f = 0.0;
  Eigen::VectorXd h;
  EvaluateAt(p, p.optimum, &f, &h);
  // First-order error of a point known to `precision`, with the size of
  // the derivatives at these optima (< 100 for every problem here).
  const double tolerance = 100.0 * p.precision;
  EXPECT_LE(h.lpNorm<Eigen::Infinity>(), tolerance) << h.transpose();
  EXPECT_NEAR(f, p.optimal_value,
              tolerance * std::max(1.0, std::abs(p.optimal_value)));
}

// With one objective, lambda = (1) and an offset making f + offset > 0, the
// WC problem is min rho s.t. f + offset <= rho, h = 0, whose KKT points with
// rho = f + offset are exactly those of min f s.t. h = 0 (omega = 1).
TEST_P(SingleObjective, OptimumIsAKktPoint) {
  const SingleObjectiveProblem& p = GetParam();
  std::vector<double> z = p.optimum;
  Problem problem;
  p.build(z.data(), &problem);
  ProblemEvaluator evaluator(&problem);
  const Eigen::VectorXd lambda = Eigen::VectorXd::Ones(1);
  const Eigen::VectorXd offset =
      Eigen::VectorXd::Constant(1, 1.0 - p.optimal_value + 1.0);
  double f = 0.0;
  Eigen::VectorXd h(p.num_constraints);
  std::string error;
  ASSERT_TRUE(evaluator.Evaluate(z.data(), &f, h.data(), nullptr, &error))
      << error;
  const double rho = f + offset[0];
  ASSERT_GT(rho, 0.0);
  KktSystem system;
  const Eigen::VectorXd z_vector =
      Eigen::Map<const Eigen::VectorXd>(z.data(), p.num_parameters);
  ASSERT_TRUE(
      system.Linearize(&evaluator, lambda, offset, rho, z_vector, &error))
      << error;
  const KktMultipliers multipliers = system.LeastSquaresMultipliers();
  const KktResidual residual = system.Residual(multipliers);
  // ||K|| is first order in the error of z*, as above.
  const double tolerance = 100.0 * p.precision;
  EXPECT_NEAR(multipliers.omega[0], 1.0, std::max(1e-12, tolerance));
  EXPECT_LE(residual.SquaredNorm(), tolerance * tolerance)
      << "stationarity " << residual.stationarity.transpose();
}

// The Ipopt reference (independent of every strategy) from the start point.
TEST_P(SingleObjective, IpoptReachesTheOptimalValueFromTheStartPoint) {
  const SingleObjectiveProblem& p = GetParam();
  std::vector<double> z = p.start;
  Problem problem;
  p.build(z.data(), &problem);
  double f0 = 0.0;
  Eigen::VectorXd h;
  EvaluateAt(p, p.start, &f0, &h);
  // Ipopt does not need it, but the WC problem is stated for positive
  // shifted objectives: >= 1 at the start and at the optimum.
  const double offset = 1.0 + std::max(0.0, -std::min(f0, p.optimal_value));
  IpoptReference::Summary summary;
  SolveReference(IpoptReference::Options(), problem, {1.0}, {offset},
                 &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
      << summary.FullReport();
  ASSERT_EQ(summary.objectives.size(), 1);
  EXPECT_NEAR(summary.objectives[0], p.optimal_value,
              std::max(1e-6 * std::abs(p.optimal_value), 10.0 * p.precision))
      << summary.FullReport();
  EXPECT_LE(summary.constraint_norm, 1e-8);
  // The solution lands on the listed minimizer (several problems have
  // others: HS 9 every (12k - 3, 16k - 4), HS 40 a sign flip of z3, z4).
  double distance = 0.0;
  for (int i = 0; i < p.num_parameters; ++i) {
    distance = std::max(distance, std::abs(summary.z[i] - p.optimum[i]));
  }
  EXPECT_LE(distance, std::max(1e-4, 100.0 * p.precision))
      << summary.FullReport();
}

INSTANTIATE_TEST_SUITE_P(
    All,
    SingleObjective,
    ::testing::ValuesIn(SingleObjectiveProblems()),
    [](const ::testing::TestParamInfo<SingleObjectiveProblem>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace ecmo
