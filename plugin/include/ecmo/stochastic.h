// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Stochastic WC-Penalty: the paper's Algorithm 3 ("Stochastic WC-Penalty
// Algorithm") for ECMO problems whose objectives and constraints are
// expectations,
//
//   f_s(z) = E_xi[f_s(z; xi)],   h_i(z) = E_zeta[h_i(z; zeta)],
//
// solved by projected stochastic gradient steps on the WC penalty
//
//   P(rho, z, delta) = rho + u/2 ||h(z)||^2
//                      + v/2 sum_s (lambda_s f_s(z) + delta_s - rho)^2
//
// over theta = (rho, z, delta >= 0), where every iteration t draws fresh
// mini-batches B_t^s (one per objective, size B(t)) and T_t^i (one per
// constraint term, size T(t)) and uses the paper's gradient estimate
// (Eq. "gradient-stoc"): the value and the gradient of a term come from the
// SAME mini-batch,
//
//   d_rho   = 1 - v sum_s r_s,     r_s = lambda_s f_s(z; B^s) + delta_s - rho
//   d_z     = u sum_i h_i(z; T^i) grad h_i(z; T^i)
//             + v sum_s r_s lambda_s grad f_s(z; B^s)
//   d_delta = v r.
//
// Schedule (Theorem "Finite-Time Convergence Rate of Algorithm 3"):
// eta = Theta(T^(-1/4)), u = v = Theta(T^(1/4)) and a CONSTANT batch size
// B(t) = T(t) = Theta(T^(5/4)) for every t (it grows with the budget T, not
// with the iteration t). Then, with probability at least 1 - kappa,
//
//   1/T sum_{t<T} ||K(rho_t, z_t, omega_t, nu_t, lambda)||^2 = O(S / T^(1/2)),
//
// with the multipliers omega_t = v (lambda f(z_t) + delta_t - rho_t) and
// nu_t = u h(z_t) of the EXACT functions. That average needs the exact
// functions; give them as an Evaluator (or let the problem build one from
// the functions' expectations) and the solver measures it.
//
// Because a term's value and gradient come from the same mini-batch, the
// products r_s grad f_s(z; B^s) and h_i grad h_i are biased by
// O(v Cov / B): with a small fixed batch the iterates settle visibly away
// from the solution (e.g. 0.45 on the finite-sum test with B = 64, v = 4.7);
// the theorem's B = Theta(T^(5/4)) >> v makes the bias vanish.
//
// This is a separate entry point (not a StrategyType): the problem type
// differs. The API follows ecmo::Solve: Options with IsValid(), a Summary
// with BriefReport()/FullReport(). Randomness comes only from one
// std::mt19937_64 seeded by Options::seed and used in a fixed order, so
// identical seeds give identical results (on the same build).
//
//   ecmo::StochasticProblem problem;
//   problem.AddObjective(new MyNoisyLoss(...), {z});   // StochasticFunction
//   problem.AddConstraint(new MyNoisyConstraint(...), {z});
//   ecmo::StochasticSolver::Options options;
//   options.max_iterations = 1000;
//   ecmo::StochasticSolver::Summary summary;
//   ecmo::Solve(options, &problem, {0.5, 0.5}, &summary);

#ifndef ECMO_STOCHASTIC_H_
#define ECMO_STOCHASTIC_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/types.h"

namespace ecmo {

// A random vector function phi(z) = E_xi[phi(z; xi)] with num_residuals()
// outputs over parameter blocks of the given sizes (Ceres' layout: values
// and row-major Jacobians per block).
class StochasticFunction {
 public:
  virtual ~StochasticFunction();

  // Draws batch_size samples xi_1..xi_B with `rng` and writes the averages
  //   values       = 1/B sum_b phi(z; xi_b)                   (m entries)
  //   jacobians[j] = 1/B sum_b d phi(z; xi_b) / d block_j    (m x n_j)
  // jacobians may be null (values only) and single entries may be null.
  // All randomness must come from rng. Returns false on failure.
  virtual bool EvaluateMiniBatch(const double* const* parameters,
                                 int batch_size,
                                 std::mt19937_64* rng,
                                 double* values,
                                 double** jacobians) const = 0;

