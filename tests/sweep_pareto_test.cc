// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo::Sweep (ecmo/sweep.h): warm and cold starts and 1 or 2 threads give
// the same points and the same automatic scalarization, cold points use
// the solver warm start given, the
// open-simplex floor is applied and reported, shared
// problems honour their declared thread safety, failures stay per point,
// callbacks stop a sweep, a second worker the factory cannot build leaves
// one thread, a factory's exception reaches the caller, and the
// hypervolume approaches the analytic front's.

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/indicators.h"
#include "ecmo/kkt.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problems/registry.h"
#include "ecmo/result_writer.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "same_scalarization.h"
#include "test_problems.h"

namespace ecmo {
namespace {

// The fastest strategy available (the quasi-Newton strategies when built,
// else the faithful one with a tolerance), and the tolerance on z that two
// solutions of the same WC problem are expected to meet with it.
struct Fast {
  Solver::Options options;
  double z_tolerance = 1e-5;
};

Fast FastOptions() {
  Fast fast;
  fast.options.record_history = false;
  // The paper's form (r = 0), whose WC points Gebken().pareto_point gives.
  fast.options.objective_offset = {0.0, 0.0};
  if (StringToStrategyType("wc-augmented-lagrangian", &fast.options.strategy)) {
    fast.options.kkt_tolerance = 1e-12;
    fast.z_tolerance = 1e-4;
  } else {
    fast.options.strategy = StrategyType::WC_PENALTY_PGD;
    fast.options.max_iterations = 20000;
    fast.options.kkt_tolerance = 1e-4;
    fast.z_tolerance = 0.1;
  }
  return fast;
}

const problems::ProblemInfo& Gebken() {
  const problems::ProblemInfo* info = problems::Find("gebken_circle");
  EXPECT_NE(info, nullptr);
  return *info;
}

using testing::EvenPreferences;

void ExpectSamePoints(const ParetoSweep::Summary& a,
                      const ParetoSweep::Summary& b,
                      double tolerance) {
  ASSERT_EQ(a.points.size(), b.points.size());
  for (size_t i = 0; i < a.points.size(); ++i) {
    const Solver::Summary& sa = a.points[i].summary;
    const Solver::Summary& sb = b.points[i].summary;
    ASSERT_TRUE(sa.IsSolutionUsable()) << i << ": " << sa.message;
    ASSERT_TRUE(sb.IsSolutionUsable()) << i << ": " << sb.message;
    EXPECT_LT((sa.z - sb.z).norm(), tolerance) << "point " << i;
    EXPECT_LT((sa.objectives - sb.objectives).norm(), 10 * tolerance)
        << "point " << i;
  }
}

TEST(ParetoSweep, WarmAndColdStartsGiveTheSamePoints) {
  const Fast fast = FastOptions();
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver = fast.options;
  options.problem_name = "gebken_circle";
  const auto preferences = EvenPreferences(21);
  ParetoSweep::Summary warm, cold;
  options.warm_start = true;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &warm);
  options.warm_start = false;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &cold);
  ASSERT_EQ(warm.num_usable, 21) << warm.FullReport();
  ASSERT_EQ(cold.num_usable, 21) << cold.FullReport();
  ExpectSamePoints(warm, cold, fast.z_tolerance);
  // Warm starts come from finished neighbours, cold ones from z0.
  int warm_started = 0;
  for (const SweepPoint& p : warm.points) {
    if (p.warm_start_from >= 0) {
      ++warm_started;
      EXPECT_NE(p.warm_start_from, p.index);
    }
  }
  EXPECT_EQ(warm_started, 20);  // all but the first in the walk
  for (const SweepPoint& p : cold.points) EXPECT_EQ(p.warm_start_from, -1);
  // And each matches the analytic WC point.
  for (const SweepPoint& p : warm.points) {
    const Eigen::VectorXd expected = Gebken().pareto_point(
        Eigen::Map<const Eigen::VectorXd>(p.preference.data(), 2),
        Eigen::Vector2d::Zero());
    EXPECT_LT((p.summary.z - expected).norm(), fast.z_tolerance) << p.index;
  }
  EXPECT_TRUE(warm.warm_start);
  EXPECT_FALSE(cold.warm_start);
  EXPECT_EQ(warm.termination_type, cold.termination_type);
}

TEST(ParetoSweep, OneAndTwoThreadsGiveTheSamePoints) {
  const Fast fast = FastOptions();
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver = fast.options;
  const auto preferences = EvenPreferences(31);
  ParetoSweep::Summary one, two;
  options.num_threads = 1;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &one);
  options.num_threads = 2;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &two);
  EXPECT_EQ(one.num_threads_used, 1);
  EXPECT_EQ(two.num_threads_given, 2);
  EXPECT_EQ(two.num_threads_used, 2);
  ExpectSamePoints(one, two, fast.z_tolerance);
  int by_thread[2] = {0, 0};
  for (const SweepPoint& p : two.points) {
    ASSERT_GE(p.thread, 0);
    ASSERT_LT(p.thread, 2);
    ++by_thread[p.thread];
    EXPECT_EQ(p.status, SweepPoint::SOLVED);
  }
  // Points this cheap may all be taken by whichever thread starts first
  // (idle threads steal work), so only the total is fixed.
  EXPECT_EQ(by_thread[0] + by_thread[1], 31);
  EXPECT_EQ(two.num_solved, 31);
  // With warm starts the two runs start points from different neighbours,
  // so points agree to the solver's accuracy (z within z_tolerance), not
  // bit for bit; the hypervolume moves by at most a few times that.
  EXPECT_NEAR(one.hypervolume, two.hypervolume, 10 * fast.z_tolerance);
}

