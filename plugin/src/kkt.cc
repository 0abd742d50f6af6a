// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/kkt.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "Eigen/Dense"
#include "ecmo/evaluator.h"
#include "ecmo/manifold.h"
#include "solve_workspace.h"
#include "sparse_ldlt.h"

namespace ecmo {
namespace {

// The stationarity block grad_f * weights (+ jt_nu when given), in place
// (no temporary of size k). The one order of operations for ||K|| and for
// the function MinimizeOverMultipliers scores its candidates with
// (KktSystem::StationaritySquaredNorm): where huge gradients cancel
// against J^T nu another order rounds to another residual, and summing
// the columns onto J^T nu made the least-squares multipliers score worse
// than zero ones (fuzz/corpus/problem_fuzzer/
// regression-kkt-stationarity-order).
// The weights lambda_s omega_s live on the stack up to this many
// objectives: Eigen's matrix-vector product evaluates an expression
// argument into a heap vector, one per residual and per score.
constexpr int kStackWeights = 16;

template <typename Weights>
void StationarityWith(const Eigen::MatrixXd& grad_f,
                      const Weights& weights,
                      const Eigen::VectorXd* jt_nu,
                      Eigen::VectorXd* out) {
  out->resize(grad_f.rows());
  out->noalias() = grad_f * weights;
  if (jt_nu != nullptr) *out += *jt_nu;
}

void Stationarity(const Eigen::MatrixXd& grad_f,
                  const Eigen::VectorXd& lambda,
                  const Eigen::VectorXd& omega,
                  const Eigen::VectorXd* jt_nu,
                  Eigen::VectorXd* out) {
  if (lambda.size() <= kStackWeights) {
    const Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kStackWeights, 1>
        weights = lambda.cwiseProduct(omega);
    StationarityWith(grad_f, weights, jt_nu, out);
  } else {
    const Eigen::VectorXd weights = lambda.cwiseProduct(omega);
    StationarityWith(grad_f, weights, jt_nu, out);
  }
}

// KktResidual::stationarity_scale of the stationarity block r = G w +
// (constraint and bound terms), w = lambda .* omega: the largest of the
// objective terms w_s ||g_s||_inf and of the rest, ||r - G w||_inf. One
// pass over G, no temporaries (a sweep scores every point with it).
double StationarityScale(const Eigen::MatrixXd& grad_f,
                         const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& omega,
                         const Eigen::VectorXd& r) {
  const Eigen::Index k = grad_f.rows();
  const Eigen::Index S = grad_f.cols();
  if (r.size() != k || lambda.size() != S || omega.size() != S) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  double largest = 0.0;
  for (Eigen::Index s = 0; s < S; ++s) {
    largest = std::max(largest, std::abs(lambda[s] * omega[s]) *
                                    grad_f.col(s).lpNorm<Eigen::Infinity>());
  }
  for (Eigen::Index i = 0; i < k; ++i) {
    double gw = 0.0;
    for (Eigen::Index s = 0; s < S; ++s) {
      gw += grad_f(i, s) * lambda[s] * omega[s];
    }
    largest = std::max(largest, std::abs(r[i] - gw));
  }
  return largest;
}

// The certificate's value scale D = max(|rho|, max_s lambda_s |f_s|).
double ValueScaleOf(double rho,
                    const Eigen::VectorXd& lambda,
                    const Eigen::VectorXd& f) {
  double d = std::abs(rho);
  for (Eigen::Index s = 0; s < f.size(); ++s) {
    d = std::max(d, std::abs(lambda[s] * f[s]));
  }
  return d;
}

}  // namespace

void ComputeKktResidual(double rho,
                        const Eigen::VectorXd& lambda,
                        const Eigen::VectorXd& f,
                        const Eigen::MatrixXd& grad_f,
                        const Eigen::VectorXd& h,
                        const Eigen::VectorXd& jt_nu,
                        const Eigen::VectorXd& omega,
                        KktResidual* residual) {
  KktResidual& k = *residual;
  k.kept_squared_norms = KktResidual::SquaredNorms();
  k.simplex = omega.sum() - 1.0;
  Stationarity(grad_f, lambda, omega, &jt_nu, &k.stationarity);
  k.feasibility = h;
  k.complementarity.resize(f.size());
  for (int s = 0; s < f.size(); ++s) {
    k.complementarity[s] = std::min(omega[s], rho - lambda[s] * f[s]);
  }
  k.inequality_complementarity.resize(0);
  k.bound_complementarity.resize(0);
  k.stationarity_scale = StationarityScale(grad_f, lambda, omega, k.stationarity);
}

KktResidual ComputeKktResidual(double rho,
                               const Eigen::VectorXd& lambda,
                               const Eigen::VectorXd& f,
                               const Eigen::MatrixXd& grad_f,
                               const Eigen::VectorXd& h,
                               const Eigen::VectorXd& jt_nu,
                               const Eigen::VectorXd& omega) {
  KktResidual k;
  ComputeKktResidual(rho, lambda, f, grad_f, h, jt_nu, omega, &k);
  return k;
}

void ComputeKktResidual(double rho,
                        const Eigen::VectorXd& lambda,
                        const Eigen::VectorXd& f,
                        const Eigen::MatrixXd& grad_f,
                        const Eigen::VectorXd& g,
                        int num_inequalities,
                        const Eigen::VectorXd& jt_nu,
                        const KktMultipliers& multipliers,
                        const Eigen::VectorXd& z,
                        const Eigen::VectorXd& lower,
                        const Eigen::VectorXd& upper,
                        KktResidual* residual) {
  const int m = static_cast<int>(g.size());
  const int p = num_inequalities;
  const int q = m - p;
  KktResidual& k = *residual;
  ComputeKktResidual(
      rho, lambda, f, grad_f, g.head(q), jt_nu, multipliers.omega, &k);
  if (p > 0) {
    k.inequality_complementarity.resize(p);
    for (int j = 0; j < p; ++j) {
      const double mu =
          multipliers.nu.size() == m ? multipliers.nu[q + j] : 0.0;
      k.inequality_complementarity[j] = std::min(mu, -g[q + j]);
    }
  }
  if (lower.size() > 0) {
    const int n = static_cast<int>(z.size());
    const bool has_lower = multipliers.bound_lower.size() == n;
    const bool has_upper = multipliers.bound_upper.size() == n;
    if (has_lower) k.stationarity -= multipliers.bound_lower;
    if (has_upper) k.stationarity += multipliers.bound_upper;
    k.bound_complementarity.resize(2 * n);
    for (int i = 0; i < n; ++i) {
      const double zl = has_lower ? multipliers.bound_lower[i] : 0.0;
      const double zu = has_upper ? multipliers.bound_upper[i] : 0.0;
      // An unbounded side has distance +inf: min() is its multiplier, which
      // must be zero there.
      k.bound_complementarity[i] = std::min(zl, z[i] - lower[i]);
      k.bound_complementarity[n + i] = std::min(zu, upper[i] - z[i]);
    }
    k.stationarity_scale =
        StationarityScale(grad_f, lambda, multipliers.omega, k.stationarity);
  }
}

KktResidual ComputeKktResidual(double rho,
                               const Eigen::VectorXd& lambda,
                               const Eigen::VectorXd& f,
                               const Eigen::MatrixXd& grad_f,
                               const Eigen::VectorXd& g,
                               int num_inequalities,
                               const Eigen::VectorXd& jt_nu,
                               const KktMultipliers& multipliers,
                               const Eigen::VectorXd& z,
                               const Eigen::VectorXd& lower,
                               const Eigen::VectorXd& upper) {
  KktResidual k;
  ComputeKktResidual(rho,
                     lambda,
                     f,
                     grad_f,
                     g,
                     num_inequalities,
                     jt_nu,
                     multipliers,
                     z,
                     lower,
                     upper,
                     &k);
  return k;
}

void KktResidual::KeepNormsOnly() {
  SquaredNorms norms;
  norms.simplex = kept_squared_norms.simplex;  // simplex itself is kept
  norms.stationarity = StationaritySq();
  norms.feasibility = FeasibilitySq();
  norms.complementarity = ComplementaritySq();
  norms.constraint_complementarity = ConstraintComplementaritySq();
  kept_squared_norms = norms;  // stationarity_scale, a scalar, stays
  for (Eigen::VectorXd* block : {&stationarity,
                                 &feasibility,
                                 &complementarity,
                                 &inequality_complementarity,
                                 &bound_complementarity}) {
    Eigen::VectorXd().swap(*block);
  }
}

double BoundMultiplier(double force, double distance) {
  if (!(force > 0.0) || !std::isfinite(distance)) return 0.0;
  const double a = std::max(force, distance);
  const double m = std::min(a, distance);
  return (force - a) * (force - a) + m * m < force * force ? a : 0.0;
}

void CreditBoundMultipliers(const Eigen::VectorXd& r,
                            const Eigen::VectorXd& z,
                            const Eigen::VectorXd& lower,
                            const Eigen::VectorXd& upper,
                            Eigen::VectorXd* bound_lower,
                            Eigen::VectorXd* bound_upper) {
  const int k = static_cast<int>(r.size());
  bound_lower->resize(k);
  bound_upper->resize(k);
  for (int i = 0; i < k; ++i) {
    // Stationarity is r - z_L + z_U: a positive r is balanced by z_L.
    (*bound_lower)[i] = BoundMultiplier(r[i], z[i] - lower[i]);
    (*bound_upper)[i] = BoundMultiplier(-r[i], upper[i] - z[i]);
  }
}

namespace {

// Dense J_h is formed (q products J^T e_i) when it is this small; larger
// problems use conjugate gradients through Jacobian products.
constexpr double kMaxDenseJacobianEntries = 4e6;
constexpr int kMaxDenseConstraints = 2000;
// Exact enumeration of the min() branches for at most this many objectives
// with rho - lambda_s f_s > 0; the rest are fixed to the small-omega branch.
constexpr int kMaxEnumeratedBranches = 12;

// Small dense types for the S-dimensional problems below: with a fixed
// maximum size Eigen keeps them (and its decompositions' workspaces) on the
// stack. At small k these few-by-few problems run once per certificate and
// their heap allocations were a fifth of a solve.
template <int kMax>
struct SmallTypes {
  using Matrix =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMax, kMax>;
  using Vector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMax, 1>;
  using Index = Eigen::Matrix<int, Eigen::Dynamic, 1, 0, kMax, 1>;
};
struct DynamicTypes {
  using Matrix = Eigen::MatrixXd;
  using Vector = Eigen::VectorXd;
  using Index = Eigen::VectorXi;
};
// Objectives up to this many take the stack path.
constexpr int kSmallObjectives = 8;

// SolveBoxQp for n = 2 with finite lower bounds, in closed form: the
// unconstrained minimizer when H is nonsingular and it lies in the box
// (the problem is convex, so it is then the answer), else the best of the
// one-dimensional minimizers along the box's edges (the minimum of a
// convex problem on a box with finite lower bounds lies on its boundary
// when the unconstrained one does not lie inside; with H singular, its
// line of minimizers crosses that boundary). Two objectives are the common
// case, and the least-squares multipliers of every certificate run up to
// four of these: the active-set loop's pivoted factorizations cost ten
// times more than the arithmetic here.
template <typename T>
typename T::Vector SolveBoxQp2(const typename T::Matrix& H,
                               const typename T::Vector& b,
                               const typename T::Vector& lo,
                               const typename T::Vector& hi) {
  const double h01 = 0.5 * (H(0, 1) + H(1, 0));
  auto value = [&](double x0, double x1) {
    return H(0, 0) * x0 * x0 + 2.0 * h01 * x0 * x1 + H(1, 1) * x1 * x1 -
           2.0 * (b[0] * x0 + b[1] * x1);
  };
  auto inside = [&](double x, int i) { return x >= lo[i] && x <= hi[i]; };
  typename T::Vector x(2);
  const double det = H(0, 0) * H(1, 1) - h01 * h01;
  const double scale = std::abs(H(0, 0) * H(1, 1)) + h01 * h01;
  if (det > 1e-12 * scale) {
    x[0] = (H(1, 1) * b[0] - h01 * b[1]) / det;
    x[1] = (H(0, 0) * b[1] - h01 * b[0]) / det;
    if (inside(x[0], 0) && inside(x[1], 1)) return x;
  }
  // Edge x_i = v: minimize over x_j in [lo_j, hi_j]; the quadratic in x_j
  // is H_jj x_j^2 - 2 (b_j - H_ij v) x_j.
  double best = std::numeric_limits<double>::infinity();
  x = lo;
  for (int i = 0; i < 2; ++i) {
    const int j = 1 - i;
    for (const double v : {lo[i], hi[i]}) {
      if (!std::isfinite(v)) continue;
      const double linear = b[j] - h01 * v;
      double xj;
      if (H(j, j) > 0.0) {
        xj = std::min(std::max(linear / H(j, j), lo[j]), hi[j]);
      } else {
        xj = linear > 0.0 ? hi[j] : lo[j];
      }
      if (!std::isfinite(xj)) continue;  // unbounded along this edge
      const double candidate = i == 0 ? value(v, xj) : value(xj, v);
      if (candidate < best) {
        best = candidate;
        x[i] = v;
        x[j] = xj;
      }
    }
  }
  return x;
}

// min x^T H x - 2 b^T x  s.t.  lo <= x <= hi (hi may be +inf), for small n,
// by a primal active-set method: fix variables at bounds (the working set),
// solve the equality-constrained problem on the free ones, step to the
// first blocking bound, and release the bound with the most negative
// multiplier once the free subproblem is solved. Exact up to rounding;
// finite for strictly convex H, capped for safety otherwise.
template <typename T>
typename T::Vector SolveBoxQp(const typename T::Matrix& H,
                              const typename T::Vector& b,
                              const typename T::Vector& lo,
                              const typename T::Vector& hi) {
  const int n = static_cast<int>(b.size());
  if (n == 2 && lo.allFinite()) return SolveBoxQp2<T>(H, b, lo, hi);
  typename T::Vector x = lo;
  // at_bound: 0 free, -1 at lo, +1 at hi.
  typename T::Index at_bound = T::Index::Constant(n, -1);
  typename T::Index free(n);
  typename T::Matrix hff;
  typename T::Vector rhs, y, g;
  Eigen::LDLT<typename T::Matrix> ldlt;
  const int max_iterations = 20 * n + 50;
  for (int iter = 0; iter < max_iterations; ++iter) {
    int nf = 0;
    for (int i = 0; i < n; ++i) {
      if (at_bound[i] == 0) free[nf++] = i;
    }
    bool moved_to_bound = false;
    if (nf > 0) {
      hff.resize(nf, nf);
      rhs.resize(nf);
      for (int a = 0; a < nf; ++a) {
        rhs[a] = b[free[a]];
        for (int j = 0; j < n; ++j) {
          if (at_bound[j] != 0) rhs[a] -= H(free[a], j) * x[j];
        }
        for (int c = 0; c < nf; ++c) hff(a, c) = H(free[a], free[c]);
      }
      // H is positive semidefinite: a pivoted LDL^T solves it in a
      // fraction of a complete orthogonal decomposition's work; only a
      // (near-)singular H, whose LDL^T answer does not solve the system,
      // takes the minimum-norm answer.
      ldlt.compute(hff);
      y = ldlt.solve(rhs);
      if (ldlt.info() != Eigen::Success || !y.allFinite() ||
          (hff * y - rhs).template lpNorm<Eigen::Infinity>() >
              1e-12 * (1.0 + rhs.template lpNorm<Eigen::Infinity>() +
                       hff.template lpNorm<Eigen::Infinity>() *
                           y.template lpNorm<Eigen::Infinity>())) {
        y = hff.completeOrthogonalDecomposition().solve(rhs);
      }
      // Largest step toward y that stays feasible.
      double alpha = 1.0;
      int blocking = -1;
      int blocking_side = 0;
      for (int a = 0; a < nf; ++a) {
        const int i = free[a];
        const double d = y[a] - x[i];
        if (d < 0.0 && y[a] < lo[i]) {
          const double step = (lo[i] - x[i]) / d;
          if (step < alpha) alpha = step, blocking = i, blocking_side = -1;
        } else if (d > 0.0 && y[a] > hi[i]) {
          const double step = (hi[i] - x[i]) / d;
          if (step < alpha) alpha = step, blocking = i, blocking_side = 1;
        }
      }
      alpha = std::max(alpha, 0.0);
      for (int a = 0; a < nf; ++a) {
        const int i = free[a];
        x[i] = std::min(std::max(x[i] + alpha * (y[a] - x[i]), lo[i]), hi[i]);
      }
      if (blocking >= 0) {
        x[blocking] = blocking_side < 0 ? lo[blocking] : hi[blocking];
        at_bound[blocking] = blocking_side;
        moved_to_bound = true;
      }
    }
    if (moved_to_bound) continue;
    // Free subproblem solved: release the most violated bound, if any.
    g.noalias() = H * x;
    g = 2.0 * (g - b);
    int release = -1;
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
      // At lo the multiplier is g_i (must be >= 0); at hi it is -g_i.
      const double violation = at_bound[i] < 0   ? -g[i]
                               : at_bound[i] > 0 ? g[i]
                                                 : 0.0;
      const double scale = 1e-14 * (1.0 + std::abs(g[i]) + b.cwiseAbs().sum());
      if (violation > worst && violation > scale) {
        worst = violation;
        release = i;
      }
    }
    if (release < 0) break;
    at_bound[release] = 0;
  }
  return x;
}

// The omega-part of the least-squares multipliers once nu is eliminated:
// minimizes (1^T w - 1)^2 + ||R w||^2 + sum_s min(w_s, c_s)^2 over w >= 0.
// min(w_s, c_s)^2 is w_s^2 on [0, c_s] (branch A, only when c_s > 0) and
// the constant c_s^2 on [max(c_s, 0), inf) (branch B). Each choice of
// branches is a convex box QP; the best over all choices is the global
// minimum.
template <typename T>
void BestOmegaWith(const Eigen::MatrixXd& R,
                   double weight,
                   const Eigen::VectorXd& c,
                   Eigen::VectorXd* rw_scratch,
                   Eigen::VectorXd* best) {
  const int S = static_cast<int>(c.size());
  typename T::Matrix M(S, S);
  M.noalias() = R.transpose() * R;
  M *= weight * weight;
  // s with c_s > 0, nearest-to-active first.
  typename T::Index ambiguous(S);
  int num_ambiguous = 0;
  for (int s = 0; s < S; ++s) {
    if (c[s] > 0.0) ambiguous[num_ambiguous++] = s;
  }
  std::sort(ambiguous.data(),
            ambiguous.data() + num_ambiguous,
            [&](int a, int b) { return c[a] < c[b]; });
  // position[s]: where s sits among the ambiguous ones (its bit in the
  // enumeration mask), or -1.
  typename T::Index position = T::Index::Constant(S, -1);
  for (int i = 0; i < num_ambiguous; ++i) position[ambiguous[i]] = i;
  const int enumerated = std::min(num_ambiguous, kMaxEnumeratedBranches);

  const typename T::Vector b = T::Vector::Ones(S);
  const double inf = std::numeric_limits<double>::infinity();
  // ||R w||^2 rather than w^T M w: the quadratic form can cancel to a
  // negative number when the gradients are huge and nearly opposite, and a
  // negative "residual" would win the comparison below.
  Eigen::VectorXd& rw = *rw_scratch;
  rw.resize(R.rows());
  auto objective = [&](const typename T::Vector& w) {
    rw.noalias() = R * w;
    double value =
        (w.sum() - 1.0) * (w.sum() - 1.0) + weight * weight * rw.squaredNorm();
    for (int s = 0; s < S; ++s) {
      const double m = std::min(w[s], c[s]);
      value += m * m;
    }
    return value;
  };

  typename T::Vector best_w = T::Vector::Zero(S);
  double best_value = objective(best_w);
  typename T::Matrix H(S, S);
  typename T::Vector lo(S), hi(S), w(S);
  for (long mask = 0; mask < (1L << enumerated); ++mask) {
    H = M;
    H.array() += 1.0;  // the (1^T w - 1)^2 term
    lo.setZero();
    hi.setConstant(inf);
    for (int s = 0; s < S; ++s) {
      if (c[s] <= 0.0) continue;  // only branch B: w >= 0, constant term
      // Position of s among the ambiguous ones decides its branch; a NaN
      // c_s (not ambiguous, not skipped) takes branch A.
      const int pos = position[s];
      const bool branch_a =
          pos < 0 || pos >= enumerated || ((mask >> pos) & 1L) == 0;
      if (branch_a) {
        hi[s] = c[s];
        H(s, s) += 1.0;
      } else {
        lo[s] = c[s];
      }
    }
    w = SolveBoxQp<T>(H, b, lo, hi);
    const double value = objective(w);
    if (value < best_value) {
      best_value = value;
      best_w = w;
    }
  }
  *best = best_w;
}

// R scaled by `weight` (not copied); rw_scratch holds R w (size k). The
// minimizer goes to *best (size S).
void BestOmega(const Eigen::MatrixXd& R,
               double weight,
               const Eigen::VectorXd& c,
               Eigen::VectorXd* rw_scratch,
               Eigen::VectorXd* best) {
  if (c.size() <= kSmallObjectives) {
    BestOmegaWith<SmallTypes<kSmallObjectives>>(R, weight, c, rw_scratch, best);
  } else {
    BestOmegaWith<DynamicTypes>(R, weight, c, rw_scratch, best);
  }
}

}  // namespace

