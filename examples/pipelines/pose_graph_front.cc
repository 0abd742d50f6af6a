// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Bring your own ceres::Problem, example 3: the Pareto front of a pose graph
// (SLAM back end) between its odometry edges and its loop closures.
//
// With --g2o=FILE: your own graph, the library's default path. The file (2D
// VERTEX_SE2 / EDGE_SE2 or 3D VERTEX_SE3:QUAT / EDGE_SE3:QUAT, read by
// g2o_pose_graph.h into an ordinary ceres::Problem, quaternion manifold in
// 3D) is handed to CeresProblemAdapter with two objective groups,
// "odometry" (edges between consecutive ids) and "loop_closures" (the
// others), and ecmo::Sweep traces the front with default options
// (strategy automatic, the lexicographic payoff table's utopia point and
// scales, warm starts), plus adaptive refinement to 2 num_points - 1
// points where the normalized front has its largest gaps (real fronts are
// uneven: the largest gap of mit.g2o's 11 evenly spaced preferences is
// 4.2x the mean gap). The program prints the sweep's report (one row per
// point: verdict, start, time, strategy), then, point by point, the WC
// point next to what a Ceres user would run instead: ceres::Solve of the
// weighted sum (lambda_1 / w_1) f_odometry + (lambda_2 / w_2)
// f_loop_closures from the file's start (Levenberg-Marquardt,
// SPARSE_NORMAL_CHOLESKY), w the sweep's objective scales. --output,
// --csv and --plot write the sweep's JSON (with the weighted sums added),
// its CSV and a picture of both fronts. Exit 0 when every point is
// certified and no weighted-sum point dominates a WC point (1e-6
// relative), 1 otherwise, 2 on bad input (an unreadable or malformed file:
// the message names the line).
//
//   pose_graph_front --g2o=data/posegraphs/ring.g2o --plot=ring.png
//
// Without --g2o: a generated graph (ecmo/problems/pose_graph.h: a seeded
// Manhattan-world random walk, badly conditioned information matrices, an
// angle manifold on every heading, pose 0 constant, the odometry-composed
// start), traced point by point with ecmo::Solve (pipeline_front.h:
// warm-started from the previous point) next to plain-Ceres weighted sums
// (group weights via ceres::ScaledLoss, same start).
//
// It checks its own results (CTest runs it at 200 poses) and exits 1 when a
// check fails: every WC point ends in CONVERGENCE with its KKT certificate,
// no point inside the front is dominated by a weighted-sum point (within a
// relative 1e-6; points at an end, where one objective's Chebyshev term is
// inactive, are only weakly Pareto optimal when the other objective's
// minimizers are not unique, and are reported instead), and there are at
// least num_points - 1 distinct points.
//
//   pose_graph_front [--num_poses=1000] [--num_points=11]
//                    [--strategy=automatic] [--seed=1] [--warm_start=true]
//                    [--cold_checks=true]

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ceres/solver.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/ceres_problem_sweep.h"
#include "ecmo/indicators.h"
#include "ecmo/plot.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problems/pose_graph.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "../tool_flags.h"
#include "g2o_pose_graph.h"
#include "gflags/gflags.h"
#include "nlohmann/json.hpp"
#include "pipeline_front.h"

DEFINE_int32(num_poses, 1000, "Poses of the generated graph (>= 2).");
DEFINE_int32(num_points, 11, "Points of the front (>= 2).");
DEFINE_string(strategy,
              "automatic",
              "ECMO strategy of the WC points (automatic: wc-newton for a "
              "pose graph).");
DEFINE_string(g2o,
              "",
              "A 2D or 3D g2o file: trace its front with ecmo::Sweep's "
              "defaults (see the top of the source).");
DEFINE_string(output, "", "With --g2o: the sweep's JSON, weighted sums added.");
DEFINE_string(csv, "", "With --g2o: the sweep's CSV (one row per point).");
DEFINE_string(plot,
              "",
              "With --g2o: FILE.png or FILE.svg, both fronts (gnuplot).");
DEFINE_int32(refine_to,
             -1,
             "With --g2o: add points where the normalized front has its "
             "largest gaps until the sweep has this many "
             "(ParetoSweep::Options::refine_to; 0: none; -1: the "
             "library's default, kRefineWhereNeeded: points only while the "
             "largest gap exceeds 3 mean spacings, at most 2 num_points - "
             "1).");
DEFINE_bool(log_scale,
            true,
            "With --plot: objective axes on a log scale (pose-graph fronts "
            "span decades).");
