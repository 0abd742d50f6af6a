// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// StrategyType::WC_SQP: sequential quadratic programming on the WC problem
//
//   min_{rho, z} rho  s.t.  a_s(z) = lambda_s (f_s(z) + offset_s) <= rho,
//                           h(z) = 0,
//
// with rho eliminated (rho = max_s a_s). Iteration t at z:
//   1. Linearize (one gradient evaluation) and form the dense Jacobian J of
//      h (q products) and the curvature B: a damped BFGS approximation of
//      the Hessian of the Lagrangian, the exact one from k products made
//      positive definite (see MakePositiveDefinite), or limited-memory BFGS
//      (LbfgsMemory: B^-1 applied, no matrix);
//   2. solve the quadratic program
//        min_d max_s (a_s + lambda_s grad f_s^T d) + 1/2 d^T B d
//        s.t. h + J d = 0
//      exactly through its dual over the simplex (SolveQp): B^-1 applied to
//      the S + q columns of G and J^T (a Cholesky factorization of B, or
//      the limited memory's two-loop recursion) gives d as an affine
//      function of the weights omega, and the S-dimensional concave dual
//      is maximized exactly
//      (closed form for S = 2, enumeration of supports beyond; see
//      MaximizeOnSimplex). The QP's omega and nu are the multiplier
//      estimates; the point is scored with them (and, when close, with the
//      least-squares multipliers) before any step, so a converged point
//      costs no extra evaluation;
//   3. backtrack on the exact penalty phi(z) = max_s a_s + sum_i mu_i |h_i|
//      (Powell's weights, as in SLSQP: mu_i = max(|nu_i|, (mu_i + |nu_i|) /
//      2), so a large early multiplier estimate does not keep the merit
//      badly scaled for the rest of the solve), trying a second-order
//      correction when the full step is rejected (the Maratos effect of a
//      nonsmooth merit).
// Why the dual: with S small (the number of objectives) the QP is solved
// exactly in S + 1 triangular solves plus at most 2^S tiny systems, instead
// of an active-set loop over the (k + 1)-dimensional primal.
//
// Dense linear algebra with BFGS and exact products: O(k^2) memory and
// O(k^3) work per iteration, so for small and medium problems
// (Solver::Options::SqpOptions::max_parameters), where its iteration
// counts, not its per-iteration cost, decide; limited-memory BFGS above:
// O(k (memory + S + q)) per iteration, for large problems whose gradients
// are expensive (MTBL in reduced form). Equality constraints only, in R^k.

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "Eigen/QR"
#include "ecmo/internal/report.h"
#include "ecmo/kkt.h"
#include "solve_workspace.h"
#include "strategy.h"
#include "wc_diagnosis.h"

namespace ecmo {
namespace internal {
namespace {

// Supports of the dual enumerated exactly up to this many objectives;
// beyond, projected gradient (2^12 small systems is still cheap next to a
// k x k factorization).
constexpr int kMaxEnumeratedObjectives = 12;

}  // namespace

// Maximizes p^T w - 1/2 w^T Q w over the unit simplex (Q symmetric positive
// semidefinite, S x S): the first support whose equality-constrained
// maximizer is nonnegative and dual feasible (a KKT point of a concave
// problem is a maximizer); projected gradient beyond
// kMaxEnumeratedObjectives or if no support passes (rounding).
Eigen::VectorXd MaximizeOnSimplex(const Eigen::MatrixXd& Q,
                                  const Eigen::VectorXd& p) {
  Eigen::VectorXd w;
  MaximizeOnSimplex(Q, p, &w);
  return w;
}

void MaximizeOnSimplex(const Eigen::MatrixXd& Q,
                       const Eigen::VectorXd& p,
                       Eigen::VectorXd* out) {
  const int S = static_cast<int>(p.size());
  if (S == 1) {
    out->setOnes(1);
    return;
  }
  if (S == 2) {
    // w = (t, 1 - t): a concave parabola in t, clamped to [0, 1].
    const double curvature = Q(0, 0) - 2.0 * Q(0, 1) + Q(1, 1);
    const double slope = p[0] - p[1] - Q(0, 1) + Q(1, 1);
    double t;
    if (curvature > 1e-14 * std::max(1.0, std::abs(slope))) {
      t = std::min(1.0, std::max(0.0, slope / curvature));
    } else {
      t = slope > 0.0 ? 1.0 : (slope < 0.0 ? 0.0 : 0.5);
    }
    out->resize(2);  // no allocation when it already has 2 entries
    (*out)[0] = t;
    (*out)[1] = 1.0 - t;
    return;
  }
  const double scale =
      std::max({1.0, Q.cwiseAbs().maxCoeff(), p.cwiseAbs().maxCoeff()});
  if (S <= kMaxEnumeratedObjectives) {
    std::vector<int> support;
    for (unsigned mask = 1; mask < (1u << S); ++mask) {
      support.clear();
      for (int s = 0; s < S; ++s) {
        if (mask & (1u << s)) support.push_back(s);
      }
      const int n = static_cast<int>(support.size());
      Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n + 1, n + 1);
      Eigen::VectorXd b(n + 1);
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) A(i, j) = Q(support[i], support[j]);
        A(i, n) = A(n, i) = 1.0;
        b[i] = p[support[i]];
      }
      b[n] = 1.0;
      const Eigen::VectorXd x = A.completeOrthogonalDecomposition().solve(b);
      if (!x.allFinite() ||
          (A * x - b).lpNorm<Eigen::Infinity>() > 1e-9 * scale) {
        continue;  // inconsistent: this support has no stationary point
      }
      Eigen::VectorXd w = Eigen::VectorXd::Zero(S);
      bool feasible = true;
      for (int i = 0; i < n && feasible; ++i) {
        feasible = x[i] >= -1e-12;
        w[support[i]] = std::max(0.0, x[i]);
      }
      if (!feasible) continue;
      const Eigen::VectorXd gradient = p - Q * w;
      for (int s = 0; s < S && feasible; ++s) {
        if (!(mask & (1u << s))) {
          feasible = gradient[s] <= x[n] + 1e-12 * scale;
        }
      }
      if (feasible) {
        *out = w / w.sum();
        return;
      }
    }
  }
  // Accelerated projected gradient (FISTA) with step 1/||Q||.
  const double L = std::max(Q.norm(), 1e-300);
  Eigen::VectorXd w = Eigen::VectorXd::Constant(S, 1.0 / S);
  Eigen::VectorXd y = w;
  double t = 1.0;
  for (int it = 0; it < 2000; ++it) {
    const Eigen::VectorXd next = ProjectOntoSimplex(y + (p - Q * y) / L);
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    y = next + ((t - 1.0) / t_next) * (next - w);
    if ((next - w).lpNorm<Eigen::Infinity>() <= 1e-15) {
      w = next;
      break;
    }
    w = next;
    t = t_next;
  }
  *out = w;
}

