// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/problems/pose_graph.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "Eigen/Cholesky"
#include "Eigen/LU"
#include "Eigen/QR"
#include "Eigen/SparseCholesky"
#include "Eigen/SparseCore"
#include "ceres/autodiff_cost_function.h"
#include "ceres/autodiff_manifold.h"
#include "ceres/loss_function.h"

namespace ecmo {
namespace problems {
namespace {

// Relative pose of b in a's frame.
Eigen::Vector3d Between(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  const double c = std::cos(a[2]), s = std::sin(a[2]);
  const double dx = b[0] - a[0], dy = b[1] - a[1];
  return Eigen::Vector3d(
      c * dx + s * dy, -s * dx + c * dy, NormalizeAngle(b[2] - a[2]));
}

// Pose a composed with the relative pose d.
Eigen::Vector3d Compose(const Eigen::Vector3d& a, const Eigen::Vector3d& d) {
  const double c = std::cos(a[2]), s = std::sin(a[2]);
  return Eigen::Vector3d(a[0] + c * d[0] - s * d[1],
                         a[1] + s * d[0] + c * d[1],
                         NormalizeAngle(a[2] + d[2]));
}

// The normal equations of sum_e |x_b - x_a - t_e|^2_{W_e} over poses
// 1 .. n-1 (blocks of size D), pose 0 fixed at x0: the sparse weighted
// linear least-squares problems of the linear initial guess.
template <int D>
class AnchoredNormalEquations {
 public:
  using Vector = Eigen::Matrix<double, D, 1>;
  using Matrix = Eigen::Matrix<double, D, D>;

  explicit AnchoredNormalEquations(int num_poses)
      : size_(D * (num_poses - 1)), rhs_(Eigen::VectorXd::Zero(size_)) {}

  // The term of edge a -> b (a < b).
  void Add(int a, int b, const Matrix& w, const Vector& t, const Vector& x0) {
    --a;  // unknown index; -1 is pose 0
    --b;
    if (a >= 0) {
      AddBlock(a, a, w);
      rhs_.template segment<D>(D * a) -= w * t;
    } else {
      rhs_.template segment<D>(D * b) += w * x0;
    }
    AddBlock(b, b, w);
    rhs_.template segment<D>(D * b) += w * t;
    if (a >= 0) {
      AddBlock(a, b, -w);
      AddBlock(b, a, -w);
    }
  }

  // The solution for poses 1 .. n-1 into x[0 .. D (n - 1) - 1]; false if
  // the factorization fails.
  bool Solve(double* x) const {
    Eigen::SparseMatrix<double> normal(size_, size_);
    normal.setFromTriplets(triplets_.begin(), triplets_.end());
    const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(normal);
    if (ldlt.info() != Eigen::Success) return false;
    Eigen::Map<Eigen::VectorXd>(x, size_) = ldlt.solve(rhs_);
    return true;
  }

 private:
  void AddBlock(int row, int col, const Matrix& m) {
    for (int r = 0; r < D; ++r) {
      for (int c = 0; c < D; ++c) {
        triplets_.emplace_back(D * row + r, D * col + c, m(r, c));
      }
    }
  }

