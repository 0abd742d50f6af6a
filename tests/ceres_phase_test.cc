// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Tests of wc-newton's Ceres phase (Solver::Options::NewtonOptions::
// ceres_phase) and of the hook it runs on,
// CeresProblemAdapter::SolveWeightedLeastSquares (ecmo/evaluator.h),
// against independent references:
//   - linear residuals: the minimizer of sum_s a_s f_s + mu/2 |h + shift|^2
//     from its 2 x 2 normal equations (closed form); the user's arrays are
//     left as they were and the solve is counted;
//   - Ceres' own validation message passes through for options Ceres
//     rejects; an evaluator without the structure refuses by name;
//   - a generated pose graph: wc-newton with the phase certifies the same
//     WC point as without it (the Newton loop alone), at each of three
//     preferences, and the phase's Ceres solves are counted;
//   - the same pose graphs for each option of the phase and the Newton
//     polish (loose function tolerance, chord steps, halving, phase
//     tolerance, inactive-objective curvature, the phase on warm starts):
//     the same certified points with the option on and off, and the count
//     the option is meant to change changes; the penalty growth after a
//     stalled complementarity at a front's corner.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "ceres/autodiff_cost_function.h"
#include "ceres/problem.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/problem.h"
#include "ecmo/problems/pose_graph.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

// r = x - p (2 residuals).
struct Offset {
  Offset(double p0, double p1) : p{p0, p1} {}
  template <typename T>
  bool operator()(const T* x, T* r) const {
    r[0] = x[0] - T(p[0]);
    r[1] = x[1] - T(p[1]);
    return true;
  }
  double p[2];
};

// h = x0 + 2 x1 - 1.
struct Line {
  template <typename T>
  bool operator()(const T* x, T* r) const {
    r[0] = x[0] + T(2.0) * x[1] - T(1.0);
    return true;
  }
};

TEST(CeresPhase, WeightedLeastSquaresMatchesTheNormalEquations) {
  double x[2] = {3.0, -2.0};
  ceres::Problem problem;
  const Eigen::Vector2d p(1.0, 0.5), q(-1.0, 2.0);
  auto* f1 = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Offset, 2, 2>(new Offset(p[0], p[1])),
      nullptr,
      x);
  auto* f2 = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Offset, 2, 2>(new Offset(q[0], q[1])),
      nullptr,
      x);
  auto* h = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Line, 1, 2>(new Line), nullptr, x);
  CeresProblemAdapter adapter(
      &problem, {{"f1", {f1}}, {"f2", {f2}}}, {{"h", {h}}});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  ASSERT_TRUE(adapter.HasWeightedLeastSquaresSolver());

  const Eigen::Vector2d n(1.0, 2.0);  // grad h
  for (const Eigen::Vector3d& case_ :
       {Eigen::Vector3d(0.3, 0.7, 10.0), Eigen::Vector3d(2.0, 0.01, 1e3)}) {
    const double a1 = case_[0], a2 = case_[1], mu = case_[2];
    const double shift = 0.2;
    // (a1 + a2) x - a1 p - a2 q + mu (n^T x - 1 + shift) n = 0.
    const Eigen::Matrix2d m =
        (a1 + a2) * Eigen::Matrix2d::Identity() + mu * n * n.transpose();
    const Eigen::Vector2d expected =
        m.partialPivLu().solve(a1 * p + a2 * q + mu * (1.0 - shift) * n);

    Eigen::VectorXd z(2);
    z << 5.0, 5.0;
    const double a[2] = {a1, a2};
    ceres::Solver::Options options;
    options.function_tolerance = 1e-14;
    options.gradient_tolerance = 1e-14;
    options.parameter_tolerance = 1e-14;
    ceres::Solver::Summary summary;
    const EvaluationCounts before = adapter.counts();
    ASSERT_TRUE(adapter.SolveWeightedLeastSquares(
        options, a, mu, &shift, z.data(), &summary, &error))
        << error;
    EXPECT_LE((z - expected).norm(), 1e-8) << z.transpose();
    const EvaluationCounts done = adapter.counts() - before;
    EXPECT_EQ(done.least_squares_solves, 1);
    EXPECT_EQ(done.least_squares_iterations,
              static_cast<int64_t>(summary.iterations.size()));
    EXPECT_GT(done.value_evaluations, 0);
    // The user's array is as it was.
    EXPECT_EQ(x[0], 3.0);
    EXPECT_EQ(x[1], -2.0);
  }
}

