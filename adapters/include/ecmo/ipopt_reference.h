// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// A reference solver for one weighted-Chebyshev (WC) subproblem,
//
//   min_{rho, z} rho  s.t.  lambda_s (f_s(z) + offset_s) <= rho (s = 1..S),
//                            h(z) = 0,
//
// backed by Ipopt (interior point, limited-memory quasi-Newton Hessian,
// MUMPS). It is independent of the plugin's strategies and serves as an
// oracle: CrossCheck (ecmo/cross_check.h) compares a strategy's answer with
// it, and tests use it to confirm known Pareto points.
//
//   ecmo::IpoptReference::Options options;
//   ecmo::IpoptReference::Summary summary;
//   ecmo::Solve(options, &problem, {0.5, 0.5}, &summary);
//   std::cout << summary.FullReport() << "\n";
//
// Ipopt sees the variables w = (rho, z) in R^(1+k), the objective rho and the
// constraints
//
//   g_s(w)     = lambda_s (f_s(z) + offset_s) - rho <= 0,   s = 1..S,
//   g_(S+i)(w) = h_i(z)                              = 0,   i = 1..q.
//
// Every value and derivative comes from the ecmo::Evaluator (values,
// objective gradients and the Jacobian blocks of h), so the reference solves
// exactly the problem the strategies see.
//
// Multiplier convention. Ipopt's Lagrangian is rho + sum_j lambda^ipopt_j
// g_j(w), which is term by term the paper's Lagrangian
// rho + sum_s omega_s (lambda_s f_s - rho) + nu^T h (see ecmo/kkt.h). Hence
//
//   omega_s = lambda^ipopt_s        (>= 0; positive on active inequalities),
//   nu_i    = lambda^ipopt_(S+i),
//
// with no sign flip, and Summary::omega / Summary::nu are in the paper's
// convention. Example (tested): f1 = |z - (2, 1)|^2, f2 = |z - (2, -1)|^2,
// h = 1 - |z|^2, lambda = (1/2, 1/2) gives z = (1, 0), rho = 1,
// omega = (1/2, 1/2), nu = -1/2.
//
// Output. Ipopt never prints anything unless Options::print_level > 0: the
// banner is suppressed ("sb yes") and no console journal is created. Option
// files (./ipopt.opt) are ignored.
//
// Errors. Nothing here throws or aborts. Invalid options, a bad preference,
// an evaluator failure (e.g. a cost function returning NaN) or an Ipopt
// failure give a FAILURE summary whose message says what went wrong; when a
// cost function failed, the message includes the evaluator's error.
//
// Thread safety. Debian's Ipopt links the sequential MUMPS, which is not
// thread-safe, so every Ipopt solve in the process is serialized by one
// process-wide mutex. Solve may be called from several threads (one
// evaluator per thread); the solves then run one after the other, while the
// final KKT scoring runs concurrently.

#ifndef ECMO_IPOPT_REFERENCE_H_
#define ECMO_IPOPT_REFERENCE_H_

#include <limits>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/types.h"

namespace ecmo {

class Problem;

class IpoptReference {
 public:
  struct Options {
    // Ipopt's "tol": desired convergence tolerance of the (scaled) NLP
    // error. Must be > 0.
    double tolerance = 1e-10;

    // Ipopt's "max_iter". Reaching it gives NO_CONVERGENCE. Must be >= 0.
    int max_iterations = 3000;

    // Ipopt's "max_cpu_time" in seconds. Reaching it gives NO_CONVERGENCE.
    // Must be > 0.
    double max_cpu_time_in_seconds = 1e6;

    // Ipopt's "print_level", 0..12. 0 (the default) prints nothing at all;
    // larger values print Ipopt's usual iteration log to stdout.
    int print_level = 0;

    // Ipopt's "linear_solver". Debian's Ipopt ships only "mumps".
    std::string linear_solver = "mumps";

    // The Hessian of the Lagrangian is always approximated by L-BFGS
    // (Ipopt's "hessian_approximation limited-memory"); this is Ipopt's
    // "limited_memory_max_history". Must be >= 1.
    int limited_memory_max_history = 6;

    // Start point. initial_rho: NaN (default) means
    // max_s lambda_s (f_s(z0) + offset_s). initial_z: empty (default) means
    // the z passed to Solve (or the problem's parameter blocks);
    // otherwise its size must be k.
    double initial_rho = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> initial_z;

    // ---- Scalarization (as in Solver::Options) ----
    // Constants added to the objectives (size S, finite; empty: zeros), i.e.
    // the reference point r = -objective_offset.
    std::vector<double> objective_offset;
    // Or the reference point r itself (size S, finite); not together with
    // objective_offset.
    std::vector<double> reference_point;
    // Objective scales w (size S, finite, > 0; empty: ones): the WC
    // constraints become lambda_s (f_s + offset_s) / w_s <= rho, exactly as
    // ecmo::Solve poses them with Solver::Options::objective_scale (the
    // cross-check passes the solver's reference point and scales).
    std::vector<double> objective_scale;

