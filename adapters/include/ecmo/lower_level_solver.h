// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Numerics on the lower level g(x, .) of an MTBL problem (ecmo/mtbl.h),
// all matrix-free (gradients and Hessian-vector products of a LowerLevel;
// every CG iteration and preconditioner column below takes the y part
// alone, LowerLevel::HessianYYProduct, which a lower level whose x part is
// expensive should override):
//
//   1. SolveLowerLevel: y*(x) = argmin_y g(x, y) by Newton-CG (truncated
//      conjugate gradients on grad^2_yy g, Armijo line search on g),
//      stopping on ||grad_y g||_2. Every CG solve here may be
//      preconditioned by a factorized grad^2_yy g kept from an earlier
//      point (LowerLevelPreconditioner).
//   2. EstimateLowerLevelSpectrum: the extreme eigenvalues of
//      grad^2_yy g and the dimension of its (numerical) null space by
//      Lanczos on Hessian-vector products, i.e. whether y* is unique.
//   3. ReducedMtblEvaluator: the reduced-space form of a bilevel problem
//      with a STRONGLY convex lower level, an ecmo::Evaluator over x only
//      (no constraints): F(x) = f(x, y*(x)), gradients by the implicit
//      function theorem. Every strategy and sweep runs on it.
//
// FULL SPACE OR REDUCED SPACE?
//   The full-space ECMO form (MtblEvaluator: variables (x, y), constraint
//   grad_y g = 0) is the paper's and needs only that g(x, .) is convex: it
//   is the only form that is defined when the lower level has many
//   minimizers (merely convex g, e.g. a logistic regression without
//   regularization: grad^2_yy g is singular and y*(x) is a set). Prefer
//   the reduced form when g(x, .) is strongly convex (a unique, smooth
//   y*(x)): it has nx instead of nx + ny variables and no constraints,
//   every point it returns is exactly lower-level optimal (to the
//   lower-level tolerance), and its Hessian is nx x nx, so Newton-type
//   strategies never meet the ill-conditioning of J_h = grad^2_yy g. Each
//   evaluation costs a warm-started lower-level solve plus, with
//   gradients, min(nx, S) conjugate-gradient solves on grad^2_yy g.
//   EstimateLowerLevelSpectrum tells which case you are in.
//
// Errors: nothing here aborts or throws; failures are reported in the
// summaries and messages.

#ifndef ECMO_LOWER_LEVEL_SOLVER_H_
#define ECMO_LOWER_LEVEL_SOLVER_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/types.h"

namespace ecmo {

class LowerLevel;     // ecmo/mtbl.h
class MtblEvaluator;  // ecmo/mtbl.h

// ------------------------------------------------------ SolveLowerLevel --

// How the conjugate-gradient solves on grad^2_yy g (Newton steps of the
// lower level, implicit-function solves of ReducedMtblEvaluator) are
// preconditioned.
enum class LowerLevelPreconditionerType {
  // Plain CG on Hessian-vector products: O(ny) memory, and an iteration
  // count that grows with the square root of the condition number of
  // grad^2_yy g (hundreds per solve for a weakly regularized softmax
  // regression on correlated features).
  IDENTITY,
  // CG preconditioned by a Cholesky factorization of grad^2_yy g formed by
  // ny Hessian-vector products at some earlier (x, y) and kept across
  // solves; refreshed at the current point once the solves since the last
  // refresh have spent about ny CG iterations beyond
  // preconditioned_cg_iterations each (the products a refresh costs, so at
  // most about twice the better of refreshing and not refreshing).
  // ny^2 doubles of memory and ny^3 / 3 flops per refresh.
  DENSE_HESSIAN,
  // DENSE_HESSIAN when ny <= max_dense_preconditioner_size, else IDENTITY.
  AUTOMATIC,
};

const char* LowerLevelPreconditionerTypeToString(
    LowerLevelPreconditionerType type);
// Accepts "identity", "dense-hessian", "automatic" (case-insensitive,
// '_' for '-'); false for anything else.
bool StringToLowerLevelPreconditionerType(std::string value,
                                          LowerLevelPreconditionerType* type);

class LowerLevelSolver {
 public:
  struct Options {
    // Newton iterations. >= 0 (0 only evaluates the gradient).
    int max_iterations = 100;
    // Converged when ||grad_y g(x, y)||_2 <= gradient_tolerance (absolute:
    // the hypergradients of ReducedMtblEvaluator inherit this error).
    double gradient_tolerance = 1e-10;
    // Conjugate gradients per Newton step, and the forcing term: CG stops
    // when its residual is at most min(cg_relative_tolerance,
    // sqrt(||grad||)) ||grad|| (Eisenstat-Walker; superlinear near y*).
    int max_cg_iterations = 500;
    double cg_relative_tolerance = 0.5;
    // Backtracking (halving) steps of the Armijo line search on g (on
    // ||grad_y g|| when the lower level has no Value).
    int max_line_search_steps = 40;
    double armijo_coefficient = 1e-4;
    // Preconditioning of every CG solve on grad^2_yy g (see
    // LowerLevelPreconditionerType). The dense preconditioner is used under
    // AUTOMATIC up to this ny (2,000: 32 MB, a refresh of about 2,000
    // products and 3 GFlop).
    LowerLevelPreconditionerType preconditioner_type =
        LowerLevelPreconditionerType::AUTOMATIC;
    int max_dense_preconditioner_size = 2000;
    // The CG iterations per solve a fresh dense preconditioner is expected
    // to need; iterations beyond it count towards the next refresh.
    int preconditioned_cg_iterations = 10;

