// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the WC subproblem as an Ipopt TNLP (used by the
// Ipopt reference, ipopt_reference.cc). See ecmo/ipopt_reference.h for the
// formulation and the multiplier convention.

#ifndef ECMO_ADAPTERS_IPOPT_TNLP_H_
#define ECMO_ADAPTERS_IPOPT_TNLP_H_

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SparseCore"
#include "IpTNLP.hpp"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"

namespace ecmo {
namespace internal {

// Ipopt treats any bound of magnitude >= 1e19 (its default
// nlp_lower_bound_inf / nlp_upper_bound_inf) as infinite.
constexpr double kIpoptInfinity = 2e19;

// A bound of z as Ipopt receives it: +-inf (unbounded) becomes
// +-kIpoptInfinity, finite values pass unchanged.
inline double IpoptBound(double bound) {
  if (std::isfinite(bound)) return bound;
  return bound > 0.0 ? kIpoptInfinity : -kIpoptInfinity;
}

// The WC problem as an Ipopt TNLP over w = (rho, z). See the header for the
// formulation and the multiplier convention.
class WcTnlp : public Ipopt::TNLP {
 public:
  WcTnlp(Evaluator* evaluator,
         const Eigen::VectorXd& lambda,
         const Eigen::VectorXd& offset)
      : evaluator_(evaluator),
        problem_evaluator_(dynamic_cast<ProblemEvaluator*>(evaluator)),
        k_(evaluator->NumParameters()),
        S_(evaluator->NumObjectives()),
        q_(evaluator->NumConstraints()),
        p_(evaluator->NumInequalityConstraints()),
        lambda_(lambda),
        offset_(offset),
        f_(S_),
        h_(q_),
        grad_f_(k_, S_) {}

  // How eval_h computes the Hessian of the Lagrangian (resolved by the
  // caller; see IpoptReference::HessianType).
  enum class HessianMode { LIMITED_MEMORY, GAUSS_NEWTON, EXACT };

  // A block of z that must keep its squared norm (a Ceres quaternion or
  // sphere manifold): the equality ||z_b||^2 - squared_norm = 0.
  struct NormConstraint {
    int offset = 0;
    int size = 0;
    double squared_norm = 1.0;
  };

  // Must be called before Setup.
  void set_hessian_mode(HessianMode mode) { hessian_mode_ = mode; }
  void set_norm_constraints(std::vector<NormConstraint> norms) {
    norms_ = std::move(norms);
  }
  int num_hessian_products() const { return num_hessian_products_; }
  int num_colors() const { return num_colors_; }
  int hessian_nonzeros() const { return static_cast<int>(hess_rows_.size()); }

  // Evaluates at z0 (with gradients), fixes the Jacobian sparsity and sets
  // the start point (rho is set by set_start_rho). warm_start->nu has size
  // m (equalities, then inequalities). Returns false with the evaluator's
  // message on failure.
  bool Setup(const Eigen::VectorXd& z0,
             const KktMultipliers* warm_start,
             std::string* error) {
    start_x_.resize(1 + k_);
    start_x_[0] = 0.0;
    for (int j = 0; j < k_; ++j) start_x_[1 + j] = z0[j];
    if (warm_start != nullptr) {
      warm_start_ = true;
      start_lambda_.assign(S_ + q_ + norms_.size(), 0.0);
      for (int s = 0; s < S_; ++s) start_lambda_[s] = warm_start->omega[s];
      for (int i = 0; i < q_; ++i) start_lambda_[S_ + i] = warm_start->nu[i];
    }
    if (!evaluator_->Evaluate(
            z0.data(), f_.data(), h_.data(), grad_f_.data(), error)) {
      return false;
    }
    BuildJacobianStructure();
    if (!FillJacobianValues(error)) return false;
    cached_z_ = z0;
    values_valid_ = gradient_valid_ = true;
    return BuildHessianStructure(error);
  }

  void set_start_rho(double rho0) { start_x_[0] = rho0; }

