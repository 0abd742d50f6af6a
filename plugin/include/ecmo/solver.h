// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Solving one weighted-Chebyshev (WC) subproblem of an ECMO problem:
//
//   min_{rho, z} rho  s.t.  lambda_s (f_s(z) - r_s) / w_s <= rho,  h(z) = 0,
//
// for a preference lambda in the open simplex, a reference point r and
// objective scales w (ecmo/scalarization.h: by default r is the utopia
// point from S single-objective solves and w = 1; the paper's form is
// r = -objective_offset). Its solution is a (locally) weakly Pareto optimal
// point of the ECMO problem; sweeping lambda traces the front. No sign
// condition on the objectives is needed. The API follows Ceres: a plain Options
// struct with documented defaults and IsValid(), a Summary with
// BriefReport()/FullReport(), and a free Solve() function.
//
//   ecmo::Solver::Options options;
//   ecmo::Solver::Summary summary;
//   ecmo::Solve(options, &problem, {0.5, 0.5}, &summary);
//   std::cout << summary.FullReport() << "\n";
//
// The start point is read from the problem's parameter blocks; when the
// solution is usable (IsSolutionUsable()) it is written back into them.
// Solve never aborts and never throws: invalid options, an invalid problem,
// a bad preference or a failing cost function (one that returns false, a
// non-finite value, or throws) give a FAILURE summary whose message says
// what is wrong. The one exception is std::bad_alloc when memory runs out,
// as from any allocation (ecmo::Sweep catches it: the point goes to
// another thread, or ends FAILURE).

