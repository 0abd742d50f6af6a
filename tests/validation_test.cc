// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Bad input and numerical trouble across the entry points that the other
// test files do not cover: NaN / Inf from a cost function in the middle of a
// quasi-Newton solve, infeasible constraints, objectives so large that the
// penalties overflow, the linear-scalarization and stochastic solvers
// (manifolds, NaN, options), the Ipopt reference on the same troubles, and
// the command-line tools (ecmo_solve --preferences, ecmo_plot inputs).
// The table of every bad-input case the suite covers is tests/README.md.

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ceres/manifold.h"
#include "ceres/sphere_manifold.h"
#include "command_runner.h"
#include "ecmo/evaluator.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/linear_scalarization.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "ecmo/stochastic.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

constexpr StrategyType kAllStrategies[] = {
    StrategyType::WC_AUGMENTED_LAGRANGIAN,
    StrategyType::WC_PENALTY_LBFGS,
    StrategyType::WC_PENALTY_PGD,
    StrategyType::WC_SQP};

// A CONVERGENCE (or any usable) summary must hold finite numbers only. The
// one exception is the raw ||K||^2 of objectives so large that its squares
// overflow (beyond 1e150): the message must then say so, and the point is
// not CONVERGENCE; nor is it when the certificate (relative blocks whose
// terms may overflow too) is not finite.
void ExpectFiniteIfUsable(const Solver::Summary& summary) {
  if (!summary.IsSolutionUsable()) return;
  EXPECT_TRUE(summary.z.allFinite()) << summary.FullReport();
  EXPECT_TRUE(summary.objectives.allFinite()) << summary.FullReport();
  EXPECT_TRUE(std::isfinite(summary.final_rho)) << summary.FullReport();
  if (summary.objectives.cwiseAbs().maxCoeff() > 1e150 &&
      summary.kkt.has_certificates) {
    const KktCertificate& c =
        summary.kkt.certificate_with_least_squares_multipliers;
    if (!(std::isfinite(c.stationarity) && std::isfinite(c.simplex))) {
      EXPECT_NE(summary.termination_type, ceres::CONVERGENCE)
          << summary.FullReport();
    }
    if (!std::isfinite(summary.kkt.with_solver_multipliers.SquaredNorm()) &&
        !std::isfinite(
            summary.kkt.with_least_squares_multipliers.SquaredNorm())) {
      EXPECT_NE(summary.message.find("overflows"), std::string::npos)
          << summary.message;
      EXPECT_NE(summary.termination_type, ceres::CONVERGENCE);
    }
    return;
  }
  EXPECT_TRUE(std::isfinite(summary.kkt.with_solver_multipliers.SquaredNorm()))
      << summary.FullReport();
}

// f = 3 - 2 z0 + z1^2: pulls z0 to the right, across the NaN / Inf boundary
// of the other objective.
struct PullRight {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = 3.0 - 2.0 * z[0] + z[1] * z[1];
    return true;
  }
};

// f = 1 + ||z||^2, but +Inf for z0 > threshold.
class InfAbove final : public ceres::SizedCostFunction<1, 2> {
 public:
  explicit InfAbove(double threshold) : threshold_(threshold) {}
  bool Evaluate(double const* const* p, double* r, double** j) const override {
    const double* z = p[0];
    r[0] = z[0] > threshold_ ? std::numeric_limits<double>::infinity()
                             : 1.0 + z[0] * z[0] + z[1] * z[1];
    if (j != nullptr && j[0] != nullptr) {
      j[0][0] = 2.0 * z[0];
      j[0][1] = 2.0 * z[1];
    }
    return true;
  }

 private:
  double threshold_;
};

void BuildPullAcross(bool use_inf, double* z, Problem* problem) {
  if (use_inf) {
    problem->AddObjective(new InfAbove(0.9), {z}, "fragile");
  } else {
    problem->AddObjective(new testing::NanAbove(0.9), {z}, "fragile");
  }
  problem->AddObjective(
      new ceres::AutoDiffCostFunction<PullRight, 1, 2>(new PullRight),
      {z},
      "pull");
}