// ecmo/sweep.h: a point that starts from the problem's start point uses
// Options::solver.warm_start as given. Each point of a cold two-thread
// sweep must be the solve ecmo::Solve gives for its preference with the
// same options (the same work and z), and differ from the solve without
// the given warm start, so that the check can fail.
TEST(ParetoSweep, ColdPointsUseTheGivenSolverWarmStart) {
  Fast fast = FastOptions();
  if (fast.options.strategy != StrategyType::WC_AUGMENTED_LAGRANGIAN) {
    GTEST_SKIP() << "quasi-Newton strategies not built";
  }
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver = fast.options;
  options.solver.warm_start.penalty_u = 1e4;
  options.warm_start = false;
  options.num_threads = 2;
  const auto preferences = EvenPreferences(6);
  ParetoSweep::Summary sweep;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &sweep);
  ASSERT_EQ(sweep.num_solved, 6);
  int differs = 0;
  for (size_t i = 0; i < preferences.size(); ++i) {
    const Solver::Summary& point = sweep.points[i].summary;
    ASSERT_EQ(point.termination_type, ceres::CONVERGENCE) << point.message;
    Solver::Summary alone, plain;
    Solve(options.solver, Gebken().build()->problem, preferences[i], &alone);
    Solve(fast.options, Gebken().build()->problem, preferences[i], &plain);
    EXPECT_EQ(point.evaluations.gradient_evaluations,
              alone.evaluations.gradient_evaluations)
        << "point " << i;
    EXPECT_LT((point.z - alone.z).norm(), 1e-12) << "point " << i;
    differs += plain.evaluations.gradient_evaluations !=
               alone.evaluations.gradient_evaluations;
  }
  EXPECT_GT(differs, 0) << "penalty_u = 1e4 changed no solve: the test "
                           "cannot tell whether the sweep used it";
}

// Records, per thread, the order in which its points finish (callbacks
// run one at a time, under the sweep's lock).
class FinishOrder : public SweepCallback {
 public:
  CallbackReturnType operator()(const SweepPoint& point) override {
    if (point.thread >= 0 && point.thread < 2) {
      by_thread[point.thread].push_back(point.index);
    }
    return ceres::SOLVER_CONTINUE;
  }
  std::vector<int> by_thread[2];
};

TEST(ParetoSweep, TwoThreadsStartAtTheTwoEndsOfTheWalk) {
  // Each thread's chain starts at an end of the front, as one thread's
  // does, and the two meet in the middle (a chain started cold in the
  // middle cost more evaluations per point). Whatever the timing, a point
  // solved without a finished neighbour to start from is an end: a thread
  // starts at the end of its own chunk, and a thread that steals (or takes
  // the whole of a chunk whose owner has not started, which happens when
  // the caller is descheduled for the whole sweep) has finished points of
  // its own to start from.
  const Fast fast = FastOptions();
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver = fast.options;
  options.num_threads = 2;
  FinishOrder order;
  options.callbacks.push_back(&order);
  const int n = 41;
  ParetoSweep::Summary summary;
  Sweep(options,
        MakeProblemFactory(Gebken().build),
        EvenPreferences(n),
        &summary);
  ASSERT_EQ(summary.num_solved, n) << summary.FullReport();
  ASSERT_EQ(summary.num_threads_used, 2);
  EXPECT_EQ(order.by_thread[0].size() + order.by_thread[1].size(),
            static_cast<size_t>(n));
  const std::set<int> ends = {0, n - 1};
  std::set<int> cold;
  for (int i = 0; i < n; ++i) {
    if (summary.points[i].warm_start_from < 0) cold.insert(i);
  }
  ASSERT_FALSE(cold.empty());
  for (int i : cold) EXPECT_EQ(ends.count(i), 1u) << "cold point " << i;
  // When both threads start on their own chunks, they take the two ends.
  if (!order.by_thread[0].empty() && !order.by_thread[1].empty() &&
      ends.count(order.by_thread[0].front()) == 1 &&
      ends.count(order.by_thread[1].front()) == 1) {
    EXPECT_NE(order.by_thread[0].front(), order.by_thread[1].front());
  }
  // Only a thread's first point can be cold: after it, the thread has a
  // finished point of its own to start from.
  for (const std::vector<int>& mine : order.by_thread) {
    for (size_t j = 1; j < mine.size(); ++j) {
      EXPECT_EQ(cold.count(mine[j]), 0u) << "point " << mine[j];
    }
  }
}

TEST(ParetoSweep, SharedProblemHonoursThreadSafety) {
  const Fast fast = FastOptions();
  auto instance = Gebken().build();
  const Eigen::VectorXd start = instance->start;
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver = fast.options;
  options.num_threads = 2;
  const auto preferences = EvenPreferences(9);
  ParetoSweep::Summary basic, none;
  Sweep(options, instance->problem, ThreadSafety::BASIC, preferences, &basic);
  EXPECT_EQ(basic.num_threads_used, 2);
  EXPECT_EQ(basic.num_usable, 9) << basic.FullReport();
  Sweep(options, instance->problem, ThreadSafety::NONE, preferences, &none);
  EXPECT_EQ(none.num_threads_used, 1);
  EXPECT_NE(none.threads_message.find("ThreadSafety::NONE"), std::string::npos)
      << none.threads_message;
  ExpectSamePoints(basic, none, fast.z_tolerance);
  // The user's blocks are read, never written.
  Eigen::VectorXd now(2);
  instance->problem.GetParameters(now.data());
  EXPECT_EQ(now, start);
}