DEFINE_int32(seed, 1, "Seed of the generated graph.");
DEFINE_bool(warm_start,
            true,
            "Start each point from the previous one (both fronts).");
DEFINE_bool(cold_checks,
            true,
            "With --g2o: compare warm points that may be KKT for other "
            "preferences too with a cold solve "
            "(ParetoSweep::Options::cold_checks).");
DEFINE_string(initial_guess,
              "odometry",
              "Start of every cold solve: odometry (composed along the "
              "chain) or linear (linear estimate of headings, then "
              "positions; see ecmo/problems/pose_graph.h).");
DEFINE_bool(progress, false, "Print every finished solve to stderr.");
DEFINE_bool(full_reports,
            false,
            "Print the full report of every WC point to stderr.");

namespace {

// The plain-Ceres weighted sum at one point's preference.
struct WeightedSum {
  Eigen::Vector2d f = Eigen::Vector2d::Constant(NAN);
  ceres::TerminationType termination = ceres::FAILURE;
  double seconds = 0.0;
};

template <typename Graph>
int FrontOfG2oFile(std::unique_ptr<Graph> graph,
                   const ecmo::Solver::Options& solver) {
  const Eigen::Vector2d start_costs = graph->Costs();
  std::printf(
      "%s: %d poses, %zu odometry edges, %zu loop closures, %d parameters; "
      "start: odometry %.6e, loop closures %.6e\n",
      FLAGS_g2o.c_str(),
      graph->num_poses(),
      graph->odometry.size(),
      graph->loop_closures.size(),
      graph->num_parameters(),
      start_costs[0],
      start_costs[1]);

  // The library's default path: an adapter over the user's problem, its
  // objective groups, ecmo::Sweep with default options.
  ecmo::CeresProblemAdapter adapter(
      &graph->problem, graph->ObjectiveGroups(), {});
  std::string error;
  if (!adapter.IsValid(&error)) {
    std::fprintf(stderr, "pose_graph_front: %s\n", error.c_str());
    return 2;
  }
  ecmo::ParetoSweep::Options options;
  options.solver = solver;
  options.warm_start = FLAGS_warm_start;
  options.cold_checks = FLAGS_cold_checks;
  options.problem_name = FLAGS_g2o;
  options.csv_path = FLAGS_csv;
  options.refine_to = FLAGS_refine_to < 0
                          ? ecmo::ParetoSweep::Options::kRefineWhereNeeded
                          : FLAGS_refine_to;
  const std::vector<std::vector<double>> preferences =
      ecmo::EvenlySpaced2(FLAGS_num_points, &error);
  if (preferences.empty()) {
    std::fprintf(stderr, "pose_graph_front: --num_points: %s\n",
                 error.c_str());
    return 2;
  }
  ecmo::ParetoSweep::Summary sweep;
  ecmo::Sweep(options, &adapter, preferences, &sweep);
  std::printf("%s\n", sweep.FullReport().c_str());
  if (sweep.termination_type == ceres::FAILURE ||
      sweep.scalarization.objective_scale.size() != 2) {
    std::fprintf(stderr, "pose_graph_front: %s\n", sweep.message.c_str());
    return 1;
  }

  // Point by point: the weighted sum at the same preference, in the same
  // normalized units (weights lambda_s / w_s), from the file's start.
  const Eigen::Vector2d w = sweep.scalarization.objective_scale;
  std::vector<WeightedSum> sums;
  Eigen::MatrixXd wc(0, 2), ws(0, 2);
  int num_certified = 0, num_dominated = 0;
  double wc_seconds = 0.0, ws_seconds = 0.0;
  std::printf(
      "%-9s %14s %14s %-4s %9s | %14s %14s %9s  plain Ceres weighted sum\n",
      "lambda_1", "odometry", "loop_closures", "cert", "time[s]", "odometry",
      "loop_closures", "time[s]");
  for (const ecmo::SweepPoint& p : sweep.points) {
    const ecmo::Solver::Summary& s = p.summary;
    WeightedSum sum;
    sum.f = ecmo_pipelines::PlainWeightedSum(*graph,
                                             p.preference[0] / w[0],
                                             p.preference[1] / w[1],
                                             &sum.termination,
                                             &sum.seconds);
    sums.push_back(sum);
    ws_seconds += sum.seconds;
    wc_seconds += s.total_time_in_seconds;
    const bool certified = s.termination_type == ceres::CONVERGENCE;
    num_certified += certified ? 1 : 0;
    Eigen::Vector2d f = Eigen::Vector2d::Constant(NAN);
    if (s.objectives.size() == 2) f = s.objectives;
    const bool dominated = f.allFinite() && sum.f.allFinite() &&
                           ecmo_pipelines::Dominates(sum.f, f, 1e-6);
    num_dominated += dominated ? 1 : 0;
    if (f.allFinite()) {
      wc.conservativeResize(wc.rows() + 1, 2);
      wc.row(wc.rows() - 1) = f.transpose();
    }
    if (sum.f.allFinite()) {
      ws.conservativeResize(ws.rows() + 1, 2);
      ws.row(ws.rows() - 1) = sum.f.transpose();
    }
    std::printf("%-9.4f %14.6e %14.6e %-4s %9.3f | %14.6e %14.6e %9.3f  %s%s\n",
                p.preference[0], f[0], f[1], certified ? "yes" : "no",
                s.total_time_in_seconds, sum.f[0], sum.f[1], sum.seconds,
                ecmo::TerminationTypeName(sum.termination),
                dominated ? "  DOMINATES the WC point" : "");
  }
  // Why a point is not certified: its own message names the failing block.
  for (const ecmo::SweepPoint& p : sweep.points) {
    if (p.summary.termination_type != ceres::CONVERGENCE) {
      std::printf("point %d (lambda_1 = %.4f) not certified: %s\n",
                  p.index, p.preference[0], p.summary.message.c_str());
    }
  }
  // How evenly the points cover the front: consecutive gaps of the
  // certified points in normalized units (f - r) / w, sorted along f_1.
  std::vector<Eigen::Vector2d> normalized;
  for (const ecmo::SweepPoint& p : sweep.points) {
    if (p.summary.termination_type == ceres::CONVERGENCE &&
        p.summary.objectives.size() == 2) {
      normalized.push_back((p.summary.objectives -
                            sweep.scalarization.reference_point)
                               .cwiseQuotient(w));
    }
  }
  std::sort(normalized.begin(), normalized.end(),
            [](const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
              return a[0] < b[0];
            });
  double largest_gap = 0.0, sum_gaps = 0.0;
  for (size_t i = 1; i < normalized.size(); ++i) {
    const double gap = (normalized[i] - normalized[i - 1]).norm();
    largest_gap = std::max(largest_gap, gap);
    sum_gaps += gap;
  }
  if (normalized.size() > 1) {
    std::printf(
        "normalized front: largest gap %.4f, %.2fx the mean gap (%zu "
        "certified points)\n",
        largest_gap,
        largest_gap / (sum_gaps / (normalized.size() - 1)),
        normalized.size());
  }
  Eigen::MatrixXd both(wc.rows() + ws.rows(), 2);
  both << wc, ws;
  const Eigen::VectorXd reference = ecmo::DefaultReferencePoint(both, 0.1);
  std::printf(
      "certified %d/%zu; WC points dominated by a weighted sum: %d; "
      "hypervolume at (%.6e, %.6e): WC %.6e, weighted sums %.6e; time: WC "
      "points %.3f s (+ scalarization %.3f s), weighted sums %.3f s\n",
      num_certified, sweep.points.size(), num_dominated, reference[0],
      reference[1], ecmo::Hypervolume(wc, reference),
      ecmo::Hypervolume(ws, reference), wc_seconds,
      sweep.scalarization.time_in_seconds, ws_seconds);

  bool written = true;
  if (!FLAGS_output.empty()) {
    nlohmann::json j = ecmo::SweepToJson(sweep, FLAGS_g2o);
    nlohmann::json plain = nlohmann::json::array();
    for (size_t i = 0; i < sums.size(); ++i) {
      plain.push_back({{"preference", sweep.points[i].preference},
                       {"weights",
                        {sweep.points[i].preference[0] / w[0],
                         sweep.points[i].preference[1] / w[1]}},
                       {"objectives", {sums[i].f[0], sums[i].f[1]}},
                       {"termination", ecmo::TerminationTypeName(
                                           sums[i].termination)},
                       {"wall_time_seconds", sums[i].seconds}});
    }
    j["weighted_sums"] = plain;
    if (!ecmo::WriteFileAtomically(FLAGS_output, j.dump(1) + "\n", &error)) {
      std::fprintf(stderr, "pose_graph_front: --output: %s\n", error.c_str());
      written = false;
    }
  }
  if (!FLAGS_plot.empty()) {
    ecmo::PlotOptions plot;
    plot.title = FLAGS_g2o;
    plot.objective_names = sweep.objective_names;
    plot.log_scale = FLAGS_log_scale;
    const ecmo::PlotResult r = ecmo::PlotPointSets(
        plot,
        {{"WC points (ecmo::Sweep)", wc}, {"plain Ceres weighted sums", ws}},
        FLAGS_plot);
    if (r.image_written) {
      std::printf("Plot written to %s\n", r.image_path.c_str());
    } else {
      std::fprintf(stderr, "pose_graph_front: --plot: %s\n",
                   r.message.c_str());
    }
  }
  if (!written) return 1;
  return num_certified == static_cast<int>(sweep.points.size()) &&
                 num_dominated == 0
             ? 0
             : 1;
}

// Reads --g2o as a Graph and traces its front; 2 when the file is bad.
template <typename Graph>
int ReadAndTrace(const ecmo::Solver::Options& solver) {
  std::string error;
  std::unique_ptr<Graph> graph =
      Graph::Create(FLAGS_g2o, typename Graph::Options(), &error);
  if (graph == nullptr) {
    std::fprintf(stderr, "pose_graph_front: %s\n", error.c_str());
    return 2;
  }
  return FrontOfG2oFile(std::move(graph), solver);
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Pareto front (odometry vs loop closures) of a pose graph, next to "
      "plain-Ceres weighted sums: your own g2o file (--g2o) or a generated "
      "2D graph.");
  ecmo::tools::CheckFlagsOrExit(argc, argv);
  gflags::ParseCommandLineFlags(&argc, &argv, true);

