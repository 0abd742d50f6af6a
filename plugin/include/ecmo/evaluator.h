// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// The evaluator is the only way solvers see a problem. It works on the packed
// vector z in R^k and provides
//
//   F(z) in R^S, grad f_s(z) in R^k (s = 1..S), h(z) in R^q,
//   J_h(z)^T v and J_h(z) x   (products with the constraint Jacobian),
//
// so every strategy and the KKT function need no k x q matrix. The default
// implementation, ProblemEvaluator, evaluates Ceres cost functions and keeps
// their Jacobian blocks (block-sparse, one small dense block per constraint
// and parameter block); a matrix-free implementation (e.g. a bilevel lower
// level supplying Hessian-vector products) derives from Evaluator directly.
//
// An evaluator is stateful (it remembers the last linearization point and
// counts evaluations) and is NOT thread-safe: use one per thread.
//
// Manifolds. An evaluator may declare that z lives on a manifold M (e.g.
// parameter blocks that are unit quaternions, see ecmo/manifold.h) by
// overriding manifold(). Values and derivatives above stay AMBIENT (grad f_s
// and J_h are taken with respect to the k coordinates of z, as Ceres cost
// functions compute them); the manifold only tells the solvers how to move
// and where to measure:
//   - WC_PENALTY_LBFGS and WC_AUGMENTED_LAGRANGIAN step with
//     manifold()->Plus, so z stays on M;
//   - the KKT stationarity block is measured in the tangent space (size
//     NumTangentParameters()): PlusJacobian(z)^T times the ambient vector;
//   - WC_PENALTY_PGD refuses such evaluators (FAILURE; it would leave M);
//     the Ipopt reference (ecmo/ipopt_reference.h) poses Ceres' quaternion
//     and sphere manifolds of a CeresProblemAdapter as norm equalities and
//     refuses every other manifold.

#ifndef ECMO_EVALUATOR_H_
#define ECMO_EVALUATOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SparseCore"
#include "ceres/manifold.h"
#include "ceres/solver.h"
#include "ecmo/problem.h"

namespace ecmo {

class Problem;

// Evaluation counts, reported in every Summary.
struct EvaluationCounts {
  // Calls that evaluated F and h.
  int64_t value_evaluations = 0;
  // Calls that also evaluated grad f_s for all s and linearized h.
  int64_t gradient_evaluations = 0;
  // Products J_h^T v and J_h x.
  int64_t jacobian_transpose_products = 0;
  int64_t jacobian_products = 0;
  // Products with the Hessian of a Lagrangian (LagrangianHessianMultiply;
  // by gradient differences they also count two gradient evaluations) and
  // Gauss-Newton matrices assembled (GaussNewtonMatrix).
  int64_t hessian_products = 0;
  int64_t gauss_newton_matrices = 0;
  // Weighted least-squares problems handed to Ceres' own solver
  // (SolveWeightedLeastSquares) and the Ceres iterations they took (their
  // residual and Jacobian evaluations are counted above as value and
  // gradient evaluations).
  int64_t least_squares_solves = 0;
  int64_t least_squares_iterations = 0;
  // Models formed by the certificate (KktSystem::ModelDecrease: Gauss-
  // Newton matrices and a factorization, or k Hessian products). Their
  // evaluations are not counted in the fields above, which count the
  // strategies' work.
  int64_t certificate_models = 0;
  // Evaluate calls that failed: the evaluator returned false, or a value
  // of F or h was not finite (a cost function returned NaN or infinity).
  // The strategies step back from such points, so a solve that met them
  // may stop at the edge of the region where the problem is defined; a
  // solve that then ends other than CONVERGENCE says so in its message.
  int64_t failed_evaluations = 0;