TEST(ParetoSweep, FloorMovesZeroWeightsIntoTheOpenSimplexAndSaysSo) {
  const Fast fast = FastOptions();
  ParetoSweep::Options options;
  options.solver = fast.options;
  options.preference_floor = 1e-3;
  const std::vector<std::vector<double>> preferences = {
      {1.0, 0.0}, {0.5, 0.5}, {0.0, 2.0}};
  ParetoSweep::Summary summary;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &summary);
  ASSERT_EQ(summary.num_usable, 3) << summary.FullReport();
  EXPECT_EQ(summary.changed_preferences, (std::vector<int>{0, 2}));
  EXPECT_TRUE(summary.points[0].preference_changed);
  EXPECT_FALSE(summary.points[1].preference_changed);
  EXPECT_DOUBLE_EQ(summary.points[0].preference[1], 1e-3);
  EXPECT_DOUBLE_EQ(summary.points[2].preference[0], 1e-3);
  EXPECT_DOUBLE_EQ(summary.points[2].preference_given[1], 2.0);
  // The solver saw the floored preference.
  EXPECT_DOUBLE_EQ(summary.points[0].summary.preference[1], 1e-3);
  EXPECT_NE(summary.FullReport().find("2 preference(s) raised"),
            std::string::npos);
}

TEST(ParetoSweep, BadPreferencesFailPerPointAndTheSweepGoesOn) {
  const Fast fast = FastOptions();
  ParetoSweep::Options options;
  options.solver = fast.options;
  const std::vector<std::vector<double>> preferences = {
      {0.3, 0.7}, {0.5}, {-1.0, 2.0}, {0.0, 0.0}, {0.6, 0.4}};
  ParetoSweep::Summary summary;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &summary);
  EXPECT_EQ(summary.num_points, 5);
  EXPECT_EQ(summary.num_usable, 2);
  EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE);
  EXPECT_FALSE(summary.AllPointsUsable());
  EXPECT_NE(summary.points[1].summary.message.find("has 1 entries"),
            std::string::npos)
      << summary.points[1].summary.message;
  EXPECT_NE(summary.points[2].summary.message.find(">= 0"), std::string::npos);
  EXPECT_NE(summary.points[3].summary.message.find("all zeros"),
            std::string::npos);
  EXPECT_EQ(summary.points[1].summary.termination_type, ceres::FAILURE);
  EXPECT_EQ(summary.non_dominated.size(), 2u);
}

TEST(ParetoSweep, InvalidOptionsAndProblemsGiveAFailureSummary) {
  ParetoSweep::Options options;
  std::string error;
  options.num_threads = 0;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("ParetoSweep::Options::num_threads = 0"),
            std::string::npos)
      << error;
  options.num_threads = 1;
  options.preference_floor = 0.0;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("preference_floor"), std::string::npos);
  options.preference_floor = 1e-4;
  options.resume = true;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("jsonl_path"), std::string::npos);
  options.resume = false;
  options.solver.max_iterations = 0;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("max_iterations"), std::string::npos);

  // On two threads too: the helper, woken before the options are checked,
  // is sent home and the call returns.
  ParetoSweep::Summary summary;
  for (int threads : {1, 2}) {
    options.num_threads = threads;
    options.solver.max_iterations = 0;
    Sweep(options,
          MakeProblemFactory(Gebken().build),
          EvenPreferences(3),
          &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("max_iterations"), std::string::npos);
    EXPECT_EQ(summary.num_not_solved, 3);

    options.solver.max_iterations = 100;
    const ProblemFactory broken = [] {
      return std::shared_ptr<const Problem>();
    };
    Sweep(options, broken, EvenPreferences(3), &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("factory returned no problem"),
              std::string::npos);
  }
  options.num_threads = 1;

  Problem empty;
  Sweep(options, empty, ThreadSafety::BASIC, EvenPreferences(3), &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("Invalid problem"), std::string::npos);
}

// A factory that builds the first instance but not the second: the sweep
// runs on one thread, says why, and solves every point (the helper woken
// for the second worker returns unused).
TEST(ParetoSweep, FactoryThatFailsForTheSecondWorkerRunsOnOneThread) {
  ParetoSweep::Options options;
  options.solver = FastOptions().options;
  options.num_threads = 2;
  int built = 0;
  const ProblemFactory good = MakeProblemFactory(Gebken().build);
  const ProblemFactory once = [&]() -> std::shared_ptr<const Problem> {
    if (built++ > 0) return nullptr;
    return good();
  };
  ParetoSweep::Summary summary;
  Sweep(options, once, EvenPreferences(5), &summary);
  EXPECT_EQ(summary.num_threads_used, 1);
  EXPECT_NE(summary.threads_message.find("failed to build instance 1"),
            std::string::npos)
      << summary.threads_message;
  EXPECT_EQ(summary.num_converged, 5) << summary.FullReport();
  for (const SweepPoint& p : summary.points) EXPECT_EQ(p.thread, 0);
}

// A factory that throws: the exception reaches the caller, for the first
// worker and for the second, and the call does not hang on the helper
// woken before the workers were built.
TEST(ParetoSweep, FactoryThatThrowsReachesTheCallerOnTwoThreads) {
  ParetoSweep::Options options;
  options.solver = FastOptions().options;
  options.num_threads = 2;
  const ProblemFactory good = MakeProblemFactory(Gebken().build);
  for (int throw_at : {0, 1}) {
    int built = 0;
    const ProblemFactory throwing = [&]() -> std::shared_ptr<const Problem> {
      if (built++ == throw_at) throw std::runtime_error("factory broke");
      return good();
    };
    ParetoSweep::Summary summary;
    EXPECT_THROW(Sweep(options, throwing, EvenPreferences(5), &summary),
                 std::runtime_error)
        << "instance " << throw_at;
  }
}

