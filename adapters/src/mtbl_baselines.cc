// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The MTBL baselines (MOML, MoCo, FORUM, ITD-LS, SOBA-LS), deterministic and
// full-batch, on the oracles of an MtblEvaluator (see
// ecmo/mtbl_baselines.h). The update rules follow the transcription in
// the project's research notes; the minimizer is one loop over named steps
// (evaluate at the iterate, compute the method's step, evaluate the
// candidate, test the stopping rules), with the method's state in members.

#include "ecmo/mtbl_baselines.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <utility>

#include "Eigen/LU"
#include "ecmo/internal/report.h"

namespace ecmo {

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Added to every normalizing denominator, as the reference codes do.
constexpr double kNormalizationEpsilon = 1e-8;
// Exact min-norm weights up to this many objectives (2^S KKT solves).
constexpr int kMaxExactMinNormSize = 12;
// FORUM's QP has S + 2 inequalities: 2^(S+2) active sets.
constexpr int kMaxForumObjectives = 10;

// min u^T P u + q^T u  s.t.  E u = e,  C u >= c  (P symmetric PSD, small),
// by enumerating the sets of active inequalities: for each set, the KKT
// system of the equality-constrained problem is solved when it is
// non-singular, and the feasible solution with the least objective is
// kept. Exact for convex P: a minimizer at a vertex of the solution set
// has linearly independent active constraints on which P is definite, so
// its KKT system is non-singular. False if no active set gave a feasible
// point.
bool SolveSmallQpByEnumeration(const MatrixXd& P,
                               const VectorXd& q,
                               const MatrixXd& E,
                               const VectorXd& e,
                               const MatrixXd& C,
                               const VectorXd& c,
                               VectorXd* u) {
  const int n = static_cast<int>(P.rows());
  const int num_eq = static_cast<int>(E.rows());
  const int num_ineq = static_cast<int>(C.rows());
  const double feasibility_tolerance = 1e-10;
  double best = std::numeric_limits<double>::infinity();
  bool found = false;
  std::vector<int> active;
  for (uint64_t mask = 0; mask < (uint64_t{1} << num_ineq); ++mask) {
    active.clear();
    for (int i = 0; i < num_ineq; ++i) {
      if (mask & (uint64_t{1} << i)) active.push_back(i);
    }
    const int m = num_eq + static_cast<int>(active.size());
    if (m > n) continue;  // more independent constraints than unknowns
    MatrixXd kkt = MatrixXd::Zero(n + m, n + m);
    VectorXd rhs = VectorXd::Zero(n + m);
    kkt.topLeftCorner(n, n) = 2.0 * P;
    rhs.head(n) = -q;
    for (int r = 0; r < m; ++r) {
      const bool is_eq = r < num_eq;
      const VectorXd row =
          is_eq ? VectorXd(E.row(r).transpose())
                : VectorXd(C.row(active[r - num_eq]).transpose());
      kkt.block(n + r, 0, 1, n) = row.transpose();
      kkt.block(0, n + r, n, 1) = -row;
      rhs[n + r] = is_eq ? e[r] : c[active[r - num_eq]];
    }
    Eigen::FullPivLU<MatrixXd> lu(kkt);
    lu.setThreshold(1e-11);
    if (lu.rank() < n + m) continue;
    const VectorXd solution = lu.solve(rhs);
    const VectorXd candidate = solution.head(n);
    if (!candidate.allFinite()) continue;
    if (num_ineq > 0 &&
        ((C * candidate - c).array() < -feasibility_tolerance).any()) {
      continue;
    }
    const double value = candidate.dot(P * candidate) + q.dot(candidate);
    if (value < best) {
      best = value;
      *u = candidate;
      found = true;
    }
  }
  return found;
}

VectorXd Softmax(const VectorXd& v) {
  VectorXd e = (v.array() - v.maxCoeff()).exp().matrix();
  return e / e.sum();
}

// FORUM's QP (the code's "problem (14)"): over lambda in the simplex and
// nu >= 0 with nu >= pi^T lambda, minimize
//   ||G lambda + nu b||^2 - nu rho (||b||^2 + 1e-8).
// G is k x S (columns G_s), b = grad q (size k).
VectorXd SolveForumQp(const MatrixXd& G,
                      const VectorXd& b,
                      const VectorXd& pi,
                      double rho) {
  const int S = static_cast<int>(G.cols());
  MatrixXd A(G.rows(), S + 1);
  A << G, b;
  MatrixXd P = A.transpose() * A;
  VectorXd q = VectorXd::Zero(S + 1);
  q[S] = -rho * (b.squaredNorm() + kNormalizationEpsilon);
  // Scale the objective so the KKT systems mix O(1) blocks only.
  const double scale =
      std::max(P.cwiseAbs().maxCoeff(), q.cwiseAbs().maxCoeff());
  if (scale > 0.0 && std::isfinite(scale)) {
    P /= scale;
    q /= scale;
  }
  MatrixXd E = MatrixXd::Zero(1, S + 1);
  E.leftCols(S).setOnes();
  const VectorXd e = VectorXd::Ones(1);
  MatrixXd C = MatrixXd::Zero(S + 2, S + 1);
  C.topLeftCorner(S, S).setIdentity();  // lambda >= 0
  C(S, S) = 1.0;                        // nu >= 0
  C.row(S + 1).head(S) = -pi.transpose();
  C(S + 1, S) = 1.0;  // nu - pi^T lambda >= 0
  const VectorXd c = VectorXd::Zero(S + 2);
  VectorXd u;
  if (!SolveSmallQpByEnumeration(P, q, E, e, C, c, &u)) {
    return VectorXd::Constant(S, 1.0 / S);
  }
  return internal::ProjectOntoSimplex(u.head(S));  // removes round-off only
}

// ----------------------------------------------------------- the minimizer --

// The state of the iteration at one point z = (x, y): the oracles there and
// each method's own state (MoCo's trackers, SOBA's v, the weights).
struct IterateState {
  VectorXd z;
  VectorXd f;        // f_s(z)
  VectorXd h;        // grad_y g(z)
  MatrixXd grad_f;   // k x S (FORUM and SOBA only)
  MatrixXd tracker;  // MoCo's Y (nx x S)
  VectorXd weights;  // lambda (MOML, MoCo, FORUM's lambda-bar) or w
  VectorXd soba_v;
};

class BaselineMinimizer {
 public:
  BaselineMinimizer(const MtblBaseline::Options& options,
                    MtblEvaluator* evaluator,
                    const std::vector<double>& weights,
                    MtblBaseline::Summary* summary)
      : options_(options),
        evaluator_(evaluator),
        given_weights_(weights),
        summary_(summary) {}

