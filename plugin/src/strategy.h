// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the contract between ecmo::Solve and a strategy.
//
// Solve() validates options, problem and preference, computes the objective
// offset and the start (rho0, z0), then calls one strategy function. The
// strategy iterates and fills StrategyOutput; Solve() then scores the final
// point with the shared KKT function (strategy multipliers and least-squares
// multipliers), fills the rest of the Summary and writes the solution back.

#ifndef ECMO_INTERNAL_STRATEGY_H_
#define ECMO_INTERNAL_STRATEGY_H_

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/internal/report.h"
#include "ecmo/kkt.h"
#include "ecmo/solver.h"

namespace ecmo {
namespace internal {

// When a point counts as converged: the paper's absolute ||K||^2 test
// (Solver::Options::kkt_tolerance > 0) or the certificate measured at the point
// (ecmo/kkt.h, KktCertificate).
struct StopRule {
  bool absolute = false;
  double kkt_tolerance = 0.0;  // absolute: ||K||^2 <= kkt_tolerance
  double stationarity_tolerance = 0.0;     // certificate
  double complementarity_tolerance = 0.0;  // certificate
  double feasibility_tolerance = 0.0;      // certificate
  double model_tolerance = KktCertificate::kDefaultModelTolerance;
  double stationarity_floor = 0.0;         // certificate
  // Heuristics only, never a verdict: the size (at most 1) of the
  // smallest weighted objective scale, from the scalarization or the start
  // point, for the rules that work on the raw ||K||^2 (RawEquivalent:
  // inner stopping, penalty growth). The certificate measures at the point.
  double heuristic_weight = 1.0;

