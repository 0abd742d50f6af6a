// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The Newton inner solver of the WC outer loop (StrategyType::WC_NEWTON):
// a Levenberg-Marquardt trust region on a second-order model of the
// augmented Lagrangian Q(x), x = (rho, z) (ecmo/wc_reduced_penalty.h).
//
// rho is eliminated. Q is convex and piecewise quadratic in rho, and the
// evaluator's values do not depend on it, so every point the solver visits
// carries the exact minimizer rho*(z) (WcReducedPenalty::EvaluateAtBestRho)
// and the Newton model is one of the reduced function Qr(z) = Q(rho*(z), z),
// whose gradient is dQ/dz. With the first-order multipliers omega+ (S) and
// nu+ (q) of the current point, the active set A = {s : omega+_s > 0} (never
// empty at rho*), W = [lambda_s P^T grad f_s]_{s in A} (P the manifold's
// PlusJacobian, the identity without one) and Pi = I - 1 1^T / |A|, the
// Hessian of Qr is
//
//   B = G + v W Pi W^T,
//   G = u P^T J_h^T J_h P + P^T grad^2 L P,   L = sum_s omega+_s lambda_s f_s
//                                                + sum_i nu+_i h_i,
//
// exactly (up to the manifold's own curvature, which is ignored): the
// Schur complement of rho in the Hessian of Q, so the Chebyshev part is of
// rank |A| - 1 and vanishes when one objective is active. (A model in
// (rho, z) jointly, tried first, wastes its steps: it cannot see the kinks
// of Q in rho and couples a stiff rho direction to z.) G comes in one of
// two forms:
//   - Gauss-Newton (Evaluator::GaussNewtonMatrix): the sparse matrix
//     sum_s omega+_s lambda_s Jr_s^T Jr_s + u J_h^T J_h of the residuals,
//     as Ceres' Levenberg-Marquardt uses. The step solves
//     (B + mu D) d = -grad Qr with M = G + mu D sparse, factorized by a
//     sparse LDL^T whose symbolic analysis (ordering and elimination tree)
//     is computed once per solve; the low-rank part C = v Pi is added by
//     the Woodbury identity in the form that needs no inverse of C,
//       x = M^-1 b - Y C t,  (I + W^T Y C) t = W^T M^-1 b,  Y = M^-1 W,
//     at the price of |A| extra triangular solves: the dense rows of the
//     Chebyshev constraints never enter the factorization.
//   - Hessian products (Evaluator::LagrangianHessianMultiply): B p is
//     formed from products and the step is truncated conjugate gradients on
//     (B + mu I), stopped by the Eisenstat-Walker forcing term or at
//     negative curvature. Matrix-free.
//
// The trust region is Ceres' Levenberg-Marquardt rule: mu = 1/radius, D the
// clamped diagonal of B (identity for conjugate gradients); a step is
// accepted when Qr falls by at least min_relative_decrease of the model's
// prediction, then the radius grows by 1/max(1/3, 1 - (2 ratio - 1)^3);
// otherwise it shrinks by a factor that doubles on every rejection in a row.
// The radius carries over between the inner solves of one outer loop.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "Eigen/Dense"
#include "Eigen/SparseCholesky"
#include "Eigen/SparseCore"
#include "ecmo/internal/report.h"
#include "ecmo/manifold.h"
#include "glog/logging.h"
#include "wc_diagnosis.h"
#include "wc_inner_minimizer.h"

namespace ecmo {
namespace internal {
namespace {

using SparseMatrix = Eigen::SparseMatrix<double>;

class NewtonInnerMinimizer final : public InnerMinimizer {
 public:
  NewtonInnerMinimizer(const StrategyInput& input, WcReducedPenalty* function)
      : options_(input.options->newton),
        function_(function),
        evaluator_(function->evaluator()),
        manifold_(evaluator_->manifold()),
        k_(evaluator_->NumParameters()),
        kt_(evaluator_->NumTangentParameters()),
        S_(evaluator_->NumObjectives()),
        q_(evaluator_->NumConstraints()),
        radius_(options_.initial_trust_region_radius) {
    const bool has_gn = evaluator_->HasGaussNewtonMatrix();
    switch (options_.hessian) {
      case NewtonHessianType::AUTOMATIC:
        gauss_newton_ = has_gn;
        break;
      case NewtonHessianType::GAUSS_NEWTON:
        gauss_newton_ = true;
        break;
      case NewtonHessianType::EXACT_PRODUCTS:
        gauss_newton_ = false;
        break;
    }
    if (gauss_newton_ && !has_gn) {
      setup_error_ =
          "newton.hessian = gauss-newton needs objectives that are sums of "
          "squared residuals (an evaluator with a Gauss-Newton matrix, e.g. "
          "ecmo::CeresProblemAdapter); this evaluator has none. Use "
          "newton.hessian = automatic or exact-products (Hessian products, "
          "matrix-free), or the strategy wc-augmented-lagrangian.";
    }
    switch (options_.linear_solver) {
      case NewtonLinearSolverType::AUTOMATIC:
        solver_ = gauss_newton_ ? NewtonLinearSolverType::SPARSE_CHOLESKY
                                : NewtonLinearSolverType::CONJUGATE_GRADIENTS;
        break;
      default:
        solver_ = options_.linear_solver;
    }
    gradient_.resize(1 + k_);
    gradient_t_.resize(kt_);
  }

