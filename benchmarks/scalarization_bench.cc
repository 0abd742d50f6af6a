// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// How evenly the automatic scalarization (utopia reference point,
// normalization by nadir - utopia) spreads a sweep over the front, what
// adaptive refinement adds, and what the automatic reference point costs.
// Prints the three Markdown tables of benchmarks/README.md.
//
//   build/benchmarks/scalarization_bench [--points=101] [--smoke]
//
// Table 1, one row per registry problem and grid: a sweep of about `points`
// preferences with the default options of ecmo_solve (automatic utopia
// reference point, normalization on): for S = 2 evenly spaced lambda_1 =
// i / (n + 1), i = 1..n, and the same number of points placed by refinement
// from a Das-Dennis grid of 5 (das-dennis:4 --refine=n); for S = 3 a
// Das-Dennis grid of about n points. Columns: points, converged, distinct
// non-dominated points (objective vectors further apart than 1e-6 in
// normalized space), and for S = 2 the ratio of the largest to the smallest
// distance between neighbouring points in normalized objective space
// (F - r) / (nadir - r).
//
// Table 2: refined sweeps on the problems with an exact hypervolume
// (circle_quarter: das-dennis:4 refined to 21 points; sphere_octant:
// das-dennis:3 refined to 28) against uniform grids of the same size, as a
// fraction of the exact hypervolume of the whole front at the hypervolume
// reference points R = (r, ..., r), r = 1, 2, 4 (the nadir (0, ..., 0) plus
// r times the range 1 of every objective), and, as a bound on what any
// placement of that many points can reach, points chosen greedily by
// hypervolume gain from samples of the analytic front.
//
// Table 3: the cost of the automatic reference point per problem: the S
// single-objective solves (gradient evaluations, time) next to the cost of
// one WC point at equal weights.
//
// Exits 1 when a sweep has a point that fails (is not usable); points that
// end without a certificate are counted in table 1 and listed on stderr.

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "ecmo/indicators.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problems/registry.h"
#include "ecmo/sweep.h"
#include "gflags/gflags.h"

DEFINE_int32(points, 101, "Points per sweep in table 1.");
DEFINE_bool(smoke, false, "Small sweeps (for CTest): 21 points.");

