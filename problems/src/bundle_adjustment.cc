// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/problems/bundle_adjustment.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "Eigen/Geometry"
#include "ceres/autodiff_cost_function.h"
#include "ceres/loss_function.h"
#include "ceres/rotation.h"

namespace ecmo {
namespace problems {
namespace {

// pixel(camera, point) - observed.
struct Reprojection {
  Reprojection(double u, double v) : u(u), v(v) {}
  template <typename T>
  bool operator()(const T* camera, const T* point, T* residual) const {
    T p[3];
    ceres::AngleAxisRotatePoint(camera, point, p);
    p[0] += camera[3];
    p[1] += camera[4];
    p[2] += camera[5];
    residual[0] = camera[6] * p[0] / p[2] - u;
    residual[1] = camera[6] * p[1] / p[2] - v;
    return true;
  }
  double u, v;
};

}  // namespace

bool BundleAdjustment::Options::IsValid(std::string* error) const {
  std::ostringstream message;
  auto nonnegative = [](double x) { return x >= 0.0 && std::isfinite(x); };
  auto positive = [](double x) { return x > 0.0 && std::isfinite(x); };
  if (num_cameras < 4 || num_cameras > 1000) {
    message << "BundleAdjustment::Options::num_cameras = " << num_cameras
            << " must be in [4, 1000] (two cameras per group at least)";
  } else if (num_points < 2 || num_points > 1000000) {
    message << "BundleAdjustment::Options::num_points = " << num_points
            << " must be in [2, 1000000]";
  } else if (!nonnegative(pixel_noise_a) || !nonnegative(pixel_noise_b) ||
             !nonnegative(start_rotation_noise) ||
             !nonnegative(start_translation_noise) ||
             !nonnegative(start_focal_noise) ||
             !nonnegative(start_point_noise)) {
    message << "BundleAdjustment::Options: the noise levels must be finite "
               "and >= 0";
  } else if (!nonnegative(huber_scale)) {
    message << "BundleAdjustment::Options::huber_scale = " << huber_scale
            << " must be finite and >= 0 (0: no robust loss)";
  } else if (!positive(group_a_weight) || !positive(group_b_weight)) {
    message << "BundleAdjustment::Options: group_a_weight = " << group_a_weight
            << " and group_b_weight = " << group_b_weight
            << " must be finite and > 0";
  } else {
    return true;
  }
  if (error != nullptr) *error = message.str();
  return false;
}

std::unique_ptr<BundleAdjustment> BundleAdjustment::Create(
    const Options& options, std::string* error) {
  if (!options.IsValid(error)) return nullptr;
  std::unique_ptr<BundleAdjustment> ba(new BundleAdjustment(options));
  ba->Generate();
  ba->BuildProblem();
  return ba;
}

BundleAdjustment::BundleAdjustment(const Options& options)
    : options_(options) {}

void BundleAdjustment::Generate() {
  const int num_c = num_cameras(), num_p = num_points();
  std::mt19937_64 rng(options_.seed);
  std::uniform_real_distribution<double> cube(-1.0, 1.0);
  std::normal_distribution<double> gaussian(0.0, 1.0);
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  constexpr double kRadius = 6.0;
  constexpr double kFocal = 500.0;

  std::vector<double> true_cameras(kCameraSize * num_c);
  std::vector<double> true_points(kPointSize * num_p);
  for (double& x : true_points) x = cube(rng);
  for (int c = 0; c < num_c; ++c) {
    const double angle = kTwoPi * c / num_c;
    const Eigen::Vector3d center(kRadius * std::cos(angle),
                                 kRadius * std::sin(angle),
                                 c % 2 == 0 ? 1.0 : -1.0);
    // Rows of R: the camera's x (right), y (down) and z (forward) axes in
    // world coordinates; forward points at the origin.
    const Eigen::Vector3d forward = (-center).normalized();
    const Eigen::Vector3d right =
        forward.cross(Eigen::Vector3d::UnitZ()).normalized();
    const Eigen::Vector3d down = forward.cross(right);
    Eigen::Matrix3d rotation;
    rotation.row(0) = right.transpose();
    rotation.row(1) = down.transpose();
    rotation.row(2) = forward.transpose();
    double* camera = &true_cameras[kCameraSize * c];
    ceres::RotationMatrixToAngleAxis(rotation.data(), camera);  // col-major
    const Eigen::Vector3d t = -rotation * center;
    camera[3] = t[0];
    camera[4] = t[1];
    camera[5] = t[2];
    camera[6] = kFocal;
  }

  observations_.resize(2 * static_cast<size_t>(num_c) * num_p);
  for (int c = 0; c < num_c; ++c) {
    const double sigma =
        c < num_c / 2 ? options_.pixel_noise_a : options_.pixel_noise_b;
    for (int p = 0; p < num_p; ++p) {
      const Reprojection exact(0.0, 0.0);
      double pixel[2];
      exact(
          &true_cameras[kCameraSize * c], &true_points[kPointSize * p], pixel);
      double* observed =
          &observations_[2 * (static_cast<size_t>(c) * num_p + p)];
      observed[0] = pixel[0] + sigma * gaussian(rng);
      observed[1] = pixel[1] + sigma * gaussian(rng);
    }
  }

  start_cameras_ = true_cameras;
  start_points_ = true_points;
  for (int c = 1; c < num_c; ++c) {
    double* camera = &start_cameras_[kCameraSize * c];
    for (int i = 0; i < 3; ++i) {
      camera[i] += options_.start_rotation_noise * gaussian(rng);
    }
    for (int i = 3; i < 6; ++i) {
      camera[i] += options_.start_translation_noise * gaussian(rng);
    }
    camera[6] *= 1.0 + options_.start_focal_noise * gaussian(rng);
  }
  for (int i = kPointSize; i < kPointSize * num_p; ++i) {
    start_points_[i] += options_.start_point_noise * gaussian(rng);
  }
  cameras_ = start_cameras_;
  points_ = start_points_;
}

void BundleAdjustment::BuildProblem() {
  const int num_c = num_cameras(), num_p = num_points();
  for (int c = 0; c < num_c; ++c) {
    const bool in_a = c < num_c / 2;
    const double weight =
        in_a ? options_.group_a_weight : options_.group_b_weight;
    for (int p = 0; p < num_p; ++p) {
      const double* observed =
          &observations_[2 * (static_cast<size_t>(c) * num_p + p)];
      ceres::LossFunction* robust =
          options_.huber_scale > 0.0 ? new ceres::HuberLoss(options_.huber_scale)
                                     : nullptr;
      ceres::LossFunction* loss =
          weight == 1.0
              ? robust
              : new ceres::ScaledLoss(robust, weight, ceres::TAKE_OWNERSHIP);
      const ceres::ResidualBlockId id = problem.AddResidualBlock(
          new ceres::
              AutoDiffCostFunction<Reprojection, 2, kCameraSize, kPointSize>(
                  new Reprojection(observed[0], observed[1])),
          loss,
          camera(c),
          point(p));
      (in_a ? group_a : group_b).push_back(id);
    }
  }
  problem.SetParameterBlockConstant(camera(0));
  problem.SetParameterBlockConstant(point(0));
}

void BundleAdjustment::ResetToStart() {
  std::copy(start_cameras_.begin(), start_cameras_.end(), cameras_.begin());
  std::copy(start_points_.begin(), start_points_.end(), points_.begin());
}

bool BundleAdjustment::CopyParametersFrom(const BundleAdjustment& other) {
  if (other.num_cameras() != num_cameras() ||
      other.num_points() != num_points()) {
    return false;
  }
  std::copy(other.cameras_.begin(), other.cameras_.end(), cameras_.begin());
  std::copy(other.points_.begin(), other.points_.end(), points_.begin());
  return true;
}

std::vector<CeresProblemAdapter::ResidualGroup>
BundleAdjustment::ObjectiveGroups() const {
  return {{"camera_group_a", group_a}, {"camera_group_b", group_b}};
}

Eigen::Vector2d BundleAdjustment::Costs() {
  return GroupCosts(&problem,
                    group_a,
                    group_b,
                    options_.huber_scale > 0.0,
                    options_.group_a_weight,
                    options_.group_b_weight);
}

Eigen::Vector2d BundleAdjustment::GroupCosts(
    ceres::Problem* problem,
    const std::vector<ceres::ResidualBlockId>& group_a,
    const std::vector<ceres::ResidualBlockId>& group_b,
    bool robust,
    double weight_a,
    double weight_b) {
  Eigen::Vector2d costs(0.0, 0.0);
  ceres::Problem::EvaluateOptions evaluate;
  // With a robust loss the objective is the robust cost: evaluate it with
  // the losses and divide the group weight (a ScaledLoss around it) out.
  evaluate.apply_loss_function = robust;
  evaluate.residual_blocks = group_a;
  problem->Evaluate(evaluate, &costs[0], nullptr, nullptr, nullptr);
  evaluate.residual_blocks = group_b;
  problem->Evaluate(evaluate, &costs[1], nullptr, nullptr, nullptr);
  if (robust) {
    costs[0] /= weight_a;
    costs[1] /= weight_b;
  }
  return costs;
}

}  // namespace problems
}  // namespace ecmo