  const char* name() const override { return "Newton"; }

  InnerResult Minimize(const InnerLimits& limits,
                       ceres::IterationCallback* stop,
                       double* x_data) override {
    InnerResult result;
    if (!setup_error_.empty()) {
      result.message = setup_error_;
      return result;
    }
    WallTimer timer;
    Eigen::Map<Eigen::VectorXd> x(x_data, 1 + k_);
    double cost = 0.0;
    // Every point the solver visits has the best rho for its z (see
    // WcReducedPenalty::EvaluateAtBestRho): the quadratic model cannot see
    // the kinks of Q in rho, and without this a step from a point where no
    // objective is active runs rho off by the whole trust region.
    if (!function_->EvaluateAtBestRho(x.data(), &cost, gradient_.data())) {
      result.message =
          "cannot evaluate the start point: " + function_->last_error();
      return result;
    }
    result.evaluated_start = true;
    const int max_iterations =
        std::min(options_.max_inner_iterations, limits.max_iterations);
    double decrease_factor = 2.0;
    Eigen::VectorXd x_trial(1 + k_), step(kt_);
    int tiny_decreases = 0;
    for (;;) {
      ceres::IterationSummary iteration;
      iteration.cost = cost;
      if ((*stop)(iteration) == ceres::SOLVER_TERMINATE_SUCCESSFULLY) {
        result.termination_type = ceres::USER_SUCCESS;
        result.message = "The outer loop's inner stopping test is met.";
        return result;
      }
      if (result.iterations >= max_iterations) {
        result.termination_type = ceres::NO_CONVERGENCE;
        result.message = "Maximum number of Newton iterations (" +
                         std::to_string(max_iterations) + ") reached.";
        return result;
      }
      if (timer.Seconds() > limits.max_time_in_seconds) {
        result.termination_type = ceres::NO_CONVERGENCE;
        result.message = "Maximum solver time reached.";
        return result;
      }
      if (!TangentGradient(x)) {
        result.termination_type = ceres::FAILURE;
        result.message = "the manifold failed to project the gradient";
        return result;
      }
      if (gradient_t_.squaredNorm() == 0.0) {
        result.termination_type = ceres::CONVERGENCE;
        result.message = "The gradient of the augmented Lagrangian is zero.";
        return result;
      }
      std::string error;
      if (!BuildModel(x, &error)) {
        result.termination_type = ceres::FAILURE;
        result.message = "cannot build the Newton model: " + error;
        return result;
      }
      // Inner trust-region loop: shrink until a step is accepted.
      bool accepted = false;
      while (!accepted) {
        if (radius_ < options_.min_trust_region_radius) {
          result.termination_type = ceres::NO_CONVERGENCE;
          result.message =
              "The trust region radius fell below " +
              Sci(options_.min_trust_region_radius) +
              ": no step decreases the augmented Lagrangian further.";
          // Leave the evaluator linearized at x for the outer loop.
          EvaluateWithGradient(x, &cost);
          return result;
        }
        double predicted = 0.0;
        const bool solved = ComputeStep(&step, &predicted, &error);
        double trial_cost = 0.0;
        bool good = solved && predicted > 0.0 && std::isfinite(predicted) &&
                    Retract(x, step, &x_trial);
        if (good) {
          good = function_->EvaluateAtBestRho(
              x_trial.data(), &trial_cost, gradient_.data());
        }
        const double ratio = good ? (cost - trial_cost) / predicted : -1.0;
        VLOG(2) << "Newton " << result.iterations << ": Q " << cost << " trial "
                << trial_cost << " predicted " << predicted << " ratio "
                << ratio << " radius " << radius_ << " |g| "
                << gradient_t_.norm() << " |d| " << step.norm();
        if (good && std::isfinite(trial_cost) &&
            ratio > options_.min_relative_decrease) {
          const double change = cost - trial_cost;
          x = x_trial;
          cost = trial_cost;
          ++result.iterations;
          radius_ = std::min(
              options_.max_trust_region_radius,
              radius_ /
                  std::max(1.0 / 3.0, 1.0 - std::pow(2.0 * ratio - 1.0, 3)));
          decrease_factor = 2.0;
          accepted = true;
          // Ceres' function tolerance: the model cannot make progress any
          // more at this precision.
          tiny_decreases = change <= 1e-15 * std::max(1.0, std::abs(cost))
                               ? tiny_decreases + 1
                               : 0;
          if (tiny_decreases >= 2) {
            result.termination_type = ceres::CONVERGENCE;
            result.message =
                "Function tolerance reached: |dQ| / |Q| <= 1e-15 twice.";
            return result;
          }
        } else {
          radius_ /= decrease_factor;
          decrease_factor *= 2.0;
          // The evaluator may have moved to x_trial. The Gauss-Newton model
          // is kept as built (it does not need the evaluator again); the
          // products of the next conjugate-gradient solve need the
          // linearization at x.
          if (!gauss_newton_ && !EvaluateWithGradient(x, &cost)) {
            result.termination_type = ceres::FAILURE;
            result.message = "cannot re-evaluate the current point: " +
                             function_->last_error();
            return result;
          }
        }
      }
    }
  }

