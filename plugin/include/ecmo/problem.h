// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// ecmo::Problem describes
//
//   min_z  F(z) = [f_1(z), ..., f_S(z)]
//   subject to   h(z) = 0,   c(z) <= 0,   l <= z <= u,
//
// where z is the concatenation of user-owned parameter blocks (double arrays,
// exactly as in ceres::Problem), every objective f_s is a ceres::CostFunction
// with exactly one residual (its value is f_s, not squared), every equality
// constraint is a ceres::CostFunction with m_i >= 1 residuals, each of which
// must vanish (the q = sum_i m_i residuals form h), every inequality
// constraint a ceres::CostFunction whose residuals must be <= 0 (together
// the p residuals of c), and l, u are per-component bounds
// (SetParameterLowerBound / SetParameterUpperBound, Ceres' calls).
//
// Any ceres::CostFunction works: AutoDiffCostFunction, NumericDiffCostFunction,
// DynamicAutoDiffCostFunction and hand-written analytic ones.
//
// Ownership, as in ceres::Problem: with the default Options the Problem
// owns the cost functions and manifolds handed to it as raw pointers
// (TAKE_OWNERSHIP) and deletes each exactly once, even when the same pointer
// is used by several terms or blocks; with
// Options::cost_function_ownership (manifold_ownership) =
// DO_NOT_TAKE_OWNERSHIP the caller keeps them and they must outlive the
// Problem. A std::unique_ptr argument always hands ownership over. The
// Problem never owns parameter blocks: they must outlive it, and solvers
// read the start point from them and write the solution back into them.
//
// Manifolds: SetManifold puts a parameter block on a ceres::Manifold (a unit
// quaternion, a sphere, ...), as ceres::Problem::SetManifold does. The
// quasi-Newton strategies then keep the block on it and measure the KKT
// residual in its tangent space; WC_PENALTY_PGD and the Ipopt reference
// refuse such problems (see ecmo/manifold.h).
//
// Bounds, as in ceres::Problem: SetParameterLowerBound(values, index, b)
// bounds component `index` of a registered block; unbounded components have
// bounds -inf / +inf (Ceres' +-std::numeric_limits<double>::max() is
// accepted and means the same). Every solver keeps its iterates inside the
// bounds and a start point outside them is first projected onto them;
// the KKT function carries a multiplier for every bound (ecmo/kkt.h).
// Bounds on a block with a manifold are refused (IsValid): they apply to
// Euclidean blocks only.
//
// Inequality constraints: AddInequalityConstraint(cost, blocks) requires
// every residual of `cost` to be <= 0 at a solution. Evaluators stack the
// constraint values as g = (h, c): the q equalities first, then the p
// inequalities (Evaluator::NumInequalityConstraints). The paper-faithful
// strategy (WC_PENALTY_PGD) and Algorithm 2 refuse them; see solver.h for
// which strategies take them.
//
// Constant blocks: SetParameterBlockConstant(values) holds a registered
// block at its current values, as ceres::Problem::SetParameterBlockConstant
// does. A constant block is not part of z: k = NumParameters() counts the
// variable blocks only (like the reduced program Ceres solves), every
// solver, the KKT function and the Ipopt reference see only the variable
// blocks, the cost functions read the constant block's values from the
// user's array, and GetParameters / SetParameters (hence a solve's write
// back) skip it. A constant block may carry a manifold (kept for when it is
// made variable again). Toggle constancy between solves, never while a solve
// or an evaluator of this problem is running.
//
// Errors: no method aborts. A bad call (wrong residual count, a block of a
// different size than registered, a null pointer) is refused: the method
// returns -1/false, the problem remembers the first error, and IsValid()
// reports it, so every solver turns it into a FAILURE summary whose message
// says what to fix.
//
// Thread safety: const methods may be called concurrently; cost functions
// are evaluated by one evaluator per thread, so user cost functions must be
// safe to call concurrently if a sweep runs several threads (all Ceres
// auto-diff cost functions without mutable state are).

#ifndef ECMO_PROBLEM_H_
#define ECMO_PROBLEM_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ceres/cost_function.h"
#include "ceres/manifold.h"
#include "ceres/types.h"

namespace ecmo {

class ProblemEvaluator;
namespace internal {
class ScalarizationCache;
}  // namespace internal

class Problem {
 public:
  // A parameter block as the problem sees it: the user's array, its size and
  // its offset in the packed vector z (-1 for a constant block, which is not
  // in z).
  struct ParameterBlock {
    double* values = nullptr;
    int size = 0;
    int offset = 0;
    // Set by SetManifold (owned by the Problem); null means Euclidean.
    const ceres::Manifold* manifold = nullptr;
    // Set by SetParameterBlockConstant / SetParameterBlockVariable.
    bool constant = false;
    // Per-component bounds (size `size`, -inf / +inf where unbounded), or
    // both empty when no bound was ever set on the block.
    std::vector<double> lower;
    std::vector<double> upper;
  };

