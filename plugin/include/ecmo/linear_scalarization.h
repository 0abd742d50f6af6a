// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Linear scalarization (LS) for CONVEX ECMO problems: the paper's
// Algorithm 2 (appendix "Linear Scalarization Method for Convex ECMO
// Problems"). For convex, L-smooth f_s and affine constraints A z = b
// (A of full row rank q), the LS problem
//
//   min_z  L_lambda(z) = sum_s lambda_s f_s(z)   s.t.  A z = b,
//
// is solved by projected gradient descent
//
//   z_{t+1} = P_D(z_t - (1 / L) grad L_lambda(z_t)),  D = {z : A z = b},
//
// with P_D(w) = w - A^T (A A^T)^{-1} (A w - b) (A A^T factorized once).
// Theorem "Finite-Time Convergence Rate of Algorithm 2":
//
//   L_lambda(z_T) - L_lambda(z*) <= L / (2T) ||z_0 - z*||^2,
//
// for z_0 in D. With a backtracking estimate of L (the default when no
// Lipschitz constant is given) every step satisfies the descent inequality
// the proof uses, with the estimate L_t in place of L, and L_t never
// decreases, so the bound holds with L replaced by the largest estimate
// used up to T (Summary::lipschitz_constant, and per iteration in history).
//
// The minimizers for lambda in the closed simplex are exactly the weakly
// Pareto optimal points of the convex ECMO problem (the paper's Lemma after
// Ehrgott 2005), so, unlike the weighted-Chebyshev solvers, the preference
// may have zero entries here. Nonconvex problems: use ecmo::Solve.
//
// The LS problem's KKT system (reported at the final point):
//
//   K(z, v, lambda) = [ grad F(z) lambda + A^T v ;  A z - b ],
//
// with v the least-squares multiplier v = -(A A^T)^{-1} A grad F(z) lambda.
//
//   ecmo::LinearScalarization::Options options;
//   options.max_iterations = 1000;
//   ecmo::LinearScalarization::Summary summary;
//   ecmo::Solve(options, &problem, {0.3, 0.7}, &summary);
//   std::cout << summary.FullReport() << "\n";
//
// Constraints are either given explicitly (AffineConstraints) or extracted
// from the problem: A = J_h(z0), b = A z0 - h(z0), accepted only when h is
// affine, which is verified at a second point. Nothing here aborts or
// throws: bad input gives a FAILURE summary whose message says what to fix.

#ifndef ECMO_LINEAR_SCALARIZATION_H_
#define ECMO_LINEAR_SCALARIZATION_H_

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/types.h"

namespace ecmo {

class Problem;

// The affine constraints A z = b: A is q x k, b has q entries. q = 0
// (empty A with k columns, or a 0 x 0 A) means no constraints.
struct AffineConstraints {
  Eigen::MatrixXd A;
  Eigen::VectorXd b;
};

// Reads A = J_h(z0) and b = A z0 - h(z0) from the evaluator's constraints
// and verifies that h is affine: at z1 = z0 + d (a fixed pseudo-random
// direction of length 0.5 max(1, ||z0||)) both J_h(z1) = A and
// h(z1) = h(z0) + A d must hold to `tolerance` relative to the size of the
// entries. Returns false with a message (naming the worst constraint row)
// otherwise. Uses q products J_h^T e_i, so it suits moderate q.
bool ExtractAffineConstraints(Evaluator* evaluator,
                              const Eigen::VectorXd& z0,
                              double tolerance,
                              AffineConstraints* constraints,
                              std::string* error);

class LinearScalarization {
 public:
  struct Options {
    // T: number of projected gradient steps (the theorem's T). > 0.
    int max_iterations = 1000;

    // L. > 0: the step is exactly 1/L (Algorithm 2 as stated). 0 (default):
    // backtracking: start from initial_lipschitz_estimate (0 = a secant
    // estimate along the first projected gradient step) and multiply the
    // estimate by lipschitz_increase until
    //   L_lambda(z+) <= L_lambda(z) + g^T (z+ - z) + L_t/2 ||z+ - z||^2;
    // the estimate never decreases. Must be finite and >= 0.
    double lipschitz_constant = 0.0;
    double initial_lipschitz_estimate = 0.0;  // >= 0, finite
    double lipschitz_increase = 2.0;          // > 1
    // At most this many increases per iteration before FAILURE. >= 0.
    int max_lipschitz_increases = 100;

    // Stop early with CONVERGENCE once ||K||^2 <= kkt_tolerance (evaluated
    // every iteration). 0 (default) runs exactly T iterations. >= 0.
    double kkt_tolerance = 0.0;

    // Relative tolerance of the affinity check when the constraints are
    // extracted from the problem. > 0.
    double affinity_tolerance = 1e-8;
    // A is rejected as rank deficient when sigma_min(A) <= rank_tolerance *
    // sigma_max(A). In (0, 1).
    double rank_tolerance = 1e-10;