  // Result access, after OptimizeTNLP.
  bool has_solution() const { return has_solution_; }
  const std::vector<double>& solution_x() const { return solution_x_; }
  const std::vector<double>& solution_lambda() const {
    return solution_lambda_;
  }
  // Ipopt's z_L and z_U over z (size k; rho's entries dropped).
  const std::vector<double>& solution_z_lower() const {
    return solution_z_lower_;
  }
  const std::vector<double>& solution_z_upper() const {
    return solution_z_upper_;
  }
  int iterations() const { return iterations_; }
  const std::string& last_error() const { return last_error_; }

  // The cached F(z) and h(z) if the cache holds exactly z.
  bool CachedValues(const Eigen::VectorXd& z,
                    Eigen::VectorXd* f,
                    Eigen::VectorXd* h) const {
    if (!values_valid_ || cached_z_.size() != z.size() || cached_z_ != z) {
      return false;
    }
    *f = f_;
    *h = h_;
    return true;
  }

  // ---- Ipopt::TNLP ----
  bool get_nlp_info(Ipopt::Index& n,
                    Ipopt::Index& m,
                    Ipopt::Index& nnz_jac_g,
                    Ipopt::Index& nnz_h_lag,
                    IndexStyleEnum& index_style) override {
    n = 1 + k_;
    m = S_ + q_ + static_cast<int>(norms_.size());
    int norm_entries = 0;
    for (const NormConstraint& norm : norms_) norm_entries += norm.size;
    nnz_jac_g = S_ * (1 + k_) + static_cast<int>(h_rows_.size()) + norm_entries;
    // L-BFGS: 0, and eval_h is never called.
    nnz_h_lag = hessian_mode_ == HessianMode::LIMITED_MEMORY
                    ? 0
                    : static_cast<int>(hess_rows_.size()) + norm_entries;
    index_style = C_STYLE;
    return true;
  }

  bool get_bounds_info(Ipopt::Index n,
                       Ipopt::Number* x_l,
                       Ipopt::Number* x_u,
                       Ipopt::Index m,
                       Ipopt::Number* g_l,
                       Ipopt::Number* g_u) override {
    for (int j = 0; j < n; ++j) {
      x_l[j] = -kIpoptInfinity;
      x_u[j] = kIpoptInfinity;
    }
    // z's bounds (rho, x[0], stays free).
    if (evaluator_->HasBounds()) {
      const Eigen::VectorXd& lower = evaluator_->lower_bounds();
      const Eigen::VectorXd& upper = evaluator_->upper_bounds();
      for (int j = 0; j < k_; ++j) {
        x_l[1 + j] = IpoptBound(lower[j]);
        x_u[1 + j] = IpoptBound(upper[j]);
      }
    }
    // Rows: the S Chebyshev rows and the p inequality rows c <= 0 as
    // g <= 0; the equality rows of h and the norm rows as g = 0.
    for (int i = 0; i < m; ++i) g_l[i] = g_u[i] = 0.0;
    for (int s = 0; s < S_; ++s) g_l[s] = -kIpoptInfinity;
    for (int i = q_ - p_; i < q_; ++i) g_l[S_ + i] = -kIpoptInfinity;
    return true;
  }

  bool get_starting_point(Ipopt::Index n,
                          bool init_x,
                          Ipopt::Number* x,
                          bool init_z,
                          Ipopt::Number* z_L,
                          Ipopt::Number* z_U,
                          Ipopt::Index m,
                          bool init_lambda,
                          Ipopt::Number* lambda) override {
    if (init_x) std::copy(start_x_.begin(), start_x_.end(), x);
    if (init_z) {
      // Only asked for with a warm start; Ipopt pushes these away from 0
      // by warm_start_mult_bound_push on bounded components and ignores
      // them on unbounded ones.
      std::fill(z_L, z_L + n, 0.0);
      std::fill(z_U, z_U + n, 0.0);
    }
    if (init_lambda) {
      if (warm_start_) {
        std::copy(start_lambda_.begin(), start_lambda_.end(), lambda);
      } else {
        std::fill(lambda, lambda + m, 0.0);
      }
    }
    return true;
  }