bool KktSystem::Linearize(Evaluator* evaluator,
                          const Eigen::VectorXd& lambda,
                          const Eigen::VectorXd& offset,
                          double rho,
                          const Eigen::VectorXd& z,
                          std::string* error) {
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  nu_elimination_.valid = false;
  have_raw_least_squares_ = false;
  have_scaled_least_squares_ = false;
  if (z.size() != k || lambda.size() != S ||
      (offset.size() != 0 && offset.size() != S)) {
    // The stream only on failure: it costs a locale set-up per call.
    std::ostringstream os;
    if (z.size() != k) {
      os << "KktSystem: z has " << z.size() << " entries, the problem has " << k
         << " parameters.";
    } else if (lambda.size() != S) {
      os << "KktSystem: the preference has " << lambda.size()
         << " entries, the problem has " << S << " objectives.";
    } else {
      os << "KktSystem: the objective offset has " << offset.size()
         << " entries, the problem has " << S << " objectives.";
    }
    if (error != nullptr) *error = os.str();
    return false;
  }
  evaluator_ = evaluator;
  manifold_ = evaluator->manifold();
  z_ = z;
  p_ = evaluator->NumInequalityConstraints();
  lower_ = evaluator->lower_bounds();
  upper_ = evaluator->upper_bounds();
  rho_ = rho;
  lambda_ = lambda;
  f_.resize(S);
  h_.resize(q);
  grad_f_.resize(k, S);
  if (!evaluator->Evaluate(
          z.data(), f_.data(), h_.data(), grad_f_.data(), error)) {
    return false;
  }
  // The weighted objectives as evaluated (before the offset): the size
  // their rounding is relative to (ModelDecrease).
  evaluated_scale_ = 0.0;
  for (int s = 0; s < S; ++s) {
    evaluated_scale_ = std::max(evaluated_scale_, std::abs(lambda_[s] * f_[s]));
  }
  if (offset.size() == S) f_ += offset;
  if (std::isnan(rho)) rho_ = lambda_.cwiseProduct(f_).maxCoeff();
  const int kt = evaluator->NumTangentParameters();
  if (manifold_ != nullptr) {
    // Column-major k x S is row-major S x k: one RightMultiplyByPlusJacobian
    // projects every gradient.
    Eigen::MatrixXd tangent(kt, S);
    if (!manifold_->RightMultiplyByPlusJacobian(
            z.data(), S, grad_f_.data(), tangent.data())) {
      if (error != nullptr) {
        *error =
            "KktSystem: the manifold failed to project the objective "
            "gradients to its tangent space (RightMultiplyByPlusJacobian "
            "returned false).";
      }
      return false;
    }
    grad_f_ = std::move(tangent);
    ambient_scratch_.resize(k);
  }
  // Sized in place (kept across linearizations of one problem).
  if (q > 0 && q <= kMaxDenseConstraints &&
      static_cast<double>(q) * kt <= kMaxDenseJacobianEntries) {
    dense_jacobian_.resize(q, kt);
    Eigen::VectorXd& e = unit_scratch_;
    Eigen::VectorXd& row = row_scratch_;
    e.setZero(q);
    row.resize(kt);
    for (int i = 0; i < q; ++i) {
      e[i] = 1.0;
      TangentJacobianTransposeMultiply(e.data(), row.data());
      dense_jacobian_.row(i) = row.transpose();
      e[i] = 0.0;
    }
  } else {
    dense_jacobian_.resize(0, 0);
  }
  return true;
}

