// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Bring your own ceres::Problem, example 4: the Pareto front of a bundle
// adjustment between the reprojection errors of two groups of cameras.
//
// The scene is generated (ecmo/problems/bundle_adjustment.h: cameras with
// angle-axis rotation, translation and focal length on a circle around a
// cloud of points, noisy observations, camera 0 and point 0 held constant
// to fix the gauge). Its ceres::Problem goes unchanged into
// CeresProblemAdapter with the objective groups "camera_group_a" and
// "camera_group_b", and the front is traced with ecmo::Solve point by point
// (warm-started). Beside it runs the plain-Ceres weighted sum of the two
// groups (Levenberg-Marquardt, SPARSE_SCHUR, group weights via
// ceres::ScaledLoss, same start), point by point.
//
// It checks its own results (CTest runs it at a small size) and exits 1
// when a check fails: every WC point ends in CONVERGENCE with its KKT
// certificate, no point inside the front is dominated by a weighted-sum
// point (within a relative 1e-6; points at an end, where one group's
// Chebyshev term is inactive, are only weakly Pareto optimal: one group's
// cost does not depend on the other group's cameras; they are reported
// instead), and there are at least num_points - 1 distinct points.
//
// --start_noise=10 starts it as real bundle adjustment starts, at >= 1e4
// times the optimal cost; --huber=S puts a Huber loss on every observation.
//
//   bundle_adjustment_front [--num_cameras=6] [--num_scene_points=50]
//                           [--num_points=11] [--strategy=wc-newton]
//                           [--seed=1] [--warm_start=true]
//                           [--start_noise=1] [--huber=0]

#include <cstdio>
#include <memory>
#include <string>

#include "ceres/solver.h"
#include "ecmo/problems/bundle_adjustment.h"
#include "ecmo/solver.h"
#include "../tool_flags.h"
#include "gflags/gflags.h"
#include "pipeline_front.h"

DEFINE_int32(num_cameras, 6, "Cameras (>= 4; the first half is group a).");
DEFINE_int32(num_scene_points, 50, "3D points of the scene (>= 2).");
DEFINE_int32(num_points, 11, "Points of the front (>= 2).");
DEFINE_string(strategy, "wc-newton", "ECMO strategy of the WC points.");
DEFINE_int32(seed, 1, "Seed of the generated scene.");
DEFINE_bool(warm_start,
            true,
            "Start each point from the previous one (both fronts).");
DEFINE_double(start_noise,
              1.0,
              "Multiplies the start perturbation of every camera and point "
              "(rotation 0.01 rad, translation 0.05, focal 1%, points "
              "0.05): 10 gives a start whose cost is >= 1e4 times the "
              "optimum's, as real bundle adjustment starts are.");
DEFINE_double(huber,
              0.0,
              "> 0: a ceres::HuberLoss of this scale (pixels) on every "
              "observation; the objectives are then the robust costs.");
DEFINE_bool(progress, false, "Print every finished solve to stderr.");
DEFINE_bool(full_reports,
            false,
            "Print the full report of every WC point to stderr.");

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Pareto front (reprojection error of two camera groups) of a generated "
      "bundle adjustment, next to plain-Ceres weighted sums.");
  ecmo::tools::CheckFlagsOrExit(argc, argv);
  gflags::ParseCommandLineFlags(&argc, &argv, true);

  ecmo::problems::BundleAdjustment::Options scene;
  scene.num_cameras = FLAGS_num_cameras;
  scene.num_points = FLAGS_num_scene_points;
  scene.seed = static_cast<uint32_t>(FLAGS_seed);
  scene.start_rotation_noise *= FLAGS_start_noise;
  scene.start_translation_noise *= FLAGS_start_noise;
  scene.start_focal_noise *= FLAGS_start_noise;
  scene.start_point_noise *= FLAGS_start_noise;
  scene.huber_scale = FLAGS_huber;
  std::string error;
  {
    // The start's cost against the best a plain solve of the plain sum
    // reaches: how far from its front the problem starts.
    std::unique_ptr<ecmo::problems::BundleAdjustment> probe =
        ecmo::problems::BundleAdjustment::Create(scene, &error);
    if (probe == nullptr) {
      std::fprintf(stderr, "bundle_adjustment_front: %s\n", error.c_str());
      return 2;
    }
    const double start_cost = probe->Costs().sum();
    ceres::Solver::Options plain;
    plain.linear_solver_type = ceres::SPARSE_SCHUR;
    plain.max_num_iterations = 1000;
    ceres::Solver::Summary summary;
    ceres::Solve(plain, &probe->problem, &summary);
    std::printf(
        "start cost %.6e, plain ceres::Solve of the sum %.6e: the start is "
        "%.3g times the optimum%s\n",
        start_cost,
        probe->Costs().sum(),
        start_cost / probe->Costs().sum(),
        FLAGS_huber > 0.0 ? " (Huber costs)" : "");
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
  settings.ceres.linear_solver_type = ceres::SPARSE_SCHUR;
  settings.ceres.max_num_iterations = 1000;

  ecmo_pipelines::FrontResult result;
  if (!ecmo_pipelines::TraceFront<ecmo::problems::BundleAdjustment>(
          settings,
          scene,
          [](ecmo::problems::BundleAdjustment::Options* options,
             double w1,
             double w2) {
            options->group_a_weight = w1;
            options->group_b_weight = w2;
          },
          &result,
          &error)) {
    std::fprintf(stderr, "bundle_adjustment_front: %s\n", error.c_str());
    return 1;
  }
  std::printf(
      "bundle adjustment: %d cameras, %d points, %d parameters, strategy %s, "
      "%s\n",
      FLAGS_num_cameras,
      FLAGS_num_scene_points,
      result.num_parameters,
      FLAGS_strategy.c_str(),
      FLAGS_warm_start ? "warm-started sweep" : "cold points");
  ecmo_pipelines::PrintFront(result, "group_a", "group_b");

  return ecmo_pipelines::CheckFront(result, FLAGS_num_points) ? 0 : 1;
}