  bool eval_f(Ipopt::Index /*n*/,
              const Ipopt::Number* x,
              bool /*new_x*/,
              Ipopt::Number& obj_value) override {
    obj_value = x[0];
    return true;
  }

  bool eval_grad_f(Ipopt::Index n,
                   const Ipopt::Number* /*x*/,
                   bool /*new_x*/,
                   Ipopt::Number* grad_f) override {
    std::fill(grad_f, grad_f + n, 0.0);
    grad_f[0] = 1.0;
    return true;
  }

  bool eval_g(Ipopt::Index /*n*/,
              const Ipopt::Number* x,
              bool new_x,
              Ipopt::Index /*m*/,
              Ipopt::Number* g) override {
    if (!EnsureEvaluated(x, new_x, /*need_gradient=*/false)) return false;
    for (int s = 0; s < S_; ++s) {
      g[s] = lambda_[s] * (f_[s] + offset_[s]) - x[0];
    }
    for (int i = 0; i < q_; ++i) g[S_ + i] = h_[i];
    for (size_t b = 0; b < norms_.size(); ++b) {
      const NormConstraint& norm = norms_[b];
      double squared = 0.0;
      for (int j = 0; j < norm.size; ++j) {
        squared += x[1 + norm.offset + j] * x[1 + norm.offset + j];
      }
      g[S_ + q_ + b] = squared - norm.squared_norm;
    }
    return true;
  }

  bool eval_jac_g(Ipopt::Index /*n*/,
                  const Ipopt::Number* x,
                  bool new_x,
                  Ipopt::Index /*m*/,
                  Ipopt::Index /*nele_jac*/,
                  Ipopt::Index* iRow,
                  Ipopt::Index* jCol,
                  Ipopt::Number* values) override {
    if (values == nullptr) {
      int e = 0;
      for (int s = 0; s < S_; ++s) {
        for (int j = 0; j <= k_; ++j, ++e) {
          iRow[e] = s;
          jCol[e] = j;
        }
      }
      for (size_t t = 0; t < h_rows_.size(); ++t, ++e) {
        iRow[e] = S_ + h_rows_[t];
        jCol[e] = 1 + h_cols_[t];
      }
      for (size_t b = 0; b < norms_.size(); ++b) {
        for (int j = 0; j < norms_[b].size; ++j, ++e) {
          iRow[e] = S_ + q_ + static_cast<int>(b);
          jCol[e] = 1 + norms_[b].offset + j;
        }
      }
      return true;
    }
    if (!EnsureEvaluated(x, new_x, /*need_gradient=*/true)) return false;
    int e = 0;
    for (int s = 0; s < S_; ++s) {
      values[e++] = -1.0;
      for (int j = 0; j < k_; ++j) values[e++] = lambda_[s] * grad_f_(j, s);
    }
    std::copy(h_values_.begin(), h_values_.end(), values + e);
    e += static_cast<int>(h_values_.size());
    for (const NormConstraint& norm : norms_) {
      for (int j = 0; j < norm.size; ++j) {
        values[e++] = 2.0 * x[1 + norm.offset + j];
      }
    }
    return true;
  }