TEST(Validation, NonFiniteObjectiveMidSolveNeverConvergesWithNonFinite) {
  int named = 0;
  for (const bool use_inf : {false, true}) {
    for (const StrategyType strategy : kAllStrategies) {
      SCOPED_TRACE(std::string(use_inf ? "Inf " : "NaN ") +
                   StrategyTypeToString(strategy));
      double z[2] = {0.0, 0.5};
      Problem problem;
      BuildPullAcross(use_inf, z, &problem);
      Solver::Options options;
      options.strategy = strategy;
      options.max_iterations = 5000;
      options.pgd.eta0 = 0.5;
      options.max_solver_time_in_seconds = 10.0;
      Solver::Summary summary;
      Solve(options, problem, {0.05, 0.95}, &summary);
      ExpectFiniteIfUsable(summary);
      if (summary.termination_type == ceres::FAILURE) {
        EXPECT_NE(summary.message.find("fragile"), std::string::npos)
            << summary.message;
      } else {
        // Backed off: the point stays where the objective is finite.
        EXPECT_LE(summary.z[0], 0.9) << summary.FullReport();
      }
      // The user's blocks never receive a non-finite point: they hold the
      // point returned.
      EXPECT_TRUE(std::isfinite(z[0]) && std::isfinite(z[1]));
      if (summary.IsSolutionUsable()) {
        EXPECT_EQ(z[0], summary.z[0]);
        EXPECT_EQ(z[1], summary.z[1]);
      }
      // A solve that met the region and did not converge says so, rather
      // than only the strategy's own reason.
      if (summary.termination_type == ceres::NO_CONVERGENCE &&
          summary.evaluations.failed_evaluations > 0) {
        ++named;
        EXPECT_NE(summary.message.find(
                      "failed (a cost function returned false, NaN or "
                      "infinity)"),
                  std::string::npos)
            << summary.message;
        EXPECT_NE(summary.FullReport().find("Failed evaluations"),
                  std::string::npos);
      }
    }
  }
  // The augmented Lagrangian and the faithful strategy end there.
  EXPECT_GE(named, 2);
}

// h = z0^2 + 1 = 0 has no real solution.
struct NoRealRoot {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] * z[0] + 1.0;
    return true;
  }
};

void BuildInfeasible(double* z, Problem* problem) {
  testing::BuildGebken(z, problem);
  problem->AddConstraint(
      new ceres::AutoDiffCostFunction<NoRealRoot, 1, 2>(new NoRealRoot),
      {z},
      "no_real_root");
}

TEST(Validation, InfeasibleConstraintsNeverConverge) {
  for (const StrategyType strategy : kAllStrategies) {
    SCOPED_TRACE(StrategyTypeToString(strategy));
    double z[2] = {0.5, 0.5};
    Problem problem;
    BuildInfeasible(z, &problem);
    Solver::Options options;
    options.strategy = strategy;
    options.max_iterations = 3000;
    options.max_solver_time_in_seconds = 10.0;
    Solver::Summary summary;
    Solve(options, problem, {0.5, 0.5}, &summary);
    EXPECT_NE(summary.termination_type, ceres::CONVERGENCE)
        << summary.FullReport();
    EXPECT_FALSE(summary.message.empty());
    if (strategy != StrategyType::WC_PENALTY_PGD) {
      // The quasi-Newton strategies say that h stays away from 0 and that
      // the constraint Jacobian degenerates along the multiplier; wc-sqp
      // that its linearized constraints had no solution (rank-deficient
      // J_h), from a point near the least-squares one.
      EXPECT_NE(summary.message.find(strategy == StrategyType::WC_SQP
                                         ? "||h|| = 1.0"
                                         : "||h|| = 1.000e+00"),
                std::string::npos)
          << summary.message;
      EXPECT_NE(summary.message.find("rank-deficient"), std::string::npos)
          << summary.message;
    }
    ExpectFiniteIfUsable(summary);
  }
}

// f = scale * (1 + ||z - c||^2): with scale = 1e200 the penalty terms
// v/2 (lambda f - rho)^2 overflow to Inf.
struct Huge {
  explicit Huge(double c) : c(c) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = 1e200 * (1.0 + (z[0] - c) * (z[0] - c) + z[1] * z[1]);
    return true;
  }
  double c;
};