  // The exact expectation E[phi(z; xi)] and its Jacobian, when known (e.g.
  // a finite data set). The default returns false: unknown.
  virtual bool EvaluateExpectation(const double* const* parameters,
                                   double* values,
                                   double** jacobians) const;

  int num_residuals() const { return num_residuals_; }
  const std::vector<int32_t>& parameter_block_sizes() const {
    return parameter_block_sizes_;
  }

 protected:
  void set_num_residuals(int m) { num_residuals_ = m; }
  std::vector<int32_t>* mutable_parameter_block_sizes() {
    return &parameter_block_sizes_;
  }

 private:
  int num_residuals_ = 0;
  std::vector<int32_t> parameter_block_sizes_;
};

// Convenience base: implement one draw, EvaluateSample, and the mini-batch
// average is formed here (batch_size calls).
class SingleSampleFunction : public StochasticFunction {
 public:
  // One sample xi ~ rng: phi(z; xi) and its Jacobians (may be null).
  virtual bool EvaluateSample(const double* const* parameters,
                              std::mt19937_64* rng,
                              double* values,
                              double** jacobians) const = 0;

  bool EvaluateMiniBatch(const double* const* parameters,
                         int batch_size,
                         std::mt19937_64* rng,
                         double* values,
                         double** jacobians) const override;
};

// A finite data set: phi(z) = 1/N sum_n c_n(z) with one ceres::CostFunction
// per data point (all of the same shape). Mini-batches are drawn uniformly
// WITH replacement; the expectation (full-data average) is exact.
class FiniteSumFunction final : public StochasticFunction {
 public:
  FiniteSumFunction();
  ~FiniteSumFunction() override;

  // Takes ownership. The first sample fixes the shape; later ones must
  // match (returns false and destroys the cost function otherwise).
  bool AddSample(ceres::CostFunction* cost_function);
  int NumSamples() const { return static_cast<int>(samples_.size()); }

  bool EvaluateMiniBatch(const double* const* parameters,
                         int batch_size,
                         std::mt19937_64* rng,
                         double* values,
                         double** jacobians) const override;
  bool EvaluateExpectation(const double* const* parameters,
                           double* values,
                           double** jacobians) const override;

 private:
  bool Accumulate(const double* const* parameters,
                  int index,
                  double weight,
                  double* values,
                  double** jacobians) const;
  std::vector<std::unique_ptr<ceres::CostFunction>> samples_;
};

// Stochastic objectives (one residual each) and constraint terms over
// user-owned parameter blocks, as in ecmo::Problem. Owns the functions.
// Errors are recorded, never thrown: IsValid() names the first one.
class StochasticProblem {
 public:
  StochasticProblem();
  ~StochasticProblem();
  StochasticProblem(const StochasticProblem&) = delete;
  StochasticProblem& operator=(const StochasticProblem&) = delete;

  bool AddParameterBlock(double* values, int size);
  // Returns the index, or -1 (the function is destroyed).
  int AddObjective(StochasticFunction* function,
                   const std::vector<double*>& parameter_blocks,
                   const std::string& name = "");
  int AddConstraint(StochasticFunction* function,
                    const std::vector<double*>& parameter_blocks,
                    const std::string& name = "");

  // Bounds on component `index` of the registered block `values`, with the
  // semantics and messages of ecmo::Problem::SetParameterLowerBound /
  // UpperBound (Ceres' calls): +-inf or +-std::numeric_limits<double>::max()
  // mean unbounded; an unknown block, an index out of range or a NaN bound
  // returns false and is reported by IsValid, as is a lower bound above the
  // upper one. The stochastic solver projects every iterate onto the box
  // (Algorithm 1's projected step, which Algorithm 3 samples), and
  // MakeExpectationEvaluator's evaluator carries the bounds, so the KKT
  // report credits their multipliers.
  bool SetParameterLowerBound(double* values, int index, double lower_bound);
  bool SetParameterUpperBound(double* values, int index, double upper_bound);
  // Whether some component has a finite bound.
  bool HasBounds() const;
  // lower / upper receive the packed bounds of z (size NumParameters();
  // -inf / +inf where unbounded).
  void GetBounds(Eigen::VectorXd* lower, Eigen::VectorXd* upper) const;

