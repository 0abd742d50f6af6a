// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// A seeded, synthetic 2D pose graph (SLAM back end) as an ordinary
// ceres::Problem, sized by a flag, so that the pipelines of
// ecmo::CeresProblemAdapter can be run and measured at 1e3 .. 1e5
// parameters without a data file.
//
// The world. A robot walks on the integer grid of a square world of
// world_size x world_size cells ("Manhattan world"): every step moves one
// unit forward; before a step it turns by +-90 degrees with probability
// turn_probability, and it always turns at the border. The true pose i is
// (x_i, y_i, theta_i), theta_i a multiple of pi/2 (normalized to
// [-pi, pi)).
//
// The edges. An odometry edge joins every pair of consecutive poses
// (i - 1, i). A loop-closure edge joins pose i to the most recent earlier
// pose j < i - 1 that stood on the same cell, when there is one (so about
// num_poses - world_size^2 loop closures once the walk covers the world;
// the automatic world size makes that about half the poses). Each edge
// (a, b) measures the pose of b in the frame of a,
//
//   m_ab = ( R(theta_a)^T (p_b - p_a),  theta_b - theta_a ) + noise,
//
// with an information matrix Omega_ab = U diag(e) U^T, U a random rotation
// of R^3 and the eigenvalues e log-uniform in [min_information,
// max_information] of the edge's kind: badly conditioned, with entries
// spanning the range, as in real data sets. The noise is drawn from
// N(0, Omega_ab^-1), so the measurements are consistent with their
// information and the two kinds of edges disagree as real ones do.
//
// The ceres::Problem. One x/y block (size 2) and one heading block (size 1)
// per pose; the heading blocks share one angle manifold (Plus and Minus
// normalize to [-pi, pi), ceres::AutoDiffManifold); pose 0 is held constant
// (SetParameterBlockConstant on both of its blocks). Each edge is one
// residual block of 3 residuals,
//
//   r_ab = L_ab^T ( R(theta_a)^T (p_b - p_a) - m_xy,
//                   Normalize(theta_b - theta_a - m_theta) ),
//
// whitened by the Cholesky factor Omega_ab = L_ab L_ab^T (so
// |r_ab|^2 = e^T Omega_ab e). Its cost is Ceres' 1/2 |r_ab|^2 (times the
// kind's weight, see below). The initial guess is the odometry-composed
// trajectory (pose 0 at the origin, every later pose its predecessor
// composed with the measured odometry), the usual start of pose-graph
// solvers, or with Options::initial_guess = LINEAR the linear estimate
// below; ResetToStart() restores it.
//
// The linear initial guess (the two linear steps of LAGO: Carlone,
// Aragues, Castellanos and Bona, "A fast and accurate approximation for
// planar pose graph optimization", IJRR 33(7), 2014). Odometry composed
// over tens of thousands of poses drifts by radians in heading, and from
// there Levenberg-Marquardt (plain Ceres as much as any ECMO strategy)
// ends in a poor local minimum: on the 33,334-pose graph the weighted
// sums from the odometry start keep odometry costs of 4e6 .. 4e8, where
// the 3,500-pose graph's are 5e1 .. 6e5. The linear guess avoids that by
// two sparse linear least-squares solves: (1) the headings, from every
// edge's relative heading theta_b - theta_a = m_theta + 2 pi k_ab, the
// integer k_ab unwrapped along the odometry chain, weighted by the
// inverse marginal variance of the heading; (2) the positions, from
// p_b - p_a = R(theta_a) m_xy with those headings, weighted by the inverse
// of the marginal x/y covariance rotated into the world frame. Pose 0 keeps
// its pose. Both weighted sums of the objectives are then minimized from
// the same, nearly right, start.
//
// Two objectives for ecmo::CeresProblemAdapter: ObjectiveGroups() returns
// {"odometry", odometry} and {"loop_closures", loop_closures}.
//
//   ecmo::problems::PoseGraph2d::Options options;
//   options.num_poses = 3500;
//   std::string error;
//   auto graph = ecmo::problems::PoseGraph2d::Create(options, &error);
//   ecmo::CeresProblemAdapter adapter(&graph->problem,
//                                     graph->ObjectiveGroups(), {});
//
// A plain-Ceres weighted sum of the two objectives is the same graph built
// with Options::odometry_weight / loop_closure_weight != 1: the residual
// blocks of that kind then carry a ceres::ScaledLoss(nullptr, weight) (Ceres'
// own mechanism for weighting residual blocks), so ceres::Solve minimizes
// w_o f_odometry + w_l f_loop_closures from the same start. The same seed
// gives the same graph, measurements and start whatever the weights.
//
// Ownership: the object owns the ceres::Problem and the parameter storage
// the problem points into; it is neither copyable nor movable (hold it by
// the unique_ptr Create returns). Errors: Create returns null with a message
// for invalid options; nothing aborts.

