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

const char* StrategyTypeToString(StrategyType type);
bool StringToStrategyType(std::string value, StrategyType* type);
// All valid strategy names, for error messages and --help.
std::vector<std::string> StrategyTypeNames();

const char* StepRuleToString(StepRule rule);
bool StringToStepRule(std::string value, StepRule* rule);

// Returns Ceres' name of the termination type ("CONVERGENCE", ...).
const char* TerminationTypeName(TerminationType type);

// True for CONVERGENCE, NO_CONVERGENCE and USER_SUCCESS, as in Ceres:
// the returned point is a meaningful (if possibly inexact) answer.
bool IsSolutionUsable(TerminationType type);

}  // namespace ecmo

#endif  // ECMO_TYPES_H_