  bool Met(double kkt_residual_sq, const KktCertificate& c) const {
    return absolute ? kkt_residual_sq <= kkt_tolerance
                    : c.Certifies(stationarity_tolerance,
                                  complementarity_tolerance,
                                  feasibility_tolerance,
                                  model_tolerance);
  }
  bool Met(const KktResidual& residual, const KktCertificate& c) const {
    return Met(residual.SquaredNorm(), c);
  }
  // Close enough that the least-squares multipliers may certify the point:
  // within `factor` (QuasiNewtonOptions::least_squares_certification_factor,
  // a factor on ||K||^2) of the absolute test, or within its square root of
  // the certificate's tolerances.
  bool IsClose(double kkt_residual_sq,
               const KktCertificate& c,
               double factor) const {
    return absolute ? kkt_residual_sq <= factor * kkt_tolerance
                    : Ratio(c) <= std::sqrt(factor);
  }
  // The least-squares multipliers this rule judges by: of the raw ||K||
  // (absolute) or of the certificate's own scaling.
  KktMultipliers LeastSquaresMultipliers(const KktSystem& system) const {
    return absolute ? system.LeastSquaresMultipliers()
                    : system.CertificateLeastSquaresMultipliers(
                          stationarity_floor);
  }
  // The certificate of `multipliers` at the point of `system`.
  KktCertificate Certificate(const KktSystem& system,
                             const KktMultipliers& multipliers,
                             const KktResidual& residual) const {
    return system.Certificate(multipliers, stationarity_floor, residual);
  }
  // The certificate the rule judges a linearized point by: Certificate
  // above, plus the model's decrease (KktSystem::ModelDecrease) where it
  // decides: with a Gauss-Newton model whenever every block but
  // stationarity meets the rule, with a Newton model only where the
  // relative stationarity block is what misses it (k Hessian products).
  // The absolute rule takes no model.
  KktCertificate CertifyAt(const KktSystem& system,
                           const KktMultipliers& multipliers,
                           const KktResidual& residual) const;
  // KktCertificate::Ratio with these tolerances.
  double Ratio(const KktCertificate& c) const {
    return c.Ratio(stationarity_tolerance, complementarity_tolerance,
                   feasibility_tolerance, model_tolerance);
  }
  // A raw ||K||^2 level that corresponds to the rule, for heuristics that
  // work on ||K||^2 (inner stopping, penalty growth): the absolute
  // tolerance, or the certificate's tolerances times the heuristic scales.
  double RawEquivalent() const;
  // "||K||^2 = ... <= ..." or "certificate ... <= ...".
  std::string Describe(const KktResidual& residual,
                       const KktCertificate& c) const;
};

struct StrategyInput {
  const Solver::Options* options = nullptr;
  // The strategy that runs (options->strategy, or what AUTOMATIC chose).
  StrategyType strategy = StrategyType::WC_AUGMENTED_LAGRANGIAN;
  // WC_SQP's iteration budget: options->max_iterations, or less when
  // AUTOMATIC runs it (kAutomaticSqpMaxIterations).
  int max_iterations = 0;
  Evaluator* evaluator = nullptr;
  // S, positive: the preference divided by the objective scales,
  // lambda_s / w_s (sums to 1 when w = 1).
  Eigen::VectorXd lambda;
  Eigen::VectorXd offset;  // S, added to every objective value: -r
  StopRule stop;
  // Unboundedness test (see IsUnboundedEvidence): rho below this value at
  // a nearly feasible point means the objectives are unbounded below.
  double rho_floor = -std::numeric_limits<double>::infinity();
  // True when the user asserted r below every attainable value (the
  // paper's objective_offset or a given reference point); the faithful
  // strategy then also treats a nearly feasible objective below r as
  // evidence of unboundedness.
  bool reference_is_lower_bound = false;
  double rho0 = 0.0;
  // Solver::Options::warm_start.omega carried over to this preference
  // (WarmStart::preference, CarryWarmStartOver), or empty: the weights at
  // which z0 minimizes the weighted sum, where wc-newton's Ceres phase
  // starts.
  Eigen::VectorXd ceres_phase_omega;
  Eigen::VectorXd z0;      // k
  const WallTimer* timer = nullptr;
};

struct StrategyOutput {
  TerminationType termination_type = ceres::FAILURE;
  std::string message;
  int iterations = 0;
  double rho = 0.0;
  Eigen::VectorXd z;
  Eigen::VectorXd delta;  // may stay empty for strategies without slacks
  // The strategy's own multiplier estimates at (rho, z).
  KktMultipliers multipliers;
  // Running average of ||K_t||^2 over the iterations, or -1.
  double average_kkt_residual_sq = -1.0;
  // Optional: a KktSystem linearized at (rho, z) with the input's lambda
  // and offset, the evaluator still linearized there; Solve() then scores
  // the final point with it instead of linearizing again. Not owned: one of
  // the evaluator's kept systems (solve_workspace.h).
  const KktSystem* system = nullptr;
};

// Evaluates shifted objectives: f = F(z) + offset. Convenience for
// strategies. grad_f may be null.
// The blocks of `c` that miss options' tolerances, with their values and
// the scales they were measured against ("no block fails" when none).
std::string DescribeFailingBlocks(const KktCertificate& c,
                                  const Solver::Options& options);

bool EvaluateShifted(Evaluator* evaluator,
                     const Eigen::VectorXd& offset,
                     const Eigen::VectorXd& z,
                     Eigen::VectorXd* f,
                     Eigen::VectorXd* h,
                     Eigen::MatrixXd* grad_f,
                     std::string* error);

// ||h||_inf at or below which an iterate counts as nearly feasible for the
// unboundedness tests.
constexpr double kNearlyFeasible = 1e-6;

// True when (rho, ||h||_inf) is evidence that the WC problem is unbounded
// below: the iterate is nearly feasible (||h||_inf <= 1e-6) and rho fell
// below input.rho_floor, far beneath any value the start point and the
// objective scales make attainable. Infeasible iterates below the
// reference point are ordinary and never count.
bool IsUnboundedEvidence(const StrategyInput& input,
                         double rho,
                         double constraint_max_norm);
// The FAILURE message for that case.
std::string UnboundedMessage(double rho,
                             double constraint_max_norm,
                             double rho_floor);

// Calls the user callbacks; returns the first non-continue answer.
CallbackReturnType RunCallbacks(const Solver::Options& options,
                                const IterationSummary& summary);

// Algorithm 1 (StrategyType::WC_PENALTY_PGD). Also fills summary->eta,
// penalty_u, penalty_v, step_rule, num_shortened_steps and history.
void RunWcPenaltyPgd(const StrategyInput& input,
                     StrategyOutput* output,
                     Solver::Summary* summary);

// Whether the inner solves of WC_PENALTY_LBFGS / WC_AUGMENTED_LAGRANGIAN
// can run on BoxLbfgs, the inner solver that takes bounds: one of those two
// strategies, quasi_newton.use_ceres_inner_solver false and the LBFGS line
// search direction (wc_lbfgs_inner.cc; a manifold keeps Ceres' solver too).
bool CanUseBoxLbfgs(const Solver::Options& options, StrategyType strategy);

// StrategyType::WC_PENALTY_LBFGS and StrategyType::WC_AUGMENTED_LAGRANGIAN
// (wc_quasi_newton.cc). Both fill output->multipliers with the first-order
// multipliers of the last inner solve (or the least-squares ones when those
// certified convergence), and summary->inner_iterations,
// num_penalty_increases, penalty_u, penalty_v, inner_message, certified_by,
// iterations (outer) and history (one entry per outer iteration).
void RunWcPenaltyLbfgs(const StrategyInput& input,
                       StrategyOutput* output,
                       Solver::Summary* summary);
void RunWcAugmentedLagrangian(const StrategyInput& input,
                              StrategyOutput* output,
                              Solver::Summary* summary);
// StrategyType::WC_NEWTON: the augmented Lagrangian's outer loop with the
// trust-region Newton inner solves of wc_newton_inner.cc.
void RunWcNewton(const StrategyInput& input,
                 StrategyOutput* output,
                 Solver::Summary* summary);
// StrategyType::WC_SQP (wc_sqp.cc). Fills summary->inner_iterations (= its
// iterations), inner_message (the curvature used and the merit penalty),
// certified_by and history (one entry per iteration; `penalty` is the
// exact penalty, step_size the line search's step).
void RunWcSqp(const StrategyInput& input,
              StrategyOutput* output,
              Solver::Summary* summary);
// Maximizes p^T w - 1/2 w^T Q w over the unit simplex (Q symmetric positive
// semidefinite): the dual of WC_SQP's quadratic program (exposed for its
// test).
Eigen::VectorXd MaximizeOnSimplex(const Eigen::MatrixXd& Q,
                                  const Eigen::VectorXd& p);
// The same into *out (its storage reused when it has S entries).
void MaximizeOnSimplex(const Eigen::MatrixXd& Q,
                       const Eigen::VectorXd& p,
                       Eigen::VectorXd* out);

// Checks a point read back from a file before it counts (a sweep's
// resume): f at summary.z, evaluated with `evaluator`, must be finite and
// match summary.objectives to rounding (a relative 1e-8), and a
// CONVERGENCE point must pass the certificate of `options` again, with its
// saved rho, multipliers and scalarization. False with a message naming
// what differs. One gradient evaluation and one KKT report per certified
// point.
bool CheckSavedPoint(const Solver::Options& options,
                     Evaluator* evaluator,
                     const Solver::Summary& summary,
                     std::string* error);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_STRATEGY_H_
