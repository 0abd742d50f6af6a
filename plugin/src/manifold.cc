// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/manifold.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "Eigen/Core"

namespace ecmo {

using RowMajorMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

DynamicProductManifold::DynamicProductManifold(std::vector<Factor> factors)
    : factors_(std::move(factors)) {
  ambient_offsets_.reserve(factors_.size());
  tangent_offsets_.reserve(factors_.size());
  for (size_t i = 0; i < factors_.size(); ++i) {
    const Factor& f = factors_[i];
    ambient_offsets_.push_back(ambient_size_);
    tangent_offsets_.push_back(tangent_size_);
    std::ostringstream os;
    if (f.size <= 0) {
      os << "DynamicProductManifold: factor " << i << " has size " << f.size
         << "; sizes must be positive.";
    } else if (f.manifold != nullptr && f.manifold->AmbientSize() != f.size) {
      os << "DynamicProductManifold: factor " << i << " has size " << f.size
         << " but its manifold has AmbientSize() = "
         << f.manifold->AmbientSize() << ".";
    }
    if (!os.str().empty() && error_.empty()) error_ = os.str();
    ambient_size_ += std::max(f.size, 0);
    tangent_size_ +=
        f.manifold != nullptr ? f.manifold->TangentSize() : std::max(f.size, 0);
  }
}

bool DynamicProductManifold::IsValid(std::string* error) const {
  if (error != nullptr) *error = error_;
  return error_.empty();
}

bool DynamicProductManifold::Plus(const double* x,
                                  const double* delta,
                                  double* x_plus_delta) const {
  if (!error_.empty()) return false;
  for (size_t i = 0; i < factors_.size(); ++i) {
    const Factor& f = factors_[i];
    const double* xi = x + ambient_offsets_[i];
    const double* di = delta + tangent_offsets_[i];
    double* yi = x_plus_delta + ambient_offsets_[i];
    if (f.manifold == nullptr) {
      for (int j = 0; j < f.size; ++j) yi[j] = xi[j] + di[j];
    } else if (!f.manifold->Plus(xi, di, yi)) {
      return false;
    }
  }
  return true;
}

bool DynamicProductManifold::PlusJacobian(const double* x,
                                          double* jacobian) const {
  if (!error_.empty()) return false;
  Eigen::Map<RowMajorMatrix> J(jacobian, ambient_size_, tangent_size_);
  J.setZero();
  RowMajorMatrix block;
  for (size_t i = 0; i < factors_.size(); ++i) {
    const Factor& f = factors_[i];
    if (f.manifold == nullptr) {
      J.block(ambient_offsets_[i], tangent_offsets_[i], f.size, f.size)
          .setIdentity();
      continue;
    }
    const int t = f.manifold->TangentSize();
    block.resize(f.size, t);
    if (!f.manifold->PlusJacobian(x + ambient_offsets_[i], block.data())) {
      return false;
    }
    J.block(ambient_offsets_[i], tangent_offsets_[i], f.size, t) = block;
  }
  return true;
}

bool DynamicProductManifold::RightMultiplyByPlusJacobian(
    const double* x,
    const int num_rows,
    const double* ambient_matrix,
    double* tangent_matrix) const {
  if (!error_.empty()) return false;
  Eigen::Map<const RowMajorMatrix> A(ambient_matrix, num_rows, ambient_size_);
  Eigen::Map<RowMajorMatrix> T(tangent_matrix, num_rows, tangent_size_);
  RowMajorMatrix a_block, t_block;
  for (size_t i = 0; i < factors_.size(); ++i) {
    const Factor& f = factors_[i];
    const int ao = ambient_offsets_[i];
    const int to = tangent_offsets_[i];
    if (f.manifold == nullptr) {
      T.block(0, to, num_rows, f.size) = A.block(0, ao, num_rows, f.size);
      continue;
    }
    const int t = f.manifold->TangentSize();
    if (num_rows == 1) {
      // Rows are contiguous: no copies.
      if (!f.manifold->RightMultiplyByPlusJacobian(
              x + ao, 1, ambient_matrix + ao, tangent_matrix + to)) {
        return false;
      }
      continue;
    }
    a_block = A.block(0, ao, num_rows, f.size);
    t_block.resize(num_rows, t);
    if (!f.manifold->RightMultiplyByPlusJacobian(
            x + ao, num_rows, a_block.data(), t_block.data())) {
      return false;
    }
    T.block(0, to, num_rows, t) = t_block;
  }
  return true;
}

bool DynamicProductManifold::Minus(const double* y,
                                   const double* x,
                                   double* y_minus_x) const {
  if (!error_.empty()) return false;
  for (size_t i = 0; i < factors_.size(); ++i) {
    const Factor& f = factors_[i];
    const double* yi = y + ambient_offsets_[i];
    const double* xi = x + ambient_offsets_[i];
    double* di = y_minus_x + tangent_offsets_[i];
    if (f.manifold == nullptr) {
      for (int j = 0; j < f.size; ++j) di[j] = yi[j] - xi[j];
    } else if (!f.manifold->Minus(yi, xi, di)) {
      return false;
    }
  }
  return true;
}

bool DynamicProductManifold::MinusJacobian(const double* x,
                                           double* jacobian) const {
  if (!error_.empty()) return false;
  Eigen::Map<RowMajorMatrix> J(jacobian, tangent_size_, ambient_size_);
  J.setZero();
  RowMajorMatrix block;
  for (size_t i = 0; i < factors_.size(); ++i) {
    const Factor& f = factors_[i];
    if (f.manifold == nullptr) {
      J.block(tangent_offsets_[i], ambient_offsets_[i], f.size, f.size)
          .setIdentity();
      continue;
    }
    const int t = f.manifold->TangentSize();
    block.resize(t, f.size);
    if (!f.manifold->MinusJacobian(x + ambient_offsets_[i], block.data())) {
      return false;
    }
    J.block(tangent_offsets_[i], ambient_offsets_[i], t, f.size) = block;
  }
  return true;
}

bool DynamicProductManifold::PlusJacobianMultiply(const double* x,
                                                  const double* tangent,
                                                  double* ambient) const {
  if (!error_.empty()) return false;
  for (size_t i = 0; i < factors_.size(); ++i) {
    const Factor& f = factors_[i];
    const double* xi = x + ambient_offsets_[i];
    const double* ti = tangent + tangent_offsets_[i];
    double* ai = ambient + ambient_offsets_[i];
    if (f.manifold == nullptr) {
      std::copy(ti, ti + f.size, ai);
    } else if (!ecmo::PlusJacobianMultiply(*f.manifold, xi, ti, ai)) {
      return false;
    }
  }
  return true;
}

bool PlusJacobianMultiply(const ceres::Manifold& manifold,
                          const double* x,
                          const double* tangent,
                          double* ambient) {
  if (const auto* product =
          dynamic_cast<const DynamicProductManifold*>(&manifold)) {
    return product->PlusJacobianMultiply(x, tangent, ambient);
  }
  const int a = manifold.AmbientSize();
  const int t = manifold.TangentSize();
  RowMajorMatrix jacobian(a, t);
  if (!manifold.PlusJacobian(x, jacobian.data())) return false;
  Eigen::Map<Eigen::VectorXd>(ambient, a) =
      jacobian * Eigen::Map<const Eigen::VectorXd>(tangent, t);
  return true;
}

}  // namespace ecmo
