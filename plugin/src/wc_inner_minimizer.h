// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the inner solvers of the WC outer loop
// (wc_quasi_newton.cc). The outer loop sets the penalties and multiplier
// shifts of the augmented Lagrangian Q(x), x = (rho, z) (WcReducedPenalty),
// and asks an InnerMinimizer to decrease it from the current x until the
// stop callback says the outer loop can take over. Two exist:
//
//   - L-BFGS (StrategyType::WC_PENALTY_LBFGS and WC_AUGMENTED_LAGRANGIAN),
//     first order, cheap per iteration: our bound-constrained BoxLbfgs
//     (box_lbfgs.h), or Ceres' GradientProblemSolver on manifolds
//     (wc_lbfgs_inner.cc says when);
//   - Newton: a Levenberg-Marquardt trust region on a second-order model of
//     Q (StrategyType::WC_NEWTON, wc_newton_inner.cc), with a sparse
//     Cholesky of the Gauss-Newton matrix or conjugate gradients on
//     Hessian products.
//
// Everything else (multiplier updates, penalties, stopping rules, the
// certificate, diagnoses) is the outer loop's and therefore the same for
// both.

#ifndef ECMO_INTERNAL_WC_INNER_MINIMIZER_H_
#define ECMO_INTERNAL_WC_INNER_MINIMIZER_H_

#include <memory>
#include <string>

#include "ceres/iteration_callback.h"
#include "ceres/types.h"
#include "ecmo/wc_reduced_penalty.h"
#include "strategy.h"

namespace ecmo {
namespace internal {

// Budget of one inner solve (what the outer loop has left).
struct InnerLimits {
  int max_iterations = 0;
  double max_time_in_seconds = 0.0;
};

struct InnerResult {
  // CONVERGENCE (the minimizer's own test), USER_SUCCESS (the stop callback
  // ended it), NO_CONVERGENCE (budget, or no further decrease possible) or
  // FAILURE.
  ceres::TerminationType termination_type = ceres::FAILURE;
  // Accepted steps, and those of them shortened by backtracking.
  int iterations = 0;
  int shortened_steps = 0;
  std::string message;
  // False when Q could not be evaluated at the start point.
  bool evaluated_start = false;
};

class InnerMinimizer {
 public:
  virtual ~InnerMinimizer() = default;
  // Decreases Q (the function given at construction, with its current
  // penalties and shifts) from x (size 1 + k) in place. `stop` is called
  // with the cost of every accepted iterate (ceres::IterationSummary::cost
  // is the only field read), as Ceres calls iteration callbacks; it ends
  // the solve with SOLVER_TERMINATE_SUCCESSFULLY.
  virtual InnerResult Minimize(const InnerLimits& limits,
                               ceres::IterationCallback* stop,
                               double* x) = 0;
  // For messages: "L-BFGS", "Newton".
  virtual const char* name() const = 0;
};

// `function` must outlive the minimizer; input.options holds the options.
std::unique_ptr<InnerMinimizer> MakeLbfgsInnerMinimizer(
    const StrategyInput& input, WcReducedPenalty* function);
std::unique_ptr<InnerMinimizer> MakeNewtonInnerMinimizer(
    const StrategyInput& input, WcReducedPenalty* function);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_WC_INNER_MINIMIZER_H_