namespace {

bool g_failed = false;

ecmo::ParetoSweep::Summary RunSweep(const ecmo::problems::ProblemInfo& info,
                                    const std::vector<std::vector<double>>& w,
                                    int refine_to) {
  ecmo::ParetoSweep::Options options;
  options.solver.record_history = false;
  options.problem_name = info.name;
  options.refine_to = refine_to;
  ecmo::ParetoSweep::Summary summary;
  ecmo::Sweep(options, ecmo::MakeProblemFactory(info.build), w, &summary);
  if (summary.num_converged != summary.num_points) {
    // Points that end without a certificate are counted in the tables; a
    // point that fails (unusable) makes the run fail.
    if (summary.num_usable != summary.num_points) g_failed = true;
    std::fprintf(stderr, "%s: %d of %d points converged: %s\n",
                 info.name.c_str(), summary.num_converged, summary.num_points,
                 summary.message.c_str());
    for (const ecmo::SweepPoint& p : summary.points) {
      if (p.summary.termination_type != ceres::CONVERGENCE) {
        std::fprintf(stderr, "  point %d: %s\n", p.index,
                     p.summary.message.c_str());
      }
    }
  }
  return summary;
}

// Normalized objective vectors (F - r) / (nadir - r) of the non-dominated
// points, duplicates (closer than 1e-6) removed, sorted by the first one.
std::vector<Eigen::VectorXd> DistinctFront(
    const ecmo::ParetoSweep::Summary& summary) {
  const ecmo::Scalarization& sc = summary.scalarization;
  const int S = summary.num_objectives;
  Eigen::VectorXd range = Eigen::VectorXd::Ones(S);
  if (sc.nadir_point.size() == S) range = sc.nadir_point - sc.reference_point;
  std::vector<Eigen::VectorXd> front;
  for (int index : summary.non_dominated) {
    const Eigen::VectorXd d =
        (summary.points[index].summary.objectives - sc.reference_point)
            .cwiseQuotient(range);
    bool duplicate = false;
    for (const Eigen::VectorXd& e : front) {
      if ((e - d).norm() < 1e-6) duplicate = true;
    }
    if (!duplicate) front.push_back(d);
  }
  std::sort(front.begin(), front.end(),
            [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
              return a[0] < b[0];
            });
  return front;
}

double NeighbourRatio(const std::vector<Eigen::VectorXd>& front) {
  if (front.size() < 3) return std::nan("");
  double lo = INFINITY, hi = 0.0;
  for (size_t i = 0; i + 1 < front.size(); ++i) {
    const double d = (front[i + 1] - front[i]).norm();
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  return hi / lo;
}

void SpreadRow(const ecmo::problems::ProblemInfo& info,
               const std::string& grid,
               const std::vector<std::vector<double>>& w,
               int refine_to) {
  const ecmo::ParetoSweep::Summary s = RunSweep(info, w, refine_to);
  const std::vector<Eigen::VectorXd> front = DistinctFront(s);
  char ratio[32] = "-";
  if (info.num_objectives == 2) {
    std::snprintf(ratio, sizeof(ratio), "%.2f", NeighbourRatio(front));
  }
  std::printf("| %s | %s | %d | %d | %zu | %s | %.3f |\n", info.name.c_str(),
              grid.c_str(), s.num_points, s.num_converged, front.size(), ratio,
              s.total_time_in_seconds);
}

double HypervolumeFraction(const ecmo::problems::ProblemInfo& info,
                           const Eigen::MatrixXd& points,
                           double r) {
  const Eigen::VectorXd reference =
      Eigen::VectorXd::Constant(info.num_objectives, r);
  return ecmo::Hypervolume(points, reference) /
         info.exact_hypervolume(reference);
}

Eigen::MatrixXd NonDominatedObjectives(const ecmo::ParetoSweep::Summary& s) {
  Eigen::MatrixXd points(s.non_dominated.size(), s.num_objectives);
  for (size_t r = 0; r < s.non_dominated.size(); ++r) {
    points.row(r) = s.points[s.non_dominated[r]].summary.objectives.transpose();
  }
  return points;
}

// What no placement of n points can beat by much: n points chosen greedily
// (each maximizing the hypervolume added) from samples of the analytic
// front, at reference point R = (r, ..., r).
Eigen::MatrixXd GreedyHypervolumePoints(const ecmo::problems::ProblemInfo& info,
                                        int n,
                                        double r) {
  const Eigen::MatrixXd candidates =
      info.pareto_front(info.num_objectives == 2 ? 2000 : 500);
  const int S = info.num_objectives;
  const Eigen::VectorXd reference = Eigen::VectorXd::Constant(S, r);
  Eigen::MatrixXd chosen(0, S);
  for (int t = 0; t < n; ++t) {
    double best = -1.0;
    int best_row = 0;
    Eigen::MatrixXd trial(chosen.rows() + 1, S);
    trial.topRows(chosen.rows()) = chosen;
    for (int c = 0; c < candidates.rows(); ++c) {
      trial.row(chosen.rows()) = candidates.row(c);
      const double hv = ecmo::Hypervolume(trial, reference);
      if (hv > best) {
        best = hv;
        best_row = c;
      }
    }
    trial.row(chosen.rows()) = candidates.row(best_row);
    chosen = trial;
  }
  return chosen;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  const int n = FLAGS_smoke ? 21 : FLAGS_points;
  std::string error;

  std::printf("\nTable 1: spread of a %d-point sweep (default ecmo_solve "
              "scalarization: utopia reference, normalized)\n\n", n);
  std::printf("| problem | grid | points | converged | distinct "
              "non-dominated | max/min neighbour distance | time (s) |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|\n");
  for (const ecmo::problems::ProblemInfo& info :
       ecmo::problems::AllProblems()) {
    if (info.num_objectives == 2) {
      std::vector<std::vector<double>> even;
      for (int i = 1; i <= n; ++i) {
        const double l1 = static_cast<double>(i) / (n + 1);
        even.push_back({l1, 1.0 - l1});
      }
      SpreadRow(info, "even lambda_1 = i/(n+1)", even, 0);
      SpreadRow(info, "das-dennis:4, refine to n", ecmo::DasDennis(2, 4), n);
    } else if (info.num_objectives == 3) {
      // Das-Dennis H gives (H+1)(H+2)/2 points: H = 13 gives 105.
      int h = 1;
      while ((h + 2) * (h + 3) / 2 <= n) ++h;
      SpreadRow(info, "das-dennis:" + std::to_string(h),
                ecmo::DasDennis(3, h, &error), 0);
    }
  }

  std::printf("\nTable 2: hypervolume of refined sweeps as a fraction of the "
              "exact hypervolume at R = (r, ..., r), r = 1, 2, 4\n\n");
  std::printf("| problem | sweep | points | HV / exact, R = 1 | HV / exact, "
              "R = 2 | HV / exact, R = 4 |\n");
  std::printf("|---|---|---:|---:|---:|---:|\n");
  for (const ecmo::problems::ProblemInfo& info :
       ecmo::problems::AllProblems()) {
    if (!info.exact_hypervolume) continue;
    const int S = info.num_objectives;
    const int target = S == 2 ? 21 : 28;
    const int h = S == 2 ? 4 : 3;
    const ecmo::ParetoSweep::Summary refined =
        RunSweep(info, ecmo::DasDennis(S, h, &error), target);
    // A uniform grid of the same size: das-dennis:20 (S = 2), :6 (S = 3).
    const ecmo::ParetoSweep::Summary uniform =
        RunSweep(info, ecmo::DasDennis(S, S == 2 ? 20 : 6, &error), 0);
    const Eigen::MatrixXd a = NonDominatedObjectives(refined);
    const Eigen::MatrixXd b = NonDominatedObjectives(uniform);
    std::printf("| %s | das-dennis:%d refined | %d | %.4f | %.4f | %.4f |\n",
                info.name.c_str(), h, refined.num_points,
                HypervolumeFraction(info, a, 1.0),
                HypervolumeFraction(info, a, 2.0),
                HypervolumeFraction(info, a, 4.0));
    std::printf("| %s | das-dennis:%d uniform | %d | %.4f | %.4f | %.4f |\n",
                info.name.c_str(), S == 2 ? 20 : 6, uniform.num_points,
                HypervolumeFraction(info, b, 1.0),
                HypervolumeFraction(info, b, 2.0),
                HypervolumeFraction(info, b, 4.0));
    if (!FLAGS_smoke && info.pareto_front) {
      std::printf("| %s | greedy hypervolume placement (bound) | %d | %.4f | "
                  "%.4f | %.4f |\n",
                  info.name.c_str(), target,
                  HypervolumeFraction(
                      info, GreedyHypervolumePoints(info, target, 1.0), 1.0),
                  HypervolumeFraction(
                      info, GreedyHypervolumePoints(info, target, 2.0), 2.0),
                  HypervolumeFraction(
                      info, GreedyHypervolumePoints(info, target, 4.0), 4.0));
    }
  }

  std::printf("\nTable 3: cost of the automatic reference point (S "
              "single-objective solves, once per sweep)\n\n");
  std::printf("| problem | S | single-objective solves | gradient "
              "evaluations | time (ms) | one WC point at equal weights: "
              "gradient evaluations |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (const ecmo::problems::ProblemInfo& info :
       ecmo::problems::AllProblems()) {
    const int S = info.num_objectives;
    const ecmo::ParetoSweep::Summary s = RunSweep(
        info, {std::vector<double>(S, 1.0 / S)}, 0);
    const ecmo::Scalarization& sc = s.scalarization;
    std::printf("| %s | %d | %d | %lld | %.3f | %lld |\n", info.name.c_str(),
                S, sc.num_single_objective_solves,
                static_cast<long long>(sc.evaluations.gradient_evaluations),
                1e3 * sc.time_in_seconds,
                static_cast<long long>(
                    s.points[0].summary.evaluations.gradient_evaluations));
  }
  if (g_failed) {
    std::fprintf(stderr, "scalarization_bench: some points failed\n");
    return 1;
  }
  return 0;
}
