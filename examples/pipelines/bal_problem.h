// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// A bundle-adjustment problem read from a BAL file ("Bundle Adjustment in
// the Large", the format of the public bundle-adjustment data sets and of
// Ceres' own bundle_adjuster example), as an ordinary ceres::Problem with
// two objectives: the reprojection errors of two groups of cameras that
// see the same points.
//
// The file. Numbers separated by blanks and newlines, in this order:
//
//   num_cameras num_points num_observations
//   camera_index point_index x y          (num_observations times)
//   9 numbers per camera                  (num_cameras times)
//   3 numbers per point                   (num_points times)
//
// A camera is angle-axis rotation (3), translation (3), focal length f,
// radial distortion k1, k2. A point X is seen at
//
//   P = R X + t,   p = -(P_x, P_y) / P_z,
//   pixel = f (1 + k1 |p|^2 + k2 |p|^4) p
//
// (Snavely's convention: the camera looks down its -z axis). Lines starting
// with '#' are skipped. Everything else that is not this shape is an error
// with the file name, the line number and what is wrong: a count that is
// not a positive integer (fewer than 2 cameras: there are two groups), a
// value that is not a number, NaN or infinity, a camera or point index out
// of range, a focal length that is not positive, a file that ends early
// (how many values of what were read), a value after the last point, a
// camera or point that no observation sees (its parameters would be
// undetermined), and an observation whose point is in the camera's plane
// at the start (P_z = 0).
//
// The ceres::Problem. One block of 9 per camera and of 3 per point (the
// storage of this object, in file order); one residual block of 2
// residuals pixel - observed per observation (autodiff). The gauge (a
// similarity transform of the scene changes no residual) is fixed as in
// ecmo/problems/bundle_adjustment.h: camera 0 and point 0 are held
// constant. The start is the file's values; ResetToStart() restores it.
//
// Two objectives: cameras with index < num_cameras / 2 are
// "camera_group_a", the others "camera_group_b"; each objective is the
// cost 1/2 sum |r|^2 of its cameras' observations (with
// Options::huber_scale > 0, 1/2 sum rho(|r|^2) with ceres::HuberLoss).
// With group weights != 1 the blocks carry a ceres::ScaledLoss, so plain
// ceres::Solve minimizes the weighted sum from the same start.
//
//   std::string error;
//   auto bal = ecmo_pipelines::BalProblem::Create("scene.txt", {}, &error);
//   if (bal == nullptr) { /* error says file:line: what */ }
//   ecmo::CeresProblemAdapter adapter(&bal->problem,
//                                     bal->ObjectiveGroups(), {});
//
// Ownership: the object owns the ceres::Problem and the parameter storage
// the problem points into; it is neither copyable nor movable (hold it by
// the unique_ptr Create returns). Nothing aborts or throws on bad input.

#ifndef ECMO_EXAMPLES_PIPELINES_BAL_PROBLEM_H_
#define ECMO_EXAMPLES_PIPELINES_BAL_PROBLEM_H_

#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/problem.h"
#include "ecmo/ceres_problem_adapter.h"

namespace ecmo {
namespace problems {
class BundleAdjustment;
}  // namespace problems
}  // namespace ecmo