    // The affine constraints A z = b. Null (default): extracted from the
    // problem (A = J_h(z0), b = A z0 - h(z0)), which must then have affine
    // constraints. Given: used as is and the problem's own constraints are
    // ignored (q = 0 rows means no constraints). Its A must have k columns.
    std::shared_ptr<const AffineConstraints> constraints;

    double max_solver_time_in_seconds = 1e9;  // > 0
    // Keep one IterationSummary per iteration (t = 0..T).
    bool record_history = true;

    // Ceres-style validation: false with a message naming the field, its
    // value and the rule.
    bool IsValid(std::string* error) const;
  };

  // Iterate t (t = 0 is the projected start point).
  struct IterationSummary {
    int iteration = 0;
    // L_lambda(z_t) = sum_s lambda_s f_s(z_t) (LS needs no objective offset).
    double weighted_objective = 0.0;
    // Lipschitz estimate used for the step from z_{t-1} to z_t (the largest
    // so far; 0 at t = 0 when backtracking has not run yet).
    double lipschitz_constant = 0.0;
    // ||z_t - z_{t-1}|| (0 at t = 0).
    double step_norm = 0.0;
  };

  struct Summary {
    std::string BriefReport() const;
    std::string FullReport() const;
    bool IsSolutionUsable() const;

    TerminationType termination_type = ceres::FAILURE;
    std::string message = "ecmo::Solve (linear scalarization) was not called.";

    int num_parameters = -1;   // k
    int num_objectives = -1;   // S
    int num_constraints = -1;  // q (rows of A)
    // Where A and b came from: "given" or "extracted from the problem".
    std::string constraint_source;

    // Preference as given (closed simplex; renormalized to sum 1 internally).
    std::vector<double> preference;

    int iterations = -1;
    // Largest Lipschitz estimate used (or the given L); how often it grew.
    double lipschitz_constant = -1.0;
    bool lipschitz_estimated = false;
    int num_lipschitz_increases = 0;

    // The start as given, its projection onto {A z = b} (the z_0 of the
    // theorem), and the final point.
    Eigen::VectorXd initial_z;
    Eigen::VectorXd projected_initial_z;
    Eigen::VectorXd z;
    Eigen::VectorXd objectives;
    double initial_weighted_objective = 0.0;
    double weighted_objective = 0.0;

    // The LS KKT system at z with the least-squares multiplier v.
    Eigen::VectorXd multiplier_v;      // q
    Eigen::VectorXd kkt_stationarity;  // k: grad F lambda + A^T v
    Eigen::VectorXd kkt_feasibility;   // q: A z - b
    double kkt_residual_sq = -1.0;     // ||K||^2
    // ||A z - b||_2 and ||A z - b||_inf at z.
    double constraint_norm = -1.0;
    double constraint_max_norm = -1.0;

    EvaluationCounts evaluations;
    double total_time_in_seconds = -1.0;
    std::vector<IterationSummary> history;
  };
};

// The names before LinearScalarization was a class (kept for existing
// callers).
using LinearScalarizationOptions = LinearScalarization::Options;
using LinearScalarizationIteration = LinearScalarization::IterationSummary;
using LinearScalarizationSummary = LinearScalarization::Summary;

// Runs Algorithm 2 on the problem's objectives, with the constraints of
// Options::constraints or extracted from the problem. The start is read
// from the problem's parameter blocks (any point: it is projected onto
// {A z = b}) and the solution is written back when usable.
void Solve(const LinearScalarization::Options& options,
           Problem* problem,
           const std::vector<double>& preference,
           LinearScalarization::Summary* summary);

// The same on any evaluator: z holds the start on entry and the solution
// on return (when usable).
void Solve(const LinearScalarization::Options& options,
           Evaluator* evaluator,
           const std::vector<double>& preference,
           Eigen::VectorXd* z,
           LinearScalarization::Summary* summary);

// Legacy forms (kept for existing callers). `constraints` not null
// overrides Options::constraints.
void SolveLinearScalarization(const LinearScalarizationOptions& options,
                              Evaluator* evaluator,
                              const std::vector<double>& preference,
                              const AffineConstraints* constraints,
                              Eigen::VectorXd* z,
                              LinearScalarizationSummary* summary);
void SolveLinearScalarization(const LinearScalarizationOptions& options,
                              const Problem& problem,
                              const std::vector<double>& preference,
                              LinearScalarizationSummary* summary);

// Checks a preference in the CLOSED simplex: size S, finite, >= 0, sum 1
// within 1e-9 relative.
bool ValidateClosedSimplexPreference(const std::vector<double>& preference,
                                     int num_objectives,
                                     std::string* error);

}  // namespace ecmo

#endif  // ECMO_LINEAR_SCALARIZATION_H_