#ifndef ECMO_SOLVER_H_
#define ECMO_SOLVER_H_

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/gradient_problem_solver.h"
#include "ceres/solver.h"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/scalarization.h"
#include "ecmo/second_order.h"
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

  // The quasi-Newton strategies (WC_PENALTY_LBFGS, WC_AUGMENTED_LAGRANGIAN)
  // record one IterationSummary per OUTER iteration, after its inner
  // minimization: `penalty` is the final value of the inner function Q (or
  // L_A), kkt_residual_sq is ||K||^2 with the updated multipliers, step_size
  // is unused (0) and step_norm is ||x_end - x_start|| of the inner solve,
  // x = (rho, z). The fields below are filled by those strategies only.
  // Inner (L-BFGS) iterations of this outer iteration.
  int inner_iterations = 0;
  // Penalties u (for h) and v (for the inequalities) used by the inner solve.
  double penalty_u = 0.0;
  double penalty_v = 0.0;
  // Gradient evaluations so far (whole solve).
  int64_t gradient_evaluations = 0;
  // How the inner Ceres solve ended.
  TerminationType inner_termination_type = ceres::CONVERGENCE;
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
    // Which strategy solves the WC subproblem (ecmo/types.h). AUTOMATIC:
    // WC_SQP on small equality-constrained problems, WC_NEWTON on larger
    // sums of squared residuals (CeresProblemAdapter), otherwise
    // WC_AUGMENTED_LAGRANGIAN; Summary::strategy reports the one used and
    // Summary::strategy_choice why.
    StrategyType strategy = StrategyType::AUTOMATIC;

    // T: the iteration budget. For WC_PENALTY_PGD it also sets the schedule
    // (eta = eta0 T^(-1/4), u = v = c0 T^(1/4)), so the faithful strategy
    // runs all T iterations unless kkt_tolerance stops it early. For the
    // quasi-Newton strategies it bounds the TOTAL number of inner (L-BFGS)
    // iterations over all outer iterations.
    int max_iterations = 10000;

    // The paper's absolute test: stop as soon as ||K||^2 <= kkt_tolerance
    // (strategy multipliers, or least-squares ones). 0 (default): the
    // quasi-Newton strategies stop on the certificate measured at the point below
    // instead, and WC_PENALTY_PGD runs exactly T steps (the paper's
    // algorithm). When > 0 it replaces the certificate as the stopping test
    // of every strategy. Finite and < 1.
    double kkt_tolerance = 0.0;
    // The raw tolerance the quasi-Newton strategies used before the
    // certificate existed; kept for callers that want the old absolute test.
    static constexpr double kDefaultQuasiNewtonKktTolerance = 1e-12;

    // The default stopping test of the quasi-Newton strategies and the
    // verdict of every solve: the KKT certificate (ecmo/kkt.h,
    // KktCertificate, which states what a certified point guarantees),
    // measured at the returned point with the strategy's or the
    // least-squares multipliers: |sum omega - 1| <= stationarity_tolerance;
    // the Lagrangian gradient <= stationarity_tolerance times its largest
    // term (the terms cancel to that fraction), or, where the evaluator
    // has Gauss-Newton structure, a Gauss-Newton step of the point's own
    // weighted sum predicting a decrease <= model_tolerance times the
    // weighted objective values; each objective's slack <=
    // complementarity_tolerance times those values; ||h||_inf <=
    // feasibility_tolerance in the constraints' units. No tolerance depends
    // on the start point or on a payoff table. All in (0, 1).
    double stationarity_tolerance = 1e-6;
    double complementarity_tolerance = 1e-8;
    double feasibility_tolerance = 1e-8;
    // In (0, 1e-4]: see above.
    double model_tolerance = KktCertificate::kDefaultModelTolerance;
    // >= 0, finite: an absolute level of ||sum omega lambda grad f + J^T
    // nu||_inf (the units of Summary::kkt's raw stationarity block) that
    // the relative stationarity test never asks to go below. 0 (default):
    // none, so a point where a single term stands alone (one active
    // objective at an unconstrained minimizer of an evaluator without
    // Gauss-Newton structure) is certified only if that gradient vanishes
    // exactly; set it in your problem's units to accept such points.
    double stationarity_floor = 0.0;

    // ---- Second order (ecmo/second_order.h) ----
    // The certificate above is first order and also holds at saddles. With
    // second_order_check (default), Solve tests a CONVERGENCE point's
    // curvature on the critical cone (AnalyzeSecondOrder, with
    // `second_order`; Summary::second_order reports it). A negative
    // curvature counts only when a step along its direction lowers the
    // Lagrangian beyond the rounding of its value (otherwise it is noise
    // of the Hessian products and the point stays CONVERGENCE). At such a
    // saddle Solve restarts from that step (with the same options and
    // scalarization), at most max_saddle_escapes times, and keeps a
    // restart that ends CONVERGENCE with a smaller rho. A restart that
    // ends uncertified but usable, at least as feasible and with a
    // smaller WC value (Summary::WcValue) is returned as NO_CONVERGENCE:
    // the better point of the WC problem. Otherwise the answer is
    // NO_CONVERGENCE at the saddle. Either message says "saddle point".
    // Not with a manifold (the report says so).
    // The test costs one Hessian product per dimension of the cone's span
    // up to second_order.max_dense_dimension, then
    // second_order.max_lanczos_iterations products, both capped by
    // second_order.max_work_fraction of the solve's gradient evaluations.
    bool second_order_check = true;
    SecondOrderOptions second_order;
    // >= 0; 0 reports a saddle as NO_CONVERGENCE without a restart.
    int max_saddle_escapes = 2;

    // Wall-clock budget in seconds.
    double max_solver_time_in_seconds = 1e9;

    // ---- Scalarization (ecmo/scalarization.h) ----
    // The paper's form: constants added to the objectives, i.e. the
    // reference point r = -objective_offset. Empty (default): not given.
    // Otherwise one finite entry per objective.
    std::vector<double> objective_offset;
    // Legacy: offset_s = 1 + max(0, -f_s(z0)) (r = -offset). Prefer the
    // automatic utopia reference point, which is below the whole front.
    bool automatic_objective_offset = false;
    // The reference point r (size S, finite). Empty (default): the utopia
    // point for S > 1, r = 0 for S = 1. Not together with objective_offset.
    std::vector<double> reference_point;
    // Margin of the automatic utopia point below the ideal point, relative
    // to the objective's range (nadir - ideal). In (0, 1].
    double utopia_margin = 1e-2;
    // With the automatic (utopia) reference point: divide each objective
    // by nadir_s - utopia_s from the same single-objective solves (no extra
    // cost), so that a preference means the same point whatever the
    // objectives' units (f_1 -> 1e6 f_1 returns the same z) and a uniform
    // preference grid spreads points evenly. Without it the utopia margin
    // is 1% of each objective's own range, and where the ranges differ by
    // orders of magnitude (odometry 450 against loop closures 1.9e9 on a
    // real pose graph) the objective with the larger range is the only
    // active one at almost every preference: the points are weakly Pareto,
    // the other objective anywhere below the level. Default on, as in
    // ParetoSweep. With a given reference point or offset the scales are
    // ones unless objective_scale is given (normalizing them would need the
    // single-objective solves; ComputeScalarization and objective_scale
    // give that explicitly).
    bool normalize_objectives = true;
    // Explicit objective scales w (size S, finite, > 0); overrides
    // normalize_objectives. Empty: ones, or the normalization. A sweep sets
    // reference_point and objective_scale once for all its points. The
    // scales change the scalarization, not the certificate, which measures
    // at the returned point.
    std::vector<double> objective_scale;
    // A scalarization computed beforehand by ComputeScalarization, used as
    // is instead of the fields above (which must then be left empty):
    // ParetoSweep computes one for the whole sweep and shares it with every
    // point, so the single-objective solves run once. Its reference point
    // and scales must have one entry per objective.
    std::shared_ptr<const Scalarization> scalarization;
    // Without a scalarization given: reuse the one an earlier Solve
    // computed on the same evaluator (or ecmo::Problem) for the same
    // scalarization fields above and strategy, instead of running the
    // single-objective solves again (Scalarization::reused says so; the
    // first call computes it at its start point). A loop of Solve calls,
    // one per preference, then pays for the utopia point once, and every
    // preference is measured against the same r and w whatever its warm
    // start. The cache is forgotten when the problem's structure changes
    // (Evaluator::ForgetScalarization for data changes). False: every
    // call computes its own from its start point.
    bool reuse_scalarization = true;

    // Initial rho. NaN (default) means max_s lambda_s (f_s(z0) - r_s) / w_s,
    // which makes the start feasible for the inequality constraints.
    double initial_rho = std::numeric_limits<double>::quiet_NaN();

    // Warm start of the quasi-Newton strategies from a nearby solution,
    // typically the neighbouring point of a Pareto sweep (ParetoSweep fills
    // it from the neighbour's Summary when its warm_start is on): pass that
    // Summary's kkt.solver_multipliers as omega and nu and its penalty_u and
    // penalty_v. The start point itself is still read from the problem (or
    // z). Everything empty / 0 (the default) is a cold start.
    //   WC_AUGMENTED_LAGRANGIAN: omega and nu are the initial multiplier
    //     estimates (instead of zeros), and penalty_u / penalty_v the initial
    //     penalties (instead of QuasiNewtonOptions::initial_penalty or its
    //     automatic rule). With multipliers given and initial_rho NaN, rho
    //     starts at max_s lambda_s (f_s(z0) + offset_s), which is where the
    //     augmented Lagrangian is stationary in rho when omega sums to 1.
    //   WC_PENALTY_LBFGS: only the penalties are used (omega and nu are
    //     checked but ignored).
    //   WC_PENALTY_PGD ignores the whole block (its schedule is set by T).
    // Penalties above QuasiNewtonOptions::max_penalty are lowered to it.
    struct WarmStart {
      // Both empty (no multipliers), or omega of size S (entries finite and
      // >= 0) and nu of size q (may stay empty when q = 0); checked by
      // Solve, whose FAILURE message names the mismatch.
      Eigen::VectorXd omega;
      Eigen::VectorXd nu;
      // Initial penalties u (for h) and v (for the inequalities); 0 means
      // automatic. When only one is given (> 0), the other takes its value.
      // >= 0 and finite. wc-newton with its Ceres phase sizes them from the
      // phase's point instead (NewtonOptions::ceres_phase).
      double penalty_u = 0.0;
      double penalty_v = 0.0;
      // Optional: the preference omega and nu were found for (a
      // neighbour's, size S, entries > 0). When no entry of it differs
      // from this solve's preference by more than a factor 4,
      // wc-newton's Ceres phase starts from the weights at which the warm
      // start's z minimizes the weighted sum: at a point z that is
      // stationary for sum_s omega_s lambda_s f_s + nu^T h, the multipliers
      // that keep it stationary for the new lambda are omega'_s
      // proportional to omega_s lambda_s / lambda'_s (CarryWarmStartOver).
      // Across larger changes (e.g. to a preference at an end of the
      // front) that first-order argument misleads and the phase starts
      // from omega as given; the other strategies always take omega as
      // given (measured: the carried multipliers made the augmented
      // Lagrangian's warm sweep dearer). Sweeps set it from the
      // neighbour's Summary::preference.
      std::vector<double> preference;

      // True when any multiplier or penalty is given.
      bool IsSet() const {
        return omega.size() > 0 || nu.size() > 0 || penalty_u > 0.0 ||
               penalty_v > 0.0;
      }
    } warm_start;

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

    // Options of the quasi-Newton strategies WC_PENALTY_LBFGS and
    // WC_AUGMENTED_LAGRANGIAN. Both minimize, over x = (rho, z), the
    // slack-eliminated (C^1, unconstrained) function
    //
    //   Q(x) = rho + sum_s v/2 [max(0, lambda_s f_s - rho + omega_s/v)^2
    //                           - (omega_s/v)^2] + nu^T h + u/2 ||h||^2
    //
    // (omega = nu = 0 for the penalty strategy) with an L-BFGS
    // (use_ceres_inner_solver below says which), warm-started from the
    // previous outer iterate.
    // grad Q is exactly the first two KKT blocks (sum omega+ - 1 and the
    // stationarity block) at the first-order multipliers
    // omega+ = v max(0, lambda f - rho + omega/v), nu+ = nu + u h, so the
    // strategies report (omega+, nu+) and stop on ||K||^2 with them.
    struct QuasiNewtonOptions {
      // Ceres' options for every inner minimization. Used as given, except
      // that the strategy adds its own stopping callback (after any
      // callbacks listed here), caps max_num_iterations by the remaining
      // Options::max_iterations budget and max_solver_time_in_seconds by the
      // remaining Options::max_solver_time_in_seconds, and switches
      // logging_type to PER_MINIMIZER_ITERATION when glog verbosity is on
      // (--v=1 or VLOG_IS_ON(1)). Defaults differ from Ceres' as set by
      // DefaultInnerOptions():
      //   max_num_iterations = 1000 (Ceres: 50, far too low),
      //   function_tolerance = parameter_tolerance = 1e-15 and
      //   gradient_tolerance = 1e-15 (the strategy's own test, relative to
      //   the KKT target, normally stops the inner solve first),
      //   logging_type = SILENT, which hides Ceres' line-search warnings
      //   ("Line search failed: Wolfe zoom bracket width ... too small" and
      //   the like, logged when the line search runs out of floating-point
      //   precision near a minimizer). They are harmless: the strategy
      //   treats such an inner solve as finished and decides on its KKT
      //   test. Set logging_type = ceres::PER_MINIMIZER_ITERATION, or run
      //   with glog verbosity >= 1, to see them.
      // ecmo never changes glog's log level. Two Ceres 2.1 warnings ignore
      // SILENT and may therefore reach your log (at WARNING level) from
      // inner solves: polynomial.cc "Trying to extract roots from a constant
      // polynomial in FindPolynomialRoots" (the line search's interpolating
      // polynomial degenerated, e.g. after a non-finite or flat function
      // value; Ceres then uses the interval's end or middle point) and
      // line_search_direction.cc "Numerical failure in L-BFGS update" (the
      // L-BFGS direction is reset). Neither affects the result, which is
      // judged by the KKT test. line_search_interpolation_type = BISECTION
      // avoids the first at the cost of many more gradient evaluations
      // (README.md, "Logging"); hide both with glog's --minloglevel=1 if
      // you wish.
      // The line search direction may be any of Ceres' (LBFGS default;
      // BFGS stores a dense (k+1)^2 matrix, avoid it for large k).
      ceres::GradientProblemSolver::Options inner = DefaultInnerOptions();
      static ceres::GradientProblemSolver::Options DefaultInnerOptions();

      // Which L-BFGS runs the inner solves. By default ecmo's own
      // bound-constrained L-BFGS (projected active-set L-BFGS with a strong
      // Wolfe line search, buffers allocated once and reused by every outer
      // iteration and by the next solve on the same thread) for
      // WC_AUGMENTED_LAGRANGIAN whenever the evaluator has no manifold and
      // inner.line_search_direction_type is ceres::LBFGS; it reads the
      // fields of `inner` above that an L-BFGS line search has (rank,
      // eigenvalue scaling, iteration and time budgets, the three
      // tolerances, the line search constants and callbacks) with Ceres'
      // meanings, always searches with strong Wolfe and cubic
      // interpolation (line_search_type and
      // line_search_interpolation_type are not used), and logs nothing.
      // Ceres' GradientProblemSolver runs them on a manifold, for the other
      // direction types, for WC_PENALTY_LBFGS (whose penalty-path
      // extrapolation is not yet validated with ours), and when this is
      // true (for comparisons).
      bool use_ceres_inner_solver = false;

      // Maximum number of outer iterations (penalty increases or multiplier
      // updates). > 0.
      int max_outer_iterations = 100;

      // Initial penalty u = v. 0 (default) picks it from the start point:
      // u0 = 10 max(1, |rho0|) / max(1, ||h(z0)||^2), clamped to
      // [1e-2, 1e4] (Birgin and Martinez's rule). Otherwise > 0.
      double initial_penalty = 0.0;
      // Factor by which u and v grow: every outer iteration for
      // WC_PENALTY_LBFGS (the factor is reduced when a smaller one is
      // predicted to reach the tolerance, since ||K||^2 ~ 1/u^2), and only
      // when feasibility stalls for WC_AUGMENTED_LAGRANGIAN. WC_NEWTON grows
      // them when feasibility or complementarity stalls, by the factor the
      // certificate predicts (twice its ratio of either to its tolerance,
      // both falling as 1/v), at least this and at most 1e3. > 1.
      double penalty_increase = 10.0;
      // Upper bound on u and v. >= the initial penalty (when given).
      double max_penalty = 1e10;
      // WC_AUGMENTED_LAGRANGIAN: feasibility stalls when ||h||^2 +
      // ||min(omega, rho - lambda f)||^2 after an outer iteration is above
      // this fraction of its previous value. In (0, 1).
      double feasibility_decrease = 0.25;
      // An inner solve stops once ||grad Q||^2 <= inner_tolerance_factor *
      // (||h||^2 + ||min(omega+, rho - lambda f)||^2), i.e. once the
      // stationarity part of ||K||^2 is small next to the part that only
      // the outer iteration can reduce, or once ||grad Q||^2 <= kkt
      // tolerance / 2, or once the whole ||K||^2 <= kkt tolerance. This
      // keeps inner solves from chasing precision the line search cannot
      // deliver. In (0, 1].
      double inner_tolerance_factor = 0.1;
      // When ||K||^2 with the strategy's multipliers misses the tolerance at
      // the end (stall or budget), and also whenever it is within
      // least_squares_certification_factor times the tolerance, the point is
      // scored with the least-squares multipliers (ecmo::KktSystem, one
      // gradient evaluation); if those certify ||K||^2 <= tolerance, the
      // solve ends with CONVERGENCE and reports them. 0 disables it; >= 0.
      double least_squares_certification_factor = 100.0;
      // WC_PENALTY_LBFGS: after every penalty increase, Richardson-
      // extrapolate the penalty path. With a fixed active set the inner
      // minimizers and their multipliers satisfy x(u) = x* + a/u +
      // O(1/u^2), so x_e = (r x(u) - x(u/r)) / (r - 1) is O(1/u^2) from
      // the KKT point. x_e is scored with the extrapolated multipliers (one
      // gradient evaluation; least squares as above when close); if
      // ||K||^2 <= tolerance there, it is returned, otherwise it predicts
      // the start of the next inner solve. Without it the pure penalty
      // cannot reach ||K||^2 ~ 1e-12: that needs u ~ 1e6, where the line
      // search runs out of precision (||grad Q||^2 ~ 1e-16 |Q| u).
      bool penalty_extrapolation = true;
    } quasi_newton;

    // Options of WC_NEWTON. Its outer loop is the augmented Lagrangian's,
    // driven by the outer fields of quasi_newton above (max_outer_iterations,
    // initial_penalty, penalty_increase, max_penalty, feasibility_decrease,
    // inner_tolerance_factor, least_squares_certification_factor); only
    // the inner minimization differs (quasi_newton.inner is not used).
    // Options::max_iterations bounds the total number of inner (Newton)
    // iterations.
    struct NewtonOptions {
      NewtonHessianType hessian = NewtonHessianType::AUTOMATIC;
      NewtonLinearSolverType linear_solver = NewtonLinearSolverType::AUTOMATIC;
      // Newton iterations per inner solve. > 0.
      int max_inner_iterations = 200;
      // Gauss-Newton: a trust region as in Ceres' Levenberg-Marquardt: the
      // step solves (B + D / radius) d = -grad with D the diagonal of B
      // clamped to [min_diagonal, max_diagonal]; the radius grows after good
      // steps and shrinks (by a doubling factor) after rejected ones.
      // Hessian products: Steihaug-Toint conjugate gradients in a Euclidean
      // ball whose radius starts at max(1, ||z0||) (initial_... below are
      // for Gauss-Newton; the max and min radii bound both). The radius
      // carries over from one inner solve to the next.
      double initial_trust_region_radius = 1e4;
      double max_trust_region_radius = 1e16;
      double min_trust_region_radius = 1e-32;
      double min_diagonal = 1e-6;
      double max_diagonal = 1e32;
      // A step is accepted when the actual decrease of L_A is at least this
      // fraction of the model's. In (0, 1).
      double min_relative_decrease = 1e-3;
      // Gauss-Newton with a factorizing linear solver, no bounds: the first
      // step of an inner solve reuses the previous step's factorization (a
      // chord step: new gradient and objective columns, old matrix) when
      // that step was small (<= 1e-4 max(1, ||z||)) and its model good
      // (ratio of actual to predicted decrease in [0.5, 2]). After an outer
      // iteration's multiplier update near a solution the inner solve takes
      // one tiny step, and the factorization is most of a step's cost; a
      // rejected chord step is recomputed from a fresh model at once,
      // without shrinking the trust region.
      bool chord_steps = true;
      // Gauss-Newton with a factorizing linear solver, no bounds: a rejected
      // step is first halved up to this many times along the same direction
      // (one evaluation each, no new factorization) before the region
      // shrinks and the matrix is factorized again; a halved step is
      // accepted by the same ratio test against the model's prediction at
      // that step, and the region stays as it was. Why: on pose graphs a
      // third of the factorizations were of rejected steps, and at 1e5
      // parameters a factorization costs as much as a few dozen
      // evaluations. Summary::num_shortened_steps counts the steps taken
      // this way. >= 0 (0: Levenberg-Marquardt's rule alone).
      int backtracking_steps = 2;
      // GAUSS_NEWTON: the objective weights of the Gauss-Newton matrix
      // sum_s w_s lambda_s Jr_s^T Jr_s. An objective active at the current
      // point (omega+_s > 0) is weighted by omega+_s, the multiplier the
      // inner solve converges to. An inactive one has no curvature in the
      // augmented Lagrangian's Hessian, but a step may activate it; with
      // this option it is weighted by the outer loop's estimate omega_s,
      // else by 0. Why: after the Ceres phase the Chebyshev terms are a
      // few per cent apart and one objective is often inactive; without
      // its curvature the Gauss-Newton step runs along directions only
      // its residuals pin down and is rejected until the region has
      // shrunk by many decades, a factorization each (measured on the
      // generated pose graphs: 1.42x -> 1.03x the time of plain weighted
      // sums in a warm 3,500-pose sweep; benchmarks/README.md).
      bool inactive_objective_curvature = true;
      // CONJUGATE_GRADIENTS: at most this many iterations per step, and the
      // relative residual at which CG stops (the forcing term is
      // min(cg_relative_tolerance, sqrt(||grad||)), Eisenstat-Walker). > 0.
      // CG also stops at negative curvature or at the trust region's
      // boundary (Steihaug-Toint).
      int max_cg_iterations = 500;
      double cg_relative_tolerance = 0.1;

      // The Ceres phase. On an evaluator that can hand weighted least-
      // squares problems to ceres::Solve (Evaluator::
      // HasWeightedLeastSquaresSolver(), e.g. CeresProblemAdapter), each
      // point first runs Ceres' own solver on the weighted sum
      //   sum_s omega_s lambda_s f_s + mu/2 ||h + nu/mu||^2
      // (lambda = preference / scales; omega on the simplex, from
      // warm_start.omega when given, else uniform), and updates omega to
      // equalize the Chebyshev terms lambda_s (f_s - r_s): a safeguarded
      // secant on log(omega_1 / omega_2) for S = 2, a multiplicative update
      // for S > 2; nu by the augmented-Lagrangian rule. It stops when the
      // terms agree within ceres_phase_tolerance (relative to the largest),
      // after max_ceres_solves solves, or when omega reaches the simplex's
      // boundary (the WC point then minimizes one objective). When a warm
      // start gives multipliers (WarmStart::omega, carried over to this
      // preference when WarmStart::preference allows), the phase does not
      // run (ceres_phase_on_warm_starts); with that option on, its first
      // solve is skipped when z is already stationary for the carried
      // weighted sum (to 1e-3 relative, no bounds, no equality
      // constraints): it would stop at its first gradient check. The Newton
      // outer loop then starts from that point with multipliers (omega,
      // nu) and a Chebyshev penalty v = 100 / max_s |c_s| sized from the
      // phase's terms (a warm start's penalties are not used after the
      // phase: a neighbour's raised v made the first Newton steps long and
      // rejected), and polishes it to the certificate: on convex parts of
      // a front the WC point IS that weighted-sum point, so the polish is
      // short; on non-convex parts (no weighted sum reaches the point) the
      // Newton loop does the work. Why: far from a solution Ceres'
      // Levenberg-Marquardt on the user's own problem is what a Ceres user
      // would run (it copes, as plain Ceres does, with residuals that are
      // only piecewise smooth, e.g. an angle normalized to [-pi, pi)), and
      // its cost per iteration is the plain solve's.
      bool ceres_phase = true;
      // Whether the phase also runs when a warm start gives a neighbour's
      // multipliers (WarmStart::omega; carried over to this preference
      // when WarmStart::preference is set and within a factor 4, else as
      // given). Off (default): the Newton loop starts at the neighbour's
      // point with those weights and v sized from its terms, as after the
      // phase. Why: a neighbour's point is already on the front, and every
      // ceres::Solve pays Ceres' preprocessing (ordering, symbolic
      // analysis) again; measured on the generated pose graphs
      // (benchmarks/README.md) warm sweeps took 0.76-0.86x the time with
      // the phase off for carried weights, at 334 to 33,334 poses, and
      // skipping it also where the preference jumps by more than a factor
      // 4 (next to the ends of an 11-point front) took the 334-pose sweep
      // from 1.37x to 1.20x plain Ceres, with the same certified points.
      // (Before inactive_objective_curvature, the Newton loop from a
      // neighbour's point was 19x slower at 3,500 poses.) A failed warm
      // point is still retried cold by the sweeps, with the phase.
      bool ceres_phase_on_warm_starts = false;
      // The nested ceres::Solver::Options of the Ceres phase, used as given
      // (Ceres validates them and its message is passed through), except
      // that max_solver_time_in_seconds is capped by what remains of
      // Options::max_solver_time_in_seconds and function_tolerance is at
      // least ceres_phase_function_tolerance. Default: Ceres' defaults
      // (Levenberg-Marquardt, SPARSE_NORMAL_CHOLESKY, function_tolerance
      // 1e-6) with max_num_iterations = 1000 and SILENT logging.
      ceres::Solver::Options ceres = DefaultCeresOptions();
      static ceres::Solver::Options DefaultCeresOptions();
      // > 0.
      int max_ceres_solves = 4;
      // On |log(c_1 / c_2)| for S = 2 with positive terms (the usual case),
      // else on (max c - min c) / max |c|. > 0. Default 1 (terms within a
      // factor e): the phase only brings the point to the right part of
      // the front, and the Newton loop (its Gauss-Newton matrix holding
      // the curvature of every objective, see
      // inactive_objective_curvature) equalizes the terms in a few steps,
      // where each further weight update would pay Ceres' preprocessing
      // again and stop loose. Terms far apart (an end of the front, or
      // weighted sums that jump across a concave part) still get the
      // weight updates, which detect both. Measured on the generated pose
      // graphs, cold points (benchmarks/README.md): 3e-2 -> 1 took 334
      // poses from 2.38x to 1.81x the time of plain weighted sums, 1,000
      // from 1.99x to 1.80x and 3,500 from 0.99x to 0.75x, with the same
      // certified points.
      double ceres_phase_tolerance = 1.0;
      // The phase's solves stop once Ceres' relative cost change per
      // iteration falls below max(ceres.function_tolerance, this): they
      // only locate the weights to ceres_phase_tolerance and a start for
      // the Newton polish, which certifies the point, so the long tail of
      // Levenberg-Marquardt iterations that a plain solve spends at 1e-6 is
      // left to Newton's quadratic convergence. Measured on the generated
      // pose graphs (benchmarks/README.md, "Pipelines"): 1e-2 took the
      // 3,500-pose warm sweep from 19.6x to 1.9x the time of plain
      // weighted sums. Not for the first solve from the user's start (no
      // warm-start weights): that one is the plain weighted sum at the
      // preference, which picks the basin the point ends in, and runs to
      // ceres.function_tolerance. <= 0: the nested options' own tolerance.
      double ceres_phase_function_tolerance = 1e-2;
    } newton;

    // Options of WC_SQP. Options::max_iterations bounds its iterations
    // (one gradient evaluation each, plus the line search's value
    // evaluations).
    struct SqpOptions {
      SqpHessianType hessian = SqpHessianType::AUTOMATIC;
      // With BFGS or EXACT_PRODUCTS the strategy refuses problems with more
      // parameters (a FAILURE naming the alternatives): it stores and
      // factorizes a
      // dense k x k matrix per iteration (2,000: 32 MB, about 0.1 s per
      // factorization on one core); with hessian = AUTOMATIC, problems
      // with more use LBFGS instead. > 0.
      int max_parameters = 2000;
      // Pairs (s, y) kept by SqpHessianType::LBFGS. > 0.
      int lbfgs_memory = 20;
      // A step t d is accepted when the exact penalty decreases by at least
      // this fraction of its piecewise-linear model's decrease. In (0, 0.5).
      double armijo = 1e-4;
      // When the full step is rejected, try it once more moved back onto
      // the linearized constraints (h(z + d) + J d_c = 0, in the metric of
      // B) before backtracking: avoids the short steps a nonsmooth merit
      // forces near a solution (the Maratos effect).
      bool second_order_correction = true;
      // As quasi_newton.least_squares_certification_factor: when the QP's
      // multipliers miss the stopping rule by less than this factor, the
      // least-squares multipliers are tried. 0 disables it; >= 0.
      double least_squares_certification_factor = 100.0;
    } sqp;

    // Keep one IterationSummary per iteration in Summary::history. With
    // history_stride > 1 only every stride-th iteration (and the last) is
    // kept, to bound memory on long runs.
    bool record_history = true;
    int history_stride = 1;

    // Print one line per logged iteration to stdout.
    bool minimizer_progress_to_stdout = false;
    // Print every n-th iteration when minimizer_progress_to_stdout is set
    // (WC_PENALTY_PGD; the quasi-Newton strategies print every outer
    // iteration, and Ceres' inner progress with
    // quasi_newton.inner.minimizer_progress_to_stdout).
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
    // Whether the solve ended certified at the tolerances of the options it
    // was run with: termination CONVERGENCE and the scale-invariant KKT
    // certificate (kkt.BestCertificate, the better of the strategy's and the
    // least-squares multipliers) meeting options.stationarity_tolerance,
    // complementarity_tolerance and feasibility_tolerance.
    bool IsCertified(const Options& options) const;
    // How far the best certificate is from options' tolerances: the
    // largest ratio of a certificate block to its tolerance (<= 1 meets
    // them all; ecmo/kkt.h, KktCertificate::Ratio); +inf without a usable
    // solution. Compares two solves of the same point.
    double CertificateRatio(const Options& options) const;
    // The WC value of the returned point (Scalarization::WcValue of
    // `objectives` at `preference`): the objective the solve minimizes,
    // whatever the termination (final_rho is the strategy's last rho,
    // which need not equal it at an unconverged point); +inf without
    // usable objectives or scalarization. Compares two solves of the same
    // point: the smaller WC value at a feasible point is the better point
    // of the WC problem.
    double WcValue() const;

    TerminationType termination_type = ceres::FAILURE;
    std::string message = "ecmo::Solve was not called.";

    // The strategy that produced the reported point (never AUTOMATIC once
    // a strategy ran).
    StrategyType strategy = StrategyType::AUTOMATIC;
    // With Options::strategy = AUTOMATIC: why this strategy, and whether a
    // WC_SQP attempt fell back to WC_AUGMENTED_LAGRANGIAN. Empty otherwise.
    std::string strategy_choice;
    // Step rule used by WC_PENALTY_PGD.
    StepRule step_rule = StepRule::BACKTRACKING;

    int num_parameters = -1;  // k
    int num_objectives = -1;  // S
    // Constraint residuals m = q + p (equalities, then inequalities; see
    // Evaluator::NumConstraints), of which p are inequalities c(z) <= 0.
    int num_constraints = -1;
    int num_inequality_constraints = 0;
    // Components of z with a finite lower or upper bound.
    int num_bounded_parameters = 0;

    // Preference as given, and the objective offset used (-r).
    std::vector<double> preference;
    std::vector<double> objective_offset_used;
    // Reference point, scales, where they came from and what they cost.
    Scalarization scalarization;

    // Schedule of WC_PENALTY_PGD: eta, u and v as used (-1 if not used), and
    // the number of iterations on which backtracking shortened the step
    // (WC_NEWTON: the Gauss-Newton steps accepted after halving instead of
    // a new factorization, NewtonOptions::backtracking_steps). The
    // quasi-Newton strategies report their final u and v here.
    double eta = -1.0;
    double penalty_u = -1.0;
    double penalty_v = -1.0;
    int num_shortened_steps = 0;

    // WC_PENALTY_PGD: iterations of Algorithm 1. Quasi-Newton strategies:
    // outer iterations (one history entry each).
    int iterations = -1;
    EvaluationCounts evaluations;

    // Quasi-Newton strategies: total inner (L-BFGS) iterations, number of
    // penalty increases, and the final penalties in penalty_u / penalty_v
    // above. inner_message is Ceres' message of the last inner solve.
    // WC_SQP: inner_iterations = its iterations, inner_message the
    // curvature it used and its largest merit weight.
    int inner_iterations = -1;
    int num_penalty_increases = 0;
    std::string inner_message;
    // How the point was certified: "strategy multipliers" or "least-squares
    // multipliers" (quasi-Newton strategies and WC_SQP; empty otherwise).
    std::string certified_by;

    double initial_rho = 0.0;
    double final_rho = 0.0;
    // Final slack delta (S) of the penalty strategies.
    Eigen::VectorXd delta;
    // Final point and values: objectives are the user's (unshifted) f_s.
    Eigen::VectorXd z;
    Eigen::VectorXd objectives;
    Eigen::VectorXd initial_objectives;
    // ||h(z)||_2 and ||h(z)||_inf at the final point; with inequality
    // constraints, of the violation (h, max(0, c))
    // (Evaluator::ConstraintViolation).
    double constraint_norm = -1.0;
    double constraint_max_norm = -1.0;

    // Final KKT scores (solver multipliers and least squares), and the
    // running average over all iterations of ||K_t||^2 with the strategy's
    // multipliers (the theorem's left-hand side; -1 if not defined).
    KktReport kkt;
    double average_kkt_residual_sq = -1.0;
    // The second-order test at the returned point (Options::
    // second_order_check); not computed for a point that is not
    // CONVERGENCE, with the option off, or with a manifold
    // (second_order.not_computed_reason says which).
    SecondOrderReport second_order;

    double total_time_in_seconds = -1.0;

    // The internal objective scaling s the quasi-Newton strategies solved
    // with: lambda multiplied by s so that the largest weighted objective
    // gradient at the start is at most 100 (as in Ipopt's gradient-based
    // scaling) and at least 0.1 (objective scales far above the
    // objectives' size, whose tiny weighted gradients stalled the
    // penalties); 1 for the faithful strategy and with kkt_tolerance > 0.
    // rho, nu and the KKT numbers above are of the problem as posed;
    // penalty_u / penalty_v and the history's penalty values are internal.
    double objective_scaling = 1.0;

    // Kept when Options::record_history is true.
    std::vector<IterationSummary> history;
  };
};