 private:
  bool EvaluateWithGradient(const Eigen::VectorXd& x, double* cost) {
    return function_->Evaluate(x.data(), cost, gradient_.data());
  }
  bool EvaluateWithGradient(const Eigen::Map<Eigen::VectorXd>& x,
                            double* cost) {
    return function_->Evaluate(x.data(), cost, gradient_.data());
  }

  // gradient_t_ = P^T dQ/dz of the last evaluation (dQ/drho = 0 at rho*).
  bool TangentGradient(const Eigen::Map<Eigen::VectorXd>& x) {
    if (manifold_ == nullptr) {
      gradient_t_ = gradient_.tail(k_);
      return true;
    }
    return manifold_->RightMultiplyByPlusJacobian(
        x.data() + 1, 1, gradient_.data() + 1, gradient_t_.data());
  }

  // x_trial = (rho, Plus(z, d)); rho is replaced by rho* when evaluated.
  bool Retract(const Eigen::Map<Eigen::VectorXd>& x,
               const Eigen::VectorXd& d,
               Eigen::VectorXd* x_trial) {
    (*x_trial)[0] = x[0];
    if (manifold_ == nullptr) {
      x_trial->tail(k_) = x.tail(k_) + d;
      return true;
    }
    return manifold_->Plus(x.data() + 1, d.data(), x_trial->data() + 1);
  }

  // The pieces of B at the current point (the last evaluation, which had
  // the gradient): the active columns W and either the Gauss-Newton matrix
  // or what the products need.
  bool BuildModel(const Eigen::Map<Eigen::VectorXd>& x, std::string* error) {
    const Eigen::VectorXd& omega = function_->last_omega_plus();
    const Eigen::VectorXd& lambda = function_->lambda();
    const Eigen::MatrixXd& grad_f = function_->last_objective_gradients();
    v_ = function_->v();
    u_ = function_->u();
    z_ = x.tail(k_);
    int active = 0;
    for (int s = 0; s < S_; ++s) active += omega[s] > 0.0 ? 1 : 0;
    w_.resize(kt_, active);
    int j = 0;
    Eigen::VectorXd column(k_);
    for (int s = 0; s < S_; ++s) {
      if (!(omega[s] > 0.0)) continue;
      column = lambda[s] * grad_f.col(s);
      if (manifold_ == nullptr) {
        w_.col(j) = column;
      } else {
        Eigen::VectorXd tangent(kt_);
        if (!manifold_->RightMultiplyByPlusJacobian(
                z_.data(), 1, column.data(), tangent.data())) {
          *error = "the manifold failed to project an objective gradient";
          return false;
        }
        w_.col(j) = tangent;
      }
      ++j;
    }
    // C = v (I - 1 1^T / |A|).
    low_rank_ = Eigen::MatrixXd::Identity(active, active);
    if (active > 0) low_rank_.array() -= 1.0 / active;
    low_rank_ *= v_;
    lagrangian_a_ = omega.cwiseProduct(lambda);
    lagrangian_b_ = q_ > 0 ? function_->last_nu_plus() : Eigen::VectorXd();
    // Diagonal scaling D: the diagonal of B, clamped (identity for CG).
    diagonal_.resize(kt_);
    if (gauss_newton_) {
      if (!evaluator_->GaussNewtonMatrix(
              lagrangian_a_.data(), u_, &gn_, error)) {
        return false;
      }
      if (gn_.rows() != kt_ || gn_.cols() != kt_) {
        *error = "the evaluator's Gauss-Newton matrix is " +
                 std::to_string(gn_.rows()) + " x " +
                 std::to_string(gn_.cols()) + ", expected " +
                 std::to_string(kt_) + " x " + std::to_string(kt_);
        return false;
      }
      // diag(B) = diag(G) + diag(W C W^T).
      diagonal_ = gn_.diagonal();
      if (active > 0) {
        const Eigen::MatrixXd wc = w_ * low_rank_;
        diagonal_ += (wc.cwiseProduct(w_)).rowwise().sum();
      }
      diagonal_ = diagonal_.cwiseMax(options_.min_diagonal)
                      .cwiseMin(options_.max_diagonal);
    } else {
      diagonal_.setOnes();
    }
    return true;
  }

