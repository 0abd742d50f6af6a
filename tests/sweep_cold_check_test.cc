// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Warm-started sweeps must not keep a neighbour's point where it is KKT for
// more preferences than its own (ParetoSweep::Options::cold_checks,
// plugin/src/sweep_cold_check.h). The problem: x = 3 logits, p =
// softmax(x), f_1 = |p - a|^2 + 1 and f_2 = |p - b|^2 + 1 with a outside the
// simplex, so that for preferences near objective 1 the WC point has p_1 =
// 0 (x_1 = -infinity: the solver stops where the softmax has saturated),
// and for the others p_1 > 0. A sweep walking from the saturated end
// carried x_1 = -13.5 into five points that the certificate accepted
// 1.4-23% above their true WC values. Every point is checked against a
// brute-force grid over the simplex.

#include "sweep_cold_check.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/problem.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

const double kTargetA[3] = {-0.5, 1.0, 0.5};
const double kTargetB[3] = {0.5, 0.0, 0.5};

// |softmax(x) - t|^2 + 1.
struct SoftmaxDistanceToTarget {
  explicit SoftmaxDistanceToTarget(const double* t) : t{t[0], t[1], t[2]} {}
  template <typename T>
  bool operator()(const T* x, T* f) const {
    using std::exp;
    T top = x[0];
    if (x[1] > top) top = x[1];
    if (x[2] > top) top = x[2];
    const T e[3] = {exp(x[0] - top), exp(x[1] - top), exp(x[2] - top)};
    const T sum = e[0] + e[1] + e[2];
    f[0] = T(1.0);
    for (int j = 0; j < 3; ++j) {
      const T d = e[j] / sum - t[j];
      f[0] += d * d;
    }
    return true;
  }
  double t[3];
};

struct SoftmaxFront {
  double x[3] = {0.0, 0.0, 0.0};
  Problem problem;
};

std::shared_ptr<const Problem> BuildSoftmaxFront() {
  auto front = std::make_shared<SoftmaxFront>();
  using Cost = ceres::AutoDiffCostFunction<SoftmaxDistanceToTarget, 1, 3>;
  front->problem.AddObjective(
      new Cost(new SoftmaxDistanceToTarget(kTargetA)), {front->x}, "f1");
  front->problem.AddObjective(
      new Cost(new SoftmaxDistanceToTarget(kTargetB)), {front->x}, "f2");
  return std::shared_ptr<const Problem>(front, &front->problem);
}

double WcOf(const Scalarization& sc,
            const std::vector<double>& preference,
            double f1,
            double f2) {
  return std::max(
      preference[0] * (f1 - sc.reference_point[0]) / sc.objective_scale[0],
      preference[1] * (f2 - sc.reference_point[1]) / sc.objective_scale[1]);
}

// The smallest WC value over a grid of step 1/400 on the simplex of p
// (every p in the open simplex is a softmax, and the closed simplex is its
// closure): above the true minimum by at most the grid's resolution.
double GridBest(const Scalarization& sc, const std::vector<double>& pref) {
  constexpr int n = 400;
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; i + j <= n; ++j) {
      const double p[3] = {
          i / double(n), j / double(n), (n - i - j) / double(n)};
      double f1 = 1.0, f2 = 1.0;
      for (int c = 0; c < 3; ++c) {
        f1 += (p[c] - kTargetA[c]) * (p[c] - kTargetA[c]);
        f2 += (p[c] - kTargetB[c]) * (p[c] - kTargetB[c]);
      }
      best = std::min(best, WcOf(sc, pref, f1, f2));
    }
  }
  return best;
}

std::vector<std::vector<double>> Lambda1Steps(bool reversed) {
  std::vector<std::vector<double>> preferences;
  for (int i = 1; i <= 19; ++i) {
    const double l = (reversed ? 20 - i : i) / 20.0;
    preferences.push_back({l, 1.0 - l});
  }
  return preferences;
}

ParetoSweep::Summary SweepSoftmax(int threads,
                                  bool warm,
                                  bool cold_checks,
                                  bool reversed = false) {
  ParetoSweep::Options options;
  options.num_threads = threads;
  options.warm_start = warm;
  options.cold_checks = cold_checks;
  options.refine_to = 0;
  ParetoSweep::Summary summary;
  Sweep(options,
        ProblemFactory(BuildSoftmaxFront),
        Lambda1Steps(reversed),
        &summary);
  return summary;
}

