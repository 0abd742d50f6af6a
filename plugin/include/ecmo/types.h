// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Enums shared by every solver strategy, with Ceres-style string helpers:
// XToString returns a stable name, StringToX parses it case-insensitively
// (and accepts '-' and '_' interchangeably) and returns false on unknown
// names, so command-line tools can map flags onto options without aborting.

#ifndef ECMO_TYPES_H_
#define ECMO_TYPES_H_

#include <string>
#include <vector>

#include "ceres/types.h"

namespace ecmo {

// Termination types are Ceres' own (CONVERGENCE, NO_CONVERGENCE, FAILURE,
// USER_SUCCESS, USER_FAILURE) so that code that already switches on
// ceres::TerminationType keeps working.
using ceres::TerminationType;
using ceres::CallbackReturnType;

// The solver strategies for one weighted-Chebyshev (WC) subproblem.
enum class StrategyType {
  // The default: WC_SQP for small problems it takes (at most
  // kAutomaticSqpMaxParameters parameters, equality constraints only, no
  // bounds, in R^k); above that size WC_NEWTON when the objectives are sums
  // of squared residuals (Evaluator::HasGaussNewtonMatrix, e.g. a
  // CeresProblemAdapter: on real pose graphs the augmented Lagrangian
  // certified none of 22 points, 7-12 s each, where WC_NEWTON certifies all
  // in 0.03-1.2 s, benchmarks/README.md), and also when the evaluator has
  // exact Hessian-of-the-Lagrangian products and equality constraints
  // (Evaluator::HasExactLagrangianHessian, e.g. an MtblEvaluator: a bilevel
  // problem in the full space, where the augmented Lagrangian certified
  // points at a saturated softmax 40-64% worse in their own WC value);
  // WC_AUGMENTED_LAGRANGIAN for everything else. On small
  // problems SQP's second-order steps need 5-8x fewer evaluations than the
  // augmented Lagrangian's first-order inner solves and are faster per
  // point; its dense O(k^3) iterations lose from about 10 parameters on
  // (benchmarks/README.md, "Small problems"). When WC_SQP chosen this way
  // does not converge, the solve is repeated by WC_AUGMENTED_LAGRANGIAN
  // from the same start and the better of the two is reported
  // (Solver::Summary::strategy says which; strategy_choice says why).
  AUTOMATIC,
  // Algorithm 1 of the paper: projected gradient on the penalty
  // P = rho + u/2 ||h||^2 + v/2 sum_s (lambda_s f_s + delta_s - rho)^2 over
  // (rho, z, delta >= 0) with the schedule eta = eta0 T^(-1/4),
  // u = v = c0 T^(1/4). Slow (the running average of ||K||^2 decays like
  // T^(-1/2)) but faithful, so the paper's claims can be checked.
  // Euclidean only: problems whose z lives on a manifold (Evaluator::
  // manifold(), ecmo/manifold.h) are refused with a FAILURE.
  WC_PENALTY_PGD,
  // Slack-eliminated penalty with continuation. For fixed (rho, z) the best
  // slack is delta_s = max(0, rho - lambda_s f_s), which turns P into the C^1
  // unconstrained function of x = (rho, z)
  //   Q(x) = rho + u/2 ||h||^2 + v/2 sum_s max(0, lambda_s f_s - rho)^2.
  // Q is minimized by Ceres' GradientProblemSolver (L-BFGS, Wolfe line
  // search), warm-started, while u = v grows geometrically until ||K||^2 with
  // the penalty multipliers omega_s = v max(0, lambda_s f_s - rho), nu = u h
  // is below the tolerance. ||K||^2 falls like 1/u^2, so tight tolerances
  // need large penalties (ill-conditioned inner problems): use
  // WC_AUGMENTED_LAGRANGIAN for those. Matrix-free: needs F, grad f_s, h and
  // J_h^T v only. Steps on the manifold of z when there is one.
  WC_PENALTY_LBFGS,
  // Method of multipliers on the WC problem: minimizes
  //   L_A(x) = rho + sum_s v/2 [max(0, lambda_s f_s - rho + omega_s/v)^2
  //                             - (omega_s/v)^2] + nu^T h + u/2 ||h||^2
  // with the same inner solver, then updates omega <- max(0, omega +
  // v (lambda f - rho)), nu <- nu + u h; the penalties grow only when
  // feasibility stalls, and are bounded. Converges linearly with bounded
  // penalties to tight tolerances; the fastest robust strategy. Steps on
  // the manifold of z when there is one.
  WC_AUGMENTED_LAGRANGIAN,
  // The same method of multipliers (same outer loop, penalty rules, stopping
  // rule and certificate) with second-order inner solves: a trust-region
  // (Levenberg-Marquardt) Newton method on L_A, whose model Hessian is
  //   blockdiag(0, G) + v sum_{s active} w_s w_s^T,  w_s = (-1, lambda_s
  //   grad f_s),
  // with G = u J_h^T J_h + the curvature of the Lagrangian. For objectives
  // that are sums of squared residuals (CeresProblemAdapter) G is the sparse
  // Gauss-Newton matrix, factorized by a sparse Cholesky whose symbolic
  // analysis is reused, and the rank-S Chebyshev part is added exactly by
  // the Woodbury identity (never as dense rows in the factorization); for
  // other evaluators the step is truncated conjugate gradients on Hessian-
  // vector products (exact when the evaluator provides them, e.g. a bilevel
  // lower level, gradient differences otherwise). Not defeated by ill-
  // conditioned problems (pose graphs, logistic lower levels) where L-BFGS
  // inner solves stall. Options in Solver::Options::newton. Steps on the
  // manifold of z when there is one.
  WC_NEWTON,
  // Sequential quadratic programming on the WC problem itself (no penalty
  // or augmented-Lagrangian outer loop): each iteration solves
  //   min_d max_s lambda_s (f_s + grad f_s^T d) + 1/2 d^T B d,
  //   h + J_h d = 0,
  // exactly (through its dual over the simplex of the objective weights),
  // and backtracks on the exact penalty max_s lambda_s f_s + mu ||h||_1
  // with a second-order correction. B is a damped BFGS approximation of
  // the Hessian of the Lagrangian, or the exact one assembled from k
  // Hessian products (Solver::Options::sqp). The QP's multipliers are the
  // estimates, so the certificate is checked at every iterate for free.
  // Few evaluations (like SLSQP: about 10-20 on small smooth problems) at
  // O(k^2) memory and O(k^3) work per iteration: for small and medium
  // problems (k up to sqp.max_parameters, 2,000 by default); matrix-free
  // WC_NEWTON or WC_AUGMENTED_LAGRANGIAN beyond. Equality constraints in
  // R^k only: refuses inequality constraints, bounds and manifolds.
  WC_SQP,
};

// Inequality constraints c(z) <= 0 and bounds l <= z <= u (ecmo/problem.h):
//   WC_PENALTY_PGD           bounds (steps projected onto the box); refuses
//                            inequalities (the paper's Algorithm 1 has
//                            none);
//   WC_PENALTY_LBFGS,
//   WC_AUGMENTED_LAGRANGIAN  inequalities (slack-eliminated like the WC
//                            ones, multipliers >= 0) and bounds (inner
//                            solves by the projected L-BFGS of
//                            box_lbfgs.h; not with
//                            quasi_newton.use_ceres_inner_solver);
//   WC_NEWTON                both: inequalities as above (curvature for
//                            the active rows only), bounds by projected
//                            Newton steps (an epsilon-active set);
//   WC_SQP                   neither (equality constraints only).
// Bounds on a manifold block are refused everywhere. A refused combination
// ends the solve with FAILURE and a message naming what does take it.

// Curvature used by StrategyType::WC_NEWTON (Solver::Options::newton).
enum class NewtonHessianType {
  // GAUSS_NEWTON when the evaluator has the structure
  // (Evaluator::HasGaussNewtonMatrix), otherwise EXACT_PRODUCTS.
  AUTOMATIC,
  // The sparse Gauss-Newton matrix of the residuals (sum of squares only);
  // drops the residuals' and the constraints' second derivatives, as
  // Ceres' Levenberg-Marquardt does.
  GAUSS_NEWTON,
  // Products with the Hessian of the Lagrangian
  // (Evaluator::LagrangianHessianMultiply: exact when the evaluator
  // provides them, gradient differences otherwise).
  EXACT_PRODUCTS,
};

// Linear solver of StrategyType::WC_NEWTON.
enum class NewtonLinearSolverType {
  // SPARSE_CHOLESKY with a Gauss-Newton matrix, CONJUGATE_GRADIENTS with
  // Hessian products.
  AUTOMATIC,
  // Sparse Cholesky (LDL^T with an approximate minimum degree ordering) of
  // the Gauss-Newton matrix plus damping, and the Woodbury identity for the
  // rank-S Chebyshev part and rho. Needs GAUSS_NEWTON.
  SPARSE_CHOLESKY,
  // The same with a dense Cholesky (small problems).
  DENSE_CHOLESKY,
  // Steihaug-Toint truncated conjugate gradients on Hessian products
  // (matrix-free; stops at negative curvature or the trust region's
  // boundary).
  CONJUGATE_GRADIENTS,
};

// Curvature used by StrategyType::WC_SQP (Solver::Options::sqp).
enum class SqpHessianType {
  // Up to sqp.max_parameters: EXACT_PRODUCTS when the evaluator provides
  // exact Hessian products (Evaluator::HasExactLagrangianHessian),
  // otherwise BFGS. Above: LBFGS.
  AUTOMATIC,
  // Damped BFGS (Powell) on the gradient of the Lagrangian: one gradient
  // evaluation per iteration, superlinear near a solution.
  BFGS,
  // The Hessian of the Lagrangian from k products per iteration
  // (Evaluator::LagrangianHessianMultiply: exact when the evaluator
  // provides them, gradient differences otherwise), made positive definite
  // by a multiple of J_h^T J_h and, if needed, a diagonal shift. Quadratic
  // convergence, k products per iteration: pays off on ill-conditioned
  // problems when the products are cheap.
  EXACT_PRODUCTS,
  // Limited-memory BFGS on the gradient of the Lagrangian (the last
  // sqp.lbfgs_memory steps; a step of non-positive curvature is skipped):
  // one gradient evaluation per iteration, O(k lbfgs_memory) memory and
  // work, no k x k matrix, so no limit on k. AUTOMATIC uses it above
  // sqp.max_parameters.
  LBFGS,
};

// How the faithful strategy picks its step.
enum class StepRule {
  // eta_t = eta for every t, exactly as Algorithm 1. Diverges when
  // eta * L_P > 2, where L_P is the Lipschitz constant of grad P.
  FIXED,
  // Start from eta each iteration and halve the step until the projected
  // step decreases P by an Armijo margin. Never longer than the fixed step,
  // so it reduces to Algorithm 1 whenever the fixed step is safe.
  BACKTRACKING,
};

// StrategyType::AUTOMATIC chooses WC_SQP up to this many parameters, and
// hands a point over to WC_AUGMENTED_LAGRANGIAN when WC_SQP has not
// converged within this many iterations (or Options::max_iterations, if
// smaller).
constexpr int kAutomaticSqpMaxParameters = 10;
constexpr int kAutomaticSqpMaxIterations = 200;

const char* StrategyTypeToString(StrategyType type);
bool StringToStrategyType(std::string value, StrategyType* type);
// All valid strategy names, for error messages and --help.
std::vector<std::string> StrategyTypeNames();

const char* StepRuleToString(StepRule rule);
bool StringToStepRule(std::string value, StepRule* rule);

const char* NewtonHessianTypeToString(NewtonHessianType type);
bool StringToNewtonHessianType(std::string value, NewtonHessianType* type);
const char* SqpHessianTypeToString(SqpHessianType type);
bool StringToSqpHessianType(std::string value, SqpHessianType* type);
const char* NewtonLinearSolverTypeToString(NewtonLinearSolverType type);
bool StringToNewtonLinearSolverType(std::string value,
                                    NewtonLinearSolverType* type);

// Returns Ceres' name of the termination type ("CONVERGENCE", ...).
const char* TerminationTypeName(TerminationType type);

// True for CONVERGENCE, NO_CONVERGENCE and USER_SUCCESS, as in Ceres:
// the returned point is a meaningful (if possibly inexact) answer.
bool IsSolutionUsable(TerminationType type);

}  // namespace ecmo

#endif  // ECMO_TYPES_H_