TEST(Validation, OverflowingPenaltiesAreReportedNotHidden) {
  for (const StrategyType strategy : kAllStrategies) {
    SCOPED_TRACE(StrategyTypeToString(strategy));
    double z[2] = {0.3, 0.4};
    Problem problem;
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<Huge, 1, 2>(new Huge(1.0)), {z}, "a");
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<Huge, 1, 2>(new Huge(-1.0)), {z}, "b");
    problem.AddConstraint(
        new ceres::AutoDiffCostFunction<testing::CircleH, 1, 2>(
            new testing::CircleH),
        {z},
        "circle");
    Solver::Options options;
    options.strategy = strategy;
    options.max_iterations = 2000;
    options.max_solver_time_in_seconds = 10.0;
    Solver::Summary summary;
    Solve(options, problem, {0.5, 0.5}, &summary);
    EXPECT_FALSE(summary.message.empty());
    ExpectFiniteIfUsable(summary);
    if (strategy == StrategyType::WC_PENALTY_PGD) {
      EXPECT_NE(summary.message.find("diverged"), std::string::npos)
          << summary.message;
    } else {
      // Overflow must not be misdiagnosed as a rank-deficient Jacobian.
      EXPECT_EQ(summary.message.find("LICQ fails"), std::string::npos)
          << summary.message;
    }
    if (summary.termination_type == ceres::CONVERGENCE) {
      // Only a genuinely certified point may be called converged.
      EXPECT_NEAR(z[0] * z[0] + z[1] * z[1], 1.0, 1e-4) << summary.FullReport();
    }
  }
}

TEST(Validation, IpoptReferenceOnInfeasibleAndNonFiniteProblems) {
  {
    double z[2] = {0.5, 0.5};
    Problem problem;
    BuildInfeasible(z, &problem);
    IpoptReference::Options options;
    options.max_iterations = 300;
    options.max_cpu_time_in_seconds = 5.0;
    IpoptReference::Summary summary;
    SolveReference(options, problem, {0.5, 0.5}, {}, &summary);
    EXPECT_NE(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_NE(summary.message.find("Ipopt: "), std::string::npos)
        << summary.message;
  }
  for (const bool use_inf : {false, true}) {
    double z[2] = {0.0, 0.5};
    Problem problem;
    BuildPullAcross(use_inf, z, &problem);
    IpoptReference::Options options;
    options.max_iterations = 300;
    options.max_cpu_time_in_seconds = 5.0;
    IpoptReference::Summary summary;
    SolveReference(options, problem, {0.05, 0.95}, {}, &summary);
    if (summary.IsSolutionUsable()) {
      EXPECT_TRUE(summary.z.allFinite());
      EXPECT_TRUE(summary.objectives.allFinite());
      EXPECT_LE(summary.z[0], 0.9 + 1e-12);
    } else {
      // The last evaluation error names the cost function and the point.
      EXPECT_NE(summary.message.find("objective 'fragile'"), std::string::npos)
          << summary.message;
    }
    EXPECT_TRUE(std::isfinite(z[0]) && std::isfinite(z[1]));
  }
}

// ---------------------------------------------------------------------------
// Linear scalarization.

struct SquaredDistance {
  explicit SquaredDistance(double c) : c(c) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - c) * (z[0] - c) + (z[1] - c) * (z[1] - c);
    return true;
  }
  double c;
};

TEST(Validation, LinearScalarizationRefusesManifolds) {
  double z[2] = {1.0, 0.0};
  Problem problem;
  problem.AddObjective(new ceres::AutoDiffCostFunction<SquaredDistance, 1, 2>(
                           new SquaredDistance(1.0)),
                       {z});
  problem.AddObjective(new ceres::AutoDiffCostFunction<SquaredDistance, 1, 2>(
                           new SquaredDistance(-1.0)),
                       {z});
  ASSERT_TRUE(problem.SetManifold(
      z, std::make_unique<ceres::SphereManifold<ceres::DYNAMIC>>(2)));
  LinearScalarizationSummary summary;
  SolveLinearScalarization(
      LinearScalarizationOptions(), problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("cannot solve on a manifold"),
            std::string::npos)
      << summary.message;
  EXPECT_EQ(z[0], 1.0);
  EXPECT_EQ(z[1], 0.0);
}