  bool IsValid(std::string* error) const;
  int NumObjectives() const { return static_cast<int>(objectives_.size()); }
  int NumConstraintBlocks() const {
    return static_cast<int>(constraints_.size());
  }
  int NumConstraints() const { return num_constraints_; }
  int NumParameters() const { return num_parameters_; }
  void GetParameters(double* z) const;
  void SetParameters(const double* z) const;

  // An Evaluator over the exact expectations (for the KKT report), or null
  // when some function does not implement EvaluateExpectation. The problem
  // must outlive it.
  std::unique_ptr<Evaluator> MakeExpectationEvaluator() const;

  // One mini-batch gradient estimate at packed z: for every objective s a
  // batch of objective_batch samples gives f[s] and column s of grad_f
  // (k x S, column-major); for every constraint term a batch of
  // constraint_batch samples gives its residuals h_i (written into h) and
  // adds J_i^T h_i to jt_h (size k). Returns false with a message on
  // failure (non-finite values included).
  bool EvaluateMiniBatch(const double* z,
                         int objective_batch,
                         int constraint_batch,
                         std::mt19937_64* rng,
                         double* f,
                         double* grad_f,
                         double* h,
                         double* jt_h,
                         std::string* error) const;

 private:
  struct Block {
    double* values = nullptr;
    int size = 0;
    int offset = 0;
    // Per-component bounds (size `size`), or both empty when none was set.
    std::vector<double> lower;
    std::vector<double> upper;
  };
  struct Term {
    std::unique_ptr<StochasticFunction> function;
    std::vector<int> blocks;
    std::string name;
    int residual_offset = 0;
  };
  friend class StochasticExpectationEvaluator;
  int AddTerm(StochasticFunction* function,
              const std::vector<double*>& parameter_blocks,
              const std::string& name,
              bool is_objective);
  void RecordError(const std::string& error);
  bool SetBound(double* values, int index, double bound, bool is_lower);

  std::vector<Block> blocks_;
  std::map<const double*, int> block_index_;
  std::vector<Term> objectives_;
  std::vector<Term> constraints_;
  int num_parameters_ = 0;
  int num_constraints_ = 0;
  std::string first_error_;
};

class StochasticSolver {
 public:
  struct Options {
    // T: number of iterations; also sets the schedule. > 0.
    int max_iterations = 1000;
    // eta = eta0 T^(-1/4); u = v = c0 T^(1/4). > 0.
    double eta0 = 0.01;
    double c0 = 1.0;

    // Batch sizes. The theorem's schedule (default): the same size
    //   B = T_batch = ceil(batch_size_factor * T^batch_size_exponent)
    // at every iteration, exponent 5/4. objective_batch_size /
    // constraint_batch_size > 0 override it with a fixed size;
    // batch_size_schedule (if set) overrides both per iteration: it gets
    // (t, T) and returns the size for both kinds of batch (> 0).
    double batch_size_factor = 1.0;     // > 0
    double batch_size_exponent = 1.25;  // >= 0
    int objective_batch_size = 0;       // >= 0 (0 = schedule)
    int constraint_batch_size = 0;      // >= 0 (0 = schedule)
    std::function<int(int t, int T)> batch_size_schedule;

    // Seed of the one std::mt19937_64 that draws every sample.
    uint64_t seed = 0;

    // As in Solver::Options: constant added to each objective (WC needs
    // f_s > 0); empty means zeros.
    std::vector<double> objective_offset;
    // rho_0. NaN (default): max_s lambda_s (f_s(z0) + offset_s), with f the
    // exact values when an exact evaluator is available, else a mini-batch
    // estimate. The paper requires rho_0 >= 0: a negative value is raised
    // to 0.
    double initial_rho = std::numeric_limits<double>::quiet_NaN();

    // Score ||K_t||^2 with the exact functions every n-th iteration (the
    // theorem's average is over the scored iterations). 0 disables
    // per-iteration scoring (the final point is still scored). >= 0.
    int kkt_every_n_iterations = 1;