  void Minimize(VectorXd* z) {
    if (!Init(z)) {
      internal::Fail(timer_, error_, summary_);
      return;
    }
    RecordHistory(/*force=*/true);
    while (!MaxIterationsReached() && !MaxSolverTimeReached()) {
      if (!ComputeStep() || !EvaluateCandidate()) {
        StopAtCurrentIterate();
        break;
      }
      current_ = std::move(candidate_);
      ++summary_->iterations;
      RecordHistory(/*force=*/false);
      if (Converged()) break;
    }
    Finish(z);
  }

 private:
  // ---- initialization and evaluations ----

  bool Init(VectorXd* z) {
    summary_->type = options_.type;
    if (!options_.IsValid(&error_)) return false;
    if (evaluator_ == nullptr || z == nullptr) {
      error_ =
          "ecmo::Solve (MTBL baseline): the evaluator and z must not be null.";
      return false;
    }
    std::string invalid;
    if (!evaluator_->IsValid(&invalid)) {
      error_ = "ecmo::Solve (MTBL baseline): invalid evaluator: " + invalid;
      return false;
    }
    lower_ = evaluator_->lower_level();
    nx_ = evaluator_->NumUpperParameters();
    ny_ = evaluator_->NumLowerParameters();
    num_objectives_ = evaluator_->NumObjectives();
    if (z->size() != nx_ + ny_) {
      std::ostringstream os;
      os << "ecmo::Solve (MTBL baseline): z has " << z->size()
         << " entries; the evaluator packs z = (x, y) with nx + ny = "
         << nx_ + ny_ << ".";
      error_ = os.str();
      return false;
    }
    if (!z->allFinite()) {
      error_ = "ecmo::Solve (MTBL baseline): the start point z is not finite.";
      return false;
    }
    if (!CheckWeights()) return false;
    if (options_.type == MtblBaselineType::FORUM &&
        num_objectives_ > kMaxForumObjectives) {
      std::ostringstream os;
      os << "ecmo::Solve (MTBL baseline): FORUM solves its (S+1)-variable "
            "QP exactly for at most "
         << kMaxForumObjectives << " objectives; the evaluator has "
         << num_objectives_ << ".";
      error_ = os.str();
      return false;
    }
    current_.z = *z;
    if (!EvaluateAt(NeedsGradientsAtIterate(), &current_)) {
      error_ =
          "ecmo::Solve (MTBL baseline): the oracles failed at the start "
          "point: " +
          error_;
      return false;
    }
    const int S = num_objectives_;
    switch (options_.type) {
      case MtblBaselineType::MOML:
      case MtblBaselineType::MOCO:
        current_.weights = VectorXd::Constant(S, 1.0 / S);
        current_.tracker = MatrixXd::Zero(nx_, S);
        break;
      case MtblBaselineType::FORUM:
        current_.weights = VectorXd::Zero(S);  // lambda-bar starts at 0
        break;
      case MtblBaselineType::ITD_LS:
      case MtblBaselineType::SOBA_LS:
        current_.weights = Eigen::Map<const VectorXd>(given_weights_.data(), S);
        current_.soba_v = VectorXd::Zero(ny_);
        break;
    }
    return true;
  }