TEST(Validation, LinearScalarizationNanFromCostFunctionNamesIt) {
  // At the start point.
  {
    double z[2] = {2.0, 0.0};
    Problem problem;
    problem.AddObjective(new testing::NanAbove(1.0), {z}, "fragile");
    LinearScalarizationSummary summary;
    SolveLinearScalarization(
        LinearScalarizationOptions(), problem, {1.0}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("fragile"), std::string::npos)
        << summary.message;
  }
  // During the solve: the weighted objective pulls z0 across 0.9.
  {
    double z[2] = {0.0, 0.5};
    Problem problem;
    BuildPullAcross(/*use_inf=*/false, z, &problem);
    LinearScalarizationOptions options;
    options.max_iterations = 200;
    LinearScalarizationSummary summary;
    SolveLinearScalarization(options, problem, {0.05, 0.95}, &summary);
    if (summary.termination_type == ceres::FAILURE) {
      EXPECT_NE(summary.message.find("fragile"), std::string::npos)
          << summary.message;
    } else {
      EXPECT_TRUE(summary.z.allFinite());
      EXPECT_TRUE(summary.objectives.allFinite());
      EXPECT_TRUE(std::isfinite(summary.kkt_residual_sq));
      EXPECT_LE(summary.z[0], 0.9);
    }
    EXPECT_TRUE(std::isfinite(z[0]) && std::isfinite(z[1]));
  }
}

TEST(Validation, LinearScalarizationPreferenceAndOptions) {
  double z[2] = {0.0, 0.0};
  Problem problem;
  problem.AddObjective(new ceres::AutoDiffCostFunction<SquaredDistance, 1, 2>(
                           new SquaredDistance(1.0)),
                       {z});
  problem.AddObjective(new ceres::AutoDiffCostFunction<SquaredDistance, 1, 2>(
                           new SquaredDistance(-1.0)),
                       {z});
  struct Case {
    std::vector<double> preference;
    const char* fragment;
  };
  const Case cases[] = {
      {{1.0}, "1"},
      {{-0.5, 1.5}, "-0.5"},
      {{0.5, std::numeric_limits<double>::quiet_NaN()}, "nan"},
      {{0.3, 0.3}, "0.6"},
  };
  for (const Case& c : cases) {
    LinearScalarizationSummary summary;
    SolveLinearScalarization(
        LinearScalarizationOptions(), problem, c.preference, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("reference"), std::string::npos)
        << summary.message;
    EXPECT_NE(summary.message.find(c.fragment), std::string::npos)
        << summary.message;
  }
  // A zero weight is fine here (closed simplex).
  LinearScalarizationSummary ok;
  SolveLinearScalarization(
      LinearScalarizationOptions(), problem, {0.0, 1.0}, &ok);
  EXPECT_TRUE(ok.IsSolutionUsable()) << ok.message;
}

// ---------------------------------------------------------------------------
// Stochastic solver.

// phi(z; xi) = (z - 1 - xi)^2 with xi ~ N(0, 0.1^2), NaN for z > threshold.
class NoisyNanAbove final : public SingleSampleFunction {
 public:
  explicit NoisyNanAbove(double threshold) : threshold_(threshold) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(1);
  }
  bool EvaluateSample(const double* const* parameters,
                      std::mt19937_64* rng,
                      double* values,
                      double** jacobians) const override {
    std::normal_distribution<double> noise(0.0, 0.1);
    const double z = parameters[0][0];
    const double d = z - 1.0 - noise(*rng);
    values[0] =
        z > threshold_ ? std::numeric_limits<double>::quiet_NaN() : d * d;
    if (jacobians != nullptr && jacobians[0] != nullptr) {
      jacobians[0][0] = 2.0 * d;
    }
    return true;
  }

 private:
  double threshold_;
};

TEST(Validation, StochasticNanFromAFunctionNamesIt) {
  // At the start point, and during the solve (the minimizer z = 1 lies
  // beyond the threshold 0.5).
  for (const double start : {2.0, 0.0}) {
    double z = start;
    StochasticProblem problem;
    problem.AddObjective(new NoisyNanAbove(0.5), {&z}, "noisy");
    StochasticSolver::Options options;
    options.max_iterations = 200;
    options.objective_batch_size = 4;
    options.eta0 = 0.5;
    StochasticSolver::Summary summary;
    ecmo::Solve(options, problem, {1.0}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE) << summary.message;
    EXPECT_NE(summary.message.find("noisy"), std::string::npos)
        << summary.message;
    EXPECT_TRUE(std::isfinite(z));
  }
}

