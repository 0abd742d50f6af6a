// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: a bound-constrained L-BFGS minimizer with persistent
// workspaces, the inner solver of the quasi-Newton WC strategies
// (wc_lbfgs_inner.cc).
//
//   minimize f(x), x in R^n, subject to lower <= x <= upper
//
// for a ceres::FirstOrderFunction f; bound entries may be -inf / +inf, and
// no bounds at all (null arrays, or every entry infinite) takes a path with
// no projection, no masks and no extra work per iteration.
//
// Why our own and not ceres::GradientProblemSolver:
//   - Ceres' solver has no bounds (issue 14);
//   - every ceres::Solve allocates its L-BFGS history (2 x rank vectors of
//     size n) and its line-search vectors afresh. The WC outer loop calls
//     the inner solver tens of times per point; with large n glibc hands
//     these buffers back to the kernel on every free, and page faults took
//     a third of the time and made two threads slower than one (issue 16).
//     A BoxLbfgs sizes its buffers on the first Minimize with a given n and
//     rank and reuses them: in steady state Minimize does not touch the
//     heap (the Summary's message reuses its capacity when the caller
//     reuses the Summary).
//
// Algorithm: projected active-set L-BFGS. At the iterate x (always inside
// the box) with gradient g:
//   1. Free set: a variable is fixed when it sits on a bound and -g points
//      out of the box there (x_i = l_i and g_i > 0, or x_i = u_i and
//      g_i < 0), or l_i = u_i; all others are free.
//   2. Direction: the two-loop recursion on the free variables, i.e. with
//      every inner product restricted to the free set, so d = -H_F g_F with
//      H_F the L-BFGS inverse Hessian built from the pairs (s_F, y_F) whose
//      s_F^T y_F > 0. H_F is positive definite, so d is a descent direction
//      whenever the projected gradient is not zero. Components that would
//      leave the box at once are dropped; if d is still not a descent
//      direction the memory is cleared and d = -g_F (a restart).
//   3. Projected line search on the path x(t) = P(x + t d), P the
//      projection onto the box: sufficient decrease
//      f(x(t)) <= f(x) + c1 g^T (x(t) - x) and the strong Wolfe curvature
//      test |phi'(t)| <= c2 |phi'(0)| on phi(t) = f(x(t)) (phi' is one-sided
//      where the path bends), by bracketing and zoom with safeguarded cubic
//      interpolation. Without bounds this is the usual strong Wolfe search
//      along x + t d. Where f(x(t)) is within 1e-13 |f(x)| of f(x), cost
//      differences are rounding noise and the approximate Wolfe test of
//      Hager and Zhang, phi'(t) <= (1 - 2 c1) |phi'(0)| (equivalent to
//      sufficient decrease on a quadratic), replaces the sufficient-decrease
//      test, so the solve keeps converging on the gradient where Ceres'
//      line search reports "bracket width too small". An evaluation that fails
//      (Evaluate returns false or a non-finite value) counts as a step that
//      went too far: the step is shortened.
//   4. The pair (s, y) = (x+ - x, g+ - g) enters the memory only when
//      s^T y > 0 (otherwise it is skipped; curvature along the projected
//      path need not be positive).
// Why this rather than L-BFGS-B's generalized Cauchy point and subspace
// minimization: the inner problems have few active bounds (rho is free and
// bounds on z are mostly inactive), where the projected search activates as
// many bounds per iteration as the Cauchy point does, costs O(n rank) per
// iteration like the unconstrained two-loop and needs no compact
// representation matrices; and without bounds it reduces exactly to the
// L-BFGS + Wolfe method the strategies used before.
//
// The initial step and the stopping rules follow Ceres' line search
// minimizer, so the options below keep the meanings of the
// ceres::GradientProblemSolver::Options fields of the same names:
// step min(1, 1/||g||_inf) on the first iteration and after a restart,
// otherwise min(1, 2 (f - f_previous) / phi'(0)); CONVERGENCE when the
// projected gradient ||x - P(x - g)||_inf <= gradient_tolerance, when
// ||step|| <= parameter_tolerance (||x|| + parameter_tolerance), or when
// |f change| <= function_tolerance |f|. One difference: a function_tolerance
// below the rounding level of f (1e-13 |f|, where the line search judges
// steps by the approximate Wolfe test) would stop a solve that still reduces
// the gradient, so there the solve stops only once the projected gradient
// has had no new low for 5 iterations as well.
//
// Not thread-safe: one BoxLbfgs per thread (it is its own workspace).

#ifndef ECMO_INTERNAL_BOX_LBFGS_H_
#define ECMO_INTERNAL_BOX_LBFGS_H_

#include <cstddef>
#include <string>

#include "Eigen/Core"
#include "ceres/first_order_function.h"
#include "ceres/iteration_callback.h"
#include "ceres/types.h"
#include "lbfgs_memory.h"

