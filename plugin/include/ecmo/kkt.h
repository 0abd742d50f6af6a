// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// The KKT system of the weighted-Chebyshev (WC) problem
//
//   min_{rho, z} rho   s.t.  lambda_s f_s(z) <= rho (s = 1..S),  h(z) = 0,
//
// as defined by the paper ("KKT System"): with multipliers omega in R^S for
// the inequalities and nu in R^q for the equalities,
//
//   K(rho, z, omega, nu, lambda) = [ sum_s omega_s - 1                        ]
//                                  [ sum_s omega_s lambda_s grad f_s(z)
//                                      + sum_i nu_i grad h_i(z)               ]
//                                  [ h(z)                                     ]
//                                  [ min(omega_s, rho - lambda_s f_s(z)), s   ]
//
// Sign convention (the paper's, used everywhere in this project): the
// Lagrangian is  rho + sum_s omega_s (lambda_s f_s - rho) + nu^T h, so
// omega >= 0 at a KKT point and nu is the multiplier that makes
// sum omega lambda grad f + J_h^T nu vanish. Solvers that use another
// convention (e.g. Ipopt) convert before calling this function.
//
// ||K||^2 is the convergence metric: z is epsilon-Pareto stationary when
// ||K||^2 <= epsilon for some multipliers. Every solver reports it twice: with
// its own multipliers, and with the least-squares multipliers (omega >= 0, nu)
// that minimize ||K|| at the returned (rho, z), so points from different
// solvers are scored on the same scale.
//
// f here is always the shifted objective f_s + offset_s that the solver
// actually scalarized (see Solver::Options::objective_offset).
//
// Manifolds: when the evaluator declares one (Evaluator::manifold()),
// KktSystem measures the stationarity block in the tangent space at z,
// PlusJacobian(z)^T (sum_s omega_s lambda_s grad f_s + J_h^T nu), of size
// k_t = Evaluator::NumTangentParameters(), as ceres::GradientChecker does:
// components along the manifold's normal space (e.g. the radial direction
// of a unit quaternion) are not errors. Least-squares multipliers are
// computed in the same space. ComputeKktResidual is oblivious: it scores
// whatever (ambient or tangent) gradients it is given.

#ifndef ECMO_KKT_H_
#define ECMO_KKT_H_

#include <limits>
#include <string>

#include "Eigen/Core"
#include "ceres/manifold.h"

namespace ecmo {

class Evaluator;

struct KktMultipliers {
  Eigen::VectorXd omega;  // S, inequality multipliers
  Eigen::VectorXd nu;     // q, equality multipliers
};

// The four blocks of K and their squared norms.
struct KktResidual {
  // sum_s omega_s - 1. NaN until computed, so that a summary that never
  // scored a point (a refused solve) cannot look certified: its ||K||^2 is
  // NaN, not 0.
  double simplex = std::numeric_limits<double>::quiet_NaN();
  Eigen::VectorXd stationarity;      // k (k_t in a tangent space)
  Eigen::VectorXd feasibility;       // h(z), q
  Eigen::VectorXd complementarity;   // min(omega_s, rho - lambda_s f_s), S