  // The Hessian of Ipopt's Lagrangian: rho is linear, so only the z block,
  // sum_s lambda^ipopt_s lambda_s grad^2 f_s + sum_i nu_i grad^2 g_i (over
  // the m rows of g = (h, c): an inequality row enters like an equality,
  // its multiplier times its Hessian; bounds are linear), plus
  // 2 lambda^ipopt_b I on every norm-constrained block.
  bool eval_h(Ipopt::Index /*n*/,
              const Ipopt::Number* x,
              bool new_x,
              Ipopt::Number /*obj_factor*/,
              Ipopt::Index /*m*/,
              const Ipopt::Number* lambda,
              bool /*new_lambda*/,
              Ipopt::Index /*nele_hess*/,
              Ipopt::Index* iRow,
              Ipopt::Index* jCol,
              Ipopt::Number* values) override {
    if (hessian_mode_ == HessianMode::LIMITED_MEMORY) return false;
    const size_t nnz = hess_rows_.size();
    if (values == nullptr) {
      int e = 0;
      for (size_t t = 0; t < nnz; ++t, ++e) {
        iRow[e] = 1 + hess_rows_[t];
        jCol[e] = 1 + hess_cols_[t];
      }
      for (const NormConstraint& norm : norms_) {
        for (int j = 0; j < norm.size; ++j, ++e) {
          iRow[e] = jCol[e] = 1 + norm.offset + j;
        }
      }
      return true;
    }
    if (x == nullptr || lambda == nullptr) return false;
    if (!EnsureEvaluated(x, new_x, /*need_gradient=*/true)) return false;
    Eigen::VectorXd a(S_);
    for (int s = 0; s < S_; ++s) a[s] = lambda[s] * lambda_[s];
    std::string error;
    if (hessian_mode_ == HessianMode::GAUSS_NEWTON) {
      // Gauss-Newton needs a >= 0 (a positive semidefinite model); Ipopt's
      // inequality multipliers are >= 0 at a solution and only transiently
      // negative on the way.
      a = a.cwiseMax(0.0);
      if (!evaluator_->GaussNewtonMatrix(
              a.data(), 0.0, &gauss_newton_, &error) ||
          static_cast<size_t>(gauss_newton_.nonZeros()) != nnz) {
        last_error_ = error.empty() ? "The Gauss-Newton matrix changed its "
                                      "sparsity pattern between calls."
                                    : error;
        return false;
      }
      std::copy(
          gauss_newton_.valuePtr(), gauss_newton_.valuePtr() + nnz, values);
    } else {
      Eigen::VectorXd b(q_);
      for (int i = 0; i < q_; ++i) b[i] = lambda[S_ + i];
      Eigen::VectorXd direction(k_), product(k_);
      for (int color = 0; color < num_colors_; ++color) {
        direction.setZero();
        for (int t = color_start_[color]; t < color_start_[color + 1]; ++t) {
          direction[color_columns_[t]] = 1.0;
        }
        ++num_hessian_products_;
        if (!evaluator_->LagrangianHessianMultiply(
                a.data(), b.data(), direction.data(), product.data(), &error)) {
          last_error_ = error;
          return false;
        }
        // Every entry of these columns: no two columns of one color share
        // a row, so product[row] is exactly H(row, column).
        for (int t = color_start_[color]; t < color_start_[color + 1]; ++t) {
          const int column = color_columns_[t];
          for (int p = column_start_[column]; p < column_start_[column + 1];
               ++p) {
            values[p] = product[hess_rows_[p]];
          }
        }
      }
      for (size_t t = 0; t < nnz; ++t) {
        if (!std::isfinite(values[t])) {
          last_error_ = "The Hessian of the Lagrangian has a non-finite entry.";
          return false;
        }
      }
    }
    int e = static_cast<int>(nnz);
    for (size_t b = 0; b < norms_.size(); ++b) {
      for (int j = 0; j < norms_[b].size; ++j) {
        values[e++] = 2.0 * lambda[S_ + q_ + b];
      }
    }
    return true;
  }

  Ipopt::Index get_number_of_nonlinear_variables() override { return k_; }

  bool get_list_of_nonlinear_variables(Ipopt::Index num_nonlin_vars,
                                       Ipopt::Index* pos_nonlin_vars) override {
    // rho enters linearly; only z needs the quasi-Newton approximation.
    for (int j = 0; j < num_nonlin_vars; ++j) pos_nonlin_vars[j] = 1 + j;
    return true;
  }