// How far each point's WC value is above the grid's best, relative.
std::vector<double> ExcessOverGrid(const ParetoSweep::Summary& summary) {
  std::vector<double> excess;
  for (const SweepPoint& p : summary.points) {
    const Solver::Summary& s = p.summary;
    const double best = GridBest(summary.scalarization, p.preference);
    excess.push_back((WcOf(summary.scalarization,
                           p.preference,
                           s.objectives[0],
                           s.objectives[1]) -
                      best) /
                     best);
  }
  return excess;
}

TEST(SweepColdCheck, WarmSweepKeepsNoPointASaturatedNeighbourLeft) {
  // Without the checks the problem shows the failure: a warm point is
  // certified well above the grid's best.
  const ParetoSweep::Summary unchecked =
      SweepSoftmax(1, /*warm=*/true, /*cold_checks=*/false);
  ASSERT_EQ(unchecked.num_converged, 19) << unchecked.FullReport();
  const std::vector<double> before = ExcessOverGrid(unchecked);
  EXPECT_GT(*std::max_element(before.begin(), before.end()), 0.01);
  EXPECT_EQ(unchecked.num_cold_checks, 0);

  const ParetoSweep::Summary summary =
      SweepSoftmax(1, /*warm=*/true, /*cold_checks=*/true);
  ASSERT_EQ(summary.num_converged, 19) << summary.FullReport();
  const std::vector<double> excess = ExcessOverGrid(summary);
  for (size_t i = 0; i < excess.size(); ++i) {
    // The grid's resolution puts it up to about 3e-3 above the minimum.
    EXPECT_LE(excess[i], 1e-5)
        << "point " << i << ": " << summary.points[i].summary.message;
  }
  EXPECT_GE(summary.num_cold_checks, 1);
  EXPECT_GE(summary.num_solved_cold, 1);
  EXPECT_LE(summary.num_solved_cold, summary.num_cold_checks);
  int checked = 0;
  for (const SweepPoint& p : summary.points) {
    if (p.cold_check.empty()) continue;
    ++checked;
    EXPECT_NE(p.summary.message.find("cold solve"), std::string::npos)
        << p.summary.message;
    EXPECT_EQ(SweepPointToJson(p, "softmax").at("cold_check"), p.cold_check);
  }
  EXPECT_EQ(checked, summary.num_cold_checks);
  EXPECT_NE(summary.FullReport().find("compared with a cold solve"),
            std::string::npos);
}

TEST(SweepColdCheck, FrontDoesNotDependOnOrderThreadsOrWarmStarts) {
  const ParetoSweep::Summary reference = SweepSoftmax(1, /*warm=*/false, true);
  ASSERT_EQ(reference.num_converged, 19);
  const ParetoSweep::Summary two_threads = SweepSoftmax(2, true, true);
  const ParetoSweep::Summary reversed =
      SweepSoftmax(1, true, true, /*reversed=*/true);
  EXPECT_EQ(two_threads.num_threads_used, 2) << two_threads.threads_message;
  for (int i = 0; i < 19; ++i) {
    const Eigen::VectorXd& f = reference.points[i].summary.objectives;
    for (const ParetoSweep::Summary* other : {&two_threads, &reversed}) {
      // The reversed sweep lists the same preferences backwards.
      const int j = other == &reversed ? 18 - i : i;
      ASSERT_EQ(other->points[j].summary.termination_type, ceres::CONVERGENCE);
      const Eigen::VectorXd& g = other->points[j].summary.objectives;
      EXPECT_LE((f - g).cwiseAbs().maxCoeff(), 1e-5)
          << "lambda_1 = " << reference.points[i].preference[0] << ": "
          << f.transpose() << " against " << g.transpose() << "; "
          << other->points[j].summary.message;
    }
  }
}

// A summary at z with the given objectives, r = 0 and w = 1.
Solver::Summary PointAt(const Eigen::VectorXd& z, const Eigen::VectorXd& f) {
  Solver::Summary s;
  s.z = z;
  s.objectives = f;
  s.scalarization.reference_point = Eigen::VectorXd::Zero(f.size());
  s.scalarization.objective_scale = Eigen::VectorXd::Ones(f.size());
  return s;
}

Solver::Summary EvaluatedAt(Evaluator* evaluator, const Eigen::VectorXd& z) {
  Eigen::VectorXd f(evaluator->NumObjectives()), h(evaluator->NumConstraints());
  std::string error;
  EXPECT_TRUE(
      evaluator->Evaluate(z.data(), f.data(), h.data(), nullptr, &error))
      << error;
  return PointAt(z, f);
}

// (z_0 - c)^2 + z_1^2 + 1; z_2 enters nothing.
struct CurvedInZ1 {
  explicit CurvedInZ1(double c) : c(c) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - c) * (z[0] - c) + z[1] * z[1] + 1.0;
    return true;
  }
  double c;
};