class CountingCallback : public SweepCallback {
 public:
  explicit CountingCallback(int stop_after) : stop_after_(stop_after) {}
  CallbackReturnType operator()(const SweepPoint& point) override {
    EXPECT_EQ(point.status, SweepPoint::SOLVED);
    return ++calls_ >= stop_after_ ? ceres::SOLVER_ABORT
                                   : ceres::SOLVER_CONTINUE;
  }
  int calls() const { return calls_; }

 private:
  int stop_after_;
  int calls_ = 0;
};

TEST(ParetoSweep, CallbackCanStopTheSweep) {
  const Fast fast = FastOptions();
  ParetoSweep::Options options;
  options.solver = fast.options;
  CountingCallback callback(4);
  options.callbacks.push_back(&callback);
  ParetoSweep::Summary summary;
  Sweep(options,
        MakeProblemFactory(Gebken().build),
        EvenPreferences(12),
        &summary);
  EXPECT_EQ(callback.calls(), 4);
  EXPECT_EQ(summary.num_solved, 4);
  EXPECT_EQ(summary.num_not_solved, 8);
  EXPECT_EQ(summary.termination_type, ceres::USER_FAILURE);
}

TEST(ParetoSweep, AutomaticOffsetIsFixedOnceForAllPoints) {
  // With automatic offsets computed per start point, warm starts would
  // change the scalarization; the sweep computes them once at z0.
  Fast fast = FastOptions();
  fast.options.automatic_objective_offset = true;
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver = fast.options;
  ParetoSweep::Summary summary;
  Sweep(options,
        MakeProblemFactory(Gebken().build),
        EvenPreferences(5),
        &summary);
  ASSERT_EQ(summary.num_usable, 5);
  for (const SweepPoint& p : summary.points) {
    EXPECT_EQ(p.summary.objective_offset_used,
              summary.points[0].summary.objective_offset_used);
  }
}

TEST(ParetoSweep, HypervolumeApproachesTheAnalyticFront) {
  const Fast fast = FastOptions();
  const Eigen::MatrixXd analytic = Gebken().pareto_front(20001);
  // A reference point outside the whole front, common to every sweep.
  Eigen::VectorXd reference = Nadir(analytic).array() + 0.5;
  const double exact = Hypervolume(analytic, reference);
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver = fast.options;
  options.reference_point = {reference[0], reference[1]};
  double previous_gap = 1e9;
  for (int n : {5, 21, 101}) {
    std::vector<std::vector<double>> preferences;
    std::string error;
    for (const auto& w : EvenlySpaced2(n, &error)) preferences.push_back(w);
    ParetoSweep::Summary summary;
    Sweep(options, MakeProblemFactory(Gebken().build), preferences, &summary);
    ASSERT_EQ(summary.num_usable, n) << summary.FullReport();
    EXPECT_EQ(summary.reference_point, reference);
    const double gap = (exact - summary.hypervolume) / exact;
    EXPECT_GT(gap, -1e-6) << "n = " << n;  // a subset cannot exceed the front
    EXPECT_LT(gap, previous_gap) << "n = " << n;
    previous_gap = gap;
  }
  EXPECT_LT(previous_gap, 0.01);
}

