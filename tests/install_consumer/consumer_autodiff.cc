// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Uses the installed ecmo::autodiff: one Hessian-vector product of
// g = x0 y0^2 + y1^3 / 3, checked against the closed form.
#include <cmath>
#include <cstdio>

#include "ecmo/autodiff_lower_level.h"

struct LowerG {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    *g = x[0] * y[0] * y[0] + ecmo::K<T>(1.0 / 3.0) * y[1] * y[1] * y[1];
    return true;
  }
};

int main() {
  ecmo::AutoDiffLowerLevel<LowerG> lower(new LowerG, 1, 2);
  const double x[1] = {2.0}, y[2] = {3.0, 4.0}, v[2] = {1.0, 1.0};
  double out_x[1], out_y[2];
  if (!lower.GradYJacobianTransposeProduct(x, y, v, out_x, out_y)) return 1;
  // H_xy v = 2 y0 v0 = 6; H_yy v = (2 x0 v0, 2 y1 v1) = (4, 8).
  const bool ok = std::abs(out_x[0] - 6.0) < 1e-12 &&
                  std::abs(out_y[0] - 4.0) < 1e-12 &&
                  std::abs(out_y[1] - 8.0) < 1e-12;
  std::printf("autodiff H v = (%g; %g, %g)\n", out_x[0], out_y[0], out_y[1]);
  return ok ? 0 : 1;
}
