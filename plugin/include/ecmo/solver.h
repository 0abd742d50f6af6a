// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Solving one weighted-Chebyshev (WC) subproblem of an ECMO problem:
//
//   min_{rho, z} rho  s.t.  lambda_s (f_s(z) + offset_s) <= rho,  h(z) = 0,
//
// for a preference lambda in the open simplex. Its solution is a (locally)
// weakly Pareto optimal point of the ECMO problem; sweeping lambda traces the
// front. The API follows Ceres: a plain Options struct with documented
// defaults and IsValid(), a Summary with BriefReport()/FullReport(), and a
// free Solve() function.
//
//   ecmo::Solver::Options options;
//   ecmo::Solver::Summary summary;
//   ecmo::Solve(options, &problem, {0.5, 0.5}, &summary);
//   std::cout << summary.FullReport() << "\n";
//
// The start point is read from the problem's parameter blocks; when the
// solution is usable (IsSolutionUsable()) it is written back into them.
// Solve never aborts and never throws: invalid options, an invalid problem,
// a bad preference or a failing cost function give a FAILURE summary whose
// message says what is wrong.

#ifndef ECMO_SOLVER_H_
#define ECMO_SOLVER_H_

#include <limits>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/types.h"

namespace ecmo {

class Problem;

// Per-iteration numbers passed to callbacks and kept in Summary::history.
struct IterationSummary {
  int iteration = 0;
  // Penalty function value P(theta_t).
  double penalty = 0.0;
  double rho = 0.0;
  // ||h(z_t)||_2.
  double constraint_norm = 0.0;
  // ||K(rho_t, z_t, omega_t, nu_t, lambda)||^2 with the strategy's own
  // multipliers at iteration t, and its running average over 0..t (the
  // quantity Theorem "Finite-Time Convergence Rate" bounds).
  double kkt_residual_sq = 0.0;
  double average_kkt_residual_sq = 0.0;
  // Step length used (eta_t) and ||theta_{t+1} - theta_t||.
  double step_size = 0.0;
  double step_norm = 0.0;
  // Seconds since Solve started.
  double cumulative_time_in_seconds = 0.0;
};

// Called once per iteration. The solver does NOT take ownership.
class IterationCallback {
 public:
  virtual ~IterationCallback() = default;
  // SOLVER_CONTINUE, SOLVER_ABORT (USER_FAILURE) or
  // SOLVER_TERMINATE_SUCCESSFULLY (USER_SUCCESS).
  virtual CallbackReturnType operator()(const IterationSummary& summary) = 0;
};

class Solver {
 public:
  struct Options {
    // Which strategy solves the WC subproblem.
    StrategyType strategy = StrategyType::WC_PENALTY_PGD;

    // T: the iteration budget. For WC_PENALTY_PGD it also sets the schedule
    // (eta = eta0 T^(-1/4), u = v = c0 T^(1/4)), so the faithful strategy
    // runs all T iterations unless kkt_tolerance stops it early.
    int max_iterations = 10000;

    // Stop as soon as ||K||^2 (strategy multipliers) <= kkt_tolerance.
    // 0 disables the test (the paper's algorithm runs exactly T steps).
    double kkt_tolerance = 0.0;

    // Wall-clock budget in seconds.
    double max_solver_time_in_seconds = 1e9;

    // Constant added to each objective before scalarization. The WC theory
    // needs f_s > 0; adding a constant keeps the Pareto set (but changes
    // which point a given lambda selects). Empty means zeros; otherwise the
    // size must equal the number of objectives.
    std::vector<double> objective_offset;
    // If true, objective_offset is ignored and offset_s =
    // 1 + max(0, -f_s(z0)) is used, so every shifted objective starts at or
    // above 1. Documented in the Summary (objective_offset_used).
    bool automatic_objective_offset = false;

    // Initial rho. NaN (default) means max_s lambda_s f_s(z0), which makes
    // the start feasible for the inequality constraints.
    double initial_rho = std::numeric_limits<double>::quiet_NaN();

