// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).

#include "ecmo/second_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Dense"

namespace ecmo {
namespace {

// A multiplier term below this fraction of the Lagrangian gradient's
// largest term is zero: its constraint is weakly active.
constexpr double kNegligibleMultiplier = 1e-8;
// An objective counts as active when its slack is at most this fraction of
// the weighted values (looser than the certificate's complementarity, so
// that a weakly active objective is not missed).
constexpr double kActiveSlack = 1e-6;

// A constraint the direction must not violate to first order:
// row . d <= 0 (coordinates of the free parameters).
struct WeakRow {
  Eigen::VectorXd row;
};

// What the analysis works on: the free parameters (those no strongly active
// bound fixes), the Lagrangian's weights, and the Hessian products.
class ReducedHessian {
 public:
  ReducedHessian(Evaluator* evaluator,
                 const Eigen::VectorXd& a,
                 const Eigen::VectorXd& nu,
                 const std::vector<int>& free)
      : evaluator_(evaluator),
        a_(a),
        nu_(nu),
        free_(free),
        full_x_(evaluator->NumParameters()),
        full_out_(evaluator->NumParameters()) {}

  int size() const { return static_cast<int>(free_.size()); }
  int products() const { return products_; }

  // out = (grad^2 L x) restricted to the free parameters, x on them.
  bool Multiply(const Eigen::VectorXd& x,
                Eigen::VectorXd* out,
                std::string* error) {
    full_x_.setZero();
    for (int i = 0; i < size(); ++i) full_x_[free_[i]] = x[i];
    ++products_;
    if (!evaluator_->LagrangianHessianMultiply(a_.data(),
                                               nu_.size() > 0 ? nu_.data()
                                                              : nullptr,
                                               full_x_.data(),
                                               full_out_.data(),
                                               error)) {
      return false;
    }
    out->resize(size());
    for (int i = 0; i < size(); ++i) (*out)[i] = full_out_[free_[i]];
    return out->allFinite();
  }

  Eigen::VectorXd Embed(const Eigen::VectorXd& x) const {
    Eigen::VectorXd full = Eigen::VectorXd::Zero(evaluator_->NumParameters());
    for (int i = 0; i < size(); ++i) full[free_[i]] = x[i];
    return full;
  }