namespace ecmo {
namespace internal {

class BoxLbfgs {
 public:
  // The subset of ceres::GradientProblemSolver::Options that an L-BFGS line
  // search uses, with Ceres' meanings and defaults.
  struct Options {
    // Number of (s, y) pairs kept. > 0.
    int max_lbfgs_rank = 20;
    // Scale the initial inverse Hessian by s^T y / y^T y of the newest pair
    // (Ceres' option of the same name; off by default as in Ceres).
    bool use_approximate_eigenvalue_bfgs_scaling = false;
    // Accepted steps. >= 0.
    int max_num_iterations = 50;
    // Wall time. >= 0.
    double max_solver_time_in_seconds = 1e9;
    // See the file comment. >= 0.
    double function_tolerance = 1e-6;
    double gradient_tolerance = 1e-10;
    double parameter_tolerance = 1e-8;
    // The line search fails when its bracket is narrower than this, measured
    // as step size times ||d||_inf. > 0.
    double min_line_search_step_size = 1e-9;
    // c1 of the sufficient-decrease test. In (0, 1).
    double line_search_sufficient_function_decrease = 1e-4;
    // A shortened step lies in [max_contraction, min_contraction] of the
    // bracket, measured from its low end. 0 < max < min < 1.
    double max_line_search_step_contraction = 1e-3;
    double min_line_search_step_contraction = 0.6;
    // Function evaluations per line search. > 0.
    int max_num_line_search_step_size_iterations = 20;
    // Restarts with steepest descent (memory cleared) before FAILURE. >= 0.
    int max_num_line_search_direction_restarts = 5;
    // c2 of the strong Wolfe curvature test. In (c1, 1).
    double line_search_sufficient_curvature_decrease = 0.9;
    // Factor by which the step may grow while bracketing. > 1.
    double max_line_search_step_expansion = 10.0;

    // False, with a message naming the field, if an option is out of range.
    bool IsValid(std::string* error) const;
  };

  struct Summary {
    // CONVERGENCE (one of the tolerances), USER_SUCCESS / USER_FAILURE (the
    // callback returned SOLVER_TERMINATE_SUCCESSFULLY / SOLVER_ABORT),
    // NO_CONVERGENCE (iteration or time budget) or FAILURE (f not finite at
    // the start, the line search found no decrease, invalid options). x is
    // the best point found in every case (the start when nothing was
    // accepted).
    ceres::TerminationType termination_type = ceres::FAILURE;
    std::string message;
    // Accepted steps.
    int iterations = 0;
    // Every evaluation computes the gradient too.
    int num_cost_evaluations = 0;
    int num_gradient_evaluations = 0;
    // False when f could not be evaluated at the (projected) start.
    bool evaluated_start = false;
    double initial_cost = 0.0;
    double final_cost = 0.0;
  };

  BoxLbfgs() = default;
  explicit BoxLbfgs(const Options& options) : options_(options) {}

  const Options& options() const { return options_; }
  // Bytes held by the workspace (what keeping this object alive retains).
  size_t WorkspaceBytes() const;
  Options* mutable_options() { return &options_; }

  // Minimizes `function` from x (size n = function.NumParameters()) in
  // place. lower and upper: arrays of size n or null (that side unbounded);
  // entries may be infinite, lower <= upper. A start outside the box is
  // projected onto it first. Every point at which `function` is evaluated
  // lies inside the box. `callback` (may be null; NOT owned) is called with
  // every accepted iterate, the start included, as Ceres calls iteration
  // callbacks: IterationSummary::iteration and cost (exactly the value
  // Evaluate returned there), gradient_max_norm (projected), step_norm and
  // step_size are filled in. The function and callback are not owned and
  // are only used during the call.
  void Minimize(const ceres::FirstOrderFunction& function,
                const double* lower,
                const double* upper,
                ceres::IterationCallback* callback,
                double* x,
                Summary* summary);

 private:
  // One point of the line search: step t, x(t), f, g and phi'(t).
  struct Trial {
    double t = 0.0;
    double cost = 0.0;
    double slope = 0.0;
    bool valid = false;
  };

  void Resize(int n);
  bool EvaluateAt(const double* x, double* cost, double* gradient);
  double ProjectedGradientMaxNorm(const Eigen::VectorXd& x,
                                  const Eigen::VectorXd& g) const;
  void ComputeFreeSet();
  void ComputeDirection();
  // Evaluates x_trial_ = P(x_ + t d_) into the trial slot.
  Trial EvaluateStep(double t);
  // Strong Wolfe search from step t0; on success the accepted point is in
  // x_best_, g_best_ and the returned Trial.
  bool LineSearch(double t0, double slope0, Trial* accepted);
  void UpdateMemory();
  // Each returns true when the solve ends, with termination_type and message
  // set.
  bool SetUpBounds(const double* lower, const double* upper, Summary* summary);
  bool BudgetExhausted(Summary* summary);
  bool RunCallback(ceres::IterationCallback* callback,
                   double step_norm,
                   double step_size,
                   double gradient_max_norm,
                   Summary* summary);
  bool Converged(double step_norm, double gradient_max_norm, Summary* summary);
  void SetMessage(Summary* summary, const char* format, ...)
      __attribute__((format(printf, 3, 4)));

  Options options_;

  // Problem of the current call.
  const ceres::FirstOrderFunction* function_ = nullptr;
  bool bounded_ = false;  // some bound is finite
  int n_ = -1;
  int rank_ = -1;
  double start_time_ = 0.0;
  // Seconds since start_time_ as the last callback read them (< 0: not
  // read since): the budget test right after reuses the reading (a clock
  // read was a few percent of a small solve).
  double elapsed_ = -1.0;
  Summary* summary_ = nullptr;

  // Workspace, sized by Resize.
  Eigen::VectorXd x_, g_, d_;          // iterate, gradient, direction
  Eigen::VectorXd x_trial_, g_trial_;  // line search trial
  Eigen::VectorXd x_best_, g_best_;    // best acceptable trial so far
  // Bounded calls only (sized on the first one): the box with -inf / +inf
  // for missing sides, and the free set (1 free, 0 fixed).
  Eigen::VectorXd lower_box_, upper_box_, free_;
  int num_fixed_ = 0;           // zeros in free_
  LbfgsMemory memory_;          // the L-BFGS pairs
  double cost_ = 0.0;
  double previous_cost_ = 0.0;
  // Converged's record of the gradient while cost changes are rounding
  // noise.
  double lowest_gradient_in_noise_ = 0.0;
  int noise_stalls_ = 0;
  char message_buffer_[320];
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_BOX_LBFGS_H_