#ifndef ECMO_PROBLEMS_POSE_GRAPH_H_
#define ECMO_PROBLEMS_POSE_GRAPH_H_

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/problem.h"
#include "ecmo/ceres_problem_adapter.h"

namespace ecmo {
namespace problems {

class PoseGraph2d {
 public:
  // The start every solve begins from (see the top of this file).
  enum class InitialGuess {
    ODOMETRY,  // odometry composed along the chain
    LINEAR,    // linear estimate of headings, then positions (LAGO)
  };

  struct Options {
    // Poses, >= 2 (3 (num_poses - 1) parameters: 1e3 parameters at 334
    // poses, 1e4 at 3,334, 1e5 at 33,334). At most 10,000,000.
    int num_poses = 1000;
    uint32_t seed = 1;
    // Probability of a 90-degree turn before a step. In [0, 1].
    double turn_probability = 0.3;
    // Side of the square world in cells. 0 (default): automatic,
    // max(3, round(sqrt(num_poses / 2))), so that about half the poses
    // revisit a cell and close a loop. Otherwise >= 2.
    int world_size = 0;
    // Eigenvalue ranges of the information matrices (log-uniform), > 0 and
    // min <= max.
    double odometry_min_information = 1e3;
    double odometry_max_information = 1e5;
    double loop_closure_min_information = 1e3;
    double loop_closure_max_information = 1e5;
    // Weights of the two kinds of residual blocks (ceres::ScaledLoss when
    // != 1). Finite and > 0.
    double odometry_weight = 1.0;
    double loop_closure_weight = 1.0;
    // Whether the heading blocks carry the angle manifold. The residual
    // wraps the angle difference either way, so false poses the same
    // least-squares problem in R^k (headings then drift outside
    // [-pi, pi) without harm), which solvers that work in R^k (the Ipopt
    // reference) need.
    bool angle_manifold = true;
    InitialGuess initial_guess = InitialGuess::ODOMETRY;

    bool IsValid(std::string* error) const;
  };

  // One edge: poses a -> b, the measurement (x, y, theta) of b in a's frame
  // and the upper-triangular square root of its information, L^T.
  struct Edge {
    int a = 0;
    int b = 0;
    Eigen::Vector3d measurement;
    Eigen::Matrix3d sqrt_information;
    bool loop_closure = false;
  };

  // Builds the graph, or returns null with a message in *error (may be
  // null) when the options are invalid.
  static std::unique_ptr<PoseGraph2d> Create(const Options& options,
                                             std::string* error);

  PoseGraph2d(const PoseGraph2d&) = delete;
  PoseGraph2d& operator=(const PoseGraph2d&) = delete;

  int num_poses() const { return options_.num_poses; }
  // Parameters that move: 3 (num_poses - 1).
  int num_parameters() const { return 3 * (options_.num_poses - 1); }
  const Options& options() const { return options_; }
  const std::vector<Edge>& edges() const { return edges_; }

  // Pose i's x/y block (2 doubles) and heading block (1 double), in the
  // storage the problem points into.
  double* position(int i) { return &positions_[2 * i]; }
  double* heading(int i) { return &headings_[i]; }
  // The true poses (x, y, theta), for reference.
  const std::vector<Eigen::Vector3d>& ground_truth() const { return truth_; }

  // Restores the initial guess (Options::initial_guess).
  void ResetToStart();
  // Copies every pose from `other`, a graph of the same size (e.g. the same
  // options with other weights); false otherwise.
  bool CopyParametersFrom(const PoseGraph2d& other);