  EvaluationCounts& operator+=(const EvaluationCounts& other) {
    value_evaluations += other.value_evaluations;
    gradient_evaluations += other.gradient_evaluations;
    jacobian_transpose_products += other.jacobian_transpose_products;
    jacobian_products += other.jacobian_products;
    hessian_products += other.hessian_products;
    gauss_newton_matrices += other.gauss_newton_matrices;
    least_squares_solves += other.least_squares_solves;
    least_squares_iterations += other.least_squares_iterations;
    certificate_models += other.certificate_models;
    failed_evaluations += other.failed_evaluations;
    return *this;
  }
  // The work done between two readings of one evaluator's counts().
  friend EvaluationCounts operator-(const EvaluationCounts& after,
                                    const EvaluationCounts& before) {
    EvaluationCounts d;
    d.value_evaluations = after.value_evaluations - before.value_evaluations;
    d.gradient_evaluations =
        after.gradient_evaluations - before.gradient_evaluations;
    d.jacobian_transpose_products =
        after.jacobian_transpose_products - before.jacobian_transpose_products;
    d.jacobian_products = after.jacobian_products - before.jacobian_products;
    d.hessian_products = after.hessian_products - before.hessian_products;
    d.gauss_newton_matrices =
        after.gauss_newton_matrices - before.gauss_newton_matrices;
    d.least_squares_solves =
        after.least_squares_solves - before.least_squares_solves;
    d.least_squares_iterations =
        after.least_squares_iterations - before.least_squares_iterations;
    d.certificate_models = after.certificate_models - before.certificate_models;
    d.failed_evaluations = after.failed_evaluations - before.failed_evaluations;
    return d;
  }
};

namespace internal {
class ScalarizationCache;
class SparseLdlt;
struct SolveWorkspace;
}  // namespace internal

class Evaluator {
 public:
  Evaluator();
  virtual ~Evaluator();

  virtual int NumParameters() const = 0;  // k
  virtual int NumObjectives() const = 0;  // S
  // m: the size of the constraint vector g(z) = (h(z), c(z)) that Evaluate
  // returns and the Jacobian products act on: the equality residuals h
  // first, then the NumInequalityConstraints() residuals c, which must be
  // <= 0. Without inequalities (the default) g = h and m = q.
  virtual int NumConstraints() const = 0;
  // p: how many of the last constraint residuals are inequalities c <= 0.
  // Strategies that cannot handle them refuse an evaluator with p > 0
  // (solver.h says which).
  virtual int NumInequalityConstraints() const { return 0; }
  // The name of objective s (0 <= s < S) in reports, JSON and plots: the
  // group or term name where the evaluator has one (CeresProblemAdapter's
  // objective groups, Problem::AddObjective's name), else "f_<s+1>".
  virtual std::string ObjectiveName(int s) const;
  // q = m - p.
  int NumEqualityConstraints() const {
    return NumConstraints() - NumInequalityConstraints();
  }
  // How much a constraint vector g (size m) violates the constraints:
  // h unchanged, then max(0, c) for the inequalities.
  Eigen::VectorXd ConstraintViolation(const Eigen::VectorXd& g) const;
  // The same into *violation, reusing its storage (Solve scores every
  // point of a sweep's worker with one kept vector).
  void ConstraintViolation(const Eigen::VectorXd& g,
                           Eigen::VectorXd* violation) const;

  // Bounds on z, l <= z <= u: vectors of size k with -inf / +inf where a
  // component is unbounded, or both empty when HasBounds() is false (no
  // component bounded). Constant in time. Solvers keep their iterates
  // inside them; the KKT function carries a multiplier per bound.
  bool HasBounds() const { return lower_bounds_.size() > 0; }
  const Eigen::VectorXd& lower_bounds() const { return lower_bounds_; }
  const Eigen::VectorXd& upper_bounds() const { return upper_bounds_; }
  // How many components have a finite lower or upper bound (0 without
  // bounds).
  int NumBoundedParameters() const;
  // Clamps z (size k) into the bounds; returns true if some entry moved.
  // A no-op without bounds.
  bool ProjectOntoBounds(double* z) const;

  // The manifold z lives on (AmbientSize() == k), or null (the default) for
  // R^k. Owned by the evaluator; valid while it lives and constant in time.
  virtual const ceres::Manifold* manifold() const { return nullptr; }
  // Size of the tangent space: manifold()->TangentSize(), or k without one.
  int NumTangentParameters() const {
    return manifold() != nullptr ? manifold()->TangentSize() : NumParameters();
  }

