// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Bring your own ceres::Problem. CeresProblemAdapter turns groups of residual
// blocks of an existing ceres::Problem (a curve fit, a calibration, a bundle
// adjustment) into an ECMO problem, without touching or copying the user's
// cost functions:
//
//   objective s:   f_s(z) = Ceres' cost of residual-block group s
//                         = 1/2 sum_{i in group s} rho_i(||r_i(z)||^2),
//                  with each block's LossFunction rho_i applied exactly as
//                  Ceres defines the cost (rho_i(x) = x without a loss);
//   constraints:   r_i(z) = 0 for every residual of every block of the
//                  constraint groups. The LossFunction of a constraint block
//                  is NOT applied (a robust loss makes no sense for an
//                  equality; the raw residuals must vanish).
//
// z is the concatenation of the non-constant parameter blocks that the
// selected residual blocks use, in order of first use (objective groups
// first, then constraint groups; within a group in the order of the ids and
// of each block's parameters). Constant blocks (Problem::SetParameterBlock-
// Constant, or a manifold with a zero-dimensional tangent space) are read
// from the user's memory and never move. Manifolds set on the user's problem
// (Problem::SetManifold: quaternions, spheres, SubsetManifold) are kept: the
// adapter's manifold() is their product (ecmo::DynamicProductManifold,
// Euclidean for blocks without one), so the quasi-Newton strategies optimize
// on it and the KKT residual is measured in its tangent space (see
// ecmo/manifold.h).
//
// Bounds: a bound set on a coordinate of a parameter block in z
// (Problem::SetParameterLowerBound / SetParameterUpperBound) becomes a bound
// of the evaluator (Evaluator::lower_bounds / upper_bounds, -inf / +inf
// where Ceres reports -+std::numeric_limits<double>::max(), i.e. "none");
// bounds on constant blocks are irrelevant (they are not in z). A block
// with both a bound and a manifold makes the adapter invalid, with a
// message naming the block (bounds apply to Euclidean blocks only, as in
// ecmo::Problem). Which strategies take bounds: see ecmo/solver.h
// (WC_PENALTY_PGD and WC_NEWTON project onto them); the persistent
// ceres::Problem of SolveWeightedLeastSquares keeps them, so Ceres' own
// trust-region solver respects them natively.
//
// Strategies and manifolds: WC_PENALTY_LBFGS, WC_AUGMENTED_LAGRANGIAN and
// WC_NEWTON support them; WC_PENALTY_PGD refuses a problem with manifolds
// with a FAILURE summary saying so. The Ipopt reference (and CrossCheck)
// pose EigenQuaternionManifold, QuaternionManifold and SphereManifold blocks
// as norm equalities and refuse other manifolds, naming the block
// (ecmo/ipopt_reference.h).
//
// Gauss-Newton structure (kDirect). The adapter provides the sparse
// Gauss-Newton matrix of Evaluator::GaussNewtonMatrix,
//
//   G = sum_s a_s Jr_s^T Jr_s + c J_h^T J_h,
//
// in the tangent space of z (n = NumTangentParameters() columns; each
// block's Jacobian times its manifold's PlusJacobian at z, blocks in z's
// order with their tangent sizes; constant blocks have no columns), so
// StrategyType::WC_NEWTON (newton.hessian = AUTOMATIC) solves its Newton
// steps with a sparse LDL^T, the way Ceres' Levenberg-Marquardt does.
// Jr_s are the Jacobians of objective group s's residual blocks corrected
// for their LossFunction as Ceres corrects them (Triggs' correction: with
// s = |r|^2, J~ = sqrt(rho'(s)) (I - alpha r r^T / s) J, where
// alpha = 1 - sqrt(1 + 2 s rho''(s) / rho'(s)) if rho'' > 0 and s > 0,
// and alpha = 0 otherwise; a block whose loss has rho'(s) <= 0 contributes
// nothing). J_h are the raw constraint Jacobians (no loss). G refers to the
// last Evaluate with gradients.
//   Cost: the sparsity pattern (union over residual blocks of their pairs
// of parameter blocks, lower triangle, diagonal always stored) and, for
// every residual block, where its products land in the matrix's values are
// computed on the first call. Each call then zeroes the values and adds
// the small dense products J~_i^T J~_j in place; it does not evaluate
// cost functions and does not allocate (after the first call with a given
// output matrix). Memory: the objective Jacobians and residuals of the
// last Evaluate with gradients are kept, one double per nonzero of Ceres'
// own Jacobian of the objective residual blocks (sum over them of
// num_residuals x (sum of the non-constant parameter block sizes)), plus
// num_residuals each; the pattern takes one int per stored entry of G and
// one per column, and each block of the precomputation about three ints
// per pair of its parameter blocks. kProblemEvaluate has no Gauss-Newton
// structure (HasGaussNewtonMatrix() is false; WC_NEWTON then uses Hessian
// products by gradient differences).
//
//   ceres::Problem problem;                          // the user's, as ever
//   std::vector<ceres::ResidualBlockId> fit_a, fit_b, norm;
//   ... fit_a.push_back(problem.AddResidualBlock(...)); ...
//   ecmo::CeresProblemAdapter adapter(&problem,
//                                     {{"fit_a", fit_a}, {"fit_b", fit_b}},
//                                     {{"unit_norm", norm}});
//   ecmo::Solver::Options options;  // automatic: wc-newton on an adapter
//   ecmo::Solver::Summary summary;
//   ecmo::Solve(options, &adapter, {0.5, 0.5}, &summary);  // writes back
//
// Ownership and lifetime: the adapter does NOT own the ceres::Problem, which
// must outlive it and must not gain or lose residual or parameter blocks, or
// change constancy, manifolds or bounds, while the adapter exists (the
// layout of z is fixed at construction). Parameter VALUES may change between
// solves: GetParameters reads them.
//
// Evaluation: by default (EvaluationPath::kDirect) every selected residual
// block is evaluated by calling its own CostFunction and LossFunction, as
// returned by Problem::GetCostFunctionForResidualBlock and
// GetLossFunctionForResidualBlock, with parameter pointers into z (constant
// blocks: the user's memory), so the user's parameter blocks are not
// written during a solve; the formulas are Ceres' (cost 1/2 rho(s), gradient
// rho'(s) J^T r, which equals the gradient of Ceres' corrected residuals).
// EvaluationPath::kProblemEvaluate calls ceres::Problem::Evaluate with
// EvaluateOptions::residual_blocks (one call per objective group and one for
// all constraint groups, apply_loss_function false there) and
// parameter_blocks = z's blocks, after writing z into the user's blocks; it
// is several times slower (Problem::Evaluate builds a temporary program on
// every call, see benchmarks/README.md), does not support manifolds (it
// returns tangent-space gradients, the strategies need ambient ones), but it
// triggers the problem's EvaluationCallback, which kDirect does not: use it
// if your cost functions rely on Problem::Options::evaluation_callback.
//
// Errors: nothing aborts or throws. Invalid input (null problem, unknown or
// repeated residual block ids, an empty group, a bounded block with a
// manifold, a manifold with kProblemEvaluate) makes IsValid() false with a
// message; Solve() below turns that into a FAILURE summary. A cost function
// that fails or returns non-finite values makes Evaluate return false with a
// message naming the group and the residual block.
//
// Thread safety: like every Evaluator, not thread-safe; use one adapter per
// thread (and with kProblemEvaluate one ceres::Problem per thread).