TEST(ParetoSweep, IdealNadirAndNonDominatedIndices) {
  const Fast fast = FastOptions();
  ParetoSweep::Options options;
  options.solver = fast.options;
  ParetoSweep::Summary summary;
  Sweep(options,
        MakeProblemFactory(Gebken().build),
        EvenPreferences(7),
        &summary);
  ASSERT_EQ(summary.num_usable, 7);
  Eigen::MatrixXd f(7, 2);
  for (int i = 0; i < 7; ++i) f.row(i) = summary.points[i].summary.objectives;
  EXPECT_EQ(summary.ideal, Ideal(f));
  EXPECT_EQ(summary.nadir, Nadir(f));
  // The front as the report counts it and ecmo_plot draws it.
  EXPECT_EQ(summary.non_dominated, NonDominatedWithTolerance(f));
  EXPECT_EQ(summary.reference_point, DefaultReferencePoint(f));
  EXPECT_NEAR(
      summary.hypervolume, Hypervolume(f, DefaultReferencePoint(f)), 1e-12);
  EXPECT_GE(summary.worst_kkt_residual_sq, 0.0);
  EXPECT_LE(summary.worst_kkt_residual_sq_least_squares,
            summary.worst_kkt_residual_sq + 1e-15);
  const nlohmann::json j = SweepToJson(summary, "gebken_circle");
  for (const char* key : {"points",
                          "hypervolume",
                          "reference_point",
                          "ideal",
                          "nadir",
                          "non_dominated",
                          "num_threads_used"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["points"].size(), 7u);
}

// What a user reads to decide which points to keep: the objectives' names
// (the problem's own, "f1" and "f2" in the registry's gebken_circle), one
// row per point with its verdict, time and start, in the report, the JSON
// and the CSV.
TEST(ParetoSweep, OutputsNameObjectivesAndSayWhichPointsAreCertified) {
  const Fast fast = FastOptions();
  ParetoSweep::Options options;
  options.solver = fast.options;
  options.warm_start = true;
  options.problem_name = "gebken_circle";
  options.csv_path = ::testing::TempDir() + "/outputs_named.csv";
  auto preferences = EvenPreferences(5);
  ParetoSweep::Summary summary;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &summary);
  ASSERT_EQ(summary.num_usable, 5) << summary.FullReport();
  EXPECT_EQ(summary.objective_names, (std::vector<std::string>{"f1", "f2"}));
  const std::string report = summary.FullReport();
  EXPECT_NE(report.find("Objectives"), std::string::npos) << report;
  EXPECT_NE(report.find("f1, f2"), std::string::npos) << report;
  EXPECT_NE(report.find("certified"), std::string::npos) << report;
  int warm = 0;
  for (const SweepPoint& p : summary.points) {
    const bool certified = p.summary.termination_type == ceres::CONVERGENCE;
    // The point's row: its index, then its verdict and its start.
    std::istringstream lines(report);
    bool found = false;
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      int index = -1;
      if (!(fields >> index) || index != p.index) continue;
      if (line.find("warm ") == std::string::npos &&
          line.find("cold") == std::string::npos) {
        continue;
      }
      found = true;
      EXPECT_NE(line.find(certified ? "  yes " : "  no "), std::string::npos)
          << line;
      EXPECT_NE(line.find(p.warm_start_from < 0
                              ? std::string("cold")
                              : "warm " + std::to_string(p.warm_start_from)),
                std::string::npos)
          << line;
      EXPECT_NE(line.find(StrategyTypeToString(p.summary.strategy)),
                std::string::npos)
          << line;
    }
    EXPECT_TRUE(found) << "point " << p.index << "\n" << report;
    if (p.warm_start_from >= 0) ++warm;
  }
  EXPECT_GT(warm, 0);
  const nlohmann::json j = SweepToJson(summary, "gebken_circle");
  EXPECT_EQ(j["objective_names"], nlohmann::json({"f1", "f2"}));
  for (const nlohmann::json& p : j["points"]) {
    EXPECT_EQ(p["certified"].get<bool>(), p["termination"] == "CONVERGENCE");
  }
  std::ifstream csv(options.csv_path);
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, SweepCsvHeader(2, 2));
  EXPECT_EQ(header.rfind("index,warm_start_from,problem,", 0), 0u) << header;
  int rows = 0;
  for (std::string line; std::getline(csv, line);) {
    if (line.empty()) continue;
    ++rows;
    const int index = std::stoi(line.substr(0, line.find(',')));
    ASSERT_GE(index, 0);
    ASSERT_LT(index, 5);
    EXPECT_EQ(line, SweepCsvRow(summary.points[index], "gebken_circle"));
  }
  EXPECT_EQ(rows, 5);
}

// Three objectives: squared distances to three points, on the unit sphere.
struct DistanceTo {
  DistanceTo(double x, double y, double z) : c{x, y, z} {}
  template <typename T>
  bool operator()(const T* p, T* f) const {
    f[0] = T(0.5);
    for (int i = 0; i < 3; ++i) f[0] += (p[i] - c[i]) * (p[i] - c[i]);
    return true;
  }
  double c[3];
};
struct OnSphere {
  template <typename T>
  bool operator()(const T* p, T* h) const {
    h[0] = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - 1.0;
    return true;
  }
};
struct SphereInstance {
  double z[3] = {0.3, 0.3, 0.9};
  Problem problem;
  SphereInstance() {
    const double c[3][3] = {{2, 0, 0}, {0, 2, 0}, {0, 0, 2}};
    for (const auto& p : c) {
      problem.AddObjective(new ceres::AutoDiffCostFunction<DistanceTo, 1, 3>(
                               new DistanceTo(p[0], p[1], p[2])),
                           {z});
    }
    problem.AddConstraint(
        new ceres::AutoDiffCostFunction<OnSphere, 1, 3>(new OnSphere), {z});
  }
};

TEST(ParetoSweep, ThreeObjectivesWarmColdAndThreadsAgree) {
  const Fast fast = FastOptions();
  const ProblemFactory factory = MakeProblemFactory<SphereInstance>(
      [] { return std::make_unique<SphereInstance>(); });
  std::string error;
  const auto preferences = DasDennis(3, 8, &error);  // 45 points
  ASSERT_EQ(preferences.size(), 45u);
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver = fast.options;
  options.solver.objective_offset = {0.0, 0.0, 0.0};
  ParetoSweep::Summary warm2, cold1;
  options.num_threads = 2;
  Sweep(options, factory, preferences, &warm2);
  options.num_threads = 1;
  options.warm_start = false;
  Sweep(options, factory, preferences, &cold1);
  ASSERT_EQ(warm2.num_usable, 45) << warm2.FullReport();
  ASSERT_EQ(cold1.num_usable, 45) << cold1.FullReport();
  ExpectSamePoints(warm2, cold1, fast.z_tolerance);
  EXPECT_EQ(warm2.changed_preferences.size(), 24u);  // entries equal to 0
  EXPECT_GT(warm2.hypervolume, 0.0);
  EXPECT_EQ(warm2.ideal.size(), 3);
}

