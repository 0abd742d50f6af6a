// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Determinism: the same inputs (and seed, and thread count) give
// bit-identical results; different thread counts give the same Pareto points
// within a stated tolerance.
//
//   * Every strategy of ecmo::Solve, run twice from the same start, gives
//     bit-identical z, rho, objectives, ||K||^2 (both multiplier choices),
//     iteration and evaluation counts.
//   * The stochastic solver with the same seed is bit-identical; another seed
//     gives another trajectory.
//   * Linear scalarization is bit-identical.
//   * ParetoSweep with cold starts (warm_start = false): every point is
//     solved from the problem's start point on its own instance, so its
//     result does not depend on the scheduling: 1 thread and 2 threads give
//     BIT-IDENTICAL per-point results (and 2 threads twice as well).
//   * ParetoSweep with warm starts: which finished neighbour starts a point
//     depends on the thread count, so 1 and 2 threads agree only within the
//     solver's accuracy: |z_1 - z_2|_inf <= kWarmStartTolerance = 1e-4 (the
//     KKT tolerance 1e-12 on ||K||^2 bounds the distance to the WC solution
//     by about sqrt(1e-12) / sigma, sigma the curvature, here >= 0.01).
//     2 threads twice agree within the same tolerance (the chunk hand-off
//     between idle threads depends on timing).

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/linear_scalarization.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "ecmo/stochastic.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

constexpr double kWarmStartTolerance = 1e-4;

void ExpectBitIdentical(const Eigen::VectorXd& a,
                        const Eigen::VectorXd& b,
                        const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (int i = 0; i < a.size(); ++i) {
    // EXPECT_EQ on doubles is exact (bitwise for non-NaN values).
    EXPECT_EQ(a[i], b[i]) << what << "[" << i << "]";
  }
}

void ExpectSameSummary(const Solver::Summary& a, const Solver::Summary& b) {
  EXPECT_EQ(a.termination_type, b.termination_type);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.iterations, b.iterations);
  ExpectBitIdentical(a.z, b.z, "z");
  ExpectBitIdentical(a.objectives, b.objectives, "objectives");
  EXPECT_EQ(a.final_rho, b.final_rho);
  EXPECT_EQ(a.kkt.with_solver_multipliers.SquaredNorm(),
            b.kkt.with_solver_multipliers.SquaredNorm());
  EXPECT_EQ(a.kkt.with_least_squares_multipliers.SquaredNorm(),
            b.kkt.with_least_squares_multipliers.SquaredNorm());
  EXPECT_EQ(a.evaluations.value_evaluations, b.evaluations.value_evaluations);
  EXPECT_EQ(a.evaluations.gradient_evaluations,
            b.evaluations.gradient_evaluations);
  EXPECT_EQ(a.evaluations.jacobian_transpose_products,
            b.evaluations.jacobian_transpose_products);
  EXPECT_EQ(a.evaluations.jacobian_products, b.evaluations.jacobian_products);
}

TEST(Determinism, EveryStrategyTwiceIsBitIdentical) {
  for (const StrategyType strategy : {StrategyType::WC_AUGMENTED_LAGRANGIAN,
                                      StrategyType::WC_PENALTY_LBFGS,
                                      StrategyType::WC_PENALTY_PGD}) {
    SCOPED_TRACE(StrategyTypeToString(strategy));
    Solver::Summary runs[2];
    for (Solver::Summary& summary : runs) {
      double z[2] = {0.3, 0.2};
      Problem problem;
      testing::BuildGebken(z, &problem);
      Solver::Options options;
      options.strategy = strategy;
      options.max_iterations = 3000;
      Solve(options, problem, {0.3, 0.7}, &summary);
    }
    ASSERT_TRUE(runs[0].IsSolutionUsable()) << runs[0].message;
    ExpectSameSummary(runs[0], runs[1]);
  }
}

TEST(Determinism, EveryRegistryProblemTwiceIsBitIdentical) {
  for (const char* name :
       {"gebken_circle", "convex_line", "mtbl_example_iii"}) {
    SCOPED_TRACE(name);
    const problems::ProblemInfo* info = problems::Find(name);
    ASSERT_NE(info, nullptr);
    Solver::Summary runs[2];
    for (Solver::Summary& summary : runs) {
      auto instance = info->build();
      Solver::Options options;
      options.objective_offset = info->objective_offset;
      std::vector<double> preference(info->num_objectives,
                                     1.0 / info->num_objectives);
      Solve(options, instance->problem, preference, &summary);
    }
    ExpectSameSummary(runs[0], runs[1]);
  }
}

// phi(z; xi) = (z - xi)^2 with xi ~ N(1, 0.5^2).
struct Noisy final : public SingleSampleFunction {
  Noisy() {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(1);
  }
  bool EvaluateSample(const double* const* p,
                      std::mt19937_64* rng,
                      double* values,
                      double** jacobians) const override {
    std::normal_distribution<double> xi(1.0, 0.5);
    const double d = p[0][0] - xi(*rng);
    values[0] = 1.0 + d * d;
    if (jacobians != nullptr && jacobians[0] != nullptr) {
      jacobians[0][0] = 2.0 * d;
    }
    return true;
  }
};

StochasticSolver::Summary RunStochastic(uint64_t seed) {
  double z = 3.0;
  StochasticProblem problem;
  problem.AddObjective(new Noisy, {&z}, "noisy");
  StochasticSolver::Options options;
  options.max_iterations = 300;
  options.objective_batch_size = 8;
  options.eta0 = 0.1;
  options.seed = seed;
  StochasticSolver::Summary summary;
  ecmo::Solve(options, problem, {1.0}, &summary);
  return summary;
}