  // {"odometry", ...}, {"loop_closures", ...}.
  std::vector<CeresProblemAdapter::ResidualGroup> ObjectiveGroups() const;

  // The unweighted costs 1/2 sum |r|^2 of the two kinds at the current
  // poses (ceres::Problem::Evaluate without the loss functions).
  Eigen::Vector2d Costs();

  ceres::Problem problem;
  std::vector<ceres::ResidualBlockId> odometry;
  std::vector<ceres::ResidualBlockId> loop_closures;

 private:
  explicit PoseGraph2d(const Options& options);
  void Generate();
  // Replaces the odometry-composed start by the linear estimate.
  void LinearStart();
  void BuildProblem();

  Options options_;
  std::vector<double> positions_;
  std::vector<double> headings_;
  std::vector<double> start_positions_;
  std::vector<double> start_headings_;
  std::vector<Eigen::Vector3d> truth_;
  std::vector<Edge> edges_;
};

// "odometry" / "linear" to and from PoseGraph2d::InitialGuess; false for
// an unknown name.
const char* InitialGuessToString(PoseGraph2d::InitialGuess guess);
bool StringToInitialGuess(const std::string& name,
                          PoseGraph2d::InitialGuess* guess);

// Angle in [-pi, pi): a - 2 pi floor((a + pi) / (2 pi)). Works on doubles
// and on ceres::Jet.
template <typename T>
T NormalizeAngle(const T& angle) {
  using std::floor;
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  constexpr double kPi = 3.1415926535897932384626433832795;
  return angle - T(kTwoPi) * floor((angle + T(kPi)) / T(kTwoPi));
}

// The residual of one 2D pose-graph edge as a Ceres autodiff functor,
// shared by PoseGraph2d and the readers of real graphs (examples/
// pipelines/g2o_pose_graph.h): blocks (position_a[2], heading_a[1],
// position_b[2], heading_b[1]), residual
//   L^T (R(theta_a)^T (p_b - p_a) - m_xy, NormalizeAngle(theta_b -
//   theta_a - m_theta))
// with sqrt_information = L^T upper triangular (Omega = L L^T).
class RelativePose2dError {
 public:
  RelativePose2dError(const Eigen::Vector3d& measurement,
                      const Eigen::Matrix3d& sqrt_information)
      : measurement_(measurement), sqrt_information_(sqrt_information) {}

  template <typename T>
  bool operator()(const T* position_a,
                  const T* heading_a,
                  const T* position_b,
                  const T* heading_b,
                  T* residual) const {
    using std::cos;
    using std::sin;
    // R(theta_a)^T (p_b - p_a): the displacement seen from pose a.
    const T c = cos(heading_a[0]);
    const T s = sin(heading_a[0]);
    const T dx = position_b[0] - position_a[0];
    const T dy = position_b[1] - position_a[1];
    const T error[3] = {
        c * dx + s * dy - T(measurement_[0]),
        -s * dx + c * dy - T(measurement_[1]),
        // Wrapped so that headings 2 pi apart are the same heading.
        NormalizeAngle(heading_b[0] - heading_a[0] - T(measurement_[2]))};
    // L^T is upper triangular: skip the zeros below the diagonal.
    for (int i = 0; i < 3; ++i) {
      residual[i] = T(0.0);
      for (int j = i; j < 3; ++j) {
        residual[i] += T(sqrt_information_(i, j)) * error[j];
      }
    }
    return true;
  }

 private:
  Eigen::Vector3d measurement_;
  Eigen::Matrix3d sqrt_information_;
};

// A heading's manifold for ceres::AutoDiffManifold<AngleManifoldFunctor,
// 1, 1>: R with Plus and Minus wrapped to [-pi, pi), so that steps never
// push a heading out of the range.
struct AngleManifoldFunctor {
  template <typename T>
  bool Plus(const T* x, const T* delta, T* x_plus_delta) const {
    x_plus_delta[0] = NormalizeAngle(x[0] + delta[0]);
    return true;
  }
  template <typename T>
  bool Minus(const T* y, const T* x, T* y_minus_x) const {
    y_minus_x[0] = NormalizeAngle(y[0] - x[0]);
    return true;
  }
};

}  // namespace problems
}  // namespace ecmo

#endif  // ECMO_PROBLEMS_POSE_GRAPH_H_