TEST(SweepColdCheck, SaturationIsToldFromCurvatureAndUnusedParameters) {
  const std::shared_ptr<const Problem> softmax = BuildSoftmaxFront();
  ProblemEvaluator evaluator(softmax.get());
  internal::ColdCheckScratch scratch;
  std::string why;
  const Eigen::VectorXd start = Eigen::Vector3d::Zero();
  // p_1 = e^-21: the objectives respond to x_1 e^-21 times as much as at
  // the start, and still so after a small move.
  EXPECT_TRUE(internal::SaturatedCoordinates(
      &evaluator,
      EvaluatedAt(&evaluator, Eigen::Vector3d(-20.0, 1.0, 0.0)),
      {0.5, 0.5},
      start,
      1e-8,
      &scratch,
      &why));
  EXPECT_NE(why.find("z[0]"), std::string::npos) << why;
  // The same after a drift along the softmax's invariant direction (the
  // logits' values, not their differences, are large).
  EXPECT_TRUE(internal::SaturatedCoordinates(
      &evaluator,
      EvaluatedAt(&evaluator, Eigen::Vector3d(4e6 - 20.0, 4e6 + 1.0, 4e6)),
      {0.5, 0.5},
      start,
      1e-8,
      &scratch,
      &why));
  // Away from saturation every logit matters.
  EXPECT_FALSE(internal::SaturatedCoordinates(
      &evaluator,
      EvaluatedAt(&evaluator, Eigen::Vector3d(-1.0, 1.0, 0.0)),
      {0.5, 0.5},
      start,
      1e-8,
      &scratch,
      &why));

  // f_s = (z_0 - c_s)^2 + z_1^2 + 1: z_1 = 0 is stationary for both
  // objectives but curved (an ordinary minimizer), and no objective uses
  // z_2. Neither is a saturated region.
  double z[3] = {0.5, 2.0, 5.0};
  Problem bowls;
  using Cost = ceres::AutoDiffCostFunction<CurvedInZ1, 1, 3>;
  bowls.AddObjective(new Cost(new CurvedInZ1(0.0)), {z});
  bowls.AddObjective(new Cost(new CurvedInZ1(1.0)), {z});
  ProblemEvaluator bowl_evaluator(&bowls);
  EXPECT_FALSE(internal::SaturatedCoordinates(
      &bowl_evaluator,
      EvaluatedAt(&bowl_evaluator, Eigen::Vector3d(0.5, 0.0, 5.0)),
      {0.5, 0.5},
      Eigen::Vector3d(0.5, 2.0, 5.0),
      1e-8,
      &scratch,
      &why));
}

TEST(SweepColdCheck, CollapseNeedsTheSameObjectivesAtAnotherPreference) {
  const Eigen::VectorXd z = Eigen::Vector2d(0.0, 0.0);
  // At lambda = (0.4, 0.6), r = 0, w = 1: both WC terms are 1.2 (active).
  const Solver::Summary point = PointAt(z, Eigen::Vector2d(3.0, 2.0));
  const Solver::Summary same =
      PointAt(z, Eigen::Vector2d(3.0 * (1 + 1e-8), 2.0));
  const Solver::Summary moved =
      PointAt(z, Eigen::Vector2d(3.0 * (1 + 1e-4), 2.0));
  EXPECT_TRUE(
      internal::CollapsedOntoSource(point, {0.4, 0.6}, same, {0.5, 0.5}));
  EXPECT_FALSE(
      internal::CollapsedOntoSource(point, {0.4, 0.6}, moved, {0.5, 0.5}));
  // The same preference (up to its sum) is not a collapse.
  EXPECT_FALSE(
      internal::CollapsedOntoSource(point, {0.4, 0.6}, same, {0.8, 1.2}));
  // One active objective (0.2 * 3 < 0.8 * 2): an end, not judged here.
  EXPECT_FALSE(
      internal::CollapsedOntoSource(point, {0.2, 0.8}, same, {0.5, 0.5}));
}

// A try of the point at preference (1/2, 1/2) with objectives (f1, 1),
// r = 0 and w = 1 (WC value f1 / 2 for f1 >= 1), and one constraint.
Solver::Summary TryOfOnePoint(ceres::TerminationType termination,
                              double f1,
                              double violation) {
  Solver::Summary s =
      PointAt(Eigen::Vector2d(0.0, 0.0), Eigen::Vector2d(f1, 1.0));
  s.preference = {0.5, 0.5};
  s.termination_type = termination;
  s.num_constraints = 1;
  s.constraint_max_norm = violation;
  return s;
}