namespace {

// Solves the QP of the file comment for the curvature B, given as
// apply_inverse(X) (X <- B^-1 X in place, X of k rows), the weighted
// gradients G = grad F diag(lambda) (k x S), a = lambda (F + offset) (S),
// J (q x k) and h (q). Returns false when a quantity is not finite.
template <typename ApplyInverse>
bool SolveQp(const ApplyInverse& apply_inverse,
             const Eigen::MatrixXd& G,
             const Eigen::VectorXd& a,
             const Eigen::MatrixXd& J,
             const Eigen::VectorXd& h,
             QpStep* qp) {
  const int q = static_cast<int>(h.size());
  // d(omega) = d0 - P G omega with P = B^-1 - B^-1 J^T M^-1 J B^-1, and the
  // dual max_omega p^T omega - 1/2 omega^T (G^T P G) omega with
  // p = a + G^T d0 (see the file comment).
  qp->pg = G;
  apply_inverse(&qp->pg);  // B^-1 G
  if (q > 0) {
    qp->b_inverse_jt = J.transpose();
    apply_inverse(&qp->b_inverse_jt);
    qp->jbj.noalias() = J * qp->b_inverse_jt;
    if (q == 1) {
      qp->m_scalar = qp->jbj(0, 0);
    } else {
      qp->m.compute(qp->jbj);
    }
    qp->jx.noalias() = J * qp->pg;
    qp->SolveM(&qp->jx);
    qp->m_h = h;
    qp->SolveM(&qp->m_h);
    qp->pg.noalias() -= qp->b_inverse_jt * qp->jx;
    qp->d0.noalias() = -qp->b_inverse_jt * qp->m_h;
  } else {
    qp->d0.setZero(G.rows());
  }
  qp->Q.noalias() = G.transpose() * qp->pg;
  for (Eigen::Index i = 0; i < qp->Q.rows(); ++i) {
    for (Eigen::Index j = 0; j < i; ++j) {
      qp->Q(i, j) = qp->Q(j, i) = 0.5 * (qp->Q(i, j) + qp->Q(j, i));
    }
  }
  qp->p = a;
  qp->p.noalias() += G.transpose() * qp->d0;
  if (!qp->Q.allFinite() || !qp->p.allFinite()) return false;
  MaximizeOnSimplex(qp->Q, qp->p, &qp->omega);
  qp->d = qp->d0;
  qp->d.noalias() -= qp->pg * qp->omega;
  if (q > 0) {
    qp->nu = qp->m_h;
    qp->nu.noalias() -= qp->jx * qp->omega;
  } else {
    qp->nu.resize(0);
  }
  return qp->d.allFinite() && (q == 0 || qp->nu.allFinite());
}

// Cholesky of W, or of W + c J^T J (same QP solution on J d = -h, and
// positive definite for c large enough when W is positive definite on the
// null space of J), or of that plus delta I (Ipopt's inertia correction,
// delta remembered across iterations): the exact Hessian made usable.
// Returns the shift used in *delta. After an iteration that needed a shift
// the unshifted attempts are skipped (each failed attempt is a full
// factorization, the dominant cost at large k); the shift then decays by 3
// per iteration, so it vanishes near a solution where W is positive
// definite.
bool MakePositiveDefinite(const Eigen::MatrixXd& W,
                          const Eigen::MatrixXd& J,
                          double* delta,
                          Eigen::LLT<Eigen::MatrixXd>* factor) {
  const double scale = std::max(1.0, W.diagonal().cwiseAbs().maxCoeff());
  const bool shifted_before = *delta > 0.0;
  if (!shifted_before) {
    factor->compute(W);
    if (factor->info() == Eigen::Success) return true;
  }
  Eigen::MatrixXd shifted = W;
  if (J.rows() > 0) {
    const double jj = std::max(1e-300, J.squaredNorm());
    shifted.noalias() += (10.0 * scale / jj) * (J.transpose() * J);
    if (!shifted_before) {
      factor->compute(shifted);
      if (factor->info() == Eigen::Success) return true;
    }
  }
  double shift = shifted_before ? *delta / 3.0 : 1e-4 * scale;
  if (shifted_before && shift < 1e-20 * scale) {
    // Decayed to nothing: back to the unshifted attempts next time.
    factor->compute(shifted);
    if (factor->info() == Eigen::Success) {
      *delta = 0.0;
      return true;
    }
    shift = 1e-4 * scale;
  }
  for (int attempt = 0; attempt < 60; ++attempt, shift *= 8.0) {
    Eigen::MatrixXd trial = shifted;
    trial.diagonal().array() += shift;
    factor->compute(trial);
    if (factor->info() == Eigen::Success) {
      *delta = shift;
      return true;
    }
  }
  return false;
}

// One WC_SQP solve: the iteration of the file comment as named steps over
// the state they share.
class SqpSolver {
 public:
  SqpSolver(const StrategyInput& input, Solver::Summary* summary)
      : input_(input),
        options_(*input.options),
        sqp_(input.options->sqp),
        stop_(input.stop),
        evaluator_(input.evaluator),
        k_(evaluator_->NumParameters()),
        S_(evaluator_->NumObjectives()),
        q_(evaluator_->NumConstraints()),
        summary_(summary) {}