  bool CheckWeights() {
    if (options_.type != MtblBaselineType::ITD_LS &&
        options_.type != MtblBaselineType::SOBA_LS) {
      return true;
    }
    std::ostringstream os;
    os << "ecmo::Solve (MTBL baseline "
       << MtblBaselineTypeToString(options_.type) << "): ";
    if (static_cast<int>(given_weights_.size()) != num_objectives_) {
      os << "the linear-scalarization weights have " << given_weights_.size()
         << " entries; the evaluator has S = " << num_objectives_
         << " objectives (pass one non-negative weight per objective, summing "
            "to 1).";
      error_ = os.str();
      return false;
    }
    double sum = 0.0;
    for (size_t s = 0; s < given_weights_.size(); ++s) {
      if (!(given_weights_[s] >= 0.0) || !std::isfinite(given_weights_[s])) {
        os << "weights[" << s << "] = " << given_weights_[s]
           << "; weights must be finite and >= 0.";
        error_ = os.str();
        return false;
      }
      sum += given_weights_[s];
    }
    if (std::abs(sum - 1.0) > 1e-9) {
      os << "the weights sum to " << sum
         << "; they must sum to 1 (lie in "
            "the simplex).";
      error_ = os.str();
      return false;
    }
    return true;
  }

  bool NeedsGradientsAtIterate() const {
    return options_.type == MtblBaselineType::FORUM ||
           options_.type == MtblBaselineType::SOBA_LS;
  }

  // f, h = grad_y g (and grad_f) at state->z.
  bool EvaluateAt(bool with_gradients, IterateState* state) {
    const int S = num_objectives_;
    state->f.resize(S);
    state->h.resize(ny_);
    if (with_gradients) {
      state->grad_f.resize(nx_ + ny_, S);
      ++summary_->upper_gradients;
    } else {
      ++summary_->upper_values;
    }
    ++summary_->lower_gradients;
    return evaluator_->Evaluate(state->z.data(),
                                state->f.data(),
                                state->h.data(),
                                with_gradients ? state->grad_f.data() : nullptr,
                                &error_);
  }

  bool EvaluateCandidate() {
    if (!candidate_.z.allFinite()) {
      error_ = "the step produced a non-finite point (reduce the step sizes)";
      return false;
    }
    return EvaluateAt(NeedsGradientsAtIterate(), &candidate_);
  }

  // ---- the methods' steps: fill candidate_ from current_ ----

  bool ComputeStep() {
    candidate_ = IterateState();
    candidate_.tracker = current_.tracker;
    candidate_.weights = current_.weights;
    candidate_.soba_v = current_.soba_v;
    switch (options_.type) {
      case MtblBaselineType::MOML:
        return MomlStep();
      case MtblBaselineType::MOCO:
        return MocoStep();
      case MtblBaselineType::FORUM:
        return ForumStep();
      case MtblBaselineType::ITD_LS:
        return ItdStep();
      case MtblBaselineType::SOBA_LS:
        return SobaStep();
    }
    return false;
  }