  if (!FLAGS_g2o.empty()) {
    ecmo::Solver::Options solver;
    if (!ecmo::StringToStrategyType(FLAGS_strategy, &solver.strategy)) {
      std::fprintf(stderr, "pose_graph_front: unknown --strategy=%s.\n",
                   FLAGS_strategy.c_str());
      return 2;
    }
    std::string error;
    for (const std::string& path : {FLAGS_output, FLAGS_csv, FLAGS_plot}) {
      if (!path.empty() && !ecmo::CheckWritable(path, &error)) {
        std::fprintf(stderr, "pose_graph_front: cannot write '%s': %s.\n",
                     path.c_str(), error.c_str());
        return 2;
      }
    }
    // The file's first record says whether it is a 2D or a 3D graph.
    return ecmo_pipelines::IsG2oFile3d(FLAGS_g2o)
               ? ReadAndTrace<ecmo_pipelines::G2oPoseGraph3d>(solver)
               : ReadAndTrace<ecmo_pipelines::G2oPoseGraph2d>(solver);
  }

  ecmo::problems::PoseGraph2d::Options graph;
  graph.num_poses = FLAGS_num_poses;
  graph.seed = static_cast<uint32_t>(FLAGS_seed);
  if (!ecmo::problems::StringToInitialGuess(FLAGS_initial_guess,
                                            &graph.initial_guess)) {
    std::fprintf(stderr,
                 "Unknown --initial_guess=%s (odometry or linear).\n",
                 FLAGS_initial_guess.c_str());
    return 1;
  }