  void Run(StrategyOutput* output);

 private:
  enum class Step { kContinue, kRetry, kStop };

  // The refusals (manifold, size), the start's values and the first
  // multipliers. False when the solve ends here.
  bool Start();
  // Gradients and J at z_ (J from the KKT system when it formed it, else
  // q products).
  bool Linearize(int it);
  // The curvature at z_: B and its Cholesky factor, or the limited memory.
  bool UpdateCurvature(int it);
  void UpdateBfgs();
  void UpdateLbfgs();
  // step_s_ = z - z_previous and step_y_, the change of the Lagrangian's
  // gradient along it with the last QP's multipliers at both points.
  void StepPair();
  bool AssembleExactHessian(int it);
  // The QP's step and multipliers for the current curvature. B^-1 column
  // by column: by the limited memory's two-loop recursion, or by the
  // Cholesky factor's vector triangular solves (a matrix right-hand side
  // takes Eigen's blocked triangular solve, whose packing and workspace
  // allocation cost more than the arithmetic for the few S + q columns).
  bool SolveQpStep() {
    return SolveQp(
        [this](Eigen::MatrixXd* x) {
          for (Eigen::Index j = 0; j < x->cols(); ++j) {
            auto column = x->col(j);
            if (limited_) {
              lbfgs_.ApplyInverse(column, nullptr, /*scale=*/true);
            } else {
              factor_.matrixL().solveInPlace(column);
              factor_.matrixU().solveInPlace(column);
            }
          }
        },
        G_,
        a_,
        J_,
        h_,
        &qp_);
  }
  // The QP's step and multipliers; scores z_ with them (and with the
  // least-squares multipliers when close). kStop when the point is
  // certified (CONVERGENCE) or the QP failed (FAILURE).
  Step SolveAndCertify(int it, IterationSummary* record);
  // K at z_ with the QP's multipliers, its stationarity block from the
  // QP's optimality conditions (-B d), in place.
  void EstimateResidual(KktResidual* k) const;
  // Backtracking with a second-order correction; kRetry after a BFGS
  // restart (z_ unchanged; the next iteration linearizes it again),
  // kStop with the message set when no step decreases the merit.
  Step LineSearch(int it, IterationSummary* record);
  // Shifted, weighted objectives a = lambda (F + offset) and h at `at`;
  // false (with error_) on failure.
  bool EvaluateValues(const Eigen::VectorXd& at,
                      Eigen::VectorXd* a,
                      Eigen::VectorXd* h);
  // The same by linearizing system_ at `at` (gradients and J too): where
  // the point is likely to become the next iterate (the start, the full
  // step), so that the next linearization costs no evaluation.
  bool LinearizeAt(const Eigen::VectorXd& at,
                   Eigen::VectorXd* a,
                   Eigen::VectorXd* h);
  double Merit(const Eigen::VectorXd& a, const Eigen::VectorXd& h) const {
    return a.maxCoeff() + (q_ > 0 ? mu_.dot(h.cwiseAbs()) : 0.0);
  }
  void Finish(TerminationType type, const std::string& message) {
    termination_ = type;
    message_ = message;
  }
  void Record(const IterationSummary& record) {
    if (options_.record_history) summary_->history.push_back(record);
  }
  // What the summary says about a solve that did not converge, and the
  // curvature used.
  void Explain();

