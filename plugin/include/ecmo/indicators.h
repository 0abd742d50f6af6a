// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Quality indicators for sets of objective vectors: non-dominated filtering,
// ideal and nadir points, the hypervolume, the additive and multiplicative
// epsilon indicators, IGD and IGD+.
//
// Conventions used by every function in this header:
//
//   * A set of n objective vectors with S objectives is an n x S
//     Eigen::MatrixXd; row i is point i.
//   * Every objective is MINIMIZED. To score maximized quantities v (the
//     paper's v = 1/loss, say), pass -v and negate the reference point, e.g.
//     HV of maximized v with reference 0 is Hypervolume(-V, 0).
//   * a <= b (a weakly dominates b) means a_i <= b_i for every i; a < b (a
//     dominates b) means a <= b and a != b.
//   * No function throws, CHECKs or aborts. On invalid input the scalar
//     indicators return NaN and, if `error` is not null, store a message that
//     names the function, the offending entry and what was expected.
//     Otherwise `error` is left untouched.
//
// This module depends on Eigen and the C++ standard library only.

#ifndef ECMO_INDICATORS_H_
#define ECMO_INDICATORS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "Eigen/Core"

namespace ecmo {

// Indices (ascending, 0-based) of the rows of `points` that no other row
// weakly dominates. Among duplicate rows only the first (lowest index) is
// kept, so the result is the minimal set with the same dominated region.
// Rows that contain a NaN are never returned (they are incomparable).
// Complexity: O(n log n) for S <= 2, otherwise O(n log n + S n k) where k is
// the size of the result.
std::vector<int> NonDominatedIndices(const Eigen::MatrixXd& points);

// The rule by which sweeps report their front and plots draw it (one rule
// for ParetoSweep::Summary::non_dominated, the sweep report and ecmo_plot):
// the indices (ascending) of the finite rows of `points` that no other row
// dominates by more than a tolerance. Row i counts as dominated only if some
// row j is nowhere worse than row i by more than tol_s and better by more
// than tol_s somewhere, tol_s = relative_tolerance * (range of objective s
// over the finite rows). So near-duplicates (several preferences that
// select the same end of a front, solved to slightly different digits) all
// count as non-dominated, and a point is never called dominated for a
// difference below the accuracy its certificate asks for. Rows with
// non-finite entries are never returned. Cost O(n m S) for n rows of which m
// are non-dominated by NonDominatedIndices (only those need be tried as
// dominators: if j dominates i by the rule, so does any row that weakly
// dominates j); above 1e9 comparisons the exact rule of NonDominatedIndices
// is used instead (plus the near-duplicates of its rows).
std::vector<int> NonDominatedWithTolerance(const Eigen::MatrixXd& points,
                                           double relative_tolerance = 1e-6);

// Ideal point: ideal_i = min over all rows of points(., i). Rows containing a
// NaN are ignored. Returns a vector of S NaNs if no row is usable.
Eigen::VectorXd Ideal(const Eigen::MatrixXd& points);

// Nadir point of the non-dominated set: nadir_i = max over the rows returned
// by NonDominatedIndices of points(., i). Dominated rows do not count, so the
// nadir is never worse than necessary. Returns a vector of S NaNs if no row is
// usable.
Eigen::VectorXd Nadir(const Eigen::MatrixXd& points);

// The same, with the rows of the non-dominated set already known
// (non_dominated = NonDominatedIndices(points)): for callers that need the
// set anyway (a sweep's summary), which then find it once.
Eigen::VectorXd Nadir(const Eigen::MatrixXd& points,
                      const std::vector<int>& non_dominated);

// Hypervolume (Lebesgue measure) of the region dominated by `points` and
// bounded by `reference`:
//
//   HV(P; r) = Lambda({z in R^S : exists p in P with p <= z <= r}).
//
// Exact for every S >= 1. Points that do not strictly dominate the reference
// (p_i < r_i for every i) contribute nothing and are dropped first; dominated
// and duplicate points are allowed and do not change the value. An empty set
// has hypervolume 0.
//
// Algorithm and cost, for n points that strictly dominate r:
//   S = 1: r_1 - min p_1, O(n).
//   S = 2: sort on the first objective and sum horizontal strips, O(n log n).
//   S = 3: dimension sweep of Beume, Fonseca, Lopez-Ibanez, Paquete and
//          Vahrenhold (IEEE TEVC 13(5), 2009): sweep the third objective in
//          ascending order while a balanced search tree keyed on the first
//          objective holds the 2-D staircase and its dominated area is
//          updated incrementally; O(n log n) time, O(n) memory.
//   S >= 4: WFG of While, Bradstreet and Barone (IEEE TEVC 16(1), 2012), in
//          its slicing form: after non-dominated filtering, sort by the last
//          objective (worst first) and sum
//            (r_S - p_{k,S}) * exclhv_{S-1}(p_k, {p_j : j > k}),
//          where exclhv(p, Q) = prod_i (r_i - p_i) - HV(nds(limitset(p, Q)))
//          and limitset(p, Q) = {max(p, q) componentwise : q in Q}; the
//          (S-1)-dimensional volumes recurse down to the S = 3 sweep.
//          Exponential in S in the worst case, fast on typical fronts.
//
// Returns NaN and sets `error` when S = 0, when reference.size() != S, or when
// a point or the reference contains a non-finite value.
double Hypervolume(const Eigen::MatrixXd& points,
                   const Eigen::VectorXd& reference,
                   std::string* error = nullptr);

// Hypervolume with a bound on its work: exact while the WFG recursion
// (S >= 4) visits at most max_work coordinates of its limit sets; NaN with
// an error saying the budget was exceeded otherwise. S <= 3 is always
// exact (O(n log n)). Why: WFG is exponential in S in the worst case (100
// points in 15 objectives ran for minutes), and a report or a plot title
// must answer at once.
double HypervolumeWithinBudget(const Eigen::MatrixXd& points,
                               const Eigen::VectorXd& reference,
                               int64_t max_work,
                               std::string* error = nullptr);

// A Monte Carlo estimate of Hypervolume: num_samples points drawn
// uniformly (std::mt19937_64 seeded with `seed`, so the estimate is
// reproducible) in the box between the points' ideal and `reference`; the
// fraction dominated times the box's volume. *standard_error (if not null)
// gets its standard error. Same validation as Hypervolume (NaN and error
// on invalid input, or num_samples < 1). Cost O(num_samples n S).
double HypervolumeEstimate(const Eigen::MatrixXd& points,
                           const Eigen::VectorXd& reference,
                           int num_samples,
                           uint64_t seed,
                           double* standard_error = nullptr,
                           std::string* error = nullptr);

// The work budget and sample count of BoundedHypervolume: about a tenth of
// a second either way.
inline constexpr int64_t kHypervolumeWorkBudget = 50000000;
inline constexpr int kHypervolumeSamples = 100000;

// A hypervolume for reports and plots: exact within kHypervolumeWorkBudget,
// otherwise a HypervolumeEstimate of kHypervolumeSamples samples, flagged.
struct HypervolumeValue {
  double value = 0.0;
  bool estimated = false;
  double standard_error = 0.0;  // 0 when exact
};
HypervolumeValue BoundedHypervolume(const Eigen::MatrixXd& points,
                                    const Eigen::VectorXd& reference,
                                    std::string* error = nullptr);

// A reference point for Hypervolume that every non-dominated point strictly
// dominates, so that every such point contributes. The rule, per objective i,
// with ideal = Ideal(points) and nadir = Nadir(points):
//
//   r_i = nadir_i + offset * (nadir_i - ideal_i)   if nadir_i > ideal_i,
//   r_i = nadir_i + offset                         if nadir_i == ideal_i,
//
// i.e. the nadir pushed outwards by `offset` times the range of the front,
// and by `offset` in absolute terms along objectives where the range is zero.
// The rule is invariant under permutations of the points and under adding
// dominated points. offset must be finite and >= 0 (offset = 0 returns the
// nadir, at which the extreme points contribute nothing). Returns a vector
// of S NaNs if offset is invalid or no row is usable.
Eigen::VectorXd DefaultReferencePoint(const Eigen::MatrixXd& points,
                                      double offset = 0.1);

// The same rule from the ideal and nadir points themselves (as Ideal and
// Nadir give them): NaN along an objective where either is NaN, and all
// NaN (nadir.size() entries) when the offset is invalid or the sizes
// differ.
Eigen::VectorXd DefaultReferencePoint(const Eigen::VectorXd& ideal,
                                      const Eigen::VectorXd& nadir,
                                      double offset);

// The unary indicators below compare an approximation set A (rows of
// `approximation`) with a reference set R (rows of `reference_front`, e.g.
// the true Pareto front or the non-dominated union of all runs). All are
// lower-is-better and cost O(S |A| |R|). Both sets must be non-empty, have
// the same number S >= 1 of columns and contain only finite values;
// otherwise the result is NaN and `error` says why.

// Additive epsilon indicator (Zitzler et al., IEEE TEVC 7(2), 2003): the
// smallest eps such that every r in R is weakly dominated by some a - eps,
//
//   eps+(A, R) = max_{r in R} min_{a in A} max_i (a_i - r_i).
//
// It is <= 0 iff A weakly dominates all of R (0 when A contains R).
double AdditiveEpsilon(const Eigen::MatrixXd& approximation,
                       const Eigen::MatrixXd& reference_front,
                       std::string* error = nullptr);

// Multiplicative epsilon indicator, returned as the factor (as moocore does,
// not as 1 + eps):
//
//   eps*(A, R) = max_{r in R} min_{a in A} max_i a_i / r_i.
//
// It is <= 1 iff A weakly dominates all of R. Requires every value of both
// sets to be strictly positive; returns NaN and sets `error` otherwise.
double MultiplicativeEpsilon(const Eigen::MatrixXd& approximation,
                             const Eigen::MatrixXd& reference_front,
                             std::string* error = nullptr);

// Inverted generational distance with p = 1:
//
//   IGD(A, R) = (1 / |R|) sum_{r in R} min_{a in A} ||a - r||_2.
//
// Not Pareto compliant (prefer IGD+ for comparisons).
double Igd(const Eigen::MatrixXd& approximation,
           const Eigen::MatrixXd& reference_front,
           std::string* error = nullptr);

// IGD+ (Ishibuchi, Masuda, Tanigaki and Nojima, EMO 2015), which only counts
// the parts of a - r where a is worse than r, for minimization:
//
//   IGD+(A, R) = (1 / |R|) sum_{r in R} min_{a in A}
//                    sqrt(sum_i max(a_i - r_i, 0)^2).
//
// Weakly Pareto compliant; 0 iff A weakly dominates every r in R.
double IgdPlus(const Eigen::MatrixXd& approximation,
               const Eigen::MatrixXd& reference_front,
               std::string* error = nullptr);

}  // namespace ecmo

#endif  // ECMO_INDICATORS_H_