void KktSystem::TangentJacobianTransposeMultiply(const double* v,
                                                 double* out) const {
  if (manifold_ == nullptr) {
    evaluator_->JacobianTransposeMultiply(v, out);
    return;
  }
  evaluator_->JacobianTransposeMultiply(v, ambient_scratch_.data());
  manifold_->RightMultiplyByPlusJacobian(
      z_.data(), 1, ambient_scratch_.data(), out);
}

double KktSystem::StationaritySquaredNorm(const Eigen::VectorXd& omega,
                                          const Eigen::VectorXd& nu) const {
  const bool with_nu = nu.size() > 0 && nu.size() == h_.size();
  if (with_nu) {
    jt_nu_scratch_.resize(grad_f_.rows());
    TangentJacobianTransposeMultiply(nu.data(), jt_nu_scratch_.data());
  }
  Stationarity(grad_f_,
               lambda_,
               omega,
               with_nu ? &jt_nu_scratch_ : nullptr,
               &stationarity_scratch_);
  return stationarity_scratch_.squaredNorm();
}

void KktSystem::TangentJacobianMultiply(const double* x, double* out) const {
  if (manifold_ == nullptr) {
    evaluator_->JacobianMultiply(x, out);
    return;
  }
  PlusJacobianMultiply(*manifold_, z_.data(), x, ambient_scratch_.data());
  evaluator_->JacobianMultiply(ambient_scratch_.data(), out);
}