  double SimplexSq() const { return simplex * simplex; }
  double StationaritySq() const { return stationarity.squaredNorm(); }
  double FeasibilitySq() const { return feasibility.squaredNorm(); }
  double ComplementaritySq() const { return complementarity.squaredNorm(); }
  // ||K||^2.
  double SquaredNorm() const {
    return SimplexSq() + StationaritySq() + FeasibilitySq() +
           ComplementaritySq();
  }
};

// The one KKT function. All inputs at the same (rho, z):
//   lambda (S), f (S, shifted objectives), grad_f (k x S, column s =
//   grad f_s), h (q), jt_nu = J_h(z)^T nu (k), omega (S).
// Every solver and the reference call this, so residuals are comparable.
KktResidual ComputeKktResidual(double rho,
                               const Eigen::VectorXd& lambda,
                               const Eigen::VectorXd& f,
                               const Eigen::MatrixXd& grad_f,
                               const Eigen::VectorXd& h,
                               const Eigen::VectorXd& jt_nu,
                               const Eigen::VectorXd& omega);

// The scale-invariant certificate: ||K||^2 is absolute, so an objective
// with weight 1e-4 enters it only through 1e-4 times its gradient and its
// slack, and an objective measured in large units dominates it. The
// certificate measures each block of K in the units where a tolerance means
// the same thing for every problem. With sigma_s > 0 the scale of objective
// s (Solver::Summary::scalarization documents the choice: the range
// nadir - utopia when known) and f the shifted objectives of K:
//
//   simplex          |sum_s omega_s - 1|
//   stationarity     ||sum_s omega_s lambda_s grad f_s + J_h^T nu||_inf
//                      / sum_s omega_s lambda_s sigma_s
//                    (the stationarity of the convex combination of the
//                    normalized objectives f_s / sigma_s that the
//                    multipliers form; independent of how lambda is scaled)
//   complementarity  max_s |min(omega_s, (rho - lambda_s f_s) /
//                    (lambda_s sigma_s))|   (the slack of objective s in
//                    units of its own scale, whatever its weight)
//   feasibility      ||h||_inf   (absolute, in the constraints' units)
//
// A point is certified when simplex and stationarity are <=
// stationarity_tolerance, complementarity <= complementarity_tolerance and
// feasibility <= feasibility_tolerance. At a non-degenerate point (LICQ,
// strict complementarity) the slack and feasibility tests bound the error of
// each active objective by about complementarity_tolerance * sigma_s (rho
// itself is only second order in the stationarity error), and z lies within
// O(stationarity_tolerance) of a KKT point in the norm that the objectives'
// curvature defines.
struct KktCertificate {
  double simplex = std::numeric_limits<double>::infinity();
  double stationarity = std::numeric_limits<double>::infinity();
  double complementarity = std::numeric_limits<double>::infinity();
  double feasibility = std::numeric_limits<double>::infinity();
  // The largest block divided by its tolerance: <= 1 means certified.
  double Ratio(double stationarity_tolerance,
               double complementarity_tolerance,
               double feasibility_tolerance) const;
  bool Certifies(double stationarity_tolerance,
                 double complementarity_tolerance,
                 double feasibility_tolerance) const {
    return Ratio(stationarity_tolerance, complementarity_tolerance,
                 feasibility_tolerance) <= 1.0;
  }
};

// The certificate of `residual` (computed at rho, lambda, f with `omega`);
// sigma (size S, > 0) are the objective scales.
KktCertificate ComputeKktCertificate(double rho,
                                     const Eigen::VectorXd& lambda,
                                     const Eigen::VectorXd& f,
                                     const Eigen::VectorXd& sigma,
                                     const Eigen::VectorXd& omega,
                                     const KktResidual& residual);

// The KKT system linearized at one point (rho, z): evaluates the problem
// once, then scores any multipliers and computes the least-squares ones.
// Holds a pointer to the evaluator, whose linearization must stay at z while
// this object is used (do not evaluate it elsewhere in between).
class KktSystem {
 public:
  // Evaluates F, grad F, h and linearizes h at z. `offset` (size S, may be
  // empty for zeros) is added to F. With a manifold, grad F is projected to
  // the tangent space at z (see the top of this file). Returns false with a
  // message if the evaluation (or the projection) fails or the sizes do not
  // match.
  bool Linearize(Evaluator* evaluator,
                 const Eigen::VectorXd& lambda,
                 const Eigen::VectorXd& offset,
                 double rho,
                 const Eigen::VectorXd& z,
                 std::string* error);

  // K with the given multipliers (sizes S and q).
  KktResidual Residual(const KktMultipliers& multipliers) const;

