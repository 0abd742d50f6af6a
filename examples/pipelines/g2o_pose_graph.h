// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// A real 2D pose graph read from a g2o file, as an ordinary ceres::Problem
// with the same shape as the generated one (ecmo/problems/pose_graph.h), so
// that the pipeline tools run on data that nobody here generated
// (data/posegraphs/).
//
// The file. One record per line, fields separated by blanks:
//
//   VERTEX_SE2 id x y theta
//   EDGE_SE2 a b dx dy dtheta I11 I12 I13 I22 I23 I33
//
// (the edge measures the pose of b in the frame of a; I is the upper
// triangle of its 3x3 information matrix, row-major). Empty lines, lines
// starting with '#' and FIX lines are skipped (FIX names a vertex that g2o
// holds constant; the reader always holds the vertex with the smallest id
// constant, see below, which is what every file here fixes). Everything
// else is an error with the file name, the line number and what is wrong:
// an unknown tag (VERTEX_SE3:QUAT / EDGE_SE3:QUAT are reported as a 3D
// graph), too few or too many fields, a field that is not a number (or not
// an integer id), NaN or infinity, a repeated vertex id, an edge from a
// vertex to itself or to a vertex the file does not define, an information
// matrix that is not positive definite, and a file without vertices or
// without edges. Vertices may come after the edges that name them.
//
// The ceres::Problem. One x/y block (size 2) and one heading block (size 1)
// per vertex, in order of increasing id; the heading blocks share one angle
// manifold (Plus and Minus wrapped to [-pi, pi)); the vertex with the
// smallest id is held constant (both blocks), which removes the gauge
// freedom of a pose graph. Each edge is one residual block of 3 residuals
//
//   r_ab = L^T ( R(theta_a)^T (p_b - p_a) - m_xy,
//                Normalize(theta_b - theta_a - m_theta) ),
//
// with Omega = L L^T (Cholesky), so that 1/2 |r_ab|^2 = 1/2 e^T Omega e.
// The start is the file's vertex values (in these data sets the
// odometry-composed guess); ResetToStart() restores it.
//
// Two objectives: edges between consecutive ids (|b - a| == 1) are
// "odometry", all others "loop_closures" (the convention of the data sets'
// README). ObjectiveGroups() returns them in that order for
// ecmo::CeresProblemAdapter. With Options::odometry_weight /
// loop_closure_weight != 1 the blocks of that kind carry a
// ceres::ScaledLoss, so plain ceres::Solve on the same file minimizes the
// weighted sum w_o f_odometry + w_l f_loop_closures.
//
//   std::string error;
//   auto graph = ecmo_pipelines::G2oPoseGraph2d::Create(
//       "data/posegraphs/ring.g2o", {}, &error);
//   if (graph == nullptr) { /* error says file:line: what */ }
//   ecmo::CeresProblemAdapter adapter(&graph->problem,
//                                     graph->ObjectiveGroups(), {});
//
// Ownership: the object owns the ceres::Problem and the parameter storage
// the problem points into; it is neither copyable nor movable (hold it by
// the unique_ptr Create returns). Nothing aborts or throws on bad input.

#ifndef ECMO_EXAMPLES_PIPELINES_G2O_POSE_GRAPH_H_
#define ECMO_EXAMPLES_PIPELINES_G2O_POSE_GRAPH_H_

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/Geometry"
#include "ceres/problem.h"
#include "ceres/solver.h"
#include "ecmo/ceres_problem_adapter.h"
#include "user_front.h"

namespace ecmo_pipelines {

// The parsed content of a 2D g2o file, before any ceres::Problem exists.
// Vertices are sorted by id; edges refer to vertices by index into that
// order and keep the order of the file.
struct G2oGraph2dData {
  struct Edge {
    int a = 0;  // vertex indices (not ids)
    int b = 0;
    Eigen::Vector3d measurement = Eigen::Vector3d::Zero();
    // Upper-triangular L^T of the information Omega = L L^T.
    Eigen::Matrix3d sqrt_information = Eigen::Matrix3d::Identity();
    bool loop_closure = false;
    int line = 0;  // in the file, for messages
  };
  std::string path;
  std::vector<int> ids;                // increasing
  std::vector<Eigen::Vector3d> poses;  // (x, y, theta) per vertex
  std::vector<Edge> edges;
  int num_odometry = 0;
  int num_loop_closures = 0;
};

// Reads a 2D g2o file into *data; false with "path:line: what is wrong" in
// *error (may be null) otherwise (see the top of this file).
bool ReadG2oGraph2d(const std::string& path,
                    G2oGraph2dData* data,
                    std::string* error);

class G2oPoseGraph2d {
 public:
  struct Options {
    // Weights of the two kinds of residual blocks (ceres::ScaledLoss when
    // != 1). Finite and >= 0: a weight of 0 removes that kind's cost from
    // the weighted sum (a Pareto point at an end of the front can have a
    // zero KKT weight, and the descent test of real_pose_graph_check must
    // then use exactly that weighted sum).
    double odometry_weight = 1.0;
    double loop_closure_weight = 1.0;
    // Whether the heading blocks carry the wrapped-angle manifold. false:
    // headings live in R (the residual wraps the angle difference itself,
    // so the costs are the same); the Ipopt reference works in R^k and
    // refuses any manifold but a quaternion or sphere one. G2oPoseGraph3d
    // (which shares these options) ignores it: its rotations always carry
    // ceres::EigenQuaternionManifold, which the reference handles.
    bool angle_manifold = true;