TEST(Determinism, StochasticSameSeedIsBitIdentical) {
  const StochasticSolver::Summary a = RunStochastic(42);
  const StochasticSolver::Summary b = RunStochastic(42);
  const StochasticSolver::Summary c = RunStochastic(43);
  ASSERT_TRUE(a.IsSolutionUsable()) << a.message;
  EXPECT_EQ(a.termination_type, b.termination_type);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.samples_drawn, b.samples_drawn);
  ExpectBitIdentical(a.z, b.z, "z");
  ExpectBitIdentical(a.objectives, b.objectives, "objectives");
  ExpectBitIdentical(a.delta, b.delta, "delta");
  EXPECT_EQ(a.final_rho, b.final_rho);
  // Another seed: another trajectory (the samples differ).
  EXPECT_NE(a.z[0], c.z[0]);
}

struct Distance {
  explicit Distance(double c) : c(c) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - c) * (z[0] - c) + (z[1] + c) * (z[1] + c);
    return true;
  }
  double c;
};

TEST(Determinism, LinearScalarizationTwiceIsBitIdentical) {
  LinearScalarizationSummary runs[2];
  for (LinearScalarizationSummary& summary : runs) {
    double z[2] = {0.3, -0.2};
    Problem problem;
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<Distance, 1, 2>(new Distance(1.0)),
        {z});
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<Distance, 1, 2>(new Distance(-1.0)),
        {z});
    LinearScalarizationOptions options;
    options.max_iterations = 200;
    SolveLinearScalarization(options, problem, {0.3, 0.7}, &summary);
  }
  ASSERT_TRUE(runs[0].IsSolutionUsable()) << runs[0].message;
  ExpectBitIdentical(runs[0].z, runs[1].z, "z");
  EXPECT_EQ(runs[0].kkt_residual_sq, runs[1].kkt_residual_sq);
  EXPECT_EQ(runs[0].evaluations.gradient_evaluations,
            runs[1].evaluations.gradient_evaluations);
}

ParetoSweep::Summary RunSweep(int num_threads, bool warm_start) {
  const problems::ProblemInfo* info = problems::Find("gebken_circle");
  ParetoSweep::Options options;
  options.num_threads = num_threads;
  options.warm_start = warm_start;
  options.solver.objective_offset = info->objective_offset;
  options.solver.record_history = false;
  ParetoSweep::Summary summary;
  Sweep(options, MakeProblemFactory(info->build), DasDennis(2, 16), &summary);
  return summary;
}

TEST(Determinism, ColdStartSweepIsBitIdenticalForAnyThreadCount) {
  const ParetoSweep::Summary one = RunSweep(1, /*warm_start=*/false);
  const ParetoSweep::Summary two = RunSweep(2, /*warm_start=*/false);
  const ParetoSweep::Summary again = RunSweep(2, /*warm_start=*/false);
  // 17 preferences, then the points that refinement (by default where the
  // front has holes) adds: the same ones for any thread count.
  ASSERT_GT(one.points.size(), 17u);
  ASSERT_EQ(two.points.size(), one.points.size());
  ASSERT_EQ(again.points.size(), one.points.size());
  for (size_t i = 0; i < one.points.size(); ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    ASSERT_TRUE(one.points[i].summary.IsSolutionUsable())
        << one.points[i].summary.message;
    EXPECT_EQ(one.points[i].warm_start_from, -1);
    EXPECT_EQ(two.points[i].warm_start_from, -1);
    ExpectSameSummary(one.points[i].summary, two.points[i].summary);
    ExpectSameSummary(two.points[i].summary, again.points[i].summary);
  }
  EXPECT_EQ(one.hypervolume, two.hypervolume);
}

TEST(Determinism, WarmStartSweepAgreesAcrossThreadCountsWithinTolerance) {
  const ParetoSweep::Summary one = RunSweep(1, /*warm_start=*/true);
  const ParetoSweep::Summary two = RunSweep(2, /*warm_start=*/true);
  const ParetoSweep::Summary again = RunSweep(2, /*warm_start=*/true);
  // 17 preferences, then the points that refinement (by default where the
  // front has holes) adds: the same ones for any thread count.
  ASSERT_GT(one.points.size(), 17u);
  ASSERT_EQ(two.points.size(), one.points.size());
  ASSERT_EQ(again.points.size(), one.points.size());
  for (size_t i = 0; i < one.points.size(); ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    const Solver::Summary& a = one.points[i].summary;
    const Solver::Summary& b = two.points[i].summary;
    const Solver::Summary& c = again.points[i].summary;
    ASSERT_TRUE(a.IsSolutionUsable()) << a.message;
    ASSERT_TRUE(b.IsSolutionUsable()) << b.message;
    ASSERT_TRUE(c.IsSolutionUsable()) << c.message;
    EXPECT_LE((a.z - b.z).lpNorm<Eigen::Infinity>(), kWarmStartTolerance)
        << a.BriefReport() << " " << a.message << "\n"
        << b.BriefReport() << " " << b.message << "\n"
        << a.z.transpose() << " | " << b.z.transpose() << ", preferences "
        << a.preference[0] << " | " << b.preference[0] << ", from "
        << one.points[i].warm_start_from << " | "
        << two.points[i].warm_start_from;
    EXPECT_LE((b.z - c.z).lpNorm<Eigen::Infinity>(), kWarmStartTolerance)
        << "preferences " << b.preference[0] << " | " << c.preference[0]
        << ", from "
        << two.points[i].warm_start_from << " | "
        << again.points[i].warm_start_from << ", z " << b.z.transpose()
        << " | " << c.z.transpose();
    EXPECT_LE((a.objectives - b.objectives).lpNorm<Eigen::Infinity>(),
              kWarmStartTolerance);
  }
}

}  // namespace
}  // namespace ecmo