 private:
  Evaluator* evaluator_;
  const Eigen::VectorXd& a_;
  const Eigen::VectorXd& nu_;
  const std::vector<int>& free_;
  Eigen::VectorXd full_x_, full_out_;
  int products_ = 0;
};

// The smallest eigenpair (and largest |eigenvalue|) of a symmetric matrix.
void SmallestEigenpair(const Eigen::MatrixXd& m,
                       double* smallest,
                       double* largest_abs,
                       Eigen::VectorXd* vector) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  *smallest = eig.eigenvalues()[0];
  *largest_abs = eig.eigenvalues().cwiseAbs().maxCoeff();
  *vector = eig.eigenvectors().col(0);
}

// The smallest eigenpair of Z^T H Z, Z an orthonormal basis of the null
// space of the rows `equalities` (free coordinates), densely or by
// Lanczos; false when a product fails. *dimension = columns of Z (0: no
// direction, *smallest = +inf); *rows_rank = the rank of the rows. With
// stop_if_dependent, rows of lower rank than their count end it before
// any product.
bool SmallestOnSubspace(const SecondOrderOptions& options,
                        const Eigen::MatrixXd& equalities,
                        ReducedHessian* hessian,
                        double* smallest,
                        double* largest_abs,
                        Eigen::VectorXd* direction,
                        int* dimension,
                        int* rows_rank,
                        bool* lanczos,
                        bool stop_if_dependent,
                        std::string* error) {
  const int n_free = hessian->size();
  // Orthonormal basis of the rows' span: the first `rank` columns of Q in
  // the QR factorization of their transpose.
  Eigen::MatrixXd range_basis(n_free, 0);
  Eigen::MatrixXd full_q;
  int rank = 0;
  if (equalities.rows() > 0) {
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(equalities.transpose());
    qr.setThreshold(1e-10);
    rank = static_cast<int>(qr.rank());
    full_q = qr.householderQ();
    range_basis = full_q.leftCols(rank);
  }
  const int n = n_free - rank;
  *dimension = n;
  *rows_rank = rank;
  *lanczos = false;
  if (stop_if_dependent && rank < equalities.rows()) return true;
  if (n == 0) {
    *smallest = std::numeric_limits<double>::infinity();
    *largest_abs = 0.0;
    direction->setZero(n_free);
    return true;
  }
  auto project = [&](Eigen::VectorXd* v) {
    if (rank > 0) *v -= range_basis * (range_basis.transpose() * *v);
  };
  Eigen::VectorXd product;
  if (n <= options.max_dense_dimension) {
    const Eigen::MatrixXd basis =
        rank > 0 ? Eigen::MatrixXd(full_q.rightCols(n))
                 : Eigen::MatrixXd(Eigen::MatrixXd::Identity(n_free, n_free));
    Eigen::MatrixXd hz(n_free, n);
    for (int j = 0; j < n; ++j) {
      if (!hessian->Multiply(basis.col(j), &product, error)) return false;
      hz.col(j) = product;
    }
    Eigen::MatrixXd reduced = basis.transpose() * hz;
    reduced = 0.5 * (reduced + reduced.transpose()).eval();
    Eigen::VectorXd y;
    SmallestEigenpair(reduced, smallest, largest_abs, &y);
    *direction = basis * y;
    return true;
  }
  // Lanczos with full reorthogonalization, from a fixed start (the same
  // answer on every run).
  *lanczos = true;
  const int steps = std::min(n, options.max_lanczos_iterations);
  Eigen::MatrixXd v(n_free, steps);
  Eigen::VectorXd alpha(steps), beta(steps);
  Eigen::VectorXd w(n_free);
  for (int i = 0; i < n_free; ++i) w[i] = std::sin(1.0 + 7.0 * i) + 0.1;
  project(&w);
  int used = 0;
  double norm = w.norm();
  for (int j = 0; j < steps && norm > 0.0; ++j) {
    v.col(j) = w / norm;
    if (!hessian->Multiply(v.col(j), &product, error)) return false;
    project(&product);
    alpha[j] = v.col(j).dot(product);
    w = product;
    for (int pass = 0; pass < 2; ++pass) {
      w -= v.leftCols(j + 1) * (v.leftCols(j + 1).transpose() * w);
      project(&w);
    }
    used = j + 1;
    norm = w.norm();
    beta[j] = norm;
    // The Krylov space is invariant: its Ritz values are eigenvalues.
    if (norm <= 1e-12 * (std::abs(alpha[j]) + (j > 0 ? beta[j - 1] : 0.0))) {
      break;
    }
  }
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(used, used);
  for (int j = 0; j < used; ++j) {
    t(j, j) = alpha[j];
    if (j + 1 < used) t(j, j + 1) = t(j + 1, j) = beta[j];
  }
  Eigen::VectorXd y;
  SmallestEigenpair(t, smallest, largest_abs, &y);
  *direction = v.leftCols(used) * y;
  return true;
}

}  // namespace

