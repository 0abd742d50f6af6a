// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// The penalty function of the WC-Penalty method (paper, Eq. "WC-Penalty"):
//
//   P(rho, z, delta) = rho + u/2 ||h(z)||^2
//                      + v/2 sum_s (lambda_s f_s(z) + delta_s - rho)^2,
//
// and its gradient (paper, Eq. "gradients"):
//
//   dP/drho     = 1 - v sum_s r_s,           r_s = lambda_s f_s + delta_s - rho
//   dP/dz       = u J_h^T h + v sum_s r_s lambda_s grad f_s
//   dP/ddelta_s = v r_s.
//
// f is the shifted objective F + offset. Exposed so that tests and users can
// check the faithful strategy step by step.

#ifndef ECMO_WC_PENALTY_H_
#define ECMO_WC_PENALTY_H_

#include <string>

#include "Eigen/Core"
#include "ecmo/evaluator.h"

namespace ecmo {

struct PenaltyGradient {
  double rho = 0.0;
  Eigen::VectorXd z;
  Eigen::VectorXd delta;
};

// P from already evaluated shifted objectives f (S) and constraints h (q).
double WcPenaltyValue(const Eigen::VectorXd& lambda,
                      const Eigen::VectorXd& f,
                      const Eigen::VectorXd& h,
                      double u,
                      double v,
                      double rho,
                      const Eigen::VectorXd& delta);

// Evaluates the problem at z and returns P and (optionally) its gradient.
// Returns false (with a message) if the evaluation fails. gradient may be
// null for the value only.
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
                       std::string* error);

}  // namespace ecmo

#endif  // ECMO_WC_PENALTY_H_