#ifndef ECMO_CERES_PROBLEM_ADAPTER_H_
#define ECMO_CERES_PROBLEM_ADAPTER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SparseCore"
#include "ceres/crs_matrix.h"
#include "ceres/problem.h"
#include "ecmo/evaluator.h"
#include "ecmo/solver.h"

namespace ecmo {

class CeresProblemAdapter final : public Evaluator {
 public:
  // A named group of residual blocks of the user's problem.
  struct ResidualGroup {
    std::string name;
    std::vector<ceres::ResidualBlockId> residual_blocks;
  };

  enum class EvaluationPath {
    // Call each residual block's CostFunction / LossFunction directly (see
    // the top of this file). Supports manifolds. The default.
    kDirect,
    // ceres::Problem::Evaluate with EvaluateOptions (no manifolds).
    kProblemEvaluate,
  };

  struct Options {
    EvaluationPath evaluation_path = EvaluationPath::kDirect;
    // EvaluateOptions::num_threads for kProblemEvaluate. >= 1.
    int num_threads = 1;
    // Optional names of parameter blocks, used in error messages (e.g.
    // {&camera[0], "camera"}). Blocks without a name are described by their
    // address, size and first use.
    std::map<const double*, std::string> parameter_block_names;
  };

  // A parameter block of z.
  struct ParameterBlock {
    double* values = nullptr;  // the user's array
    int size = 0;
    int offset = 0;  // in z
    // The user's manifold for this block (owned by the ceres::Problem), or
    // null.
    const ceres::Manifold* manifold = nullptr;
  };

