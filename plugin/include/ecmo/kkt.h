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

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SparseCore"
#include "ceres/manifold.h"

namespace ecmo {

class Evaluator;
namespace internal {
class SparseLdlt;
}  // namespace internal

struct KktMultipliers {
  Eigen::VectorXd omega;  // S, multipliers of the WC inequalities
  // m = q + p: the equality multipliers, then those of the inequality
  // constraints c <= 0 (>= 0 at a KKT point).
  Eigen::VectorXd nu;
  // Multipliers of z >= l and z <= u (size k each, >= 0 at a KKT point), or
  // both empty: zero for a problem without bounds; for one with bounds
  // KktSystem (hence ComputeKktReport) fills them in from omega and nu by
  // BoundMultiplier below.
  Eigen::VectorXd bound_lower;
  Eigen::VectorXd bound_upper;
};

// The four blocks of K and their squared norms.
struct KktResidual {
  // sum_s omega_s - 1. NaN until computed, so that a summary that never
  // scored a point (a refused solve) cannot look certified: its ||K||^2 is
  // NaN, not 0.
  double simplex = std::numeric_limits<double>::quiet_NaN();
  Eigen::VectorXd stationarity;     // k (k_t in a tangent space)
  Eigen::VectorXd feasibility;      // h(z), q (the equalities)
  Eigen::VectorXd complementarity;  // min(omega_s, rho - lambda_s f_s), S
  // min(mu_j, -c_j), p (empty without inequality constraints).
  Eigen::VectorXd inequality_complementarity;
  // min(z_L,i, z_i - l_i) for i = 1..k, then min(z_U,i, u_i - z_i); empty
  // without bounds (entries of unbounded components are 0).
  Eigen::VectorXd bound_complementarity;
  // The largest single term of the stationarity sum, in the inf-norm:
  // max(max_s omega_s lambda_s ||grad f_s||_inf, ||J_g^T nu - z_L +
  // z_U||_inf) (tangent components with a manifold). The certificate
  // measures the stationarity block against it. NaN until computed (a
  // residual estimated by a strategy may leave it so; KktSystem::
  // Certificate then computes it).
  double stationarity_scale = std::numeric_limits<double>::quiet_NaN();

  // The squared norms of the blocks, recorded by KeepNormsOnly or by a
  // result reader (NaN while the blocks are held); the accessors below
  // return them then.
  struct SquaredNorms {
    // Only a reader sets it: the file keeps simplex^2, not its sign (such
    // a residual has simplex = sqrt of it, which may square to one ulp
    // off; SimplexSq() is this exact value).
    double simplex = std::numeric_limits<double>::quiet_NaN();
    double stationarity = std::numeric_limits<double>::quiet_NaN();
    double feasibility = std::numeric_limits<double>::quiet_NaN();
    double complementarity = std::numeric_limits<double>::quiet_NaN();
    double constraint_complementarity =
        std::numeric_limits<double>::quiet_NaN();
  };
  SquaredNorms kept_squared_norms;

  double SimplexSq() const {
    return std::isnan(kept_squared_norms.simplex) ? simplex * simplex
                                                  : kept_squared_norms.simplex;
  }
  double StationaritySq() const {
    return Kept(kept_squared_norms.stationarity, stationarity);
  }
  double FeasibilitySq() const {
    return Kept(kept_squared_norms.feasibility, feasibility);
  }
  double ComplementaritySq() const {
    return Kept(kept_squared_norms.complementarity, complementarity);
  }
  // The inequality-constraint and bound blocks together.
  double ConstraintComplementaritySq() const {
    return std::isnan(kept_squared_norms.constraint_complementarity)
               ? inequality_complementarity.squaredNorm() +
                     bound_complementarity.squaredNorm()
               : kept_squared_norms.constraint_complementarity;
  }
  // ||K||^2.
  double SquaredNorm() const {
    return SimplexSq() + StationaritySq() + FeasibilitySq() +
           ComplementaritySq() + ConstraintComplementaritySq();
  }
  // Records the squared norms of the blocks exactly and releases the
  // blocks (empty vectors): SquaredNorm() and the accessors above stay
  // what they were, the k-sized storage goes. A sweep keeps its finished
  // points this way. Computing a residual into this object again (the
  // ComputeKktResidual overloads with an output) holds blocks again.
  void KeepNormsOnly();

