// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
//
// The second-order test of a WC point: is the certified first-order point a
// local minimizer of the WC problem, or a saddle?
//
// The KKT certificate (ecmo/kkt.h) is first order: it also certifies
// saddles, points where a feasible curve leaves with decreasing rho (a
// warm-started sweep can land on one from a neighbour's side; so can a
// start on a symmetry plane, where the gradients have no component that
// could break the symmetry). What separates them is the curvature of the
// Lagrangian
//
//   L(z) = sum_s omega_s lambda_s f_s(z) + nu^T c(z)
//
// (c = (h, g), lambda the effective weights of the scalarization) on the
// critical cone: the directions d that keep every strongly active
// constraint to first order (J_h d = 0; lambda_s grad f_s . d equal for
// the objectives with omega_s > 0, which the rho step then follows; the
// inequalities and bounds with a positive multiplier) and do not violate
// the weakly active ones (an objective at rho with omega_s = 0, an
// inequality at 0 with mu_j = 0, a parameter at its bound with a zero
// multiplier: moving it inward is allowed). A point is second-order
// critical when d^T grad^2 L d >= 0 on that cone.
//
// AnalyzeSecondOrder computes the smallest eigenvalue of grad^2 L reduced
// to the span of the cone's largest face through the point, and moves a
// weakly active constraint into that span's equalities only when the
// eigenvector crosses it, until the eigenvector lies in the cone or its
// eigenvalue is not negative. Dense (an orthonormal basis of the subspace,
// one Hessian product per basis vector, a symmetric eigensolve) when the
// subspace has at most `max_dense_dimension` dimensions; Lanczos with full
// reorthogonalization on the projected Hessian products above. Lanczos'
// smallest Ritz value is never below the smallest eigenvalue, so it can
// miss negative curvature but never invents it.
//
// Not computed with a manifold (the curvature of the retraction would be
// needed) or when the evaluator cannot give Hessian products; the report
// says why.

#ifndef ECMO_SECOND_ORDER_H_
#define ECMO_SECOND_ORDER_H_

#include <limits>
#include <string>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"

namespace ecmo {

struct SecondOrderOptions {
  // A curvature counts as negative when it is below -tolerance times the
  // larger of the reduced Hessian's largest |eigenvalue| found and the
  // Lagrangian gradient's largest term over (1 + ||z||_inf) (the level of
  // gradient-difference noise in a Hessian product). In (0, 1).
  double negative_curvature_tolerance = 1e-6;
  // Subspaces of at most this many dimensions are analyzed densely (exact
  // smallest eigenvalue, one Hessian product per dimension); larger ones
  // by Lanczos. >= 0.
  int max_dense_dimension = 50;
  // Lanczos iterations (Hessian products) per subspace. >= 1.
  int max_lanczos_iterations = 30;
  // Solve only (Solver::Options::second_order): the test's Hessian
  // products are capped at this fraction of the solve's own gradient
  // evaluations (a product by gradient differences counts as two), and at
  // least min_hessian_products, so that the test adds about that fraction
  // to a certified point's work. A span within the cap is analyzed
  // densely, a larger one by Lanczos with the cap's iterations (which
  // still finds a clearly negative curvature, but may miss a faint one).
  // 0: no cap beyond the two limits above. >= 0 and finite; >= 1.
  double max_work_fraction = 0.1;
  int min_hessian_products = 2;
};

struct SecondOrderReport {
  // Whether the test ran; otherwise why not (empty when it ran).
  bool computed = false;
  std::string not_computed_reason;
  // The smallest eigenvalue found of grad^2 L on the span analyzed last,
  // in the objectives' units per squared parameter unit; +inf when that
  // span is {0} (the active constraints pin the point down).
  double min_eigenvalue = std::numeric_limits<double>::quiet_NaN();
  // The scale the negative-curvature tolerance is relative to (see
  // SecondOrderOptions::negative_curvature_tolerance).
  double curvature_scale = std::numeric_limits<double>::quiet_NaN();
  // Dimension of the span analyzed last, and of the first one (the
  // critical cone's span, with every weakly active constraint free).
  int reduced_dimension = 0;
  int cone_span_dimension = 0;
  // Weakly active constraints (objectives, inequalities, bounds) found at
  // the point, and how many of them a direction crossed (held at
  // equality afterwards).
  int num_weakly_active = 0;
  int num_weakly_active_held = 0;
  // True when the last span was analyzed by Lanczos (its smallest Ritz
  // value is an upper bound of the smallest eigenvalue).
  bool lanczos = false;
  int hessian_products = 0;
  // A saddle: min_eigenvalue is negative beyond the tolerance and
  // `direction` (size k, unit 2-norm, in the critical cone) is its
  // eigenvector.
  bool saddle = false;
  Eigen::VectorXd direction;
  // Set by Solve (Solver::Options::second_order_check) instead of `saddle`
  // when no step along `direction` lowered the Lagrangian by more than the
  // rounding of its value, or a restart from that step came back to the
  // same rho (within 1e-6 of the weighted values): the negative curvature
  // is within the noise of the Hessian products (e.g. gradient
  // differences of a flat, saturated region, or of inexact gradients) or
  // too faint to lead anywhere, and the point stays CONVERGENCE.
  bool negative_curvature_unconfirmed = false;
  // With Solver::Options::second_order_check: how many times Solve
  // restarted along such a direction before it returned.
  int saddle_escapes = 0;
};

// Analyzes the WC point (rho, z) of `evaluator` for effective weights
// `lambda` (size S, lambda_s = preference_s / w_s) and objective offset
// `offset` (size S, = -r), with `multipliers` (omega, nu and the bound
// multipliers, as KktReport holds them; a multiplier vector of the wrong
// size counts as zeros). Linearizes the evaluator at z. False with a
// message when an evaluation or a Hessian product fails, or a size is
// wrong; true otherwise (report->computed says whether the test ran).
bool AnalyzeSecondOrder(const SecondOrderOptions& options,
                        Evaluator* evaluator,
                        const Eigen::VectorXd& lambda,
                        const Eigen::VectorXd& offset,
                        double rho,
                        const Eigen::VectorXd& z,
                        const KktMultipliers& multipliers,
                        SecondOrderReport* report,
                        std::string* error);

}  // namespace ecmo

#endif  // ECMO_SECOND_ORDER_H_