  // `problem` is not owned and must outlive the adapter. Objective group s
  // becomes f_s (at least one group, none empty); constraint groups (may be
  // empty) give h in their order. A residual block may not appear twice in
  // one group. Check IsValid() before use.
  CeresProblemAdapter(ceres::Problem* problem,
                      std::vector<ResidualGroup> objectives,
                      std::vector<ResidualGroup> constraints,
                      Options options);
  CeresProblemAdapter(ceres::Problem* problem,
                      std::vector<ResidualGroup> objectives,
                      std::vector<ResidualGroup> constraints);
  ~CeresProblemAdapter() override;

  // True if the adapter can be used; otherwise `error` (if not null) says
  // why. An invalid adapter has k = S = q = 0.
  bool IsValid(std::string* error) const;

  int NumParameters() const override { return num_parameters_; }
  int NumObjectives() const override {
    return static_cast<int>(objectives_.size());
  }
  int NumConstraints() const override { return num_constraints_; }
  // The product of the blocks' manifolds, or null if no block in z has one.
  const ceres::Manifold* manifold() const override { return manifold_.get(); }
  // True for a valid adapter with EvaluationPath::kDirect: see "Gauss-Newton
  // structure" at the top of this file.
  bool HasGaussNewtonMatrix() const override;
  // True for a valid adapter: SolveWeightedLeastSquares (ecmo/evaluator.h)
  // runs ceres::Solve on a second ceres::Problem over the same parameter
  // arrays, cost functions, loss functions and manifolds (none of them
  // copied or owned), built on the first call and re-weighted in place on
  // every later one: each objective block's loss is scaled by a_s through
  // a loss wrapper whose weight the adapter changes, each constraint block
  // becomes the residual sqrt(mu) (h_i + shift_i). Blocks constant in the
  // user's problem are constant in it. The user's arrays are restored after
  // each call (the result goes to z). Memory: one residual block per
  // selected residual block, plus what Ceres allocates during the solve.
  bool HasWeightedLeastSquaresSolver() const override { return error_.empty(); }

  const std::vector<ParameterBlock>& parameter_blocks() const {
    return parameter_blocks_;
  }
  // Offset of a user block in z, or -1 if it is not in z (constant, unused
  // or unknown).
  int ParameterBlockOffset(const double* values) const;
  // A block as error messages name it: its name from
  // Options::parameter_block_names, else its address, size and first use.
  std::string DescribeParameterBlock(const double* values) const {
    return DescribeBlock(values);
  }
  const std::string& objective_name(int s) const { return objectives_[s].name; }
  std::string ObjectiveName(int s) const override {
    return objectives_[s].name.empty() ? Evaluator::ObjectiveName(s)
                                       : objectives_[s].name;
  }
  const std::string& constraint_name(int i) const {
    return constraints_[i].name;
  }
  // Offset of constraint group i's first residual in h.
  int constraint_offset(int i) const { return constraints_[i].offset; }

