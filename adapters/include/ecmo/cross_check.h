// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Cross-check of a strategy against the Ipopt reference on one WC
// subproblem: both start from the problem's current parameter blocks, both
// are scored with the shared KKT function, and the result says whether they
// found the same point, within a bound that accounts for how accurately the
// strategy solved the problem.
//
//   ecmo::CrossCheck::Options options;
//   options.solver.max_iterations = 100000;
//   ecmo::CrossCheck::Summary summary;
//   ecmo::Solve(options, &problem, {0.5, 0.5}, &summary);
//   std::cout << summary.FullReport() << "\n";
//   if (!summary.agree) std::cerr << summary.verdict << "\n";
//
// FullReport() is a side-by-side table of both runs.
//
// Agreement. Let K_s and K_r be ||K||^2 with the least-squares multipliers
// at the solver's and at the reference's point, and
//
//   eps = error_bound_constant * sqrt(K_s + K_r),
//   G   = max(1, ||grad F(z_ref)||_F)       (objective Jacobian, Frobenius),
//   M   = 1 + ||(omega, nu, z_L, z_U)_ref||_2 + 1 / sigma_min(J_a(z_ref))
//         (least-squares multipliers; J_a is the Jacobian of the active
//          constraints: the q equality rows, the inequality rows with a
//          positive reference multiplier and a unit row per bound with a
//          positive reference multiplier; sigma_min is its smallest
//          singular value, the term is dropped when nothing is active or
//          m k > 4e6, and it is +inf when J_a is rank deficient).
//
// The result agrees iff both runs returned a usable point, the solver's
// point is approximately stationary, K_s <= max_solver_kkt_residual_sq, and
//
//   z_distance          <= max(z_tolerance,          eps),
//   objective_distance  <= max(objective_tolerance,  G * eps),
//   rho_difference      <= max(objective_tolerance,  G * eps),
//   multiplier_distance <= max(multiplier_tolerance, M * eps),
//
// and, for a problem with inequality constraints c <= 0 and / or bounds,
// the inequalities' multipliers (the last p entries of nu, also part of
// multiplier_distance) and the bound multipliers (z_L, z_U) against the
// same bound as nu:
//
//   inequality_multiplier_distance <= max(multiplier_tolerance, M * eps),
//   bound_multiplier_distance      <= max(multiplier_tolerance, M * eps),
//
// each named in the verdict ("|mu - mu_ref| (inequalities)",
// "|(z_L, z_U) - (z_L, z_U)_ref| (bounds)"). Both runs' least-squares
// multipliers are compared (ecmo/kkt.h computes them for any solver, also
// one without bound multipliers of its own), so a strategy is judged on its
// point, not on how it reports multipliers.
//
// Rationale: near a KKT point satisfying LICQ and second-order sufficiency
// the distance to the solution (in z and in the multipliers) is bounded by
// a constant times ||K|| (a local error bound), so a strategy with residual
// K_s can only be expected within about sqrt(K_s) of the reference; F and
// rho move by at most ||grad F|| times the change in z. The bound is local,
// which is why K_s must be below max_solver_kkt_residual_sq: a point far
// from stationarity is not a converged answer and never "agrees". The
// least-squares nu changes by up to (change of the stationarity block) /
// sigma_min(J_h), hence the last term of M. When LICQ fails, nu is not
// identifiable (e.g. mtbl_example_iii, h3 = y3^3, whose gradient vanishes
// at the solution: nu3 ~ 1/y3 grows without bound as y3 -> 0) and the
// multiplier condition becomes vacuous; z, F and rho are still compared. With
// the defaults and WC_PENALTY_PGD at T = 1e5 on gebken_circle (K_s ~ 2e-3, |z -
// z_ref| ~ 1e-2) the bound on z is about 0.15.

#ifndef ECMO_CROSS_CHECK_H_
#define ECMO_CROSS_CHECK_H_

#include <string>
#include <vector>

#include "ecmo/ipopt_reference.h"
#include "ecmo/solver.h"
#include "nlohmann/json.hpp"

namespace ecmo {

class Problem;

// Ceres' shape: CrossCheck::Options in, CrossCheck::Summary out, through
// ecmo::Solve below.
class CrossCheck {
 public:
  struct Options {
    // Options of the strategy under test and of the reference.
    Solver::Options solver;
    IpoptReference::Options reference;

    // Absolute floors of the agreement bounds (see the top of this file).
    double z_tolerance = 1e-6;
    double objective_tolerance = 1e-6;
    double multiplier_tolerance = 1e-4;

    // C in eps = C sqrt(K_s + K_r). Measured ratios |z - z_ref| / sqrt(K_s)
    // on the registry problems are below 1 once K_s <= 1e-2.
    double error_bound_constant = 3.0;

    // The solver's ||K||^2 with least-squares multipliers must not exceed
    // this for the point to count as converged at all.
    double max_solver_kkt_residual_sq = 1e-2;
  };

  struct Summary {
    Solver::Summary solver;
    IpoptReference::Summary reference;