KktResidual KktSystem::Residual(const KktMultipliers& multipliers) const {
  KktResidual residual;
  Residual(multipliers, &residual);
  return residual;
}

void KktSystem::Residual(const KktMultipliers& multipliers,
                         KktResidual* residual) const {
  const int k = static_cast<int>(grad_f_.rows());
  if (lower_.size() > 0 && multipliers.bound_lower.size() == 0 &&
      multipliers.bound_upper.size() == 0) {
    KktMultipliers completed = multipliers;
    CompleteBoundMultipliers(&completed);
    Residual(completed, residual);
    return;
  }
  // J^T nu in the kept scratch (StationaritySquaredNorm's, not in use
  // here); zero without constraints or multipliers.
  Eigen::VectorXd& jt_nu = jt_nu_scratch_;
  jt_nu.resize(k);
  if (h_.size() > 0 && multipliers.nu.size() == h_.size()) {
    TangentJacobianTransposeMultiply(multipliers.nu.data(), jt_nu.data());
  } else {
    jt_nu.setZero();
  }
  if (p_ == 0 && lower_.size() == 0) {
    ComputeKktResidual(
        rho_, lambda_, f_, grad_f_, h_, jt_nu, multipliers.omega, residual);
    return;
  }
  ComputeKktResidual(rho_,
                     lambda_,
                     f_,
                     grad_f_,
                     h_,
                     p_,
                     jt_nu,
                     multipliers,
                     z_,
                     lower_,
                     upper_,
                     residual);
}

void KktSystem::CompleteBoundMultipliers(KktMultipliers* multipliers) const {
  const int k = static_cast<int>(z_.size());
  if (lower_.size() == 0 || multipliers->bound_lower.size() == k ||
      multipliers->bound_upper.size() == k) {
    return;
  }
  // r = the stationarity block without bound terms (zero bound
  // multipliers, so that Residual does not complete them).
  KktMultipliers free = *multipliers;
  free.bound_lower = Eigen::VectorXd::Zero(k);
  free.bound_upper = Eigen::VectorXd::Zero(k);
  CreditBoundMultipliers(Residual(free).stationarity,
                         z_,
                         lower_,
                         upper_,
                         &multipliers->bound_lower,
                         &multipliers->bound_upper);
}

void KktSystem::SolveNu(const Eigen::MatrixXd& G, Eigen::MatrixXd* out) const {
  Eigen::MatrixXd& N = *out;
  const int q = static_cast<int>(h_.size());
  const int k = static_cast<int>(G.rows());
  if (dense_jacobian_.size() > 0 && q == 1) {
    // One constraint: the minimum-norm least-squares answer in closed form
    // (what the decomposition below gives: rank 0 only for J = 0).
    const double jj = dense_jacobian_.squaredNorm();
    if (jj == 0.0) {
      N.setZero(1, G.cols());
      return;
    }
    // Column by column: the product J G copied J's row into a fresh
    // k-vector first (Eigen's matrix-vector kernel wants unit stride).
    const Eigen::Map<const Eigen::VectorXd> j(dense_jacobian_.data(), k);
    N.resize(1, G.cols());
    for (int s = 0; s < G.cols(); ++s) N(0, s) = -j.dot(G.col(s)) / jj;
    return;
  }
  if (dense_jacobian_.size() > 0) {
    // min ||G_s + J^T N_s||: least squares with J^T (k x q), rank-revealing
    // so that a rank-deficient J_h (LICQ failing) still gives the
    // minimum-norm answer instead of garbage. One factorization serves
    // every column: it is O(k q^2), the solves O(k q).
    // Directions with singular values below 1e-12 of the largest are
    // treated as rank deficient: nearly parallel constraint gradients would
    // otherwise produce huge opposite multipliers whose products cancel.
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
    cod.setThreshold(1e-12);
    cod.compute(dense_jacobian_.transpose());
    N = cod.solve(-G);
    return;
  }
  // CG on the normal equations J J^T nu = -J g (CGLS form), matrix-free,
  // one column at a time.
  N.resize(q, G.cols());
  Eigen::VectorXd nu(q), r(k), s(q), p(q), t(k);
  for (int column = 0; column < G.cols(); ++column) {
    nu.setZero();
    r = -G.col(column);  // residual in R^k: -g - J^T nu
    TangentJacobianMultiply(r.data(), s.data());
    p = s;
    double gamma = s.squaredNorm();
    const double stop = 1e-30 * std::max(1.0, gamma);
    for (int iter = 0; iter < 10 * q + 100 && gamma > stop; ++iter) {
      TangentJacobianTransposeMultiply(p.data(), t.data());
      const double tt = t.squaredNorm();
      if (tt == 0.0) break;
      const double alpha = gamma / tt;
      nu += alpha * p;
      r -= alpha * t;
      TangentJacobianMultiply(r.data(), s.data());
      const double gamma_new = s.squaredNorm();
      p = s + (gamma_new / gamma) * p;
      gamma = gamma_new;
    }
    N.col(column) = nu;
  }
}

void KktSystem::EliminateNu() const {
  const int S = static_cast<int>(f_.size());
  const int k = static_cast<int>(grad_f_.rows());
  const int q = static_cast<int>(h_.size());
  // Eliminate nu: for omega fixed, nu(omega) = sum_s omega_s N_s with
  // N_s = argmin ||G_s + J^T N||, G_s = lambda_s grad f_s, and the
  // stationarity block becomes R omega with R_s = G_s + J^T N_s.
  Eigen::MatrixXd& N = nu_elimination_.N;
  Eigen::MatrixXd& R = nu_elimination_.R;
  R = grad_f_ * lambda_.asDiagonal();  // G
  if (q == 0) {
    N.resize(0, S);
  } else {
    SolveNu(R, &N);
    Eigen::VectorXd& jt = jt_nu_scratch_;
    jt.resize(k);
    for (int s = 0; s < S; ++s) {
      // N is column-major: its column is contiguous.
      TangentJacobianTransposeMultiply(N.col(s).data(), jt.data());
      const double g_sq = R.col(s).squaredNorm();
      // A least-squares nu can never make the residual longer than nu = 0;
      // if rounding did (extreme scales), fall back to nu = 0.
      if ((R.col(s) + jt).squaredNorm() <= g_sq) {
        R.col(s) += jt;
      } else {
        N.col(s).setZero();
      }
    }
  }
  nu_elimination_.valid = true;
}

void KktSystem::MinimizeOverMultipliers(const Eigen::VectorXd& comp_scale,
                                        double stationarity_weight,
                                        KktMultipliers* out) const {
  const int S = static_cast<int>(f_.size());
  const int q = static_cast<int>(h_.size());

  if (!nu_elimination_.valid) EliminateNu();
  const Eigen::MatrixXd& N = nu_elimination_.N;
  const Eigen::MatrixXd& R = nu_elimination_.R;
  Eigen::VectorXd& c = complementarity_scratch_;
  c.resize(S);
  for (int s = 0; s < S; ++s) {
    c[s] = comp_scale[s] * (rho_ - lambda_[s] * f_[s]);
  }
  // result.omega is the enumeration's best w throughout, unless omega = 0
  // wins at the end.
  KktMultipliers& result = *out;
  result.bound_lower.resize(0);
  result.bound_upper.resize(0);
  BestOmega(R, stationarity_weight, c, &stationarity_scratch_, &result.omega);
  const Eigen::VectorXd& best_w = result.omega;
  if (q > 0) {
    result.nu.noalias() = N * best_w;
  } else {
    result.nu.resize(0);
  }
  // Guard against rounding at extreme scales (huge gradients against an
  // ill-conditioned J_h, where g + J^T nu cancels to noise): score the
  // answer exactly as Residual() will, and never return something worse
  // than dropping nu or both multipliers.
  auto score_of = [&](const auto& omega, double stationarity_sq) {
    const double sum = omega.sum() - 1.0;
    double value =
        sum * sum + stationarity_weight * stationarity_weight * stationarity_sq;
    for (int s = 0; s < S; ++s) {
      const double t = std::min(omega[s], c[s]);
      value += t * t;
    }
    return value;
  };
  // Only reached without bounds and inequalities (the constrained case is
  // MinimizeOverConstrainedMultipliers), where Residual's stationarity
  // block is exactly what StationaritySquaredNorm computes; the fallbacks
  // have nu = 0: no Jacobian product needed.
  double best_score =
      score_of(result.omega, StationaritySquaredNorm(result.omega, result.nu));
  const Eigen::VectorXd no_nu;
  const double best_w_score =
      score_of(best_w, StationaritySquaredNorm(best_w, no_nu));
  if (best_w_score < best_score || !std::isfinite(best_score)) {
    best_score = best_w_score;
    result.nu.setZero(q);
  }
  // omega = 0: no stationarity residual at all.
  if (score_of(Eigen::VectorXd::Zero(S), 0.0) < best_score ||
      !std::isfinite(best_score)) {
    result.omega.setZero();
    result.nu.setZero(q);
  }
}

