// ceres-ecmo internal: the contract between ecmo::Solve and a strategy.
//
// Solve() validates options, problem and preference, computes the objective
// offset and the start (rho0, z0), then calls one strategy function. The
// strategy iterates and fills StrategyOutput; Solve() then scores the final
// point with the shared KKT function (strategy multipliers and least-squares
// multipliers), fills the rest of the Summary and writes the solution back.

#ifndef ECMO_INTERNAL_STRATEGY_H_
#define ECMO_INTERNAL_STRATEGY_H_

#include <chrono>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/solver.h"

namespace ecmo {
namespace internal {

// Seconds since construction.
class WallTimer {
 public:
  WallTimer() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

struct StrategyInput {
  const Solver::Options* options = nullptr;
  Evaluator* evaluator = nullptr;
  Eigen::VectorXd lambda;  // S, in the open simplex, sums to 1
  Eigen::VectorXd offset;  // S, added to every objective value
  double rho0 = 0.0;
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
};

// Evaluates shifted objectives: f = F(z) + offset. Convenience for
// strategies. grad_f may be null.
bool EvaluateShifted(Evaluator* evaluator,
                     const Eigen::VectorXd& offset,
                     const Eigen::VectorXd& z,
                     Eigen::VectorXd* f,
                     Eigen::VectorXd* h,
                     Eigen::MatrixXd* grad_f,
                     std::string* error);

// Calls the user callbacks; returns the first non-continue answer.
CallbackReturnType RunCallbacks(const Solver::Options& options,
                                const IterationSummary& summary);

// Algorithm 1 (StrategyType::WC_PENALTY_PGD). Also fills summary->eta,
// penalty_u, penalty_v, step_rule, num_shortened_steps and history.
void RunWcPenaltyPgd(const StrategyInput& input,
                     StrategyOutput* output,
                     Solver::Summary* summary);

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

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_STRATEGY_H_
