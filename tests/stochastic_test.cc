// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Stochastic WC-Penalty (the paper's Algorithm 3) on noisy least-squares
// objectives under a noisy linear constraint whose exact WC solution is
// known in closed form: seeds reproduce results exactly, iterates approach
// the solution, and the measured average ||K_t||^2 (exact functions)
// decreases with T at the theorem's rate T^(-1/2) within a stated band.

#include "ecmo/stochastic.h"

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "ceres/autodiff_cost_function.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

constexpr int kK = 3;
constexpr double kSigma = 0.5;   // objective noise
constexpr double kSigmaH = 0.5;  // constraint noise

// f(z; xi) = 1/2 ||z - c - xi||^2, xi ~ N(0, sigma^2 I):
// f(z) = 1/2 ||z - c||^2 + k sigma^2 / 2.
class NoisyDistance final : public SingleSampleFunction {
 public:
  explicit NoisyDistance(const Eigen::Vector3d& c) : c_(c) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(kK);
  }
  bool EvaluateSample(const double* const* parameters,
                      std::mt19937_64* rng,
                      double* values,
                      double** jacobians) const override {
    std::normal_distribution<double> noise(0.0, kSigma);
    double sum = 0.0;
    for (int i = 0; i < kK; ++i) {
      const double d = parameters[0][i] - c_[i] - noise(*rng);
      sum += d * d;
      if (jacobians != nullptr && jacobians[0] != nullptr) jacobians[0][i] = d;
    }
    values[0] = 0.5 * sum;
    return true;
  }
  bool EvaluateExpectation(const double* const* parameters,
                           double* values,
                           double** jacobians) const override {
    double sum = 0.0;
    for (int i = 0; i < kK; ++i) {
      const double d = parameters[0][i] - c_[i];
      sum += d * d;
      if (jacobians != nullptr && jacobians[0] != nullptr) jacobians[0][i] = d;
    }
    values[0] = 0.5 * sum + 0.5 * kK * kSigma * kSigma;
    return true;
  }

 private:
  Eigen::Vector3d c_;
};

// h(z; zeta) = a^T z - b + zeta, zeta ~ N(0, sigma_h^2).
class NoisyPlane final : public SingleSampleFunction {
 public:
  NoisyPlane(const Eigen::Vector3d& a, double b) : a_(a), b_(b) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(kK);
  }
  bool EvaluateSample(const double* const* parameters,
                      std::mt19937_64* rng,
                      double* values,
                      double** jacobians) const override {
    std::normal_distribution<double> noise(0.0, kSigmaH);
    return Exact(parameters, values, jacobians, noise(*rng));
  }
  bool EvaluateExpectation(const double* const* parameters,
                           double* values,
                           double** jacobians) const override {
    return Exact(parameters, values, jacobians, 0.0);
  }

 private:
  bool Exact(const double* const* parameters,
             double* values,
             double** jacobians,
             double zeta) const {
    values[0] =
        a_.dot(Eigen::Map<const Eigen::Vector3d>(parameters[0])) - b_ + zeta;
    if (jacobians != nullptr && jacobians[0] != nullptr) {
      for (int i = 0; i < kK; ++i) jacobians[0][i] = a_[i];
    }
    return true;
  }
  Eigen::Vector3d a_;
  double b_;
};

const Eigen::Vector3d kC1(2.0, 0.0, 0.0), kC2(0.0, 2.0, 0.0), kA(1.0, 1.0, 1.0);
const double kB = 1.0;