  // Packs the user's current parameter values into z (size k), and writes
  // z back into the user's blocks.
  void GetParameters(double* z) const;
  Eigen::VectorXd GetParameters() const;
  void SetParameters(const double* z) const;

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override;
  void DoJacobianTransposeMultiply(const double* v, double* out) const override;
  void DoJacobianMultiply(const double* x, double* out) const override;
  bool DoGaussNewtonMatrix(const double* a,
                           const double* c,
                           Eigen::SparseMatrix<double>* lower,
                           std::string* error) override;
  // In ceres_problem_adapter_solve.cc.
  bool DoSolveWeightedLeastSquares(const ceres::Solver::Options& options,
                                   const double* a,
                                   double mu,
                                   const double* shift,
                                   double* z,
                                   ceres::Solver::Summary* summary,
                                   std::string* error) override;

 private:
  // The re-weightable ceres::Problem of SolveWeightedLeastSquares (built on
  // first use; shared_ptr so that this header needs no definition of it).
  struct LeastSquaresView;
  std::shared_ptr<LeastSquaresView> least_squares_view_;
  bool BuildLeastSquaresView(std::string* error);

  // How a residual block uses one of its parameter blocks.
  struct ParameterUse {
    double* values = nullptr;  // the user's array
    int offset = -1;           // in z, or -1 for a constant block
    int size = 0;
    int jacobian_offset = 0;  // in jacobian_scratch_ (blocks in z only)
    int block = -1;           // index in parameter_blocks_, or -1
  };
  // One selected residual block, resolved once. Its parameter uses are
  // uses_[first_use .. first_use + num_uses - 1] (flat, for locality).
  struct Block {
    ceres::ResidualBlockId id = nullptr;
    const ceres::CostFunction* cost_function = nullptr;
    const ceres::LossFunction* loss_function = nullptr;  // objectives only
    int num_residuals = 0;
    int first_use = 0;
    int num_uses = 0;
    int residual_offset = 0;       // constraints: offset in h
    int first_jacobian_block = 0;  // constraints: into jacobian_blocks_
    // Objectives: where the last Evaluate with gradients left the block's
    // residuals (in objective_residuals_) and Jacobians (in
    // objective_jacobians_, laid out as in jacobian_scratch_).
    size_t stored_residual_offset = 0;
    size_t stored_jacobian_offset = 0;
    // Its pairs of parameter uses in G: gauss_newton_pairs_[first_pair ..
    // first_pair + num_pairs - 1] (filled on the first GaussNewtonMatrix).
    int first_pair = 0;
    int num_pairs = 0;
  };
  // One dense block J~_row^T J~_col of a residual block's contribution to
  // G (uses are indices into the block's parameter uses; the row block
  // comes after the column block in z, or they are equal). Entry (r, c)
  // lands at values[outer[col_offset + c] + (col_tangent_size - c) +
  // prefix + r]; the diagonal block (prefix = -1) stores its lower
  // triangle at values[outer[col_offset + c] + r - c], r >= c.
  struct GaussNewtonPair {
    int row_use = 0;
    int col_use = 0;
    int prefix = -1;
  };
  struct Group {
    std::string name;
    std::vector<Block> blocks;
    int offset = 0;  // constraints: offset in h
  };
  // Dense row-major Jacobian block of one constraint residual block with
  // respect to one parameter block of z (kDirect).
  struct JacobianBlock {
    int residual_offset = 0;
    int parameter_offset = 0;
    int rows = 0;
    int cols = 0;
    std::vector<double> values;
  };