  // inner_iterations gradient steps on g(x_k, .) from y_k; trajectory_
  // receives y^0 .. y^T. The first gradient is the one at the iterate.
  bool InnerLoop() {
    const int T = options_.inner_iterations;
    const double* x = current_.z.data();
    trajectory_.assign(T + 1, VectorXd());
    trajectory_[0] = current_.z.tail(ny_);
    VectorXd gradient(ny_);
    for (int t = 0; t < T; ++t) {
      if (t == 0) {
        gradient = current_.h;
      } else {
        ++summary_->lower_gradients;
        if (!lower_->GradY(x, trajectory_[t].data(), gradient.data()) ||
            !gradient.allFinite()) {
          error_ =
              "the lower level's GradY failed or returned a non-finite "
              "value in the inner loop (reduce inner_step_size)";
          return false;
        }
      }
      trajectory_[t + 1] = trajectory_[t] - options_.inner_step_size * gradient;
    }
    return true;
  }

  // Upper objectives and their gradients at (x_k, y^T).
  bool EvaluateAtInnerSolution(VectorXd* f, MatrixXd* grad_f) {
    IterateState at_inner;
    at_inner.z.resize(nx_ + ny_);
    at_inner.z << current_.z.head(nx_), trajectory_.back();
    if (!EvaluateAt(/*with_gradients=*/true, &at_inner)) return false;
    *f = at_inner.f;
    *grad_f = at_inner.grad_f;
    return true;
  }

  // Reverse-mode ITD: for each column j of (grad_x phi_j, grad_y phi_j) at
  // (x_k, y^T), the gradient of phi_j(x, y^T(x)) through the last K inner
  // steps, v <- v - eta H_yy(y^t) v, h <- h - eta H_xy(y^t) v.
  bool ItdHypergradients(const MatrixXd& grad_x,
                         const MatrixXd& grad_y,
                         MatrixXd* hypergradients) {
    const int T = options_.inner_iterations;
    const int K =
        options_.itd_truncation == 0 ? T : std::min(T, options_.itd_truncation);
    const double eta = options_.inner_step_size;
    const double* x = current_.z.data();
    *hypergradients = grad_x;
    VectorXd v(ny_), out_x(nx_), out_y(ny_);
    for (Eigen::Index j = 0; j < grad_x.cols(); ++j) {
      v = grad_y.col(j);
      for (int t = T - 1; t >= T - K; --t) {
        ++summary_->hessian_products;
        if (!lower_->GradYJacobianTransposeProduct(x,
                                                   trajectory_[t].data(),
                                                   v.data(),
                                                   out_x.data(),
                                                   out_y.data()) ||
            !out_x.allFinite() || !out_y.allFinite()) {
          error_ =
              "the lower level's GradYJacobianTransposeProduct failed or "
              "returned a non-finite value";
          return false;
        }
        hypergradients->col(j) -= eta * out_x;
        v -= eta * out_y;
      }
    }
    return true;
  }

  // MOML and MoCo share the inner loop and the per-objective hypergradients
  // (nx x S) at x_k; *f receives f_s(x_k, y^T).
  bool PerObjectiveHypergradients(MatrixXd* hypergradients, VectorXd* f) {
    MatrixXd grad_f;
    if (!InnerLoop() || !EvaluateAtInnerSolution(f, &grad_f)) return false;
    return ItdHypergradients(
        grad_f.topRows(nx_), grad_f.bottomRows(ny_), hypergradients);
  }

  bool MomlStep() {
    MatrixXd H;
    VectorXd f;
    if (!PerObjectiveHypergradients(&H, &f)) return false;
    for (int s = 0; s < num_objectives_; ++s) {
      const double norm = H.col(s).norm();
      double denominator = 1.0;
      switch (options_.normalization) {
        case HypergradientNormalization::NONE:
          break;
        case HypergradientNormalization::L2:
          denominator = norm + kNormalizationEpsilon;
          break;
        case HypergradientNormalization::LOSS:
          denominator = f[s] + kNormalizationEpsilon;
          break;
        case HypergradientNormalization::LOSS_PLUS:
          denominator = f[s] * norm + kNormalizationEpsilon;
          break;
      }
      H.col(s) /= denominator;
    }
    candidate_.weights = MinNormWeights(H.transpose() * H);
    const VectorXd d = H * candidate_.weights;
    TakeUpperStep(d);
    return true;
  }