  // The step for the current radius: (B + D / radius) d = -g, and the
  // model's predicted decrease -(g^T d + d^T B d / 2).
  bool ComputeStep(Eigen::VectorXd* d, double* predicted, std::string* error) {
    const double mu = 1.0 / radius_;
    if (gauss_newton_) {
      if (!SolveWoodbury(mu, d, error)) return false;
      // Exact solve: B d = -g - mu D d.
      const double gd = gradient_t_.dot(*d);
      const double dDd = d->dot(diagonal_.cwiseProduct(*d));
      *predicted = -0.5 * gd + 0.5 * mu * dDd;
      return true;
    }
    return SolveConjugateGradients(mu, d, predicted, error);
  }

  // M = G + mu D; d = (M + W C W^T)^-1 (-g) by the Woodbury identity.
  bool SolveWoodbury(double mu, Eigen::VectorXd* d, std::string* error) {
    const bool dense = solver_ == NewtonLinearSolverType::DENSE_CHOLESKY;
    if (dense) {
      Eigen::MatrixXd m = Eigen::MatrixXd(gn_);
      m.triangularView<Eigen::StrictlyUpper>() =
          m.triangularView<Eigen::StrictlyLower>().transpose();
      m.diagonal() += mu * diagonal_;
      dense_ldlt_.compute(m);
      if (dense_ldlt_.info() != Eigen::Success || !dense_ldlt_.isPositive()) {
        *error = "the damped Gauss-Newton matrix is not positive definite";
        return false;
      }
    } else {
      if (diagonal_matrix_.rows() != kt_) {
        diagonal_matrix_.resize(kt_, kt_);
        diagonal_matrix_.setIdentity();
      }
      for (int i = 0; i < kt_; ++i) {
        diagonal_matrix_.valuePtr()[i] = mu * diagonal_[i];
      }
      damped_ = gn_ + diagonal_matrix_;
      if (!analyzed_ || damped_.nonZeros() != analyzed_nonzeros_) {
        sparse_ldlt_.analyzePattern(damped_);
        analyzed_ = true;
        analyzed_nonzeros_ = damped_.nonZeros();
      }
      sparse_ldlt_.factorize(damped_);
      if (sparse_ldlt_.info() != Eigen::Success) {
        *error = "the sparse LDL^T of the damped Gauss-Newton matrix failed";
        return false;
      }
    }
    auto solve_m = [&](const Eigen::VectorXd& r) -> Eigen::VectorXd {
      return dense ? Eigen::VectorXd(dense_ldlt_.solve(r))
                   : Eigen::VectorXd(sparse_ldlt_.solve(r));
    };
    const Eigen::VectorXd d0 = solve_m(-gradient_t_);
    const int a = static_cast<int>(w_.cols());
    if (a > 1) {
      Eigen::MatrixXd y(kt_, a);
      for (int c = 0; c < a; ++c) y.col(c) = solve_m(w_.col(c));
      Eigen::MatrixXd system = w_.transpose() * y * low_rank_;
      system.diagonal().array() += 1.0;
      const Eigen::VectorXd t =
          system.partialPivLu().solve(w_.transpose() * d0);
      *d = d0 - y * (low_rank_ * t);
    } else {
      *d = d0;  // C = 0 with one active objective
    }
    if (!d->allFinite()) {
      *error = "the Newton step is not finite";
      return false;
    }
    return true;
  }