  ecmo_pipelines::FrontSettings settings;
  settings.num_points = FLAGS_num_points;
  settings.warm_start = FLAGS_warm_start;
  settings.progress = FLAGS_progress;
  settings.full_reports = FLAGS_full_reports;
  if (!ecmo::StringToStrategyType(FLAGS_strategy, &settings.solver.strategy)) {
    std::fprintf(stderr, "Unknown --strategy=%s.\n", FLAGS_strategy.c_str());
    return 1;
  }
  settings.ceres.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
  settings.ceres.max_num_iterations = 1000;

  ecmo_pipelines::FrontResult result;
  std::string error;
  if (!ecmo_pipelines::TraceFront<ecmo::problems::PoseGraph2d>(
          settings,
          graph,
          [](ecmo::problems::PoseGraph2d::Options* options,
             double w1,
             double w2) {
            options->odometry_weight = w1;
            options->loop_closure_weight = w2;
          },
          &result,
          &error)) {
    std::fprintf(stderr, "pose_graph_front: %s\n", error.c_str());
    return 1;
  }
  std::printf(
      "pose graph: %d poses, %d parameters, strategy %s, %s, %s start\n",
      FLAGS_num_poses,
      result.num_parameters,
      FLAGS_strategy.c_str(),
      FLAGS_warm_start ? "warm-started sweep" : "cold points",
      FLAGS_initial_guess.c_str());
  ecmo_pipelines::PrintFront(result, "odometry", "loop_closure");

  return ecmo_pipelines::CheckFront(result, FLAGS_num_points) ? 0 : 1;
}
