// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Bring your own ceres::Problem, example 3: the Pareto front of a 2D pose
// graph (SLAM back end) between its odometry edges and its loop closures.
//
// The pose graph is generated (ecmo/problems/pose_graph.h: a seeded
// Manhattan-world random walk, badly conditioned information matrices, an
// angle manifold on every heading, pose 0 constant, the odometry-composed
// start). Its ceres::Problem is handed unchanged to CeresProblemAdapter with
// two objective groups, "odometry" and "loop_closures", and the front is
// traced with ecmo::Solve point by point (warm-started from the previous
// point). Beside it, the program runs what a Ceres user would run instead:
// ceres::Solve of the weighted sum of the two groups (Levenberg-Marquardt,
// SPARSE_NORMAL_CHOLESKY, group weights via ceres::ScaledLoss, same start),
// and prints both, point by point.
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
//                    [--strategy=wc-newton] [--seed=1] [--warm_start=true]

#include <cstdio>
#include <string>

#include "ceres/solver.h"
#include "ecmo/problems/pose_graph.h"
#include "ecmo/solver.h"
#include "gflags/gflags.h"
#include "pipeline_front.h"

DEFINE_int32(num_poses, 1000, "Poses of the generated graph (>= 2).");
DEFINE_int32(num_points, 11, "Points of the front (>= 2).");
DEFINE_string(strategy, "wc-newton", "ECMO strategy of the WC points.");
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

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Pareto front (odometry vs loop closures) of a generated 2D pose graph, "
      "next to plain-Ceres weighted sums.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);

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
