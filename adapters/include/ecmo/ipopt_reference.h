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
//   g_s(w)       = lambda_s (f_s(z) + offset_s) - rho <= 0,   s = 1..S,
//   g_(S+i)(w)   = h_i(z)                              = 0,   i = 1..q,
//   g_(S+q+j)(w) = c_j(z)                              <= 0,  j = 1..p,
//
// (the m = q + p rows of the evaluator's constraint vector g = (h, c), see
// Evaluator::NumConstraints; the inequality rows get g_l = -inf, g_u = 0)
// and the variable bounds l <= z <= u of the evaluator
// (Evaluator::lower_bounds / upper_bounds) as x_l / x_u, with +-inf passed
// as Ipopt's infinity +-2e19 (beyond its nlp_lower/upper_bound_inf of
// +-1e19) and rho unbounded. Ipopt's bound_relax_factor is set to 0, so its
// iterates, and hence the returned z, lie inside the bounds exactly (Ipopt
// would otherwise relax every bound by 1e-8 relative and clip the final
// point back only through honor_original_bounds). A fixed component
// (l_i = u_i) becomes an equality row for Ipopt ("fixed_variable_treatment
// make_constraint"), so it keeps its value exactly and its force comes back
// in z_L / z_U; with Ipopt's default ("make_parameter") 3.11 reports zero
// multipliers for it, which would leave its stationarity entry unbalanced
// (tested).
//
// Every value and derivative comes from the ecmo::Evaluator (values,
// objective gradients and the Jacobian blocks of g), so the reference solves
// exactly the problem the strategies see.
//
// Multiplier convention. Ipopt's Lagrangian is rho + sum_j lambda^ipopt_j
// g_j(w) - z_L^T (z - l) + z_U^T (z - u) with z_L, z_U >= 0, which is term
// by term the paper's Lagrangian rho + sum_s omega_s (lambda_s f_s - rho) +
// nu^T g with ecmo/kkt.h's bound terms. Hence
//
//   omega_s     = lambda^ipopt_s      (>= 0; positive on active rows),
//   nu_i        = lambda^ipopt_(S+i)  (i = 1..q + p; the inequalities'
//                                      are >= 0),
//   bound_lower = z_L,  bound_upper = z_U   (over z; rho's are dropped),
//
// with no sign flip, and Summary::omega / nu / bound_lower / bound_upper are
// in the convention of KktMultipliers. Examples (tested):
// f1 = |z - (2, 1)|^2, f2 = |z - (2, -1)|^2, h = 1 - |z|^2,
// lambda = (1/2, 1/2) gives z = (1, 0), rho = 1, omega = (1/2, 1/2),
// nu = -1/2; tests/ipopt_bounds_test.cc derives bound and inequality
// multipliers by hand and checks these signs.
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
  // Second-order information Ipopt gets (Options::hessian).
  enum class HessianType {
    // GAUSS_NEWTON when the evaluator has a Gauss-Newton matrix
    // (Evaluator::HasGaussNewtonMatrix) and no manifold; else EXACT when
    // it has exact second derivatives (HasExactLagrangianHessian); else
    // LIMITED_MEMORY. So an ecmo::Problem (ProblemEvaluator) keeps the
    // L-BFGS path, and a CeresProblemAdapter in R^k gets Gauss-Newton.
    AUTOMATIC,
    // The Hessian of the Lagrangian, sum_s omega_s lambda_s grad^2 f_s +
    // sum_i nu_i grad^2 h_i, assembled from Hessian-vector products
    // (Evaluator::LagrangianHessianMultiply) over a sparsity pattern with
    // a column coloring: one product per color. The pattern is the
    // evaluator's Gauss-Newton pattern with the constraints' blocks (every
    // pair of parameters sharing a residual block) when it has one and no
    // manifold; otherwise the dense lower triangle, refused when
    // k > kMaxDenseExactHessianParameters. Exact when the evaluator knows
    // second derivatives; otherwise its products are gradient differences,
    // accurate to about 1e-8 relative (see ecmo/evaluator.h), each costing
    // two gradient evaluations.
    EXACT,
    // The evaluator's sparse Gauss-Newton matrix sum_s a_s Jr_s^T Jr_s with
    // a_s = max(0, omega_s lambda_s): the objectives' residual curvature
    // and the constraints' curvature are dropped, so convergence is linear
    // when residuals are large or constraints curved. Its pattern is
    // declared to Ipopt once and its values copied in place. Needs
    // Evaluator::HasGaussNewtonMatrix() and no manifold.
    GAUSS_NEWTON,
    // Ipopt's L-BFGS ("hessian_approximation limited-memory"): no second
    // derivatives, but dense low-rank terms in every linear solve; fine at
    // small k, slow and fragile at pipeline scale.
    LIMITED_MEMORY,
  };
  static constexpr int kMaxDenseExactHessianParameters = 2000;

  struct Options {
    // Ipopt's "tol": desired convergence tolerance of the (scaled) NLP
    // error; Ipopt's absolute complementarity test "compl_inf_tol" is set
    // to 1e-2 tol so that a converged point passes the KKT certificate's
    // complementarity test too. Must be > 0.
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

    // Second-order information (see HessianType).
    HessianType hessian = HessianType::AUTOMATIC;

    // With LIMITED_MEMORY: Ipopt's "limited_memory_max_history". >= 1.
    int limited_memory_max_history = 6;

    // MUMPS knobs that matter at scale. -1 keeps Ipopt's default.
    // Ipopt's "mumps_pivot_order", 0..7 (0 AMD, 2 AMF, 3 SCOTCH, 4 PORD,
    // 5 METIS, 6 QAMD, 7 automatic; Ipopt's default 7). -1: automatic,
    // except with the LIMITED_MEMORY Hessian from k = 5,000 parameters on,
    // where the KKT matrix is a diagonal plus the dense rows of objectives
    // and constraints that couple every variable: there QAMD (6), which
    // orders them in 0.4-0.5 s at k = 1e4 where the automatic choice took
    // 134 s and failed (benchmarks/README.md, "MUMPS ordering"). On sparse
    // Hessians (GAUSS_NEWTON, EXACT) the automatic choice stays: it was 4x
    // faster than QAMD on a 3,500-pose graph point. Summary::
    // mumps_pivot_order_used says what Ipopt was given.
    int mumps_pivot_order = -1;
    // Ipopt's "mumps_mem_percent" (>= 0; Ipopt's default 1000): extra
    // working space in percent of MUMPS' estimate.
    int mumps_mem_percent = -1;

    // An Ipopt options file ("ipopt.opt" format: one "name value" per
    // line), read after the options above so that it overrides them. Empty
    // (default): no file is read, not even ./ipopt.opt, so the working
    // directory never changes the reference. A file that cannot be read,
    // or that names an option Ipopt does not know or a value it rejects,
    // gives a FAILURE naming the file and Ipopt's complaint.
    std::string options_file;

    // Usability of a run that stopped on a budget (see Summary): the
    // KKT certificate (ecmo/kkt.h, measured at the point) of the returned point,
    // with these tolerances (Solver::Options' defaults), must pass. Each in
    // (0, 1).
    double stationarity_tolerance = 1e-6;
    double complementarity_tolerance = 1e-8;
    double feasibility_tolerance = 1e-8;
    // The certificate's floor and model tolerance, as in
    // Solver::Options (CrossCheck passes the solver's own). Like every
    // tolerance of the certificate they compare quantities at the
    // returned point: no scale comes from the start point.
    double stationarity_floor = 0.0;
    double model_tolerance = KktCertificate::kDefaultModelTolerance;

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
    // m = q + p, the equalities' then the inequalities'; empty means
    // zeros; bound multipliers start at 0 and are pushed by
    // warm_start_bound_push) with the push and barrier options below, which
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
    // Search_Direction_Becomes_Too_Small give NO_CONVERGENCE only when the
    // returned point passes the KKT certificate (Options' tolerances), so
    // it is a usable answer that Ipopt could not polish; a budget stop at a
    // point that fails it (infeasible, not stationary) is a FAILURE whose
    // message names the failing blocks. Whatever Ipopt says, a point whose
    // rho lies below max_s lambda_s (f_s(z) + offset_s) / w_s at its own z
    // by more than 1e-8 (1 + |rho|) is a FAILURE (no such point is
    // feasible; a diverged run ends there). Everything else
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

    // The second-order information used (never AUTOMATIC once Ipopt ran),
    // and with EXACT the number of columns colors (Hessian products per
    // Ipopt iteration) and products made; with GAUSS_NEWTON / EXACT the
    // nonzeros of the Hessian's lower triangle.
    HessianType hessian_used = HessianType::AUTOMATIC;
    // The "mumps_pivot_order" given to Ipopt (Options::mumps_pivot_order
    // as resolved; -1: none, Ipopt's automatic choice).
    int mumps_pivot_order_used = -1;
    int hessian_colors = 0;
    int hessian_products = 0;
    int hessian_nonzeros = 0;

    // Certificate (with the options' tolerances and scales) of the better
    // multipliers at the returned point: certified says whether it passed.
    KktCertificate certificate;
    bool certified = false;

    int num_parameters = -1;  // k
    int num_objectives = -1;  // S
    // Constraint residuals m = q + p (as Solver::Summary), of which p are
    // inequalities c(z) <= 0.
    int num_constraints = -1;
    int num_inequality_constraints = 0;
    // Components of z with a finite lower or upper bound.
    int num_bounded_parameters = 0;

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
    // Final point: rho, z (inside the bounds), the user's (unshifted)
    // objectives F(z) and the constraint norms. Empty / NaN / -1 when Ipopt
    // returned no point.
    double final_rho = std::numeric_limits<double>::quiet_NaN();
    Eigen::VectorXd z;
    Eigen::VectorXd objectives;
    // ||v||_2 and ||v||_inf of the violation v = (h(z), max(0, c(z))) at
    // the final point (Evaluator::ConstraintViolation).
    double constraint_norm = -1.0;
    double constraint_max_norm = -1.0;

    // Ipopt's multipliers in the paper's convention (see the top of this
    // file): omega (S) for the WC rows, nu (m) for h then c (the last p
    // entries, >= 0), and Ipopt's bound multipliers z_L (bound_lower) and
    // z_U (bound_upper), size k, >= 0, zero on unbounded components; empty
    // when the evaluator has no bounds. All four go to the KKT report as the
    // solver's multipliers (kkt.solver_multipliers).
    Eigen::VectorXd omega;
    Eigen::VectorXd nu;
    Eigen::VectorXd bound_lower;
    Eigen::VectorXd bound_upper;
    // Norm equalities the reference added for blocks with a quaternion or
    // sphere manifold (see Solve), one per block, and their multipliers.
    // They do not enter the KKT report: their gradients (2 z_b) are normal
    // to the manifold, so the report's tangent-space stationarity holds
    // with omega and nu alone.
    int num_manifold_constraints = 0;
    Eigen::VectorXd manifold_multipliers;

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
// unchanged.
//
// Manifolds. Ipopt works in R^k. For a CeresProblemAdapter whose blocks
// carry Ceres' EigenQuaternionManifold, QuaternionManifold or
// SphereManifold (sizes 2..4 and dynamic), whose Plus keeps the block's
// norm, the reference adds the equality ||z_b||^2 = ||z0_b||^2 for each such
// block (exact Hessian 2 I, exact Jacobian 2 z_b); their multipliers are
// reported apart (Summary::manifold_multipliers) and the KKT report is
// measured in the adapter's tangent space as the strategies measure it.
// Any other manifold (an angle, a SubsetManifold, a user's) is refused with
// a FAILURE naming the block and the ways out: write the residuals so that
// the block can live in R^k (e.g. wrap an angle difference in the
// residual) and drop the manifold, or drop it and give its constraint as a
// constraint group. So is any other evaluator with a manifold, which does
// not say which blocks carry which manifold.
//
// Sparsity and formulation. The S rows lambda_s (f_s + offset_s) / w_s -
// rho <= 0 are dense over z; the reference keeps them as they are at every
// size, because with a sparse Hessian they do not hurt MUMPS. Measured on
// the generated 3,500-pose graph (10,497 parameters, S = 2, Gauss-Newton
// Hessian; benchmarks/README.md, "Ipopt reference at pipeline scale"): 7-12
// iterations, 0.045-0.065 s each, 39 MiB for the whole process, from the
// weighted-sum solution. The blow-up seen before (one iteration: 214 s and
// 870 MiB on the same problem) comes from the limited-memory Hessian, which
// GAUSS_NEWTON and EXACT avoid. A lifting (one auxiliary variable and one
// equality per residual block, Chebyshev rows over the auxiliaries) would
// add about 5,000 variables and rows there for no measurable gain, so it
// was not built.
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