  bool MocoStep() {
    MatrixXd H;
    VectorXd f;
    if (!PerObjectiveHypergradients(&H, &f)) return false;
    if (options_.moco_normalize_hypergradients) {
      for (int s = 0; s < num_objectives_; ++s) {
        H.col(s) *= f[s] / (H.col(s).norm() + kNormalizationEpsilon);
      }
    }
    const double k = summary_->iterations + 1.0;
    const double beta =
        options_.moco_beta / std::pow(k, options_.moco_beta_sigma);
    const double gamma =
        options_.moco_gamma / std::pow(k, options_.moco_gamma_sigma);
    MatrixXd& Y = candidate_.tracker;
    Y -= beta * (Y - H);
    VectorXd& lambda = candidate_.weights;
    const MatrixXd M = Y.transpose() * Y +
                       options_.moco_rho *
                           MatrixXd::Identity(num_objectives_, num_objectives_);
    lambda = Softmax(lambda - gamma * M * lambda);
    TakeUpperStep(Y * lambda);
    return true;
  }

  bool ItdStep() {
    MatrixXd grad_f, hypergradient;
    VectorXd f;
    if (!InnerLoop() || !EvaluateAtInnerSolution(&f, &grad_f)) return false;
    const VectorXd& w = current_.weights;
    if (!ItdHypergradients(grad_f.topRows(nx_) * w,
                           grad_f.bottomRows(ny_) * w,
                           &hypergradient)) {
      return false;
    }
    TakeUpperStep(hypergradient.col(0));
    return true;
  }

  // x <- x_k - upper_step_size d, y <- y^T (MOML, MoCo, ITD).
  void TakeUpperStep(const VectorXd& d) {
    direction_norm_ = d.norm();
    candidate_.z.resize(nx_ + ny_);
    candidate_.z << current_.z.head(nx_) - options_.upper_step_size * d,
        trajectory_.back();
  }

  bool ForumStep() {
    if (!InnerLoop()) return false;
    const double* x = current_.z.data();
    VectorXd gx_k(nx_), gx_T(nx_);
    summary_->lower_x_gradients += 2;
    if (!lower_->GradX(x, current_.z.data() + nx_, gx_k.data()) ||
        !lower_->GradX(x, trajectory_.back().data(), gx_T.data()) ||
        !gx_k.allFinite() || !gx_T.allFinite()) {
      error_ =
          "FORUM needs grad_x g: the lower level's GradX failed, returned a "
          "non-finite value, or is not implemented (LowerLevel::GradX "
          "defaults to returning false; override it)";
      fatal_ = summary_->iterations == 0;
      return false;
    }
    const int S = num_objectives_;
    const int k = nx_ + ny_;
    VectorXd b(k);
    b << gx_k - gx_T, current_.h;
    const double b_norm_sq = b.squaredNorm() + kNormalizationEpsilon;
    MatrixXd G = current_.grad_f;
    if (options_.forum_normalize_gradients) {
      for (int s = 0; s < S; ++s) {
        G.col(s) /= G.col(s).norm() + kNormalizationEpsilon;
      }
    }
    const VectorXd pi =
        (options_.forum_rho - (G.transpose() * b).array() / b_norm_sq).matrix();
    const VectorXd lambda_qp = SolveForumQp(G, b, pi, options_.forum_rho);
    const int epoch = summary_->iterations / options_.forum_epoch_length;
    const double beta = 1.0 / std::pow(epoch + 1.0, 0.75);
    VectorXd& lambda_bar = candidate_.weights;
    lambda_bar += beta * (lambda_qp - lambda_bar);
    const double nu = std::max(pi.dot(lambda_bar), 0.0);
    const VectorXd d = G * lambda_bar + nu * b;
    direction_norm_ = d.norm();
    candidate_.z = current_.z;
    candidate_.z.head(nx_) -= options_.upper_step_size * d.head(nx_);
    candidate_.z.tail(ny_) -= options_.forum_lower_step_size * d.tail(ny_);
    return true;
  }