TEST(CeresPhase, RefusalsNameTheCause) {
  double x[2] = {0.0, 0.0};
  ceres::Problem problem;
  auto* f1 = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Offset, 2, 2>(new Offset(1.0, 0.0)),
      nullptr,
      x);
  CeresProblemAdapter adapter(&problem, {{"f1", {f1}}}, {});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(2);
  const double a = 1.0;
  ceres::Solver::Options options;
  options.max_num_iterations = -1;  // Ceres rejects it
  ceres::Solver::Summary summary;
  EXPECT_FALSE(adapter.SolveWeightedLeastSquares(
      options, &a, 1.0, nullptr, z.data(), &summary, &error));
  EXPECT_NE(error.find("max_num_iterations"), std::string::npos) << error;

  // An evaluator without residuals has no such structure.
  Problem plain;
  ProblemEvaluator evaluator(&plain);
  EXPECT_FALSE(evaluator.HasWeightedLeastSquaresSolver());
  EXPECT_FALSE(evaluator.SolveWeightedLeastSquares(
      ceres::Solver::Options(), &a, 1.0, nullptr, z.data(), &summary, &error));
  EXPECT_NE(error.find("sums of squared residuals"), std::string::npos)
      << error;
}

// A generated pose graph (objectives: odometry, loop closures) and its
// adapter; graph is null (and a failure recorded) if it cannot be built.
struct PoseGraphInstance {
  explicit PoseGraphInstance(int num_poses) {
    problems::PoseGraph2d::Options graph_options;
    graph_options.num_poses = num_poses;
    std::string error;
    graph = problems::PoseGraph2d::Create(graph_options, &error);
    EXPECT_NE(graph, nullptr) << error;
    if (graph == nullptr) return;
    adapter = std::make_unique<CeresProblemAdapter>(
        &graph->problem,
        graph->ObjectiveGroups(),
        std::vector<CeresProblemAdapter::ResidualGroup>{});
    EXPECT_TRUE(adapter->IsValid(&error)) << error;
    start = adapter->GetParameters();
  }
  std::unique_ptr<problems::PoseGraph2d> graph;
  std::unique_ptr<CeresProblemAdapter> adapter;
  Eigen::VectorXd start;  // the odometry start
};

// wc-newton with one reference point (0) and scale (1) for every point.
Solver::Options PoseGraphOptions() {
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  options.reference_point = {0.0, 0.0};
  options.objective_scale = {1.0, 1.0};
  options.normalize_objectives = false;
  return options;
}

// WC points of a generated pose graph at lambda = (t, 1 - t) for each t,
// each solved twice from the odometry start (variant 0 and 1, configured by
// `configure`); result[t][variant].
std::vector<std::array<Solver::Summary, 2>> SolvePoseGraphTwice(
    int num_poses,
    const std::vector<double>& ts,
    const std::function<void(int, Solver::Options*)>& configure) {
  PoseGraphInstance instance(num_poses);
  if (instance.graph == nullptr) return {};
  std::vector<std::array<Solver::Summary, 2>> result(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    for (int variant = 0; variant < 2; ++variant) {
      Solver::Options options = PoseGraphOptions();
      configure(variant, &options);
      Eigen::VectorXd z = instance.start;
      Solve(options,
            instance.adapter.get(),
            {ts[i], 1.0 - ts[i]},
            &z,
            &result[i][variant]);
    }
  }
  return result;
}

// The options are refused with a message that names `field`.
void ExpectRefused(const Solver::Options& options, const std::string& field) {
  std::string error;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find(field), std::string::npos) << error;
}