    bool IsValid(std::string* error) const;
  };

  struct Summary {
    std::string BriefReport() const;
    bool IsSolutionUsable() const;

    // CONVERGENCE: ||grad_y g|| <= gradient_tolerance. NO_CONVERGENCE:
    // iteration limit or a line search that could not decrease g (y holds
    // the best point found). FAILURE: g or its products could not be
    // evaluated at the start (y unchanged).
    TerminationType termination_type = ceres::FAILURE;
    std::string message = "ecmo::SolveLowerLevel was not called.";
    int iterations = 0;
    int cg_iterations = 0;
    // Work, in calls of the LowerLevel.
    int64_t value_evaluations = 0;
    int64_t gradient_evaluations = 0;
    int64_t hessian_products = 0;
    double initial_gradient_norm = std::numeric_limits<double>::quiet_NaN();
    double gradient_norm = std::numeric_limits<double>::quiet_NaN();
    // g(x, y) at the returned y (NaN without LowerLevel::Value).
    double value = std::numeric_limits<double>::quiet_NaN();
    // A CG step met non-positive curvature (g(x, .) is not convex there).
    bool negative_curvature = false;
    // Dense preconditioner refreshes in this call (their ny products each
    // are counted in hessian_products).
    int64_t preconditioner_refreshes = 0;
  };
};

// The state of the dense preconditioner, kept across CG solves and across
// calls of SolveLowerLevel (ReducedMtblEvaluator keeps one for its
// lifetime; a caller that solves the lower level repeatedly, e.g. along a
// path of x, can do the same). Not thread-safe.
class LowerLevelPreconditioner {
 public:
  // The type and sizes are taken from `options` (AUTOMATIC is resolved
  // against ny here). No factorization is formed before the solves have
  // spent about ny iterations beyond the expected count, so a caller with
  // few or easy solves never pays for one.
  LowerLevelPreconditioner(const LowerLevelSolver::Options& options, int ny);
  ~LowerLevelPreconditioner();
  LowerLevelPreconditioner(const LowerLevelPreconditioner&) = delete;
  LowerLevelPreconditioner& operator=(const LowerLevelPreconditioner&) = delete;

  // True when CG solves may be preconditioned (DENSE_HESSIAN resolved).
  bool enabled() const;
  // True when a factorization is held.
  bool ready() const;
  // Factorizes grad^2_yy g(x, y) now, by ny products of lower_level (one
  // of them failing, or a non-finite Hessian, disables the preconditioner:
  // identity from then on; error, if not null, says why). A Hessian that
  // is not positive definite is shifted by a multiple of its largest
  // diagonal entry until Cholesky succeeds.
  bool Refresh(const LowerLevel& lower_level,
               const double* x,
               const double* y,
               std::string* error);
  // z = M^{-1} r with the factorization held (z = r when none is).
  void Apply(const Eigen::VectorXd& r, Eigen::VectorXd* z) const;
  // Records a finished CG solve of `iterations` iterations.
  void RecordSolve(int iterations);
  // True when the solves since the last refresh have spent about ny
  // iterations beyond the expected count: refresh before the next solve.
  bool refresh_due() const;

  int64_t refreshes() const { return refreshes_; }
  // Hessian-vector products spent on refreshes.
  int64_t products() const { return products_; }