  // B p for a tangent vector p (Hessian products).
  bool ApplyModel(const Eigen::VectorXd& p,
                  Eigen::VectorXd* out,
                  std::string* error) {
    out->setZero(kt_);
    // Ambient direction of the z part.
    Eigen::VectorXd pz(k_), hz(k_), tangent(kt_);
    if (manifold_ == nullptr) {
      pz = p.tail(kt_);
    } else if (!PlusJacobianMultiply(
                   *manifold_, z_.data(), p.data() + 1, pz.data())) {
      *error = "the manifold failed to map a direction";
      return false;
    }
    if (!evaluator_->LagrangianHessianMultiply(lagrangian_a_.data(),
                                               lagrangian_b_.data(),
                                               pz.data(),
                                               hz.data(),
                                               error)) {
      return false;
    }
    if (q_ > 0) {
      Eigen::VectorXd jp(q_), jtjp(k_);
      evaluator_->JacobianMultiply(pz.data(), jp.data());
      evaluator_->JacobianTransposeMultiply(jp.data(), jtjp.data());
      hz += u_ * jtjp;
    }
    if (manifold_ == nullptr) {
      *out = hz;
    } else {
      if (!manifold_->RightMultiplyByPlusJacobian(
              z_.data(), 1, hz.data(), tangent.data())) {
        *error = "the manifold failed to project a Hessian product";
        return false;
      }
      *out = tangent;
    }
    if (w_.cols() > 1) *out += w_ * (low_rank_ * (w_.transpose() * p));
    return out->allFinite() ||
           (*error = "a Hessian product is not finite", false);
  }

  // Truncated CG on (B + mu I) d = -g from d = 0 (Steihaug's rule at
  // negative curvature: keep the last iterate, or take the scaled gradient
  // if there is none).
  bool SolveConjugateGradients(double mu,
                               Eigen::VectorXd* d,
                               double* predicted,
                               std::string* error) {
    const int n = kt_;
    d->setZero(n);
    Eigen::VectorXd r = -gradient_t_;
    Eigen::VectorXd p = r;
    Eigen::VectorXd bp(n);
    const double g_norm = gradient_t_.norm();
    const double forcing =
        std::min(options_.cg_relative_tolerance, std::sqrt(g_norm));
    double rr = r.squaredNorm();
    // B d accumulated alongside d (for the predicted decrease).
    Eigen::VectorXd bd = Eigen::VectorXd::Zero(n);
    for (int it = 0; it < options_.max_cg_iterations; ++it) {
      if (!ApplyModel(p, &bp, error)) return false;
      const double curvature = p.dot(bp);
      const double pmp = curvature + mu * p.squaredNorm();
      if (curvature <= 0.0 || pmp <= 0.0) {
        if (it == 0) {
          // Negative curvature along -g: a gradient step of the damped
          // length, scored by its linear decrease.
          *d = -gradient_t_ / mu;
          *predicted = -gradient_t_.dot(*d);
          return true;
        }
        break;
      }
      const double alpha = rr / pmp;
      *d += alpha * p;
      bd += alpha * bp;
      r -= alpha * (bp + mu * p);
      const double rr_new = r.squaredNorm();
      if (std::sqrt(rr_new) <= forcing * g_norm) break;
      p = r + (rr_new / rr) * p;
      rr = rr_new;
    }
    *predicted = -(gradient_t_.dot(*d) + 0.5 * d->dot(bd));
    return true;
  }

  const Solver::Options::NewtonOptions& options_;
  WcReducedPenalty* function_;
  Evaluator* evaluator_;
  const ceres::Manifold* manifold_;
  const int k_, kt_, S_, q_;
  bool gauss_newton_ = false;
  NewtonLinearSolverType solver_ = NewtonLinearSolverType::SPARSE_CHOLESKY;
  std::string setup_error_;
  double radius_;

  // The model at the current point.
  Eigen::VectorXd gradient_, gradient_t_, z_, diagonal_;
  Eigen::VectorXd lagrangian_a_, lagrangian_b_;
  Eigen::MatrixXd w_, low_rank_;
  double u_ = 1.0, v_ = 1.0;
  SparseMatrix gn_, diagonal_matrix_, damped_;
  Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>>
      sparse_ldlt_;
  bool analyzed_ = false;
  Eigen::Index analyzed_nonzeros_ = -1;
  Eigen::LDLT<Eigen::MatrixXd> dense_ldlt_;
};

}  // namespace

std::unique_ptr<InnerMinimizer> MakeNewtonInnerMinimizer(
    const StrategyInput& input, WcReducedPenalty* function) {
  return std::make_unique<NewtonInnerMinimizer>(input, function);
}

}  // namespace internal
}  // namespace ecmo