// For each pair of SolvePoseGraphTwice: both solves CONVERGENCE, `each`
// called on every summary with its variant (traced with the variant's
// name and the summary's message), and the two points' objectives equal
// within `tolerance` (relative).
void ExpectSamePoints(
    const std::vector<std::array<Solver::Summary, 2>>& summaries,
    const std::string& variant_name,
    double tolerance,
    const std::function<void(int, const Solver::Summary&)>& each) {
  for (const auto& pair : summaries) {
    for (int variant = 0; variant < 2; ++variant) {
      const Solver::Summary& summary = pair[variant];
      SCOPED_TRACE(variant_name + " " + std::to_string(variant) + ": " +
                   summary.message);
      ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE);
      each(variant, summary);
    }
    EXPECT_LE((pair[1].objectives - pair[0].objectives).norm(),
              tolerance * pair[0].objectives.norm())
        << pair[0].objectives.transpose() << " vs "
        << pair[1].objectives.transpose();
  }
}

TEST(CeresPhase, PoseGraphSameCertifiedPointWithAndWithoutThePhase) {
  const auto summaries = SolvePoseGraphTwice(
      60, {0.2, 0.5, 0.8}, [](int with_phase, Solver::Options* options) {
        options->newton.ceres_phase = with_phase == 1;
      });
  ExpectSamePoints(summaries,
                   "phase",
                   1e-5,
                   [](int with_phase, const Solver::Summary& summary) {
                     EXPECT_EQ(summary.evaluations.least_squares_solves > 0,
                               with_phase == 1);
                     // The JSON result carries the Ceres phase's work.
                     const nlohmann::json json =
                         SummaryToJson(summary, "pose_graph");
                     EXPECT_EQ(json["least_squares_solves"].get<int64_t>(),
                               summary.evaluations.least_squares_solves);
                     EXPECT_EQ(json["least_squares_iterations"].get<int64_t>(),
                               summary.evaluations.least_squares_iterations);
                   });
}

// The phase's solves after the first stop at a loose function tolerance
// (they only locate the weights and a start; the first, from the user's
// start, picks the basin and runs to Ceres' own tolerance): the Newton
// polish still reaches the point the phase at Ceres' own tolerance
// reaches, and the phase spends no more Levenberg-Marquardt iterations on
// it.
TEST(CeresPhase, LooseFunctionToleranceSamePointFewerCeresIterations) {
  const auto summaries = SolvePoseGraphTwice(
      200, {0.3, 0.5, 0.7}, [](int loose, Solver::Options* options) {
        options->newton.ceres_phase_function_tolerance =
            loose == 1 ? 1e-2 : 0.0;
      });
  int64_t iterations[2] = {0, 0};
  ExpectSamePoints(
      summaries, "loose", 1e-5, [&](int loose, const Solver::Summary& summary) {
        EXPECT_GT(summary.evaluations.least_squares_solves, 0);
        iterations[loose] += summary.evaluations.least_squares_iterations;
      });
  EXPECT_LE(iterations[1], iterations[0]);
  // Bad values are refused with the option's name.
  Solver::Options options;
  options.newton.ceres_phase_function_tolerance = 1.0;
  ExpectRefused(options, "ceres_phase_function_tolerance");
}

// Chord steps (NewtonOptions::chord_steps): the first step of an inner
// solve after a multiplier update reuses the last factorization. The
// certified points are those of a factorization per step, with fewer
// Gauss-Newton matrices and hardly more Newton iterations.
TEST(CeresPhase, ChordStepsSamePointFewerGaussNewtonMatrices) {
  const auto summaries = SolvePoseGraphTwice(
      200, {0.2, 0.5, 0.8}, [](int chord, Solver::Options* options) {
        options->newton.chord_steps = chord == 1;
      });
  int64_t matrices[2] = {0, 0};
  int iterations[2] = {0, 0};
  ExpectSamePoints(
      summaries, "chord", 1e-6, [&](int chord, const Solver::Summary& summary) {
        matrices[chord] += summary.evaluations.gauss_newton_matrices;
        iterations[chord] += summary.inner_iterations;
      });
  EXPECT_LT(matrices[1], matrices[0]);
  EXPECT_LE(iterations[1], iterations[0] + 3);
}