TEST(Validation, StochasticRefusesAnExactEvaluatorWithAManifold) {
  // The exact evaluator comes from a Problem on the circle manifold.
  double w[2] = {1.0, 0.0};
  Problem exact_problem;
  exact_problem.AddObjective(
      new ceres::AutoDiffCostFunction<SquaredDistance, 1, 2>(
          new SquaredDistance(1.0)),
      {w});
  ASSERT_TRUE(exact_problem.SetManifold(
      w, std::make_unique<ceres::SphereManifold<ceres::DYNAMIC>>(2)));
  ProblemEvaluator exact(&exact_problem);
  ASSERT_NE(exact.manifold(), nullptr);

  // A stochastic problem of the same shape: k = 2, S = 1, q = 0.
  class Noisy2 final : public SingleSampleFunction {
   public:
    Noisy2() {
      set_num_residuals(1);
      mutable_parameter_block_sizes()->push_back(2);
    }
    bool EvaluateSample(const double* const* p,
                        std::mt19937_64* /*rng*/,
                        double* values,
                        double** jacobians) const override {
      values[0] = 1.0 + p[0][0] * p[0][0] + p[0][1] * p[0][1];
      if (jacobians != nullptr && jacobians[0] != nullptr) {
        jacobians[0][0] = 2.0 * p[0][0];
        jacobians[0][1] = 2.0 * p[0][1];
      }
      return true;
    }
  };
  double z[2] = {1.0, 0.0};
  StochasticProblem problem;
  problem.AddObjective(new Noisy2, {z}, "noisy");
  StochasticSolver::Options options;
  options.max_iterations = 10;
  options.objective_batch_size = 1;
  StochasticSolver::Summary summary;
  ecmo::Solve(options, problem, {1.0}, &summary, &exact);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("manifold"), std::string::npos)
      << summary.message;
}

TEST(Validation, StochasticOptionsNameTheField) {
  struct Bad {
    const char* field;
    void (*apply)(StochasticSolver::Options*);
  };
  const Bad bad[] = {
      {"max_iterations",
       [](StochasticSolver::Options* o) { o->max_iterations = 0; }},
      {"eta0", [](StochasticSolver::Options* o) { o->eta0 = 0.0; }},
      {"c0", [](StochasticSolver::Options* o) { o->c0 = -1.0; }},
      {"batch_size_factor",
       [](StochasticSolver::Options* o) { o->batch_size_factor = 0.0; }},
      {"batch_size_exponent",
       [](StochasticSolver::Options* o) { o->batch_size_exponent = -1.0; }},
      {"objective_batch_size",
       [](StochasticSolver::Options* o) { o->objective_batch_size = -1; }},
      {"constraint_batch_size",
       [](StochasticSolver::Options* o) { o->constraint_batch_size = -1; }},
      {"kkt_every_n_iterations",
       [](StochasticSolver::Options* o) { o->kkt_every_n_iterations = -1; }},
      {"max_solver_time_in_seconds",
       [](StochasticSolver::Options* o) {
         o->max_solver_time_in_seconds = 0.0;
       }},
      {"history_stride",
       [](StochasticSolver::Options* o) { o->history_stride = 0; }},
      {"eta0",
       [](StochasticSolver::Options* o) {
         o->eta0 = std::numeric_limits<double>::quiet_NaN();
       }},
  };
  for (const Bad& b : bad) {
    StochasticSolver::Options options;
    b.apply(&options);
    std::string error;
    EXPECT_FALSE(options.IsValid(&error)) << b.field;
    EXPECT_NE(error.find(b.field), std::string::npos)
        << b.field << ": " << error;
  }
  std::string error;
  EXPECT_TRUE(StochasticSolver::Options().IsValid(&error)) << error;
}

TEST(Validation, LinearScalarizationOptionsNameTheField) {
  struct Bad {
    const char* field;
    void (*apply)(LinearScalarizationOptions*);
  };
  const Bad bad[] = {
      {"max_iterations",
       [](LinearScalarizationOptions* o) { o->max_iterations = 0; }},
      {"kkt_tolerance",
       [](LinearScalarizationOptions* o) { o->kkt_tolerance = -1.0; }},
      {"affinity_tolerance",
       [](LinearScalarizationOptions* o) { o->affinity_tolerance = 0.0; }},
      {"rank_tolerance",
       [](LinearScalarizationOptions* o) { o->rank_tolerance = 1.0; }},
      {"max_solver_time_in_seconds",
       [](LinearScalarizationOptions* o) {
         o->max_solver_time_in_seconds = -1.0;
       }},
      {"max_lipschitz_increases",
       [](LinearScalarizationOptions* o) { o->max_lipschitz_increases = -1; }},
      {"rank_tolerance",
       [](LinearScalarizationOptions* o) {
         o->rank_tolerance = std::numeric_limits<double>::quiet_NaN();
       }},
  };
  for (const Bad& b : bad) {
    LinearScalarizationOptions options;
    b.apply(&options);
    std::string error;
    EXPECT_FALSE(options.IsValid(&error)) << b.field;
    EXPECT_NE(error.find(b.field), std::string::npos)
        << b.field << ": " << error;
  }
  std::string error;
  EXPECT_TRUE(LinearScalarizationOptions().IsValid(&error)) << error;
}

