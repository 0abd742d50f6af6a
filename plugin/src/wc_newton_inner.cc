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
//     as Ceres' Levenberg-Marquardt uses (an objective inactive at the
//     point weighted by the outer loop's estimate of omega_s instead of 0;
//     see CurvatureWeights). The step solves
//     (B + mu D) d = -grad Qr with M = G + mu D sparse, factorized by a
//     sparse LDL^T whose symbolic analysis (ordering and elimination tree)
//     is kept with the evaluator, so one serves a whole sweep (SparseLdlt);
//     the low-rank part C = v Pi is added by the Woodbury identity in the
//     form that needs no inverse of C,
//       x = M^-1 b - Y C t,  (I + W^T Y C) t = W^T M^-1 b,  Y = M^-1 W,
//     at the price of |A| extra triangular solves: the dense rows of the
//     Chebyshev constraints never enter the factorization.
//   - Hessian products (Evaluator::LagrangianHessianMultiply): B p is
//     formed from products and the step is Steihaug-Toint truncated
//     conjugate gradients, stopped by the Eisenstat-Walker forcing term,
//     at negative curvature or at the trust region's boundary. Matrix-free.
//
// Trust regions. Gauss-Newton (B positive semidefinite): Ceres'
// Levenberg-Marquardt rule, mu = 1/radius, D the clamped diagonal of B; a
// step is accepted when Qr falls by at least min_relative_decrease of the
// model's prediction, then the radius grows by 1/max(1/10, 1 - (2 ratio -
// 1)^3) (Ceres: 1/3, too slow to recover from early rejections);
// otherwise it is first halved along the same direction up to
// backtracking_steps times (an evaluation each, no new factorization, the
// same ratio test against the model at the shorter step; the region stays
// as it is), and only then shrinks by a factor that doubles on every
// rejection in a row and the matrix is factorized again. Hessian products (B
// may be indefinite away from a minimizer): Steihaug-Toint, a Euclidean radius
// on the step (starting at max(1, ||z||)), doubled after a good step that
// reached it, cut to a quarter of the step after a poor or rejected one. Both
// radii carry over between the inner solves of one outer loop.
//
// Inequality constraints c_j <= 0 (the last p rows of the constraint
// vector g = (h, c)) enter Q slack-eliminated, u/2 max(0, c_j +
// nu_j/u)^2: the term's Hessian is u J_j^T J_j + nu+_j grad^2 c_j while
// the row is active (nu+_j = u max(0, c_j + nu_j/u) > 0) and zero
// otherwise. nu+ carries the second part into L; the first enters G only
// for the active rows (per-row weights of Evaluator::GaussNewtonMatrix,
// a zero in J_g p for the products). Like the Chebyshev rows, an inactive
// inequality that the step would activate is not in the model; the
// trust region's ratio test catches the difference.
//
// Bounds l <= z <= u (Evaluator::HasBounds; no manifold then): a
// projected Newton method with Bertsekas' epsilon-active set (Bertsekas,
// "Projected Newton methods for optimization problems with simple
// constraints", SIAM J. Control Optim. 20, 1982). Components within
// eps = min(1e-3, ||z - P(z - grad Qr)||) of a bound whose gradient pushes
// outward are HELD: the model decouples them (their rows of W are zero,
// their rows and columns of G those of a diagonal h_i = max(1, |g_i| /
// distance to the bound), Bertsekas' diagonal scaling on the active set,
// so the undamped step takes a component near its bound at most onto it,
// and one on its bound has gradient entry 0 and does not move), the step on
// the free components is computed as without bounds, then z + d is
// projected onto the box and the ratio test compares Qr's actual decrease
// with this model's at the PROJECTED step. Why this and not a full
// bound-constrained subproblem: the step computations (sparse LDL^T with the
// Woodbury correction, Steihaug-Toint CG) stay unchanged, a held component
// costs nothing, and the projection of a model minimizer over the free
// components is a descent step for a small enough trust region (the
// damped step tends to -(mu D)^-1 grad over the free components, whose
// projection decreases Qr because D is diagonal), so rejections shrink
// the region until a step is accepted. The zero test on the gradient
// becomes a zero test on the projected gradient z - P(z - grad Qr).
// Iterates never leave the box: every trial point is a projection.

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "Eigen/SparseCore"
#include "ecmo/internal/report.h"
#include "ecmo/manifold.h"
#include "glog/logging.h"
#include "sparse_ldlt.h"
#include "wc_diagnosis.h"
#include "wc_inner_minimizer.h"