// Backtracking (NewtonOptions::backtracking_steps): a rejected Gauss-Newton
// step is halved before the region shrinks and the matrix is factorized
// again. The certified points are those of Levenberg-Marquardt's rule
// alone; some steps are taken shortened, and the count reaches the report
// and the JSON result.
TEST(CeresPhase, BacktrackingSamePointWithShortenedSteps) {
  const auto summaries = SolvePoseGraphTwice(
      200, {0.2, 0.5, 0.8}, [](int backtracking, Solver::Options* options) {
        options->newton.backtracking_steps = backtracking == 1 ? 2 : 0;
        // The Newton loop from the odometry start, where steps get
        // rejected (after the phase few are).
        options->newton.ceres_phase = false;
      });
  int shortened[2] = {0, 0};
  ExpectSamePoints(
      summaries,
      "backtracking",
      1e-6,
      [&](int backtracking, const Solver::Summary& summary) {
        shortened[backtracking] += summary.num_shortened_steps;
        EXPECT_LE(summary.num_shortened_steps, summary.inner_iterations);
        const nlohmann::json json = SummaryToJson(summary, "pose_graph");
        EXPECT_EQ(json["quasi_newton"]["shortened_steps"].get<int>(),
                  summary.num_shortened_steps);
      });
  EXPECT_EQ(shortened[0], 0);
  EXPECT_GT(shortened[1], 0);
  EXPECT_NE(summaries[0][1].FullReport().find("Steps shortened by halving"),
            std::string::npos);
  // A negative count is refused with the option's name.
  Solver::Options options;
  options.newton.backtracking_steps = -1;
  ExpectRefused(options, "backtracking_steps");
}

// NewtonOptions::ceres_phase_tolerance: the default (1, terms within a
// factor e) leaves most of the equalizing to the Newton loop; a tight one
// (3e-2) runs the phase's weight updates over more ceres::Solve calls.
// The same certified points; a tolerance of 0 is refused by name.
TEST(CeresPhase, LooseOrTightPhaseToleranceSamePoints) {
  const auto summaries = SolvePoseGraphTwice(
      200,
      {0.02, 0.3, 0.5, 0.7, 0.98},
      [](int tight, Solver::Options* options) {
        options->newton.ceres_phase_tolerance = tight == 1 ? 3e-2 : 1.0;
      });
  int64_t solves[2] = {0, 0};
  ExpectSamePoints(
      summaries, "tight", 1e-5, [&](int tight, const Solver::Summary& summary) {
        EXPECT_GE(summary.evaluations.least_squares_solves, 1);
        solves[tight] += summary.evaluations.least_squares_solves;
      });
  EXPECT_GT(solves[1], solves[0]);
  Solver::Options options;
  options.newton.ceres_phase_tolerance = 0.0;
  ExpectRefused(options, "ceres_phase_tolerance");
}

// NewtonOptions::inactive_objective_curvature: an objective inactive at
// the point enters the Gauss-Newton matrix with the outer loop's weight
// estimate instead of 0. The certified points are the same; the first
// steps after the Ceres phase are no longer rejected over and over, so
// fewer Gauss-Newton matrices are built and factorized.
TEST(CeresPhase, InactiveObjectiveCurvatureSamePointFewerGaussNewtonMatrices) {
  const auto summaries = SolvePoseGraphTwice(
      334, {0.02, 0.1, 0.5, 0.9}, [](int weighted, Solver::Options* options) {
        options->newton.inactive_objective_curvature = weighted == 1;
      });
  int64_t matrices[2] = {0, 0};
  ExpectSamePoints(summaries,
                   "weighted",
                   1e-6,
                   [&](int weighted, const Solver::Summary& summary) {
                     matrices[weighted] +=
                         summary.evaluations.gauss_newton_matrices;
                   });
  EXPECT_LT(matrices[1], matrices[0]);
  std::printf("Gauss-Newton matrices: %lld without, %lld with\n",
              static_cast<long long>(matrices[0]),
              static_cast<long long>(matrices[1]));
}