  struct Options {
    // Who deletes the cost functions and manifolds passed as raw pointers
    // (ceres::TAKE_OWNERSHIP: the Problem, once per distinct pointer;
    // ceres::DO_NOT_TAKE_OWNERSHIP: the caller).
    ceres::Ownership cost_function_ownership = ceres::TAKE_OWNERSHIP;
    ceres::Ownership manifold_ownership = ceres::TAKE_OWNERSHIP;
  };

  // One objective or constraint term: the cost function (NOT owned by the
  // term; see Ownership above), the parameter blocks it reads, in the order
  // the cost function expects them, and a name used in reports and error
  // messages. Several terms may share one cost function.
  struct Term {
    ceres::CostFunction* cost_function = nullptr;
    std::vector<int> blocks;  // indices into parameter_blocks()
    std::string name;
    // Constraints only: offset of its residuals in h (equalities) or in c
    // (inequalities).
    int residual_offset = 0;
  };

  Problem();
  explicit Problem(const Options& options);
  ~Problem();
  Problem(Problem&&) noexcept;
  Problem& operator=(Problem&&) noexcept;
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  // Registers a parameter block. Blocks are also registered implicitly by
  // AddObjective / AddConstraint, with the sizes their cost functions declare;
  // registering an already known block with the same size is a no-op.
  // Returns false (and records the error) on a null pointer, a non-positive
  // size, or a size that differs from an earlier registration.
  bool AddParameterBlock(double* values, int size);

  // Adds objective f_s. The cost function must have exactly one residual and
  // one parameter block per entry of `parameter_blocks`, with matching sizes.
  // Returns the objective's index s (0-based), or -1 on error (an owned
  // cost function is then still deleted with the problem, never earlier,
  // since another term may share it). `name` defaults to "f<s+1>".
  int AddObjective(std::unique_ptr<ceres::CostFunction> cost_function,
                   const std::vector<double*>& parameter_blocks,
                   const std::string& name = "");
  // Same with a raw pointer, owned according to
  // Options::cost_function_ownership (Ceres' calling convention).
  int AddObjective(ceres::CostFunction* cost_function,
                   const std::vector<double*>& parameter_blocks,
                   const std::string& name = "");

  // Adds an equality constraint block: every residual of the cost function
  // must be zero at a feasible point. Returns the constraint's index, or -1.
  // `name` defaults to "h<i+1>".
  int AddConstraint(std::unique_ptr<ceres::CostFunction> cost_function,
                    const std::vector<double*>& parameter_blocks,
                    const std::string& name = "");
  int AddConstraint(ceres::CostFunction* cost_function,
                    const std::vector<double*>& parameter_blocks,
                    const std::string& name = "");

  // Adds an inequality constraint block: every residual of the cost
  // function must be <= 0 at a feasible point. Returns its index, or -1.
  // `name` defaults to "c<i+1>".
  int AddInequalityConstraint(
      std::unique_ptr<ceres::CostFunction> cost_function,
      const std::vector<double*>& parameter_blocks,
      const std::string& name = "");
  int AddInequalityConstraint(ceres::CostFunction* cost_function,
                              const std::vector<double*>& parameter_blocks,
                              const std::string& name = "");

  // Bounds component `index` of the registered block `values` from below
  // (above), as ceres::Problem::SetParameterLowerBound does; +-inf (or
  // +-numeric_limits<double>::max()) removes the bound. Returns false and
  // records the error on an unknown block, an index outside [0, size) or a
  // NaN bound. A lower bound above the upper one is reported by IsValid.
  bool SetParameterLowerBound(double* values, int index, double lower_bound);
  bool SetParameterUpperBound(double* values, int index, double upper_bound);
  // The bound of one component: -inf (+inf) when unbounded or unknown.
  double GetParameterLowerBound(const double* values, int index) const;
  double GetParameterUpperBound(const double* values, int index) const;
  // True if some component of a variable block has a finite bound.
  bool HasBounds() const;
  // lower and upper (size k each) receive the bounds of z (variable blocks
  // only), -inf / +inf where unbounded.
  void GetBounds(double* lower, double* upper) const;

