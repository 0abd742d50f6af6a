// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The stochastic WC-Penalty solver (Algorithm 3): options, reports and
// Solve.

#include "ecmo/stochastic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ecmo/internal/report.h"
#include "ecmo/solver.h"

namespace ecmo {
namespace {

constexpr int64_t kMaxBatchSize = 2147483647;

int64_t ScheduledBatch(double factor, double exponent, int T) {
  const double b =
      std::ceil(factor * std::pow(static_cast<double>(T), exponent));
  if (!(b >= 1.0)) return 1;
  if (b > static_cast<double>(kMaxBatchSize)) return kMaxBatchSize + 1;
  return static_cast<int64_t>(b);
}

}  // namespace

using internal::FormatNumber;
using internal::FormatVector;

// ------------------------------------------------------------------ solver --

bool StochasticSolver::Options::IsValid(std::string* error) const {
  static constexpr char kOptions[] = "StochasticSolver::Options";
  ECMO_OPTION_CHECK(kOptions, max_iterations, max_iterations > 0, "> 0");
  ECMO_OPTION_CHECK(
      kOptions, eta0, eta0 > 0.0 && std::isfinite(eta0), "> 0 and finite");
  ECMO_OPTION_CHECK(
      kOptions, c0, c0 > 0.0 && std::isfinite(c0), "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    batch_size_factor,
                    batch_size_factor > 0.0 && std::isfinite(batch_size_factor),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(
      kOptions,
      batch_size_exponent,
      batch_size_exponent >= 0.0 && std::isfinite(batch_size_exponent),
      ">= 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    objective_batch_size,
                    objective_batch_size >= 0,
                    ">= 0 (0 = the theorem's schedule)");
  ECMO_OPTION_CHECK(kOptions,
                    constraint_batch_size,
                    constraint_batch_size >= 0,
                    ">= 0 (0 = the theorem's schedule)");
  ECMO_OPTION_CHECK(
      kOptions,
      batch_size_factor,
      (objective_batch_size > 0 && constraint_batch_size > 0) ||
          batch_size_schedule ||
          ScheduledBatch(batch_size_factor,
                         batch_size_exponent,
                         max_iterations) <= kMaxBatchSize,
      "small enough that batch_size_factor * T^batch_size_exponent fits "
      "in an int (2^31 - 1); lower it or set the batch sizes explicitly");
  ECMO_OPTION_CHECK(kOptions,
                    kkt_every_n_iterations,
                    kkt_every_n_iterations >= 0,
                    ">= 0 (0 = final point only)");
  ECMO_OPTION_CHECK(kOptions,
                    max_solver_time_in_seconds,
                    max_solver_time_in_seconds > 0.0,
                    "> 0");
  ECMO_OPTION_CHECK(kOptions, history_stride, history_stride >= 1, ">= 1");
  ECMO_OPTION_CHECK(kOptions,
                    initial_rho,
                    !std::isinf(initial_rho),
                    "finite (or NaN for automatic)");
  if (!internal::CheckEntries(kOptions,
                              "objective_offset",
                              objective_offset,
                              internal::IsFinite,
                              "finite",
                              error)) {
    return false;
  }
  return true;
}

int StochasticSolver::Options::ObjectiveBatchSize(int t) const {
  int64_t b = objective_batch_size;
  if (batch_size_schedule) {
    b = batch_size_schedule(t, max_iterations);
  } else if (b == 0) {
    b = ScheduledBatch(batch_size_factor, batch_size_exponent, max_iterations);
  }
  return static_cast<int>(std::clamp<int64_t>(b, 1, kMaxBatchSize));
}

int StochasticSolver::Options::ConstraintBatchSize(int t) const {
  int64_t b = constraint_batch_size;
  if (batch_size_schedule) {
    b = batch_size_schedule(t, max_iterations);
  } else if (b == 0) {
    b = ScheduledBatch(batch_size_factor, batch_size_exponent, max_iterations);
  }
  return static_cast<int>(std::clamp<int64_t>(b, 1, kMaxBatchSize));
}

bool StochasticSolver::Summary::IsSolutionUsable() const {
  return ecmo::IsSolutionUsable(termination_type);
}

std::string StochasticSolver::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(6);
  os << "ecmo::Solve (stochastic WC-Penalty) Report: Iterations: " << iterations
     << ", Samples: " << samples_drawn;
  if (has_exact_kkt) {
    os << ", avg ||K_t||^2: " << average_kkt_residual_sq
       << ", final ||K||^2: " << kkt.with_solver_multipliers.SquaredNorm()
       << " (least squares: "
       << kkt.with_least_squares_multipliers.SquaredNorm() << ")";
  }
  os << ", Termination: " << TerminationTypeName(termination_type);
  return os.str();
}

std::string StochasticSolver::Summary::FullReport() const {
  internal::ReportWriter report(
      "ceres-ecmo Stochastic WC-Penalty Report (Algorithm 3)");
  report.Row("Parameters (k)", std::to_string(num_parameters));
  report.Row("Objectives (S)", std::to_string(num_objectives));
  report.Row("Constraint residuals (q)", std::to_string(num_constraints));
  report.Row("Preference lambda", FormatVector(preference));
  report.Row("Seed", std::to_string(seed));
  report.Section("Schedule");
  report.Row("  eta = eta0 T^(-1/4)", FormatNumber(eta));
  report.Row("  u = v = c0 T^(1/4)", FormatNumber(penalty_u));
  report.Row("  Objective batch size (t = 0)",
             std::to_string(first_objective_batch_size));
  report.Row("  Constraint batch size (t = 0)",
             std::to_string(first_constraint_batch_size));
  report.Section("Point");
  report.Row("  Initial rho", FormatNumber(initial_rho));
  report.Row("  Final rho", FormatNumber(final_rho));
  report.Row(objectives_exact ? "  Objectives (exact)"
                              : "  Objectives (mini-batch estimate)",
             FormatVector(objectives));
  report.Row("  z", FormatVector(z));
  if (has_exact_kkt) {
    report.Row("  ||h(z)||_2 (exact)", FormatNumber(constraint_norm));
    report.Row("  ||h(z)||_inf (exact)", FormatNumber(constraint_max_norm));
    report.Section("KKT system (exact functions)");
    report.Row("  ||K||^2 (Algorithm 3 multipliers)",
               FormatNumber(kkt.with_solver_multipliers.SquaredNorm()));
    report.Row("  ||K||^2 (least squares)",
               FormatNumber(kkt.with_least_squares_multipliers.SquaredNorm()));
    report.Row("  Average ||K_t||^2 (scored iterations)",
               FormatNumber(average_kkt_residual_sq));
    report.Row("  Scored iterations", std::to_string(num_scored_iterations));
  } else {
    report.Section("KKT system: not scored (no exact functions available).");
  }
  report.Section("Work");
  report.Row("  Iterations", std::to_string(iterations));
  report.Row("  Objective samples", std::to_string(objective_samples));
  report.Row("  Constraint samples", std::to_string(constraint_samples));
  report.Row("  Samples drawn", std::to_string(samples_drawn));
  report.Evaluations(evaluations);
  report.TotalTime(total_time_in_seconds);
  report.Termination(termination_type, message);
  return report.str();
}

namespace {

void SolveStochastic(const StochasticSolver::Options& options,
                     const StochasticProblem& problem,
                     const std::vector<double>& preference,
                     StochasticSolver::Summary* summary) {
  if (summary == nullptr) return;
  Evaluator* exact = options.exact;
  const internal::WallTimer timer;
  *summary = StochasticSolver::Summary();
  summary->preference = preference;
  summary->seed = options.seed;
  auto fail = [&](const std::string& message) {
    internal::Fail(timer, message, summary);
  };
  std::string error;
  if (!options.IsValid(&error)) return fail(error);
  if (!problem.IsValid(&error)) return fail("Invalid problem: " + error);
  const int k = problem.NumParameters();
  const int S = problem.NumObjectives();
  const int q = problem.NumConstraints();
  summary->num_parameters = k;
  summary->num_objectives = S;
  summary->num_constraints = q;
  if (!ValidatePreference(preference, S, &error)) return fail(error);
  if (!options.objective_offset.empty() &&
      static_cast<int>(options.objective_offset.size()) != S) {
    std::ostringstream os;
    os << "StochasticSolver::Options::objective_offset has "
       << options.objective_offset.size() << " entries but the problem has "
       << S << " objectives; give one offset per objective or none.";
    return fail(os.str());
  }
  std::unique_ptr<Evaluator> owned_exact;
  if (exact == nullptr) {
    owned_exact = problem.MakeExpectationEvaluator();
    exact = owned_exact.get();
  } else if (exact->NumParameters() != k || exact->NumObjectives() != S ||
             exact->NumConstraints() != q) {
    std::ostringstream os;
    os << "The exact evaluator has (k, S, q) = (" << exact->NumParameters()
       << ", " << exact->NumObjectives() << ", " << exact->NumConstraints()
       << ") but the stochastic problem has (" << k << ", " << S << ", " << q
       << ").";
    return fail(os.str());
  }
  if (exact != nullptr && exact->manifold() != nullptr) {
    return fail(
        "The exact evaluator declares a manifold (Evaluator::manifold() != "
        "nullptr), but the stochastic solver steps in R^k and would leave "
        "it. Pass an evaluator without a manifold, or write the manifold as "
        "an equality constraint.");
  }
  if (exact != nullptr && exact->NumInequalityConstraints() > 0) {
    return fail(
        "The exact evaluator has inequality constraints, which the "
        "stochastic problem (Algorithm 3) does not model. Score the "
        "stochastic solution with an evaluator of the same equality-"
        "constrained problem.");
  }
  // The box every iterate is projected onto (empty without bounds).
  Eigen::VectorXd lower, upper;
  if (problem.HasBounds()) problem.GetBounds(&lower, &upper);
  if (exact != nullptr &&
      (exact->HasBounds() != problem.HasBounds() ||
       (problem.HasBounds() &&
        (exact->lower_bounds() != lower || exact->upper_bounds() != upper)))) {
    return fail(
        "The exact evaluator's bounds differ from the stochastic problem's "
        "(StochasticProblem::SetParameterLowerBound / UpperBound); the KKT "
        "report would score another problem. Use "
        "StochasticProblem::MakeExpectationEvaluator, or set the same bounds "
        "on both.");
  }
  summary->has_exact_kkt = exact != nullptr;

  Eigen::VectorXd lambda =
      Eigen::Map<const Eigen::VectorXd>(preference.data(), S);
  lambda /= lambda.sum();
  Eigen::VectorXd offset = Eigen::VectorXd::Zero(S);
  if (!options.objective_offset.empty()) {
    offset =
        Eigen::Map<const Eigen::VectorXd>(options.objective_offset.data(), S);
  }
  summary->objective_offset_used.assign(offset.data(), offset.data() + S);

  const int T = options.max_iterations;
  const double eta = options.eta0 * std::pow(T, -0.25);
  const double u = options.c0 * std::pow(T, 0.25);
  const double v = u;
  summary->eta = eta;
  summary->penalty_u = u;
  summary->penalty_v = v;
  summary->first_objective_batch_size = options.ObjectiveBatchSize(0);
  summary->first_constraint_batch_size = options.ConstraintBatchSize(0);

  std::mt19937_64 rng(options.seed);
  Eigen::VectorXd z(k);
  problem.GetParameters(z.data());
  if (!z.allFinite()) {
    return fail(
        "The start point has non-finite entries; initialize every "
        "parameter block.");
  }
  if (lower.size() > 0) z = z.cwiseMax(lower).cwiseMin(upper);

  Eigen::VectorXd f(S), h(q), jt_h(k), f_exact(S), h_exact(q), jt_nu(k);
  Eigen::MatrixXd grad_f(k, S), grad_exact(k, S);
  auto count_samples = [&](int objective_batch, int constraint_batch) {
    summary->objective_samples += static_cast<int64_t>(objective_batch) * S;
    summary->constraint_samples +=
        static_cast<int64_t>(constraint_batch) * problem.NumConstraintBlocks();
    summary->samples_drawn =
        summary->objective_samples + summary->constraint_samples;
  };

  // rho_0.
  double rho = options.initial_rho;
  if (std::isnan(rho)) {
    Eigen::VectorXd f0(S);
    if (exact != nullptr) {
      if (!exact->Evaluate(
              z.data(), f0.data(), h_exact.data(), nullptr, &error)) {
        return fail("At the start point (exact functions): " + error);
      }
    } else {
      const int b = options.ObjectiveBatchSize(0);
      if (!problem.EvaluateMiniBatch(z.data(),
                                     b,
                                     1,
                                     &rng,
                                     f0.data(),
                                     nullptr,
                                     h.data(),
                                     nullptr,
                                     &error)) {
        return fail("At the start point: " + error);
      }
      count_samples(b, 1);
    }
    rho = lambda.cwiseProduct(f0 + offset).maxCoeff();
  }
  rho = std::max(rho, 0.0);
  summary->initial_rho = rho;

  Eigen::VectorXd delta = Eigen::VectorXd::Zero(S);
  double kkt_sum = 0.0;
  int scored = 0;
  summary->termination_type = ceres::NO_CONVERGENCE;
  int t = 0;
  for (; t < T; ++t) {
    // Exact ||K_t||^2 with Algorithm 3's multipliers.
    double kkt_sq = -1.0;
    if (exact != nullptr && options.kkt_every_n_iterations > 0 &&
        t % options.kkt_every_n_iterations == 0) {
      if (!exact->Evaluate(z.data(),
                           f_exact.data(),
                           h_exact.data(),
                           grad_exact.data(),
                           &error)) {
        std::ostringstream os;
        os << "Iteration " << t << " (exact functions): " << error
           << " ||z|| = " << z.norm()
           << "; if the iterates diverged, lower eta0 or raise the batch "
              "sizes.";
        return fail(os.str());
      }
      f_exact += offset;
      const Eigen::VectorXd omega =
          v * ((lambda.cwiseProduct(f_exact) + delta).array() - rho).matrix();
      const Eigen::VectorXd nu = u * h_exact;
      if (q > 0) {
        exact->JacobianTransposeMultiply(nu.data(), jt_nu.data());
      } else {
        jt_nu.setZero();
      }
      // With bounds, the bounds get the multipliers ecmo::BoundMultiplier
      // credits for the penalty's gradient, as in the projected gradient.
      KktMultipliers multipliers;
      multipliers.omega = omega;
      multipliers.nu = nu;
      if (lower.size() > 0) {
        CreditBoundMultipliers(grad_exact * lambda.cwiseProduct(omega) + jt_nu,
                               z,
                               lower,
                               upper,
                               &multipliers.bound_lower,
                               &multipliers.bound_upper);
      }
      kkt_sq = ComputeKktResidual(rho,
                                  lambda,
                                  f_exact,
                                  grad_exact,
                                  h_exact,
                                  0,
                                  jt_nu,
                                  multipliers,
                                  z,
                                  lower,
                                  upper)
                   .SquaredNorm();
      kkt_sum += kkt_sq;
      ++scored;
    }

    const int b_obj = options.ObjectiveBatchSize(t);
    const int b_con = options.ConstraintBatchSize(t);
    if (!problem.EvaluateMiniBatch(z.data(),
                                   b_obj,
                                   b_con,
                                   &rng,
                                   f.data(),
                                   grad_f.data(),
                                   h.data(),
                                   jt_h.data(),
                                   &error)) {
      return fail("Iteration " + std::to_string(t) + ": " + error);
    }
    count_samples(b_obj, b_con);
    f += offset;
    const Eigen::VectorXd r = (lambda.cwiseProduct(f) + delta).array() - rho;
    const double d_rho = 1.0 - v * r.sum();
    const Eigen::VectorXd d_z =
        u * jt_h + v * (grad_f * lambda.cwiseProduct(r));
    const Eigen::VectorXd d_delta = v * r;
    rho -= eta * d_rho;
    z -= eta * d_z;
    if (lower.size() > 0) z = z.cwiseMax(lower).cwiseMin(upper);
    delta = (delta - eta * d_delta).cwiseMax(0.0);
    const double gradient_norm =
        std::sqrt(d_rho * d_rho + d_z.squaredNorm() + d_delta.squaredNorm());
    if (!std::isfinite(rho) || !z.allFinite() || !delta.allFinite() ||
        std::abs(rho) > 1e150) {
      std::ostringstream os;
      os << "Iteration " << t << ": the iterates diverged (rho = " << rho
         << "). The step eta = " << eta
         << " is too long for this problem's curvature or noise; lower eta0 "
            "or raise the batch sizes.";
      return fail(os.str());
    }
    if (options.record_history &&
        (t % options.history_stride == 0 || t + 1 == T)) {
      StochasticSolver::IterationSummary it;
      it.iteration = t;
      it.rho = rho;
      it.kkt_residual_sq = kkt_sq;
      it.average_kkt_residual_sq = scored > 0 ? kkt_sum / scored : -1.0;
      it.gradient_norm = gradient_norm;
      it.samples_drawn = summary->samples_drawn;
      summary->history.push_back(it);
    }
    if (timer.Seconds() > options.max_solver_time_in_seconds) {
      ++t;
      summary->message = "Maximum solver time reached.";
      break;
    }
  }
  summary->iterations = t;
  if (summary->message.empty() || t == T) {
    std::ostringstream os;
    os << "Completed T = " << T
       << " iterations (Algorithm 3 runs exactly T "
          "steps); "
       << summary->samples_drawn << " samples drawn.";
    summary->message = os.str();
  }
  summary->final_rho = rho;
  summary->delta = delta;
  summary->z = z;
  summary->num_scored_iterations = scored;
  if (scored > 0) summary->average_kkt_residual_sq = kkt_sum / scored;

  if (exact != nullptr) {
    if (!exact->Evaluate(
            z.data(), f_exact.data(), h_exact.data(), nullptr, &error)) {
      return fail("At the final point (exact functions): " + error);
    }
    summary->objectives = f_exact;
    summary->objectives_exact = true;
    summary->constraint_norm = h_exact.norm();
    summary->constraint_max_norm = q > 0 ? h_exact.cwiseAbs().maxCoeff() : 0.0;
    KktMultipliers multipliers;
    multipliers.omega =
        v * ((lambda.cwiseProduct(f_exact + offset) + delta).array() - rho)
                .matrix();
    multipliers.nu = u * h_exact;
    if (!ComputeKktReport(exact,
                          lambda,
                          offset,
                          rho,
                          z,
                          multipliers,
                          &summary->kkt,
                          &error)) {
      return fail("Scoring the final point: " + error);
    }
    summary->evaluations = exact->counts();
  } else {
    const int b = options.ObjectiveBatchSize(T > 0 ? T - 1 : 0);
    Eigen::VectorXd f_final(S);
    if (problem.EvaluateMiniBatch(z.data(),
                                  b,
                                  1,
                                  &rng,
                                  f_final.data(),
                                  nullptr,
                                  h.data(),
                                  nullptr,
                                  &error)) {
      count_samples(b, 1);
      summary->objectives = f_final;
    }
  }
  problem.SetParameters(z.data());
  summary->total_time_in_seconds = timer.Seconds();
}

}  // namespace

void Solve(const StochasticSolver::Options& options,
           StochasticProblem* problem,
           const std::vector<double>& preference,
           StochasticSolver::Summary* summary) {
  if (summary == nullptr) return;
  if (problem == nullptr) {
    *summary = StochasticSolver::Summary();
    summary->message = "ecmo::Solve (stochastic): the problem is null.";
    return;
  }
  SolveStochastic(options, *problem, preference, summary);
}

void Solve(const StochasticSolver::Options& options,
           const StochasticProblem& problem,
           const std::vector<double>& preference,
           StochasticSolver::Summary* summary,
           Evaluator* exact) {
  if (exact == nullptr) {
    SolveStochastic(options, problem, preference, summary);
    return;
  }
  StochasticSolver::Options with_exact = options;
  with_exact.exact = exact;
  SolveStochastic(with_exact, problem, preference, summary);
}

}  // namespace ecmo