    // The exact functions, for the KKT scores (NOT owned; may be null).
    // Null (default): the problem's expectation evaluator when every
    // function provides its expectation, otherwise no KKT score is
    // reported (Summary::has_exact_kkt = false). When given, its sizes
    // must match the problem's and it must not declare a manifold.
    Evaluator* exact = nullptr;

    double max_solver_time_in_seconds = 1e9;  // > 0
    bool record_history = false;
    int history_stride = 1;  // >= 1

    bool IsValid(std::string* error) const;
    // The batch sizes the options give for iteration t of T (the schedule
    // or the overrides). Values are clamped to [1, 2^31 - 1].
    int ObjectiveBatchSize(int t) const;
    int ConstraintBatchSize(int t) const;
  };

  struct IterationSummary {
    int iteration = 0;
    double rho = 0.0;
    // Exact ||K_t||^2 (-1 when not scored) and the running average.
    double kkt_residual_sq = -1.0;
    double average_kkt_residual_sq = -1.0;
    // Norm of the stochastic gradient estimate.
    double gradient_norm = 0.0;
    int64_t samples_drawn = 0;  // cumulative
  };

  struct Summary {
    std::string BriefReport() const;
    std::string FullReport() const;
    bool IsSolutionUsable() const;

    TerminationType termination_type = ceres::FAILURE;
    std::string message = "ecmo::Solve (stochastic) was not called.";

    int num_parameters = -1;
    int num_objectives = -1;
    int num_constraints = -1;
    std::vector<double> preference;
    std::vector<double> objective_offset_used;
    uint64_t seed = 0;

    // Schedule as used.
    double eta = -1.0;
    double penalty_u = -1.0;
    double penalty_v = -1.0;
    int first_objective_batch_size = 0;
    int first_constraint_batch_size = 0;

    int iterations = -1;
    // Samples drawn: per kind and in total (every sample of every batch).
    int64_t objective_samples = 0;
    int64_t constraint_samples = 0;
    int64_t samples_drawn = 0;

    double initial_rho = 0.0;
    double final_rho = 0.0;
    Eigen::VectorXd delta;
    Eigen::VectorXd z;
    // Objectives at z: exact when available, else a mini-batch estimate.
    Eigen::VectorXd objectives;
    bool objectives_exact = false;

    // Scored with the exact functions (has_exact_kkt): the final KKT report
    // (Algorithm 3's multipliers omega = v (lambda f + delta - rho),
    // nu = u h, and least squares), ||h(z)||, and the theorem's average of
    // ||K_t||^2 over the scored iterations t < T (-1 when not scored).
    bool has_exact_kkt = false;
    KktReport kkt;
    // ||h(z)||_2 and ||h(z)||_inf of the exact constraints (-1 when not
    // scored).
    double constraint_norm = -1.0;
    double constraint_max_norm = -1.0;
    double average_kkt_residual_sq = -1.0;
    int num_scored_iterations = 0;

    // Evaluations of the exact functions (Options::exact or the problem's
    // expectation evaluator); mini-batch draws are counted in samples_drawn.
    EvaluationCounts evaluations;
    double total_time_in_seconds = -1.0;
    std::vector<IterationSummary> history;
  };
};

// Runs Algorithm 3 for `preference` (open simplex, as ecmo::Solve). The
// start is read from the problem's parameter blocks and the final point is
// written back when usable. Options::exact chooses the exact functions used
// for the KKT scores.
void Solve(const StochasticSolver::Options& options,
           StochasticProblem* problem,
           const std::vector<double>& preference,
           StochasticSolver::Summary* summary);

// Legacy form (kept for existing callers): the problem by const reference
// and `exact` after the summary. Equivalent to setting options.exact =
// exact (when not null) and calling the overload above.
void Solve(const StochasticSolver::Options& options,
           const StochasticProblem& problem,
           const std::vector<double>& preference,
           StochasticSolver::Summary* summary,
           Evaluator* exact = nullptr);

}  // namespace ecmo

#endif  // ECMO_STOCHASTIC_H_