bool AnalyzeSecondOrder(const SecondOrderOptions& options,
                        Evaluator* evaluator,
                        const Eigen::VectorXd& lambda,
                        const Eigen::VectorXd& offset,
                        double rho,
                        const Eigen::VectorXd& z,
                        const KktMultipliers& multipliers,
                        SecondOrderReport* report,
                        std::string* error) {
  *report = SecondOrderReport();
  if (evaluator == nullptr) {
    *error = "AnalyzeSecondOrder: null evaluator";
    return false;
  }
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int m = evaluator->NumConstraints();
  const int p = evaluator->NumInequalityConstraints();
  const int q = m - p;
  if (lambda.size() != S || offset.size() != S || z.size() != k) {
    *error = "AnalyzeSecondOrder: lambda and offset need size S = " +
             std::to_string(S) + " and z size k = " + std::to_string(k);
    return false;
  }
  if (evaluator->manifold() != nullptr) {
    report->not_computed_reason =
        "the parameters live on a manifold (the test would need the "
        "curvature of its retraction)";
    return true;
  }
  Eigen::VectorXd f(S), c(m);
  Eigen::MatrixXd grad(k, S);
  if (!evaluator->Evaluate(z.data(), f.data(), c.data(), grad.data(), error)) {
    return false;
  }
  auto sized = [](const Eigen::VectorXd& v, int size) {
    return v.size() == size ? v : Eigen::VectorXd(Eigen::VectorXd::Zero(size));
  };
  const Eigen::VectorXd omega = sized(multipliers.omega, S);
  const Eigen::VectorXd nu = sized(multipliers.nu, m);
  const Eigen::VectorXd bound_lower = sized(multipliers.bound_lower, k);
  const Eigen::VectorXd bound_upper = sized(multipliers.bound_upper, k);

  // The weighted gradients, the constraint gradients (rows), and the
  // Lagrangian gradient's largest term.
  Eigen::MatrixXd weighted = grad * lambda.asDiagonal();
  Eigen::MatrixXd jacobian(m, k);
  Eigen::VectorXd unit = Eigen::VectorXd::Zero(m), row(k);
  for (int i = 0; i < m; ++i) {
    unit[i] = 1.0;
    evaluator->JacobianTransposeMultiply(unit.data(), row.data());
    jacobian.row(i) = row.transpose();
    unit[i] = 0.0;
  }
  double gradient_scale = 0.0;
  for (int s = 0; s < S; ++s) {
    gradient_scale = std::max(
        gradient_scale, omega[s] * weighted.col(s).lpNorm<Eigen::Infinity>());
  }
  if (m > 0) {
    gradient_scale =
        std::max(gradient_scale,
                 (jacobian.transpose() * nu).lpNorm<Eigen::Infinity>());
  }
  auto strong = [&](double term) {
    return gradient_scale > 0.0 ? term > kNegligibleMultiplier * gradient_scale
                                : term > 0.0;
  };

  // Strongly active bounds fix their parameters; weakly active ones allow
  // the inward direction only.
  const bool bounded = evaluator->HasBounds();
  std::vector<int> free;
  std::vector<int> weak_lower, weak_upper;
  for (int i = 0; i < k; ++i) {
    bool fixed = false;
    if (bounded) {
      const double l = evaluator->lower_bounds()[i];
      const double u = evaluator->upper_bounds()[i];
      const bool at_lower = z[i] <= l;
      const bool at_upper = z[i] >= u;
      fixed = (at_lower && strong(bound_lower[i])) ||
              (at_upper && strong(bound_upper[i])) || (at_lower && at_upper);
      if (!fixed && at_lower) weak_lower.push_back(i);
      if (!fixed && at_upper) weak_upper.push_back(i);
    }
    if (!fixed) free.push_back(i);
  }
  const int n_free = static_cast<int>(free.size());
  auto restrict_to_free = [&](const Eigen::VectorXd& full) {
    Eigen::VectorXd out(n_free);
    for (int i = 0; i < n_free; ++i) out[i] = full[free[i]];
    return out;
  };

  // The objectives: the strongly active ones move together with rho (rows
  // lambda_s grad f_s - lambda_s0 grad f_s0), weakly active ones may only
  // fall behind rho.
  double weighted_values = std::abs(rho);
  for (int s = 0; s < S; ++s) {
    weighted_values =
        std::max(weighted_values, std::abs(lambda[s] * (f[s] + offset[s])));
  }
  std::vector<int> strong_objectives, weak_objectives;
  int reference = 0;
  for (int s = 0; s < S; ++s) {
    if (omega[s] > omega[reference]) reference = s;
    const double slack = rho - lambda[s] * (f[s] + offset[s]);
    if (omega[s] > kNegligibleMultiplier) {
      strong_objectives.push_back(s);
    } else if (slack <= kActiveSlack * weighted_values) {
      weak_objectives.push_back(s);
    }
  }
  std::vector<Eigen::VectorXd> equalities;
  std::vector<WeakRow> weak;
  for (int s : strong_objectives) {
    if (s == reference) continue;
    equalities.push_back(
        restrict_to_free(weighted.col(s) - weighted.col(reference)));
  }
  for (int s : weak_objectives) {
    weak.push_back({restrict_to_free(weighted.col(s) - weighted.col(reference))});
  }
  for (int i = 0; i < q; ++i) {
    equalities.push_back(restrict_to_free(jacobian.row(i).transpose()));
  }
  for (int j = q; j < m; ++j) {
    const Eigen::VectorXd gradient = jacobian.row(j).transpose();
    const double size = gradient.lpNorm<Eigen::Infinity>();
    const bool active =
        nu[j] > 0.0 ||
        c[j] >= -1e-8 * (1.0 + size * z.lpNorm<Eigen::Infinity>());
    if (!active) continue;
    if (strong(nu[j] * size)) {
      equalities.push_back(restrict_to_free(gradient));
    } else {
      weak.push_back({restrict_to_free(gradient)});
    }
  }
  auto free_index = [&](int i) {
    return static_cast<int>(std::lower_bound(free.begin(), free.end(), i) -
                            free.begin());
  };
  for (int i : weak_lower) {
    Eigen::VectorXd r = Eigen::VectorXd::Zero(n_free);
    r[free_index(i)] = -1.0;
    weak.push_back({r});
  }
  for (int i : weak_upper) {
    Eigen::VectorXd r = Eigen::VectorXd::Zero(n_free);
    r[free_index(i)] = 1.0;
    weak.push_back({r});
  }
  report->num_weakly_active = static_cast<int>(weak.size());

  const Eigen::VectorXd a = omega.cwiseProduct(lambda);
  ReducedHessian hessian(evaluator, a, nu, free);
  const double noise_scale =
      gradient_scale / (1.0 + z.lpNorm<Eigen::Infinity>());
  report->computed = true;
  for (bool first = true;; first = false) {
    Eigen::MatrixXd rows(equalities.size(), n_free);
    for (size_t r = 0; r < equalities.size(); ++r) {
      rows.row(r) = equalities[r].transpose();
    }
    double smallest = 0.0, largest_abs = 0.0;
    Eigen::VectorXd direction;
    int dimension = 0, rank = 0;
    bool lanczos = false;
    if (n_free > 0 && !SmallestOnSubspace(options,
                                          rows,
                                          &hessian,
                                          &smallest,
                                          &largest_abs,
                                          &direction,
                                          &dimension,
                                          &rank,
                                          &lanczos,
                                          /*stop_if_dependent=*/first,
                                          error)) {
      *error = "second-order test: " + *error;
      report->hessian_products = hessian.products();
      return false;
    }
    // Second-order conditions need unique multipliers: with dependent
    // active gradients (a constraint whose gradient vanishes at the point,
    // such as h = y^3 at y = 0) the multiplier estimates are arbitrary and
    // so is the curvature of the Lagrangian they weight.
    if (first && n_free > 0 && rank < rows.rows()) {
      report->computed = false;
      report->hessian_products = hessian.products();
      report->not_computed_reason =
          "the active constraints' gradients are linearly dependent at the "
          "point (" + std::to_string(rows.rows()) + " of rank " +
          std::to_string(rank) +
          ": LICQ fails), so the multipliers, and the curvature of the "
          "Lagrangian they weight, are not unique";
      return true;
    }
    if (n_free == 0) smallest = std::numeric_limits<double>::infinity();
    if (first) report->cone_span_dimension = dimension;
    report->reduced_dimension = dimension;
    report->lanczos = lanczos;
    report->hessian_products = hessian.products();
    report->min_eigenvalue = smallest;
    report->curvature_scale = std::max(largest_abs, noise_scale);
    if (dimension == 0 ||
        !(smallest <
          -options.negative_curvature_tolerance * report->curvature_scale)) {
      return true;
    }
    // Which sign of the eigenvector crosses fewer weakly active
    // constraints; a crossed constraint is held at equality and the span
    // analyzed again.
    direction.normalize();
    std::vector<size_t> crossed[2];
    for (size_t w = 0; w < weak.size(); ++w) {
      const double along = weak[w].row.dot(direction);
      const double level = 1e-8 * weak[w].row.norm();
      if (along > level) crossed[0].push_back(w);
      if (-along > level) crossed[1].push_back(w);
    }
    const int sign = crossed[1].size() < crossed[0].size() ? 1 : 0;
    if (crossed[sign].empty()) {
      report->saddle = true;
      report->direction = hessian.Embed(sign == 1 ? -direction : direction);
      report->direction.normalize();
      return true;
    }
    // Held constraints leave the weak list (from the back, so that the
    // indices stay valid).
    for (auto it = crossed[sign].rbegin(); it != crossed[sign].rend(); ++it) {
      equalities.push_back(weak[*it].row);
      weak.erase(weak.begin() + static_cast<std::ptrdiff_t>(*it));
      ++report->num_weakly_active_held;
    }
  }
}

}  // namespace ecmo
