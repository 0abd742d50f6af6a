// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Shared by the pipeline examples (pose_graph_front, bundle_adjustment_front)
// and benchmarks/pipeline_bench.cc: trace the two-objective front of a
// generated least-squares workload (ecmo/problems/pose_graph.h,
// bundle_adjustment.h) twice from the same start,
//
//   * with ecmo::Solve on a CeresProblemAdapter over the workload's
//     ceres::Problem, one weighted-Chebyshev point per preference, and
//   * with plain ceres::Solve of the weighted sum
//       sum_s (lambda_s / w_s) f_s,
//     w the objective scales of the WC scalarization (so both see the
//     objectives in the same normalized units), each on the workload built
//     with those group weights (ceres::ScaledLoss), which is what a Ceres
//     user would run instead,
//
// and compare the two: certified points, distinct points, WC points
// dominated by a weighted-sum point, the hypervolume of both fronts at one
// reference point, and the wall time of every solve.
//
// A Workload provides: a nested Options, static Create(Options, string*),
// a public ceres::Problem `problem`, ObjectiveGroups(), Costs() (the two
// unweighted objectives), ResetToStart() and CopyParametersFrom(other).
//
// Sweeps. With warm_start, preferences are visited in order of lambda_1 and
// each point starts from the previous point's solution: the WC solve also
// gets the previous multipliers and penalties (Solver::Options::warm_start,
// as ParetoSweep passes them; ecmo::Sweep takes an adapter too, see
// pose_graph_front --g2o, but these benchmarks time each solve and the
// weighted sums on identical starts), and a warm WC point that does not end in
// CONVERGENCE is solved again from the workload's start (both solves' time
// counts); then a warm WC point dominated by another WC point of the sweep
// is solved again from that point and the better result kept; the weighted
// sums start from the previous weighted-sum solution.
// Without warm_start every solve starts from the workload's start.
// The scalarization (reference point and scales, Solver::Options::
// scalarization) is computed once, before the points, and timed apart.

#ifndef ECMO_EXAMPLES_PIPELINES_PIPELINE_FRONT_H_
#define ECMO_EXAMPLES_PIPELINES_PIPELINE_FRONT_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/solver.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/indicators.h"
#include "ecmo/preference_grid.h"
#include "ecmo/scalarization.h"
#include "ecmo/solver.h"

