// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// The slack-eliminated WC penalty / augmented Lagrangian as a
// ceres::FirstOrderFunction of x = (rho, z) in R^(1+k).
//
// For fixed (rho, z) the slack of the WC-Penalty function P that minimizes it
// is delta_s = max(0, rho - lambda_s f_s(z)), so P reduces to a C^1,
// unconstrained function of (rho, z). With multiplier shifts omega >= 0 (S)
// and nu (q) it is the augmented Lagrangian of the WC problem
//
//   Q(x) = rho + sum_s v/2 [max(0, lambda_s f_s - rho + omega_s/v)^2
//                           - (omega_s/v)^2]
//              + nu^T h + u/2 ||h||^2,
//
// and with omega = nu = 0 the slack-eliminated penalty
// rho + u/2 ||h||^2 + v/2 sum_s max(0, lambda_s f_s - rho)^2. Its gradient is
//
//   dQ/drho = 1 - sum_s omega+_s,
//   dQ/dz   = sum_s omega+_s lambda_s grad f_s + J_h^T nu+,
//
// with the first-order multipliers omega+ = v max(0, lambda f - rho + omega/v)
// and nu+ = nu + u h: exactly the first two blocks of the KKT residual K (see
// ecmo/kkt.h) at (omega+, nu+), in the paper's sign convention. So
//
//   ||K(x, omega+, nu+)||^2 = ||grad Q||^2 + ||h||^2
//                             + sum_s min(omega+_s, rho - lambda_s f_s)^2,
//
// which every evaluation records (Point) at no extra cost.
//
// Manifolds: if the evaluator has one (Evaluator::manifold()), Evaluate still
// returns the AMBIENT gradient (ceres::GradientProblem projects it with the
// manifold of x = (rho, z) it is given, see TangentManifold()), while
// Point::gradient_sq is the squared norm of the TANGENT gradient
// (d/drho, PlusJacobian(z)^T dQ/dz): the KKT residual is measured in the
// tangent space, where the identity above holds.
//
// Inequality constraints c <= 0 (the last Evaluator::NumInequalityConstraints
// entries of the constraint vector) enter with their slack eliminated like
// the WC inequalities: u/2 [max(0, c_j + nu_j/u)^2 - (nu_j/u)^2] instead of
// nu_j c_j + u/2 c_j^2, with nu+_j = u max(0, c_j + nu_j/u) >= 0; their
// entries min(nu+_j, -c_j) of the KKT residual count in feasibility_sq.
//
// Bounds (Evaluator::HasBounds): the returned gradient is the plain one
// (the inner solver projects), while Point::gradient_sq and the
// certificate's stationarity measure the projected gradient
// z - P(z - grad_z Q): per component, the KKT stationarity entry with the
// bound multipliers of ecmo::BoundMultiplier together with that bound's
// complementarity entry (their squares sum to its square). They belong to
// the inner solve, so none of it counts in feasibility_sq.
//
// Matrix-free: one evaluation calls Evaluator::Evaluate (F, grad f_s, h) and,
// for the gradient, one product J_h^T nu+. Memory is O(k S + q); no k x k or
// q x k matrix is formed. f is the shifted objective F + offset.
//
// Not thread-safe (it drives a stateful Evaluator); use one per thread.

#ifndef ECMO_WC_REDUCED_PENALTY_H_
#define ECMO_WC_REDUCED_PENALTY_H_

#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/first_order_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"

namespace ecmo {

class WcReducedPenalty final : public ceres::FirstOrderFunction {
 public:
  // What one evaluation learned about the KKT residual at (omega+, nu+).
  struct Point {
    double cost = 0.0;
    double rho = 0.0;
    // ||grad Q||^2, tangent with a manifold (-1 when the gradient was not
    // evaluated).
    double gradient_sq = -1.0;
    // ||h||^2 and sum_s min(omega+_s, rho - lambda_s f_s)^2.
    double feasibility_sq = 0.0;
    double complementarity_sq = 0.0;
    // ||K||^2 at (omega+, nu+); -1 without the gradient.
    double KktSq() const {
      return gradient_sq < 0.0
                 ? -1.0
                 : gradient_sq + feasibility_sq + complementarity_sq;
    }
    // An estimate of the certificate's blocks (ecmo/kkt.h,
    // KktCertificate) at (omega+, nu+), measured at this point (the
    // stationarity scale from ambient components); stationarity is
    // infinite without the gradient.
    KktCertificate certificate;
  };

  // The evaluator must outlive this object. lambda (S, in the simplex) and
  // offset (S, or empty for zeros). Penalties start at u = v = 1 and the
  // shifts at zero.
  WcReducedPenalty(Evaluator* evaluator,
                   const Eigen::VectorXd& lambda,
                   const Eigen::VectorXd& offset);

  // Starts over with another preference and offset (sizes as in the
  // constructor), as a new object on the same evaluator would: penalties
  // 1, shifts zero, scales one, no evaluation on record. The k-sized
  // scratch is kept, which is why a sweep worker reuses one object for all
  // its points.
  void Reset(const Eigen::VectorXd& lambda, const Eigen::VectorXd& offset);