    // Warm start of the multipliers (paper convention, see above). If
    // initial_omega is not empty (size S, entries >= 0) Ipopt starts from
    // these multipliers ("warm_start_init_point yes") and initial_nu (size
    // q; empty means zeros) with the push and barrier options below, which
    // keep a good start point from being moved back into the interior.
    std::vector<double> initial_omega;
    std::vector<double> initial_nu;
    // Ipopt's warm_start_{bound,slack_bound,mult_bound}_{push,frac}. > 0.
    double warm_start_bound_push = 1e-9;
    // Ipopt's "mu_init" when warm starting. > 0.
    double warm_start_mu_init = 1e-9;

    // Ceres-style validation of the fields above, e.g.
    // "Invalid configuration. IpoptReference::Options::tolerance = -1.
    //  Violated constraint: IpoptReference::Options::tolerance > 0".
    // Sizes that depend on the problem (initial_z, initial_omega, the
    // scalarization vectors,
    // initial_nu) are checked by Solve.
    bool IsValid(std::string* error) const;
  };

  struct Summary {
    // One line: Ipopt status, iterations, rho, ||h||, ||K||^2, termination.
    std::string BriefReport() const;
    // Multi-line report in the layout of ceres::Solver::Summary.
    std::string FullReport() const;
    // True for CONVERGENCE and NO_CONVERGENCE (ecmo::IsSolutionUsable).
    bool IsSolutionUsable() const;

    // Solve_Succeeded and Solved_To_Acceptable_Level give CONVERGENCE;
    // Maximum_Iterations_Exceeded, Maximum_CpuTime_Exceeded and
    // Search_Direction_Becomes_Too_Small give NO_CONVERGENCE (the point is
    // returned; its KKT report says how good it is); everything else
    // (Infeasible_Problem_Detected, Restoration_Failed,
    // Invalid_Number_Detected, ...) and every error before Ipopt runs give
    // FAILURE.
    TerminationType termination_type = ceres::FAILURE;
    // "Ipopt: <status name>" followed by details, or the reason Ipopt was
    // not run.
    std::string message = "ecmo::Solve (Ipopt reference) was not called.";

    // Ipopt's ApplicationReturnStatus as an int and its name
    // ("Solve_Succeeded", ...); kIpoptNotRun and "" when Ipopt did not run.
    static constexpr int kIpoptNotRun = -1000;
    int ipopt_status = kIpoptNotRun;
    std::string ipopt_status_name;

    int num_parameters = -1;   // k
    int num_objectives = -1;   // S
    int num_constraints = -1;  // q

    // Preference as used (renormalized to sum 1) and the objective offset.
    std::vector<double> preference;
    std::vector<double> objective_offset_used;

    // Ipopt iterations (-1 if Ipopt did not run).
    int iterations = -1;
    // Evaluations made by this solve, including the start point and
    // excluding the final KKT scoring.
    EvaluationCounts evaluations;
    double total_time_in_seconds = -1.0;

    double initial_rho = 0.0;
    // Final point: rho, z, the user's (unshifted) objectives F(z) and
    // the constraint norms. Empty / NaN / -1 when Ipopt returned no point.
    double final_rho = std::numeric_limits<double>::quiet_NaN();
    Eigen::VectorXd z;
    Eigen::VectorXd objectives;
    // ||h(z)||_2 and ||h(z)||_inf at the final point.
    double constraint_norm = -1.0;
    double constraint_max_norm = -1.0;

    // Ipopt's multipliers in the paper's convention (see the top of this
    // file): omega (S) for the inequalities, nu (q) for h.
    Eigen::VectorXd omega;
    Eigen::VectorXd nu;

    // ecmo::ComputeKktReport at (rho, z): with (omega, nu) above and with the
    // least-squares multipliers, on the shifted objectives. Filled whenever
    // a point is returned.
    KktReport kkt;
  };
};

// Solves the WC subproblem for `preference` (size S, in the open simplex;
// renormalized to sum 1) with the scalarization of the options
// (objective_offset or reference_point, objective_scale), on an
// ecmo::ProblemEvaluator (whose block-sparse Jacobian gives Ipopt the
// sparsity of J_h). The start point is read from the problem's parameter
// blocks and the solution is written back into them when it is usable.
void Solve(const IpoptReference::Options& options,
           Problem* problem,
           const std::vector<double>& preference,
           IpoptReference::Summary* summary);

// The same on any evaluator: z holds the start point (size k) on entry and
// the solution on return when it is usable; otherwise it is left
// unchanged. Evaluators with a manifold (Evaluator::manifold()) are refused
// with a FAILURE: Ipopt works in R^k and would leave the manifold.
void Solve(const IpoptReference::Options& options,
           Evaluator* evaluator,
           const std::vector<double>& preference,
           Eigen::VectorXd* z,
           IpoptReference::Summary* summary);

// Legacy forms, kept for existing callers: `objective_offset` (when not
// empty) replaces IpoptReference::Options::objective_offset.
void SolveReference(const IpoptReference::Options& options,
                    Evaluator* evaluator,
                    const std::vector<double>& preference,
                    const std::vector<double>& objective_offset,
                    Eigen::VectorXd* z,
                    IpoptReference::Summary* summary);
void SolveReference(const IpoptReference::Options& options,
                    const Problem& problem,
                    const std::vector<double>& preference,
                    const std::vector<double>& objective_offset,
                    IpoptReference::Summary* summary);

}  // namespace ecmo

#endif  // ECMO_IPOPT_REFERENCE_H_