 private:
  static double Kept(double kept, const Eigen::VectorXd& block) {
    return std::isnan(kept) ? block.squaredNorm() : kept;
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

// The same with inequality constraints and bounds: g = (h, c) (size m, the
// last num_inequalities entries are c), jt_nu = J_g(z)^T nu with the full
// multipliers.nu (m), and z with its bounds (lower / upper of size k, or
// both empty without bounds; multipliers.bound_lower / bound_upper empty
// mean zero).
KktResidual ComputeKktResidual(double rho,
                               const Eigen::VectorXd& lambda,
                               const Eigen::VectorXd& f,
                               const Eigen::MatrixXd& grad_f,
                               const Eigen::VectorXd& g,
                               int num_inequalities,
                               const Eigen::VectorXd& jt_nu,
                               const KktMultipliers& multipliers,
                               const Eigen::VectorXd& z,
                               const Eigen::VectorXd& lower,
                               const Eigen::VectorXd& upper);

// Both of the above written into *residual, whose blocks are resized in
// place: a caller that keeps one KktResidual across iterations allocates
// nothing once the sizes are set (at large k a fresh k-vector per residual
// is a page-faulted mapping, see Evaluator::kkt_workspace).
void ComputeKktResidual(double rho,
                        const Eigen::VectorXd& lambda,
                        const Eigen::VectorXd& f,
                        const Eigen::MatrixXd& grad_f,
                        const Eigen::VectorXd& h,
                        const Eigen::VectorXd& jt_nu,
                        const Eigen::VectorXd& omega,
                        KktResidual* residual);
void ComputeKktResidual(double rho,
                        const Eigen::VectorXd& lambda,
                        const Eigen::VectorXd& f,
                        const Eigen::MatrixXd& grad_f,
                        const Eigen::VectorXd& g,
                        int num_inequalities,
                        const Eigen::VectorXd& jt_nu,
                        const KktMultipliers& multipliers,
                        const Eigen::VectorXd& z,
                        const Eigen::VectorXd& lower,
                        const Eigen::VectorXd& upper,
                        KktResidual* residual);

// The multiplier of one bound that a solver without bound multipliers of
// its own is credited with: `force` is the stationarity entry pushing the
// component against the bound (r_i for a lower bound, -r_i for an upper
// one, r without bound terms) and `distance` the component's distance to
// it (z_i - l_i or u_i - z_i; infinite when unbounded). Returns the a in
// {0} or [max(distance, 0), inf) minimizing (force - a)^2 +
// min(a, distance)^2: force itself at an active bound, 0 when the bound
// is far (distance > force) or pulls the wrong way.
double BoundMultiplier(double force, double distance);

// BoundMultiplier for every component: r (size k) is the stationarity
// block without bound terms at z, whose bounds are lower / upper (size k);
// bound_lower / bound_upper receive the credited z_L (force r_i) and z_U
// (force -r_i).
void CreditBoundMultipliers(const Eigen::VectorXd& r,
                            const Eigen::VectorXd& z,
                            const Eigen::VectorXd& lower,
                            const Eigen::VectorXd& upper,
                            Eigen::VectorXd* bound_lower,
                            Eigen::VectorXd* bound_upper);

// The certificate: ||K||^2 is absolute, so it means something different on
// every problem (an objective in large units dominates it, one with weight
// 1e-4 hardly enters it). The certificate measures each block of K against
// other quantities AT THE SAME POINT, never against the start point or a
// payoff table (a start 1e6 times above the front, or a nadir inflated by
// a non-unique single-objective minimizer, must not loosen it). With f the
// shifted objectives of K, r = sum_s omega_s lambda_s grad f_s + J_g^T nu
// - z_L + z_U its stationarity block and D = max(|rho|, max_s lambda_s
// |f_s|) the size of the weighted objective values at the point:
//
//   simplex          |sum_s omega_s - 1|
//   stationarity     ||r||_inf / max(T, floor), T the largest single term
//                    of the sum: max(max_s omega_s lambda_s ||grad f_s||_inf,
//                    ||J_g^T nu - z_L + z_U||_inf) (KktResidual::
//                    stationarity_scale). The terms must cancel at a KKT
//                    point: 1e-6 means they cancel to six digits, in any
//                    units and from any start. floor >= 0 (Solver::Options::
//                    stationarity_floor, default 0) is an absolute level in
//                    the units of r, for points where nothing cancels.
//   complementarity  max_s |min(omega_s, (rho - lambda_s f_s) / D)|  (each
//                    objective's slack relative to the weighted objective
//                    values at the point)
//   feasibility      ||h||_inf   (absolute, in the constraints' units),
//                    and with inequality constraints and bounds also
//                    max_j |min(mu_j / D, -c_j)| and
//                    max_i |min(z_L,i / D, z_i - l_i)|, |min(z_U,i / D,
//                    u_i - z_i)| (a violated or a falsely released
//                    constraint, in its own units)
//   model_decrease   where the evaluator has Gauss-Newton structure
//                    (Evaluator::HasGaussNewtonMatrix) and the problem no
//                    bounds or inequalities: the decrease of the weighted
//                    sum sum_s omega_s lambda_s f_s that its Gauss-Newton
//                    model predicts for a step in the null space of J_h,
//                    less its rounding level (1e3 machine epsilon of the
//                    weighted values as evaluated), divided by D (Ceres'
//                    function-tolerance idea: no
//                    rescaling of objectives or parameters, no start and no
//                    reparametrization z -> A z changes it). NaN where not
//                    computed.
//
// What a certified point guarantees, in units a user can check (the
// defaults of Solver::Options in brackets):
//   - ||h||_inf <= feasibility_tolerance [1e-8] in the constraints' units;
//   - every objective whose multiplier exceeds complementarity_tolerance
//     [1e-8] lies within complementarity_tolerance * D of the WC level rho;
//   - the weighted objective gradients and the constraint terms cancel to
//     stationarity_tolerance [1e-6] of the largest of them, so no direction
//     within the constraints decreases the Lagrangian faster than that
//     fraction of the terms' size;
//   - where model_decrease is computed, a Gauss-Newton step of the
//     point's own weighted sum (weights omega_s lambda_s) would lower it by
//     at most model_tolerance [1e-12] * D: Levenberg-Marquardt started at
//     the point finds (to the model's accuracy) no such decrease either.
// A point is certified when simplex <= stationarity_tolerance,
// complementarity <= complementarity_tolerance, feasibility <=
// feasibility_tolerance, and either model_decrease (when computed) <=
// model_tolerance or (when it is not) stationarity <=
// stationarity_tolerance. Where the model exists it is the stronger test
// and replaces the relative one: the relative test cannot judge a point
// where a single term stands alone (one active objective at an
// unconstrained minimizer: nothing cancels, T is the residual itself, and
// the block is 1 unless the floor decides).
struct KktCertificate {
  double simplex = std::numeric_limits<double>::infinity();
  double stationarity = std::numeric_limits<double>::infinity();
  double complementarity = std::numeric_limits<double>::infinity();
  double feasibility = std::numeric_limits<double>::infinity();
  double model_decrease = std::numeric_limits<double>::quiet_NaN();
  // The denominators used: max(T, floor) and D.
  double stationarity_scale = std::numeric_limits<double>::quiet_NaN();
  double value_scale = std::numeric_limits<double>::quiet_NaN();
  // The largest block divided by its tolerance: <= 1 means certified
  // (see above for which blocks count).
  double Ratio(double stationarity_tolerance,
               double complementarity_tolerance,
               double feasibility_tolerance,
               double model_tolerance = kDefaultModelTolerance) const;
  bool Certifies(double stationarity_tolerance,
                 double complementarity_tolerance,
                 double feasibility_tolerance,
                 double model_tolerance = kDefaultModelTolerance) const {
    return Ratio(stationarity_tolerance,
                 complementarity_tolerance,
                 feasibility_tolerance,
                 model_tolerance) <= 1.0;
  }
  // The square of the default stationarity tolerance: on a quadratic
  // model a residual of 1e-6 of the terms predicts a decrease of about
  // 1e-12 of the values, so both tests ask the same precision of z.
  static constexpr double kDefaultModelTolerance = 1e-12;
};

// The certificate of `residual` (computed at rho, lambda, f with `omega`);
// stationarity_floor >= 0 (see above). With inequality constraints or
// bounds pass the full multipliers and the constraint data (see
// ComputeKktResidual); the overload without them is for problems that have
// neither. model_decrease stays NaN (KktSystem::ModelDecrease computes it).
KktCertificate ComputeKktCertificate(double rho,
                                     const Eigen::VectorXd& lambda,
                                     const Eigen::VectorXd& f,
                                     const Eigen::VectorXd& omega,
                                     const KktResidual& residual,
                                     double stationarity_floor = 0.0);
KktCertificate ComputeKktCertificate(double rho,
                                     const Eigen::VectorXd& lambda,
                                     const Eigen::VectorXd& f,
                                     const KktMultipliers& multipliers,
                                     const Eigen::VectorXd& g,
                                     int num_inequalities,
                                     const Eigen::VectorXd& z,
                                     const Eigen::VectorXd& lower,
                                     const Eigen::VectorXd& upper,
                                     const KktResidual& residual,
                                     double stationarity_floor = 0.0);

// The KKT system linearized at one point (rho, z): evaluates the problem
// once, then scores any multipliers and computes the least-squares ones.
// Holds a pointer to the evaluator, whose linearization must stay at z while
// this object is used (do not evaluate it elsewhere in between).
class KktSystem {
 public:
  // Evaluates F, grad F, h and linearizes h at z. `offset` (size S, may be
  // empty for zeros) is added to F. rho NaN: max_s lambda_s (f_s +
  // offset_s) at z (rho eliminated, as WC_SQP has it). With a manifold,
  // grad F is projected to the tangent space at z (see the top of this
  // file). Returns false with a message if the evaluation (or the
  // projection) fails or the sizes do not match.
  bool Linearize(Evaluator* evaluator,
                 const Eigen::VectorXd& lambda,
                 const Eigen::VectorXd& offset,
                 double rho,
                 const Eigen::VectorXd& z,
                 std::string* error);

  // K with the given multipliers (sizes S and m; bound multipliers of size
  // k or empty for zero).
  KktResidual Residual(const KktMultipliers& multipliers) const;
  // The same into *residual, reusing its storage (see ComputeKktResidual).
  void Residual(const KktMultipliers& multipliers, KktResidual* residual) const;

  // If the problem has bounds and multipliers->bound_lower / bound_upper
  // are empty, fills them by BoundMultiplier from the stationarity entries
  // at omega and nu, so only bounds that are (nearly) active and pushed
  // against get a multiplier. Residual and Certificate do this to
  // multipliers without bound parts, so solvers without bound multipliers
  // of their own (the projected and penalty strategies) are scored with
  // these.
  void CompleteBoundMultipliers(KktMultipliers* multipliers) const;

  // The multipliers with omega >= 0 that minimize ||K||^2 at this point.
  // With inequality constraints or bounds, the inequality multipliers
  // (>= 0) and the bound multipliers come from an active-set loop around
  // the method below: the constraints and bounds within a slack threshold
  // are active (their rows take part in the elimination of nu; a bound
  // removes its component from the stationarity norm), negative inequality
  // multipliers and wrongly signed bound forces drop out, and the best of a
  // few thresholds (1e-10 .. 1e-4, relative for bounds) by the exact
  // ||K||^2 is returned. Without either, nu is eliminated exactly (a linear
  // least-squares problem in nu for given omega; dense complete orthogonal
  // decomposition for small q, conjugate gradients on the normal equations
  // through Jacobian products for large q); the remaining S-dimensional
  // problem, piecewise quadratic because of the min() block, is solved exactly
  // by enumerating which side of each min() is active (at most 2^12 cases;
  // greedy beyond) and solving a small box-constrained quadratic program for
  // each.
  KktMultipliers LeastSquaresMultipliers() const;
  // The same for the blocks of KktCertificate: minimizes
  //   (sum omega - 1)^2 + ||stationarity||^2 / T^2
  //   + sum_s min(omega_s, (rho - lambda_s f_s) / D)^2
  // with T = max(stationarity_scale, stationarity_floor) taken at the raw
  // least-squares multipliers (refined once) and D the value scale of the
  // point (see KktCertificate).
  KktMultipliers CertificateLeastSquaresMultipliers(
      double stationarity_floor) const;
  // KktCertificate of the given multipliers at this point (model_decrease
  // not computed).
  KktCertificate Certificate(const KktMultipliers& multipliers,
                             double stationarity_floor) const;
  // The same from Residual(multipliers), already computed by the caller.
  KktCertificate Certificate(const KktMultipliers& multipliers,
                             double stationarity_floor,
                             const KktResidual& residual) const;
  // Whether ModelDecrease can be computed here, and which model: a
  // Gauss-Newton model where the evaluator has that structure; otherwise a
  // Newton model from Hessian-of-Lagrangian products for problems of at
  // most kMaxNewtonModelParameters parameters without a manifold (and
  // with a dense J_h when there are constraints). Neither with bounds or
  // inequality constraints.
  bool HasGaussNewtonModel() const;
  bool HasNewtonModel() const;
  bool HasModel() const { return HasGaussNewtonModel() || HasNewtonModel(); }
  static constexpr int kMaxNewtonModelParameters = 200;
  // KktCertificate::model_decrease of the multipliers, with weights a_s =
  // omega_s lambda_s and r the stationarity block, divided by the value
  // scale D. Gauss-Newton: G = sum_s a_s Jr_s^T Jr_s (Evaluator::
  // GaussNewtonMatrix), the predicted decrease 1/2 r^T M^-1 r over steps
  // in the null space of J_h (M = G + c J_h^T J_h with c large against G,
  // damped by 1e-12 of G's largest diagonal entry so that directions the
  // weighted sum does not see count as flat, not as infinite decrease).
  // Newton: H the Hessian of the Lagrangian sum_s a_s f_s + nu^T h
  // (k products), reduced to the null space of J_h, and 1/2 r^T |H|^-1 r
  // in its eigenbasis (curvatures below 1e-12 of the largest raised to
  // that floor). False with a message when the model cannot be formed.
  bool ModelDecrease(const KktMultipliers& multipliers,
                     double* decrease,
                     std::string* error) const;

  double rho() const { return rho_; }
  // The point of the last Linearize (size k).
  const Eigen::VectorXd& z() const { return z_; }
  const Eigen::VectorXd& f() const { return f_; }
  // k x S, or k_t x S (tangent gradients) with a manifold.
  const Eigen::MatrixXd& grad_f() const { return grad_f_; }
  // The constraint vector g = (h, c) (size m).
  const Eigen::VectorXd& h() const { return h_; }
  // J_g (m x k, or m x k_t in tangent coordinates with a manifold) when
  // Linearize formed it densely (m up to 2,000 and m k_t up to 4e6 entries,
  // from m Jacobian products), else empty.
  const Eigen::MatrixXd& dense_jacobian() const { return dense_jacobian_; }
  const Eigen::VectorXd& lambda() const { return lambda_; }
  int num_inequalities() const { return p_; }
  bool has_bounds() const { return lower_.size() > 0; }

 private:
  // An active set for the inequality constraints and bounds: which
  // inequality rows take part in eliminating nu (the others have mu = 0),
  // and which components are held by a bound (-1 lower, +1 upper, 0 free).
  struct ActiveSet {
    std::vector<char> inequality;    // p
    std::vector<signed char> bound;  // k, or empty
  };
  // The exact objective the least-squares multipliers minimize: ||K||^2
  // with the stationarity block times stationarity_weight and the slacks
  // of the WC block times comp_scale (the raw one for weight 1 and scales
  // 1).
  double MultiplierObjective(const KktMultipliers& m,
                             const Eigen::VectorXd& comp_scale,
                             double stationarity_weight) const;
  // MinimizeOverMultipliers for a fixed active set.
  KktMultipliers MinimizeWithActiveSet(const Eigen::VectorXd& comp_scale,
                                       double stationarity_weight,
                                       const ActiveSet& active) const;
  // The active-set loop (see LeastSquaresMultipliers) around
  // MinimizeWithActiveSet.
  KktMultipliers MinimizeOverConstrainedMultipliers(
      const Eigen::VectorXd& comp_scale, double stationarity_weight) const;
  // The enumeration behind both LeastSquaresMultipliers: minimizes
  // (sum w - 1)^2 + stationarity_weight^2 ||R w||^2
  //   + sum_s min(w_s, comp_scale_s (rho - lambda_s f_s))^2 over w >= 0.
  // The answer goes to *result, whose storage it reuses (a sweep's worker
  // scores every point on one kept system).
  void MinimizeOverMultipliers(const Eigen::VectorXd& comp_scale,
                               double stationarity_weight,
                               KktMultipliers* result) const;
  // LeastSquaresMultipliers(), computed once per linearization, by
  // reference.
  const KktMultipliers& RawLeastSquaresMultipliers() const;
  // Least-squares nu for every column g of G (k x S): argmin ||g + J^T nu||
  // (q x S result in *out, whose storage it reuses; q > 0; out is not G).
  void SolveNu(const Eigen::MatrixXd& G, Eigen::MatrixXd* out) const;
  // The same with only the rows of g = (h, c) in `rows` (the others get
  // nu = 0) and the components in `held` (nonzero entries) left out of the
  // norm; for all S columns of G at once (m x S result).
  Eigen::MatrixXd SolveNuRestricted(const Eigen::MatrixXd& G,
                                    const std::vector<char>& rows,
                                    const std::vector<signed char>& held) const;
  // ||grad f (lambda .* omega) + P^T J_h^T nu||^2 (nu empty: without the
  // constraint term) in persistent scratch: MinimizeOverMultipliers scores
  // three candidates per call, and k-sized temporaries freed at the top of
  // the heap were returned to the kernel and faulted in again (a third of
  // a warm sweep's page faults at k = 1e4). Only without bounds and
  // inequalities (Residual has more blocks then).
  double StationaritySquaredNorm(const Eigen::VectorXd& omega,
                                 const Eigen::VectorXd& nu) const;
  // out (k_t) = P^T J_h^T v and out (q) = J_h P x, with P = PlusJacobian(z)
  // (the identity without a manifold).
  void TangentJacobianTransposeMultiply(const double* v, double* out) const;
  void TangentJacobianMultiply(const double* x, double* out) const;

  Evaluator* evaluator_ = nullptr;
  const ceres::Manifold* manifold_ = nullptr;
  Eigen::VectorXd z_;
  Eigen::VectorXd lower_, upper_;  // empty without bounds
  int p_ = 0;                      // inequality constraints (last of h_)
  mutable Eigen::VectorXd ambient_scratch_;
  // StationaritySquaredNorm's k-vectors (the first also holds R w inside
  // MinimizeOverMultipliers' enumeration, which ends before the scores).
  mutable Eigen::VectorXd stationarity_scratch_, jt_nu_scratch_;
  // MinimizeOverMultipliers' scaled complementarity bounds c (S).
  mutable Eigen::VectorXd complementarity_scratch_;
  // LeastSquaresMultipliers' complementarity scales (S): ones, or 1 / D.
  mutable Eigen::VectorXd comp_scale_scratch_;
  // The residual Certificate(multipliers, floor) scores.
  mutable KktResidual residual_scratch_;
  // Unit vector and row for Linearize's dense J_h.
  Eigen::VectorXd unit_scratch_, row_scratch_;
  double rho_ = 0.0;
  Eigen::VectorXd lambda_;
  Eigen::VectorXd f_;
  Eigen::MatrixXd grad_f_;
  Eigen::VectorXd h_;
  // Dense J_h (q x k, or J_h P: q x k_t) when q and k are small enough; empty
  // otherwise.
  Eigen::MatrixXd dense_jacobian_;
  // What MinimizeOverMultipliers and LeastSquaresMultipliers() compute that
  // depends on the linearization only, kept until the next Linearize: a
  // certificate asks for the least-squares multipliers several times at
  // one point (raw, then scaled and refined twice), and at small k these
  // repeated decompositions were most of a solve.
  struct NuElimination {
    bool valid = false;
    Eigen::MatrixXd N;  // q x S: N_s = argmin ||G_s + J^T N_s||
    Eigen::MatrixXd R;  // k x S: G_s + J^T N_s (before weighting)
  };
  mutable NuElimination nu_elimination_;
  mutable bool have_raw_least_squares_ = false;
  mutable KktMultipliers raw_least_squares_;
  // The last CertificateLeastSquaresMultipliers(floor) and its floor
  // (valid while have_scaled_least_squares_): a strategy certifies with
  // them and ComputeKktReport reports them at the same point.
  mutable bool have_scaled_least_squares_ = false;
  mutable double scaled_floor_ = 0.0;
  mutable KktMultipliers scaled_least_squares_;
  // The elimination of nu for every objective (fills nu_elimination_).
  void EliminateNu() const;
  // D = max(|rho|, max_s lambda_s |f_s|) at this point.
  double ValueScale() const;
  // A model's predicted decrease less the weighted sum's rounding level,
  // over D (+inf when not finite).
  double RelativeModelDecrease(double predicted) const;
  static double kInfinity() { return std::numeric_limits<double>::infinity(); }
  // max_s |lambda_s f_s| before the offset, at the last Linearize.
  double evaluated_scale_ = 0.0;
  // ModelDecrease's Gauss-Newton branch.
  bool GaussNewtonModelDecrease(const KktMultipliers& multipliers,
                                double* decrease,
                                std::string* error) const;
  // ModelDecrease's Newton branch.
  bool NewtonModelDecrease(const KktMultipliers& multipliers,
                           double* decrease,
                           std::string* error) const;
  // The Gauss-Newton matrix and the stationarity scratch of ModelDecrease.
  mutable Eigen::SparseMatrix<double> model_matrix_;
  // Its factorization, kept for the symbolic analysis (the pattern is the
  // same at every point of a problem); shared by copies.
  mutable std::shared_ptr<internal::SparseLdlt> model_ldlt_;
};

// Both scorings of a point, as reported by every solver.
struct KktReport {
  KktMultipliers solver_multipliers;
  KktResidual with_solver_multipliers;
  KktMultipliers least_squares_multipliers;
  KktResidual with_least_squares_multipliers;
  // The certificate (see KktCertificate) with the solver's multipliers,
  // and with the multipliers that minimize the certificate's blocks in the
  // least-squares sense (KktSystem::CertificateLeastSquaresMultipliers);
  // stationarity_floor is the floor used. Filled by ComputeKktReport when
  // it is asked for certificates (has_certificates).
  bool has_certificates = false;
  double stationarity_floor = 0.0;
  KktCertificate certificate_with_solver_multipliers;
  KktMultipliers scaled_least_squares_multipliers;
  KktCertificate certificate_with_least_squares_multipliers;
  // The better of the two certificates for these tolerances (smaller
  // KktCertificate::Ratio).
  const KktCertificate& BestCertificate(
      double stationarity_tolerance,
      double complementarity_tolerance,
      double feasibility_tolerance,
      double model_tolerance = KktCertificate::kDefaultModelTolerance) const;
  // The multipliers behind BestCertificate with the same tolerances:
  // solver_multipliers or scaled_least_squares_multipliers.
  const KktMultipliers& BestMultipliers(
      double stationarity_tolerance,
      double complementarity_tolerance,
      double feasibility_tolerance,
      double model_tolerance = KktCertificate::kDefaultModelTolerance) const;
};

// What ComputeKktReport computes beyond the raw scores: the certificates
// (KktCertificate) with this floor, and the Gauss-Newton model's decrease
// where the evaluator has one (KktSystem::HasModel).
struct CertificateRequest {
  double stationarity_floor = 0.0;
  bool model = true;
  // The model's tolerance: a second model (of the other multipliers) is
  // formed only when the first misses it.
  double model_tolerance = KktCertificate::kDefaultModelTolerance;
  // The other tolerances, which decide where a Newton model is worth its
  // Hessian products (see ComputeKktReport).
  double stationarity_tolerance = 1e-6;
  double complementarity_tolerance = 1e-8;
  double feasibility_tolerance = 1e-8;
};

// The request of a solver's options: any Options with the certificate's
// fields (Solver::Options, IpoptReference::Options).
template <typename Options>
CertificateRequest CertificateRequestOf(const Options& options) {
  CertificateRequest request;
  request.stationarity_floor = options.stationarity_floor;
  request.model_tolerance = options.model_tolerance;
  request.stationarity_tolerance = options.stationarity_tolerance;
  request.complementarity_tolerance = options.complementarity_tolerance;
  request.feasibility_tolerance = options.feasibility_tolerance;
  return request;
}

// Adds the model's decrease to *certificate (of `multipliers` at the point
// of `system`) where it decides: where every block but stationarity meets
// the request's tolerances, with a Gauss-Newton model always, with a
// Newton model only when the relative stationarity block misses its
// tolerance (KktSystem::HasGaussNewtonModel / HasNewtonModel). Leaves it
// NaN otherwise.
void AddModelDecrease(const KktSystem& system,
                      const KktMultipliers& multipliers,
                      const CertificateRequest& request,
                      KktCertificate* certificate);

// Scores (rho, z) with the given multipliers and with the least-squares ones.
// With a certificate request it also fills the certificates; without one
// they stay at infinity (has_certificates false).
bool ComputeKktReport(Evaluator* evaluator,
                      const Eigen::VectorXd& lambda,
                      const Eigen::VectorXd& offset,
                      double rho,
                      const Eigen::VectorXd& z,
                      const KktMultipliers& solver_multipliers,
                      KktReport* report,
                      std::string* error,
                      const CertificateRequest* certificate = nullptr);
// The same at the point where `system` was linearized (its rho, z, lambda
// and offset), reusing what it has computed there: a solver that certified
// its point with a KktSystem hands it over instead of linearizing again.
// The evaluator the system holds must still be linearized at that point.
bool ComputeKktReport(const KktSystem& system,
                      const KktMultipliers& solver_multipliers,
                      KktReport* report,
                      std::string* error,
                      const CertificateRequest* certificate = nullptr);

}  // namespace ecmo

#endif  // ECMO_KKT_H_