  // Evaluates at z (size k): f (size S) and h (size m, the constraint
  // vector g = (h, c) above) always. If grad_f is
  // not null it receives the k x S column-major matrix whose column s is
  // grad f_s(z), and the evaluator linearizes h at z so that the products
  // below refer to z until the next call with grad_f != nullptr.
  // Returns false, with a message naming the cost function and the point,
  // when a cost function fails or returns a non-finite value.
  bool Evaluate(const double* z,
                double* f,
                double* h,
                double* grad_f,
                std::string* error);

  // out (size k) = J_h(z)^T v (v of size q), at the last linearization point.
  void JacobianTransposeMultiply(const double* v, double* out);
  // out (size q) = J_h(z) x (x of size k), at the last linearization point.
  void JacobianMultiply(const double* x, double* out);

  // ---- Second-order information (StrategyType::WC_NEWTON) ----
  //
  // Both products below refer to the last linearization point z (the last
  // Evaluate with grad_f != nullptr) and leave it unchanged.

  // out (size k) = grad^2 L(z) x, the Hessian of the Lagrangian
  //   L(z) = sum_s a_s f_s(z) + sum_i b_i h_i(z)
  // (a of size S, b of size q, x of size k) times x, in ambient coordinates
  // (with a manifold: the Hessian of L as a function on R^k; the Newton
  // strategy pulls it back to the tangent space). Returns false with a
  // message when it cannot be computed (e.g. a cost function fails near z).
  //
  // Evaluators that know second derivatives (e.g. a bilevel lower level
  // with Hessian-vector products) override DoLagrangianHessianMultiply and
  // HasExactLagrangianHessian. The default is a forward difference of
  // gradients, (grad L(z + t x) - grad L(z)) / t with t = sqrt(machine
  // epsilon) (1 + ||z||) / ||x||, which costs two gradient evaluations and
  // two J_h^T products (one at z + t x, one to restore the linearization at
  // z), counted as such, and is accurate to about sqrt(epsilon) relative.
  // With bounds it never evaluates outside them: components that would
  // leave the box take the backward step -t instead (a third evaluation
  // when x leaves it forward and backward in different components), and a
  // component whose box is narrower than the step both ways is held fixed
  // (its part of x drops out).
  bool LagrangianHessianMultiply(const double* a,
                                 const double* b,
                                 const double* x,
                                 double* out,
                                 std::string* error);
  virtual bool HasExactLagrangianHessian() const { return false; }

  // Gauss-Newton structure. An evaluator whose objectives are sums of
  // squared residuals, f_s(z) = 1/2 sum_{i in s} rho_i(||r_i(z)||^2) (e.g.
  // CeresProblemAdapter), can assemble the sparse Gauss-Newton matrix
  //
  //   G = sum_s a_s Jr_s^T Jr_s + c J_h^T J_h     (a of size S, c >= 0)
  //
  // (or, with per-row weights c of size m, sum_s a_s Jr_s^T Jr_s +
  // J_g^T diag(c) J_g over the rows of the constraint vector g = (h, c):
  // the Newton model of an augmented Lagrangian gives the inequality rows
  // that are not active the weight 0, see the second overload)
  //
  // in TANGENT coordinates (n = NumTangentParameters(); Jr_s and J_h times
  // the manifold's PlusJacobian when there is one), where Jr_s is the
  // Jacobian of group s's residuals corrected for their loss functions as
  // Ceres corrects them (so that Jr_s^T r~_s = grad f_s). *lower receives
  // the lower triangle (diagonal included) of G, n x n, compressed column
  // major. Its sparsity pattern (the positions of the stored entries,
  // explicit zeros included) is the same on every call, so a sparse
  // factorization can reuse its symbolic analysis across calls. Returns
  // false with a message if the evaluator has no such structure (the
  // default) or an evaluation fails.
  virtual bool HasGaussNewtonMatrix() const { return false; }
  bool GaussNewtonMatrix(const double* a,
                         double c,
                         Eigen::SparseMatrix<double>* lower,
                         std::string* error);
  // The same with one weight per constraint row: c has size m
  // (NumConstraints(), equalities then inequalities), entries finite and
  // >= 0; row i of J_g enters as c_i J_g,i^T J_g,i. Same pattern as above
  // (a zero weight keeps its entries as explicit zeros).
  bool GaussNewtonMatrix(const double* a,
                         const double* c,
                         Eigen::SparseMatrix<double>* lower,
                         std::string* error);