namespace ecmo {
namespace internal {
namespace {

using SparseMatrix = Eigen::SparseMatrix<double>;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

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
        first_inequality_(evaluator_->NumEqualityConstraints()),
        bounded_(evaluator_->HasBounds()),
        radius_(options_.initial_trust_region_radius) {
    // Solve has refused GAUSS_NEWTON and the factorizing solvers on an
    // evaluator without the structure.
    gauss_newton_ = options_.hessian != NewtonHessianType::EXACT_PRODUCTS &&
                    evaluator_->HasGaussNewtonMatrix();
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
    free_ = Eigen::VectorXd::Ones(kt_);
    held_curvature_ = Eigen::VectorXd::Zero(kt_);
    row_weights_.resize(q_);
  }

  const char* name() const override { return "Newton"; }

  InnerResult Minimize(const InnerLimits& limits,
                       ceres::IterationCallback* stop,
                       double* x_data) override {
    InnerResult result;
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
    // A region that collapsed in the previous inner solve says nothing
    // about this one (the outer loop has moved the multipliers or the
    // penalty since): start again from the initial radii, else every later
    // inner solve would stop at once on the same test.
    if (step_radius_ < 0.0 || radius_collapsed_) {
      step_radius_ = std::max(1.0, x.tail(k_).norm());
    }
    if (radius_collapsed_) radius_ = options_.initial_trust_region_radius;
    radius_collapsed_ = false;
    const int max_iterations =
        std::min(options_.max_inner_iterations, limits.max_iterations);
    double decrease_factor = 2.0;
    Eigen::VectorXd x_trial(1 + k_), step(kt_);
    int tiny_decreases = 0;
    // A chord step (see ChordPossible) for the first step of this solve.
    bool try_chord = ChordPossible(x);
    last_step_ratio_ = 0.0;
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
      if (ProjectedGradientSquaredNorm(x) == 0.0) {
        result.termination_type = ceres::CONVERGENCE;
        result.message =
            bounded_ ? "The projected gradient of the augmented Lagrangian "
                       "is zero."
                     : "The gradient of the augmented Lagrangian is zero.";
        return result;
      }
      std::string error;
      chord_ = try_chord;
      try_chord = false;
      if (!BuildModel(x, &error)) {
        result.termination_type = ceres::FAILURE;
        result.message = "cannot build the Newton model: " + error;
        return result;
      }
      // Inner trust-region loop: shrink until a step is accepted.
      bool accepted = false;
      while (!accepted) {
        if ((gauss_newton_ ? radius_ : step_radius_) <
            options_.min_trust_region_radius) {
          radius_collapsed_ = true;
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
        bool good = solved && Retract(x, step, &x_trial);
        // Bounds: the trial point is the projection of z + d, and the
        // model is asked about the step actually taken.
        if (good && ProjectTrial(x, &x_trial, &step)) {
          good = ModelDecrease(step, &predicted, &error);
        }
        good = good && predicted > 0.0 && std::isfinite(predicted);
        if (good) {
          good = function_->EvaluateAtBestRho(
              x_trial.data(), &trial_cost, gradient_.data());
        }
        double ratio = good ? (cost - trial_cost) / predicted : -1.0;
        VLOG(2) << "Newton " << result.iterations << (chord_ ? " (chord)" : "")
                << ": Q " << cost << " trial " << trial_cost << " predicted "
                << predicted << " ratio " << ratio << " radius "
                << (gauss_newton_ ? radius_ : step_radius_) << " |g| "
                << gradient_t_.norm() << " |d| " << step.norm();
        // Near the solution the predicted decrease can fall below what
        // Q's rounding resolves (Q ~ 1, predicted ~ 1e-17: the actual change
        // is then exactly 0 or noise, and the ratio says nothing). A step
        // whose predicted decrease is at rounding level is accepted when Q
        // does not rise beyond that level (Ipopt relaxes its Armijo test the
        // same way); rejecting it would shrink the region to nothing at a
        // point the Newton step is about to finish.
        const double rounding = 10.0 * std::numeric_limits<double>::epsilon() *
                                std::max(1.0, std::abs(cost));
        const bool below_rounding = good && std::isfinite(trial_cost) &&
                                    predicted <= rounding &&
                                    trial_cost <= cost + rounding;
        bool decreased = good && std::isfinite(trial_cost) &&
                         ratio > options_.min_relative_decrease;
        bool shortened = false;
        if (!decreased && !below_rounding && good && !chord_ && gauss_newton_ &&
            !bounded_) {
          shortened = Backtrack(x, cost, &step, &x_trial, &trial_cost, &ratio);
          decreased = shortened;
        }
        if (chord_ && !decreased && !below_rounding) {
          // The old matrix was not good enough here: the region stays as
          // it is, and the step is computed again from a fresh model at x
          // (the evaluator has moved to the trial point).
          chord_ = false;
          if (!EvaluateWithGradient(x, &cost) || !TangentGradient(x) ||
              !BuildModel(x, &error)) {
            result.termination_type = ceres::FAILURE;
            result.message = "cannot rebuild the Newton model: " +
                             (error.empty() ? function_->last_error() : error);
            return result;
          }
          continue;
        }
        if (decreased || below_rounding) {
          const double change = cost - trial_cost;
          x = x_trial;
          cost = trial_cost;
          ++result.iterations;
          if (shortened) ++result.shortened_steps;
          last_step_norm_ = step.norm();
          last_step_ratio_ = decreased ? ratio : 1.0;
          if (!decreased || shortened) {
            // Accepted at rounding level, or after halving: the region
            // stays as it is (a halved step says the full one was too long
            // for the model, not that the region may grow).
          } else if (gauss_newton_) {
            // Ceres' rule, but growing by up to 10x (Ceres: 3x) when the
            // model is nearly exact: after early rejections far from the
            // solution (e.g. residuals across an angle's wrap) the radius
            // must recover in a few steps, not dozens.
            radius_ = std::min(
                options_.max_trust_region_radius,
                radius_ / std::max(0.1, 1.0 - std::pow(2.0 * ratio - 1.0, 3)));
          } else if (ratio > 0.75 && step.norm() >= 0.99 * step_radius_) {
            step_radius_ =
                std::min(options_.max_trust_region_radius, 2.0 * step_radius_);
          } else if (ratio < 0.25) {
            step_radius_ = 0.25 * step.norm();
          }
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
          if (gauss_newton_) {
            radius_ /= decrease_factor;
            decrease_factor *= 2.0;
          } else {
            step_radius_ = 0.25 * std::min(step_radius_, step.norm());
          }
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
  // A rejected Gauss-Newton step d from x (where Qr = cost) halved up to
  // backtracking_steps times: the first d / 2^j whose actual decrease of Qr
  // passes the ratio test against the model's prediction at that step
  // replaces *step, *x_trial, *trial_cost and *ratio (true). False if none does
  // (the evaluator may then have moved; the Gauss-Newton model does not need it
  // again).
  bool Backtrack(const Eigen::Map<Eigen::VectorXd>& x,
                 double cost,
                 Eigen::VectorXd* step,
                 Eigen::VectorXd* x_trial,
                 double* trial_cost,
                 double* ratio) {
    std::string error;
    Eigen::VectorXd shorter = *step;
    for (int halving = 0; halving < options_.backtracking_steps; ++halving) {
      shorter *= 0.5;
      double predicted = 0.0;
      if (!ModelDecrease(shorter, &predicted, &error) ||
          !(predicted > 0.0 && std::isfinite(predicted)) ||
          !Retract(x, shorter, x_trial)) {
        return false;
      }
      double value = 0.0;
      if (!function_->EvaluateAtBestRho(
              x_trial->data(), &value, gradient_.data()) ||
          !std::isfinite(value)) {
        return false;
      }
      const double r = (cost - value) / predicted;
      VLOG(2) << "  halved " << halving + 1 << ": trial " << value
              << " predicted " << predicted << " ratio " << r;
      if (r > options_.min_relative_decrease) {
        *step = shorter;
        *trial_cost = value;
        *ratio = r;
        return true;
      }
    }
    return false;
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

  // ||z - P(z - grad Qr)||^2, the stationarity measure of the box (the
  // squared tangent gradient without bounds).
  double ProjectedGradientSquaredNorm(const Eigen::Map<Eigen::VectorXd>& x) {
    if (!bounded_) return gradient_t_.squaredNorm();
    Eigen::VectorXd projected = x.tail(k_) - gradient_t_;
    evaluator_->ProjectOntoBounds(projected.data());
    return (x.tail(k_) - projected).squaredNorm();
  }

  // Bertsekas' epsilon-active set at z (see the top of this file): free_
  // is 0 for the held components, 1 for the others.
  void SelectFreeComponents(const Eigen::Map<Eigen::VectorXd>& x) {
    free_.setOnes();
    held_curvature_.setZero();
    if (!bounded_) return;
    const Eigen::VectorXd& lower = evaluator_->lower_bounds();
    const Eigen::VectorXd& upper = evaluator_->upper_bounds();
    const double eps =
        std::min(1e-3, std::sqrt(ProjectedGradientSquaredNorm(x)));
    for (int i = 0; i < k_; ++i) {
      const double zi = x[1 + i], gi = gradient_t_[i];
      const double distance = gi > 0.0   ? zi - lower[i]
                              : gi < 0.0 ? upper[i] - zi
                                         : kInfinity;
      if (distance <= eps) {
        free_[i] = 0.0;
        // Bertsekas' diagonal scaling on the active set: the undamped step
        // -g_i / h_i stops at the bound (and is 0 there).
        held_curvature_[i] =
            distance > 0.0 ? std::max(1.0, std::abs(gi) / distance) : 1.0;
      }
    }
  }

  // Bounds: x_trial's z <- P(z_trial), and d <- the step actually taken.
  // Returns true if the projection moved the point (the prediction must
  // then be recomputed).
  bool ProjectTrial(const Eigen::Map<Eigen::VectorXd>& x,
                    Eigen::VectorXd* x_trial,
                    Eigen::VectorXd* d) const {
    if (!bounded_ || !evaluator_->ProjectOntoBounds(x_trial->data() + 1)) {
      return false;
    }
    *d = x_trial->tail(k_) - x.tail(k_);
    return true;
  }

  // The model's decrease -m(d) (undamped) at a given step d.
  bool ModelDecrease(const Eigen::VectorXd& d,
                     double* predicted,
                     std::string* error) {
    Eigen::VectorXd gd, omega;
    if (!ApplyG(d, &gd, error)) return false;
    const double phi0 = Chebyshev(c_, &omega);
    const double phi = Chebyshev(c_ + w_.transpose() * d, &omega);
    *predicted = -(phi - phi0 + rest_gradient_.dot(d) + 0.5 * d.dot(gd));
    return true;
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

  // The Chebyshev part of Q at fixed z, as a function of
  // c_s = lambda_s f_s + omega_s / v: phi(c) = min_rho rho + sum_s v/2
  // max(0, c_s - rho)^2 (convex, piecewise quadratic, gradient
  // omega(c) = v max(0, c - rho*)). Returns phi and fills omega.
  double Chebyshev(const Eigen::VectorXd& c, Eigen::VectorXd* omega) const {
    const double rho = WcReducedPenalty::MinimizeOverRho(c, v_);
    double phi = rho;
    omega->resize(S_);
    for (int s = 0; s < S_; ++s) {
      const double excess = std::max(0.0, c[s] - rho);
      phi += 0.5 * v_ * excess * excess;
      (*omega)[s] = v_ * excess;
    }
    return phi;
  }

  // The pieces of the model at the current point (the last evaluation,
  // which had the gradient): c, the objective columns W, the rest of the
  // gradient, and either the Gauss-Newton matrix or what the products need.
  bool BuildModel(const Eigen::Map<Eigen::VectorXd>& x, std::string* error) {
    const Eigen::VectorXd& omega = function_->last_omega_plus();
    const Eigen::VectorXd& lambda = function_->lambda();
    const Eigen::MatrixXd& grad_f = function_->last_objective_gradients();
    const Eigen::VectorXd& f = function_->last_objectives();
    const Eigen::VectorXd& shift = function_->omega_shift();
    v_ = function_->v();
    u_ = function_->u();
    z_ = x.tail(k_);
    c_.resize(S_);
    w_.resize(kt_, S_);
    Eigen::VectorXd column(k_), tangent(kt_);
    for (int s = 0; s < S_; ++s) {
      c_[s] = lambda[s] * f[s] + shift[s] / v_;
      column = lambda[s] * grad_f.col(s);
      if (manifold_ == nullptr) {
        w_.col(s) = column;
      } else {
        if (!manifold_->RightMultiplyByPlusJacobian(
                z_.data(), 1, column.data(), tangent.data())) {
          *error = "the manifold failed to project an objective gradient";
          return false;
        }
        w_.col(s) = tangent;
      }
    }
    // grad Qr = W omega+ + P^T J_h^T nu+: the part the Chebyshev model
    // does not produce.
    rest_gradient_ = gradient_t_ - w_ * omega;
    lagrangian_a_ = omega.cwiseProduct(lambda);
    lagrangian_b_ = q_ > 0 ? function_->last_nu_plus() : Eigen::VectorXd();
    // Curvature u J^T J for the equality rows and the active inequality
    // rows only.
    for (int i = 0; i < q_; ++i) {
      row_weights_[i] =
          i < first_inequality_ || lagrangian_b_[i] > 0.0 ? u_ : 0.0;
    }
    // Bounds: the held components leave the model.
    SelectFreeComponents(x);
    if (bounded_) {
      w_.array().colwise() *= free_.array();
      for (int i = 0; i < kt_; ++i) {
        if (free_[i] != 0.0) continue;
        // A held component moves only towards its bound (by the diagonal
        // model g_i d + h_i d^2 / 2), and not at all once on it.
        const double zi = x[1 + i], gi = gradient_t_[i];
        const bool on_bound = gi > 0.0 ? zi <= evaluator_->lower_bounds()[i]
                                       : zi >= evaluator_->upper_bounds()[i];
        rest_gradient_[i] = on_bound ? 0.0 : gi;
      }
    }
    if (chord_) return true;  // G, D and the factorization as they were
    if (!gauss_newton_) {
      diagonal_.setOnes(kt_);
      return true;
    }
    return BuildGaussNewton(CurvatureWeights(omega, shift), error);
  }

  // The objective weights of G: omega+_s for an objective active at the
  // model's point, the outer loop's estimate omega_s (the shift of Q) for
  // an inactive one (NewtonOptions::inactive_objective_curvature). Q's own
  // Hessian has no curvature of an inactive objective, but the model's step may
  // activate it (the objectives are linearized inside the max), and G then
  // misses exactly the curvature that stops the step: a Gauss-Newton step along
  // directions that only f_s's residuals pin down runs far and raises f_s
  // beyond its linearization. Measured on the generated pose graphs: after the
  // Ceres phase the terms are a few per cent apart, one objective is inactive
  // (omega+ = (0, 1) against the phase's weights (0.30, 0.70)), and the
  // first step was rejected with ratios of -1e3 .. -1e6 until the region
  // had shrunk by 1e11, a factorization each. The outer estimate is the
  // weight the objective carries at the WC point; for an active objective
  // omega+ is the better one (it is what the inner solve converges to;
  // max(omega+, omega) over-weights a falling multiplier and turned the
  // quadratic convergence at the end of a front linear).
  Eigen::VectorXd CurvatureWeights(const Eigen::VectorXd& omega_plus,
                                   const Eigen::VectorXd& estimate) const {
    Eigen::VectorXd weights = omega_plus;
    if (!options_.inactive_objective_curvature || estimate.size() != S_) {
      return weights;
    }
    for (int s = 0; s < S_; ++s) {
      if (omega_plus[s] == 0.0) weights[s] = std::max(0.0, estimate[s]);
    }
    return weights;
  }

  // gn_ = G with the objective weights curvature_s lambda_s (and the
  // constraint rows' row_weights_), held components, and the damping
  // diagonal D of G + W_A C_A W_A^T, A = {s : omega+_s > 0} (the active
  // set at the point, whatever the curvature weights). Needs the evaluator
  // linearized at the model's point.
  bool BuildGaussNewton(const Eigen::VectorXd& curvature, std::string* error) {
    factored_ = false;  // the factorization is of the previous gn_
    const Eigen::VectorXd weights = curvature.cwiseProduct(function_->lambda());
    if (!evaluator_->GaussNewtonMatrix(
            weights.data(), row_weights_.data(), &gn_, error)) {
      return false;
    }
    if (gn_.rows() != kt_ || gn_.cols() != kt_) {
      *error = "the evaluator's Gauss-Newton matrix is " +
               std::to_string(gn_.rows()) + " x " + std::to_string(gn_.cols()) +
               ", expected " + std::to_string(kt_) + " x " +
               std::to_string(kt_);
      return false;
    }
    if (bounded_) HoldInMatrix();
    // D: the diagonal of the model's Hessian at d = 0, G + W_A C_A W_A^T
    // (the reduced Chebyshev part, zero when one objective is active; the
    // unreduced v w_s w_s^T would over-damp every step by the penalty).
    std::vector<bool> active(S_);
    for (int s = 0; s < S_; ++s) {
      active[s] = function_->last_omega_plus()[s] > 0.0;
    }
    SelectActive(active);
    diagonal_ = gn_.diagonal();
    if (w_active_.cols() > 1) {
      diagonal_ +=
          ((w_active_ * low_rank_).cwiseProduct(w_active_)).rowwise().sum();
    }
    diagonal_ = diagonal_.cwiseMax(options_.min_diagonal)
                    .cwiseMin(options_.max_diagonal);
    return true;
  }

  // The model of Qr(z + d) - Qr(z):
  //   m(d) = phi(c + W^T d) - phi(c) + rest^T d + d^T G d / 2,
  // convex piecewise quadratic when G is positive semidefinite, with the
  // objectives linearized INSIDE the max. A quadratic model with a fixed
  // active set cannot see where another objective enters the max (Q is only
  // C^1 there, with a jump of v lambda_s^2 grad f_s grad f_s^T in its
  // curvature): its steps overshoot the kink, are rejected, and the solver
  // crawls along it. The step minimizes m (plus the damping) by a
  // semismooth Newton iteration over the pieces: on the piece of active set
  // A the Hessian of phi in c is C_A = v (I - 1 1^T / |A|), so each
  // iteration solves (G + mu D + W_A C_A W_A^T) delta = -grad m(d), with
  // the Woodbury identity on one factorization of G + mu D (Gauss-Newton)
  // or by Steihaug-Toint CG (products); it stops when the active set repeats.
  bool ComputeStep(Eigen::VectorXd* d, double* predicted, std::string* error) {
    const double mu =
        chord_ ? factored_mu_ : (gauss_newton_ ? 1.0 / radius_ : 0.0);
    if (gauss_newton_ && !chord_ && !Factorize(mu, error)) return false;
    d->setZero(kt_);
    Eigen::VectorXd omega, c_trial, gd(kt_), grad, delta;
    std::vector<bool> previous_active;
    const double phi0 = Chebyshev(c_, &omega);
    gd.setZero();  // G d
    bool on_boundary = false;
    // The damped model m(d) + mu/2 d^T D d (what the linear systems
    // minimize) at d + t delta, from G d and G delta: cheap, so every
    // semismooth iteration is a line search on it. A full piece step that
    // crosses into another piece can raise the piecewise model; the line
    // search keeps every iteration a descent step (the model is convex for
    // Gauss-Newton, so this converges to its minimizer).
    auto damped_model = [&](double t, const Eigen::VectorXd& gdelta) {
      const Eigen::VectorXd dt = *d + t * delta;
      const Eigen::VectorXd gdt = gd + t * gdelta;
      Eigen::VectorXd unused;
      return Chebyshev(c_ + w_.transpose() * dt, &unused) - phi0 +
             rest_gradient_.dot(dt) + 0.5 * dt.dot(gdt) +
             0.5 * mu * dt.dot(diagonal_.cwiseProduct(dt));
    };
    double model = 0.0;
    Eigen::VectorXd gdelta;
    for (int iteration = 0; iteration <= S_ + 1; ++iteration) {
      c_trial = c_ + w_.transpose() * (*d);
      Chebyshev(c_trial, &omega);
      std::vector<bool> active(S_);
      for (int s = 0; s < S_; ++s) active[s] = omega[s] > 0.0;
      if (iteration > 0 && active == previous_active) break;
      if (on_boundary) break;
      previous_active = active;
      grad = w_ * omega + rest_gradient_ + gd;
      if (gauss_newton_) grad += mu * diagonal_.cwiseProduct(*d);
      SelectActive(active);
      if (gauss_newton_) {
        if (!SolveWoodbury(grad, &delta, error)) return false;
      } else if (!SolveSteihaug(grad, *d, &delta, &on_boundary, error)) {
        return false;
      }
      if (!ApplyG(delta, &gdelta, error)) return false;
      double t = 1.0;
      double model_new = damped_model(t, gdelta);
      for (int halving = 0; halving < 40 && !(model_new < model); ++halving) {
        t *= 0.5;
        model_new = damped_model(t, gdelta);
      }
      if (!(model_new < model)) break;
      *d += t * delta;
      gd += t * gdelta;
      model = model_new;
      if (t < 1.0) on_boundary = false;  // inside the region again
    }
    c_trial = c_ + w_.transpose() * (*d);
    const double phi = Chebyshev(c_trial, &omega);
    *predicted = -(phi - phi0 + rest_gradient_.dot(*d) + 0.5 * d->dot(gd));
    if (!d->allFinite()) {
      *error = "the Newton step is not finite";
      return false;
    }
    return true;
  }

  // Rows and columns of the held components of gn_ (lower triangle) become
  // those of the identity; the pattern is unchanged (explicit zeros), so
  // the symbolic analysis stays valid.
  void HoldInMatrix() {
    for (int j = 0; j < gn_.outerSize(); ++j) {
      for (SparseMatrix::InnerIterator it(gn_, j); it; ++it) {
        const Eigen::Index i = it.row();
        if (free_[i] == 0.0 || free_[j] == 0.0) {
          it.valueRef() = i == j ? held_curvature_[i] : 0.0;
        }
      }
    }
  }

  // w_active_ and low_rank_ (C_A) for the active set.
  void SelectActive(const std::vector<bool>& active) {
    int count = 0;
    for (bool a : active) count += a ? 1 : 0;
    w_active_.resize(kt_, count);
    int j = 0;
    for (int s = 0; s < S_; ++s) {
      if (active[s]) w_active_.col(j++) = w_.col(s);
    }
    low_rank_ = Eigen::MatrixXd::Identity(count, count);
    if (count > 0) low_rank_.array() -= 1.0 / count;
    low_rank_ *= v_;
  }

  // Factorizes M = G + mu D (the symbolic analysis is the evaluator's).
  bool Factorize(double mu, std::string* error) {
    factored_ = false;
    factored_mu_ = mu;
    if (solver_ == NewtonLinearSolverType::DENSE_CHOLESKY) {
      Eigen::MatrixXd m = Eigen::MatrixXd(gn_);
      m.triangularView<Eigen::StrictlyUpper>() =
          m.triangularView<Eigen::StrictlyLower>().transpose();
      m.diagonal() += mu * diagonal_;
      dense_ldlt_.compute(m);
      if (dense_ldlt_.info() != Eigen::Success || !dense_ldlt_.isPositive()) {
        *error = "the damped Gauss-Newton matrix is not positive definite";
        return false;
      }
      factored_ = true;
      return true;
    }
    if (sparse_ldlt_ == nullptr) {
      sparse_ldlt_ = evaluator_->gauss_newton_factorization();
    }
    if (!sparse_ldlt_->Factorize(gn_, mu * diagonal_, error)) return false;
    factored_ = true;
    return true;
  }

  // Whether the first step of an inner solve may be a chord step: the
  // factorization of the last Gauss-Newton model is reused (only the
  // gradient, the objective columns W and the active set are new). After
  // an outer iteration's multiplier update the inner solves near a
  // solution take one Newton step of a few 1e-5 relative, and the
  // factorization is most of a step's cost. Only after a last step that
  // the model predicted well (ratio in [0.5, 2]) and that was small
  // (<= kChordStep max(1, ||z||)), so the point has hardly moved since the
  // factorization; a rejected chord step is recomputed from a fresh model
  // without shrinking the region. Not with bounds (held components change
  // the matrix).
  bool ChordPossible(const Eigen::Map<Eigen::VectorXd>& x) const {
    constexpr double kChordStep = 1e-4;
    return options_.chord_steps && gauss_newton_ && !bounded_ && factored_ &&
           last_step_ratio_ >= 0.5 && last_step_ratio_ <= 2.0 &&
           last_step_norm_ <= kChordStep * std::max(1.0, x.tail(k_).norm());
  }

  Eigen::VectorXd SolveM(const Eigen::VectorXd& r) const {
    return solver_ == NewtonLinearSolverType::DENSE_CHOLESKY
               ? Eigen::VectorXd(dense_ldlt_.solve(r))
               : sparse_ldlt_->Solve(r);
  }

  // delta = -(M + W_A C_A W_A^T)^-1 grad by the Woodbury identity in the
  // form that needs no inverse of C_A (singular):
  //   x = M^-1 b - Y C t,  (I + W^T Y C) t = W^T M^-1 b,  Y = M^-1 W.
  bool SolveWoodbury(const Eigen::VectorXd& grad,
                     Eigen::VectorXd* delta,
                     std::string* error) {
    const Eigen::VectorXd d0 = SolveM(-grad);
    const int a = static_cast<int>(w_active_.cols());
    if (a > 1) {
      Eigen::MatrixXd y(kt_, a);
      for (int c = 0; c < a; ++c) y.col(c) = SolveM(w_active_.col(c));
      Eigen::MatrixXd system = w_active_.transpose() * y * low_rank_;
      system.diagonal().array() += 1.0;
      const Eigen::VectorXd t =
          system.partialPivLu().solve(w_active_.transpose() * d0);
      *delta = d0 - y * (low_rank_ * t);
    } else {
      *delta = d0;  // C = 0 with one active objective
    }
    if (!delta->allFinite()) {
      *error = "the Newton step is not finite";
      return false;
    }
    return true;
  }

  // out = G p: the sparse matrix (Gauss-Newton), or u P^T J_h^T J_h P p +
  // P^T grad^2 L P p from products.
  bool ApplyG(const Eigen::VectorXd& p,
              Eigen::VectorXd* out,
              std::string* error) {
    if (gauss_newton_) {
      *out = gn_.selfadjointView<Eigen::Lower>() * p;
      return true;
    }
    Eigen::VectorXd pz(k_), hz(k_);
    if (manifold_ == nullptr) {
      pz = bounded_ ? Eigen::VectorXd(p.cwiseProduct(free_)) : p;
    } else if (!PlusJacobianMultiply(
                   *manifold_, z_.data(), p.data(), pz.data())) {
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
      jp = jp.cwiseProduct(row_weights_);  // u, 0 for inactive inequalities
      evaluator_->JacobianTransposeMultiply(jp.data(), jtjp.data());
      hz += jtjp;
    }
    if (manifold_ == nullptr) {
      // Held components: the identity (see HoldInMatrix).
      *out = bounded_ ? Eigen::VectorXd(hz.cwiseProduct(free_) +
                                        p.cwiseProduct(held_curvature_))
                      : hz;
    } else {
      out->resize(kt_);
      if (!manifold_->RightMultiplyByPlusJacobian(
              z_.data(), 1, hz.data(), out->data())) {
        *error = "the manifold failed to project a Hessian product";
        return false;
      }
    }
    if (!out->allFinite()) {
      *error = "a Hessian product is not finite";
      return false;
    }
    return true;
  }

  // Steihaug-Toint truncated CG on (G + W_A C_A W_A^T) delta = -grad with
  // ||base + delta|| <= step_radius_: stops at the Eisenstat-Walker forcing
  // term, and goes to the boundary along a direction of negative curvature
  // or when an iterate would leave the region (then *on_boundary).
  // (Levenberg-Marquardt damping alone cannot handle the indefinite
  // Hessians of Q away from a minimizer: with little damping the steps
  // collapse to the point where CG first meets negative curvature.)
  bool SolveSteihaug(const Eigen::VectorXd& grad,
                     const Eigen::VectorXd& base,
                     Eigen::VectorXd* delta,
                     bool* on_boundary,
                     std::string* error) {
    delta->setZero(kt_);
    *on_boundary = false;
    Eigen::VectorXd r = -grad;
    Eigen::VectorXd p = r;
    Eigen::VectorXd bp(kt_);
    const double g_norm = grad.norm();
    const double forcing =
        std::min(options_.cg_relative_tolerance, std::sqrt(g_norm));
    double rr = r.squaredNorm();
    // tau >= 0 with ||base + delta + tau dir|| = radius.
    auto to_boundary = [&](const Eigen::VectorXd& dir) {
      const Eigen::VectorXd at = base + *delta;
      const double a = dir.squaredNorm();
      const double b = 2.0 * at.dot(dir);
      const double c = at.squaredNorm() - step_radius_ * step_radius_;
      return (-b + std::sqrt(std::max(0.0, b * b - 4.0 * a * c))) / (2.0 * a);
    };
    for (int it = 0; it < options_.max_cg_iterations && rr > 0.0; ++it) {
      if (!ApplyG(p, &bp, error)) return false;
      if (w_active_.cols() > 1) {
        bp += w_active_ * (low_rank_ * (w_active_.transpose() * p));
      }
      const double curvature = p.dot(bp);
      const double alpha = rr / curvature;
      if (curvature <= 0.0 ||
          (base + *delta + alpha * p).norm() >= step_radius_) {
        *delta += to_boundary(p) * p;
        *on_boundary = true;
        break;
      }
      *delta += alpha * p;
      r -= alpha * bp;
      const double rr_new = r.squaredNorm();
      if (std::sqrt(rr_new) <= forcing * g_norm) break;
      p = r + (rr_new / rr) * p;
      rr = rr_new;
    }
    return true;
  }

  const Solver::Options::NewtonOptions& options_;
  WcReducedPenalty* function_;
  Evaluator* evaluator_;
  const ceres::Manifold* manifold_;
  const int k_, kt_, S_, q_;
  // Constraint rows first_inequality_ .. q_ - 1 are inequalities.
  const int first_inequality_;
  const bool bounded_;
  bool gauss_newton_ = false;
  NewtonLinearSolverType solver_ = NewtonLinearSolverType::SPARSE_CHOLESKY;
  // Levenberg-Marquardt: 1 / damping (Gauss-Newton). Steihaug-Toint: the
  // length of the step (Hessian products), set from the first point.
  double radius_;
  double step_radius_ = -1.0;
  // Whether the last inner solve ended with the region below
  // min_trust_region_radius.
  bool radius_collapsed_ = false;

  // The model at the current point.
  Eigen::VectorXd gradient_, gradient_t_, z_, diagonal_;
  Eigen::VectorXd lagrangian_a_, lagrangian_b_;
  // Per constraint row: u, or 0 for an inactive inequality.
  Eigen::VectorXd row_weights_;
  // Per component: 1 free, 0 held at a bound (always 1 without bounds),
  // and the held components' diagonal model curvature (0 when free).
  Eigen::VectorXd free_, held_curvature_;
  Eigen::VectorXd c_, rest_gradient_;
  Eigen::MatrixXd w_, w_active_, low_rank_;
  double u_ = 1.0, v_ = 1.0;
  SparseMatrix gn_;
  // The evaluator's (Evaluator::gauss_newton_factorization): its symbolic
  // analysis outlives this solve, so the points of a sweep share it.
  SparseLdlt* sparse_ldlt_ = nullptr;
  // The last factorization succeeded, is of the current gn_ (and
  // diagonal_), with damping factored_mu_.
  bool factored_ = false;
  double factored_mu_ = 0.0;
  // This step reuses that factorization (ChordPossible).
  bool chord_ = false;
  // The last accepted step of the current inner solve: its length and its
  // ratio of actual to predicted decrease (1 at rounding level; 0 before
  // any step).
  double last_step_norm_ = kInfinity;
  double last_step_ratio_ = 0.0;
  Eigen::LDLT<Eigen::MatrixXd> dense_ldlt_;
};

}  // namespace

std::unique_ptr<InnerMinimizer> MakeNewtonInnerMinimizer(
    const StrategyInput& input, WcReducedPenalty* function) {
  return std::make_unique<NewtonInnerMinimizer>(input, function);
}

}  // namespace internal
}  // namespace ecmo