// WC_NEWTON's penalty growth when the outer part stalls: by the factor the
// certificate predicts (at least penalty_increase, at most 1e3), not
// tenfold. At the loop-closure corner of a 334-pose front, held to a tight
// complementarity tolerance, the complementarity stops falling with the
// multiplier updates (the loop closures' minimizers are not unique); the
// points certify after a few larger increases: every increase obeys the
// rule, and some point needed one.
TEST(CeresPhase, StalledComplementarityGrowsThePenaltyByThePrediction) {
  PoseGraphInstance instance(334);
  ASSERT_NE(instance.graph, nullptr);
  Solver::Options options = PoseGraphOptions();
  // The box of the front's ends (pose_graph_front's payoff table for this
  // graph, rounded), as a user would scale it.
  options.reference_point = {-9.86298, -166.32};
  options.objective_scale = {1593.36, 16632.1};
  options.record_history = true;
  // A tight complementarity tolerance: in the certificate's units (the
  // weighted values at the point) the default is met before any stall.
  options.complementarity_tolerance = 1e-13;
  // The phase's first solve stopped early, as it did before it ran to
  // Ceres' own tolerance: the point where the stall shows.
  options.newton.ceres.function_tolerance = 1e-2;
  double largest = 0.0;
  int increases = 0;
  for (const double t : {0.9901, 0.997, 0.999}) {
    SCOPED_TRACE(::testing::Message() << "t = " << t);
    Eigen::VectorXd z = instance.start;
    Solver::Summary summary;
    Solve(options, instance.adapter.get(), {t, 1.0 - t}, &z, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
        << summary.message;
    increases += summary.num_penalty_increases;
    for (size_t i = 1; i < summary.history.size(); ++i) {
      const double factor =
          summary.history[i].penalty_u / summary.history[i - 1].penalty_u;
      if (factor == 1.0) continue;
      // A step that reaches max_penalty may be smaller.
      if (summary.history[i].penalty_u <
          options.quasi_newton.max_penalty * (1 - 1e-12)) {
        EXPECT_GE(factor,
                  options.quasi_newton.penalty_increase * (1 - 1e-12));
      }
      EXPECT_LE(factor, 1e3 * (1 + 1e-12));
      largest = std::max(largest, factor);
    }
    // Tenfold steps from u = 1 would need many more outer iterations.
    EXPECT_LE(summary.iterations, 12) << summary.FullReport();
  }
  EXPECT_GE(increases, 1);
  EXPECT_GT(largest, options.quasi_newton.penalty_increase);
}

// NewtonOptions::ceres_phase_on_warm_starts: on a warm start that gives
// the neighbour's multipliers, the phase is skipped by default (the Newton
// loop starts at the neighbour's point), whether they are carried over to
// the new preference or, after a jump of more than a factor 4 in a
// preference (0.02 -> 0.2 and 0.8 -> 0.98 here, as next to the ends of a
// front), used as given. Along a warm-started 200-pose sweep, each point
// is the cold solve's either way; without the phase no ceres::Solve runs
// and the report says why.
TEST(CeresPhase, WarmStartsSkipThePhaseSamePoints) {
  PoseGraphInstance instance(200);
  ASSERT_NE(instance.graph, nullptr);
  CeresProblemAdapter& adapter = *instance.adapter;
  const Eigen::VectorXd& start = instance.start;
  const Solver::Options options = PoseGraphOptions();
  const std::vector<double> ts = {0.02, 0.2, 0.35, 0.5, 0.65, 0.8, 0.98};
  std::vector<Eigen::VectorXd> cold(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    Eigen::VectorXd z = start;
    Solver::Summary summary;
    Solve(options, &adapter, {ts[i], 1.0 - ts[i]}, &z, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    cold[i] = summary.objectives;
  }
  for (int with_phase = 0; with_phase < 2; ++with_phase) {
    Solver::Options o = options;
    o.newton.ceres_phase_on_warm_starts = with_phase == 1;
    // A tight phase, so that it solves on every warm point (with the
    // default tolerance the carried weights often already satisfy it).
    if (with_phase == 1) o.newton.ceres_phase_tolerance = 3e-2;
    Eigen::VectorXd z = start;
    Solver::Summary previous;
    for (size_t i = 0; i < ts.size(); ++i) {
      SCOPED_TRACE("with_phase " + std::to_string(with_phase) + ", t " +
                   std::to_string(ts[i]));
      if (i > 0) {
        o.warm_start.omega = previous.kkt.solver_multipliers.omega;
        o.warm_start.nu = previous.kkt.solver_multipliers.nu;
        o.warm_start.preference = {ts[i - 1], 1.0 - ts[i - 1]};
      }
      Solver::Summary summary;
      Solve(o, &adapter, {ts[i], 1.0 - ts[i]}, &z, &summary);
      ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
          << summary.message;
      EXPECT_LE((summary.objectives - cold[i]).norm(), 1e-5 * cold[i].norm())
          << summary.objectives.transpose() << " vs " << cold[i].transpose();
      if (i > 0) {
        EXPECT_EQ(summary.evaluations.least_squares_solves > 0, with_phase == 1)
            << summary.message;
        EXPECT_EQ(summary.message.find("skipped on a warm start") !=
                      std::string::npos,
                  with_phase == 0)
            << summary.message;
      }
      previous = summary;
    }
  }
}

// A warm start from a neighbour's certified point, the neighbour's
// multipliers carried over (Solver::Options::WarmStart::preference):
//   - at the neighbour's own preference the point already minimizes the
//     weighted sum at the carried weights, so the phase calls no
//     ceres::Solve (it checks stationarity instead) and the point is
//     certified (CONVERGENCE) again where it is;
//   - at a new preference the point is the cold solve's, and a penalty
//     carried from the neighbour, however large, does not change the Newton
//     polish (it sizes v from the terms at the phase's point).
TEST(CeresPhase, WarmStartFromTheNeighbourSkipsTheRedundantSolve) {
  PoseGraphInstance instance(60);
  ASSERT_NE(instance.graph, nullptr);
  CeresProblemAdapter& adapter = *instance.adapter;
  const Eigen::VectorXd& start = instance.start;
  const Solver::Options options = PoseGraphOptions();
  auto solve = [&](const Solver::Options& o,
                   const Eigen::VectorXd& z0,
                   const std::vector<double>& preference) {
    Eigen::VectorXd z = z0;
    Solver::Summary summary;
    Solve(o, &adapter, preference, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    return summary;
  };
  const Solver::Summary neighbour = solve(options, start, {0.5, 0.5});
  ASSERT_EQ(neighbour.termination_type, ceres::CONVERGENCE);
  Solver::Options warm = options;
  // The phase on warm starts (off by default, see
  // WarmStartsSkipThePhaseSamePoints): its stationarity check.
  warm.newton.ceres_phase_on_warm_starts = true;
  warm.warm_start.omega = neighbour.kkt.solver_multipliers.omega;
  warm.warm_start.nu = neighbour.kkt.solver_multipliers.nu;
  warm.warm_start.preference = {0.5, 0.5};

  const Solver::Summary same = solve(warm, neighbour.z, {0.5, 0.5});
  EXPECT_EQ(same.evaluations.least_squares_solves, 0) << same.message;
  EXPECT_LE((same.z - neighbour.z).norm(), 1e-6 * neighbour.z.norm());

  const std::vector<double> next = {0.6, 0.4};
  const Solver::Summary cold = solve(options, start, next);
  int newton_iterations[2] = {0, 0};
  for (int big_penalty = 0; big_penalty < 2; ++big_penalty) {
    Solver::Options o = warm;
    o.warm_start.penalty_v = big_penalty == 1 ? 1e7 : 0.0;
    o.warm_start.penalty_u = o.warm_start.penalty_v;
    const Solver::Summary summary = solve(o, neighbour.z, next);
    EXPECT_LE((summary.objectives - cold.objectives).norm(),
              1e-5 * cold.objectives.norm())
        << summary.objectives.transpose() << " vs "
        << cold.objectives.transpose();
    newton_iterations[big_penalty] = summary.inner_iterations;
  }
  EXPECT_EQ(newton_iterations[1], newton_iterations[0]);
}

}  // namespace
}  // namespace ecmo
