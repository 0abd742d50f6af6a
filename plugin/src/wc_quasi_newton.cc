// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The quasi-Newton WC strategies (StrategyType::WC_PENALTY_LBFGS and
// StrategyType::WC_AUGMENTED_LAGRANGIAN): outer loops around an L-BFGS inner
// solver (BoxLbfgs, or Ceres' GradientProblemSolver; wc_lbfgs_inner.cc)
// minimizing the slack-eliminated penalty / augmented Lagrangian Q(rho, z)
// of ecmo/wc_reduced_penalty.h.
//
// Outer iteration j:
//   1. minimize Q(.; u_j, v_j, omega_j, nu_j) from the previous point with
//      L-BFGS; an iteration callback stops the inner solve as soon as
//      ||grad Q||^2 is small next to the feasibility part of ||K||^2 (which
//      only the outer loop can reduce), or ||K||^2 <= tolerance;
//   2. score ||K||^2 with the first-order multipliers (omega+, nu+), which
//      every evaluation of Q records for free; stop if <= tolerance;
//   3. penalty: grow u = v (by the factor predicted from ||K||^2 ~ 1/u^2,
//      at most penalty_increase). Augmented Lagrangian: omega <- omega+,
//      nu <- nu+, and grow u = v only when feasibility stalls.
//
// Manifolds (Evaluator::manifold()): the inner problem is
// ceres::GradientProblem(function, R x M), so every L-BFGS step is a Plus on
// the manifold, ||grad Q||^2 is measured in the tangent space, and the
// penalty path extrapolation combines points with Minus/Plus instead of
// straight lines.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>

#include "ceres/gradient_problem_solver.h"
#include "ecmo/wc_reduced_penalty.h"
#include "glog/logging.h"
#include "solve_workspace.h"
#include "strategy.h"
#include "wc_ceres_phase.h"
#include "wc_diagnosis.h"
#include "wc_inner_minimizer.h"
#include "wc_inner_stop.h"