// Carries warm->omega and warm->nu over from warm->preference to
// `preference` (size S, entries > 0) as Solve does (see
// Solver::Options::WarmStart::preference): true when it did; false, with
// *warm unchanged, when a size does not match or an entry changes by more
// than a factor 4.
bool CarryWarmStartOver(const Eigen::VectorXd& preference,
                        Solver::Options::WarmStart* warm);

// Solves the WC subproblem for `preference` (size S, entries > 0, sum 1 up
// to 1e-9 relative; it is renormalized to sum exactly 1). Reads the start
// point from the problem's parameter blocks and writes the solution back when
// it is usable (hence the pointer, as in ceres::Solve).
void Solve(const Solver::Options& options,
           Problem* problem,
           const std::vector<double>& preference,
           Solver::Summary* summary);

// Legacy form, kept for existing callers: the same as the overload above
// (the solution is written into the problem's parameter blocks, although
// the problem is passed by const reference). Prefer Solve(options,
// &problem, preference, &summary).
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

// Computes the reference point and objective scales that Solve would use
// for these options at start point z (runs the single-objective solves when
// the utopia point or the normalization needs them). A sweep calls it once
// and passes the result to every point through
// Options::reference_point / objective_scale. False with a message when a
// single-objective solve fails (e.g. an objective unbounded below on the
// feasible set) or the options are inconsistent.
bool ComputeScalarization(const Solver::Options& options,
                          Evaluator* evaluator,
                          const Eigen::VectorXd& z,
                          Scalarization* scalarization,
                          std::string* error);