  // Ceres' own solver on a weighted least-squares problem. An evaluator
  // whose objectives are sums of squared residuals and whose constraints
  // are residuals (e.g. CeresProblemAdapter) can minimize
  //
  //   sum_s a_s f_s(z) + mu/2 ||h(z) + shift||^2     (a >= 0, mu > 0)
  //
  // with ceres::Solve (Levenberg-Marquardt or dogleg and the linear solver
  // that `options` name), on its own residual blocks, loss functions,
  // manifolds and constant blocks: the objectives' losses scaled by a_s,
  // the constraints as the residuals sqrt(mu) (h + shift) of an augmented
  // Lagrangian (shift = nu / mu). StrategyType::WC_NEWTON uses it for the
  // far-from-solution phase of a point (Solver::Options::NewtonOptions::
  // ceres_phase). z (size k) is the start and receives the result (also
  // when Ceres stops early: Ceres' iterates only decrease the cost);
  // *summary is Ceres' own. a has size S, shift size q (may be null when
  // q = 0). Returns false with a message when the evaluator has no such
  // structure (the default), when Ceres rejects `options` (Ceres' message)
  // or when Ceres reports FAILURE. Counts one least-squares solve, its
  // iterations, and its residual / Jacobian evaluations. With bounds
  // (HasBounds) the result stays inside them: Ceres takes them natively,
  // and a start outside is projected first.
  virtual bool HasWeightedLeastSquaresSolver() const { return false; }
  bool SolveWeightedLeastSquares(const ceres::Solver::Options& options,
                                 const double* a,
                                 double mu,
                                 const double* shift,
                                 double* z,
                                 ceres::Solver::Summary* summary,
                                 std::string* error);

  const EvaluationCounts& counts() const { return counts_; }
  // Counts one certificate model whose evaluations took the counts from
  // `before` to counts() (KktSystem::ModelDecrease calls it): they move
  // out of the other fields (see EvaluationCounts::certificate_models).
  void CountCertificateModel(const EvaluationCounts& before) {
    const int64_t models = counts_.certificate_models + 1;
    counts_ = before;
    counts_.certificate_models = models;
  }
  void ResetCounts() { counts_ = EvaluationCounts(); }

  // Internal: what ecmo::Solve keeps between the solves made on this
  // evaluator (the points of a sweep): certification systems, the reduced
  // penalty function, outer iterates and the Gauss-Newton factorization,
  // so that their k-sized storage is allocated once (see
  // plugin/src/solve_workspace.h for why). Created on first use, owned by
  // the evaluator, freed with it.
  internal::SolveWorkspace* workspace();
  // The workspace's sparse factorization of the Gauss-Newton matrix
  // (StrategyType::WC_NEWTON): every ecmo::Solve on this evaluator shares
  // one symbolic analysis; the pattern is the same on every call.
  internal::SparseLdlt* gauss_newton_factorization();

  // The reference point and scales that ecmo::Solve computed on this
  // evaluator (its single-objective solves), which later solves reuse when
  // Solver::Options::reuse_scalarization is on and the options that define
  // them are the same. Call ForgetScalarization after changing what the
  // objectives or constraints compute (data, weights): nothing else tells
  // the cache. An evaluator built on an ecmo::Problem shares the problem's
  // cache (see Problem::ForgetScalarization).
  void ForgetScalarization();
  // Internal: that cache (created on first use).
  internal::ScalarizationCache* scalarization_cache();

 protected:
  // Implementations: same contracts as the public methods above.
  virtual bool DoEvaluate(const double* z,
                          double* f,
                          double* h,
                          double* grad_f,
                          std::string* error) = 0;
  virtual void DoJacobianTransposeMultiply(const double* v,
                                           double* out) const = 0;
  virtual void DoJacobianMultiply(const double* x, double* out) const = 0;
  // Defaults: gradient differences (see LagrangianHessianMultiply), and
  // "no Gauss-Newton structure".
  virtual bool DoLagrangianHessianMultiply(const double* a,
                                           const double* b,
                                           const double* x,
                                           double* out,
                                           std::string* error);
  // c: the per-row weights (size m) of the second GaussNewtonMatrix; the
  // first passes its scalar repeated.
  virtual bool DoGaussNewtonMatrix(const double* a,
                                   const double* c,
                                   Eigen::SparseMatrix<double>* lower,
                                   std::string* error);
  // Default: "no weighted least-squares structure".
  virtual bool DoSolveWeightedLeastSquares(
      const ceres::Solver::Options& options,
      const double* a,
      double mu,
      const double* shift,
      double* z,
      ceres::Solver::Summary* summary,
      std::string* error);