  bool SobaStep() {
    const double t = summary_->iterations + 1.0;
    const double rho =
        options_.soba_lower_step_size / std::pow(t, options_.soba_decay);
    const double gamma =
        options_.soba_upper_step_size / std::pow(t, options_.soba_decay);
    const VectorXd& w = current_.weights;
    const VectorXd& v = current_.soba_v;
    VectorXd out_x(nx_), out_y(ny_);
    ++summary_->hessian_products;
    if (!lower_->GradYJacobianTransposeProduct(current_.z.data(),
                                               current_.z.data() + nx_,
                                               v.data(),
                                               out_x.data(),
                                               out_y.data()) ||
        !out_x.allFinite() || !out_y.allFinite()) {
      error_ =
          "the lower level's GradYJacobianTransposeProduct failed or "
          "returned a non-finite value";
      return false;
    }
    const VectorXd d_v = out_y + current_.grad_f.bottomRows(ny_) * w;
    const VectorXd d_x = out_x + current_.grad_f.topRows(nx_) * w;
    direction_norm_ = d_x.norm();
    soba_v_step_norm_ = d_v.norm();
    candidate_.z = current_.z;
    candidate_.z.head(nx_) -= gamma * d_x;
    candidate_.z.tail(ny_) -= rho * current_.h;
    candidate_.soba_v = v - rho * d_v;
    return candidate_.soba_v.allFinite();
  }

  // ---- stopping rules, each writing the verdict in one place ----

  bool MaxIterationsReached() {
    if (summary_->iterations < options_.max_iterations) return false;
    summary_->termination_type = ceres::NO_CONVERGENCE;
    summary_->message =
        "Maximum number of iterations reached. Number of "
        "iterations: " +
        std::to_string(summary_->iterations) + ".";
    return true;
  }

  bool MaxSolverTimeReached() {
    const double elapsed = timer_.Seconds();
    if (elapsed < options_.max_solver_time_in_seconds) return false;
    summary_->termination_type = ceres::NO_CONVERGENCE;
    summary_->message = "Maximum solver time reached. Total solver time: " +
                        internal::FormatNumber(elapsed) + " s.";
    return true;
  }

  bool Converged() {
    const double lower_norm = current_.h.norm();
    const bool soba_v_ok = options_.type != MtblBaselineType::SOBA_LS ||
                           soba_v_step_norm_ <= options_.direction_tolerance;
    if (!(direction_norm_ <= options_.direction_tolerance && soba_v_ok &&
          lower_norm <= options_.lower_tolerance)) {
      return false;
    }
    summary_->termination_type = ceres::CONVERGENCE;
    summary_->message =
        "Direction norm " + internal::FormatNumber(direction_norm_) +
        " <= " + internal::FormatNumber(options_.direction_tolerance) +
        " and ||grad_y g|| " + internal::FormatNumber(lower_norm) +
        " <= " + internal::FormatNumber(options_.lower_tolerance) + ".";
    return true;
  }

  // An oracle failed inside iteration k: keep the last finite iterate.
  void StopAtCurrentIterate() {
    std::ostringstream os;
    os << "Stopped in iteration " << summary_->iterations + 1 << ": " << error_
       << ". The point is the last iterate with finite oracles.";
    summary_->termination_type =
        fatal_ ? ceres::FAILURE : ceres::NO_CONVERGENCE;
    summary_->message = os.str();
  }

  void RecordHistory(bool force) {
    const int stride = options_.history_stride;
    if (stride <= 0) return;
    const int k = summary_->iterations;
    const bool last = k >= options_.max_iterations;
    if (!force && !last && k % stride != 0) return;
    MtblBaseline::Summary::HistoryEntry entry;
    entry.iteration = k;
    entry.time_in_seconds = timer_.Seconds();
    entry.upper_objectives = current_.f;
    entry.grad_y_g_norm = current_.h.norm();
    summary_->history.push_back(std::move(entry));
  }

  void Finish(VectorXd* z) {
    // The last iterate is recorded even when the stride skipped it.
    if (options_.history_stride > 0 &&
        (summary_->history.empty() ||
         summary_->history.back().iteration != summary_->iterations)) {
      RecordHistory(/*force=*/true);
    }
    summary_->upper_objectives = current_.f;
    summary_->grad_y_g_norm = current_.h.norm();
    summary_->weights = current_.weights;
    summary_->direction_norm = direction_norm_;
    summary_->total_time_in_seconds = timer_.Seconds();
    if (summary_->termination_type != ceres::FAILURE) *z = current_.z;
  }