// The automatic scalarization's single-objective solves are shared among
// a sweep's threads (each on its own worker's evaluator): the reference
// point, scales and payoff table must be the one-thread ones bit for bit,
// with the same total work, for S = 2 and S = 3, and a cold sweep's points
// then too (each point's solve is the same computation on any thread).
TEST(ParetoSweep, SharedSingleObjectiveSolvesGiveTheOneThreadScalarization) {
  const Fast fast = FastOptions();
  const ProblemFactory sphere = MakeProblemFactory<SphereInstance>(
      [] { return std::make_unique<SphereInstance>(); });
  std::string error;
  struct Case {
    ProblemFactory factory;
    std::vector<std::vector<double>> preferences;
  };
  const Case cases[] = {
      {MakeProblemFactory(Gebken().build), EvenPreferences(9)},
      {sphere, DasDennis(3, 3, &error)}};
  for (const Case& c : cases) {
    ParetoSweep::Options options;
    options.solver = fast.options;
    options.solver.objective_offset.clear();  // the automatic utopia point
    options.warm_start = false;
    ParetoSweep::Summary runs[2];
    for (int threads = 1; threads <= 2; ++threads) {
      options.num_threads = threads;
      Sweep(options, c.factory, c.preferences, &runs[threads - 1]);
    }
    const Scalarization& one = runs[0].scalarization;
    const Scalarization& two = runs[1].scalarization;
    const int S = static_cast<int>(c.preferences[0].size());
    ASSERT_EQ(runs[1].num_threads_used, 2) << runs[1].threads_message;
    ASSERT_EQ(one.num_single_objective_solves, S) << runs[0].FullReport();
    EXPECT_EQ(two.num_single_objective_solves, S);
    EXPECT_EQ(two.reference_point_type, ReferencePointType::UTOPIA);
    EXPECT_TRUE(two.normalized);
    testing::ExpectSameScalarization(two, one);
    ASSERT_EQ(runs[0].points.size(), runs[1].points.size());
    for (size_t i = 0; i < runs[0].points.size(); ++i) {
      EXPECT_EQ(runs[0].points[i].summary.z, runs[1].points[i].summary.z)
          << "S = " << S << ", point " << i;
    }
  }
}

TEST(ParetoSweep, ThinHistoryKeepsEndsAndLogSpacing) {
  std::vector<IterationSummary> history(100000);
  for (int i = 0; i < 100000; ++i) history[i].iteration = i;
  ThinHistory(100, &history);
  ASSERT_GE(history.size(), 50u);
  ASSERT_LE(history.size(), 101u);
  EXPECT_EQ(history.front().iteration, 0);
  EXPECT_EQ(history.back().iteration, 99999);
  for (size_t i = 1; i < history.size(); ++i) {
    EXPECT_LT(history[i - 1].iteration, history[i].iteration);
  }
  // Log spacing: the first iterations are all kept.
  EXPECT_EQ(history[1].iteration, 1);
  std::vector<IterationSummary> same(10);
  ThinHistory(3, &same);
  EXPECT_EQ(same.size(), 2u);
}

TEST(ParetoSweep, SummaryJsonRoundTrip) {
  Solver::Options solver;
  solver.max_iterations = 300;
  solver.history_stride = 10;
  auto instance = Gebken().build();
  Solver::Summary summary;
  Solve(solver, instance->problem, {0.4, 0.6}, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable());
  ASSERT_FALSE(summary.history.empty());
  const nlohmann::json j = SummaryToJson(summary, "gebken_circle");
  Solver::Summary back;
  std::string error;
  ASSERT_TRUE(SummaryFromJson(nlohmann::json::parse(j.dump()), &back, &error))
      << error;
  EXPECT_EQ(back.termination_type, summary.termination_type);
  EXPECT_EQ(back.z, summary.z);
  EXPECT_EQ(back.objectives, summary.objectives);
  EXPECT_EQ(back.preference, summary.preference);
  EXPECT_EQ(back.iterations, summary.iterations);
  EXPECT_EQ(back.evaluations.gradient_evaluations,
            summary.evaluations.gradient_evaluations);
  EXPECT_NEAR(back.kkt.with_solver_multipliers.SquaredNorm(),
              summary.kkt.with_solver_multipliers.SquaredNorm(),
              1e-14 * (1 + summary.kkt.with_solver_multipliers.SquaredNorm()));
  EXPECT_EQ(back.kkt.least_squares_multipliers.nu,
            summary.kkt.least_squares_multipliers.nu);
  ASSERT_EQ(back.history.size(), summary.history.size());
  EXPECT_EQ(back.history.back().iteration, summary.history.back().iteration);
  EXPECT_EQ(back.history.back().kkt_residual_sq,
            summary.history.back().kkt_residual_sq);
  const std::string row = CsvRow(back, "g");
  const std::string original = CsvRow(summary, "g");
  EXPECT_EQ(std::count(row.begin(), row.end(), ','),
            std::count(original.begin(), original.end(), ','));
  // Field by field: numbers round-trip to within rounding (the KKT blocks
  // are stored as squared norms and restored through their square roots).
  {
    std::stringstream a(row.substr(0, row.find(",nan")));
    std::stringstream b(original.substr(0, original.find(",nan")));
    std::string fa, fb;
    while (std::getline(a, fa, ',') && std::getline(b, fb, ',')) {
      char* end_a = nullptr;
      char* end_b = nullptr;
      const double va = std::strtod(fa.c_str(), &end_a);
      const double vb = std::strtod(fb.c_str(), &end_b);
      if (*end_a == '\0' && *end_b == '\0' && !fa.empty() && !fb.empty()) {
        EXPECT_NEAR(va, vb, 1e-14 * std::abs(vb)) << fa << " vs " << fb;
      } else {
        EXPECT_EQ(fa, fb);
      }
    }
  }

  EXPECT_FALSE(SummaryFromJson(nlohmann::json::array(), &back, &error));
  nlohmann::json bad = j;
  bad["z"] = "oops";
  EXPECT_FALSE(SummaryFromJson(bad, &back, &error));
  EXPECT_NE(error.find("\"z\""), std::string::npos) << error;
}