  bool intermediate_callback(
      Ipopt::AlgorithmMode /*mode*/,
      Ipopt::Index iter,
      Ipopt::Number /*obj_value*/,
      Ipopt::Number /*inf_pr*/,
      Ipopt::Number /*inf_du*/,
      Ipopt::Number /*mu*/,
      Ipopt::Number /*d_norm*/,
      Ipopt::Number /*regularization_size*/,
      Ipopt::Number /*alpha_du*/,
      Ipopt::Number /*alpha_pr*/,
      Ipopt::Index /*ls_trials*/,
      const Ipopt::IpoptData* /*ip_data*/,
      Ipopt::IpoptCalculatedQuantities* /*ip_cq*/) override {
    iterations_ = iter;
    return true;
  }

  void finalize_solution(Ipopt::SolverReturn /*status*/,
                         Ipopt::Index n,
                         const Ipopt::Number* x,
                         const Ipopt::Number* z_L,
                         const Ipopt::Number* z_U,
                         Ipopt::Index m,
                         const Ipopt::Number* /*g*/,
                         const Ipopt::Number* lambda,
                         Ipopt::Number /*obj_value*/,
                         const Ipopt::IpoptData* /*ip_data*/,
                         Ipopt::IpoptCalculatedQuantities* /*ip_cq*/) override {
    if (x == nullptr || lambda == nullptr) return;
    solution_x_.assign(x, x + n);
    solution_lambda_.assign(lambda, lambda + m);
    // Ipopt's bound multipliers (>= 0, 0 on infinite bounds), without rho's.
    solution_z_lower_.assign(n - 1, 0.0);
    solution_z_upper_.assign(n - 1, 0.0);
    if (z_L != nullptr) std::copy(z_L + 1, z_L + n, solution_z_lower_.begin());
    if (z_U != nullptr) std::copy(z_U + 1, z_U + n, solution_z_upper_.begin());
    has_solution_ = true;
  }

 private:
  // The lower triangle (row >= column, in z indices) of the Hessian's
  // pattern, stored column by column: Gauss-Newton takes the evaluator's
  // Gauss-Newton pattern; EXACT takes the pattern of G with c = 1 (which
  // holds every pair of parameters that share a residual block, objective
  // or constraint, hence every nonzero of the exact Hessian) when the
  // evaluator has one and no manifold, else the dense lower triangle; it
  // then colors the columns so that no two columns of one color share a
  // row (a distance-2 coloring of the adjacency graph) and recovers the
  // Hessian from one product per color.
  bool BuildHessianStructure(std::string* error) {
    hess_rows_.clear();
    hess_cols_.clear();
    column_start_.assign(k_ + 1, 0);
    if (hessian_mode_ == HessianMode::LIMITED_MEMORY) return true;
    const bool use_gauss_newton_pattern =
        evaluator_->HasGaussNewtonMatrix() && evaluator_->manifold() == nullptr;
    if (use_gauss_newton_pattern) {
      const Eigen::VectorXd ones = Eigen::VectorXd::Ones(S_);
      const double c =
          hessian_mode_ == HessianMode::EXACT && q_ > 0 ? 1.0 : 0.0;
      if (!evaluator_->GaussNewtonMatrix(
              ones.data(), c, &gauss_newton_, error)) {
        return false;
      }
      if (gauss_newton_.rows() != k_ || gauss_newton_.cols() != k_) {
        *error = "The evaluator's Gauss-Newton matrix is not k x k.";
        return false;
      }
      for (int col = 0; col < k_; ++col) {
        column_start_[col] = static_cast<int>(hess_rows_.size());
        for (Eigen::SparseMatrix<double>::InnerIterator it(gauss_newton_, col);
             it;
             ++it) {
          if (it.row() < col) {
            *error =
                "The evaluator's Gauss-Newton matrix is not lower "
                "triangular.";
            return false;
          }
          hess_rows_.push_back(static_cast<int>(it.row()));
          hess_cols_.push_back(col);
        }
      }
    } else {
      if (hessian_mode_ == HessianMode::GAUSS_NEWTON) {
        *error = "The evaluator has no Gauss-Newton matrix.";
        return false;
      }
      for (int col = 0; col < k_; ++col) {
        column_start_[col] = static_cast<int>(hess_rows_.size());
        for (int row = col; row < k_; ++row) {
          hess_rows_.push_back(row);
          hess_cols_.push_back(col);
        }
      }
    }
    column_start_[k_] = static_cast<int>(hess_rows_.size());
    if (hessian_mode_ == HessianMode::EXACT) ColorColumns();
    return true;
  }