  const StrategyInput& input_;
  const Solver::Options& options_;
  const Solver::Options::SqpOptions& sqp_;
  const StopRule& stop_;
  Evaluator* evaluator_;
  const int k_, S_, q_;
  Solver::Summary* summary_;
  bool exact_ = false;
  // Limited-memory BFGS (SqpHessianType::LBFGS): no k x k matrix. B^-1 is
  // applied by the two-loop recursion (H0 = gamma I of the newest pair).
  // A pair whose curvature s^T y is not safely positive is skipped: the
  // Lagrangian's Hessian may be indefinite away from a solution, and the
  // dense variant's Powell damping needs B s, which the limited memory
  // does not keep.
  bool limited_ = false;

  // The buffers below live in the evaluator's workspace
  // (wc_sqp_workspace.h): reused from solve to solve.
  SqpWorkspace& ws_ = evaluator_->workspace()->sqp;
  LbfgsMemory& lbfgs_ = ws_.lbfgs;
  Eigen::VectorXd &z_ = ws_.z, &a_ = ws_.a, &h_ = ws_.h;
  KktMultipliers& multipliers_ = ws_.multipliers;
  // The evaluator's kept system (solve_workspace.h), linearized at z_
  // while system_at_z_ (handed to Solve() at the end).
  KktSystem* system_ = &evaluator_->workspace()->certification;
  bool system_at_z_ = false;
  Eigen::MatrixXd &G_ = ws_.G, &J_ = ws_.J, &B_ = ws_.B;
  Eigen::LLT<Eigen::MatrixXd>& factor_ = ws_.factor;
  QpStep& qp_ = ws_.qp;
  Eigen::VectorXd& mu_ = ws_.mu;
  double delta_ = 0.0;  // exact Hessian: the last diagonal shift
  bool bfgs_scaled_ = false;
  bool have_previous_ = false;
  Eigen::VectorXd& previous_z_ = ws_.previous_z;
  Eigen::MatrixXd &previous_G_ = ws_.previous_G, &previous_J_ = ws_.previous_J;
  Eigen::VectorXd &step_s_ = ws_.step_s, &step_y_ = ws_.step_y,
                  &step_bs_ = ws_.step_bs;
  Eigen::VectorXd &slope_ = ws_.slope, &z_trial_ = ws_.z_trial,
                  &a_trial_ = ws_.a_trial, &h_trial_ = ws_.h_trial;
  Eigen::VectorXd &correction_ = ws_.correction, &z_soc_ = ws_.z_soc,
                  &a_soc_ = ws_.a_soc, &h_soc_ = ws_.h_soc;
  KktResidual& estimate_ = ws_.estimate;
  KktResidual& exact_residual_ = ws_.exact_residual;
  int line_search_failures_ = 0;
  double first_nu_norm_ = 0.0;
  double linearization_residual_ = 0.0;
  double kkt_sum_ = 0.0;
  KktCertificate last_certificate_;
  std::string certified_by_;
  std::string error_;
  TerminationType termination_ = ceres::FAILURE;
  std::string message_;
};

bool SqpSolver::LinearizeAt(const Eigen::VectorXd& at,
                            Eigen::VectorXd* a,
                            Eigen::VectorXd* h) {
  // rho = NaN: the system takes max_s a_s at `at`, this strategy's rho.
  if (!system_->Linearize(evaluator_,
                          input_.lambda,
                          input_.offset,
                          std::numeric_limits<double>::quiet_NaN(),
                          at,
                          &error_)) {
    return false;
  }
  *a = input_.lambda.cwiseProduct(system_->f());  // f includes the offset
  *h = system_->h();
  return true;
}

bool SqpSolver::EvaluateValues(const Eigen::VectorXd& at,
                               Eigen::VectorXd* a,
                               Eigen::VectorXd* h) {
  if (!evaluator_->Evaluate(
          at.data(), a->data(), h->data(), nullptr, &error_)) {
    return false;
  }
  *a = input_.lambda.cwiseProduct(*a + input_.offset);
  return true;
}

bool SqpSolver::Start() {
  const char* name = StrategyTypeToString(StrategyType::WC_SQP);
  if (evaluator_->manifold() != nullptr) {
    Finish(ceres::FAILURE,
           std::string("The strategy ") + name +
               " works in R^k and the problem's parameters live on a "
               "manifold. Use wc-newton or wc-augmented-lagrangian, which "
               "step on the manifold.");
    return false;
  }
  // AUTOMATIC: exact products when the evaluator has them, else dense
  // BFGS, up to max_parameters; limited-memory BFGS beyond.
  const bool automatic = sqp_.hessian == SqpHessianType::AUTOMATIC;
  limited_ = sqp_.hessian == SqpHessianType::LBFGS ||
             (automatic && k_ > sqp_.max_parameters);
  if (!limited_ && k_ > sqp_.max_parameters) {
    std::ostringstream os;
    os << "The strategy " << name
       << " with sqp.hessian = " << SqpHessianTypeToString(sqp_.hessian)
       << " factorizes a dense " << k_ << " x " << k_
       << " matrix per iteration and the problem has " << k_
       << " parameters, more than Solver::Options::sqp.max_parameters = "
       << sqp_.max_parameters
       << ". Use sqp.hessian = lbfgs or automatic (limited-memory BFGS, no "
          "k x k matrix), wc-newton (matrix-free Newton) or "
          "wc-augmented-lagrangian, or raise sqp.max_parameters.";
    Finish(ceres::FAILURE, os.str());
    return false;
  }
  exact_ =
      !limited_ && (sqp_.hessian == SqpHessianType::EXACT_PRODUCTS ||
                    (automatic && evaluator_->HasExactLagrangianHessian()));
  if (limited_) lbfgs_.Resize(k_, std::max(1, sqp_.lbfgs_memory));
  // Most solves take under 16 iterations: one allocation for the history
  // instead of one per doubling.
  if (options_.record_history) {
    summary_->history.reserve(summary_->history.size() + 16);
  }
  z_ = input_.z0;
  a_.resize(S_);
  h_.resize(q_);
  if (!LinearizeAt(z_, &a_, &h_)) {
    Finish(ceres::FAILURE, "At the start point: " + error_);
    return false;
  }
  // Multipliers: the warm start's, else weight 1 on the largest term.
  const Solver::Options::WarmStart& warm = options_.warm_start;
  multipliers_.omega.setZero(S_);
  multipliers_.nu.setZero(q_);
  multipliers_.bound_lower.resize(0);  // no bounds here
  multipliers_.bound_upper.resize(0);
  if (warm.omega.size() == S_ && warm.omega.sum() > 0.0) {
    multipliers_.omega = warm.omega / warm.omega.sum();
  } else {
    Eigen::Index top = 0;
    a_.maxCoeff(&top);
    multipliers_.omega[top] = 1.0;
  }
  if (warm.nu.size() == q_) multipliers_.nu = warm.nu;
  system_at_z_ = true;
  if (!limited_) B_.setIdentity(k_, k_);
  mu_.setZero(q_);
  J_.resize(q_, k_);
  return true;
}

bool SqpSolver::Linearize(int it) {
  if (!system_at_z_ && !LinearizeAt(z_, &a_, &h_)) {
    Finish(ceres::FAILURE,
           "At iteration " + std::to_string(it) + ": " + error_);
    return false;
  }
  system_at_z_ = true;
  G_ = system_->grad_f() * input_.lambda.asDiagonal();
  if (q_ == 0) return true;
  if (system_->dense_jacobian().rows() == q_) {
    J_ = system_->dense_jacobian();  // formed by Linearize (small q)
    return true;
  }
  Eigen::VectorXd unit = Eigen::VectorXd::Zero(q_), row(k_);
  for (int i = 0; i < q_; ++i) {
    unit.setZero();
    unit[i] = 1.0;
    evaluator_->JacobianTransposeMultiply(unit.data(), row.data());
    J_.row(i) = row.transpose();
  }
  return true;
}

bool SqpSolver::UpdateCurvature(int it) {
  if (exact_) return AssembleExactHessian(it);
  if (limited_) {
    UpdateLbfgs();
  } else {
    UpdateBfgs();
  }
  return true;
}

// The pair of the last step for the limited memory, with the multipliers
// of the last QP at both points (as UpdateBfgs).
void SqpSolver::UpdateLbfgs() {
  if (!have_previous_) return;
  StepPair();
  lbfgs_.next_s() = step_s_;
  lbfgs_.next_y() = step_y_;
  lbfgs_.Commit(/*yy_factor=*/0.0, /*norm_factor=*/1e-10);
}

void SqpSolver::StepPair() {
  step_s_ = z_ - previous_z_;
  step_y_.noalias() = G_ * multipliers_.omega;
  step_y_.noalias() -= previous_G_ * multipliers_.omega;
  if (q_ > 0) {
    step_y_.noalias() += J_.transpose() * multipliers_.nu;
    step_y_.noalias() -= previous_J_.transpose() * multipliers_.nu;
  }
}

// Damped BFGS (Powell) on the Lagrangian's gradient, with the multipliers
// of the last QP at both points.
void SqpSolver::UpdateBfgs() {
  if (have_previous_) {
    StepPair();
    const Eigen::VectorXd& s = step_s_;
    Eigen::VectorXd& y = step_y_;
    double sy = s.dot(y);
    if (!bfgs_scaled_ && sy > 0.0) {
      // Shanno-Phua: the identity scaled to the curvature along s.
      B_.setIdentity();
      B_ *= y.squaredNorm() / sy;
      bfgs_scaled_ = true;
    }
    Eigen::VectorXd& Bs = step_bs_;
    Bs.noalias() = B_ * s;
    const double sBs = s.dot(Bs);
    if (sBs > 0.0) {
      if (sy < 0.2 * sBs) {
        const double theta = 0.8 * sBs / (sBs - sy);
        y = theta * y + (1.0 - theta) * Bs;
        sy = s.dot(y);
      }
      if (sy > 0.0) {
        // Scaled in place first: a scaled vector in an outer product is
        // evaluated into a heap temporary.
        Bs /= std::sqrt(sBs);
        B_.noalias() -= Bs * Bs.transpose();
        y /= std::sqrt(sy);
        B_.noalias() += y * y.transpose();
      }
    }
  }
  factor_.compute(B_);
  if (factor_.info() != Eigen::Success) {
    B_.setIdentity(k_, k_);
    bfgs_scaled_ = false;
    factor_.compute(B_);
  }
}

bool SqpSolver::AssembleExactHessian(int it) {
  Eigen::MatrixXd W(k_, k_);
  const Eigen::VectorXd weights =
      multipliers_.omega.cwiseProduct(input_.lambda);
  Eigen::VectorXd column(k_), e = Eigen::VectorXd::Zero(k_);
  for (int j = 0; j < k_; ++j) {
    e.setZero();
    e[j] = 1.0;
    if (!evaluator_->LagrangianHessianMultiply(weights.data(),
                                               multipliers_.nu.data(),
                                               e.data(),
                                               column.data(),
                                               &error_)) {
      Finish(ceres::FAILURE,
             "Hessian of the Lagrangian at iteration " + std::to_string(it) +
                 ": " + error_);
      return false;
    }
    W.col(j) = column;
  }
  W = 0.5 * (W + W.transpose()).eval();
  if (!W.allFinite() || !MakePositiveDefinite(W, J_, &delta_, &factor_)) {
    Finish(ceres::FAILURE,
           "The Hessian of the Lagrangian at iteration " + std::to_string(it) +
               " is not finite or cannot be made positive definite.");
    return false;
  }
  return true;
}

void SqpSolver::EstimateResidual(KktResidual* k) const {
  k->simplex = qp_.omega.sum() - 1.0;
  k->stationarity.resize(k_);
  if (limited_) {
    // -B d = G omega + J^T nu (the QP's optimality conditions).
    k->stationarity.noalias() = G_ * qp_.omega;
    if (q_ > 0) k->stationarity.noalias() += J_.transpose() * qp_.nu;
  } else if (!exact_) {
    // B_ is what was factorized; the sign goes into the product (no
    // temporary).
    k->stationarity.noalias() = -B_ * qp_.d;
  } else {
    const auto L = factor_.matrixL();
    k->stationarity.noalias() = -(L * (L.transpose() * qp_.d));
  }
  k->feasibility = h_;
  const double rho = a_.maxCoeff();
  k->complementarity.resize(S_);
  for (int s = 0; s < S_; ++s) {
    k->complementarity[s] = std::min(qp_.omega[s], rho - a_[s]);
  }
}

SqpSolver::Step SqpSolver::SolveAndCertify(int it, IterationSummary* record) {
  if (!SolveQpStep()) {
    Finish(ceres::FAILURE,
           "The quadratic program of iteration " + std::to_string(it) +
               " has non-finite data (an objective gradient, the "
               "constraint Jacobian or the curvature).");
    return Step::kStop;
  }
  multipliers_.omega = qp_.omega;
  multipliers_.nu = qp_.nu;
  if (it == 0) first_nu_norm_ = qp_.nu.norm();
  // Inconsistent linearized constraints (J_h rank-deficient along h): the
  // step only reduces h in the least-squares sense.
  if (q_ > 0) {
    Eigen::VectorXd& linearized_h = ws_.linearized_h;
    linearized_h = h_;
    linearized_h.noalias() += J_ * qp_.d;
    linearization_residual_ =
        linearized_h.norm() / std::max(1e-300, h_.norm());
  } else {
    linearization_residual_ = 0.0;
  }

  // The QP's multipliers are O(||d||) from exact. Their stationarity block
  // is -B d by the QP's optimality conditions (B d + G omega + J^T nu = 0),
  // so K is estimated without a Jacobian product; only an estimate close
  // to the stopping rule is replaced by the exact K (through the
  // evaluator, as every strategy is scored), and only that can certify.
  // The estimate lives in a member (its vectors reused across iterations);
  // the exact K, when needed, in `exact`.
  EstimateResidual(&estimate_);
  KktResidual& exact = exact_residual_;
  const KktResidual* residual = &estimate_;
  last_certificate_ =
      stop_.Certificate(*system_, multipliers_, *residual);
  if (stop_.IsClose(residual->SquaredNorm(),
                    last_certificate_,
                    sqp_.least_squares_certification_factor)) {
    system_->Residual(multipliers_, &exact);
    residual = &exact;
    last_certificate_ =
        stop_.Certificate(*system_, multipliers_, *residual);
  }
  const double kkt_sq = residual->SquaredNorm();
  kkt_sum_ += kkt_sq;
  record->iteration = it;
  record->rho = a_.maxCoeff();
  record->constraint_norm = h_.norm();
  record->kkt_residual_sq = kkt_sq;
  record->average_kkt_residual_sq = kkt_sum_ / (it + 1);
  record->cumulative_time_in_seconds = input_.timer->Seconds();
  record->gradient_evaluations = evaluator_->counts().gradient_evaluations;
  record->penalty = Merit(a_, h_);

  if (stop_.Met(*residual, last_certificate_)) {
    certified_by_ = "strategy multipliers";
  } else if (stop_.IsClose(kkt_sq,
                           last_certificate_,
                           sqp_.least_squares_certification_factor)) {
    const KktMultipliers ls = stop_.LeastSquaresMultipliers(*system_);
    KktResidual ls_residual = system_->Residual(ls);
    const KktCertificate ls_certificate =
        stop_.Certificate(*system_, ls, ls_residual);
    if (!stop_.Met(ls_residual, ls_certificate)) return Step::kContinue;
    certified_by_ = "least-squares multipliers";
    multipliers_ = ls;
    exact = std::move(ls_residual);
    residual = &exact;
    last_certificate_ = ls_certificate;
  } else {
    return Step::kContinue;
  }
  Finish(ceres::CONVERGENCE,
         "Converged: " + stop_.Describe(*residual, last_certificate_) + ".");
  Record(*record);
  return Step::kStop;
}

SqpSolver::Step SqpSolver::LineSearch(int it, IterationSummary* record) {
  // Powell's weights on phi = max a + sum_i mu_i |h_i|.
  for (int i = 0; i < q_; ++i) {
    const double needed = std::abs(qp_.nu[i]);
    mu_[i] = it == 0 ? 2.0 * needed
                     : std::max(1.01 * needed, 0.5 * (mu_[i] + needed));
  }
  const double phi0 = Merit(a_, h_);
  record->penalty = phi0;
  const double weighted_h = q_ > 0 ? mu_.dot(h_.cwiseAbs()) : 0.0;
  Eigen::VectorXd& slope = slope_;
  slope.noalias() = G_.transpose() * qp_.d;
  // Decrease of phi's piecewise-linear model along t d: concave in t,
  // positive for small t.
  auto predicted = [&](double t) {
    return a_.maxCoeff() + t * weighted_h - (a_ + t * slope).maxCoeff();
  };
  Eigen::VectorXd& z_trial = z_trial_;
  Eigen::VectorXd& a_trial = a_trial_;
  Eigen::VectorXd& h_trial = h_trial_;
  a_trial.resize(S_);
  h_trial.resize(q_);
  double t = 1.0;
  bool accepted = false;
  for (int backtrack = 0; backtrack < 40 && !accepted; ++backtrack) {
    if (backtrack > 0) t *= 0.5;
    const double model = predicted(t);
    if (!(model > 0.0)) break;  // not a descent direction
    z_trial = z_;
    z_trial.noalias() += t * qp_.d;
    // A failed evaluation (NaN) rejects the step. The full step is
    // linearized (usually accepted: the next iteration then evaluates
    // nothing); system_ is then no longer at z_.
    if (backtrack == 0) system_at_z_ = false;
    if (!(backtrack == 0 ? LinearizeAt(z_trial, &a_trial, &h_trial)
                         : EvaluateValues(z_trial, &a_trial, &h_trial))) {
      continue;
    }
    accepted = phi0 - Merit(a_trial, h_trial) >= sqp_.armijo * model;
    if (accepted || backtrack > 0 || q_ == 0 || !sqp_.second_order_correction) {
      continue;
    }
    // Second-order correction: back onto the linearized constraints from
    // the trial point, in the metric of B.
    Eigen::VectorXd& correction = correction_;
    correction = h_trial;
    qp_.SolveM(&correction);
    Eigen::VectorXd& z_soc = z_soc_;
    z_soc = z_trial;
    z_soc.noalias() -= qp_.b_inverse_jt * correction;
    a_soc_.resize(S_);
    h_soc_.resize(q_);
    if (z_soc.allFinite() && EvaluateValues(z_soc, &a_soc_, &h_soc_) &&
        phi0 - Merit(a_soc_, h_soc_) >= sqp_.armijo * model) {
      z_trial.swap(z_soc);
      a_trial.swap(a_soc_);
      h_trial.swap(h_soc_);
      accepted = true;
    }
  }
  if (!accepted) {
    Record(*record);
    if (!exact_ && (limited_ ? lbfgs_.size() > 0 : bfgs_scaled_) &&
        line_search_failures_ == 0) {
      // A stale quasi-Newton model: restart it once from the identity.
      ++line_search_failures_;
      if (limited_) {
        lbfgs_.Clear();
      } else {
        B_.setIdentity(k_, k_);
        bfgs_scaled_ = false;
      }
      have_previous_ = false;
      return Step::kRetry;
    }
    std::ostringstream os;
    os << "The line search on the exact penalty max_s lambda_s f_s + "
          "sum_i mu_i |h_i| found no decrease along the SQP step at "
          "iteration "
       << it << " (||d|| = " << qp_.d.norm()
       << ", max mu_i = " << (q_ > 0 ? mu_.maxCoeff() : 0.0)
       << "): the iterate is at a point the local model cannot improve "
          "(a non-smooth or inconsistent problem, or one at the limit of "
          "its precision).";
    Finish(ceres::NO_CONVERGENCE, os.str());
    return Step::kStop;
  }
  line_search_failures_ = 0;
  record->step_size = t;
  record->step_norm = (z_trial - z_).norm();
  Record(*record);
  // The full step was linearized; a shorter or corrected one was not.
  const bool linearized = t == 1.0 && system_->z() == z_trial;
  // Swaps, not copies: the trial vectors are scratch for the next search.
  previous_z_.swap(z_);
  z_.swap(z_trial);
  previous_G_ = G_;
  previous_J_ = J_;
  have_previous_ = true;
  system_at_z_ = linearized;
  a_.swap(a_trial);
  h_.swap(h_trial);
  return Step::kContinue;
}

void SqpSolver::Run(StrategyOutput* output) {
  summary_->inner_iterations = 0;
  int it = 0;
  // The workspace's buffers hold the previous solve's values until Start
  // has filled them: only a started solve reports them.
  const bool started = Start();
  if (started) {
    for (;; ++it) {
      IterationSummary record;
      // Evaluates only when system_ is not at z_ (the start and accepted
      // full steps were linearized already).
      if (!Linearize(it)) break;
      if (!UpdateCurvature(it)) break;
      if (SolveAndCertify(it, &record) == Step::kStop) break;
      const double rho = a_.maxCoeff();
      const double h_inf = q_ > 0 ? h_.lpNorm<Eigen::Infinity>() : 0.0;
      if (IsUnboundedEvidence(input_, rho, h_inf)) {
        Finish(ceres::FAILURE, UnboundedMessage(rho, h_inf, input_.rho_floor));
        break;
      }
      if (it >= input_.max_iterations) {
        Finish(ceres::NO_CONVERGENCE,
               input_.max_iterations < options_.max_iterations
                   ? "Not converged within the " +
                         std::to_string(input_.max_iterations) +
                         " iterations that the automatic strategy gives "
                         "wc-sqp."
                   : "Maximum number of iterations reached (max_iterations "
                     "= " +
                         std::to_string(options_.max_iterations) + ").");
        break;
      }
      // The clock read by SolveAndCertify for the record (a clock read is
      // a few percent of a small solve's iteration).
      if (record.cumulative_time_in_seconds >=
          options_.max_solver_time_in_seconds) {
        Finish(ceres::NO_CONVERGENCE, "Maximum solver time reached.");
        break;
      }
      const Step step = LineSearch(it, &record);
      if (step == Step::kStop) break;
      if (step == Step::kRetry) continue;  // same z_, the curvature restarts
      const CallbackReturnType answer = RunCallbacks(options_, record);
      if (answer == ceres::SOLVER_ABORT) {
        Finish(ceres::USER_FAILURE, "User callback returned SOLVER_ABORT.");
        ++it;
        break;
      }
      if (answer == ceres::SOLVER_TERMINATE_SUCCESSFULLY) {
        Finish(ceres::USER_SUCCESS,
               "User callback returned SOLVER_TERMINATE_SUCCESSFULLY.");
        ++it;
        break;
      }
    }
    Explain();
  }
  output->termination_type = termination_;
  output->message = message_;
  output->iterations = it;
  summary_->inner_iterations = it;
  if (!certified_by_.empty()) summary_->certified_by = certified_by_;
  output->rho = started ? a_.maxCoeff() : input_.rho0;
  output->z = started ? z_ : input_.z0;
  output->multipliers = started ? multipliers_ : KktMultipliers();
  output->average_kkt_residual_sq = it > 0 ? kkt_sum_ / (it + 1) : -1.0;
  if (system_at_z_) output->system = system_;
}

void SqpSolver::Explain() {
  std::string curvature =
      exact_
          ? "exact Hessian of the Lagrangian (" + std::to_string(k_) +
                " products per iteration), last diagonal shift " + Sci(delta_)
      : limited_
          ? "limited-memory BFGS (" + std::to_string(lbfgs_.size()) + " pairs)"
          : std::string("damped BFGS");
  if (q_ > 0) {
    curvature += "; largest merit weight mu_i = " + Sci(mu_.maxCoeff());
  }
  summary_->inner_message = curvature;
  if (termination_ == ceres::NO_CONVERGENCE) {
    std::ostringstream os;
    const KktCertificate& c = last_certificate_;
    os << " Last certificate blocks: simplex " << Sci(c.simplex)
       << ", stationarity " << Sci(c.stationarity) << " (tolerance "
       << Sci(stop_.stationarity_tolerance) << "), complementarity "
       << Sci(c.complementarity) << " (tolerance "
       << Sci(stop_.complementarity_tolerance) << "), ||h||_inf "
       << Sci(c.feasibility) << " (tolerance "
       << Sci(stop_.feasibility_tolerance) << "), ||h|| = " << Sci(h_.norm())
       << ".";
    if (linearization_residual_ > 1e-6) {
      os << " The linearized constraints h + J_h d = 0 had no solution at "
            "the last iterate (||h + J_h d|| = "
         << Sci(linearization_residual_)
         << " ||h|| at the least-squares step): J_h is rank-deficient there "
            "(LICQ fails), or the constraints have no common solution. "
            "Check the constraints; wc-augmented-lagrangian reports the "
            "least-squares point.";
    }
    message_ += os.str();
  }
  // LICQ (and overflow) diagnosis, when the equality multipliers grew a
  // lot (wc_diagnosis.h), as for the outer-loop strategies.
  if (q_ > 0 && termination_ != ceres::FAILURE &&
      multipliers_.nu.size() == q_ &&
      multipliers_.nu.norm() > 10.0 * std::max(1.0, first_nu_norm_)) {
    Eigen::VectorXd x(1 + k_);
    x[0] = a_.maxCoeff();
    x.tail(k_) = z_;
    DiagnoseConstraintQualification(input_,
                                    x,
                                    multipliers_,
                                    first_nu_norm_,
                                    termination_ == ceres::CONVERGENCE,
                                    &message_);
  }
}

}  // namespace

void RunWcSqp(const StrategyInput& input,
              StrategyOutput* output,
              Solver::Summary* summary) {
  SqpSolver(input, summary).Run(output);
}

}  // namespace internal
}  // namespace ecmo