  void Initialize(std::vector<ResidualGroup> objectives,
                  std::vector<ResidualGroup> constraints);
  std::string DescribeBlock(const double* values) const;
  // Evaluates one residual block at z into `residuals`, and its Jacobians
  // into `jacobians` (laid out by ParameterUse::jacobian_offset) unless it
  // is null.
  bool EvaluateBlock(const Block& block,
                     const double* z,
                     double* residuals,
                     double* jacobians,
                     const char* kind,
                     const std::string& group,
                     int index,
                     std::string* error);
  bool EvaluateDirect(const double* z,
                      double* f,
                      double* h,
                      double* grad_f,
                      std::string* error);
  bool EvaluateThroughProblem(const double* z,
                              double* f,
                              double* h,
                              double* grad_f,
                              std::string* error);
  // The pattern of G and every block's pairs (first GaussNewtonMatrix).
  void BuildGaussNewtonPattern();
  // Adds weight * J~^T J~ of one residual block to values. jacobians[u] is
  // the ambient Jacobian of use u (null for constant uses); residuals and
  // loss (both may be null) give the loss correction. False (with a
  // message) if the loss returns non-finite values.
  bool AccumulateGaussNewton(const Block& block,
                             const double* const* jacobians,
                             const double* residuals,
                             const ceres::LossFunction* loss,
                             double weight,
                             double* values,
                             std::string* error);

  ceres::Problem* problem_;
  Options options_;
  std::string error_;
  std::vector<Group> objectives_;
  std::vector<Group> constraints_;
  std::vector<ParameterUse> uses_;
  std::vector<ParameterBlock> parameter_blocks_;
  std::map<const double*, int> block_index_;
  // First use of each block, for messages.
  std::map<const double*, std::string> first_use_;
  std::unique_ptr<ceres::Manifold> manifold_;
  int num_parameters_ = 0;
  int num_constraints_ = 0;

  // kDirect: the constraint Jacobian blocks.
  std::vector<JacobianBlock> jacobian_blocks_;
  // kDirect scratch, sized once for the largest residual block.
  std::vector<const double*> parameter_pointers_;
  std::vector<double*> jacobian_pointers_;
  std::vector<double> jacobian_scratch_;
  std::vector<double> residual_scratch_;
  // kDirect: the objective residuals and Jacobians of the last Evaluate
  // with gradients (see "Gauss-Newton structure" at the top).
  std::vector<double> objective_residuals_;
  std::vector<double> objective_jacobians_;

  // Gauss-Newton structure, built on the first GaussNewtonMatrix: tangent
  // offset and size of every parameter block, the compressed-column
  // pattern of G's lower triangle, the blocks' pairs, the PlusJacobians of
  // the blocks with a manifold (offset -1 without), and scratch for one
  // residual block's tangent Jacobians.
  std::vector<int> tangent_offsets_;
  std::vector<int> tangent_sizes_;
  std::vector<int> gauss_newton_outer_;
  std::vector<int> gauss_newton_inner_;
  std::vector<GaussNewtonPair> gauss_newton_pairs_;
  std::vector<int> plus_jacobian_offsets_;
  std::vector<double> plus_jacobians_;
  std::vector<double> tangent_scratch_;
  std::vector<const double*> ambient_pointers_;
  std::vector<const double*> tangent_pointers_;
  std::vector<double> projection_scratch_;
  // Constraint Jacobian rows scaled by sqrt of their weights, for a
  // residual block whose rows have different weights (GaussNewtonMatrix).
  std::vector<double> scaled_rows_;
  bool gauss_newton_built_ = false;

  // kProblemEvaluate: options per objective group and for the constraints,
  // and the constraint Jacobian (columns in z order).
  std::vector<ceres::Problem::EvaluateOptions> objective_evaluate_options_;
  ceres::Problem::EvaluateOptions constraint_evaluate_options_;
  std::vector<double> problem_residuals_;
  std::vector<double> problem_gradient_;
  ceres::CRSMatrix jacobian_crs_;
};

// Solves the WC subproblem for `preference` on the adapter's problem (see
// ecmo::Solve in ecmo/solver.h): reads the start point from the user's
// parameter blocks, and writes the solution back into them when it is
// usable (otherwise restores the start point). An invalid adapter gives a
// FAILURE summary with its message.
void Solve(const Solver::Options& options,
           CeresProblemAdapter* adapter,
           const std::vector<double>& preference,
           Solver::Summary* summary);

}  // namespace ecmo

#endif  // ECMO_CERES_PROBLEM_ADAPTER_H_