namespace ecmo {

namespace internal {
namespace {

enum class Method { kPenalty, kAugmentedLagrangian };
enum class InnerKind { kLbfgs, kNewton };

// The largest penalty growth per outer iteration predicted from the
// certificate (Newton inner solves; see the outer update).
constexpr double kMaxPredictedPenaltyFactor = 1e3;

// The outer loop shared by the penalty and augmented-Lagrangian strategies,
// with L-BFGS or Newton inner solves (wc_inner_minimizer.h).
void RunOuterLoop(Method method,
                  InnerKind inner,
                  const StrategyInput& input,
                  StrategyOutput* output,
                  Solver::Summary* summary) {
  const Solver::Options& options = *input.options;
  const Solver::Options::QuasiNewtonOptions& qn = options.quasi_newton;
  Evaluator* evaluator = input.evaluator;
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  const StopRule& stop_rule = input.stop;
  // Whether the certificate has a model at this problem's points
  // (KktSystem::HasGaussNewtonModel / HasNewtonModel).
  const bool has_gauss_newton_model =
      !stop_rule.absolute && evaluator->HasGaussNewtonMatrix() &&
      !evaluator->HasBounds() && evaluator->NumInequalityConstraints() == 0;
  const bool has_model =
      has_gauss_newton_model ||
      (!stop_rule.absolute && !evaluator->HasGaussNewtonMatrix() &&
       !evaluator->HasBounds() && evaluator->NumInequalityConstraints() == 0 &&
       evaluator->manifold() == nullptr &&
       evaluator->NumParameters() <= KktSystem::kMaxNewtonModelParameters);
  // ||K||^2 level of the rule, for the heuristics that work on ||K||^2.
  const double tolerance = stop_rule.RawEquivalent();

  // The evaluator's kept function and iterates (solve_workspace.h).
  SolveWorkspace* workspace = evaluator->workspace();
  if (workspace->reduced_penalty == nullptr) {
    workspace->reduced_penalty = std::make_unique<WcReducedPenalty>(
        evaluator, input.lambda, input.offset);
  } else {
    workspace->reduced_penalty->Reset(input.lambda, input.offset);
  }
  WcReducedPenalty* function = workspace->reduced_penalty.get();
    // The manifold of x = (rho, z), for the extrapolation below (the inner
  // minimizer keeps its own).
  std::unique_ptr<ceres::Manifold> x_manifold_owner(
      function->TangentManifold());
  const ceres::Manifold* x_manifold = x_manifold_owner.get();
  std::unique_ptr<InnerMinimizer> inner_minimizer =
      inner == InnerKind::kNewton ? MakeNewtonInnerMinimizer(input, function)
                                  : MakeLbfgsInnerMinimizer(input, function);
  // x_base + t (x_other - x_base), along the manifold when there is one:
  // Plus(x_base, t Minus(x_other, x_base)). False if the manifold fails.
  auto combine = [&](const Eigen::VectorXd& x_base,
                     const Eigen::VectorXd& x_other,
                     double t,
                     Eigen::VectorXd* out) {
    if (x_manifold == nullptr) {
      *out = x_base + t * (x_other - x_base);
      // Extrapolated points stay in the box, like every inner iterate.
      if (evaluator->HasBounds()) evaluator->ProjectOntoBounds(out->data() + 1);
      return true;
    }
    Eigen::VectorXd delta(x_manifold->TangentSize());
    out->resize(x_base.size());
    if (!x_manifold->Minus(x_other.data(), x_base.data(), delta.data())) {
      return false;
    }
    delta *= t;
    return x_manifold->Plus(x_base.data(), delta.data(), out->data());
  };

  Eigen::VectorXd& x = workspace->x;
  x.resize(1 + k);
  x[0] = input.rho0;
  x.tail(k) = input.z0;

  output->iterations = 0;
  output->rho = x[0];
  output->z = input.z0;
  summary->inner_iterations = 0;
  summary->num_penalty_increases = 0;
  summary->num_shortened_steps = 0;

  auto finish = [&](TerminationType type, std::string message) {
    output->termination_type = type;
    output->message = std::move(message);
  };

  // Size the initial penalty from the start point (value evaluation only).
  KktMultipliers multipliers;
  WcReducedPenalty::Point point;
  function->SetPenalties(1.0, 1.0);
  if (!function->MultipliersAt(x.data(), &multipliers, &point)) {
    finish(ceres::FAILURE, "At the start point: " + function->last_error());
    return;
  }
  // Penalties: Options::warm_start first, then initial_penalty, then the
  // automatic rule.
  const Solver::Options::WarmStart& warm = options.warm_start;
  double u = warm.penalty_u > 0.0   ? warm.penalty_u
             : warm.penalty_v > 0.0 ? warm.penalty_v
                                    : qn.initial_penalty;
  if (u <= 0.0) {
    u = 10.0 * std::max(1.0, std::abs(input.rho0)) /
        std::max(1.0, point.feasibility_sq);
    u = std::min(std::max(u, 1e-2), 1e8);
  }
  u = std::min(u, qn.max_penalty);
  double v =
      std::min(warm.penalty_v > 0.0 ? warm.penalty_v : u, qn.max_penalty);
  // Multiplier estimates: zeros, or the warm start's (augmented Lagrangian).
  Eigen::VectorXd& omega_shift = workspace->omega_shift;
  Eigen::VectorXd& nu_shift = workspace->nu_shift;
  omega_shift.setZero(S);
  nu_shift.setZero(q);
  if (method == Method::kAugmentedLagrangian && warm.omega.size() == S) {
    omega_shift = warm.omega;
    if (q > 0) nu_shift = warm.nu;
  }
  // With the automatic rho0 = max_s lambda_s f_s(z0) and no multipliers, Q
  // is exactly linear in rho near the start (no inequality term active),
  // which wastes the first line search. Start instead where the largest term
  // is active with multiplier 1: rho = rho0 - 1/v, the minimizer of Q over
  // rho when one objective is active. With multiplier estimates omega the
  // missing mass is 1 - sum omega (Q is stationary in rho at rho0 when omega
  // sums to 1).
  if (std::isnan(options.initial_rho)) {
    x[0] = input.lambda.cwiseProduct(function->last_objectives()).maxCoeff() -
           std::max(0.0, 1.0 - omega_shift.sum()) / v;
  }

  InnerStop stop(function, &input, tolerance, qn.inner_tolerance_factor);

  if (options.minimizer_progress_to_stdout) {
    std::printf("%5s %14s %12s %11s %11s %11s %6s %8s %10s\n",
                "outer",
                "Q",
                "rho",
                "|h|",
                "|K|^2",
                "u",
                "inner",
                "grad_ev",
                "time");
  }

  // Penalty path extrapolation: the previous outer iterate and its penalty.
  bool have_previous = false;
  double previous_u = 0.0;
  Eigen::VectorXd& previous_x = workspace->previous_x;
  KktMultipliers previous_multipliers;
  Eigen::VectorXd& x_extrapolated = workspace->x_extrapolated;
  bool have_extrapolated = false;

  // Least-squares certification is refused while the solve looks divergent:
  // the last inner solve did not converge (Ceres gave up or ran out of
  // iterations; the strategy's own stop counts as converged) and rho fell
  // far below rho0 (more than max(1, |rho0|) beyond the 1/v by which an
  // inner minimizer may sit below the active objectives; no WC point has
  // rho <= 0 since the shifted objectives are positive) and is still
  // falling. Small gradients far out on an objective that decreases without
  // bound must not pass for stationarity.
  double previous_outer_rho = x[0];
  bool diverging = false;
  std::string diverging_note;

  double kkt_sum = 0.0;
  double previous_phi = std::numeric_limits<double>::infinity();
  double first_multiplier_norm = -1.0;
  int stalled_at_max_penalty = 0;
  double best_optimality = std::numeric_limits<double>::infinity();
  double best_gradient_sq = std::numeric_limits<double>::infinity();
  int stationarity_stalls = 0;
  bool done = false;
  int outer = 0;
  std::string certified_by;
  std::string certified_description;

  // The linearizations of the certification steps below: the evaluator's
  // kept systems, so that their k-sized storage is reused across outer
  // iterations and the points of a sweep (freed and re-allocated it was
  // faulted in again every time).
  KktSystem& certify_system = workspace->certification;
  KktSystem& extrapolation_system = workspace->extrapolation;
  // The system linearized at the returned point when a certification
  // ended the solve there (handed to Solve() for the final report).
  const KktSystem* system_at_x = nullptr;
  // Which multipliers the last successful certify_at_x used.
  bool certified_with_own = false;
  // Whether `candidate` certifies the point `system` is linearized at; on
  // success the solve ends with them as the strategy's multipliers. *kkt
  // (may be null) receives their raw ||K||^2.
  auto certifies = [&](const KktSystem& system,
                       const KktMultipliers& candidate,
                       double* kkt) {
    KktResidual& residual = workspace->certification_residual;
    system.Residual(candidate, &residual);
    const KktCertificate certificate =
        stop_rule.CertifyAt(system, candidate, residual);
    if (kkt != nullptr) *kkt = residual.SquaredNorm();
    if (!stop_rule.Met(residual, certificate)) return false;
    certified_description = stop_rule.Describe(residual, certificate);
    multipliers = candidate;
    return true;
  };
  // Scores the point with the least-squares multipliers (with own_first,
  // first with the strategy's).
  auto certify_at_x = [&](bool own_first, double* kkt_ls) {
    KktSystem& system = certify_system;
    std::string error;
    *kkt_ls = -1.0;
    certified_with_own = false;
    if (diverging) return false;
    if (!system.Linearize(
            evaluator, input.lambda, input.offset, x[0], x.tail(k), &error)) {
      return false;
    }
    if (own_first) {
      // The strategy's multipliers scaled onto the simplex (a penalty's
      // omega sums to 1 only up to 1/v): a common factor on (omega, nu)
      // leaves the relative stationarity and the model's weights' ratios
      // as they are, and removes the simplex error.
      KktMultipliers own = multipliers;
      const double sum = own.omega.sum();
      if (sum > 0.0 && std::isfinite(sum)) {
        own.omega /= sum;
        if (own.nu.size() > 0) own.nu /= sum;
      }
      if (certifies(system, own, nullptr)) {
        certified_with_own = true;
        return true;
      }
    }
    return certifies(system, stop_rule.LeastSquaresMultipliers(system), kkt_ls);
  };

  for (outer = 0; !done; ++outer) {
    if (outer >= qn.max_outer_iterations) {
      finish(ceres::NO_CONVERGENCE,
             "Maximum number of outer iterations reached (" +
                 std::to_string(qn.max_outer_iterations) + ").");
      break;
    }
    if (summary->inner_iterations >= options.max_iterations) {
      finish(ceres::NO_CONVERGENCE,
             "Maximum number of inner iterations reached (max_iterations = " +
                 std::to_string(options.max_iterations) + ").");
      break;
    }
    const double remaining_time =
        options.max_solver_time_in_seconds - input.timer->Seconds();
    if (remaining_time <= 0.0) {
      finish(ceres::NO_CONVERGENCE, "Maximum solver time reached.");
      break;
    }

    function->SetPenalties(u, v);
    function->SetMultiplierShifts(omega_shift, nu_shift);
    InnerLimits limits;
    limits.max_iterations = options.max_iterations - summary->inner_iterations;
    limits.max_time_in_seconds = remaining_time;
    stop.Reset();
    Eigen::VectorXd& x_start = workspace->x_start;
    x_start = x;
    const InnerResult inner_result =
        inner_minimizer->Minimize(limits, &stop, x.data());
    const int inner_iterations = inner_result.iterations;
    summary->inner_iterations += inner_iterations;
    summary->num_shortened_steps += inner_result.shortened_steps;
    summary->inner_message = inner_result.message;
    if (!inner_result.evaluated_start) {
      // The inner solver could not even evaluate its start point.
      finish(ceres::FAILURE,
             "Outer iteration " + std::to_string(outer) +
                 ": the inner solver failed at its start point: " +
                 inner_result.message +
                 (function->last_error().empty()
                      ? std::string()
                      : " (last evaluation error: " + function->last_error() +
                            ")"));
      x = x_start;
      break;
    }

    // Multipliers and ||K||^2 at the accepted point.
    if (!function->MultipliersAt(x.data(), &multipliers, &point)) {
      finish(ceres::FAILURE,
             "Outer iteration " + std::to_string(outer) +
                 ": cannot evaluate the inner solution: " +
                 function->last_error());
      x = x_start;
      break;
    }
    if (stop.unbounded() ||
        IsUnboundedEvidence(input, x[0], point.certificate.feasibility)) {
      finish(ceres::FAILURE,
             "Outer iteration " + std::to_string(outer) + ": " +
                 UnboundedMessage(
                     x[0], point.certificate.feasibility, input.rho_floor));
      ++outer;
      break;
    }
    {
      const bool inner_converged =
          inner_result.termination_type == ceres::CONVERGENCE ||
          inner_result.termination_type == ceres::USER_SUCCESS;
      const bool rho_falling = x[0] < previous_outer_rho;
      previous_outer_rho = x[0];
      diverging =
          !inner_converged && rho_falling &&
          x[0] < input.rho0 - std::max(1.0, std::abs(input.rho0)) - 1.0 / v;
      if (diverging) {
        diverging_note =
            " Least-squares certification was refused: the last "
            "inner solve did not converge (" +
            std::string(
                ceres::TerminationTypeToString(inner_result.termination_type)) +
            ") while rho fell to " + Sci(x[0]) +
            ", far below rho0 = " + Sci(input.rho0) +
            ", and keeps falling; the objective may be "
            "unbounded below.";
      }
    }
    output->delta =
        (x[0] - input.lambda.cwiseProduct(function->last_objectives()).array())
            .max(0.0)
            .matrix();
    if (point.gradient_sq < 0.0) {
      WcReducedPenalty::Point with_gradient;
      if (function->FindPoint(point.cost, true, &with_gradient)) {
        // The whole record: its certificate has the stationarity block
        // (infinite in a value-only record), which the stall test reads.
        // The inner solver's accepted point need not be its last
        // evaluation (a line search may end on an earlier trial).
        point = with_gradient;
      } else {
        double cost;
        Eigen::VectorXd gradient(1 + k);
        if (!function->Evaluate(x.data(), &cost, gradient.data())) {
          finish(
              ceres::FAILURE,
              "Outer iteration " + std::to_string(outer) +
                  ": cannot evaluate the gradient: " + function->last_error());
          break;
        }
        point = WcReducedPenalty::Point();
        function->MultipliersAt(x.data(), &multipliers, &point);
      }
    }
    const double kkt_sq = point.KktSq();
    const double phi = point.feasibility_sq + point.complementarity_sq;
    kkt_sum += kkt_sq;
    const double multiplier_norm =
        std::sqrt(multipliers.omega.squaredNorm() +
                  (q > 0 ? multipliers.nu.squaredNorm() : 0.0));
    if (first_multiplier_norm < 0.0) first_multiplier_norm = multiplier_norm;

    IterationSummary it;
    it.iteration = outer;
    it.penalty = point.cost;
    it.rho = x[0];
    it.constraint_norm = std::sqrt(point.feasibility_sq);
    it.kkt_residual_sq = kkt_sq;
    it.average_kkt_residual_sq = kkt_sum / (outer + 1);
    it.step_size = 0.0;
    it.step_norm = (x - x_start).norm();
    it.cumulative_time_in_seconds = input.timer->Seconds();
    it.inner_iterations = inner_iterations;
    it.penalty_u = u;
    it.penalty_v = v;
    it.gradient_evaluations = evaluator->counts().gradient_evaluations;
    it.inner_termination_type = inner_result.termination_type;
    if (options.record_history) summary->history.push_back(it);
    if (options.minimizer_progress_to_stdout) {
      std::printf("%5d % 14.6e % 12.5e %11.3e %11.3e %11.3e %6d %8lld %10.4f\n",
                  outer,
                  it.penalty,
                  it.rho,
                  it.constraint_norm,
                  kkt_sq,
                  u,
                  inner_iterations,
                  static_cast<long long>(it.gradient_evaluations),
                  it.cumulative_time_in_seconds);
    }
    summary->penalty_u = u;
    summary->penalty_v = v;

    VLOG(2) << "outer " << outer << ": certificate simplex "
            << point.certificate.simplex << " stationarity "
            << point.certificate.stationarity << " complementarity "
            << point.certificate.complementarity << " feasibility "
            << point.certificate.feasibility;
    // Where the evaluator has a Gauss-Newton model the strategy's estimate
    // is confirmed at the point with the model (ecmo/kkt.h) before the
    // solve ends: the estimate has no model and measures ambient
    // components.
    double kkt_confirm = -1.0;
    if (PointMeets(stop_rule, point) &&
        (!has_gauss_newton_model || certify_at_x(true, &kkt_confirm))) {
      if (has_gauss_newton_model) system_at_x = &certify_system;
      certified_by = has_gauss_newton_model && !certified_with_own
                         ? "least-squares multipliers"
                         : "strategy multipliers";
      finish(ceres::CONVERGENCE,
             has_gauss_newton_model ? certified_description + " (" +
                                          certified_by + ")." :
             (stop_rule.absolute
                  ? "||K||^2 = " + Sci(kkt_sq) +
                        " <= kkt_tolerance = " + Sci(stop_rule.kkt_tolerance)
                  : "certificate: stationarity " +
                        Sci(std::max(point.certificate.simplex,
                                     point.certificate.stationarity)) +
                        ", complementarity " +
                        Sci(point.certificate.complementarity) +
                        ", ||h||_inf " + Sci(point.certificate.feasibility) +
                        " within tolerance (||K||^2 = " + Sci(kkt_sq) + ")") +
                 " (strategy multipliers).");
      ++outer;
      break;
    }
    // Richardson extrapolation of the penalty path: with a fixed active set
    // the penalty minimizers satisfy x(u) = x* + a/u + O(1/u^2) (and so do
    // the multipliers), so (r x(u) - x(u/r)) / (r - 1) is O(1/u^2) from the
    // KKT point. One gradient evaluation scores it; if it meets the
    // tolerance it is the answer, otherwise it seeds the next inner solve.
    have_extrapolated = false;
    if (method == Method::kPenalty && qn.penalty_extrapolation &&
        have_previous && u > previous_u) {
      const double r = u / previous_u;
      const double a = r / (r - 1.0);
      const double b = 1.0 / (r - 1.0);
      // a x - b x_prev = x + b (x - x_prev).
      const bool extrapolated_ok = combine(x, previous_x, -b, &x_extrapolated);
      KktMultipliers extrapolated;
      extrapolated.omega =
          (a * multipliers.omega - b * previous_multipliers.omega)
              .cwiseMax(0.0);
      extrapolated.nu = q > 0 ? Eigen::VectorXd(a * multipliers.nu -
                                                b * previous_multipliers.nu)
                              : Eigen::VectorXd();
      KktSystem& system = extrapolation_system;
      std::string error;
      if (extrapolated_ok && system.Linearize(evaluator,
                                              input.lambda,
                                              input.offset,
                                              x_extrapolated[0],
                                              x_extrapolated.tail(k),
                                              &error)) {
        have_extrapolated = true;
        KktResidual residual_e = system.Residual(extrapolated);
        KktCertificate certificate_e =
            stop_rule.CertifyAt(system, extrapolated, residual_e);
        std::string how = "extrapolated multipliers";
        bool met = stop_rule.Met(residual_e, certificate_e);
        const double kkt_e0 = residual_e.SquaredNorm();
        if (!met && qn.least_squares_certification_factor > 0.0 &&
            stop_rule.IsClose(
                kkt_e0, certificate_e, qn.least_squares_certification_factor)) {
          const KktMultipliers ls = stop_rule.LeastSquaresMultipliers(system);
          const KktResidual residual_ls = system.Residual(ls);
          const KktCertificate certificate_ls =
              stop_rule.CertifyAt(system, ls, residual_ls);
          if (stop_rule.Met(residual_ls, certificate_ls)) {
            residual_e = residual_ls;
            certificate_e = certificate_ls;
            extrapolated = ls;
            how = "least-squares multipliers";
            met = true;
          }
        }
        if (met) {
          x = x_extrapolated;
          multipliers = extrapolated;
          output->delta = (x[0] - input.lambda.cwiseProduct(system.f()).array())
                              .max(0.0)
                              .matrix();
          certified_by = how + " at the extrapolated penalty path point";
          system_at_x = &system;
          finish(ceres::CONVERGENCE,
                 stop_rule.Describe(residual_e, certificate_e) +
                     " at the point extrapolated from u = " + Sci(previous_u) +
                     " and u = " + Sci(u) + " (" + how + ").");
          ++outer;
          break;
        }
      }
    }
    if (method == Method::kPenalty) {
      have_previous = true;
      previous_u = u;
      previous_x = x;
      previous_multipliers = multipliers;
    }

    double kkt_ls = -1.0;
    // Complementarity and feasibility meet the rule: the model may decide
    // what the relative stationarity block cannot (a lone term at a
    // minimizer of one objective), and the simplex error goes with the
    // multipliers' scaling (certify_at_x), so the point is scored at x.
    const bool only_stationarity_misses =
        !stop_rule.absolute &&
        point.certificate.complementarity <=
            stop_rule.complementarity_tolerance &&
        point.certificate.feasibility <= stop_rule.feasibility_tolerance;
    if (qn.least_squares_certification_factor > 0.0 &&
        (PointIsClose(stop_rule, point, qn.least_squares_certification_factor) ||
         (only_stationarity_misses && has_model)) &&
        certify_at_x(has_model, &kkt_ls)) {
      certified_by = certified_with_own ? "strategy multipliers"
                                        : "least-squares multipliers";
      system_at_x = &certify_system;
      finish(ceres::CONVERGENCE,
             certified_with_own
                 ? certified_description + " (strategy multipliers)."
                 : certified_description +
                       " with the least-squares multipliers (" +
                       "||K||^2 = " + Sci(kkt_sq) + " with the strategy's).");
      ++outer;
      break;
    }

    const CallbackReturnType answer = RunCallbacks(options, it);
    if (answer == ceres::SOLVER_ABORT) {
      finish(ceres::USER_FAILURE, "User callback returned SOLVER_ABORT.");
      ++outer;
      break;
    }
    if (answer == ceres::SOLVER_TERMINATE_SUCCESSFULLY) {
      finish(ceres::USER_SUCCESS,
             "User callback returned SOLVER_TERMINATE_SUCCESSFULLY.");
      ++outer;
      break;
    }

    // Outer update.
    const bool outer_part_met =
        stop_rule.absolute ? phi <= 0.25 * stop_rule.kkt_tolerance
                           : point.certificate.feasibility <=
                                     stop_rule.feasibility_tolerance &&
                                 point.certificate.complementarity <=
                                     stop_rule.complementarity_tolerance;
    bool increase = false;
    double factor = qn.penalty_increase;
    if (method == Method::kPenalty) {
      // ||K||^2 ~ phi ~ 1/u^2 at the inner minimizers: the factor that
      // should bring phi to a quarter of the tolerance, within [2, max].
      const double predicted = std::sqrt(phi / (0.25 * tolerance));
      factor = std::min(qn.penalty_increase, std::max(2.0, predicted));
      increase = true;
    } else {
      omega_shift = multipliers.omega;
      // (Not a conditional expression: that made a temporary copy.)
      if (q > 0) {
        nu_shift = multipliers.nu;
      } else {
        nu_shift.resize(0);
      }
      // Once feasibility and complementarity meet the rule, phi sits at
      // rounding level and cannot fall by a constant factor any more: a
      // larger penalty would only hurt the conditioning of the inner solves
      // that still have to reduce the stationarity.
      increase =
          !outer_part_met && phi > qn.feasibility_decrease * previous_phi;
      // Newton inner solves: when the outer part stalls, grow u and v by
      // the factor the certificate predicts (feasibility and
      // complementarity fall as 1/v at the inner minimizers once the
      // multipliers have settled), within [penalty_increase,
      // kMaxPredictedPenaltyFactor]. Where the terms are flat along the
      // front (the corner of a pose graph's front, where the loop
      // closures' minimizers are not unique) the multiplier update stops
      // reducing the complementarity, and tenfold steps took two outer
      // iterations per decade (7 of the corner's 10). First-order inner
      // solves keep the tenfold steps: their precision suffers from the
      // conditioning (measured on the scalarization tests).
      if (increase && !stop_rule.absolute && inner == InnerKind::kNewton) {
        const double ratio = std::max(
            point.certificate.feasibility / stop_rule.feasibility_tolerance,
            point.certificate.complementarity /
                stop_rule.complementarity_tolerance);
        factor = std::min(kMaxPredictedPenaltyFactor,
                          std::max(qn.penalty_increase, 2.0 * ratio));
      }
    }
    const bool at_max = std::min(u, v) >= qn.max_penalty;
    if (at_max && !outer_part_met &&
        phi > qn.feasibility_decrease * previous_phi) {
      ++stalled_at_max_penalty;
    } else {
      stalled_at_max_penalty = 0;
    }
    // Stationarity stall: the outer part is met and three inner solves in a
    // row halved neither the optimality blocks nor the raw gradient (the
    // line search has run out of precision). The raw gradient counts too:
    // where a single term stands alone the relative block is 1 however
    // small that term gets.
    if (outer_part_met && !stop_rule.absolute) {
      const double optimality =
          std::max(point.certificate.simplex, point.certificate.stationarity);
      const bool relative_progress = optimality < 0.5 * best_optimality;
      const bool raw_progress = point.gradient_sq >= 0.0 &&
                                point.gradient_sq < 0.25 * best_gradient_sq;
      best_optimality = std::min(best_optimality, optimality);
      if (point.gradient_sq >= 0.0) {
        best_gradient_sq = std::min(best_gradient_sq, point.gradient_sq);
      }
      if (relative_progress || raw_progress) {
        stationarity_stalls = 0;
      } else if (++stationarity_stalls >= 3) {
        finish(ceres::NO_CONVERGENCE,
               "The stationarity blocks stalled at " + Sci(optimality) +
                   " (tolerance " + Sci(stop_rule.stationarity_tolerance) +
                   ") for 3 outer iterations while feasibility and "
                   "complementarity meet the rule: the inner " +
                   std::string(inner_minimizer->name()) +
                   " solves cannot reduce them further.");
        ++outer;
        break;
      }
    }
    previous_phi = phi;
    const bool penalty_exhausted =
        method == Method::kPenalty ? at_max : stalled_at_max_penalty >= 5;
    const bool multipliers_diverged =
        !std::isfinite(multiplier_norm) || multiplier_norm > 1e15;
    if (penalty_exhausted || multipliers_diverged) {
      std::ostringstream os;
      if (multipliers_diverged) {
        os << "The multiplier estimates diverged (norm " << Sci(multiplier_norm)
           << ").";
      } else if (method == Method::kPenalty) {
        os << "The penalty reached max_penalty = " << Sci(qn.max_penalty)
           << " without meeting the stopping rule.";
      } else {
        os << "Feasibility stalled for 5 outer iterations with the penalty "
              "at max_penalty = "
           << Sci(qn.max_penalty) << ".";
      }
      finish(ceres::NO_CONVERGENCE, os.str());
      ++outer;
      break;
    }
    if (increase && !at_max) {
      const double old_u = u;
      u = std::min(u * factor, qn.max_penalty);
      v = std::min(v * factor, qn.max_penalty);
      ++summary->num_penalty_increases;
      if (have_extrapolated) {
        // Predict x(u_new) = x* + (x(u_old) - x*) u_old / u_new from the
        // extrapolated x*, if the problem can be evaluated there.
        Eigen::VectorXd predicted;
        double cost;
        if (combine(x_extrapolated, x, old_u / u, &predicted) &&
            function->Evaluate(predicted.data(), &cost, nullptr)) {
          x = predicted;
        }
      }
    }
  }

  output->iterations = outer;
  summary->iterations = outer;

  if (output->termination_type == ceres::NO_CONVERGENCE &&
      x[0] < input.rho_floor) {
    // The penalty subproblems ran off to rho far below anything attainable
    // without ever becoming feasible: the point is garbage whatever the
    // cause, and the likely cause is an objective unbounded below.
    finish(ceres::FAILURE,
           output->message + " " +
               UnboundedMessage(
                   x[0], point.certificate.feasibility, input.rho_floor) +
               " (The iterates never became feasible, so this is not "
               "certain; a larger initial penalty may tell.)");
  }
  if (output->termination_type == ceres::NO_CONVERGENCE) {
    // Last chance: the least-squares multipliers may certify the point even
    // where the strategy's estimates lag behind (e.g. LICQ failing).
    double kkt_ls = -1.0;
    if (qn.least_squares_certification_factor > 0.0 &&
        certify_at_x(false, &kkt_ls)) {
      certified_by = "least-squares multipliers";
      system_at_x = &certify_system;
      output->message +=
          " The point is nevertheless certified with the "
          "least-squares multipliers: " +
          certified_description + ".";
      output->termination_type = ceres::CONVERGENCE;
    } else {
      std::ostringstream os;
      os << " ||K||^2 = " << Sci(point.KktSq())
         << " with the strategy's multipliers";
      if (kkt_ls >= 0.0) os << ", " << Sci(kkt_ls) << " with least squares";
      if (stop_rule.absolute) {
        os << " (tolerance " << Sci(stop_rule.kkt_tolerance) << ")";
      } else {
        // Name the blocks of the certificate that fail.
        const KktCertificate& c = point.certificate;
        os << "; certificate blocks: simplex " << Sci(c.simplex)
           << " and stationarity " << Sci(c.stationarity) << " (tolerance "
           << Sci(stop_rule.stationarity_tolerance) << "), complementarity "
           << Sci(c.complementarity) << " (tolerance "
           << Sci(stop_rule.complementarity_tolerance) << "), ||h||_inf "
           << Sci(c.feasibility) << " (tolerance "
           << Sci(stop_rule.feasibility_tolerance) << "). Failing:";
        if (c.simplex > stop_rule.stationarity_tolerance) os << " simplex";
        if (c.stationarity > stop_rule.stationarity_tolerance) {
          os << " stationarity";
        }
        if (c.complementarity > stop_rule.complementarity_tolerance) {
          os << " complementarity";
        }
        if (c.feasibility > stop_rule.feasibility_tolerance) {
          os << " feasibility";
        }
      }
      os << ", ||h|| = " << Sci(std::sqrt(point.feasibility_sq)) << ".";
      if (diverging) os << diverging_note;
      output->message += os.str();
    }
  }
  // LICQ (and overflow) diagnosis, when the equality multipliers grew a
  // lot (wc_diagnosis.h).
  if (q > 0 && output->termination_type != ceres::FAILURE &&
      multipliers.nu.size() == q &&
      multipliers.nu.norm() > 10.0 * std::max(1.0, first_multiplier_norm)) {
    DiagnoseConstraintQualification(
        input,
        x,
        multipliers,
        first_multiplier_norm,
        output->termination_type == ceres::CONVERGENCE,
        &output->message);
    system_at_x = nullptr;  // the diagnosis may evaluate elsewhere
  }
  output->system = system_at_x;
  if (!certified_by.empty()) summary->certified_by = std::move(certified_by);
  output->rho = x[0];
  output->z = x.tail(k);
  output->multipliers = std::move(multipliers);
  if (output->multipliers.nu.size() != q) {
    output->multipliers.nu = Eigen::VectorXd::Zero(q);
  }
  output->average_kkt_residual_sq = outer > 0 ? kkt_sum / outer : -1.0;
}

}  // namespace

void RunWcPenaltyLbfgs(const StrategyInput& input,
                       StrategyOutput* output,
                       Solver::Summary* summary) {
  RunOuterLoop(Method::kPenalty, InnerKind::kLbfgs, input, output, summary);
}

void RunWcAugmentedLagrangian(const StrategyInput& input,
                              StrategyOutput* output,
                              Solver::Summary* summary) {
  RunOuterLoop(
      Method::kAugmentedLagrangian, InnerKind::kLbfgs, input, output, summary);
}

void RunWcNewton(const StrategyInput& input,
                 StrategyOutput* output,
                 Solver::Summary* summary) {
  // The Ceres phase (wc_ceres_phase.h) brings the point near the WC point
  // with Ceres' own solver; the Newton loop starts there with the phase's
  // multipliers and polishes to the certificate.
  CeresPhaseResult phase;
  RunCeresPhase(input, &phase);
  if (!phase.used) {
    VLOG(1) << "WC_NEWTON without the Ceres phase: " << phase.message;
    RunOuterLoop(Method::kAugmentedLagrangian,
                 InnerKind::kNewton,
                 input,
                 output,
                 summary);
    return;
  }
  Solver::Options options = *input.options;
  options.warm_start.omega = phase.omega;
  options.warm_start.nu = phase.nu;
  // The phase's point is a minimizer of a nearby weighted sum: start the
  // Newton trust region wide (nearly undamped Gauss-Newton steps); a
  // rejected step shrinks it as usual.
  options.newton.initial_trust_region_radius =
      std::max(options.newton.initial_trust_region_radius,
               std::min(1e8, options.newton.max_trust_region_radius));
  // The Chebyshev penalty v: the augmented Lagrangian's multiplier update
  // contracts the error in omega by about 1 / (1 + v kappa), kappa the
  // curvature of the terms c_s along the front, so a v sized for terms of
  // order 1 crawls when the terms are small (normalized objectives times
  // small preferences: c ~ 1e-2). Size it from the terms at the phase's
  // point, as the multipliers are already good (no risk of the penalty
  // dominating a poor start). Also when a warm start carries a penalty:
  // the neighbour's outer loop may have raised it tenfold, and with the
  // phase's terms a few per mille apart such a v makes the first Newton
  // steps close the gap in one long Gauss-Newton step along the front,
  // where the objectives are far from their linearization (measured on the
  // generated pose graphs: several rejected steps per point, each a
  // factorization). The given penalty is used without the phase. u, with
  // equality constraints: the phase's last penalty mu (it started from the
  // warm start's u).
  const bool equalities = input.evaluator->NumConstraints() > 0;
  if (phase.max_term > 0.0) {
    options.warm_start.penalty_v =
        std::min(100.0 / phase.max_term, options.quasi_newton.max_penalty);
    options.warm_start.penalty_u =
        equalities ? phase.mu : options.warm_start.penalty_v;
  } else if (equalities && options.warm_start.penalty_u <= 0.0) {
    options.warm_start.penalty_u = phase.mu;
  }
  StrategyInput polish = input;
  polish.options = &options;
  polish.z0 = phase.z;
  RunOuterLoop(Method::kAugmentedLagrangian,
               InnerKind::kNewton,
               polish,
               output,
               summary);
  output->message = "Ceres phase: " + std::to_string(phase.solves) +
                    " ceres::Solve (" + phase.message + "); " + output->message;
}

}  // namespace internal
}  // namespace ecmo