  // u > 0 multiplies ||h||^2, v > 0 the inequality terms.
  void SetPenalties(double u, double v);
  // omega (size S, entries >= 0) and nu (size q). Zero vectors give the
  // pure penalty. Returns false on a size mismatch.
  bool SetMultiplierShifts(const Eigen::VectorXd& omega,
                           const Eigen::VectorXd& nu);


  double u() const { return u_; }
  double v() const { return v_; }

  // ceres::FirstOrderFunction. Returns false (and keeps the evaluator's
  // message in last_error()) when the problem cannot be evaluated at x or
  // the value is not finite; Ceres' line search then shortens the step.
  bool Evaluate(const double* x, double* cost, double* gradient) const override;
  int NumParameters() const override { return 1 + k_; }

  // Evaluate at (argmin_rho Q(rho, z), z): Q is convex and piecewise
  // quadratic in rho and the evaluator's values do not depend on it, so the
  // best rho for z is found exactly at no extra cost; x[0] is overwritten
  // with it (then dQ/drho = 0 and at least one objective is active). The
  // Newton inner solver (StrategyType::WC_NEWTON) steps this way, because a
  // quadratic model of Q cannot see the kinks in rho.
  bool EvaluateAtBestRho(double* x, double* cost, double* gradient) const;

  // argmin_rho rho + sum_s v/2 max(0, c_s - rho)^2 (convex, piecewise
  // quadratic in rho) for c_s = lambda_s f_s + omega_s / v, v > 0: with the
  // m largest c active the derivative vanishes at
  // rho_m = (sum_{i <= m} c_(i) - 1/v) / m, and the minimizer is the rho_m
  // with c_(m) > rho_m >= c_(m+1). O(S log S).
  static double MinimizeOverRho(const Eigen::VectorXd& c, double v);

  // The record of the most recent evaluation whose cost equals `cost`
  // exactly (looked up among the last kHistory evaluations, newest first).
  // Ceres' iteration summaries report the cost of the accepted point, so
  // this recovers the KKT residual of every accepted iterate without
  // evaluating again. Returns false if none matches.
  bool FindPoint(double cost, bool need_gradient, Point* point) const;

  // The multipliers (omega+, nu+) of the most recent evaluation, if it was
  // at x (compared exactly); otherwise evaluates the values at x (one value
  // evaluation) to compute them. Also returns that point's record (without
  // the gradient in the second case). False if x cannot be evaluated.
  bool MultipliersAt(const double* x,
                     KktMultipliers* multipliers,
                     Point* point) const;

  // Shifted objectives f = F + offset (S) and h (q) of the most recent
  // successful evaluation.
  const Eigen::VectorXd& last_objectives() const { return f_; }
  const Eigen::VectorXd& last_constraints() const { return h_; }

  const std::string& last_error() const { return last_error_; }

  // Of the most recent successful evaluation: the first-order multipliers
  // omega+ (S) and nu+ (q; empty when q = 0), and, if it computed the
  // gradient, grad f_s as the columns of a k x S matrix. The second-order
  // inner solver (StrategyType::WC_NEWTON) builds its model from them.
  const Eigen::VectorXd& last_omega_plus() const { return omega_plus_; }
  const Eigen::VectorXd& last_nu_plus() const { return nu_plus_; }
  const Eigen::MatrixXd& last_objective_gradients() const { return grad_f_; }
  const Eigen::VectorXd& lambda() const { return lambda_; }
  const Eigen::VectorXd& omega_shift() const { return omega_shift_; }
  Evaluator* evaluator() const { return evaluator_; }

  // The manifold of x = (rho, z): R x Evaluator::manifold(), as a new
  // non-owning DynamicProductManifold (ecmo/manifold.h) that the caller owns
  // (e.g. hands to ceres::GradientProblem, which deletes it); it refers to
  // the evaluator's manifold, which must outlive it. Null when the
  // evaluator has no manifold.
  ceres::Manifold* TangentManifold() const;

 private:
  static constexpr int kHistory = 64;

  // Evaluate's two halves: the evaluator at z (f_, h_ and, when asked,
  // grad_f_), then Q, its gradient and the Point record at x = (rho, z).
  bool EvaluateProblem(const double* z, bool with_gradient) const;
  bool Assemble(const double* x, double* cost, double* gradient) const;

  Evaluator* evaluator_;
  const ceres::Manifold* manifold_;  // the evaluator's, or null
  int k_, S_, q_;
  int p_;  // the last p_ of the q_ constraint residuals are inequalities
  Eigen::VectorXd lambda_;
  Eigen::VectorXd offset_;
  double u_ = 1.0;
  double v_ = 1.0;
  Eigen::VectorXd omega_shift_;
  Eigen::VectorXd nu_shift_;

  // Scratch and the most recent evaluation.
  mutable Eigen::VectorXd f_, h_, omega_plus_, nu_plus_, weights_, jt_;
  mutable Eigen::VectorXd tangent_;  // manifold only
  mutable Eigen::MatrixXd grad_f_;
  mutable Eigen::VectorXd last_x_;
  mutable bool last_valid_ = false;
  mutable Point last_point_;
  mutable std::vector<Point> history_;  // ring buffer of kHistory records
  mutable int history_next_ = 0;
  mutable std::string last_error_;
};

}  // namespace ecmo

#endif  // ECMO_WC_REDUCED_PENALTY_H_