    // Options of the paper-faithful projected gradient (Algorithm 1).
    struct PenaltyGradientOptions {
      // eta = eta0 * T^(-1/4).
      double eta0 = 0.01;
      // u = v = c0 * T^(1/4).
      double c0 = 1.0;
      StepRule step_rule = StepRule::BACKTRACKING;
      // Armijo constant for BACKTRACKING: accept when
      // P(theta+) <= P(theta) - armijo * ||theta+ - theta||^2 / eta_t.
      double armijo = 1e-4;
      // At most this many halvings per iteration.
      int max_backtracking_steps = 60;
    } pgd;

    // Keep one IterationSummary per iteration in Summary::history. With
    // history_stride > 1 only every stride-th iteration (and the last) is
    // kept, to bound memory on long runs.
    bool record_history = true;
    int history_stride = 1;

    // Print one line per logged iteration to stdout.
    bool minimizer_progress_to_stdout = false;
    // Print every n-th iteration when minimizer_progress_to_stdout is set.
    int progress_every_n_iterations = 1000;

    // Called every iteration; not owned.
    std::vector<IterationCallback*> callbacks;

    // Ceres-style validation: returns false and a message naming the field,
    // its value and the violated rule.
    bool IsValid(std::string* error) const;
  };

  struct Summary {
    // One line: strategy, iterations, final ||K||^2, termination.
    std::string BriefReport() const;
    // Multi-line report in the layout of ceres::Solver::Summary.
    std::string FullReport() const;
    bool IsSolutionUsable() const;

    TerminationType termination_type = ceres::FAILURE;
    std::string message = "ecmo::Solve was not called.";

    StrategyType strategy = StrategyType::WC_PENALTY_PGD;
    // Step rule used by WC_PENALTY_PGD.
    StepRule step_rule = StepRule::BACKTRACKING;

    int num_parameters = -1;   // k
    int num_objectives = -1;   // S
    int num_constraints = -1;  // q

    // Preference as given, and the objective offset used.
    std::vector<double> preference;
    std::vector<double> objective_offset_used;

    // Schedule of WC_PENALTY_PGD: eta, u and v as used (-1 if not used), and
    // the number of iterations on which backtracking shortened the step.
    double eta = -1.0;
    double penalty_u = -1.0;
    double penalty_v = -1.0;
    int num_shortened_steps = 0;

    int iterations = -1;
    EvaluationCounts evaluations;

    double initial_rho = 0.0;
    double final_rho = 0.0;
    // Final slack delta (S) of the penalty strategies.
    Eigen::VectorXd delta;
    // Final point and values: objectives are the user's (unshifted) f_s.
    Eigen::VectorXd z;
    Eigen::VectorXd objectives;
    Eigen::VectorXd initial_objectives;
    // ||h(z)||_2 and ||h(z)||_inf at the final point.
    double constraint_norm = -1.0;
    double constraint_max_norm = -1.0;

    // Final KKT scores (solver multipliers and least squares), and the
    // running average over all iterations of ||K_t||^2 with the strategy's
    // multipliers (the theorem's left-hand side; -1 if not defined).
    KktReport kkt;
    double average_kkt_residual_sq = -1.0;

    double total_time_in_seconds = -1.0;

    // Kept when Options::record_history is true.
    std::vector<IterationSummary> history;
  };
};

// Solves the WC subproblem for `preference` (size S, entries > 0, sum 1 up
// to 1e-9 relative; it is renormalized to sum exactly 1). Reads the start
// point from the problem's parameter blocks and writes the solution back when
// it is usable.
void Solve(const Solver::Options& options,
           const Problem& problem,
           const std::vector<double>& preference,
           Solver::Summary* summary);

// The same on any evaluator (e.g. a matrix-free one): z holds the start point
// on entry and the solution on return (when usable).
void Solve(const Solver::Options& options,
           Evaluator* evaluator,
           const std::vector<double>& preference,
           Eigen::VectorXd* z,
           Solver::Summary* summary);

// Checks that a preference lies in the open simplex: size S, finite, every
// entry > 0, sum 1 within 1e-9 relative. Message says what to change.
bool ValidatePreference(const std::vector<double>& preference,
                        int num_objectives,
                        std::string* error);

}  // namespace ecmo

#endif  // ECMO_SOLVER_H_
