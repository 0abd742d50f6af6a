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
//      the Hessian of the Lagrangian, or the exact one from k products made
//      positive definite (see MakePositiveDefinite);
//   2. solve the quadratic program
//        min_d max_s (a_s + lambda_s grad f_s^T d) + 1/2 d^T B d
//        s.t. h + J d = 0
//      exactly through its dual over the simplex (SolveQp): one Cholesky
//      factorization of B gives d as an affine function of the weights
//      omega, and the S-dimensional concave dual is maximized by
//      enumerating supports. The QP's omega and nu are the multiplier
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
// Dense linear algebra throughout: O(k^2) memory and O(k^3) work per
// iteration, so for small and medium problems (Solver::Options::
// SqpOptions::max_parameters), where its iteration counts, not its per-
// iteration cost, decide. Equality constraints only, in R^k.

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "Eigen/QR"
#include "ecmo/kkt.h"
#include "strategy.h"
#include "wc_diagnosis.h"

namespace ecmo {
namespace internal {
namespace {

// Supports of the dual enumerated exactly up to this many objectives;
// beyond, projected gradient (2^12 small systems is still cheap next to a
// k x k factorization).
constexpr int kMaxEnumeratedObjectives = 12;

// The Euclidean projection of v onto the unit simplex.
Eigen::VectorXd ProjectOntoSimplex(const Eigen::VectorXd& v) {
  std::vector<double> sorted(v.data(), v.data() + v.size());
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  double sum = 0.0, theta = 0.0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    sum += sorted[i];
    const double t = (sum - 1.0) / static_cast<double>(i + 1);
    if (sorted[i] - t > 0.0) theta = t;
  }
  return (v.array() - theta).max(0.0).matrix();
}

}  // namespace

// Maximizes p^T w - 1/2 w^T Q w over the unit simplex (Q symmetric positive
// semidefinite, S x S): the first support whose equality-constrained
// maximizer is nonnegative and dual feasible (a KKT point of a concave
// problem is a maximizer); projected gradient beyond
// kMaxEnumeratedObjectives or if no support passes (rounding).
Eigen::VectorXd MaximizeOnSimplex(const Eigen::MatrixXd& Q,
                                  const Eigen::VectorXd& p) {
  const int S = static_cast<int>(p.size());
  if (S == 1) return Eigen::VectorXd::Ones(1);
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
    Eigen::VectorXd w(2);
    w << t, 1.0 - t;
    return w;
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
      if (feasible) return w / w.sum();
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
  return w;
}

namespace {

// The QP of one iteration and its solution.
struct QpStep {
  Eigen::VectorXd d;      // k
  Eigen::VectorXd omega;  // S, on the simplex
  Eigen::VectorXd nu;     // q
  // For the second-order correction: B^-1 J^T and a solver for
  // M = J B^-1 J^T.
  Eigen::MatrixXd b_inverse_jt;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> m;
};

// Solves the QP of the file comment for the Cholesky factor of B, the
// weighted gradients G = grad F diag(lambda) (k x S), a = lambda (F +
// offset) (S), J (q x k) and h (q). Returns false when a quantity is not
// finite.
bool SolveQp(const Eigen::LLT<Eigen::MatrixXd>& b_factor,
             const Eigen::MatrixXd& G,
             const Eigen::VectorXd& a,
             const Eigen::MatrixXd& J,
             const Eigen::VectorXd& h,
             QpStep* qp) {
  const int q = static_cast<int>(h.size());
  // d(omega) = d0 - P G omega with P = B^-1 - B^-1 J^T M^-1 J B^-1, and the
  // dual max_omega p^T omega - 1/2 omega^T (G^T P G) omega with
  // p = a + G^T d0 (see the file comment).
  const Eigen::MatrixXd X = b_factor.solve(G);  // B^-1 G
  Eigen::MatrixXd PG = X;
  Eigen::VectorXd d0 = Eigen::VectorXd::Zero(G.rows());
  Eigen::MatrixXd m_jx;  // M^-1 J X
  Eigen::VectorXd m_h;   // M^-1 h
  if (q > 0) {
    qp->b_inverse_jt = b_factor.solve(J.transpose());
    qp->m.compute(J * qp->b_inverse_jt);  // minimum norm if J lacks rank
    m_jx = qp->m.solve(J * X);
    m_h = qp->m.solve(h);
    PG.noalias() -= qp->b_inverse_jt * m_jx;
    d0.noalias() = -qp->b_inverse_jt * m_h;
  }
  Eigen::MatrixXd Q = G.transpose() * PG;
  Q = 0.5 * (Q + Q.transpose()).eval();
  const Eigen::VectorXd p = a + G.transpose() * d0;
  if (!Q.allFinite() || !p.allFinite()) return false;
  qp->omega = MaximizeOnSimplex(Q, p);
  qp->d = d0 - PG * qp->omega;
  qp->nu = q > 0 ? Eigen::VectorXd(m_h - m_jx * qp->omega) : Eigen::VectorXd();
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
    shift = 0.0;
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

}  // namespace

void RunWcSqp(const StrategyInput& input,
              StrategyOutput* output,
              Solver::Summary* summary) {
  const Solver::Options& options = *input.options;
  const Solver::Options::SqpOptions& sqp = options.sqp;
  Evaluator* evaluator = input.evaluator;
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  const StopRule& stop = input.stop;
  const char* name = StrategyTypeToString(StrategyType::WC_SQP);

  output->iterations = 0;
  output->rho = input.rho0;
  output->z = input.z0;
  summary->inner_iterations = 0;
  auto finish = [&](TerminationType type, const std::string& message) {
    output->termination_type = type;
    output->message = message;
  };
  if (evaluator->manifold() != nullptr) {
    finish(ceres::FAILURE,
           std::string("The strategy ") + name +
               " works in R^k and the problem's parameters live on a "
               "manifold. Use wc-newton or wc-augmented-lagrangian, which "
               "step on the manifold.");
    return;
  }
  if (k > sqp.max_parameters) {
    std::ostringstream os;
    os << "The strategy " << name << " factorizes a dense " << k << " x " << k
       << " matrix per iteration and the problem has " << k
       << " parameters, more than Solver::Options::sqp.max_parameters = "
       << sqp.max_parameters
       << ". Use wc-newton (matrix-free Newton) or wc-augmented-lagrangian, "
          "or raise sqp.max_parameters.";
    finish(ceres::FAILURE, os.str());
    return;
  }
  const bool exact = sqp.hessian == SqpHessianType::EXACT_PRODUCTS ||
                     (sqp.hessian == SqpHessianType::AUTOMATIC &&
                      evaluator->HasExactLagrangianHessian());

  const Eigen::VectorXd& lambda = input.lambda;
  Eigen::VectorXd z = input.z0;
  Eigen::VectorXd f(S), h(q), f_trial(S), h_trial(q);
  std::string error;
  // Shifted, weighted objectives a = lambda (F + offset) at a value
  // evaluation; false (with `error`) on failure.
  auto evaluate_values =
      [&](const Eigen::VectorXd& at, Eigen::VectorXd* fv, Eigen::VectorXd* hv) {
        if (!evaluator->Evaluate(
                at.data(), fv->data(), hv->data(), nullptr, &error)) {
          return false;
        }
        *fv = lambda.cwiseProduct(*fv + input.offset);
        return true;
      };
  if (!evaluate_values(z, &f, &h)) {
    finish(ceres::FAILURE, "At the start point: " + error);
    return;
  }

  // Multipliers: the warm start's, else the largest term's weight 1.
  KktMultipliers multipliers;
  multipliers.omega = Eigen::VectorXd::Zero(S);
  multipliers.nu = Eigen::VectorXd::Zero(q);
  if (options.warm_start.omega.size() == S &&
      options.warm_start.omega.sum() > 0.0) {
    multipliers.omega =
        options.warm_start.omega / options.warm_start.omega.sum();
  } else {
    Eigen::Index top = 0;
    f.maxCoeff(&top);
    multipliers.omega[top] = 1.0;
  }
  if (options.warm_start.nu.size() == q) multipliers.nu = options.warm_start.nu;

  Eigen::MatrixXd B = Eigen::MatrixXd::Identity(k, k);
  bool bfgs_scaled = false;
  double delta = 0.0;  // exact Hessian: the last diagonal shift
  Eigen::VectorXd mu = Eigen::VectorXd::Zero(q);  // merit weights
  Eigen::MatrixXd J(q, k), G(k, S), previous_G, previous_J;
  Eigen::VectorXd unit = Eigen::VectorXd::Zero(q), row(k);
  Eigen::LLT<Eigen::MatrixXd> factor;
  QpStep qp;
  KktSystem system;
  std::string certified_by;
  double kkt_sum = 0.0;
  int line_search_failures = 0;
  double first_nu_norm = 0.0;
  double linearization_residual = 0.0;
  Eigen::VectorXd previous_z;
  bool have_previous = false;
  KktResidual last_residual;
  KktCertificate last_certificate;

  auto merit = [&](const Eigen::VectorXd& fv, const Eigen::VectorXd& hv) {
    return fv.maxCoeff() + (q > 0 ? mu.dot(hv.cwiseAbs()) : 0.0);
  };

  int it = 0;
  for (;; ++it) {
    const double rho = f.maxCoeff();
    if (!system.Linearize(evaluator, lambda, input.offset, rho, z, &error)) {
      finish(ceres::FAILURE,
             "At iteration " + std::to_string(it) + ": " + error);
      break;
    }
    // G = grad F diag(lambda); J row by row.
    G = system.grad_f() * lambda.asDiagonal();
    for (int i = 0; i < q; ++i) {
      unit.setZero();
      unit[i] = 1.0;
      evaluator->JacobianTransposeMultiply(unit.data(), row.data());
      J.row(i) = row.transpose();
    }
    // Curvature.
    if (exact) {
      Eigen::MatrixXd W(k, k);
      Eigen::VectorXd a_weights = multipliers.omega.cwiseProduct(lambda);
      Eigen::VectorXd column(k);
      Eigen::VectorXd e = Eigen::VectorXd::Zero(k);
      bool ok = true;
      for (int j = 0; j < k && ok; ++j) {
        e.setZero();
        e[j] = 1.0;
        ok = evaluator->LagrangianHessianMultiply(a_weights.data(),
                                                  multipliers.nu.data(),
                                                  e.data(),
                                                  column.data(),
                                                  &error);
        W.col(j) = column;
      }
      if (!ok) {
        finish(ceres::FAILURE,
               "Hessian of the Lagrangian at iteration " + std::to_string(it) +
                   ": " + error);
        break;
      }
      W = 0.5 * (W + W.transpose()).eval();
      if (!W.allFinite() || !MakePositiveDefinite(W, J, &delta, &factor)) {
        finish(ceres::FAILURE,
               "The Hessian of the Lagrangian at iteration " +
                   std::to_string(it) +
                   " is not finite or cannot be made positive definite.");
        break;
      }
    } else {
      if (have_previous) {
        // Damped BFGS (Powell) on the Lagrangian's gradient with the new
        // multipliers at both points.
        Eigen::VectorXd y = (G - previous_G) * multipliers.omega;
        if (q > 0) {
          y.noalias() += (J - previous_J).transpose() * multipliers.nu;
        }
        const Eigen::VectorXd s = z - previous_z;
        double sy = s.dot(y);
        if (!bfgs_scaled && sy > 0.0) {
          B = Eigen::MatrixXd::Identity(k, k) * (y.squaredNorm() / sy);
          bfgs_scaled = true;
        }
        const Eigen::VectorXd Bs = B * s;
        const double sBs = s.dot(Bs);
        if (sBs > 0.0) {
          if (sy < 0.2 * sBs) {
            const double theta = 0.8 * sBs / (sBs - sy);
            y = theta * y + (1.0 - theta) * Bs;
            sy = s.dot(y);
          }
          if (sy > 0.0) {
            B.noalias() -= (Bs * Bs.transpose()) / sBs;
            B.noalias() += (y * y.transpose()) / sy;
          }
        }
      }
      factor.compute(B);
      if (factor.info() != Eigen::Success) {
        B = Eigen::MatrixXd::Identity(k, k);
        bfgs_scaled = false;
        factor.compute(B);
      }
    }

    if (!SolveQp(factor, G, f, J, h, &qp)) {
      finish(ceres::FAILURE,
             "The quadratic program of iteration " + std::to_string(it) +
                 " has non-finite data (an objective gradient, the "
                 "constraint Jacobian or the curvature).");
      break;
    }
    multipliers.omega = qp.omega;
    multipliers.nu = qp.nu;
    if (it == 0) first_nu_norm = qp.nu.norm();
    // Inconsistent linearized constraints (J_h rank-deficient along h): the
    // step only reduces h in the least-squares sense.
    linearization_residual =
        q > 0 ? (J * qp.d + h).norm() / std::max(1e-300, h.norm()) : 0.0;

    // Score the point with the QP's multipliers (O(||d||) from exact).
    last_residual = system.Residual(multipliers);
    last_certificate = system.Certificate(multipliers, stop.sigma);
    const double kkt_sq = last_residual.SquaredNorm();
    kkt_sum += kkt_sq;
    const double h_inf = q > 0 ? h.lpNorm<Eigen::Infinity>() : 0.0;

    IterationSummary summary_it;
    summary_it.iteration = it;
    summary_it.rho = rho;
    summary_it.constraint_norm = h.norm();
    summary_it.kkt_residual_sq = kkt_sq;
    summary_it.average_kkt_residual_sq = kkt_sum / (it + 1);
    summary_it.cumulative_time_in_seconds = input.timer->Seconds();
    summary_it.gradient_evaluations = evaluator->counts().gradient_evaluations;

    bool converged = stop.Met(last_residual, last_certificate);
    if (converged) {
      certified_by = "strategy multipliers";
    } else if (stop.IsClose(kkt_sq,
                            last_certificate,
                            sqp.least_squares_certification_factor)) {
      const KktMultipliers ls = stop.LeastSquaresMultipliers(system);
      const KktResidual residual = system.Residual(ls);
      const KktCertificate certificate = system.Certificate(ls, stop.sigma);
      if (stop.Met(residual, certificate)) {
        converged = true;
        certified_by = "least-squares multipliers";
        multipliers = ls;
        last_residual = residual;
        last_certificate = certificate;
      }
    }
    if (converged) {
      summary_it.penalty = merit(f, h);
      if (options.record_history) summary->history.push_back(summary_it);
      finish(
          ceres::CONVERGENCE,
          "Converged: " + stop.Describe(last_residual, last_certificate) + ".");
      break;
    }
    if (IsUnboundedEvidence(input, rho, h_inf)) {
      finish(ceres::FAILURE, UnboundedMessage(rho, h_inf, input.rho_floor));
      break;
    }
    if (it >= options.max_iterations) {
      finish(ceres::NO_CONVERGENCE,
             "Maximum number of iterations reached (max_iterations = " +
                 std::to_string(options.max_iterations) + ").");
      break;
    }
    if (input.timer->Seconds() >= options.max_solver_time_in_seconds) {
      finish(ceres::NO_CONVERGENCE, "Maximum solver time reached.");
      break;
    }

    // Line search on phi = max a + sum_i mu_i |h_i|.
    for (int i = 0; i < q; ++i) {
      const double needed = std::abs(qp.nu[i]);
      mu[i] = it == 0 ? 2.0 * needed
                      : std::max(1.01 * needed, 0.5 * (mu[i] + needed));
    }
    const double phi0 = merit(f, h);
    summary_it.penalty = phi0;
    const double h1 = q > 0 ? mu.dot(h.cwiseAbs()) : 0.0;
    const double max_a = f.maxCoeff();
    // The piecewise-linear model of phi along t d: convex in t, decreasing
    // at 0.
    auto model_decrease = [&](double t) {
      const Eigen::VectorXd linear = f + t * (G.transpose() * qp.d);
      return max_a + h1 - (linear.maxCoeff() + (1.0 - t) * h1);
    };
    const Eigen::VectorXd d = qp.d;
    double t = 1.0;
    bool accepted = false;
    Eigen::VectorXd z_trial(k);
    for (int backtrack = 0; backtrack < 40; ++backtrack, t *= 0.5) {
      const double predicted = model_decrease(t);
      if (!(predicted > 0.0)) break;  // not a descent direction: give up
      z_trial = z + t * d;
      bool ok = evaluate_values(z_trial, &f_trial, &h_trial);
      if (ok && phi0 - merit(f_trial, h_trial) >= sqp.armijo * predicted) {
        accepted = true;
        break;
      }
      if (ok && backtrack == 0 && q > 0 && sqp.second_order_correction) {
        // Second-order correction: back onto the linearized constraints
        // from the trial point, in the metric of B.
        const Eigen::VectorXd correction =
            -qp.b_inverse_jt * qp.m.solve(h_trial);
        Eigen::VectorXd z_soc = z_trial + correction;
        Eigen::VectorXd f_soc(S), h_soc(q);
        if (correction.allFinite() && evaluate_values(z_soc, &f_soc, &h_soc) &&
            phi0 - merit(f_soc, h_soc) >= sqp.armijo * predicted) {
          z_trial = z_soc;
          f_trial = f_soc;
          h_trial = h_soc;
          accepted = true;
          break;
        }
      }
    }
    if (!accepted) {
      if (!exact && bfgs_scaled && line_search_failures == 0) {
        // A stale quasi-Newton model: restart it once from the identity.
        ++line_search_failures;
        B = Eigen::MatrixXd::Identity(k, k);
        bfgs_scaled = false;
        have_previous = false;
        if (options.record_history) summary->history.push_back(summary_it);
        continue;
      }
      std::ostringstream os;
      os << "The line search on the exact penalty max_s lambda_s f_s + "
            "sum_i mu_i |h_i| found no decrease along the SQP step at "
            "iteration "
         << it << " (||d|| = " << d.norm()
         << ", max mu_i = " << (q > 0 ? mu.maxCoeff() : 0.0)
         << "): the iterate is at a point the local model cannot improve "
            "(a non-smooth or inconsistent problem, or one at the limit of "
            "its precision).";
      finish(ceres::NO_CONVERGENCE, os.str());
      if (options.record_history) summary->history.push_back(summary_it);
      break;
    }
    line_search_failures = 0;
    summary_it.step_size = t;
    summary_it.step_norm = (z_trial - z).norm();
    if (options.record_history) summary->history.push_back(summary_it);
    const CallbackReturnType answer = RunCallbacks(options, summary_it);

    previous_z = z;
    previous_G = G;
    previous_J = J;
    have_previous = true;
    z = z_trial;
    f = f_trial;
    h = h_trial;
    if (answer == ceres::SOLVER_ABORT) {
      finish(ceres::USER_FAILURE, "User callback returned SOLVER_ABORT.");
      ++it;
      break;
    }
    if (answer == ceres::SOLVER_TERMINATE_SUCCESSFULLY) {
      finish(ceres::USER_SUCCESS,
             "User callback returned SOLVER_TERMINATE_SUCCESSFULLY.");
      ++it;
      break;
    }
  }
  output->iterations = it;
  summary->inner_iterations = it;
  {
    std::ostringstream os;
    if (exact) {
      os << "exact Hessian of the Lagrangian (" << k
         << " products per iteration), last diagonal shift " << Sci(delta);
    } else {
      os << "damped BFGS";
    }
    if (q > 0) os << "; largest merit weight mu_i = " << Sci(mu.maxCoeff());
    summary->inner_message = os.str();
  }
  if (!certified_by.empty()) summary->certified_by = certified_by;
  if (output->termination_type == ceres::NO_CONVERGENCE) {
    std::ostringstream os;
    const KktCertificate& c = last_certificate;
    os << " Last certificate blocks: simplex " << Sci(c.simplex)
       << ", stationarity " << Sci(c.stationarity) << " (tolerance "
       << Sci(stop.stationarity_tolerance) << "), complementarity "
       << Sci(c.complementarity) << " (tolerance "
       << Sci(stop.complementarity_tolerance) << "), ||h||_inf "
       << Sci(c.feasibility) << " (tolerance "
       << Sci(stop.feasibility_tolerance) << "), ||h|| = " << Sci(h.norm())
       << ".";
    if (linearization_residual > 1e-6) {
      os << " The linearized constraints h + J_h d = 0 had no solution at "
            "the last iterate (||h + J_h d|| = "
         << Sci(linearization_residual)
         << " ||h|| at the least-squares step): J_h is rank-deficient there "
            "(LICQ fails), or the constraints have no common solution. "
            "Check the constraints; wc-augmented-lagrangian reports the "
            "least-squares point.";
    }
    output->message += os.str();
  }
  // LICQ (and overflow) diagnosis, when the equality multipliers grew a
  // lot (wc_diagnosis.h), as for the outer-loop strategies.
  if (q > 0 && output->termination_type != ceres::FAILURE &&
      multipliers.nu.size() == q &&
      multipliers.nu.norm() > 10.0 * std::max(1.0, first_nu_norm)) {
    Eigen::VectorXd x(1 + k);
    x[0] = f.maxCoeff();
    x.tail(k) = z;
    DiagnoseConstraintQualification(
        input,
        x,
        multipliers,
        first_nu_norm,
        output->termination_type == ceres::CONVERGENCE,
        &output->message);
  }
  output->rho = f.maxCoeff();
  output->z = z;
  output->multipliers = multipliers;
  output->average_kkt_residual_sq = it > 0 ? kkt_sum / (it + 1) : -1.0;
}

}  // namespace internal
}  // namespace ecmo
