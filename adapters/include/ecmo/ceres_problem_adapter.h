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
// Bounds: no ECMO strategy supports parameter bounds yet (WC_PENALTY_PGD,
// WC_PENALTY_LBFGS, WC_AUGMENTED_LAGRANGIAN and the Ipopt reference all work
// without them). A bound set on a parameter block in z
// (Problem::SetParameterLowerBound / SetParameterUpperBound) makes the
// adapter invalid, with a message naming the block and the coordinate,
// rather than being silently ignored. Bounds on constant blocks are
// irrelevant and allowed.
//
// Strategies and manifolds: WC_PENALTY_LBFGS and WC_AUGMENTED_LAGRANGIAN
// support them; WC_PENALTY_PGD and ecmo::SolveReference (Ipopt) refuse a
// problem with manifolds with a FAILURE summary saying so.
//
//   ceres::Problem problem;                          // the user's, as ever
//   std::vector<ceres::ResidualBlockId> fit_a, fit_b, norm;
//   ... fit_a.push_back(problem.AddResidualBlock(...)); ...
//   ecmo::CeresProblemAdapter adapter(&problem,
//                                     {{"fit_a", fit_a}, {"fit_b", fit_b}},
//                                     {{"unit_norm", norm}});
//   ecmo::Solver::Options options;
//   options.strategy = ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN;
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
// repeated residual block ids, an empty group, bounds, a manifold with
// kProblemEvaluate) makes IsValid() false with a message; Solve() below
// turns that into a FAILURE summary. A cost function that fails or returns
// non-finite values makes Evaluate return false with a message naming the
// group and the residual block.
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

  const std::vector<ParameterBlock>& parameter_blocks() const {
    return parameter_blocks_;
  }
  // Offset of a user block in z, or -1 if it is not in z (constant, unused
  // or unknown).
  int ParameterBlockOffset(const double* values) const;
  const std::string& objective_name(int s) const { return objectives_[s].name; }
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

 private:
  // How a residual block uses one of its parameter blocks.
  struct ParameterUse {
    double* values = nullptr;  // the user's array
    int offset = -1;           // in z, or -1 for a constant block
    int size = 0;
    int jacobian_offset = 0;  // in jacobian_scratch_ (blocks in z only)
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
  bool EvaluateBlock(const Block& block,
                     const double* z,
                     bool want_jacobians,
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