namespace ecmo_pipelines {

// The parsed content of a BAL file, before any ceres::Problem exists.
struct BalData {
  static constexpr int kCameraSize = 9;
  static constexpr int kPointSize = 3;
  struct Observation {
    int camera = 0;
    int point = 0;
    Eigen::Vector2d pixel = Eigen::Vector2d::Zero();
    int line = 0;  // in the file, for messages
  };
  std::string path;
  int num_cameras = 0;
  int num_points = 0;
  std::vector<Observation> observations;
  std::vector<double> cameras;  // kCameraSize per camera
  std::vector<double> points;   // kPointSize per point
};

// Reads a BAL file into *data; false with "path:line: what is wrong" in
// *error (may be null) otherwise (see the top of this file).
bool ReadBalFile(const std::string& path, BalData* data, std::string* error);

// Writes `data` as a BAL file at `path` (replaced atomically: a reader
// never sees half a file), values with 17 significant digits so that
// ReadBalFile gives back the same doubles. False with a message in *error
// (may be null) when the file cannot be written.
bool WriteBalFile(const std::string& path,
                  const BalData& data,
                  std::string* error);

// The generated scene of ecmo/problems/bundle_adjustment.h at its current
// parameters, as BAL data with the same costs: Snavely's cameras with
// k1 = k2 = 0, and every pixel negated (his cameras look down -z, the
// generated ones down +z), so that each residual is the generated one's
// negative. Every camera sees every point. `scene` is not owned.
BalData BalDataFromScene(ecmo::problems::BundleAdjustment* scene);

class BalProblem {
 public:
  struct Options {
    // Weights of the two groups' residual blocks (ceres::ScaledLoss when
    // != 1). Finite and > 0.
    double group_a_weight = 1.0;
    double group_b_weight = 1.0;
    // > 0: ceres::HuberLoss(huber_scale) (pixels) on every observation. 0:
    // plain squared residuals. Finite and >= 0.
    double huber_scale = 0.0;

    bool IsValid(std::string* error) const;
  };

  // Reads `path` and builds the problem, or returns null with a message in
  // *error (may be null).
  static std::unique_ptr<BalProblem> Create(const std::string& path,
                                            const Options& options,
                                            std::string* error);
  // The same scene from data already read (e.g. another problem's data()
  // with other weights, without reading the file again). The data are
  // checked as the reader checks them.
  static std::unique_ptr<BalProblem> Create(const BalData& data,
                                            const Options& options,
                                            std::string* error);

  BalProblem(const BalProblem&) = delete;
  BalProblem& operator=(const BalProblem&) = delete;

  int num_cameras() const { return data_.num_cameras; }
  int num_points() const { return data_.num_points; }
  int num_observations() const {
    return static_cast<int>(data_.observations.size());
  }
  // Parameters that move: 9 (num_cameras - 1) + 3 (num_points - 1).
  int num_parameters() const {
    return BalData::kCameraSize * (num_cameras() - 1) +
           BalData::kPointSize * (num_points() - 1);
  }
  const Options& options() const { return options_; }
  const BalData& data() const { return data_; }

  double* camera(int c) { return &cameras_[BalData::kCameraSize * c]; }
  double* point(int p) { return &points_[BalData::kPointSize * p]; }

  // Restores the file's values.
  void ResetToStart();

  // {"camera_group_a", ...}, {"camera_group_b", ...}.
  std::vector<ecmo::CeresProblemAdapter::ResidualGroup> ObjectiveGroups() const;

  // The two groups' costs at the current parameters, without the group
  // weights (with the Huber loss when Options::huber_scale > 0).
  Eigen::Vector2d Costs();

  ceres::Problem problem;
  std::vector<ceres::ResidualBlockId> group_a;
  std::vector<ceres::ResidualBlockId> group_b;

 private:
  BalProblem(const BalData& data, const Options& options);
  void BuildProblem();

  BalData data_;
  Options options_;
  std::vector<double> cameras_;
  std::vector<double> points_;
};

// A plain-Ceres weighted sum w_a f_a + w_b f_b of `bal`'s scene, cold from
// the file's start: what a Ceres user would run (Levenberg-Marquardt,
// SPARSE_SCHUR, Ceres' default tolerances, max_num_iterations = 1000).
// Returns its unweighted costs (NaN if it could not run); *termination
// (may be null) receives Ceres' termination and *solve_seconds (may be
// null) the time of ceres::Solve alone.
Eigen::Vector2d PlainWeightedSum(const BalProblem& bal,
                                 double w_a,
                                 double w_b,
                                 ceres::TerminationType* termination,
                                 double* solve_seconds = nullptr);

}  // namespace ecmo_pipelines

#endif  // ECMO_EXAMPLES_PIPELINES_BAL_PROBLEM_H_