  // The last linearization point (empty before the first Evaluate with
  // gradients), kept by the base class for the default products.
  const Eigen::VectorXd& linearization_point() const {
    return linearization_point_;
  }

  // Declares bounds (size k each; -inf / +inf where unbounded). Call once,
  // from the constructor. Bounds that are all infinite are dropped, so that
  // HasBounds() means "some component is bounded".
  void SetBounds(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper);

  // Makes this evaluator use `cache` for its scalarization (see
  // ForgetScalarization): one cache for every evaluator of one problem.
  void ShareScalarizationCache(
      std::shared_ptr<internal::ScalarizationCache> cache);

 private:
  EvaluationCounts counts_;
  std::vector<double> row_weights_;  // the scalar GaussNewtonMatrix's c
  std::unique_ptr<internal::SolveWorkspace> workspace_;
  // Shared with the ecmo::Problem this evaluator evaluates, if any.
  std::shared_ptr<internal::ScalarizationCache> scalarization_cache_;
  Eigen::VectorXd lower_bounds_;
  Eigen::VectorXd upper_bounds_;
  Eigen::VectorXd linearization_point_;
};

// Evaluates an ecmo::Problem through its Ceres cost functions. The problem
// must outlive the evaluator and stay unchanged while it is in use. The
// user's parameter blocks are not written: the cost functions read z in
// place. z holds the variable blocks only; constant blocks
// (Problem::SetParameterBlockConstant) are read from the user's arrays and
// have no columns in grad f or J_h. If the problem has manifolds
// (Problem::SetManifold), manifold() is their DynamicProductManifold over the
// variable blocks (Euclidean for blocks without one), owned by the
// evaluator.
class ProblemEvaluator final : public Evaluator {
 public:
  // One dense row-major block of J_g: rows of constraint term `term` (the
  // equality terms numbered first, then the inequality terms)
  // (residual_offset .. residual_offset + rows - 1 in g = (h, c)) against
  // columns parameter_offset .. parameter_offset + cols - 1 of z.
  struct JacobianBlock {
    int term = 0;
    int residual_offset = 0;
    int parameter_offset = 0;
    int rows = 0;
    int cols = 0;
    std::vector<double> values;  // rows * cols, row-major
  };

  explicit ProblemEvaluator(const Problem* problem);

  int NumParameters() const override;
  int NumObjectives() const override;
  int NumConstraints() const override;
  int NumInequalityConstraints() const override;
  const ceres::Manifold* manifold() const override { return manifold_.get(); }
  std::string ObjectiveName(int s) const override;

  // The blocks of J_h at the last linearization point; their positions
  // (not their values) are fixed by the problem's structure, so callers that
  // need a sparsity pattern (e.g. an interior-point reference solver) can
  // read it once. A parameter block used twice by one term appears twice.
  const std::vector<JacobianBlock>& jacobian_blocks() const {
    return jacobian_blocks_;
  }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override;
  void DoJacobianTransposeMultiply(const double* v, double* out) const override;
  void DoJacobianMultiply(const double* x, double* out) const override;

 private:
  // A constraint term of the problem and the offset of its residuals in
  // g = (h, c).
  struct ConstraintTerm {
    const Problem::Term* term;
    int residual_offset;
  };

  const Problem* problem_;
  std::vector<ConstraintTerm> constraint_terms_;
  std::unique_ptr<ceres::Manifold> manifold_;  // null without manifolds
  std::vector<JacobianBlock> jacobian_blocks_;
  // Scratch space reused across calls.
  std::vector<double> residuals_;
  std::vector<std::vector<double>> jacobian_scratch_;
  std::vector<double*> jacobian_pointers_;
  std::vector<const double*> parameter_pointers_;
};

}  // namespace ecmo

#endif  // ECMO_EVALUATOR_H_