// ---------------------------------------------------------------------------
// Command-line tools.

using testing::CommandResult;
using testing::RunCommand;

#ifdef ECMO_SOLVE_PATH
TEST(Validation, EcmoSolvePreferenceSpecsAndFlags) {
  struct Case {
    const char* args;
    const char* fragment;
  };
  const Case cases[] = {
      {"--preferences=nope:3", "--preferences:"},
      {"--preferences=das-dennis:x", "--preferences:"},
      {"--preferences=random:0", "--preferences:"},
      {"--preferences=even:-1", "--preferences:"},
      {"--preferences=file:/nonexistent/prefs.txt", "/nonexistent/prefs.txt"},
      {"--strategy=nope", "wc-augmented-lagrangian"},
      {"--problem=nope", "valid names:"},
  };
  for (const Case& c : cases) {
    const CommandResult run =
        RunCommand(std::string(ECMO_SOLVE_PATH) + " " + c.args);
    EXPECT_EQ(run.exit_code, 2) << c.args << "\n" << run.output;
    EXPECT_NE(run.output.find(c.fragment), std::string::npos) << c.args << "\n"
                                                              << run.output;
  }
  const CommandResult unknown =
      RunCommand(std::string(ECMO_SOLVE_PATH) + " --preferencez=even:3");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.output.find("preferencez"), std::string::npos)
      << unknown.output;
}
#endif

#ifdef ECMO_PLOT_PATH
std::string TempPath(const std::string& name) {
  return std::string(ECMO_BINARY_DIR) + "/validation_test_" + name;
}

TEST(Validation, EcmoPlotBadInputFiles) {
  const std::string plot = ECMO_PLOT_PATH;
  const std::string image = TempPath("out.png");
  {
    const CommandResult run = RunCommand(
        plot + " --input=" + TempPath("missing.json") + " --output=" + image);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("cannot open"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("missing.json"), std::string::npos) << run.output;
  }
  {
    // An image into a directory that does not exist is refused before the
    // input is read (the input here does not exist either: the output's
    // error comes first).
    const CommandResult run =
        RunCommand(plot + " --input=" + TempPath("missing.json") +
                   " --output=" + TempPath("no_such_dir/out.png"));
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("cannot write --output"), std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("no_such_dir"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("missing.json"), std::string::npos) << run.output;
  }
  {
    // A directory is not a readable result file.
    const CommandResult run =
        RunCommand(plot + " --input=" + std::string(ECMO_BINARY_DIR) +
                   " --output=" + image);
    EXPECT_EQ(run.exit_code, 2) << run.output;
  }
  {
    // Truncated JSON: no point, the bad line named.
    const std::string path = TempPath("truncated.json");
    std::ofstream(path) << "{\"points\": [{\"z\": [1.0, ";
    const CommandResult run =
        RunCommand(plot + " --input=" + path + " --output=" + image);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("no result point found"), std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("line 1"), std::string::npos) << run.output;
  }
  {
    // Empty file.
    const std::string path = TempPath("empty.jsonl");
    std::ofstream(path) << "";
    const CommandResult run =
        RunCommand(plot + " --input=" + path + " --output=" + image);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("no result point found"), std::string::npos)
        << run.output;
  }
  {
    // Missing flags and stray arguments.
    EXPECT_EQ(RunCommand(plot + " --output=" + image).exit_code, 2);
    EXPECT_EQ(RunCommand(plot + " --input=x.json").exit_code, 2);
    const CommandResult stray =
        RunCommand(plot + " --input=x --output=y extra");
    EXPECT_EQ(stray.exit_code, 2);
    EXPECT_NE(stray.output.find("unexpected argument 'extra'"),
              std::string::npos)
        << stray.output;
    // Battery K7: handed to gnuplot, which failed (exit 1).
    for (const char* flag : {"--width", "--height"}) {
      const CommandResult huge = RunCommand(
          plot + " --input=x --output=y.png " + flag + "=2147483647");
      EXPECT_EQ(huge.exit_code, 2) << huge.output;
      EXPECT_NE(huge.output.find("must be in [100, 20000]"), std::string::npos)
          << huge.output;
    }
    // Battery K6: any other extension failed (exit 1) after reading the
    // input; now it is refused first (the input here does not exist).
    const CommandResult jpg =
        RunCommand(plot + " --input=" + TempPath("missing.json") +
                   " --output=" + TempPath("out.jpg"));
    EXPECT_EQ(jpg.exit_code, 2) << jpg.output;
    EXPECT_NE(jpg.output.find("must end in .png or .svg"), std::string::npos)
        << jpg.output;
    EXPECT_EQ(jpg.output.find("missing.json"), std::string::npos)
        << jpg.output;
    // Battery K3: gflags read the flag file whole (std::bad_alloc, 134).
    const CommandResult zero = RunCommand(plot + " --flagfile=/dev/zero");
    EXPECT_EQ(zero.exit_code, 2) << zero.output;
    EXPECT_NE(zero.output.find("--flagfile '/dev/zero' is not a regular file"),
              std::string::npos)
        << zero.output;
    const CommandResult small =
        RunCommand(plot + " --input=x --output=y --width=10");
    EXPECT_EQ(small.exit_code, 2);
    EXPECT_NE(small.output.find("--width"), std::string::npos) << small.output;
  }
}