  // Greedy distance-2 coloring of the columns of the symmetric pattern.
  void ColorColumns() {
    // Full symmetric adjacency (both triangles) as lists per column.
    std::vector<std::vector<int>> adjacent(k_);
    for (size_t t = 0; t < hess_rows_.size(); ++t) {
      adjacent[hess_cols_[t]].push_back(hess_rows_[t]);
      if (hess_rows_[t] != hess_cols_[t]) {
        adjacent[hess_rows_[t]].push_back(hess_cols_[t]);
      }
    }
    std::vector<int> color(k_, -1);
    std::vector<int> forbidden_by(k_ + 1, -1);
    num_colors_ = 0;
    for (int j = 0; j < k_; ++j) {
      // Columns sharing a row with j: neighbours of j's rows.
      for (int row : adjacent[j]) {
        for (int other : adjacent[row]) {
          if (color[other] >= 0) forbidden_by[color[other]] = j;
        }
      }
      int c = 0;
      while (forbidden_by[c] == j) ++c;
      color[j] = c;
      num_colors_ = std::max(num_colors_, c + 1);
    }
    color_start_.assign(num_colors_ + 1, 0);
    for (int j = 0; j < k_; ++j) ++color_start_[color[j] + 1];
    for (int c = 0; c < num_colors_; ++c) {
      color_start_[c + 1] += color_start_[c];
    }
    color_columns_.assign(k_, 0);
    std::vector<int> next(color_start_.begin(), color_start_.end() - 1);
    for (int j = 0; j < k_; ++j) color_columns_[next[color[j]]++] = j;
  }

  // Fixes the sparsity of J_g (equality and inequality rows alike): the union
  // of the evaluator's Jacobian blocks (duplicates, e.g. a parameter block used
  // twice by one term, are merged), or dense q x k for a general evaluator.
  void BuildJacobianStructure() {
    h_rows_.clear();
    h_cols_.clear();
    block_targets_.clear();
    if (problem_evaluator_ != nullptr) {
      std::map<std::pair<int, int>, int> index;
      for (const ProblemEvaluator::JacobianBlock& block :
           problem_evaluator_->jacobian_blocks()) {
        for (int r = 0; r < block.rows; ++r) {
          for (int c = 0; c < block.cols; ++c) {
            const std::pair<int, int> key(block.residual_offset + r,
                                          block.parameter_offset + c);
            auto it = index.find(key);
            if (it == index.end()) {
              it = index.emplace(key, static_cast<int>(h_rows_.size())).first;
              h_rows_.push_back(key.first);
              h_cols_.push_back(key.second);
            }
            block_targets_.push_back(it->second);
          }
        }
      }
    } else {
      for (int i = 0; i < q_; ++i) {
        for (int j = 0; j < k_; ++j) {
          h_rows_.push_back(i);
          h_cols_.push_back(j);
        }
      }
    }
    h_values_.assign(h_rows_.size(), 0.0);
  }