// The exact WC solution for preference (l1, 1 - l1), no offset. On the
// plane a^T z = b, f_s(z) = 1/2 ||z - p_s||^2 + e_s with p_s the projection
// of c_s (a linear system) and e_s = 1/2 dist(c_s, plane)^2 + k sigma^2/2;
// the Pareto set is the segment p_1 p_2 and the WC point balances
// l1 f_1 = l2 f_2 on it (bisection in the segment parameter).
Eigen::Vector3d ExactSolution(double l1) {
  auto project = [](const Eigen::Vector3d& c) {
    Eigen::Matrix4d M = Eigen::Matrix4d::Zero();
    M.topLeftCorner<3, 3>() = Eigen::Matrix3d::Identity();
    M.block<3, 1>(0, 3) = kA;
    M.block<1, 3>(3, 0) = kA.transpose();
    Eigen::Vector4d rhs;
    rhs << c, kB;
    return Eigen::Vector3d(M.fullPivLu().solve(rhs).head<3>());
  };
  const Eigen::Vector3d p1 = project(kC1), p2 = project(kC2);
  auto f = [&](const Eigen::Vector3d& z, const Eigen::Vector3d& c) {
    return 0.5 * (z - c).squaredNorm() + 0.5 * kK * kSigma * kSigma;
  };
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    const Eigen::Vector3d z = p1 + mid * (p2 - p1);
    (l1 * f(z, kC1) - (1 - l1) * f(z, kC2) < 0.0 ? lo : hi) = mid;
  }
  return p1 + 0.5 * (lo + hi) * (p2 - p1);
}

struct NoisyRun {
  StochasticSolver::Summary summary;
  Eigen::Vector3d z;
};

struct Sq {
  explicit Sq(double d) : d(d) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - d) * (z[0] - d);
    return true;
  }
  double d;
};

NoisyRun SolveNoisy(const StochasticSolver::Options& options, double l1) {
  NoisyRun run;
  run.z.setZero();
  StochasticProblem problem;
  problem.AddObjective(new NoisyDistance(kC1), {run.z.data()}, "f1");
  problem.AddObjective(new NoisyDistance(kC2), {run.z.data()}, "f2");
  problem.AddConstraint(new NoisyPlane(kA, kB), {run.z.data()}, "plane");
  ecmo::Solve(options, problem, {l1, 1.0 - l1}, &run.summary);
  return run;
}

TEST(Stochastic, TheoremScheduleIsTheDefault) {
  StochasticSolver::Options options;
  options.max_iterations = 256;
  // B = T^(5/4) = 1024, the same at every t.
  EXPECT_EQ(options.ObjectiveBatchSize(0), 1024);
  EXPECT_EQ(options.ObjectiveBatchSize(255), 1024);
  EXPECT_EQ(options.ConstraintBatchSize(100), 1024);
  options.objective_batch_size = 7;
  EXPECT_EQ(options.ObjectiveBatchSize(3), 7);
  options.batch_size_schedule = [](int t, int) { return t + 1; };
  EXPECT_EQ(options.ObjectiveBatchSize(3), 4);
  EXPECT_EQ(options.ConstraintBatchSize(9), 10);
}

TEST(Stochastic, IdenticalSeedsGiveIdenticalResults) {
  StochasticSolver::Options options;
  options.max_iterations = 200;
  options.seed = 42;
  const NoisyRun a = SolveNoisy(options, 0.4);
  const NoisyRun b = SolveNoisy(options, 0.4);
  ASSERT_TRUE(a.summary.IsSolutionUsable()) << a.summary.message;
  EXPECT_EQ(a.z, b.z);  // bitwise
  EXPECT_EQ(a.summary.average_kkt_residual_sq,
            b.summary.average_kkt_residual_sq);
  EXPECT_EQ(a.summary.samples_drawn, b.summary.samples_drawn);
  // T = 200: B = ceil(200^1.25) = 753 per objective and constraint.
  EXPECT_EQ(a.summary.samples_drawn, 200LL * 753 * 3);
  options.seed = 43;
  const NoisyRun c = SolveNoisy(options, 0.4);
  EXPECT_NE(a.z, c.z);
}

TEST(Stochastic, IteratesApproachTheExactSolution) {
  const double l1 = 0.4;
  const Eigen::Vector3d z_star = ExactSolution(l1);
  StochasticSolver::Options options;
  options.max_iterations = 2000;
  options.eta0 = 0.05;
  options.c0 = 4.0;
  options.batch_size_factor = 0.05;
  options.seed = 3;
  const NoisyRun run = SolveNoisy(options, l1);
  ASSERT_TRUE(run.summary.IsSolutionUsable()) << run.summary.message;
  ASSERT_TRUE(run.summary.has_exact_kkt);
  // The penalty minimizer is O(1/u) from the WC point.
  EXPECT_LT((run.z - z_star).norm(), 0.05) << run.summary.FullReport();
  EXPECT_LT(run.summary.constraint_norm, 0.05);
  EXPECT_LT(run.summary.kkt.with_least_squares_multipliers.SquaredNorm(), 1e-3);
  // The start is 1.6 from the solution.
  EXPECT_GT(z_star.norm(), 1.0);
}