    bool IsValid(std::string* error) const;
  };

  // Reads `path` and builds the problem, or returns null with a message in
  // *error (may be null).
  static std::unique_ptr<G2oPoseGraph2d> Create(const std::string& path,
                                                const Options& options,
                                                std::string* error);
  // The same graph from data already read (e.g. a copy of another graph's
  // data() with other weights, without reading the file again).
  static std::unique_ptr<G2oPoseGraph2d> Create(const G2oGraph2dData& data,
                                                const Options& options,
                                                std::string* error);

  G2oPoseGraph2d(const G2oPoseGraph2d&) = delete;
  G2oPoseGraph2d& operator=(const G2oPoseGraph2d&) = delete;

  int num_poses() const { return static_cast<int>(data_.ids.size()); }
  // Parameters that move: 3 (num_poses - 1).
  int num_parameters() const { return 3 * (num_poses() - 1); }
  const Options& options() const { return options_; }
  const G2oGraph2dData& data() const { return data_; }

  // Pose i's x/y block (2 doubles) and heading block (1 double), i the
  // index in order of increasing id, in the storage the problem points
  // into.
  double* position(int i) { return &positions_[2 * i]; }
  double* heading(int i) { return &headings_[i]; }
  // Every block of the poses that move (not the anchor).
  std::vector<double*> MovingParameterBlocks();
  using Pose = Eigen::Vector3d;

  // The current poses (x, y, theta), in order of increasing id.
  std::vector<Eigen::Vector3d> Poses() const;
  // Writes poses (one per vertex, in order of increasing id) into the
  // parameter storage, headings normalized to [-pi, pi); false (nothing
  // written) when the count does not match or a value is not finite.
  bool SetPoses(const std::vector<Eigen::Vector3d>& poses);

  // Restores the file's vertex values.
  void ResetToStart();
  // Copies every pose from `other`, a graph with the same vertex ids (e.g.
  // the same file with other weights); false otherwise.
  bool CopyParametersFrom(const G2oPoseGraph2d& other);

  // {"odometry", ...}, {"loop_closures", ...}.
  std::vector<ecmo::CeresProblemAdapter::ResidualGroup> ObjectiveGroups() const;

  // The unweighted costs 1/2 sum |r|^2 of the two kinds at the current
  // poses (ceres::Problem::Evaluate without the loss functions; 0 for an
  // empty kind).
  Eigen::Vector2d Costs();

  ceres::Problem problem;
  std::vector<ceres::ResidualBlockId> odometry;
  std::vector<ceres::ResidualBlockId> loop_closures;

 private:
  G2oPoseGraph2d(const G2oGraph2dData& data, const Options& options);
  void BuildProblem();