Eigen::MatrixXd KktSystem::SolveNuRestricted(
    const Eigen::MatrixXd& G,
    const std::vector<char>& rows,
    const std::vector<signed char>& held) const {
  const int m = static_cast<int>(h_.size());
  const int n = static_cast<int>(G.rows());
  const int S = static_cast<int>(G.cols());
  Eigen::MatrixXd N = Eigen::MatrixXd::Zero(m, S);
  std::vector<int> row_index, col_index;
  for (int i = 0; i < m; ++i) {
    if (rows[i]) row_index.push_back(i);
  }
  for (int i = 0; i < n; ++i) {
    if (held.empty() || held[i] == 0) col_index.push_back(i);
  }
  const int ma = static_cast<int>(row_index.size());
  const int nf = static_cast<int>(col_index.size());
  if (ma == 0 || nf == 0) return N;
  if (dense_jacobian_.size() > 0) {
    // min ||G_s + J_A^T N_s|| over the free components (see SolveNu).
    Eigen::MatrixXd At(nf, ma);
    Eigen::MatrixXd B(nf, S);
    for (int a = 0; a < nf; ++a) {
      for (int b = 0; b < ma; ++b) {
        At(a, b) = dense_jacobian_(row_index[b], col_index[a]);
      }
      B.row(a) = -G.row(col_index[a]);
    }
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
    cod.setThreshold(1e-12);
    cod.compute(At);
    const Eigen::MatrixXd X = cod.solve(B);
    for (int b = 0; b < ma; ++b) N.row(row_index[b]) = X.row(b);
    return N;
  }
  // CGLS through masked products, one column at a time.
  Eigen::VectorXd full_v(m), full_x(n), jt(n), jx(m);
  auto apply_jt = [&](const Eigen::VectorXd& v, Eigen::VectorXd* out) {
    full_v.setZero();
    for (int b = 0; b < ma; ++b) full_v[row_index[b]] = v[b];
    TangentJacobianTransposeMultiply(full_v.data(), jt.data());
    out->resize(nf);
    for (int a = 0; a < nf; ++a) (*out)[a] = jt[col_index[a]];
  };
  auto apply_j = [&](const Eigen::VectorXd& x, Eigen::VectorXd* out) {
    full_x.setZero();
    for (int a = 0; a < nf; ++a) full_x[col_index[a]] = x[a];
    TangentJacobianMultiply(full_x.data(), jx.data());
    out->resize(ma);
    for (int b = 0; b < ma; ++b) (*out)[b] = jx[row_index[b]];
  };
  for (int col = 0; col < S; ++col) {
    Eigen::VectorXd nu = Eigen::VectorXd::Zero(ma);
    Eigen::VectorXd r(nf);
    for (int a = 0; a < nf; ++a) r[a] = -G(col_index[a], col);
    Eigen::VectorXd sv, pv, t;
    apply_j(r, &sv);
    pv = sv;
    double gamma = sv.squaredNorm();
    const double stop = 1e-30 * std::max(1.0, gamma);
    for (int iter = 0; iter < 10 * ma + 100 && gamma > stop; ++iter) {
      apply_jt(pv, &t);
      const double tt = t.squaredNorm();
      if (tt == 0.0) break;
      const double alpha = gamma / tt;
      nu += alpha * pv;
      r -= alpha * t;
      apply_j(r, &sv);
      const double gamma_new = sv.squaredNorm();
      pv = sv + (gamma_new / gamma) * pv;
      gamma = gamma_new;
    }
    for (int b = 0; b < ma; ++b) N(row_index[b], col) = nu[b];
  }
  return N;
}

double KktSystem::MultiplierObjective(const KktMultipliers& m,
                                      const Eigen::VectorXd& comp_scale,
                                      double stationarity_weight) const {
  const KktResidual r = Residual(m);
  const int S = static_cast<int>(f_.size());
  const double sum = m.omega.sum() - 1.0;
  double value = sum * sum +
                 stationarity_weight * stationarity_weight * r.StationaritySq();
  for (int s = 0; s < S; ++s) {
    const double t =
        std::min(m.omega[s], comp_scale[s] * (rho_ - lambda_[s] * f_[s]));
    value += t * t;
  }
  // The constraint blocks with the multipliers in the stationarity's
  // units, as the certificate measures them.
  const int q = static_cast<int>(h_.size()) - p_;
  for (int j = 0; j < p_; ++j) {
    const double t = std::min(stationarity_weight * m.nu[q + j], -h_[q + j]);
    value += t * t;
  }
  if (lower_.size() > 0) {
    const int k = static_cast<int>(z_.size());
    for (int i = 0; i < k; ++i) {
      const double a = m.bound_lower.size() == k ? m.bound_lower[i] : 0.0;
      const double b = m.bound_upper.size() == k ? m.bound_upper[i] : 0.0;
      const double tl = std::min(stationarity_weight * a, z_[i] - lower_[i]);
      const double tu = std::min(stationarity_weight * b, upper_[i] - z_[i]);
      value += tl * tl + tu * tu;
    }
  }
  return std::isnan(value) ? std::numeric_limits<double>::infinity() : value;
}

KktMultipliers KktSystem::MinimizeWithActiveSet(
    const Eigen::VectorXd& comp_scale,
    double stationarity_weight,
    const ActiveSet& active) const {
  const int S = static_cast<int>(f_.size());
  const int k = static_cast<int>(grad_f_.rows());
  const int m = static_cast<int>(h_.size());
  const int q = m - p_;
  Eigen::MatrixXd G(k, S);
  for (int s = 0; s < S; ++s) G.col(s) = lambda_[s] * grad_f_.col(s);
  std::vector<char> rows(m, 1);
  for (int j = 0; j < p_; ++j) rows[q + j] = active.inequality[j];
  const Eigen::MatrixXd N =
      m > 0 ? SolveNuRestricted(G, rows, active.bound) : Eigen::MatrixXd(0, S);
  // R_s = G_s + J^T N_s on the free components (held ones are balanced by
  // their bound multipliers).
  Eigen::MatrixXd R = G;
  Eigen::VectorXd jt(k);
  for (int s = 0; s < S && m > 0; ++s) {
    const Eigen::VectorXd n_s = N.col(s);
    TangentJacobianTransposeMultiply(n_s.data(), jt.data());
    R.col(s) += jt;
  }
  const Eigen::MatrixXd unmasked = R;
  for (int i = 0; i < static_cast<int>(active.bound.size()); ++i) {
    if (active.bound[i] != 0) R.row(i).setZero();
  }
  R *= stationarity_weight;
  Eigen::VectorXd c(S);
  for (int s = 0; s < S; ++s) {
    c[s] = comp_scale[s] * (rho_ - lambda_[s] * f_[s]);
  }
  KktMultipliers result;
  Eigen::VectorXd rw;
  BestOmega(R, 1.0, c, &rw, &result.omega);
  result.nu = N * result.omega;
  if (lower_.size() > 0) {
    const Eigen::VectorXd r = unmasked * result.omega;
    result.bound_lower = Eigen::VectorXd::Zero(k);
    result.bound_upper = Eigen::VectorXd::Zero(k);
    for (int i = 0; i < k; ++i) {
      if (active.bound[i] < 0) result.bound_lower[i] = std::max(0.0, r[i]);
      if (active.bound[i] > 0) result.bound_upper[i] = std::max(0.0, -r[i]);
    }
  }
  return result;
}