// Solver::Options::warm_start: the augmented Lagrangian started near the
// solution with multiplier estimates and the neighbour's penalties needs a
// fraction of a cold start's gradient evaluations and finds the same point.
// From the exact neighbour (lambda_1 = 0.5) it saves a little; from the
// secant prediction through two neighbours (0.49, 0.5), as ParetoSweep
// does, it needs well under half.
TEST(WarmStart, AugmentedLagrangianFromNeighbourIsFarCheaperThanCold) {
  Solver::Options options;
  if (!StringToStrategyType("wc-augmented-lagrangian", &options.strategy)) {
    GTEST_SKIP() << "quasi-Newton strategies not built";
  }
  options.kkt_tolerance = 1e-12;
  options.objective_offset = Gebken().objective_offset;
  const std::vector<double> preference = {0.51, 0.49};

  auto solve = [&](const Solver::Options& o,
                   const Eigen::VectorXd* z0,
                   const std::vector<double>& w) {
    std::unique_ptr<problems::ProblemInstance> instance = Gebken().build();
    if (z0 != nullptr) instance->problem.SetParameters(z0->data());
    Solver::Summary summary;
    Solve(o, instance->problem, w, &summary);
    return summary;
  };
  const Solver::Summary before = solve(options, nullptr, {0.49, 0.51});
  const Solver::Summary neighbour = solve(options, nullptr, {0.5, 0.5});
  ASSERT_EQ(before.termination_type, ceres::CONVERGENCE) << before.message;
  ASSERT_EQ(neighbour.termination_type, ceres::CONVERGENCE)
      << neighbour.message;
  const Solver::Summary cold = solve(options, nullptr, preference);
  ASSERT_EQ(cold.termination_type, ceres::CONVERGENCE) << cold.message;
  const int64_t cold_evaluations = cold.evaluations.gradient_evaluations;

  // Exact neighbour: z, multipliers and penalties of lambda_1 = 0.5.
  Solver::Options warm_options = options;
  warm_options.warm_start.omega = neighbour.kkt.solver_multipliers.omega;
  warm_options.warm_start.nu = neighbour.kkt.solver_multipliers.nu;
  warm_options.warm_start.penalty_u = neighbour.penalty_u;
  warm_options.warm_start.penalty_v = neighbour.penalty_v;
  const Solver::Summary warm = solve(warm_options, &neighbour.z, preference);
  ASSERT_EQ(warm.termination_type, ceres::CONVERGENCE) << warm.message;
  EXPECT_LT(warm.evaluations.gradient_evaluations, cold_evaluations);
  EXPECT_LT((warm.z - cold.z).norm(), 1e-5);

  // Secant prediction of z and the multipliers.
  const Eigen::VectorXd z_secant = 2.0 * neighbour.z - before.z;
  warm_options.warm_start.omega = 2.0 * neighbour.kkt.solver_multipliers.omega -
                                  before.kkt.solver_multipliers.omega;
  warm_options.warm_start.nu = 2.0 * neighbour.kkt.solver_multipliers.nu -
                               before.kkt.solver_multipliers.nu;
  const Solver::Summary secant = solve(warm_options, &z_secant, preference);
  ASSERT_EQ(secant.termination_type, ceres::CONVERGENCE) << secant.message;
  EXPECT_LE(secant.evaluations.gradient_evaluations, 0.4 * cold_evaluations)
      << "secant " << secant.evaluations.gradient_evaluations << ", cold "
      << cold_evaluations;
  EXPECT_LT((secant.z - cold.z).norm(), 1e-5);
  if (Gebken().pareto_point) {
    Eigen::VectorXd offset = Eigen::VectorXd::Zero(2);
    if (options.objective_offset.size() == 2) {
      offset = Eigen::Vector2d(options.objective_offset[0],
                               options.objective_offset[1]);
    }
    const Eigen::VectorXd expected = Gebken().pareto_point(
        Eigen::Map<const Eigen::VectorXd>(preference.data(), 2), offset);
    if (expected.size() == 2) {
      EXPECT_LT((secant.z - expected).norm(), 1e-5);
    }
  }
}

TEST(WarmStart, WrongSizesAndValuesFailWithAClearMessage) {
  Solver::Options options;
  options.objective_offset = Gebken().objective_offset;
  auto solve = [&](const Solver::Options& o) {
    std::unique_ptr<problems::ProblemInstance> instance = Gebken().build();
    Solver::Summary summary;
    Solve(o, instance->problem, {0.5, 0.5}, &summary);
    return summary;
  };
  Solver::Options bad = options;
  bad.warm_start.omega = Eigen::VectorXd::Constant(3, 0.5);
  Solver::Summary summary = solve(bad);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("warm_start.omega has 3 entries"),
            std::string::npos)
      << summary.message;

  bad = options;
  bad.warm_start.omega = Eigen::Vector2d(0.5, -0.5);
  bad.warm_start.nu = Eigen::VectorXd::Zero(1);
  summary = solve(bad);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("warm_start.omega[1]"), std::string::npos)
      << summary.message;

  bad = options;
  bad.warm_start.omega = Eigen::Vector2d(0.5, 0.5);
  bad.warm_start.nu = Eigen::VectorXd::Constant(1, NAN);
  summary = solve(bad);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("warm_start.nu[0] = nan"), std::string::npos)
      << summary.message;

  bad.warm_start.nu = Eigen::VectorXd::Zero(1);
  bad.warm_start.preference = {0.5};
  summary = solve(bad);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("warm_start.preference has 1 entries"),
            std::string::npos)
      << summary.message;

  // Every check passed: solved.
  bad.warm_start.preference = {0.5, 0.5};
  summary = solve(bad);
  EXPECT_TRUE(summary.IsSolutionUsable()) << summary.message;

  bad = options;
  bad.warm_start.penalty_u = -1.0;
  std::string error;
  EXPECT_FALSE(bad.IsValid(&error));
  EXPECT_NE(error.find("warm_start.penalty_u"), std::string::npos) << error;

  // Penalties alone are a valid warm start; empty is cold.
  Solver::Options penalties_only = options;
  penalties_only.warm_start.penalty_u = 100.0;
  EXPECT_TRUE(penalties_only.warm_start.IsSet());
  EXPECT_FALSE(options.warm_start.IsSet());
  summary = solve(penalties_only);
  EXPECT_TRUE(summary.IsSolutionUsable()) << summary.message;
}

