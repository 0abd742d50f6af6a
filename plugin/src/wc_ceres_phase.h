// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the Ceres phase of StrategyType::WC_NEWTON
// (Solver::Options::NewtonOptions::ceres_phase): weighted sums solved by
// ceres::Solve through Evaluator::SolveWeightedLeastSquares, with an outer
// update of the weights that equalizes the Chebyshev terms.
#ifndef ECMO_INTERNAL_WC_CERES_PHASE_H_
#define ECMO_INTERNAL_WC_CERES_PHASE_H_

#include <string>

#include "Eigen/Core"
#include "strategy.h"

namespace ecmo {
namespace internal {

struct CeresPhaseResult {
  // False when the phase did not run or its first solve failed; z, omega
  // and nu are then meaningless and the Newton loop starts from input.z0.
  bool used = false;
  Eigen::VectorXd z;      // k, the last weighted-sum minimizer
  Eigen::VectorXd omega;  // S, on the simplex: the weights a = omega lambda
  Eigen::VectorXd nu;     // q, nu + mu h at z (augmented-Lagrangian update)
  double mu = 0.0;        // the last equality penalty
  double max_term = 0.0;  // max_s |c_s| at z
  int solves = 0;
  // Spread of the Chebyshev terms c_s = lambda_s (f_s - r_s) at z:
  // log(max c / min c) when all are positive, else (max c - min c) /
  // max |c|.
  double spread = 0.0;
  bool at_boundary = false;  // omega reached the simplex's boundary
  // Why it stopped, or why it was not used.
  std::string message;
};

// Runs the phase from input.z0 when the options ask for it and the
// evaluator supports it. Never fails the point: an error ends the phase
// (result->used tells whether its point is usable) and is reported in
// result->message.
void RunCeresPhase(const StrategyInput& input, CeresPhaseResult* result);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_WC_CERES_PHASE_H_
