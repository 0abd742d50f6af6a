// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Diagnosis of a quasi-Newton WC solve whose equality multipliers grew:
// LICQ failing (a rank-deficient constraint Jacobian) or objectives so large
// that the penalty terms overflow (wc_diagnosis.h).

#include "wc_diagnosis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ecmo {
namespace internal {
namespace {

// The largest singular value of J_h at the last linearization point, by
// power iteration on J_h J_h^T (products only; 30 steps are plenty for a
// threshold test).
double LargestSingularValue(Evaluator* evaluator, int k, int q) {
  Eigen::VectorXd u = Eigen::VectorXd::Ones(q) / std::sqrt(q);
  Eigen::VectorXd jt_u(k), jj_u(q);
  double sigma = 0.0;
  for (int i = 0; i < 30; ++i) {
    evaluator->JacobianTransposeMultiply(u.data(), jt_u.data());
    sigma = jt_u.norm();
    if (!(sigma > 0.0) || !std::isfinite(sigma)) return sigma;
    evaluator->JacobianMultiply(jt_u.data(), jj_u.data());
    const double n = jj_u.norm();
    if (!(n > 0.0)) return sigma;
    u = jj_u / n;
  }
  return sigma;
}

// The largest singular value of J_h at the current point x and at the start
// point (the larger of the two); leaves the evaluator linearized at x.
double JacobianScale(Evaluator* evaluator,
                     const StrategyInput& input,
                     const Eigen::VectorXd& x,
                     int k,
                     int S,
                     int q) {
  double scale = LargestSingularValue(evaluator, k, q);
  Eigen::VectorXd f(S), h(q);
  Eigen::MatrixXd grad_f(k, S);
  std::string error;
  if (evaluator->Evaluate(input.z0.data(), f.data(), h.data(), grad_f.data(),
                          &error)) {
    scale = std::max(scale, LargestSingularValue(evaluator, k, q));
  }
  evaluator->Evaluate(x.data() + 1, f.data(), h.data(), grad_f.data(), &error);
  return scale;
}

}  // namespace

std::string Sci(double x) { return FormatScientific(x, 3); }

// LICQ diagnosis, when the equality multipliers grew a lot: if the gain
// ||J_h^T nu|| / ||nu|| of the Jacobian along nu is tiny next to its
// largest gain here or at the start point (a ratio of the Jacobian with
// itself: neither the objectives' size nor the constraints' units matter;
// the start point catches Jacobians that vanish on the feasible set), J_h
// is (nearly) rank-deficient along nu. A well-posed constraint whose
// multiplier is simply large (an anchor h = z - z0 against objectives of
// size 1e6) is not flagged. Costs two gradient evaluations and a few
// dozen Jacobian products, only in that case.
void DiagnoseConstraintQualification(const StrategyInput& input,
                                     const Eigen::VectorXd& x,
                                     const KktMultipliers& multipliers,
                                     double first_multiplier_norm,
                                     bool converged,
                                     std::string* message) {
  Evaluator* evaluator = input.evaluator;
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  Eigen::VectorXd f(S), h(q), jt_nu(k);
  Eigen::MatrixXd grad_f(k, S);
  std::string error;
  if (evaluator->Evaluate(
          x.data() + 1, f.data(), h.data(), grad_f.data(), &error)) {
    evaluator->JacobianTransposeMultiply(multipliers.nu.data(), jt_nu.data());
    if (const ceres::Manifold* m = evaluator->manifold()) {
      // Tangent components only, as in the KKT residual.
      Eigen::VectorXd t(m->TangentSize());
      Eigen::MatrixXd grad_t(m->TangentSize(), S);
      if (m->RightMultiplyByPlusJacobian(
              x.data() + 1, 1, jt_nu.data(), t.data()) &&
          m->RightMultiplyByPlusJacobian(
              x.data() + 1, S, grad_f.data(), grad_t.data())) {
        jt_nu = t;
        grad_f = grad_t;
      }
    }
    // stableNorm: objectives near the overflow limit must not turn the
    // scale into inf and the diagnosis into a false LICQ report.
    const double nu_norm = multipliers.nu.stableNorm();
    const double sigma = jt_nu.stableNorm() / nu_norm;
    double scale = 0.0;
    for (int s = 0; s < S; ++s) {
      scale = std::max(scale, input.lambda[s] * grad_f.col(s).stableNorm());
    }
    const double largest_objective = f.cwiseAbs().maxCoeff();
    if (!std::isfinite(scale) || !(largest_objective <= 1e150)) {
      *message +=
          " The objectives are so large (|f| = " + internal::Sci(largest_objective) +
          ", gradients " + internal::Sci(scale) +
          ") that the penalty terms overflow; scale them (e.g. divide by a "
          "constant) or change units.";
    } else if (sigma < 1e-2 * JacobianScale(evaluator, input, x, k, S, q)) {
      std::ostringstream os;
      os << (converged ? " Note: t"
                                                            : " T")
         << "he equality multiplier grew to ||nu|| = " << internal::Sci(nu_norm)
         << " (first estimate " << internal::Sci(first_multiplier_norm)
         << ") while ||J_h^T nu|| / ||nu|| = " << internal::Sci(sigma)
         << " is tiny next to the objective gradients (" << internal::Sci(scale)
         << "): the constraint Jacobian is (nearly) rank-deficient here, "
            "i.e. LICQ fails or almost fails. ";
      if (converged) {
        os << "||K||^2 then certifies only approximate stationarity, and "
              "z may be much farther from an exact KKT point than "
              "||K|| suggests.";
      } else {
        os << "No finite multipliers may satisfy the KKT system, so "
              "||K||^2 cannot reach the tolerance; the point may still be "
              "a (Fritz John) stationary point: check ||h|| and the "
              "objectives.";
      }
      *message += os.str();
    }
  }
}

}  // namespace internal
}  // namespace ecmo
