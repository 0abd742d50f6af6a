// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: diagnosis of quasi-Newton WC solves
// (wc_quasi_newton.cc) whose equality multipliers grew a lot.

#ifndef ECMO_INTERNAL_WC_DIAGNOSIS_H_
#define ECMO_INTERNAL_WC_DIAGNOSIS_H_

#include <string>

#include "Eigen/Core"
#include "ecmo/kkt.h"
#include "strategy.h"

namespace ecmo {
namespace internal {

// "%.3e".
std::string Sci(double x);

// Appends to *message why the equality multipliers grew, when it can tell:
// objectives so large that the penalty terms overflow, or a constraint
// Jacobian that is (nearly) rank-deficient along nu (LICQ failing; the
// test compares the Jacobian's gain along nu with its own largest gain at
// x and at the start point, so it is free of the objectives' and the
// constraints' units). x = (rho, z); `converged` words the note for a
// certified point. Costs up to three gradient evaluations and a few dozen
// Jacobian products; leaves the evaluator linearized at z.
void DiagnoseConstraintQualification(const StrategyInput& input,
                                     const Eigen::VectorXd& x,
                                     const KktMultipliers& multipliers,
                                     double first_multiplier_norm,
                                     bool converged,
                                     std::string* message);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_WC_DIAGNOSIS_H_