  // Puts the registered parameter block `values` on `manifold`
  // (manifold->AmbientSize() must equal the block's size); a null manifold
  // makes the block Euclidean again. Register the block first (through
  // AddParameterBlock or a term that uses it). Ownership: by default
  // (Options::manifold_ownership = TAKE_OWNERSHIP) the Problem deletes the
  // manifold once, even if the same raw pointer is set on several blocks
  // (Ceres' convention), also when the call fails. Returns false and
  // records the error on an unknown block or a size mismatch.
  bool SetManifold(double* values, std::unique_ptr<ceres::Manifold> manifold);
  bool SetManifold(double* values, ceres::Manifold* manifold);
  // The block's manifold, or null (also for unknown blocks).
  const ceres::Manifold* GetManifold(const double* values) const;
  // True if any variable block has a manifold (a manifold on a constant
  // block does not count: that block is not in z).
  bool HasManifolds() const;

  // Holds the registered block `values` at its current values during
  // solves (see "Constant blocks" above); SetParameterBlockVariable undoes
  // it. Both are no-ops when the block already is in that state. Returns
  // false and records the error (IsValid) when `values` is not in the
  // problem: register it first, through AddParameterBlock or a term that
  // uses it (Ceres' rule, where the same call aborts).
  bool SetParameterBlockConstant(const double* values);
  bool SetParameterBlockVariable(const double* values);
  // True if the block is constant; false for a variable or an unknown block
  // (Ceres aborts on an unknown one; this is a query, so it records
  // nothing).
  bool IsParameterBlockConstant(const double* values) const;

  // True when every call so far succeeded, there is at least one objective
  // and at least one variable parameter block. Otherwise `error` (if not
  // null) names the first problem.
  bool IsValid(std::string* error) const;

  int NumObjectives() const { return static_cast<int>(objectives_.size()); }
  int NumConstraintBlocks() const {
    return static_cast<int>(constraints_.size());
  }
  // q: total number of equality constraint residuals.
  int NumConstraints() const { return num_constraints_; }
  int NumInequalityConstraintBlocks() const {
    return static_cast<int>(inequality_constraints_.size());
  }
  // p: total number of inequality constraint residuals.
  int NumInequalityConstraints() const { return num_inequality_constraints_; }
  // k: total size of the variable parameter blocks (the size of z).
  int NumParameters() const { return num_parameters_; }
  // Number of parameter blocks, constant ones included.
  int NumParameterBlocks() const {
    return static_cast<int>(parameter_blocks_.size());
  }

  const std::vector<ParameterBlock>& parameter_blocks() const {
    return parameter_blocks_;
  }
  const std::vector<Term>& objectives() const { return objectives_; }
  const std::vector<Term>& constraints() const { return constraints_; }
  const std::vector<Term>& inequality_constraints() const {
    return inequality_constraints_;
  }

  // Copies the user's variable parameter blocks into z (size k), and back;
  // constant blocks are neither read nor written.
  void GetParameters(double* z) const;
  void SetParameters(const double* z) const;

  // Forgets the reference point and scales that ecmo::Solve computed on
  // this problem (Solver::Options::reuse_scalarization): later solves
  // compute them again. Every call that changes the problem's structure
  // (terms, blocks, bounds, manifolds, constancy) does this itself; call it
  // after changing data the cost functions read.
  void ForgetScalarization() const;

 private:
  friend class ProblemEvaluator;  // shares scalarization_cache_

  enum class TermKind { kObjective, kEquality, kInequality };
  int AddTerm(ceres::CostFunction* cost_function,
              bool adopt,
              const std::vector<double*>& parameter_blocks,
              const std::string& name,
              TermKind kind);
  // SetParameterLowerBound / UpperBound.
  bool SetBound(double* values, int index, double bound, bool is_lower);
  // Takes ownership of a cost function unless it is already owned.
  void AdoptCostFunction(ceres::CostFunction* cost_function);
  void RecordError(const std::string& error);
  // SetParameterBlockConstant / Variable.
  bool SetConstancy(const double* values, bool constant);
  // Recomputes every block's offset in z and k after a block changed
  // constancy.
  void ComputeOffsets();
  // SetManifold with explicit ownership of a raw pointer.
  bool SetManifoldImpl(double* values, ceres::Manifold* manifold, bool adopt);

  std::vector<ParameterBlock> parameter_blocks_;
  std::map<const double*, int> block_index_;
  std::vector<Term> objectives_;
  std::vector<Term> constraints_;
  std::vector<Term> inequality_constraints_;
  Options options_;
  // Owned objects, each distinct pointer once.
  std::vector<std::unique_ptr<ceres::CostFunction>> owned_cost_functions_;
  std::vector<std::unique_ptr<ceres::Manifold>> manifolds_;
  int num_parameters_ = 0;
  int num_constraints_ = 0;
  int num_inequality_constraints_ = 0;
  std::string first_error_;
  // What Solve reuses between calls on this problem (never null, except in
  // a moved-from problem).
  std::shared_ptr<internal::ScalarizationCache> scalarization_cache_;
};

}  // namespace ecmo

#endif  // ECMO_PROBLEM_H_
