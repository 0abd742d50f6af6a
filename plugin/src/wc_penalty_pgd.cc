// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Algorithm 1 of the paper (WC-Penalty), kept faithful so that its claims can
// be checked: projected gradient on
//
//   P(theta) = rho + u/2 ||h(z)||^2 + v/2 sum_s (lambda_s f_s(z) + delta_s -
//   rho)^2
//
// over theta = (rho, z, delta) with delta >= 0, step eta = eta0 T^(-1/4) and
// u = v = c0 T^(1/4). The multipliers are omega = v (lambda f + delta - rho)
// and nu = u h, so the KKT blocks come for free from the gradient:
// sum omega - 1 = -dP/drho and the stationarity block equals dP/dz.
// Euclidean only: evaluators with a manifold are refused (FAILURE). With
// bounds l <= z <= u (ecmo/problem.h) the z-step is projected onto the box,
// the natural projection of the algorithm (delta >= 0 is one already), and
// the bounds' multipliers are those ecmo::BoundMultiplier credits.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ecmo/wc_penalty.h"
#include "strategy.h"

namespace ecmo {
namespace internal {
namespace {

struct PenaltyState {
  double rho = 0.0;
  Eigen::VectorXd z;
  Eigen::VectorXd delta;
};

// P at theta from already evaluated shifted objectives f and constraints h.
double PenaltyValue(const PenaltyState& theta,
                    const Eigen::VectorXd& lambda,
                    const Eigen::VectorXd& f,
                    const Eigen::VectorXd& h,
                    double u,
                    double v) {
  return WcPenaltyValue(lambda, f, h, u, v, theta.rho, theta.delta);
}

double SquaredDistance(const PenaltyState& a, const PenaltyState& b) {
  return (a.rho - b.rho) * (a.rho - b.rho) + (a.z - b.z).squaredNorm() +
         (a.delta - b.delta).squaredNorm();
}

}  // namespace

void RunWcPenaltyPgd(const StrategyInput& input,
                     StrategyOutput* output,
                     Solver::Summary* summary) {
  const Solver::Options& options = *input.options;
  const Solver::Options::PenaltyGradientOptions& pgd = options.pgd;
  Evaluator* evaluator = input.evaluator;
  const Eigen::VectorXd& lambda = input.lambda;
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();

  if (evaluator->manifold() != nullptr) {
    // Projected gradient steps z - eta grad would leave the manifold, and
    // the paper's analysis is Euclidean: refuse rather than return a point
    // off the manifold.
    output->termination_type = ceres::FAILURE;
    output->message =
        "WC_PENALTY_PGD cannot optimize on a manifold: parameter blocks of "
        "this problem have a ceres::Manifold (e.g. a quaternion or sphere), "
        "and the paper's projected gradient steps would leave it. Use "
        "StrategyType::WC_AUGMENTED_LAGRANGIAN or WC_PENALTY_LBFGS "
        "(--strategy=wc-augmented-lagrangian), which step on the manifold, "
        "or replace the manifold by an equality constraint (e.g. "
        "||q||^2 - 1 = 0).";
    return;
  }
  const double T = options.max_iterations;
  const double eta = pgd.eta0 * std::pow(T, -0.25);
  const double u = pgd.c0 * std::pow(T, 0.25);
  const double v = u;
  summary->eta = eta;
  summary->penalty_u = u;
  summary->penalty_v = v;
  summary->step_rule = pgd.step_rule;
  summary->num_shortened_steps = 0;

  PenaltyState theta;
  theta.rho = input.rho0;
  theta.z = input.z0;
  // delta_0 = rho_0 - lambda f(z_0), projected: the start satisfies the slack
  // equations exactly where it can.
  Eigen::VectorXd f(S), h(q);
  Eigen::MatrixXd grad_f(k, S);
  std::string error;
  if (!EvaluateShifted(
          evaluator, input.offset, theta.z, &f, &h, nullptr, &error)) {
    output->termination_type = ceres::FAILURE;
    output->message = error;
    return;
  }
  theta.delta = (theta.rho - lambda.cwiseProduct(f).array()).max(0.0).matrix();

  PenaltyState trial;
  Eigen::VectorXd f_trial(S), h_trial(q), jt_nu(k), omega(S), nu(q);
  double kkt_sum = 0.0;
  int iteration = 0;
  output->termination_type = ceres::NO_CONVERGENCE;

  auto finish = [&](TerminationType type, const std::string& message) {
    output->termination_type = type;
    output->message = message;
  };

  if (options.minimizer_progress_to_stdout) {
    std::printf("%6s %14s %12s %12s %12s %12s %10s %10s\n",
                "iter",
                "penalty",
                "rho",
                "|h|",
                "|K|^2",
                "avg|K|^2",
                "step",
                "time");
  }

  for (iteration = 0;; ++iteration) {
    // Gradient, multipliers and K at theta_t.
    if (!EvaluateShifted(
            evaluator, input.offset, theta.z, &f, &h, &grad_f, &error)) {
      finish(ceres::FAILURE,
             "Iteration " + std::to_string(iteration) + ": " + error);
      break;
    }
    // Unboundedness is judged on nearly feasible iterates only: infeasible
    // ones may sit anywhere below the reference point. rho far below every
    // attainable value is evidence for any reference point; with the
    // paper's form (an offset or a given reference point, which the user
    // asserts to lie below the front) so is an objective below it.
    const double h_inf = q > 0 ? h.cwiseAbs().maxCoeff() : 0.0;
    if (h_inf <= kNearlyFeasible) {
      if (IsUnboundedEvidence(input, theta.rho, h_inf)) {
        finish(ceres::FAILURE,
               "Iteration " + std::to_string(iteration) + ": " +
                   UnboundedMessage(theta.rho, h_inf, input.rho_floor));
        break;
      }
      int below = -1;
      for (int s = 0; s < S && below < 0 && input.reference_is_lower_bound;
           ++s) {
        if (f[s] <= 0.0) below = s;
      }
      if (below >= 0) {
        std::ostringstream os;
        os << "Iteration " << iteration << ": objective " << below
           << " fell to " << f[below] - input.offset[below]
           << ", below the reference point r = " << -input.offset[below]
           << ", at a nearly feasible point (||h||_inf = " << h_inf
           << "). The objective is likely unbounded below on the feasible "
              "set; if it is bounded, lower the reference point "
              "(Solver::Options::reference_point or raise objective_offset["
           << below << "]) below its infimum.";
        finish(ceres::FAILURE, os.str());
        break;
      }
    }
    const Eigen::VectorXd r =
        (lambda.cwiseProduct(f) + theta.delta).array() - theta.rho;
    omega = v * r;
    nu = u * h;
    if (q > 0) {
      evaluator->JacobianTransposeMultiply(nu.data(), jt_nu.data());
    } else {
      jt_nu.setZero();
    }
    // dP/dz = sum omega lambda grad f + J_h^T nu; with bounds the step is
    // projected onto the box, and the bounds are credited with the
    // multipliers ecmo::BoundMultiplier gives for that gradient.
    const Eigen::VectorXd grad_z = grad_f * lambda.cwiseProduct(omega) + jt_nu;
    KktMultipliers multipliers;
    multipliers.omega = omega;
    multipliers.nu = nu;
    if (evaluator->HasBounds()) {
      CreditBoundMultipliers(grad_z,
                             theta.z,
                             evaluator->lower_bounds(),
                             evaluator->upper_bounds(),
                             &multipliers.bound_lower,
                             &multipliers.bound_upper);
    }
    // Without bounds (empty lower / upper) this is the equality-only K.
    const KktResidual kkt = ComputeKktResidual(theta.rho,
                                               lambda,
                                               f,
                                               grad_f,
                                               h,
                                               0,
                                               jt_nu,
                                               multipliers,
                                               theta.z,
                                               evaluator->lower_bounds(),
                                               evaluator->upper_bounds());
    const double kkt_sq = kkt.SquaredNorm();
    const double penalty = PenaltyValue(theta, lambda, f, h, u, v);
    if (!std::isfinite(penalty) || !std::isfinite(kkt_sq) ||
        std::abs(penalty) > 1e150) {
      std::ostringstream os;
      os << "Iteration " << iteration
         << ": the penalty diverged (P = " << penalty
         << "). The step eta = " << eta
         << " is too long for this problem's curvature; use "
            "step_rule=backtracking or a smaller eta0.";
      finish(ceres::FAILURE, os.str());
      break;
    }
    output->multipliers = multipliers;

    if (iteration >= options.max_iterations) {
      // theta_T is scored but not part of the theorem's average over
      // t = 0..T-1.
      std::ostringstream os;
      os << "Maximum number of iterations reached (T = "
         << options.max_iterations << "); ||K_T||^2 = " << kkt_sq << ".";
      finish(ceres::NO_CONVERGENCE, os.str());
      break;
    }
    kkt_sum += kkt_sq;
    const double average = kkt_sum / (iteration + 1);
    if (options.kkt_tolerance > 0.0 && kkt_sq <= options.kkt_tolerance) {
      std::ostringstream os;
      os << "||K||^2 = " << kkt_sq
         << " <= kkt_tolerance = " << options.kkt_tolerance << ".";
      finish(ceres::CONVERGENCE, os.str());
      output->average_kkt_residual_sq = average;
      break;
    }
    if (input.timer->Seconds() > options.max_solver_time_in_seconds) {
      finish(ceres::NO_CONVERGENCE, "Maximum solver time reached.");
      output->average_kkt_residual_sq = average;
      break;
    }

    // Projected gradient step: grad_rho = 1 - sum omega, grad_z = dP/dz (the
    // stationarity block), grad_delta = omega.
    const double grad_rho = -kkt.simplex;
    double step = eta;
    bool accepted = false;
    for (int halvings = 0; halvings <= pgd.max_backtracking_steps;
         ++halvings, step *= 0.5) {
      trial.rho = theta.rho - step * grad_rho;
      trial.z = theta.z - step * grad_z;
      evaluator->ProjectOntoBounds(trial.z.data());
      trial.delta = (theta.delta - step * omega).cwiseMax(0.0);
      if (pgd.step_rule == StepRule::FIXED) {
        accepted = true;
        break;
      }
      if (!EvaluateShifted(evaluator,
                           input.offset,
                           trial.z,
                           &f_trial,
                           &h_trial,
                           nullptr,
                           &error)) {
        continue;  // Outside the domain (NaN): back off.
      }
      const double trial_penalty =
          PenaltyValue(trial, lambda, f_trial, h_trial, u, v);
      // The rounding allowance keeps backtracking from halving forever once
      // the true decrease falls below what double precision can resolve
      // near the penalty minimizer.
      const double rounding = 1e-13 * (std::abs(penalty) + 1.0);
      if (trial_penalty <=
          penalty - pgd.armijo * SquaredDistance(trial, theta) / step +
              rounding) {
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      std::ostringstream os;
      os << "Iteration " << iteration << ": no step length down to " << step
         << " decreased the penalty";
      if (!error.empty()) os << " (last evaluation error: " << error << ")";
      os << ".";
      finish(ceres::FAILURE, os.str());
      output->average_kkt_residual_sq = average;
      break;
    }
    if (step < eta) ++summary->num_shortened_steps;
    const double step_norm = std::sqrt(SquaredDistance(trial, theta));
    std::swap(theta, trial);

    IterationSummary it;
    it.iteration = iteration;
    it.penalty = penalty;
    it.rho = trial.rho;  // values at theta_t (before the swap)
    it.constraint_norm = h.norm();
    it.kkt_residual_sq = kkt_sq;
    it.average_kkt_residual_sq = average;
    it.step_size = step;
    it.step_norm = step_norm;
    it.cumulative_time_in_seconds = input.timer->Seconds();
    if (options.record_history && (iteration % options.history_stride == 0 ||
                                   iteration + 1 == options.max_iterations)) {
      summary->history.push_back(it);
    }
    if (options.minimizer_progress_to_stdout &&
        (iteration % options.progress_every_n_iterations == 0 ||
         iteration + 1 == options.max_iterations)) {
      std::printf("%6d % 14.6e % 12.4e %12.4e %12.4e %12.4e %10.2e %10.3f\n",
                  iteration,
                  penalty,
                  it.rho,
                  it.constraint_norm,
                  kkt_sq,
                  average,
                  step,
                  it.cumulative_time_in_seconds);
    }
    const CallbackReturnType answer = RunCallbacks(options, it);
    if (answer == ceres::SOLVER_ABORT) {
      finish(ceres::USER_FAILURE, "User callback returned SOLVER_ABORT.");
      output->average_kkt_residual_sq = average;
      ++iteration;
      break;
    }
    if (answer == ceres::SOLVER_TERMINATE_SUCCESSFULLY) {
      finish(ceres::USER_SUCCESS,
             "User callback returned SOLVER_TERMINATE_SUCCESSFULLY.");
      output->average_kkt_residual_sq = average;
      ++iteration;
      break;
    }
  }
  if (output->average_kkt_residual_sq < 0.0 && iteration > 0) {
    output->average_kkt_residual_sq = kkt_sum / iteration;
  }
  output->iterations = iteration;
  output->rho = theta.rho;
  output->z = theta.z;
  output->delta = theta.delta;
}

}  // namespace internal
}  // namespace ecmo