  G2oGraph2dData data_;
  Options options_;
  std::vector<double> positions_;
  std::vector<double> headings_;
};

// ---- 3D graphs ----
//
// The file: VERTEX_SE3:QUAT id x y z qx qy qz qw and
// EDGE_SE3:QUAT a b x y z qx qy qz qw I11 I12 .. I16 I22 .. I66 (the upper
// triangle of the 6x6 information, row-major, in the order x y z qx qy qz),
// with the same rules as the 2D reader (FIX skipped, comments, every error
// as "path:line: what"; a 2D tag is reported as a 2D graph; a quaternion of
// norm 0 is an error, any other is normalized).
//
// The problem: one position block (size 3) and one rotation block (size 4,
// Eigen's x y z w order, ceres::EigenQuaternionManifold) per vertex, the
// smallest id held constant. Each edge is one residual block of 6
// residuals r_ab = L^T (R_a^T (p_b - p_a) - p_ab, 2 vec(q_ab^-1 q_a^-1 q_b))
// with Omega = L L^T, so that 1/2 |r_ab|^2 = 1/2 e^T Omega e (the rotation
// error's vector part doubled is the small-angle rotation vector).
struct G2oGraph3dData {
  struct Edge {
    int a = 0;  // vertex indices (not ids)
    int b = 0;
    Eigen::Vector3d position = Eigen::Vector3d::Zero();
    Eigen::Quaterniond rotation = Eigen::Quaterniond::Identity();
    // Upper-triangular L^T of the information Omega = L L^T.
    Eigen::Matrix<double, 6, 6> sqrt_information =
        Eigen::Matrix<double, 6, 6>::Identity();
    bool loop_closure = false;
    int line = 0;
  };
  std::string path;
  std::vector<int> ids;  // increasing
  // (x, y, z, qx, qy, qz, qw) per vertex, quaternion of norm 1.
  std::vector<Eigen::Matrix<double, 7, 1>> poses;
  std::vector<Edge> edges;
  int num_odometry = 0;
  int num_loop_closures = 0;
};

bool ReadG2oGraph3d(const std::string& path,
                    G2oGraph3dData* data,
                    std::string* error);

// True when the first VERTEX / EDGE record of `path` is a 3D one (false
// also when the file cannot be read: the 2D reader then says why).
bool IsG2oFile3d(const std::string& path);

class G2oPoseGraph3d {
 public:
  using Pose = Eigen::Matrix<double, 7, 1>;
  // As G2oPoseGraph2d::Options (no angle_manifold: the quaternion manifold
  // is one the Ipopt reference handles).
  using Options = G2oPoseGraph2d::Options;

  static std::unique_ptr<G2oPoseGraph3d> Create(const std::string& path,
                                                const Options& options,
                                                std::string* error);
  static std::unique_ptr<G2oPoseGraph3d> Create(const G2oGraph3dData& data,
                                                const Options& options,
                                                std::string* error);

  G2oPoseGraph3d(const G2oPoseGraph3d&) = delete;
  G2oPoseGraph3d& operator=(const G2oPoseGraph3d&) = delete;

  int num_poses() const { return static_cast<int>(data_.ids.size()); }
  // Tangent parameters that move: 6 (num_poses - 1).
  int num_parameters() const { return 6 * (num_poses() - 1); }
  const Options& options() const { return options_; }
  const G2oGraph3dData& data() const { return data_; }

  double* position(int i) { return &positions_[3 * i]; }
  double* rotation(int i) { return &rotations_[4 * i]; }
  // Every block of the poses that move (not the anchor).
  std::vector<double*> MovingParameterBlocks();

  std::vector<Pose> Poses() const;
  // False (nothing written) on a count mismatch, a value that is not
  // finite or a zero quaternion; quaternions are normalized.
  bool SetPoses(const std::vector<Pose>& poses);
  void ResetToStart();

  std::vector<ecmo::CeresProblemAdapter::ResidualGroup> ObjectiveGroups() const;
  Eigen::Vector2d Costs();

  ceres::Problem problem;
  std::vector<ceres::ResidualBlockId> odometry;
  std::vector<ceres::ResidualBlockId> loop_closures;

 private:
  G2oPoseGraph3d(const G2oGraph3dData& data, const Options& options);
  void BuildProblem();

  G2oGraph3dData data_;
  Options options_;
  std::vector<double> positions_;
  std::vector<double> rotations_;
};

// A plain-Ceres weighted sum w_odometry f_odometry + w_loop_closures
// f_loop_closures of `graph`'s file (G2oPoseGraph2d or G2oPoseGraph3d),
// cold from the file's guess: what a Ceres user would run
// (Levenberg-Marquardt with the sparse Cholesky of pose graphs, Ceres'
// default tolerances, max_num_iterations = 1000). Returns its unweighted
// costs (NaN if it could not run); *termination (may be null) receives
// Ceres' termination and *solve_seconds (may be null) the time of
// ceres::Solve alone.
template <typename Graph>
Eigen::Vector2d PlainWeightedSum(const Graph& graph,
                                 double w_odometry,
                                 double w_loop_closures,
                                 ceres::TerminationType* termination,
                                 double* solve_seconds = nullptr) {
  ceres::Solver::Options plain;
  plain.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
  plain.max_num_iterations = 1000;
  plain.logging_type = ceres::SILENT;
  typename Graph::Options weighted;
  weighted.odometry_weight = w_odometry;
  weighted.loop_closure_weight = w_loop_closures;
  std::string error;
  std::unique_ptr<Graph> sum = Graph::Create(graph.data(), weighted, &error);
  if (sum == nullptr) return Eigen::Vector2d::Constant(NAN);
  TimedCeresSolve(plain, &sum->problem, termination, solve_seconds);
  return sum->Costs();
}

}  // namespace ecmo_pipelines

#endif  // ECMO_EXAMPLES_PIPELINES_G2O_POSE_GRAPH_H_