  // Copies J_h at the last linearization point into h_values_.
  bool FillJacobianValues(std::string* error) {
    std::fill(h_values_.begin(), h_values_.end(), 0.0);
    if (problem_evaluator_ != nullptr) {
      size_t e = 0;
      for (const ProblemEvaluator::JacobianBlock& block :
           problem_evaluator_->jacobian_blocks()) {
        const size_t size = static_cast<size_t>(block.rows) * block.cols;
        if (block.values.size() != size || e + size > block_targets_.size()) {
          *error =
              "The evaluator's Jacobian block structure changed between "
              "evaluations.";
          return false;
        }
        for (size_t t = 0; t < size; ++t) {
          h_values_[block_targets_[e + t]] += block.values[t];
        }
        e += size;
      }
      if (e != block_targets_.size()) {
        *error =
            "The evaluator's Jacobian block structure changed between "
            "evaluations.";
        return false;
      }
    } else if (q_ > 0) {
      // Column j of J_h is J_h e_j.
      Eigen::VectorXd unit = Eigen::VectorXd::Zero(k_);
      Eigen::VectorXd column(q_);
      for (int j = 0; j < k_; ++j) {
        unit[j] = 1.0;
        evaluator_->JacobianMultiply(unit.data(), column.data());
        unit[j] = 0.0;
        for (int i = 0; i < q_; ++i) {
          h_values_[static_cast<size_t>(i) * k_ + j] = column[i];
        }
      }
    }
    for (double v : h_values_) {
      if (!std::isfinite(v)) {
        *error = "The constraint Jacobian has a non-finite entry.";
        return false;
      }
    }
    return true;
  }

  // Evaluates at z = x[1..k] unless the cache already holds it (with the
  // gradients if needed). Ipopt's new_x is honored and the point is also
  // compared, so a stale cache is never used.
  bool EnsureEvaluated(const Ipopt::Number* x, bool new_x, bool need_gradient) {
    const Eigen::Map<const Eigen::VectorXd> z(x + 1, k_);
    if (new_x || cached_z_.size() != k_ || cached_z_ != z) {
      values_valid_ = gradient_valid_ = false;
      cached_z_ = z;
    }
    if (need_gradient ? gradient_valid_ : values_valid_) return true;
    std::string error;
    bool ok = evaluator_->Evaluate(cached_z_.data(),
                                   f_.data(),
                                   h_.data(),
                                   need_gradient ? grad_f_.data() : nullptr,
                                   &error);
    if (ok && need_gradient) ok = FillJacobianValues(&error);
    if (!ok) {
      last_error_ = error;
      values_valid_ = gradient_valid_ = false;
      cached_z_.resize(0);
      return false;
    }
    values_valid_ = true;
    gradient_valid_ = need_gradient;
    return true;
  }

  Evaluator* evaluator_;
  ProblemEvaluator* problem_evaluator_;
  const int k_;
  const int S_;
  const int q_;  // m: rows of g = (h, c), equalities first
  const int p_;  // inequality rows, the last p of g
  const Eigen::VectorXd lambda_;
  const Eigen::VectorXd offset_;

  // Start point.
  std::vector<double> start_x_;
  bool warm_start_ = false;
  std::vector<double> start_lambda_;

  // J_h sparsity (row in h, column in z) and values; block_targets_ maps
  // every entry of every evaluator block to its position in h_values_.
  std::vector<int> h_rows_;
  std::vector<int> h_cols_;
  std::vector<int> block_targets_;
  std::vector<double> h_values_;

  // Hessian (GAUSS_NEWTON, EXACT): lower-triangle pattern in z indices,
  // column by column (column_start_), and the column coloring (EXACT).
  HessianMode hessian_mode_ = HessianMode::LIMITED_MEMORY;
  std::vector<NormConstraint> norms_;
  std::vector<int> hess_rows_;
  std::vector<int> hess_cols_;
  std::vector<int> column_start_;
  int num_colors_ = 0;
  std::vector<int> color_start_;
  std::vector<int> color_columns_;
  int num_hessian_products_ = 0;
  Eigen::SparseMatrix<double> gauss_newton_;

  // Evaluation cache.
  Eigen::VectorXd cached_z_;
  bool values_valid_ = false;
  bool gradient_valid_ = false;
  Eigen::VectorXd f_;  // unshifted F(z)
  Eigen::VectorXd h_;
  Eigen::MatrixXd grad_f_;  // k x S
  std::string last_error_;

  // Results.
  int iterations_ = -1;
  bool has_solution_ = false;
  std::vector<double> solution_x_;
  std::vector<double> solution_lambda_;
  std::vector<double> solution_z_lower_;
  std::vector<double> solution_z_upper_;
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_ADAPTERS_IPOPT_TNLP_H_
