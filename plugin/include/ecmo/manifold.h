// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Manifolds for the packed parameter vector z.
//
// Parameter blocks may live on a ceres::Manifold (a unit quaternion, a point
// on a sphere, a partly constant block through ceres::SubsetManifold). z is
// the concatenation of such blocks, so it lives on their product. Ceres 2.1's
// ceres::ProductManifold is a compile-time variadic template (it stores its
// factors by value and its arity is fixed at compile time), so it cannot
// describe a product whose number and kinds of blocks are known only at run
// time; DynamicProductManifold below does.
//
// How the strategies use it (see Evaluator::manifold()):
//   - WC_PENALTY_LBFGS and WC_AUGMENTED_LAGRANGIAN optimize x = (rho, z) on
//     R x M with ceres::GradientProblem(function, manifold): every step is
//     Plus(x, delta), so z never leaves the manifold;
//   - the KKT residual is measured in the tangent space, as
//     ceres::GradientChecker measures Jacobians: the stationarity block is
//     PlusJacobian(z)^T (sum_s omega_s lambda_s grad f_s + J_h^T nu), so
//     errors along the manifold's normal space are ignored;
//   - WC_PENALTY_PGD and the Ipopt reference cannot stay on a manifold and
//     refuse such evaluators with a FAILURE whose message says so.

#ifndef ECMO_MANIFOLD_H_
#define ECMO_MANIFOLD_H_

#include <string>
#include <vector>

#include "ceres/manifold.h"

namespace ecmo {

// The product M_1 x ... x M_n of blocks chosen at run time. Each factor is a
// block of `size` ambient coordinates on `manifold`, or Euclidean R^size when
// `manifold` is null. Factors follow each other in the ambient vector (and
// in the tangent vector) in the order given.
//
// Ownership: the factors are NOT owned; they must outlive this object. This
// makes it a cheap non-owning forwarder, e.g. to hand to a
// ceres::GradientProblem, which takes ownership of the object it is given
// (it then deletes the forwarder, never the user's manifolds).
//
// Every method is exact (no finite differences) and works block by block:
// Plus, Minus and RightMultiplyByPlusJacobian cost O(ambient size) plus the
// factors' own work. PlusJacobian and MinusJacobian fill a dense
// (block-diagonal) matrix as the ceres::Manifold interface demands; prefer
// RightMultiplyByPlusJacobian and PlusJacobianMultiply for large products.
//
// Invalid factors (size <= 0, or a manifold whose AmbientSize() differs from
// `size`) make IsValid() false; the methods then return false without
// touching their outputs. Nothing aborts.
class DynamicProductManifold final : public ceres::Manifold {
 public:
  struct Factor {
    int size = 0;
    const ceres::Manifold* manifold = nullptr;  // null: Euclidean R^size
  };

  explicit DynamicProductManifold(std::vector<Factor> factors);

  // False (with a message naming the factor) if a factor is invalid.
  bool IsValid(std::string* error) const;

  int AmbientSize() const override { return ambient_size_; }
  int TangentSize() const override { return tangent_size_; }

  bool Plus(const double* x,
            const double* delta,
            double* x_plus_delta) const override;
  bool PlusJacobian(const double* x, double* jacobian) const override;
  bool RightMultiplyByPlusJacobian(const double* x,
                                   const int num_rows,
                                   const double* ambient_matrix,
                                   double* tangent_matrix) const override;
  bool Minus(const double* y,
             const double* x,
             double* y_minus_x) const override;
  bool MinusJacobian(const double* x, double* jacobian) const override;

  // ambient (size AmbientSize()) = PlusJacobian(x) * tangent (size
  // TangentSize()), block by block, without the dense Jacobian.
  bool PlusJacobianMultiply(const double* x,
                            const double* tangent,
                            double* ambient) const;

  const std::vector<Factor>& factors() const { return factors_; }

 private:
  std::vector<Factor> factors_;
  std::vector<int> ambient_offsets_;
  std::vector<int> tangent_offsets_;
  int ambient_size_ = 0;
  int tangent_size_ = 0;
  std::string error_;
};

// ambient = PlusJacobian(x) * tangent for any manifold: block by block for a
// DynamicProductManifold, through the dense PlusJacobian otherwise (fine for
// the small manifolds of single parameter blocks). Returns false if the
// manifold does.
bool PlusJacobianMultiply(const ceres::Manifold& manifold,
                          const double* x,
                          const double* tangent,
                          double* ambient);

}  // namespace ecmo

#endif  // ECMO_MANIFOLD_H_