  int size_;
  Eigen::VectorXd rhs_;
  std::vector<Eigen::Triplet<double>> triplets_;
};

}  // namespace

bool PoseGraph2d::Options::IsValid(std::string* error) const {
  std::ostringstream message;
  if (num_poses < 2 || num_poses > 10000000) {
    message << "PoseGraph2d::Options::num_poses = " << num_poses
            << " must be in [2, 10000000]";
  } else if (!(turn_probability >= 0.0 && turn_probability <= 1.0)) {
    message << "PoseGraph2d::Options::turn_probability = " << turn_probability
            << " must be in [0, 1]";
  } else if (world_size != 0 && world_size < 2) {
    message << "PoseGraph2d::Options::world_size = " << world_size
            << " must be 0 (automatic) or >= 2";
  } else if (!(odometry_min_information > 0.0 &&
               odometry_min_information <= odometry_max_information &&
               std::isfinite(odometry_max_information))) {
    message << "PoseGraph2d::Options: the odometry information range ["
            << odometry_min_information << ", " << odometry_max_information
            << "] must satisfy 0 < min <= max < inf";
  } else if (!(loop_closure_min_information > 0.0 &&
               loop_closure_min_information <= loop_closure_max_information &&
               std::isfinite(loop_closure_max_information))) {
    message << "PoseGraph2d::Options: the loop-closure information range ["
            << loop_closure_min_information << ", "
            << loop_closure_max_information
            << "] must satisfy 0 < min <= max < inf";
  } else if (!(odometry_weight > 0.0 && std::isfinite(odometry_weight)) ||
             !(loop_closure_weight > 0.0 &&
               std::isfinite(loop_closure_weight))) {
    message << "PoseGraph2d::Options: odometry_weight = " << odometry_weight
            << " and loop_closure_weight = " << loop_closure_weight
            << " must be finite and > 0";
  } else {
    return true;
  }
  if (error != nullptr) *error = message.str();
  return false;
}

std::unique_ptr<PoseGraph2d> PoseGraph2d::Create(const Options& options,
                                                 std::string* error) {
  if (!options.IsValid(error)) return nullptr;
  std::unique_ptr<PoseGraph2d> graph(new PoseGraph2d(options));
  graph->Generate();
  graph->BuildProblem();
  return graph;
}

PoseGraph2d::PoseGraph2d(const Options& options) : options_(options) {}

void PoseGraph2d::Generate() {
  const int n = options_.num_poses;
  const int world =
      options_.world_size > 0
          ? options_.world_size
          : std::max(3, static_cast<int>(std::lround(std::sqrt(n / 2.0))));
  std::mt19937_64 rng(options_.seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> gaussian(0.0, 1.0);

  // The walk: grid cell (gx, gy) and direction d (0: +x, 1: +y, 2: -x,
  // 3: -y), starting in the middle of the world facing +x.
  const int step_x[4] = {1, 0, -1, 0};
  const int step_y[4] = {0, 1, 0, -1};
  auto inside = [world](int x, int y) {
    return x >= 0 && y >= 0 && x < world && y < world;
  };
  int gx = world / 2, gy = world / 2, d = 0;
  truth_.resize(n);
  std::unordered_map<int64_t, int> last_visit;
  std::vector<std::pair<int, int>> pairs;  // (a, b), odometry and loops
  std::vector<bool> is_loop;
  auto cell_key = [](int x, int y) {
    return (static_cast<int64_t>(x) << 32) ^ static_cast<uint32_t>(y);
  };
  constexpr double kHalfPi = 1.5707963267948966192313216916398;
  for (int i = 0; i < n; ++i) {
    if (i > 0) {
      if (uniform(rng) < options_.turn_probability) {
        d = (d + (uniform(rng) < 0.5 ? 1 : 3)) % 4;
      }
      if (!inside(gx + step_x[d], gy + step_y[d])) {
        // At the border: turn left or right (whichever stays inside,
        // randomly if both do), or back.
        const int first = uniform(rng) < 0.5 ? 1 : 3;
        const int turns[3] = {first, 4 - first, 2};
        for (int t : turns) {
          const int nd = (d + t) % 4;
          if (inside(gx + step_x[nd], gy + step_y[nd])) {
            d = nd;
            break;
          }
        }
      }
      gx += step_x[d];
      gy += step_y[d];
    }
    truth_[i] = Eigen::Vector3d(gx, gy, NormalizeAngle(d * kHalfPi));
    if (i > 0) {
      pairs.emplace_back(i - 1, i);
      is_loop.push_back(false);
    }
    const int64_t key = cell_key(gx, gy);
    auto it = last_visit.find(key);
    if (it != last_visit.end() && it->second < i - 1) {
      pairs.emplace_back(it->second, i);
      is_loop.push_back(true);
    }
    last_visit[key] = i;
  }

  // Measurements with information U diag(e) U^T and noise ~ N(0, Omega^-1):
  // with Omega = L L^T, noise = L^-T g for g ~ N(0, I).
  edges_.resize(pairs.size());
  for (size_t k = 0; k < pairs.size(); ++k) {
    Edge& edge = edges_[k];
    edge.a = pairs[k].first;
    edge.b = pairs[k].second;
    edge.loop_closure = is_loop[k];
    const double lo = edge.loop_closure ? options_.loop_closure_min_information
                                        : options_.odometry_min_information;
    const double hi = edge.loop_closure ? options_.loop_closure_max_information
                                        : options_.odometry_max_information;
    Eigen::Matrix3d g;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) g(r, c) = gaussian(rng);
    }
    const Eigen::Matrix3d u =
        Eigen::HouseholderQR<Eigen::Matrix3d>(g).householderQ();
    Eigen::Vector3d e;
    for (int r = 0; r < 3; ++r) {
      e[r] = lo * std::pow(hi / lo, uniform(rng));
    }
    Eigen::Matrix3d information = u * e.asDiagonal() * u.transpose();
    information = 0.5 * (information + information.transpose()).eval();
    const Eigen::LLT<Eigen::Matrix3d> llt(information);
    edge.sqrt_information = llt.matrixU();
    const Eigen::Vector3d standard(gaussian(rng), gaussian(rng), gaussian(rng));
    const Eigen::Vector3d noise =
        edge.sqrt_information.triangularView<Eigen::Upper>().solve(standard);
    edge.measurement = Between(truth_[edge.a], truth_[edge.b]) + noise;
    edge.measurement[2] = NormalizeAngle(edge.measurement[2]);
  }