  // The multipliers with omega >= 0 that minimize ||K||^2 at this point.
  // nu is eliminated exactly (a linear least-squares problem in nu for given
  // omega; dense complete orthogonal decomposition for small q, conjugate
  // gradients on the normal equations through Jacobian products for large
  // q); the remaining S-dimensional problem, piecewise quadratic because of
  // the min() block, is solved exactly by enumerating which side of each
  // min() is active (at most 2^12 cases; greedy beyond) and solving a small
  // box-constrained quadratic program for each.
  KktMultipliers LeastSquaresMultipliers() const;
  // The same for the blocks of KktCertificate: minimizes
  // (sum omega - 1)^2 + ||stationarity||^2 / m^2
  //   + sum_s min(omega_s, (rho - lambda_s f_s) / (lambda_s sigma_s))^2
  // with m = sum_s omega_s lambda_s sigma_s taken at the raw least-squares
  // multipliers (refined once). sigma: size S, > 0.
  KktMultipliers LeastSquaresMultipliers(const Eigen::VectorXd& sigma) const;
  // KktCertificate of the given multipliers at this point.
  KktCertificate Certificate(const KktMultipliers& multipliers,
                             const Eigen::VectorXd& sigma) const;

  double rho() const { return rho_; }
  const Eigen::VectorXd& f() const { return f_; }
  // k x S, or k_t x S (tangent gradients) with a manifold.
  const Eigen::MatrixXd& grad_f() const { return grad_f_; }
  const Eigen::VectorXd& h() const { return h_; }
  const Eigen::VectorXd& lambda() const { return lambda_; }

 private:
  // The enumeration behind both LeastSquaresMultipliers: minimizes
  // (sum w - 1)^2 + stationarity_weight^2 ||R w||^2
  //   + sum_s min(w_s, comp_scale_s (rho - lambda_s f_s))^2 over w >= 0.
  KktMultipliers MinimizeOverMultipliers(const Eigen::VectorXd& comp_scale,
                                         double stationarity_weight) const;
  // Least-squares nu for a given stationarity vector g: argmin ||g + J^T nu||.
  Eigen::VectorXd SolveNu(const Eigen::VectorXd& g) const;
  // out (k_t) = P^T J_h^T v and out (q) = J_h P x, with P = PlusJacobian(z)
  // (the identity without a manifold).
  void TangentJacobianTransposeMultiply(const double* v, double* out) const;
  void TangentJacobianMultiply(const double* x, double* out) const;

  Evaluator* evaluator_ = nullptr;
  const ceres::Manifold* manifold_ = nullptr;
  Eigen::VectorXd z_;
  mutable Eigen::VectorXd ambient_scratch_;
  double rho_ = 0.0;
  Eigen::VectorXd lambda_;
  Eigen::VectorXd f_;
  Eigen::MatrixXd grad_f_;
  Eigen::VectorXd h_;
  // Dense J_h (q x k, or J_h P: q x k_t) when q and k are small enough; empty
  // otherwise.
  Eigen::MatrixXd dense_jacobian_;
};

// Both scorings of a point, as reported by every solver.
struct KktReport {
  KktMultipliers solver_multipliers;
  KktResidual with_solver_multipliers;
  KktMultipliers least_squares_multipliers;
  KktResidual with_least_squares_multipliers;
  // The scale-invariant certificate (see KktCertificate) with the solver's
  // multipliers, and with the multipliers that minimize the certificate's
  // blocks in the least-squares sense (KktSystem::LeastSquaresMultipliers
  // with the scales); objective_scale is the sigma used. Filled by
  // ComputeKktReport when it is given the scales.
  Eigen::VectorXd objective_scale;
  KktCertificate certificate_with_solver_multipliers;
  KktMultipliers scaled_least_squares_multipliers;
  KktCertificate certificate_with_least_squares_multipliers;
  // The better of the two certificates for these tolerances (smaller
  // KktCertificate::Ratio).
  const KktCertificate& BestCertificate(double stationarity_tolerance,
                                        double complementarity_tolerance,
                                        double feasibility_tolerance) const;
};

// Scores (rho, z) with the given multipliers and with the least-squares ones.
// With objective_scale (size S, > 0) it also fills the certificates; with
// an empty one they stay at infinity.
bool ComputeKktReport(Evaluator* evaluator,
                      const Eigen::VectorXd& lambda,
                      const Eigen::VectorXd& offset,
                      double rho,
                      const Eigen::VectorXd& z,
                      const KktMultipliers& solver_multipliers,
                      KktReport* report,
                      std::string* error,
                      const Eigen::VectorXd& objective_scale =
                          Eigen::VectorXd());

}  // namespace ecmo

#endif  // ECMO_KKT_H_