// Two tries of one point, neither CONVERGENCE (SweepRunner::SolvePoint):
// the feasible one first, then the smaller WC value (a saddle's
// unconverged restart below a point with a better certificate ratio), then
// the certificate ratio.
TEST(SweepColdCheck, ColdRetryIsChosenByFeasibilityThenWcValue) {
  Solver::Options options;
  auto tried = [](ceres::TerminationType termination,
                  double f1,
                  double violation,
                  double stationarity) {
    Solver::Summary s = TryOfOnePoint(termination, f1, violation);
    s.kkt.has_certificates = true;
    s.kkt.certificate_with_solver_multipliers.simplex = 0.0;
    s.kkt.certificate_with_solver_multipliers.stationarity = stationarity;
    s.kkt.certificate_with_solver_multipliers.complementarity = 0.0;
    s.kkt.certificate_with_solver_multipliers.feasibility = violation;
    s.kkt.certificate_with_least_squares_multipliers =
        s.kkt.certificate_with_solver_multipliers;
    return s;
  };
  const auto no = ceres::NO_CONVERGENCE;
  // WC values 0.5 f1 (f1 >= 1): 4 at the saddle, 1.5 below it.
  const Solver::Summary saddle = tried(no, 8.0, 0.0, 1e-5);
  const Solver::Summary below = tried(no, 3.0, 0.0, 1e-3);
  EXPECT_TRUE(internal::ColdRetryIsBetter(options, saddle, below));
  EXPECT_FALSE(internal::ColdRetryIsBetter(options, below, saddle));
  // Infeasible (1e-3 against feasibility_tolerance 1e-8): loses to any
  // feasible point, whatever its WC value.
  const Solver::Summary infeasible = tried(no, 2.0, 1e-3, 1e-7);
  EXPECT_FALSE(internal::ColdRetryIsBetter(options, saddle, infeasible));
  EXPECT_TRUE(internal::ColdRetryIsBetter(options, infeasible, saddle));
  // A tie in WC value (within 1e-6): the certificate ratio decides.
  const Solver::Summary tie = tried(no, 8.0 * (1.0 + 1e-9), 0.0, 1e-6);
  EXPECT_TRUE(internal::ColdRetryIsBetter(options, saddle, tie));
  EXPECT_FALSE(internal::ColdRetryIsBetter(options, tie, saddle));
  // A CONVERGENCE retry always; an unusable one never.
  EXPECT_TRUE(internal::ColdRetryIsBetter(
      options, below, tried(ceres::CONVERGENCE, 9.0, 0.0, 1e-7)));
  EXPECT_FALSE(internal::ColdRetryIsBetter(
      options, saddle, tried(ceres::FAILURE, 1.0, 0.0, 0.0)));
}

// A certified warm point the checks flagged against its cold solve: the
// cold point replaces it when feasible and lower in WC value by more than
// 1e-6, converged or not (the 16x-too-high "prefer f3" end a two-rank sweep
// of the digits data weighting certified was kept against an uncertified
// cold point at the front).
TEST(SweepColdCheck, FlaggedPointLosesToAnyFeasibleLowerColdPoint) {
  Solver::Options options;
  const auto at = TryOfOnePoint;
  // WC values 0.5 f1: 8.2 for the flagged point.
  const Solver::Summary flagged = at(ceres::CONVERGENCE, 16.4, 0.0);
  EXPECT_TRUE(internal::ColdSolveBeatsFlaggedPoint(
      options, flagged, at(ceres::NO_CONVERGENCE, 1.0, 0.0)));
  EXPECT_TRUE(internal::ColdSolveBeatsFlaggedPoint(
      options, flagged, at(ceres::CONVERGENCE, 1.0, 0.0)));
  // A tie (within 1e-6), a higher value, an infeasible or unusable point:
  // the flagged point stays.
  EXPECT_FALSE(internal::ColdSolveBeatsFlaggedPoint(
      options, flagged, at(ceres::CONVERGENCE, 16.4 * (1.0 - 1e-8), 0.0)));
  EXPECT_FALSE(internal::ColdSolveBeatsFlaggedPoint(
      options, flagged, at(ceres::CONVERGENCE, 17.0, 0.0)));
  EXPECT_FALSE(internal::ColdSolveBeatsFlaggedPoint(
      options, flagged, at(ceres::NO_CONVERGENCE, 1.0, 1e-4)));
  EXPECT_FALSE(internal::ColdSolveBeatsFlaggedPoint(
      options, flagged, at(ceres::FAILURE, 1.0, 0.0)));
}

}  // namespace
}  // namespace ecmo