TEST(Stochastic, AverageKktDecreasesAtTheTheoremsRate) {
  // The theorem: avg ||K_t||^2 = O(T^(-1/2)) with B = Theta(T^(5/4)).
  // Measured over 3 seeds at T = 64, 256, 1024 (4x steps): the fitted
  // log-log slope must lie in [-0.8, -0.35] and every 4x step must divide
  // the mean average by at least 1.5 (the rate predicts 2).
  const std::vector<int> budgets = {64, 256, 1024};
  std::vector<double> means;
  for (int T : budgets) {
    double sum = 0.0;
    for (uint64_t seed : {1, 2, 3}) {
      StochasticSolver::Options options;
      options.max_iterations = T;
      options.seed = seed;
      options.eta0 = 0.05;
      options.batch_size_factor = 0.5;
      const NoisyRun run = SolveNoisy(options, 0.4);
      EXPECT_TRUE(run.summary.IsSolutionUsable()) << run.summary.message;
      sum += run.summary.average_kkt_residual_sq;
    }
    means.push_back(sum / 3.0);
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const int n = static_cast<int>(budgets.size());
  for (int i = 0; i < n; ++i) {
    const double x = std::log(budgets[i]), y = std::log(means[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  EXPECT_GE(slope, -0.8) << means[0] << " " << means[1] << " " << means[2];
  EXPECT_LE(slope, -0.35) << means[0] << " " << means[1] << " " << means[2];
  for (int i = 1; i < n; ++i) EXPECT_GT(means[i - 1] / means[i], 1.5);
}

TEST(Stochastic, FiniteSumAndErrors) {
  // A finite data set: f(z) = 1/N sum_n (z - d_n)^2 has the exact mean.
  auto* data = new FiniteSumFunction;
  for (double d : {1.0, 2.0, 6.0}) {
    ASSERT_TRUE(
        data->AddSample(new ceres::AutoDiffCostFunction<Sq, 1, 1>(new Sq(d))));
  }
  // A sample of another shape is refused.
  EXPECT_FALSE(
      data->AddSample(new ceres::AutoDiffCostFunction<Sq, 1, 2>(new Sq(1.0))));
  EXPECT_EQ(data->NumSamples(), 3);
  double z = 0.0;
  const double* parameters[1] = {&z};
  double value, gradient;
  double* jacobians[1] = {&gradient};
  ASSERT_TRUE(data->EvaluateExpectation(parameters, &value, jacobians));
  EXPECT_NEAR(value, (1.0 + 4.0 + 36.0) / 3.0, 1e-14);
  EXPECT_NEAR(gradient, -2.0 * 3.0, 1e-14);

  StochasticProblem problem;
  problem.AddObjective(data, {&z});
  z = 2.0;
  StochasticSolver::Options options;
  options.eta0 = 0.05;
  // The theorem's batch size (T^(5/4) = 5624): the same-batch product
  // f(z; B) grad f(z; B) is biased by O(v / B), which a small fixed batch
  // does not make negligible (batch 64 stops near z = 3.45 here).
  options.max_iterations = 1000;
  StochasticSolver::Summary summary;
  ecmo::Solve(options, problem, {1.0}, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
  EXPECT_TRUE(summary.has_exact_kkt);
  EXPECT_NEAR(z, 3.0, 0.05) << summary.FullReport();
  EXPECT_EQ(summary.objective_samples, 1000 * 5624);

  // Errors: options, preference, offsets, problem.
  std::string error;
  StochasticSolver::Options bad;
  bad.eta0 = -1.0;
  EXPECT_FALSE(bad.IsValid(&error));
  EXPECT_NE(error.find("eta0"), std::string::npos);
  bad = StochasticSolver::Options();
  bad.max_iterations = 100000000;
  EXPECT_FALSE(bad.IsValid(&error));
  EXPECT_NE(error.find("2^31 - 1"), std::string::npos) << error;
  ecmo::Solve(options, problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("preference"), std::string::npos);
  StochasticProblem empty;
  ecmo::Solve(options, empty, {1.0}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("no objectives"), std::string::npos);
  StochasticProblem wrong;
  double w[3] = {0, 0, 0};
  EXPECT_EQ(wrong.AddObjective(new NoisyPlane(kA, kB), {w, w}), -1);
  EXPECT_FALSE(wrong.IsValid(&error));
  EXPECT_NE(error.find("takes 1 parameter blocks but 2"), std::string::npos)
      << error;
}

// Options::exact and the Problem* overload are the legacy trailing `exact`
// argument in Ceres' shape: the same seed gives the same run either way.
TEST(Stochastic, ExactInOptionsEqualsTheLegacyArgument) {
  auto run = [](bool legacy, StochasticSolver::Summary* summary) {
    auto* data = new FiniteSumFunction;
    for (double d : {1.0, 2.0, 6.0}) {
      data->AddSample(new ceres::AutoDiffCostFunction<Sq, 1, 1>(new Sq(d)));
    }
    double z = 2.0;
    StochasticProblem problem;
    problem.AddObjective(data, {&z});
    std::unique_ptr<Evaluator> exact = problem.MakeExpectationEvaluator();
    StochasticSolver::Options options;
    options.eta0 = 0.05;
    options.max_iterations = 50;
    options.objective_batch_size = 8;
    options.seed = 7;
    if (legacy) {
      ecmo::Solve(options, problem, {1.0}, summary, exact.get());
    } else {
      options.exact = exact.get();
      ecmo::Solve(options, &problem, {1.0}, summary);
    }
    return z;
  };
  StochasticSolver::Summary legacy, current;
  const double z_legacy = run(true, &legacy);
  const double z_current = run(false, &current);
  ASSERT_TRUE(current.IsSolutionUsable()) << current.message;
  EXPECT_EQ(z_legacy, z_current);
  EXPECT_EQ(legacy.final_rho, current.final_rho);
  EXPECT_TRUE(current.has_exact_kkt);
  EXPECT_GT(current.evaluations.gradient_evaluations, 0);
  EXPECT_EQ(current.constraint_max_norm, 0.0);  // no constraints

  StochasticSolver::Summary null_problem;
  ecmo::Solve(StochasticSolver::Options(), nullptr, {1.0}, &null_problem);
  EXPECT_EQ(null_problem.termination_type, ceres::FAILURE);
  EXPECT_NE(null_problem.message.find("null"), std::string::npos);
}

// Bounds: Algorithm 3 with every iterate projected onto the box. The bound
// z_0 <= ub cuts the unbounded WC point off; the reference is the default
// strategy, deterministic and certified, on the exact expectations with the
// same bound (the expectation evaluator carries it).
TEST(Stochastic, BoundsProjectEveryIterateAndMatchTheDeterministicPoint) {
  const double l1 = 0.4;
  const double ub = ExactSolution(l1)[0] - 0.3;
  Eigen::Vector3d z = Eigen::Vector3d::Zero();
  StochasticProblem problem;
  problem.AddObjective(new NoisyDistance(kC1), {z.data()}, "f1");
  problem.AddObjective(new NoisyDistance(kC2), {z.data()}, "f2");
  problem.AddConstraint(new NoisyPlane(kA, kB), {z.data()}, "plane");
  ASSERT_TRUE(problem.SetParameterUpperBound(z.data(), 0, ub));
  ASSERT_TRUE(problem.HasBounds());
  std::unique_ptr<Evaluator> exact = problem.MakeExpectationEvaluator();
  ASSERT_NE(exact, nullptr);
  ASSERT_TRUE(exact->HasBounds());
  EXPECT_EQ(exact->upper_bounds()[0], ub);

  Solver::Options reference_options;
  reference_options.objective_offset = {0.0, 0.0};  // r = 0, as Algorithm 3
  Eigen::VectorXd z_ref = Eigen::VectorXd::Zero(3);
  Solver::Summary reference;
  ecmo::Solve(
      reference_options, exact.get(), {l1, 1.0 - l1}, &z_ref, &reference);
  ASSERT_TRUE(reference.IsCertified(reference_options)) << reference.message;
  ASSERT_NEAR(z_ref[0], ub, 1e-9);  // the bound is active
  const double z_l_ref = reference.kkt.least_squares_multipliers.bound_upper[0];
  ASSERT_GT(z_l_ref, 0.1);

  StochasticSolver::Options options;
  options.max_iterations = 2000;
  options.eta0 = 0.05;
  options.c0 = 4.0;
  options.batch_size_factor = 0.05;
  options.seed = 3;
  StochasticSolver::Summary summary;
  ecmo::Solve(options, problem, {l1, 1.0 - l1}, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
  ASSERT_TRUE(summary.has_exact_kkt);
  // Projected onto the box, so on the bound, not past it.
  EXPECT_LE(summary.z[0], ub);
  EXPECT_NEAR(summary.z[0], ub, 1e-12);
  // The penalty minimizer is O(1/u) from the WC point, as without bounds.
  EXPECT_LT((summary.z - z_ref).norm(), 0.05) << summary.FullReport();
  const double z_l = summary.kkt.least_squares_multipliers.bound_upper[0];
  EXPECT_NEAR(z_l, z_l_ref, 0.2 * z_l_ref);
  EXPECT_LT(summary.kkt.with_least_squares_multipliers.SquaredNorm(), 1e-3);
}

TEST(Stochastic, BadBoundsAreRefusedWithMessages) {
  double z[3] = {0.0, 0.0, 0.0};
  double other = 0.0;
  std::string error;
  {
    StochasticProblem problem;
    problem.AddObjective(new NoisyDistance(kC1), {z}, "f1");
    EXPECT_FALSE(problem.SetParameterLowerBound(&other, 0, 0.0));
    EXPECT_FALSE(problem.IsValid(&error));
    EXPECT_NE(error.find("StochasticProblem::SetParameterLowerBound: "
                         "parameter block not found"),
              std::string::npos)
        << error;
  }
  {
    StochasticProblem problem;
    problem.AddObjective(new NoisyDistance(kC1), {z}, "f1");
    EXPECT_FALSE(problem.SetParameterUpperBound(z, 3, 1.0));
    EXPECT_FALSE(problem.IsValid(&error));
    EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  }
  {
    StochasticProblem problem;
    problem.AddObjective(new NoisyDistance(kC1), {z}, "f1");
    EXPECT_FALSE(problem.SetParameterUpperBound(z, 1, std::nan("")));
    EXPECT_FALSE(problem.IsValid(&error));
    EXPECT_NE(error.find("NaN"), std::string::npos) << error;
  }
  {
    StochasticProblem problem;
    problem.AddObjective(new NoisyDistance(kC1), {z}, "f1");
    EXPECT_TRUE(problem.SetParameterLowerBound(z, 2, 1.0));
    EXPECT_TRUE(problem.SetParameterUpperBound(z, 2, 0.0));
    EXPECT_FALSE(problem.IsValid(&error));
    EXPECT_NE(error.find("above its upper bound"), std::string::npos) << error;
    StochasticSolver::Summary summary;
    ecmo::Solve(StochasticSolver::Options(), problem, {1.0}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("above its upper bound"), std::string::npos)
        << summary.message;
  }
  {
    // Ceres' +-max() means no bound, as in ecmo::Problem.
    StochasticProblem problem;
    problem.AddObjective(new NoisyDistance(kC1), {z}, "f1");
    EXPECT_TRUE(problem.SetParameterLowerBound(
        z, 0, -std::numeric_limits<double>::max()));
    EXPECT_FALSE(problem.HasBounds());
  }
  {
    // An exact evaluator of the unbounded problem does not score the
    // bounded one.
    StochasticProblem unbounded;
    unbounded.AddObjective(new NoisyDistance(kC1), {z}, "f1");
    std::unique_ptr<Evaluator> exact = unbounded.MakeExpectationEvaluator();
    ASSERT_NE(exact, nullptr);
    double w[3] = {0.0, 0.0, 0.0};
    StochasticProblem bounded;
    bounded.AddObjective(new NoisyDistance(kC1), {w}, "f1");
    ASSERT_TRUE(bounded.SetParameterUpperBound(w, 0, 1.0));
    StochasticSolver::Options options;
    options.max_iterations = 10;
    options.exact = exact.get();
    StochasticSolver::Summary summary;
    ecmo::Solve(options, &bounded, {1.0}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("bounds differ"), std::string::npos)
        << summary.message;
  }
}

}  // namespace
}  // namespace ecmo
