// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// The cost functors of the attitude problem (rotation_front.cc), shared by
// the example and the tests that pose the same problem: a quaternion q in
// Ceres' (w, x, y, z) order, observations R(q) u = v, and the equality that
// keeps the body z axis (the boresight) horizontal.

#ifndef ECMO_EXAMPLES_PIPELINES_ATTITUDE_COSTS_H_
#define ECMO_EXAMPLES_PIPELINES_ATTITUDE_COSTS_H_

#include "Eigen/Core"
#include "ceres/rotation.h"

namespace ecmo_pipelines {

// R(q) u - v (3 residuals).
struct Observation {
  Observation(const Eigen::Vector3d& u, const Eigen::Vector3d& v)
      : u{u.x(), u.y(), u.z()}, v{v.x(), v.y(), v.z()} {}
  template <typename T>
  bool operator()(const T* q, T* r) const {
    const T body[3] = {T(u[0]), T(u[1]), T(u[2])};
    T world[3];
    ceres::QuaternionRotatePoint(q, body, world);
    for (int i = 0; i < 3; ++i) r[i] = world[i] - v[i];
    return true;
  }
  double u[3], v[3];
};

// The world z component of the body z axis: 0 when the boresight is
// horizontal (1 residual).
struct HorizontalBoresight {
  template <typename T>
  bool operator()(const T* q, T* r) const {
    const T ez[3] = {T(0.0), T(0.0), T(1.0)};
    T world[3];
    ceres::QuaternionRotatePoint(q, ez, world);
    r[0] = world[2];
    return true;
  }
};

}  // namespace ecmo_pipelines

#endif  // ECMO_EXAMPLES_PIPELINES_ATTITUDE_COSTS_H_