KktMultipliers KktSystem::MinimizeOverConstrainedMultipliers(
    const Eigen::VectorXd& comp_scale, double stationarity_weight) const {
  const int k = static_cast<int>(z_.size());
  const int m = static_cast<int>(h_.size());
  const int q = m - p_;
  const bool bounded = lower_.size() > 0;
  KktMultipliers best;
  double best_value = std::numeric_limits<double>::infinity();
  auto consider = [&](KktMultipliers candidate) {
    for (int j = 0; j < p_; ++j) {
      candidate.nu[q + j] = std::max(0.0, candidate.nu[q + j]);
    }
    const double value =
        MultiplierObjective(candidate, comp_scale, stationarity_weight);
    if (value < best_value || best.omega.size() == 0) {
      best_value = value;
      best = std::move(candidate);
    }
  };
  // Slack thresholds of the starting active sets: none active, then the
  // constraints and bounds within 1e-10 .. 1e-4 (relative to the bound's
  // size for bounds) of being active. A starting set equal to one already
  // tried gives the same candidate and is skipped: with bounds and
  // inequalities far from active (the common case) all four coincide, and
  // each pass costs a least-squares solve over J_h.
  std::vector<ActiveSet> tried;
  tried.reserve(4);
  for (double threshold : {-1.0, 1e-10, 1e-7, 1e-4}) {
    ActiveSet active;
    active.inequality.assign(p_, 0);
    for (int j = 0; j < p_; ++j) {
      active.inequality[j] = -h_[q + j] <= threshold;
    }
    if (bounded) {
      active.bound.assign(k, 0);
      for (int i = 0; i < k; ++i) {
        const double dl = z_[i] - lower_[i];
        const double du = upper_[i] - z_[i];
        // An infinite bound is never active: its relative threshold would
        // be infinite too (inf <= inf), holding every unbounded side.
        const bool at_lower = std::isfinite(lower_[i]) &&
                              dl <= threshold * (1.0 + std::abs(lower_[i]));
        const bool at_upper = std::isfinite(upper_[i]) &&
                              du <= threshold * (1.0 + std::abs(upper_[i]));
        if (at_lower && (!at_upper || dl <= du)) {
          active.bound[i] = -1;
        } else if (at_upper) {
          active.bound[i] = 1;
        }
      }
    }
    if (std::any_of(tried.begin(), tried.end(), [&](const ActiveSet& t) {
          return t.inequality == active.inequality && t.bound == active.bound;
        })) {
      continue;
    }
    tried.push_back(active);
    KktMultipliers candidate;
    for (int pass = 0; pass < 6; ++pass) {
      candidate =
          MinimizeWithActiveSet(comp_scale, stationarity_weight, active);
      // Drop inequality rows with negative multipliers and bounds pushed
      // the wrong way, then solve again.
      bool changed = false;
      for (int j = 0; j < p_; ++j) {
        if (active.inequality[j] && candidate.nu[q + j] < 0.0) {
          active.inequality[j] = 0;
          changed = true;
        }
      }
      if (bounded && std::any_of(active.bound.begin(),
                                 active.bound.end(),
                                 [](signed char b) { return b != 0; })) {
        KktMultipliers free = candidate;
        free.bound_lower = Eigen::VectorXd::Zero(k);
        free.bound_upper = Eigen::VectorXd::Zero(k);
        const Eigen::VectorXd r = Residual(free).stationarity;
        for (int i = 0; i < k; ++i) {
          if ((active.bound[i] < 0 && r[i] < 0.0) ||
              (active.bound[i] > 0 && r[i] > 0.0)) {
            active.bound[i] = 0;
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
    consider(candidate);
  }
  // As in MinimizeOverMultipliers: never worse than dropping the
  // constraint multipliers.
  KktMultipliers dropped = best;
  dropped.nu = Eigen::VectorXd::Zero(m);
  dropped.bound_lower.resize(0);
  dropped.bound_upper.resize(0);
  CompleteBoundMultipliers(&dropped);
  consider(dropped);
  return best;
}

const KktMultipliers& KktSystem::RawLeastSquaresMultipliers() const {
  if (have_raw_least_squares_) return raw_least_squares_;
  Eigen::VectorXd& ones = comp_scale_scratch_;
  ones.setOnes(f_.size());
  if (p_ > 0 || lower_.size() > 0) {
    raw_least_squares_ = MinimizeOverConstrainedMultipliers(ones, 1.0);
  } else {
    MinimizeOverMultipliers(ones, 1.0, &raw_least_squares_);
  }
  have_raw_least_squares_ = true;
  return raw_least_squares_;
}

KktMultipliers KktSystem::LeastSquaresMultipliers() const {
  return RawLeastSquaresMultipliers();
}

double KktSystem::RelativeModelDecrease(double predicted) const {
  // A decrease below the rounding level of the weighted sum (1e3 machine
  // epsilon of its size as evaluated, before any offset) can neither be
  // realized nor observed: it counts as none. Without this a minimizer of
  // an objective evaluated to 1e-13 (an inner solve's precision, say)
  // failed the test on noise.
  const double rounding =
      1e3 * std::numeric_limits<double>::epsilon() *
      std::max(evaluated_scale_, ValueScale());
  const double real = predicted - rounding;
  const double d = ValueScale();
  if (!(real > 0.0)) return std::isnan(real) ? kInfinity() : 0.0;
  const double relative = d > 0.0 ? real / d : kInfinity();
  return std::isfinite(relative) ? relative : kInfinity();
}

double KktSystem::ValueScale() const {
  return ValueScaleOf(rho_, lambda_, f_);
}

KktMultipliers KktSystem::CertificateLeastSquaresMultipliers(
    double stationarity_floor) const {
  const int S = static_cast<int>(f_.size());
  if (have_scaled_least_squares_ && scaled_floor_ == stationarity_floor) {
    return scaled_least_squares_;
  }
  // T depends on omega and nu: take it at the raw answer, then once more
  // at the scaled one (one refinement settles it in practice). Each pass
  // writes its answer over the last one in scaled_least_squares_.
  const KktMultipliers* m = &RawLeastSquaresMultipliers();
  const double d = ValueScale();
  Eigen::VectorXd& comp_scale = comp_scale_scratch_;
  comp_scale.setConstant(S, d > 0.0 && std::isfinite(d) ? 1.0 / d : 1.0);
  have_scaled_least_squares_ = false;
  double previous_scale = std::numeric_limits<double>::quiet_NaN();
  for (int pass = 0; pass < 2; ++pass) {
    Residual(*m, &residual_scratch_);
    double scale =
        std::max(residual_scratch_.stationarity_scale, stationarity_floor);
    if (!(scale > 0.0) || !std::isfinite(scale)) scale = 1.0;
    // A scale within 1e-6 of the pass before gives the same answer to that
    // precision; skip the repeat. The multipliers are valid either way: the
    // scale only balances the blocks of the objective they minimize, and
    // the certificate is computed from them afterwards.
    if (std::abs(scale - previous_scale) <= 1e-6 * std::abs(previous_scale)) {
      break;
    }
    previous_scale = scale;
    if (p_ > 0 || lower_.size() > 0) {
      scaled_least_squares_ =
          MinimizeOverConstrainedMultipliers(comp_scale, 1.0 / scale);
    } else {
      MinimizeOverMultipliers(comp_scale, 1.0 / scale, &scaled_least_squares_);
    }
    m = &scaled_least_squares_;
  }
  if (m != &scaled_least_squares_) scaled_least_squares_ = *m;
  scaled_floor_ = stationarity_floor;
  have_scaled_least_squares_ = true;
  return scaled_least_squares_;
}

KktCertificate KktSystem::Certificate(const KktMultipliers& multipliers,
                                      double stationarity_floor) const {
  Residual(multipliers, &residual_scratch_);
  return Certificate(multipliers, stationarity_floor, residual_scratch_);
}

KktCertificate KktSystem::Certificate(const KktMultipliers& multipliers,
                                      double stationarity_floor,
                                      const KktResidual& residual) const {
  // A strategy's estimated residual may come without its scale.
  const KktResidual* scored = &residual;
  KktResidual with_scale;
  if (std::isnan(residual.stationarity_scale)) {
    with_scale = residual;
    with_scale.stationarity_scale = StationarityScale(
        grad_f_, lambda_, multipliers.omega, residual.stationarity);
    scored = &with_scale;
  }
  if (p_ == 0 && lower_.size() == 0) {
    return ComputeKktCertificate(rho_,
                                 lambda_,
                                 f_,
                                 multipliers.omega,
                                 *scored,
                                 stationarity_floor);
  }
  // Residual() completes missing bound multipliers the same way, so
  // `residual` is that of the completed multipliers.
  KktMultipliers completed = multipliers;
  CompleteBoundMultipliers(&completed);
  return ComputeKktCertificate(rho_,
                               lambda_,
                               f_,
                               completed,
                               h_,
                               p_,
                               z_,
                               lower_,
                               upper_,
                               *scored,
                               stationarity_floor);
}

bool KktSystem::HasGaussNewtonModel() const {
  return evaluator_ != nullptr && evaluator_->HasGaussNewtonMatrix() &&
         p_ == 0 && lower_.size() == 0;
}

bool KktSystem::HasNewtonModel() const {
  return evaluator_ != nullptr && !evaluator_->HasGaussNewtonMatrix() &&
         manifold_ == nullptr && p_ == 0 && lower_.size() == 0 &&
         z_.size() <= kMaxNewtonModelParameters &&
         (h_.size() == 0 || dense_jacobian_.size() > 0);
}

bool KktSystem::NewtonModelDecrease(const KktMultipliers& multipliers,
                                    double* decrease,
                                    std::string* error) const {
  const int k = static_cast<int>(z_.size());
  const int S = static_cast<int>(f_.size());
  const int q = static_cast<int>(h_.size());
  Eigen::VectorXd a(S);
  for (int s = 0; s < S; ++s) {
    a[s] = std::max(0.0, multipliers.omega[s]) * lambda_[s];
  }
  const Eigen::VectorXd b =
      q > 0 ? Eigen::VectorXd(multipliers.nu) : Eigen::VectorXd();
  // H column by column from Hessian products (exact where the evaluator
  // has them, gradient differences otherwise: accurate to about 1e-8
  // relative, far below what the test compares).
  Eigen::MatrixXd H(k, k);
  Eigen::VectorXd unit = Eigen::VectorXd::Zero(k);
  Eigen::VectorXd column(k);
  for (int i = 0; i < k; ++i) {
    unit[i] = 1.0;
    if (!evaluator_->LagrangianHessianMultiply(
            a.data(), q > 0 ? b.data() : nullptr, unit.data(), column.data(),
            error)) {
      return false;
    }
    unit[i] = 0.0;
    H.col(i) = column;
  }
  H = 0.5 * (H + H.transpose()).eval();
  // The null space of J_h (all of R^k without constraints).
  Eigen::MatrixXd Z;
  if (q > 0) {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(dense_jacobian_, Eigen::ComputeFullV);
    const Eigen::VectorXd& sv = svd.singularValues();
    const double cut = sv.size() > 0 ? 1e-10 * sv[0] : 0.0;
    int rank = 0;
    for (int i = 0; i < sv.size(); ++i) rank += sv[i] > cut ? 1 : 0;
    Z = svd.matrixV().rightCols(k - rank);
  } else {
    Z = Eigen::MatrixXd::Identity(k, k);
  }
  Residual(multipliers, &residual_scratch_);
  const Eigen::VectorXd rz = Z.transpose() * residual_scratch_.stationarity;
  const Eigen::MatrixXd HZ = Z.transpose() * H * Z;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(HZ);
  if (eigen.info() != Eigen::Success) {
    if (error != nullptr) *error = "eigendecomposition of the reduced Hessian";
    return false;
  }
  const Eigen::VectorXd& values = eigen.eigenvalues();
  const double largest =
      values.size() > 0 ? values.cwiseAbs().maxCoeff() : 0.0;
  // Curvatures below 1e-12 of the largest count as that floor (flat
  // directions are not infinite decrease); negative ones by their size
  // (the model's decrease along them is at least as large).
  const double floor = std::max(1e-12 * largest, 1e-300);
  const Eigen::VectorXd coefficients = eigen.eigenvectors().transpose() * rz;
  double predicted = 0.0;
  for (int i = 0; i < values.size(); ++i) {
    predicted +=
        0.5 * coefficients[i] * coefficients[i] /
        std::max(std::abs(values[i]), floor);
  }
  *decrease = RelativeModelDecrease(predicted);
  return true;
}

bool KktSystem::ModelDecrease(const KktMultipliers& multipliers,
                              double* decrease,
                              std::string* error) const {
  *decrease = std::numeric_limits<double>::quiet_NaN();
  const int S = static_cast<int>(f_.size());
  const int q = static_cast<int>(h_.size());
  if (multipliers.omega.size() != S ||
      (q > 0 && multipliers.nu.size() != q)) {
    if (error != nullptr) *error = "ModelDecrease: multiplier sizes";
    return false;
  }
  if (HasNewtonModel()) {
    const EvaluationCounts before = evaluator_->counts();
    const bool ok = NewtonModelDecrease(multipliers, decrease, error);
    evaluator_->CountCertificateModel(before);
    return ok;
  }
  if (!HasGaussNewtonModel()) {
    if (error != nullptr) *error = "no model at this point";
    return false;
  }
  const EvaluationCounts before = evaluator_->counts();
  const bool ok = GaussNewtonModelDecrease(multipliers, decrease, error);
  evaluator_->CountCertificateModel(before);
  return ok;
}

bool KktSystem::GaussNewtonModelDecrease(const KktMultipliers& multipliers,
                                         double* decrease,
                                         std::string* error) const {
  const int S = static_cast<int>(f_.size());
  const int q = static_cast<int>(h_.size());
  Eigen::VectorXd a(S);
  for (int s = 0; s < S; ++s) {
    a[s] = std::max(0.0, multipliers.omega[s]) * lambda_[s];
  }
  // The constraints' weight c: large against G (1e8 times its largest
  // diagonal entry over J_h^T J_h's), so that the model's minimizer stays
  // in the null space of J_h to about 1e-8 of its step; the stationarity
  // block r is already nearly orthogonal to range(J_h^T) at the
  // least-squares nu, so this weight does not distort the decrease along
  // the constraints.
  double c = 0.0;
  if (q > 0) {
    Eigen::SparseMatrix<double> jtj;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(S);
    if (!evaluator_->GaussNewtonMatrix(zero.data(), 1.0, &jtj, error)) {
      return false;
    }
    if (!evaluator_->GaussNewtonMatrix(a.data(), 0.0, &model_matrix_, error)) {
      return false;
    }
    const double g_diag = model_matrix_.diagonal().cwiseAbs().maxCoeff();
    const double j_diag = jtj.diagonal().cwiseAbs().maxCoeff();
    c = j_diag > 0.0 ? 1e8 * std::max(g_diag, 1e-300) / j_diag : 0.0;
  }
  if (!evaluator_->GaussNewtonMatrix(a.data(), c, &model_matrix_, error)) {
    return false;
  }
  // Residual() evaluates no function: the linearization stays at z.
  Residual(multipliers, &residual_scratch_);
  const Eigen::VectorXd& r = residual_scratch_.stationarity;
  if (r.size() != model_matrix_.rows()) {
    if (error != nullptr) *error = "ModelDecrease: Gauss-Newton matrix size";
    return false;
  }
  const double largest = model_matrix_.diagonal().cwiseAbs().maxCoeff();
  const Eigen::VectorXd shift =
      Eigen::VectorXd::Constant(r.size(), 1e-12 * std::max(largest, 1e-300));
  // Its own factorization, not the evaluator's: a strategy may still hold
  // a numeric factorization there that it reuses.
  if (model_ldlt_ == nullptr) {
    model_ldlt_ = std::make_shared<internal::SparseLdlt>();
  }
  if (!model_ldlt_->Factorize(model_matrix_, shift, error)) return false;
  const double predicted = 0.5 * r.dot(model_ldlt_->Solve(r));
  *decrease = RelativeModelDecrease(predicted);
  return true;
}

double KktCertificate::Ratio(double stationarity_tolerance,
                             double complementarity_tolerance,
                             double feasibility_tolerance,
                             double model_tolerance) const {
  const double optimality =
      std::isnan(model_decrease)
          ? std::max(simplex, stationarity) / stationarity_tolerance
          : std::max(simplex / stationarity_tolerance,
                     model_decrease / model_tolerance);
  const double r =
      std::max(optimality,
               std::max(complementarity / complementarity_tolerance,
                        feasibility / feasibility_tolerance));
  return std::isnan(r) ? std::numeric_limits<double>::infinity() : r;
}

namespace {

// Divides, with 0 / 0 = 0 (a block that is exactly zero at a point where
// its scale is zero is met) and x / 0 = inf otherwise.
double Relative(double x, double scale) {
  if (scale > 0.0) return x / scale;
  return x == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
}

}  // namespace

KktCertificate ComputeKktCertificate(double rho,
                                     const Eigen::VectorXd& lambda,
                                     const Eigen::VectorXd& f,
                                     const Eigen::VectorXd& omega,
                                     const KktResidual& residual,
                                     double stationarity_floor) {
  KktCertificate c;
  const int S = static_cast<int>(f.size());
  if (omega.size() != S || lambda.size() != S) return c;
  c.simplex = std::abs(omega.sum() - 1.0);
  const double d = ValueScaleOf(rho, lambda, f);
  c.value_scale = d;
  c.complementarity = 0.0;
  for (int s = 0; s < S; ++s) {
    const double slack = rho - lambda[s] * f[s];
    // min(omega, slack / D) with 0 / 0 = 0.
    const double scaled = d > 0.0 ? slack / d : (slack == 0.0 ? 0.0 : slack);
    c.complementarity =
        std::max(c.complementarity, std::abs(std::min(omega[s], scaled)));
  }
  const double scale =
      std::max(std::isnan(residual.stationarity_scale)
                   ? std::numeric_limits<double>::infinity()
                   : residual.stationarity_scale,
               std::max(stationarity_floor, 0.0));
  c.stationarity_scale = scale;
  c.stationarity =
      residual.stationarity.size() > 0
          ? Relative(residual.stationarity.cwiseAbs().maxCoeff(), scale)
          : (std::isnan(residual.kept_squared_norms.stationarity)
                 ? 0.0
                 : Relative(std::sqrt(residual.kept_squared_norms.stationarity),
                            scale));
  // Without the scale the block cannot be judged: not certified.
  if (std::isnan(residual.stationarity_scale)) {
    c.stationarity = std::numeric_limits<double>::infinity();
  }
  c.feasibility = residual.feasibility.size() > 0
                      ? residual.feasibility.cwiseAbs().maxCoeff()
                      : 0.0;
  if (!std::isfinite(c.stationarity)) {
    c.stationarity = std::numeric_limits<double>::infinity();
  }
  if (!std::isfinite(c.feasibility)) {
    c.feasibility = std::numeric_limits<double>::infinity();
  }
  if (!std::isfinite(c.complementarity) || !std::isfinite(c.simplex)) {
    c.complementarity = std::numeric_limits<double>::infinity();
  }
  return c;
}

KktCertificate ComputeKktCertificate(double rho,
                                     const Eigen::VectorXd& lambda,
                                     const Eigen::VectorXd& f,
                                     const KktMultipliers& multipliers,
                                     const Eigen::VectorXd& g,
                                     int num_inequalities,
                                     const Eigen::VectorXd& z,
                                     const Eigen::VectorXd& lower,
                                     const Eigen::VectorXd& upper,
                                     const KktResidual& residual,
                                     double stationarity_floor) {
  KktCertificate c = ComputeKktCertificate(
      rho, lambda, f, multipliers.omega, residual, stationarity_floor);
  const int S = static_cast<int>(f.size());
  if (multipliers.omega.size() != S) return c;
  // Multipliers of constraints and bounds in units of the weighted values.
  const double d = c.value_scale > 0.0 ? c.value_scale : 1.0;
  const int m = static_cast<int>(g.size());
  const int q = m - num_inequalities;
  double worst = c.feasibility;
  for (int j = 0; j < num_inequalities; ++j) {
    const double mu = multipliers.nu.size() == m ? multipliers.nu[q + j] : 0.0;
    worst = std::max(worst, std::abs(std::min(mu / d, -g[q + j])));
  }
  const int k = static_cast<int>(z.size());
  if (lower.size() == k && k > 0) {
    for (int i = 0; i < k; ++i) {
      const double a = multipliers.bound_lower.size() == k
                           ? multipliers.bound_lower[i]
                           : 0.0;
      const double b = multipliers.bound_upper.size() == k
                           ? multipliers.bound_upper[i]
                           : 0.0;
      worst = std::max(worst, std::abs(std::min(a / d, z[i] - lower[i])));
      worst = std::max(worst, std::abs(std::min(b / d, upper[i] - z[i])));
    }
  }
  c.feasibility =
      std::isfinite(worst) ? worst : std::numeric_limits<double>::infinity();
  return c;
}

const KktCertificate& KktReport::BestCertificate(
    double stationarity_tolerance,
    double complementarity_tolerance,
    double feasibility_tolerance,
    double model_tolerance) const {
  const KktCertificate& a = certificate_with_solver_multipliers;
  const KktCertificate& b = certificate_with_least_squares_multipliers;
  return a.Ratio(stationarity_tolerance,
                 complementarity_tolerance,
                 feasibility_tolerance,
                 model_tolerance) <= b.Ratio(stationarity_tolerance,
                                             complementarity_tolerance,
                                             feasibility_tolerance,
                                             model_tolerance)
             ? a
             : b;
}

const KktMultipliers& KktReport::BestMultipliers(
    double stationarity_tolerance,
    double complementarity_tolerance,
    double feasibility_tolerance,
    double model_tolerance) const {
  const KktCertificate& best = BestCertificate(stationarity_tolerance,
                                               complementarity_tolerance,
                                               feasibility_tolerance,
                                               model_tolerance);
  return &best == &certificate_with_solver_multipliers
             ? solver_multipliers
             : scaled_least_squares_multipliers;
}

void AddModelDecrease(const KktSystem& system,
                      const KktMultipliers& multipliers,
                      const CertificateRequest& request,
                      KktCertificate* certificate) {
  KktCertificate& c = *certificate;
  if (!(c.simplex <= request.stationarity_tolerance &&
        c.complementarity <= request.complementarity_tolerance &&
        c.feasibility <= request.feasibility_tolerance)) {
    return;
  }
  if (!system.HasGaussNewtonModel() &&
      !(system.HasNewtonModel() &&
        !(c.stationarity <= request.stationarity_tolerance))) {
    return;
  }
  double decrease;
  std::string error;
  // A model that cannot be formed (e.g. a failed factorization) certifies
  // nothing: the block is infinite, not absent.
  c.model_decrease = system.ModelDecrease(multipliers, &decrease, &error)
                         ? decrease
                         : std::numeric_limits<double>::infinity();
}

bool ComputeKktReport(Evaluator* evaluator,
                      const Eigen::VectorXd& lambda,
                      const Eigen::VectorXd& offset,
                      double rho,
                      const Eigen::VectorXd& z,
                      const KktMultipliers& solver_multipliers,
                      KktReport* report,
                      std::string* error,
                      const CertificateRequest* certificate) {
  // The evaluator's kept system: its storage serves every point a worker
  // scores (see Evaluator::kkt_workspace).
  KktSystem& system = evaluator->workspace()->certification;
  if (!system.Linearize(evaluator, lambda, offset, rho, z, error)) {
    return false;
  }
  return ComputeKktReport(
      system, solver_multipliers, report, error, certificate);
}

bool ComputeKktReport(const KktSystem& system,
                      const KktMultipliers& solver_multipliers,
                      KktReport* report,
                      std::string* error,
                      const CertificateRequest* certificate) {
  const int S = static_cast<int>(system.f().size());
  const int q = static_cast<int>(system.h().size());
  const int k = static_cast<int>(system.z().size());
  auto bad_bound_size = [k](const Eigen::VectorXd& v) {
    return v.size() != 0 && v.size() != k;
  };
  if (solver_multipliers.omega.size() != S ||
      solver_multipliers.nu.size() != q ||
      bad_bound_size(solver_multipliers.bound_lower) ||
      bad_bound_size(solver_multipliers.bound_upper)) {
    if (error != nullptr) {
      std::ostringstream os;
      os << "ComputeKktReport: multipliers have sizes (omega "
         << solver_multipliers.omega.size() << ", nu "
         << solver_multipliers.nu.size() << ", bounds "
         << solver_multipliers.bound_lower.size() << "/"
         << solver_multipliers.bound_upper.size() << "), expected (" << S
         << ", " << q << ", " << k << " or 0).";
      *error = os.str();
    }
    return false;
  }
  report->solver_multipliers = solver_multipliers;
  system.CompleteBoundMultipliers(&report->solver_multipliers);
  system.Residual(report->solver_multipliers, &report->with_solver_multipliers);
  report->least_squares_multipliers = system.LeastSquaresMultipliers();
  system.Residual(report->least_squares_multipliers,
                  &report->with_least_squares_multipliers);
  report->has_certificates = certificate != nullptr;
  if (certificate == nullptr) return true;
  const double floor = certificate->stationarity_floor;
  report->stationarity_floor = floor;
  KktCertificate& a = report->certificate_with_solver_multipliers;
  KktCertificate& b = report->certificate_with_least_squares_multipliers;
  a = system.Certificate(
      report->solver_multipliers, floor, report->with_solver_multipliers);
  report->scaled_least_squares_multipliers =
      system.CertificateLeastSquaresMultipliers(floor);
  b = system.Certificate(report->scaled_least_squares_multipliers, floor);
  if (certificate->model) {
    // The solver's multipliers first; the least-squares ones' model only
    // when the first is not certified (each model costs a Gauss-Newton
    // matrix and a factorization, or k Hessian products).
    AddModelDecrease(system, report->solver_multipliers, *certificate, &a);
    const auto certified = [&](const KktCertificate& c) {
      return c.Certifies(certificate->stationarity_tolerance,
                         certificate->complementarity_tolerance,
                         certificate->feasibility_tolerance,
                         certificate->model_tolerance);
    };
    if (!certified(a)) {
      AddModelDecrease(
          system, report->scaled_least_squares_multipliers, *certificate, &b);
    }
  }
  return true;
}

}  // namespace ecmo