 private:
  class Factorization;
  int ny_ = 0;
  bool enabled_ = false;
  int expected_iterations_ = 10;
  std::unique_ptr<Factorization> factorization_;
  int64_t excess_iterations_ = 0;
  int64_t refreshes_ = 0;
  int64_t products_ = 0;
};

// Minimizes g(x, .) from *y (size ny; overwritten with the result). x has
// size nx. Newton-CG: each iteration solves grad^2_yy g d = -grad_y g by
// truncated CG (at negative curvature it keeps the CG iterate so far, or
// takes -grad), then halves the step until g decreases by the Armijo
// amount. Returns summary->IsSolutionUsable(). The CG solves are
// preconditioned as options.preconditioner_type says, with a
// preconditioner that lives for this call only.
bool SolveLowerLevel(const LowerLevelSolver::Options& options,
                     const LowerLevel& lower_level,
                     const double* x,
                     Eigen::VectorXd* y,
                     LowerLevelSolver::Summary* summary);
// The same with a caller-owned preconditioner (not null; built from the
// same options and ny), reused and refreshed across calls.
bool SolveLowerLevel(const LowerLevelSolver::Options& options,
                     const LowerLevel& lower_level,
                     const double* x,
                     Eigen::VectorXd* y,
                     LowerLevelPreconditioner* preconditioner,
                     LowerLevelSolver::Summary* summary);

// ------------------------------------------- EstimateLowerLevelSpectrum --

struct LowerLevelSpectrumOptions {
  // Lanczos runs (independent Gaussian start vectors) and steps per run
  // (capped at ny), with full reorthogonalization. Cost: probes * steps
  // Hessian-vector products.
  int probes = 4;
  int lanczos_steps = 60;
  // An eigenvalue counts as zero when it is at most null_tolerance times
  // the largest eigenvalue found.
  double null_tolerance = 1e-6;
  uint64_t seed = 20261123;
};

struct LowerLevelSpectrum {
  // Smallest and largest Ritz values over all runs: estimates of the
  // extreme eigenvalues of grad^2_yy g (the smallest is an upper bound of
  // the true smallest, accurate when it is well separated).
  double smallest_eigenvalue = std::numeric_limits<double>::quiet_NaN();
  double largest_eigenvalue = std::numeric_limits<double>::quiet_NaN();
  // Estimated dimension of the null space: ny times the Lanczos (Gauss)
  // quadrature weight of the Ritz values counted as zero, averaged over
  // the runs (stochastic Lanczos quadrature; relative standard error about
  // sqrt(2 / (probes * dimension))). 0 when no Ritz value is zero.
  int null_space_dimension = -1;
  // False when a zero eigenvalue (|Ritz value| <= null_tolerance *
  // largest) was found AND g(x, .) is flat along its Ritz vector v
  // (grad_y g(y + t v) = grad_y g(y) to null_tolerance, t = 0.1 max(1,
  // ||y||)): y* is then not unique (an affine family of minimizers). A
  // singular Hessian with curvature of higher order (g = y^4) keeps
  // unique = true; the message says so. Negative eigenvalues (a non-convex
  // g) are named in the message.
  bool unique = true;
  int hessian_products = 0;
  std::string message;
};

// Estimates the spectrum of grad^2_yy g at (x, y). Returns false (with
// spectrum->message) when a Hessian-vector product fails.
bool EstimateLowerLevelSpectrum(const LowerLevel& lower_level,
                                const double* x,
                                const double* y,
                                const LowerLevelSpectrumOptions& options,
                                LowerLevelSpectrum* spectrum);

// -------------------------------------------------- ReducedMtblEvaluator --

// The reduced-space form of the bilevel problem of an MtblEvaluator with a
// strongly convex lower level (see the top of this file): variables x
// (k = nx), objectives F_s(x) = f_s(x, y*(x)), no constraints (q = 0).
//
//   ecmo::MtblEvaluator full(&lower);   // with its upper objectives
//   ecmo::ReducedMtblEvaluator reduced(&full, y0);
//   Eigen::VectorXd x = x0;
//   ecmo::Solve(options, &reduced, {0.5, 0.5}, &x, &summary);
//   Eigen::VectorXd z = reduced.FullPoint(x);   // (x, y*(x)) for the report
//
// Evaluate(x) solves y*(x) by SolveLowerLevel, warm-started from the last
// solution moved by the sensitivity dy*/dx when it is known. With
// gradients, grad F_s = grad_x f_s + (dy*/dx)^T grad_y f_s with
// grad^2_yy g dy*/dx = -grad^2_yx g: nx CG solves on Hessian-vector
// products when nx <= S (forward mode), otherwise S adjoint solves
// grad^2_yy g v_s = grad_y f_s (grad F_s = grad_x f_s - grad^2_xy g v_s).
// Evaluate fails (returns false with a message) when the lower-level solve
// or a CG solve does not converge, e.g. for a merely convex lower level.
//
// The full evaluator must outlive this one; it is used (and re-linearized)
// by Evaluate. Stateful and not thread-safe, like every evaluator.
class ReducedMtblEvaluator final : public Evaluator {
 public:
  struct Options {
    // The lower-level solves (gradient_tolerance bounds the error of the
    // returned F and of the hypergradients). Its preconditioner settings
    // also govern the solves below: one LowerLevelPreconditioner serves
    // every CG solve of this evaluator for its lifetime.
    LowerLevelSolver::Options lower_level;
    // The sensitivity / adjoint CG solves: relative residual and budget.
    double cg_relative_tolerance = 1e-9;
    int max_cg_iterations = 2000;
  };

