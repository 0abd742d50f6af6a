// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/wc_penalty.h"

namespace ecmo {

double WcPenaltyValue(const Eigen::VectorXd& lambda,
                      const Eigen::VectorXd& f,
                      const Eigen::VectorXd& h,
                      double u,
                      double v,
                      double rho,
                      const Eigen::VectorXd& delta) {
  const Eigen::VectorXd r = (lambda.cwiseProduct(f) + delta).array() - rho;
  return rho + 0.5 * u * h.squaredNorm() + 0.5 * v * r.squaredNorm();
}

bool EvaluateWcPenalty(Evaluator* evaluator,
                       const Eigen::VectorXd& lambda,
                       const Eigen::VectorXd& offset,
                       double u,
                       double v,
                       double rho,
                       const Eigen::VectorXd& z,
                       const Eigen::VectorXd& delta,
                       double* value,
                       PenaltyGradient* gradient,
                       std::string* error) {
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  Eigen::VectorXd f(S), h(q);
  Eigen::MatrixXd grad_f;
  if (gradient != nullptr) grad_f.resize(k, S);
  if (!evaluator->Evaluate(z.data(), f.data(), h.data(),
                           gradient != nullptr ? grad_f.data() : nullptr,
                           error)) {
    return false;
  }
  if (offset.size() == S) f += offset;
  *value = WcPenaltyValue(lambda, f, h, u, v, rho, delta);
  if (gradient != nullptr) {
    const Eigen::VectorXd r = (lambda.cwiseProduct(f) + delta).array() - rho;
    gradient->rho = 1.0 - v * r.sum();
    gradient->z = grad_f * (v * r.cwiseProduct(lambda));
    if (q > 0) {
      Eigen::VectorXd jt(k);
      const Eigen::VectorXd uh = u * h;
      evaluator->JacobianTransposeMultiply(uh.data(), jt.data());
      gradient->z += jt;
    }
    gradient->delta = v * r;
  }
  return true;
}

}  // namespace ecmo