  const MtblBaseline::Options& options_;
  MtblEvaluator* evaluator_;
  const std::vector<double>& given_weights_;
  MtblBaseline::Summary* summary_;
  internal::WallTimer timer_;
  const LowerLevel* lower_ = nullptr;
  int nx_ = 0;
  int ny_ = 0;
  int num_objectives_ = 0;
  IterateState current_;
  IterateState candidate_;
  std::vector<VectorXd> trajectory_;  // y^0 .. y^T of the last inner loop
  double direction_norm_ = std::numeric_limits<double>::quiet_NaN();
  double soba_v_step_norm_ = std::numeric_limits<double>::quiet_NaN();
  bool fatal_ = false;  // a refusal (FORUM without GradX) in iteration 1
  std::string error_;
};

std::string NormalizedName(const std::string& name) {
  std::string out;
  for (char c : name) {
    out.push_back(c == '_' ? '-'
                           : static_cast<char>(
                                 std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

}  // namespace

// ------------------------------------------------------------------ names --

const char* MtblBaselineTypeToString(MtblBaselineType type) {
  switch (type) {
    case MtblBaselineType::MOML:
      return "moml";
    case MtblBaselineType::MOCO:
      return "moco";
    case MtblBaselineType::FORUM:
      return "forum";
    case MtblBaselineType::ITD_LS:
      return "itd-ls";
    case MtblBaselineType::SOBA_LS:
      return "soba-ls";
  }
  return "unknown";
}

bool StringToMtblBaselineType(const std::string& name, MtblBaselineType* type) {
  const std::string normalized = NormalizedName(name);
  for (MtblBaselineType t : {MtblBaselineType::MOML,
                             MtblBaselineType::MOCO,
                             MtblBaselineType::FORUM,
                             MtblBaselineType::ITD_LS,
                             MtblBaselineType::SOBA_LS}) {
    if (normalized == MtblBaselineTypeToString(t)) {
      *type = t;
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------- options --

bool MtblBaseline::Options::IsValid(std::string* error) const {
  static constexpr char kOptions[] = "MtblBaseline::Options";
  ECMO_OPTION_CHECK(kOptions, max_iterations, max_iterations >= 0, ">= 0");
  ECMO_OPTION_CHECK(kOptions,
                    max_solver_time_in_seconds,
                    max_solver_time_in_seconds > 0.0,
                    "> 0");
  ECMO_OPTION_CHECK(
      kOptions,
      direction_tolerance,
      direction_tolerance >= 0.0 && std::isfinite(direction_tolerance),
      ">= 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    lower_tolerance,
                    lower_tolerance >= 0.0 && std::isfinite(lower_tolerance),
                    ">= 0 and finite");
  ECMO_OPTION_CHECK(kOptions, inner_iterations, inner_iterations > 0, "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    inner_step_size,
                    internal::IsPositiveFinite(inner_step_size),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    itd_truncation,
                    itd_truncation >= 0,
                    ">= 0 (0: back-propagate through every inner step)");
  ECMO_OPTION_CHECK(kOptions,
                    upper_step_size,
                    internal::IsPositiveFinite(upper_step_size),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    moco_beta,
                    moco_beta > 0.0 && moco_beta <= 1.0,
                    "in (0, 1] (the first tracking step is moco_beta)");
  ECMO_OPTION_CHECK(kOptions,
                    moco_beta_sigma,
                    internal::IsNonNegativeFinite(moco_beta_sigma),
                    ">= 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    moco_gamma,
                    internal::IsPositiveFinite(moco_gamma),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    moco_gamma_sigma,
                    internal::IsNonNegativeFinite(moco_gamma_sigma),
                    ">= 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    moco_rho,
                    internal::IsNonNegativeFinite(moco_rho),
                    ">= 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    forum_rho,
                    internal::IsPositiveFinite(forum_rho),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    forum_lower_step_size,
                    internal::IsPositiveFinite(forum_lower_step_size),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(
      kOptions, forum_epoch_length, forum_epoch_length > 0, "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    soba_lower_step_size,
                    internal::IsPositiveFinite(soba_lower_step_size),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    soba_upper_step_size,
                    internal::IsPositiveFinite(soba_upper_step_size),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    soba_decay,
                    internal::IsNonNegativeFinite(soba_decay),
                    ">= 0 and finite");
  ECMO_OPTION_CHECK(kOptions, history_stride, history_stride >= 0, ">= 0");
  return true;
}

// ---------------------------------------------------------------- summary --

bool MtblBaseline::Summary::IsSolutionUsable() const {
  return ecmo::IsSolutionUsable(termination_type) &&
         upper_objectives.size() > 0 && upper_objectives.allFinite();
}

std::string MtblBaseline::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(4);
  os << "MTBL baseline " << MtblBaselineTypeToString(type) << ": "
     << TerminationTypeName(termination_type) << ", " << iterations
     << " iterations, f = " << internal::FormatVector(upper_objectives, 6, 4)
     << ", ||grad_y g|| " << grad_y_g_norm << ", " << total_time_in_seconds
     << " s";
  return os.str();
}

std::string MtblBaseline::Summary::FullReport() const {
  internal::ReportWriter report(
      std::string("ceres-ecmo MTBL Baseline Report (") +
      MtblBaselineTypeToString(type) + ")");
  report.Section("Point");
  report.Row("  Upper objectives f_s",
             internal::FormatVector(upper_objectives));
  report.Row("  ||grad_y g||", internal::FormatNumber(grad_y_g_norm));
  report.Row("  Weights", internal::FormatVector(weights));
  report.Row("  Last direction norm", internal::FormatNumber(direction_norm));
  report.Section("Work");
  report.Row("  Iterations", iterations);
  report.Row("  Upper values", upper_values);
  report.Row("  Upper gradients", upper_gradients);
  report.Row("  Lower gradients (grad_y g)", lower_gradients);
  report.Row("  Lower gradients (grad_x g)", lower_x_gradients);
  report.Row("  Hessian-vector products", hessian_products);
  report.TotalTime(total_time_in_seconds);
  report.Termination(termination_type, message);
  return report.str();
}

// ------------------------------------------------------------------ solve --

void Solve(const MtblBaseline::Options& options,
           MtblEvaluator* evaluator,
           const std::vector<double>& weights,
           Eigen::VectorXd* z,
           MtblBaseline::Summary* summary) {
  if (summary == nullptr) return;
  *summary = MtblBaseline::Summary();
  BaselineMinimizer minimizer(options, evaluator, weights, summary);
  minimizer.Minimize(z);
}

Eigen::VectorXd MinNormWeights(const Eigen::MatrixXd& gram) {
  const int S = static_cast<int>(gram.rows());
  if (S == 0 || gram.cols() != S) return VectorXd();
  const VectorXd uniform = VectorXd::Constant(S, 1.0 / S);
  if (S == 1) return VectorXd::Ones(1);
  const double scale = gram.cwiseAbs().maxCoeff();
  if (!(scale > 0.0) || !std::isfinite(scale)) return uniform;
  // The minimizer does not change when M is scaled; O(1) entries keep the
  // KKT systems' rank decisions meaningful however small the gradients.
  MatrixXd M = gram / scale;
  M = 0.5 * (M + M.transpose());
  if (S <= kMaxExactMinNormSize) {
    VectorXd lambda;
    const MatrixXd E = MatrixXd::Ones(1, S);
    const VectorXd e = VectorXd::Ones(1);
    const MatrixXd C = MatrixXd::Identity(S, S);
    const VectorXd c = VectorXd::Zero(S);
    if (SolveSmallQpByEnumeration(M, VectorXd::Zero(S), E, e, C, c, &lambda)) {
      return internal::ProjectOntoSimplex(lambda);  // removes round-off only
    }
    return uniform;
  }
  // Projected gradient on lambda^T M lambda (gradient 2 M lambda, Lipschitz
  // constant 2 ||M|| <= 2 ||M||_F).
  const double step = 1.0 / (2.0 * M.norm());
  VectorXd lambda = uniform;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const VectorXd next =
        internal::ProjectOntoSimplex(lambda - step * 2.0 * (M * lambda));
    const double change = (next - lambda).lpNorm<1>();
    lambda = next;
    if (change < 1e-13) break;
  }
  return lambda;
}

}  // namespace ecmo