    // |rho - rho_ref|, ||z - z_ref||_2, ||F(z) - F(z_ref)||_2 (unshifted) and
    // ||(omega, nu)_LS - (omega, nu)_ref,LS||_2 with the least-squares
    // multipliers of both points. -1 when a run returned no point.
    double rho_difference = -1.0;
    double z_distance = -1.0;
    double objective_distance = -1.0;
    double multiplier_distance = -1.0;
    // ||mu_LS - mu_ref,LS||_2 over the p inequality multipliers (the last p
    // entries of nu) and ||(z_L, z_U)_LS - (z_L, z_U)_ref,LS||_2 over the
    // bound multipliers; -1 when the problem has no inequality constraints
    // / no bounds or a run returned no point.
    double inequality_multiplier_distance = -1.0;
    double bound_multiplier_distance = -1.0;

    // The bounds the distances were compared with (see the top of the file).
    double z_bound = -1.0;
    double objective_bound = -1.0;
    double multiplier_bound = -1.0;
    // Smallest singular value of the active constraints' Jacobian J_a at
    // the reference point (see M above); -1 when not computed.
    double constraint_jacobian_sigma_min = -1.0;

    bool agree = false;
    // One line, "AGREE: |z - z_ref| = 1.4e-02 <= 1.5e-01, ..." or
    // "DISAGREE: <the failed conditions>".
    std::string verdict = "CrossCheck was not run.";

    // The verdict line.
    std::string BriefReport() const;
    // Multi-line side-by-side table: termination, rho, ||h||, ||K||^2 with
    // own and least-squares multipliers, iterations, evaluations and time of
    // both runs, then the distances, bounds and the verdict.
    std::string FullReport() const;
    // Legacy name of FullReport().
    std::string Report() const { return FullReport(); }
    // Whether the problem's blocks hold the solver's solution (its summary
    // is usable); says nothing about agreement (see agree).
    bool IsSolutionUsable() const { return solver.IsSolutionUsable(); }
  };
};

// The names before CrossCheck was a class (kept for existing callers).
using CrossCheckOptions = CrossCheck::Options;
using CrossCheckResult = CrossCheck::Summary;

// Runs ecmo::Solve (options.solver) and the Ipopt reference
// (options.reference) on the same WC subproblem for `preference`, both from
// the problem's current parameter blocks. The reference uses the objective
// offset the solver used (Summary::objective_offset_used), so both solve
// the same scalarization. On return the parameter blocks hold what
// ecmo::Solve left there (its solution when usable, else the start point).
// Never throws; failures of either run show in the summaries and the
// verdict.
void Solve(const CrossCheck::Options& options,
           Problem* problem,
           const std::vector<double>& preference,
           CrossCheck::Summary* summary);

// The same on any evaluator (e.g. a CeresProblemAdapter: pass
// adapter.GetParameters() as z): z holds the start point of both runs (size
// k) on entry and the solver's solution on return when it is usable
// (otherwise it is left unchanged); the reference never changes z. The
// reference gets the solver's objective offset and scales, and measures its
// certificate with the solver's floor and model tolerance.
// With manifolds the reference handles quaternion and sphere blocks of a
// CeresProblemAdapter and refuses others (see ecmo/ipopt_reference.h); the
// verdict then says DISAGREE with the reference's message.
void Solve(const CrossCheck::Options& options,
           Evaluator* evaluator,
           const std::vector<double>& preference,
           Eigen::VectorXd* z,
           CrossCheck::Summary* summary);

// Legacy form, kept for existing callers: the same as Solve above,
// returning the summary. (The function hides the class name CrossCheck in
// unqualified expressions; CrossCheck::Options and CrossCheck::Summary
// still name the nested types.)
CrossCheck::Summary CrossCheck(const CrossCheck::Options& options,
                               const Problem& problem,
                               const std::vector<double>& preference);

// {"reference": {termination, message, ipopt_status, hessian
//                ("gauss_newton", "exact", "limited_memory"), certified,
//                manifold_constraints, iterations,
//                objective_evaluations, gradient_evaluations,
//                wall_time_seconds, rho, z[], objectives[], constraint_norm,
//                kkt: {residual_sq, residual_sq_least_squares, omega[], nu[],
//                      omega_least_squares[], nu_least_squares[],
//                      with bounds: bound_lower[], bound_upper[],
//                      bound_lower_least_squares[],
//                      bound_upper_least_squares[]}},
//  "agreement": {z_distance, objective_distance, multiplier_distance,
//                rho_difference, z_bound, objective_bound, multiplier_bound,
//                constraint_jacobian_sigma_min, agree, verdict,
//                with inequalities: inequality_multiplier_distance,
//                with bounds: bound_multiplier_distance}}
// with the key names of the point schema of ecmo/result_writer.h (the
// solver's point itself is written by ecmo::SummaryToJson). Distances that
// could not be computed are -1.
nlohmann::json CrossCheckToJson(const CrossCheck::Summary& result);

}  // namespace ecmo

#endif  // ECMO_CROSS_CHECK_H_