  // The odometry-composed start: odometry edge i - 1 -> i is the (i-1)-th
  // odometry edge in order of creation.
  start_positions_.assign(2 * n, 0.0);
  start_headings_.assign(n, 0.0);
  Eigen::Vector3d pose = truth_[0];
  start_positions_[0] = pose[0];
  start_positions_[1] = pose[1];
  start_headings_[0] = pose[2];
  for (const Edge& edge : edges_) {
    if (edge.loop_closure) continue;
    pose = Compose(pose, edge.measurement);
    start_positions_[2 * edge.b] = pose[0];
    start_positions_[2 * edge.b + 1] = pose[1];
    start_headings_[edge.b] = pose[2];
  }
  if (options_.initial_guess == InitialGuess::LINEAR) LinearStart();
  positions_ = start_positions_;
  headings_ = start_headings_;
}

void PoseGraph2d::LinearStart() {
  const int n = num_poses();
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  // Marginal covariances of the measurements: Omega = S^T S with S the
  // upper-triangular square root.
  std::vector<Eigen::Matrix3d> covariance(edges_.size());
  for (size_t e = 0; e < edges_.size(); ++e) {
    const Eigen::Matrix3d& s = edges_[e].sqrt_information;
    covariance[e] = (s.transpose() * s).inverse();
  }
  // Headings unwrapped along the odometry chain: the reference for k_ab.
  std::vector<double> chain(n, 0.0);
  chain[0] = truth_[0][2];
  for (const Edge& edge : edges_) {
    if (!edge.loop_closure) {
      chain[edge.b] = chain[edge.a] + edge.measurement[2];
    }
  }

  // (1) Headings.
  AnchoredNormalEquations<1> headings(n);
  const Eigen::Matrix<double, 1, 1> theta0(chain[0]);
  for (size_t e = 0; e < edges_.size(); ++e) {
    const Edge& edge = edges_[e];
    const double wrap = std::round(
        (chain[edge.b] - chain[edge.a] - edge.measurement[2]) / kTwoPi);
    headings.Add(
        edge.a,
        edge.b,
        Eigen::Matrix<double, 1, 1>(1.0 / covariance[e](2, 2)),
        Eigen::Matrix<double, 1, 1>(edge.measurement[2] + kTwoPi * wrap),
        theta0);
  }
  std::vector<double> theta(n);
  theta[0] = chain[0];
  if (!headings.Solve(theta.data() + 1)) return;  // keep the odometry start

  // (2) Positions, with those headings.
  AnchoredNormalEquations<2> positions(n);
  const Eigen::Vector2d p0 = truth_[0].head<2>();
  for (size_t e = 0; e < edges_.size(); ++e) {
    const Edge& edge = edges_[e];
    const double c = std::cos(theta[edge.a]), s = std::sin(theta[edge.a]);
    Eigen::Matrix2d rotation;
    rotation << c, -s, s, c;
    positions.Add(
        edge.a,
        edge.b,
        (rotation * covariance[e].topLeftCorner<2, 2>() * rotation.transpose())
            .inverse(),
        rotation * edge.measurement.head<2>(),
        p0);
  }
  std::vector<double> p(2 * n);
  if (!positions.Solve(p.data() + 2)) return;
  for (int i = 1; i < n; ++i) {
    start_positions_[2 * i] = p[2 * i];
    start_positions_[2 * i + 1] = p[2 * i + 1];
    start_headings_[i] = NormalizeAngle(theta[i]);
  }
}

const char* InitialGuessToString(PoseGraph2d::InitialGuess guess) {
  return guess == PoseGraph2d::InitialGuess::LINEAR ? "linear" : "odometry";
}

bool StringToInitialGuess(const std::string& name,
                          PoseGraph2d::InitialGuess* guess) {
  if (name == "odometry") {
    *guess = PoseGraph2d::InitialGuess::ODOMETRY;
  } else if (name == "linear") {
    *guess = PoseGraph2d::InitialGuess::LINEAR;
  } else {
    return false;
  }
  return true;
}

void PoseGraph2d::BuildProblem() {
  ceres::Manifold* angle =
      options_.angle_manifold
          ? new ceres::AutoDiffManifold<AngleManifoldFunctor, 1, 1>
          : nullptr;
  for (int i = 0; i < num_poses(); ++i) {
    problem.AddParameterBlock(position(i), 2);
    // One manifold shared by every heading block: the problem deletes it
    // once (Ceres' ownership rule for shared manifolds).
    problem.AddParameterBlock(heading(i), 1, angle);
  }
  problem.SetParameterBlockConstant(position(0));
  problem.SetParameterBlockConstant(heading(0));
  for (const Edge& edge : edges_) {
    const double weight = edge.loop_closure ? options_.loop_closure_weight
                                            : options_.odometry_weight;
    ceres::LossFunction* loss =
        weight == 1.0
            ? nullptr
            : new ceres::ScaledLoss(nullptr, weight, ceres::TAKE_OWNERSHIP);
    const ceres::ResidualBlockId id = problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<RelativePose2dError, 3, 2, 1, 2, 1>(
            new RelativePose2dError(edge.measurement, edge.sqrt_information)),
        loss,
        position(edge.a),
        heading(edge.a),
        position(edge.b),
        heading(edge.b));
    (edge.loop_closure ? loop_closures : odometry).push_back(id);
  }
}