// Battery K1: a value of about 100 kB was quoted whole in the refusal.
TEST(Validation, EcmoPlotCutsLongValuesInMessages) {
  const std::string plot = ECMO_PLOT_PATH;
  const std::string x(100000, 'x');
  for (const std::string& args :
       {"--input=" + x + " --output=" + TempPath("out.png"),
        "--input=" + TempPath("missing.json") + " --output=" + x + ".png",
        "--input=a --output=" + x, "--" + x, "--width=" + x}) {
    const CommandResult run = RunCommand(plot + " " + args);
    SCOPED_TRACE(args.substr(0, 40));
    EXPECT_EQ(run.exit_code, 2) << run.output.substr(0, 300);
    EXPECT_LT(run.output.size(), 4000u) << run.output.substr(0, 300);
    EXPECT_NE(run.output.find(" characters)"), std::string::npos)
        << run.output.substr(0, 300);
  }
}

// Issue 60, rows 5 and 9: an output that is the input, and inputs that
// never end or nest without bound.
TEST(Validation, EcmoPlotNeverOverwritesItsInputOrReadsWithoutBound) {
  const std::string plot = ECMO_PLOT_PATH;
  const std::string text = "{\"z\": [1.0], \"objectives\": [1.0, 2.0]}\n";
  const std::string stem = TempPath("self");
  for (const std::string& input : {stem + ".dat",
                                   stem + ".gp",
                                   stem + ".png",
                                   stem + "_convergence.dat"}) {
    SCOPED_TRACE(input);
    std::ofstream(input) << text;
    const CommandResult run =
        RunCommand(plot + " --input=" + input + " --output=" + stem + ".png");
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("which is the --input file"), std::string::npos)
        << run.output;
    std::ifstream in(input);
    std::stringstream kept;
    kept << in.rdbuf();
    EXPECT_EQ(kept.str(), text);
  }
  const std::string image = TempPath("bounded.png");
  const CommandResult zero =
      RunCommand(plot + " --input=/dev/zero --output=" + image);
  EXPECT_EQ(zero.exit_code, 2) << zero.output;
  EXPECT_NE(zero.output.find("64 MiB from a pipe or device"), std::string::npos)
      << zero.output;
  const std::string deep_path = TempPath("deep.json");
  std::ofstream(deep_path) << std::string(100000, '[')
                           << std::string(100000, ']');
  const CommandResult deep =
      RunCommand(plot + " --input=" + deep_path + " --output=" + image);
  EXPECT_EQ(deep.exit_code, 2) << deep.output;
  EXPECT_NE(deep.output.find("nested deeper than 64"), std::string::npos)
      << deep.output;
}
#endif

}  // namespace
}  // namespace ecmo
