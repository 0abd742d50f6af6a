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

#include <cstdio>
#include <memory>
#include <string>

#include "../tool_flags.h"
#include "ceres/solver.h"
#include "ecmo/problems/pose_graph.h"
#include "ecmo/solver.h"
#include "g2o_pose_graph.h"
#include "gflags/gflags.h"
#include "pipeline_front.h"
#include "user_front.h"
#include "user_front_flags.h"

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
DEFINE_int32(seed, 1, "Seed of the generated graph.");
DEFINE_bool(warm_start,
            true,
            "Start each point from the previous one (both fronts).");
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

// Reads --g2o as a Graph and traces its front with the library's defaults
// (user_front.h); 2 when the file is bad.
template <typename Graph>
int ReadAndTrace(const ecmo_pipelines::UserFrontSettings& settings) {
  std::string error;
  std::unique_ptr<Graph> graph =
      Graph::Create(FLAGS_g2o, typename Graph::Options(), &error);
  if (graph == nullptr) {
    std::fprintf(stderr, "pose_graph_front: %s\n", error.c_str());
    return 2;
  }
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
  const Graph& file = *graph;
  return ecmo_pipelines::TraceUserFront(
      settings,
      &graph->problem,
      graph->ObjectiveGroups(),
      [&file](double w_1,
              double w_2,
              ceres::TerminationType* termination,
              double* seconds) {
        return ecmo_pipelines::PlainWeightedSum(
            file, w_1, w_2, termination, seconds);
      });
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
    ecmo_pipelines::UserFrontSettings settings =
        ecmo_pipelines::UserFrontSettingsFromFlags(
            "pose_graph_front", FLAGS_g2o, FLAGS_num_points, FLAGS_warm_start);
    if (!ecmo::StringToStrategyType(FLAGS_strategy,
                                    &settings.solver.strategy)) {
      std::fprintf(stderr, "pose_graph_front: unknown --strategy=%s.\n",
                   FLAGS_strategy.c_str());
      return 2;
    }
    if (!ecmo_pipelines::CheckOutputPaths(settings)) return 2;
    // The file's first record says whether it is a 2D or a 3D graph.
    return ecmo_pipelines::IsG2oFile3d(FLAGS_g2o)
               ? ReadAndTrace<ecmo_pipelines::G2oPoseGraph3d>(settings)
               : ReadAndTrace<ecmo_pipelines::G2oPoseGraph2d>(settings);
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