namespace ecmo_pipelines {

struct FrontSettings {
  // Preferences (t, 1 - t), t = 0, 1/(n-1), ..., 1, moved into the open
  // simplex by ecmo::ToOpenSimplex with the floor m / (1 + m), m the
  // utopia margin (1e-2 by default: ends (0.0099, 0.9901)), so that the
  // end preferences select the corners of the payoff box (see Trace). >= 2.
  int num_points = 11;
  bool warm_start = true;
  // Options of every WC point; scalarization, reference_point,
  // objective_scale and normalize_objectives are set here (normalized
  // objectives, reference point = utopia) unless `scalarization` is given.
  ecmo::Solver::Options solver;
  // Options of every weighted-sum ceres::Solve.
  ceres::Solver::Options ceres;
  // A WC point p is dominated by a weighted-sum point q when q_s <= p_s +
  // tol_s for both s and q_s < p_s - tol_s for one, with tol_s =
  // dominance_tolerance * |p_s| (relative).
  double dominance_tolerance = 1e-6;
  // How the reference point and the objective scales are found (unless
  // solver.scalarization is given). true: from the two ends of the front
  // as plain Ceres finds them, the weighted sums with weights (1 - e, e)
  // and (e, 1 - e) from the start, e = ecmo::kDefaultPreferenceFloor
  // (1e-4): ideal_s and nadir_s from that payoff table, scales nadir -
  // ideal, reference point ideal - utopia_margin * scale. (Weights of 1e-6
  // were measured and not kept: Levenberg-Marquardt stops at its function
  // tolerance before the small term moves, so the 3,500-pose graph's end
  // landed 50 times beyond the front's and the normalized front filled 2%
  // of the payoff box.)
  // false: ecmo::ComputeScalarization (single-objective WC solves with the
  // strategy); where an objective's minimizers are not unique its payoff
  // row is an arbitrary minimizer, whose other objective can be far worse
  // than the front's end, which crowds the grid's points at that end.
  bool scalarization_by_weighted_sums = true;
  // Run the WC points and / or the weighted sums (a benchmark measures
  // each in its own process, for its peak memory).
  bool wc_points = true;
  bool weighted_sums = true;
  // Print one line per finished solve to stderr.
  bool progress = false;
  // Print the full report of every WC point to stderr.
  bool full_reports = false;
};

struct FrontPoint {
  std::vector<double> preference;
  // WC point.
  Eigen::Vector2d wc = Eigen::Vector2d::Constant(NAN);
  ecmo::TerminationType wc_termination = ceres::FAILURE;
  bool certified = false;
  bool retried_cold = false;
  // Index of the WC point this one was solved again from (it dominated the
  // warm result), or -1.
  int resolved_from = -1;
  // The WC point's parameters.
  Eigen::VectorXd z;
  double wc_seconds = 0.0;
  int outer_iterations = 0;
  int inner_iterations = 0;
  ecmo::EvaluationCounts evaluations;
  std::string wc_message;
  // Weighted-sum point.
  Eigen::Vector2d ws = Eigen::Vector2d::Constant(NAN);
  ceres::TerminationType ws_termination = ceres::FAILURE;
  double ws_seconds = 0.0;
  int ws_iterations = 0;
  // The WC point's multipliers omega (strategy's). One of them ~0 means the
  // other objective's Chebyshev term is inactive: the point minimizes one
  // objective alone (an end of the front, omega on the simplex boundary).
  Eigen::VectorXd omega;
  bool at_end = false;
  // Whether some weighted-sum point dominates the WC point.
  bool dominated = false;
};

struct FrontResult {
  int num_parameters = 0;
  ecmo::Scalarization scalarization;
  double scalarization_seconds = 0.0;
  std::vector<FrontPoint> points;
  int num_certified = 0;
  int num_distinct = 0;
  int num_dominated = 0;
  // Of those, the points at an end of the front (FrontPoint::at_end). Where
  // an objective's minimizers are not unique (an objective that does not
  // depend on every parameter: one camera group of a bundle adjustment,
  // the loop closures of a pose graph), such a point is only weakly Pareto
  // optimal: the WC problem does not care where the other objective ends,
  // as long as its term stays inactive.
  int num_dominated_at_end = 0;
  // Hypervolume of each front at a common reference point (the nadir of
  // both fronts pushed out by 10% of their range).
  Eigen::Vector2d hypervolume_reference = Eigen::Vector2d::Constant(NAN);
  double wc_hypervolume = NAN;
  double ws_hypervolume = NAN;
  double wc_seconds = 0.0;
  double ws_seconds = 0.0;
};

inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// q dominates p within the tolerance (see FrontSettings).
inline bool Dominates(const Eigen::Vector2d& q,
                      const Eigen::Vector2d& p,
                      double tolerance) {
  bool strictly = false;
  for (int s = 0; s < 2; ++s) {
    const double tol = tolerance * std::abs(p[s]);
    if (q[s] > p[s] + tol) return false;
    if (q[s] < p[s] - tol) strictly = true;
  }
  return strictly;
}

// Traces both fronts (see the top of this file). `set_weights` writes the
// two group weights into a copy of `workload_options`. False with a message
// when the workload, the adapter or the scalarization cannot be built; a
// point that fails is kept with its termination and the rest go on.
template <typename Workload>
bool TraceFront(
    const FrontSettings& settings,
    const typename Workload::Options& workload_options,
    const std::function<void(typename Workload::Options*, double, double)>&
        set_weights,
    FrontResult* result,
    std::string* error) {
  using Clock = std::chrono::steady_clock;
  *result = FrontResult();
  std::unique_ptr<Workload> workload =
      Workload::Create(workload_options, error);
  if (workload == nullptr) return false;
  ecmo::CeresProblemAdapter adapter(
      &workload->problem, workload->ObjectiveGroups(), {});
  if (!adapter.IsValid(error)) return false;
  result->num_parameters = adapter.NumParameters();

  // The scalarization, once for the front.
  ecmo::Solver::Options solver = settings.solver;
  // wc-newton's Ceres phase runs the weighted sums' own Ceres options (same
  // linear solver and tolerances).
  solver.newton.ceres = settings.ceres;
  if (solver.scalarization == nullptr &&
      settings.scalarization_by_weighted_sums) {
    const Clock::time_point start = Clock::now();
    Eigen::Matrix2d payoff;
    for (int s = 0; s < 2; ++s) {
      typename Workload::Options weighted = workload_options;
      const double tiny = ecmo::kDefaultPreferenceFloor;
      set_weights(
          &weighted, s == 0 ? 1.0 - tiny : tiny, s == 0 ? tiny : 1.0 - tiny);
      std::unique_ptr<Workload> end = Workload::Create(weighted, error);
      if (end == nullptr) return false;
      ceres::Solver::Summary summary;
      ceres::Solve(settings.ceres, &end->problem, &summary);
      if (!summary.IsSolutionUsable()) {
        *error = "the weighted sum for the end of objective " +
                 std::to_string(s + 1) + " failed: " + summary.message;
        return false;
      }
      payoff.row(s) = end->Costs().transpose();
    }
    ecmo::Scalarization& sc = result->scalarization;
    sc.payoff_table = payoff;
    sc.ideal_point = payoff.diagonal();
    sc.nadir_point = payoff.colwise().maxCoeff().transpose();
    sc.objective_scale =
        (sc.nadir_point - sc.ideal_point).cwiseMax(1e-12).eval();
    sc.reference_point =
        sc.ideal_point - solver.utopia_margin * sc.objective_scale;
    sc.normalized = true;
    sc.num_single_objective_solves = 2;
    result->scalarization_seconds = SecondsSince(start);
    solver.reference_point.assign(sc.reference_point.data(),
                                  sc.reference_point.data() + 2);
    solver.objective_scale.assign(sc.objective_scale.data(),
                                  sc.objective_scale.data() + 2);
    solver.normalize_objectives = false;
  } else if (solver.scalarization == nullptr) {
    ecmo::Solver::Options for_scalarization = solver;
    for_scalarization.normalize_objectives = true;
    const Eigen::VectorXd z0 = adapter.GetParameters();
    const Clock::time_point start = Clock::now();
    if (!ecmo::ComputeScalarization(
            for_scalarization, &adapter, z0, &result->scalarization, error)) {
      return false;
    }
    result->scalarization_seconds = SecondsSince(start);
    solver.scalarization =
        std::make_shared<const ecmo::Scalarization>(result->scalarization);
    solver.normalize_objectives = false;
  } else {
    result->scalarization = *solver.scalarization;
  }
  const Eigen::VectorXd scale = result->scalarization.objective_scale;
  workload->ResetToStart();

  // The end preferences (1 - e, e) select the corners of the payoff box:
  // at f_1 = ideal_1 the WC point balances e (f_2 - r_2) / w_2 with
  // (1 - e) m (m the utopia margin), so e = m / (1 + m) puts f_2 at the
  // nadir. ToOpenSimplex's default floor (1e-4) with m = 1e-2 would put it
  // 99 ranges beyond, far outside the front the weighted sums trace.
  // The margin is read off the scalarization (ideal - r) / w; without an
  // ideal point the default floor stays.
  double floor = ecmo::kDefaultPreferenceFloor;
  {
    const ecmo::Scalarization& sc = result->scalarization;
    if (sc.ideal_point.size() == 2 && sc.reference_point.size() == 2 &&
        sc.objective_scale.size() == 2) {
      const double margin = ((sc.ideal_point - sc.reference_point)
                                 .cwiseQuotient(sc.objective_scale))
                                .minCoeff();
      if (std::isfinite(margin) && margin > 0.0) {
        floor = std::clamp(margin / (1.0 + margin), floor, 0.25);
      }
    }
  }
  const std::vector<std::vector<double>> grid =
      ecmo::EvenlySpaced2(settings.num_points, error);
  if (grid.empty()) return false;
  result->points.resize(grid.size());

  // WC points.
  const ecmo::Solver::Summary* previous = nullptr;
  std::vector<ecmo::Solver::Summary> summaries(grid.size());
  for (size_t i = 0; i < grid.size(); ++i) {
    result->points[i].preference = ecmo::ToOpenSimplex(grid[i], floor);
    if (!settings.wc_points) continue;
    FrontPoint& point = result->points[i];
    ecmo::Solver::Options options = solver;
    const bool warm = settings.warm_start && previous != nullptr;
    if (warm) {
      // z is already in the blocks (the previous solution).
      options.warm_start.omega = previous->kkt.solver_multipliers.omega;
      options.warm_start.nu = previous->kkt.solver_multipliers.nu;
      options.warm_start.preference = previous->preference;
      options.warm_start.penalty_u = previous->penalty_u;
      options.warm_start.penalty_v = previous->penalty_v;
    } else {
      workload->ResetToStart();
    }
    ecmo::Solver::Summary& summary = summaries[i];
    Clock::time_point start = Clock::now();
    ecmo::Solve(options, &adapter, point.preference, &summary);
    point.wc_seconds = SecondsSince(start);
    point.evaluations = summary.evaluations;
    point.outer_iterations = summary.iterations;
    point.inner_iterations = summary.inner_iterations;
    if (warm && summary.termination_type != ceres::CONVERGENCE) {
      point.retried_cold = true;
      workload->ResetToStart();
      options.warm_start = ecmo::Solver::Options::WarmStart();
      start = Clock::now();
      ecmo::Solve(options, &adapter, point.preference, &summary);
      point.wc_seconds += SecondsSince(start);
      point.evaluations += summary.evaluations;
      point.outer_iterations += summary.iterations;
      point.inner_iterations += summary.inner_iterations;
    }
    point.wc_termination = summary.termination_type;
    point.wc_message = summary.message;
    point.certified = summary.IsCertified(options);
    if (summary.objectives.size() == 2) point.wc = summary.objectives;
    point.omega = summary.kkt.solver_multipliers.omega;
    point.at_end = point.omega.size() == 2 && point.omega.minCoeff() <= 1e-8;
    if (summary.IsSolutionUsable()) previous = &summary;
    point.z = adapter.GetParameters();
    result->wc_seconds += point.wc_seconds;
    if (settings.full_reports) {
      std::fprintf(stderr, "%s\n", summary.FullReport().c_str());
    }
    if (settings.progress) {
      std::fprintf(stderr,
                   "  wc point %zu: %s, %.3f s\n",
                   i,
                   summary.BriefReport().c_str(),
                   point.wc_seconds);
    }
  }

  // Warm results dominated by another WC point of the sweep (a certified
  // KKT point of a worse basin, or a weakly Pareto end where one
  // objective's minimizers are not unique) are solved again from the
  // dominating point with its multipliers; the result with the better WC
  // value max_s lambda_s (f_s - r_s) / w_s is kept (the time of both counts
  // for the point). Needs the reference point and scales in `solver`
  // (scalarization_by_weighted_sums); otherwise nothing is re-solved.
  if (settings.wc_points && settings.warm_start &&
      solver.reference_point.size() == 2 &&
      solver.objective_scale.size() == 2) {
    for (size_t i = 0; i < grid.size(); ++i) {
      FrontPoint& point = result->points[i];
      if (!point.wc.allFinite()) continue;
      int by = -1;
      for (size_t j = 0; j < grid.size(); ++j) {
        const FrontPoint& other = result->points[j];
        if (j != i && other.certified && other.wc.allFinite() &&
            Dominates(other.wc, point.wc, settings.dominance_tolerance)) {
          by = static_cast<int>(j);
          break;
        }
      }
      if (by < 0) continue;
      adapter.SetParameters(result->points[by].z.data());
      ecmo::Solver::Options options = solver;
      options.warm_start.omega = summaries[by].kkt.solver_multipliers.omega;
      options.warm_start.nu = summaries[by].kkt.solver_multipliers.nu;
      options.warm_start.preference = summaries[by].preference;
      ecmo::Solver::Summary summary;
      const Clock::time_point start = Clock::now();
      ecmo::Solve(options, &adapter, point.preference, &summary);
      point.wc_seconds += SecondsSince(start);
      result->wc_seconds += SecondsSince(start);
      point.evaluations += summary.evaluations;
      point.outer_iterations += summary.iterations;
      point.inner_iterations += summary.inner_iterations;
      if (!summary.IsCertified(options) || summary.objectives.size() != 2) {
        continue;
      }
      // Keep the better value of the point's own scalarization,
      // max_s lambda_s (f_s - r_s) / w_s.
      const Eigen::Vector2d wc = summary.objectives;
      // Ties (within 1e-6 relative: where one term is inactive the WC value
      // ignores the other objective, e.g. at an end of the front whose
      // minimizers are not unique) go to the smaller sum of the terms.
      auto terms = [&](const Eigen::Vector2d& f) {
        Eigen::Vector2d c;
        for (int s = 0; s < 2; ++s) {
          c[s] = point.preference[s] * (f[s] - solver.reference_point[s]) /
                 solver.objective_scale[s];
        }
        return c;
      };
      const Eigen::Vector2d c_new = terms(wc), c_old = terms(point.wc);
      const double tie = 1e-6 * std::abs(c_old.maxCoeff());
      const bool better = c_new.maxCoeff() < c_old.maxCoeff() - tie ||
                          (c_new.maxCoeff() <= c_old.maxCoeff() + tie &&
                           c_new.sum() < c_old.sum());
      if (!better) continue;
      point.wc = wc;
      point.certified = true;
      point.resolved_from = by;
      point.wc_termination = summary.termination_type;
      point.wc_message = summary.message;
      point.omega = summary.kkt.solver_multipliers.omega;
      point.at_end = point.omega.size() == 2 && point.omega.minCoeff() <= 1e-8;
      point.z = adapter.GetParameters();
    }
  }

  // Weighted sums.
  if (settings.weighted_sums) {
    std::unique_ptr<Workload> last;
    for (size_t i = 0; i < grid.size(); ++i) {
      FrontPoint& point = result->points[i];
      typename Workload::Options weighted = workload_options;
      set_weights(&weighted,
                  point.preference[0] / scale[0],
                  point.preference[1] / scale[1]);
      std::unique_ptr<Workload> instance = Workload::Create(weighted, error);
      if (instance == nullptr) return false;
      if (settings.warm_start && last != nullptr) {
        instance->CopyParametersFrom(*last);
      }
      ceres::Solver::Summary summary;
      const Clock::time_point start = Clock::now();
      ceres::Solve(settings.ceres, &instance->problem, &summary);
      point.ws_seconds = SecondsSince(start);
      point.ws_termination = summary.termination_type;
      point.ws_iterations = static_cast<int>(summary.iterations.size());
      point.ws = instance->Costs();
      result->ws_seconds += point.ws_seconds;
      last = std::move(instance);
      if (settings.progress) {
        std::fprintf(stderr,
                     "  weighted sum %zu: %s, %.3f s\n",
                     i,
                     summary.BriefReport().c_str(),
                     point.ws_seconds);
      }
    }
  }

  // Scores.
  std::vector<Eigen::Vector2d> distinct;
  Eigen::MatrixXd wc(grid.size(), 2), ws(grid.size(), 2);
  int num_wc = 0, num_ws = 0;
  for (FrontPoint& point : result->points) {
    if (point.certified) ++result->num_certified;
    if (point.wc.allFinite()) {
      wc.row(num_wc++) = point.wc.transpose();
      bool is_new = true;
      for (const Eigen::Vector2d& seen : distinct) {
        if (std::abs(seen[0] - point.wc[0]) <= 1e-6 * scale[0] &&
            std::abs(seen[1] - point.wc[1]) <= 1e-6 * scale[1]) {
          is_new = false;
        }
      }
      if (is_new) distinct.push_back(point.wc);
    }
    if (point.ws.allFinite()) ws.row(num_ws++) = point.ws.transpose();
  }
  result->num_distinct = static_cast<int>(distinct.size());
  for (FrontPoint& point : result->points) {
    if (!point.wc.allFinite()) continue;
    for (int j = 0; j < num_ws; ++j) {
      if (Dominates(
              ws.row(j).transpose(), point.wc, settings.dominance_tolerance)) {
        point.dominated = true;
      }
    }
    if (point.dominated) ++result->num_dominated;
    if (point.dominated && point.at_end) ++result->num_dominated_at_end;
  }
  Eigen::MatrixXd both(num_wc + num_ws, 2);
  both << wc.topRows(num_wc), ws.topRows(num_ws);
  if (both.rows() > 0) {
    result->hypervolume_reference = ecmo::DefaultReferencePoint(both, 0.1);
    result->wc_hypervolume =
        ecmo::Hypervolume(wc.topRows(num_wc), result->hypervolume_reference);
    if (num_ws > 0) {
      result->ws_hypervolume =
          ecmo::Hypervolume(ws.topRows(num_ws), result->hypervolume_reference);
    }
  }
  return true;
}

// The examples' assertions: every point certified, none inside the front
// dominated by a weighted-sum point (points at an end of the front, one
// objective's term inactive, are only weakly Pareto optimal when that
// objective's minimizers are not unique; they are reported in the table,
// not failed), and at least num_points - 1 distinct points. Prints a FAIL
// line per violation and the verdict; true when all hold.
inline bool CheckFront(const FrontResult& result, int num_points) {
  bool ok = true;
  for (const FrontPoint& p : result.points) {
    if (!p.certified) {
      std::printf("FAIL: point lambda_1 = %.4f is not certified: %s\n",
                  p.preference[0],
                  p.wc_message.c_str());
      ok = false;
    }
  }
  if (result.num_dominated > result.num_dominated_at_end) {
    std::printf(
        "FAIL: %d WC points inside the front are dominated by a "
        "weighted sum\n",
        result.num_dominated - result.num_dominated_at_end);
    ok = false;
  }
  if (result.num_distinct < num_points - 1) {
    std::printf("FAIL: only %d distinct points (want >= %d)\n",
                result.num_distinct,
                num_points - 1);
    ok = false;
  }
  std::printf("%s\n", ok ? "all checks passed" : "CHECKS FAILED");
  return ok;
}

// The per-point table.
inline void PrintFront(const FrontResult& result,
                       const char* name_1,
                       const char* name_2) {
  std::printf("%-9s %14s %14s %-11s %4s %8s %6s | %14s %14s %8s %4s\n",
              "lambda_1",
              name_1,
              name_2,
              "WC",
              "cert",
              "time[s]",
              "inner",
              name_1,
              name_2,
              "time[s]",
              "iter");
  for (const FrontPoint& p : result.points) {
    std::printf(
        "%-9.4f %14.6e %14.6e %-11s %4s %8.3f %6d | %14.6e %14.6e "
        "%8.3f %4d%s%s%s\n",
        p.preference[0],
        p.wc[0],
        p.wc[1],
        ecmo::TerminationTypeName(p.wc_termination),
        p.certified ? "yes" : "no",
        p.wc_seconds,
        p.inner_iterations,
        p.ws[0],
        p.ws[1],
        p.ws_seconds,
        p.ws_iterations,
        p.dominated
            ? (p.at_end ? "  DOMINATED (weak, at an end)" : "  DOMINATED")
            : "",
        p.retried_cold ? "  (retried cold)" : "",
        p.resolved_from >= 0 ? "  (re-solved from a dominating point)" : "");
  }
  std::printf(
      "certified %d/%zu, distinct %d, dominated by a weighted sum %d (%d of "
      "them at an end of the front, weakly Pareto); hypervolume at (%.6e, "
      "%.6e): WC %.6e, weighted sums %.6e\n",
      result.num_certified,
      result.points.size(),
      result.num_distinct,
      result.num_dominated,
      result.num_dominated_at_end,
      result.hypervolume_reference[0],
      result.hypervolume_reference[1],
      result.wc_hypervolume,
      result.ws_hypervolume);
  std::printf(
      "time: scalarization %.3f s, WC points %.3f s, weighted sums %.3f s\n",
      result.scalarization_seconds,
      result.wc_seconds,
      result.ws_seconds);
}

}  // namespace ecmo_pipelines

#endif  // ECMO_EXAMPLES_PIPELINES_PIPELINE_FRONT_H_
