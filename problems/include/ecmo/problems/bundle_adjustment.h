// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// A seeded, synthetic bundle-adjustment problem as an ordinary
// ceres::Problem, with two objectives: the reprojection error of two groups
// of cameras that see the same points.
//
// The scene. num_points points uniform in the cube [-1, 1]^3; num_cameras
// cameras on a circle of radius 6 around the z axis (at heights
// alternating +-1), each looking at the origin, with focal length 500
// pixels. Camera c belongs to group "a" if c < num_cameras / 2, otherwise
// to group "b". Every camera sees every point.
//
// The model (Snavely's convention without distortion): a camera is 7
// doubles, angle-axis rotation (3), translation (3) and focal length (1);
// a point X projects to
//
//   P = R(angle_axis) X + t,    pixel = focal (P_x / P_z, P_y / P_z),
//
// and the residual of one observation is pixel - observed (2 residuals,
// ceres::AutoDiffCostFunction). Observations carry Gaussian pixel noise
// (pixel_noise_a, pixel_noise_b standard deviations), so the two groups
// disagree about the shared points and the front is not a single point.
//
// The gauge (a similarity transform of the scene changes no residual) is
// fixed by holding camera 0 and point 0 constant. The start perturbs the
// true cameras (rotation by start_rotation_noise radians per axis,
// translation by start_translation_noise, focal by start_focal_noise
// relative) and points (start_point_noise per coordinate).
//
// Objectives for ecmo::CeresProblemAdapter: ObjectiveGroups() returns
// {"camera_group_a", ...}, {"camera_group_b", ...}; group_a_weight /
// group_b_weight != 1 put a ceres::ScaledLoss on that group's blocks, so a
// plain ceres::Solve (SPARSE_SCHUR) minimizes the weighted sum from the
// same start (the same seed gives the same scene whatever the weights).
//
// Ownership: the object owns the ceres::Problem and the parameter storage;
// not copyable or movable. Create returns null with a message for invalid
// options.

#ifndef ECMO_PROBLEMS_BUNDLE_ADJUSTMENT_H_
#define ECMO_PROBLEMS_BUNDLE_ADJUSTMENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/problem.h"
#include "ecmo/ceres_problem_adapter.h"

namespace ecmo {
namespace problems {

class BundleAdjustment {
 public:
  static constexpr int kCameraSize = 7;
  static constexpr int kPointSize = 3;

  struct Options {
    // >= 4 (two per group) and <= 1000.
    int num_cameras = 6;
    // >= 2 and <= 1000000.
    int num_points = 50;
    uint32_t seed = 1;
    // Pixel noise of each group's observations (standard deviation). >= 0.
    double pixel_noise_a = 1.0;
    double pixel_noise_b = 1.0;
    // Start perturbation (standard deviations). >= 0.
    double start_rotation_noise = 0.01;
    double start_translation_noise = 0.05;
    double start_focal_noise = 0.01;
    double start_point_noise = 0.05;
    // Weights of the groups' residual blocks. Finite and > 0.
    double group_a_weight = 1.0;
    double group_b_weight = 1.0;
    // > 0: every observation carries ceres::HuberLoss(huber_scale) (in
    // pixels), the robust loss of real bundle adjustment, so the objectives
    // are 1/2 sum rho(|r|^2) (the group weight scales it, ScaledLoss). 0:
    // plain squared residuals. Finite and >= 0.
    double huber_scale = 0.0;

    bool IsValid(std::string* error) const;
  };

  static std::unique_ptr<BundleAdjustment> Create(const Options& options,
                                                  std::string* error);

  BundleAdjustment(const BundleAdjustment&) = delete;
  BundleAdjustment& operator=(const BundleAdjustment&) = delete;

  const Options& options() const { return options_; }
  int num_cameras() const { return options_.num_cameras; }
  int num_points() const { return options_.num_points; }
  // Parameters that move: 7 (num_cameras - 1) + 3 (num_points - 1).
  int num_parameters() const {
    return kCameraSize * (num_cameras() - 1) + kPointSize * (num_points() - 1);
  }

  double* camera(int c) { return &cameras_[kCameraSize * c]; }
  double* point(int p) { return &points_[kPointSize * p]; }

  // The observed pixels, 2 per observation, (camera, point) in row-major
  // order: every camera sees every point (e.g. to write the scene to a
  // file).
  const std::vector<double>& observations() const { return observations_; }

  void ResetToStart();
  // Copies every camera and point from `other`, a problem of the same size;
  // false otherwise.
  bool CopyParametersFrom(const BundleAdjustment& other);

  // {"camera_group_a", ...}, {"camera_group_b", ...}.
  std::vector<CeresProblemAdapter::ResidualGroup> ObjectiveGroups() const;
  // The unweighted costs of the two groups at the current parameters (with
  // the Huber loss when Options::huber_scale > 0).
  Eigen::Vector2d Costs();

  // The costs of two groups of residual blocks of `problem` (not owned)
  // without their group weights: with `robust` (each block's loss a robust
  // loss inside a ceres::ScaledLoss of the group's weight) the robust costs
  // 1/2 sum rho(|r|^2) divided by the weights; otherwise 1/2 sum |r|^2 with
  // no loss applied. Shared with the BAL reader of examples/pipelines/.
  static Eigen::Vector2d GroupCosts(
      ceres::Problem* problem,
      const std::vector<ceres::ResidualBlockId>& group_a,
      const std::vector<ceres::ResidualBlockId>& group_b,
      bool robust,
      double weight_a,
      double weight_b);

  ceres::Problem problem;
  std::vector<ceres::ResidualBlockId> group_a;
  std::vector<ceres::ResidualBlockId> group_b;

 private:
  explicit BundleAdjustment(const Options& options);
  void Generate();
  void BuildProblem();

  Options options_;
  std::vector<double> cameras_;
  std::vector<double> points_;
  std::vector<double> start_cameras_;
  std::vector<double> start_points_;
  // Observed pixels, (camera, point) in row-major order: 2 per observation.
  std::vector<double> observations_;
};

}  // namespace problems
}  // namespace ecmo

#endif  // ECMO_PROBLEMS_BUNDLE_ADJUSTMENT_H_