  // Work done inside Evaluate, in calls of the LowerLevel.
  struct Work {
    int64_t lower_level_solves = 0;
    int64_t newton_iterations = 0;
    int64_t cg_iterations = 0;  // Newton steps and sensitivity solves
    int64_t lower_gradient_evaluations = 0;
    int64_t hessian_vector_products = 0;  // including preconditioner refreshes
    int64_t preconditioner_refreshes = 0;
  };

  // y0 (size ny) starts the first lower-level solve.
  ReducedMtblEvaluator(MtblEvaluator* full,
                       const Eigen::VectorXd& y0,
                       const Options& options);
  ReducedMtblEvaluator(MtblEvaluator* full, const Eigen::VectorXd& y0);
  ~ReducedMtblEvaluator() override;

  bool IsValid(std::string* error) const;

  int NumParameters() const override;
  int NumObjectives() const override;
  int NumConstraints() const override { return 0; }

  // (x, y*(x)) packed as the full evaluator's z. Solves the lower level
  // (warm-started) unless x is the last evaluated point. Empty on failure.
  Eigen::VectorXd FullPoint(const Eigen::VectorXd& x);
  // The lower-level solution at the last evaluated x.
  const Eigen::VectorXd& lower_level_solution() const { return y_; }
  const Work& work() const { return work_; }
  void ResetWork() { work_ = Work(); }

 protected:
  bool DoEvaluate(const double* x,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override;
  void DoJacobianTransposeMultiply(const double* v, double* out) const override;
  void DoJacobianMultiply(const double* x, double* out) const override;
  // Exact reduced Hessian products (forward mode, nx <= S): with
  // Z = [I; dy*/dx] and the adjoint v solving grad^2_yy g v =
  // -sum_s a_s grad_y f_s (one CG solve per distinct a, warm-started),
  // grad^2 (sum_s a_s F_s) p = Z^T grad^2 l Z p, where l = sum_s a_s f_s +
  // v^T grad_y g is the full-space Lagrangian, whose product comes from the
  // full evaluator (MtblEvaluator::LagrangianHessianMultiply: third-order
  // products of the lower level). Adjoint mode (nx > S): gradient
  // differences (the base class).
  bool DoLagrangianHessianMultiply(const double* a,
                                   const double* b,
                                   const double* p,
                                   double* out,
                                   std::string* error) override;

 public:
  bool HasExactLagrangianHessian() const override { return true; }

 private:
  bool SolveAt(const Eigen::VectorXd& x, std::string* error);
  // CG on grad^2_yy g s = rhs from *s (warm start).
  bool SolveHessian(const Eigen::VectorXd& rhs,
                    Eigen::VectorXd* s,
                    std::string* error);

  MtblEvaluator* full_;
  Options options_;
  int nx_ = 0;
  int ny_ = 0;
  std::string first_error_;
  // Last lower-level solution and the x it belongs to.
  Eigen::VectorXd x_, y_;
  bool solved_ = false;
  // dy*/dx (ny x nx) at x_sensitivity_ (forward mode), and adjoint
  // solutions (ny x S, adjoint mode): warm starts of the next CG solves.
  Eigen::MatrixXd sensitivity_, adjoints_;
  Eigen::VectorXd x_sensitivity_, y_sensitivity_;
  // grad f_s (full space, k x S) at the sensitivity point, the weights a of
  // the last adjoint solve and its solution.
  Eigen::MatrixXd grad_full_lin_;
  Eigen::VectorXd adjoint_weights_, adjoint_;
  // Preconditions every CG solve on grad^2_yy g (lower-level Newton steps
  // and the solves above); kept across evaluations.
  std::unique_ptr<LowerLevelPreconditioner> preconditioner_;
  Work work_;
};

}  // namespace ecmo

#endif  // ECMO_LOWER_LEVEL_SOLVER_H_