void PoseGraph2d::ResetToStart() {
  // Copy in place: the problem points into these buffers.
  std::copy(
      start_positions_.begin(), start_positions_.end(), positions_.begin());
  std::copy(start_headings_.begin(), start_headings_.end(), headings_.begin());
}

bool PoseGraph2d::CopyParametersFrom(const PoseGraph2d& other) {
  if (other.num_poses() != num_poses()) return false;
  std::copy(
      other.positions_.begin(), other.positions_.end(), positions_.begin());
  std::copy(other.headings_.begin(), other.headings_.end(), headings_.begin());
  return true;
}

std::vector<CeresProblemAdapter::ResidualGroup> PoseGraph2d::ObjectiveGroups()
    const {
  return {{"odometry", odometry}, {"loop_closures", loop_closures}};
}

Eigen::Vector2d PoseGraph2d::Costs() {
  Eigen::Vector2d costs(0.0, 0.0);
  ceres::Problem::EvaluateOptions evaluate;
  evaluate.apply_loss_function = false;
  evaluate.residual_blocks = odometry;
  problem.Evaluate(evaluate, &costs[0], nullptr, nullptr, nullptr);
  if (!loop_closures.empty()) {
    evaluate.residual_blocks = loop_closures;
    problem.Evaluate(evaluate, &costs[1], nullptr, nullptr, nullptr);
  }
  return costs;
}

}  // namespace problems
}  // namespace ecmo