// The neighbour's multipliers carried over to a new preference keep the
// neighbour's point stationary (checked on the KKT system itself), where
// the multipliers as given do not; across a change of more than a factor 4
// nothing is carried; Solve takes the field and checks it.
TEST(WarmStart, CarriedMultipliersKeepTheNeighbourStationary) {
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  options.objective_offset = Gebken().objective_offset;
  std::unique_ptr<problems::ProblemInstance> instance = Gebken().build();
  Solver::Summary neighbour;
  Solve(options, instance->problem, {0.4, 0.6}, &neighbour);
  ASSERT_EQ(neighbour.termination_type, ceres::CONVERGENCE)
      << neighbour.message;
  const Eigen::VectorXd scale = neighbour.scalarization.objective_scale;
  const Eigen::VectorXd offset = Eigen::Map<const Eigen::VectorXd>(
      neighbour.objective_offset_used.data(), 2);
  const Eigen::Vector2d preference(0.55, 0.45);
  Solver::Options::WarmStart warm;
  warm.omega = neighbour.kkt.solver_multipliers.omega;
  warm.nu = neighbour.kkt.solver_multipliers.nu;
  warm.preference = {0.4, 0.6};
  Solver::Options::WarmStart carried = warm;
  ASSERT_TRUE(CarryWarmStartOver(preference, &carried));
  EXPECT_NEAR(carried.omega.sum(), warm.omega.sum(), 1e-14);
  ProblemEvaluator evaluator(&instance->problem);
  auto stationarity = [&](const Solver::Options::WarmStart& w) {
    KktMultipliers m;
    m.omega = w.omega;
    m.nu = w.nu;
    KktReport report;
    std::string error;
    EXPECT_TRUE(ComputeKktReport(&evaluator,
                                 preference.cwiseQuotient(scale),
                                 offset,
                                 neighbour.final_rho,
                                 neighbour.z,
                                 m,
                                 &report,
                                 &error))
        << error;
    return report.with_solver_multipliers.stationarity.norm();
  };
  EXPECT_LT(stationarity(carried), 1e-6);
  EXPECT_GT(stationarity(warm), 1e-2);
  // A change by more than a factor 4: nothing is carried.
  Solver::Options::WarmStart far = warm;
  EXPECT_FALSE(CarryWarmStartOver(Eigen::Vector2d(0.05, 0.95), &far));
  EXPECT_EQ(far.omega, warm.omega);
  // Solve with the field reaches the cold point, and refuses bad values.
  options.warm_start = warm;
  std::unique_ptr<problems::ProblemInstance> again = Gebken().build();
  again->problem.SetParameters(neighbour.z.data());
  Solver::Summary summary;
  Solve(options, again->problem, {0.55, 0.45}, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  std::unique_ptr<problems::ProblemInstance> cold_instance = Gebken().build();
  Solver::Options cold_options;
  cold_options.strategy = StrategyType::WC_NEWTON;
  cold_options.objective_offset = Gebken().objective_offset;
  Solver::Summary cold;
  Solve(cold_options, cold_instance->problem, {0.55, 0.45}, &cold);
  ASSERT_EQ(cold.termination_type, ceres::CONVERGENCE) << cold.message;
  EXPECT_LT((summary.z - cold.z).norm(), 1e-6);
  options.warm_start.preference = {0.4, -0.6};
  std::unique_ptr<problems::ProblemInstance> bad = Gebken().build();
  Solve(options, bad->problem, {0.55, 0.45}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("warm_start.preference[1]"), std::string::npos)
      << summary.message;
}

// A warm sweep passes the neighbour's multipliers and penalties on (with the
// secant prediction): with the augmented Lagrangian it costs at most a
// third of a cold sweep (issue 6 target).
TEST(WarmStart, SweepFromNeighbourMultipliersCostsAThirdOfCold) {
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  if (!StringToStrategyType("wc-augmented-lagrangian",
                            &options.solver.strategy)) {
    GTEST_SKIP() << "quasi-Newton strategies not built";
  }
  options.solver.kkt_tolerance = 1e-12;
  options.solver.record_history = false;
  options.solver.objective_offset = Gebken().objective_offset;
  options.problem_name = "gebken_circle";
  const auto preferences = EvenPreferences(101);
  ParetoSweep::Summary warm, cold;
  options.warm_start = true;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &warm);
  options.warm_start = false;
  Sweep(options, MakeProblemFactory(Gebken().build), preferences, &cold);
  ASSERT_EQ(warm.num_converged, 101) << warm.FullReport();
  ASSERT_EQ(cold.num_converged, 101) << cold.FullReport();
  ExpectSamePoints(warm, cold, 1e-5);
  EXPECT_LE(3 * warm.gradient_evaluations, cold.gradient_evaluations)
      << "warm " << warm.gradient_evaluations << ", cold "
      << cold.gradient_evaluations;
}

}  // namespace
}  // namespace ecmo