// The same with the single-objective solves spread over threads, one per
// evaluator: evaluators[0] on the calling thread (which also evaluates the
// start point), the others on pool threads, each solve on the evaluator of
// the thread that takes it (at most S threads work). Why: the S solves are
// independent and each costs about as much as a WC point (on an MTBL
// instance, a training run). The evaluators must be separate instances of
// one problem (built the same way; each is used by one thread at a time)
// and are not owned. The reference point and scales are those of the
// one-evaluator call bit for bit when an evaluator's results do not depend
// on what it solved before; an evaluator that carries state between solves
// (a ReducedMtblEvaluator's lower-level warm starts) gives them to solver
// tolerance. Evaluation counts are summed over the evaluators. False with a
// message as above, and for an empty list, a null entry or instances of
// different sizes.
bool ComputeScalarization(const Solver::Options& options,
                          const std::vector<Evaluator*>& evaluators,
                          const Eigen::VectorXd& z,
                          Scalarization* scalarization,
                          std::string* error);

// The weights and offset of the WC problem a solve posed, lambda_s =
// preference_s / w_s (the preference renormalized to sum 1, w the
// scalarization's objective scales) and offset = -r: what
// ComputeKktReport needs to score the summary's point again (with a
// normalized scalarization the preference alone is not the weight). False
// when the summary has no scalarization (a refused solve).
bool ScalarizationWeights(const Solver::Summary& summary,
                          Eigen::VectorXd* lambda,
                          Eigen::VectorXd* offset);

// Checks that a preference lies in the open simplex: size S, finite, every
// entry > 0, sum 1 within 1e-9 relative. Message says what to change.
bool ValidatePreference(const std::vector<double>& preference,
                        int num_objectives,
                        std::string* error);

}  // namespace ecmo

#endif  // ECMO_SOLVER_H_
