// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "front_refinement.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ecmo {
namespace internal {

bool NextRefinement(const Eigen::MatrixXd& objectives,
                    const Eigen::VectorXd& reference,
                    const Eigen::VectorXd& scale,
                    const Eigen::VectorXd& range,
                    const std::set<std::pair<int, int>>& tried,
                    RefinementCandidate* candidate) {
  const int n = static_cast<int>(objectives.rows());
  const int S = static_cast<int>(objectives.cols());
  if (n < 2 || reference.size() != S || scale.size() != S ||
      range.size() != S) {
    return false;
  }
  Eigen::MatrixXd d(n, S);
  for (int i = 0; i < n; ++i) {
    d.row(i) = ((objectives.row(i).transpose() - reference).array() /
                range.array())
                   .matrix()
                   .transpose();
  }
  // Neighbours: for S = 2 the front is a curve, so the two nearest points
  // are its neighbours; beyond, a few more span the surface around a point.
  const int num_neighbours = std::min(n - 1, S == 2 ? 2 : 2 * S);
  candidate->hole = -1.0;
  candidate->a = candidate->b = -1;
  // Every untried neighbour pair with the width of the hole at its
  // midpoint; the pick comes after, from all of them.
  struct Hole {
    double width;
    double first;  // the midpoint's first normalized objective
    std::pair<int, int> pair;
  };
  std::vector<Hole> holes;
  holes.reserve(static_cast<size_t>(n) * num_neighbours);
  double widest = -1.0;
  std::vector<std::pair<double, int>> by_distance(n);
  double spacing_sum = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      by_distance[j] = {j == i ? std::numeric_limits<double>::infinity()
                               : (d.row(i) - d.row(j)).squaredNorm(),
                        j};
    }
    std::partial_sort(by_distance.begin(),
                      by_distance.begin() + num_neighbours, by_distance.end());
    spacing_sum += std::sqrt(by_distance[0].first);  // the nearest row
    for (int m = 0; m < num_neighbours; ++m) {
      const int j = by_distance[m].second;
      const std::pair<int, int> pair(std::min(i, j), std::max(i, j));
      if (tried.count(pair) > 0) continue;
      const Eigen::RowVectorXd midpoint = 0.5 * (d.row(i) + d.row(j));
      double hole = std::numeric_limits<double>::infinity();
      for (int l = 0; l < n; ++l) {
        hole = std::min(hole, (d.row(l) - midpoint).norm());
      }
      holes.push_back({hole, midpoint[0], pair});
      widest = std::max(widest, hole);
    }
  }
  // Of the holes within kEqualHoles (1%, relative) of the widest, the one
  // whose midpoint has the smallest first objective: the pick depends
  // neither on the order the pairs come in nor on the solver's noise in
  // the widths, nor on which of several preferences that landed on one
  // point names a hole's end. A symmetric front has mirror holes whose
  // widths differ only by that noise, and a sweep on two threads (other
  // warm-start chains) refined the other one first: its added points came
  // out in another order than on one thread (1 run in 3 under load).
  constexpr double kEqualHoles = 1e-2;
  double first = 0.0;
  for (const Hole& h : holes) {
    if (h.width >= (1.0 - kEqualHoles) * widest &&
        (candidate->a < 0 || h.first < first)) {
      first = h.first;
      candidate->hole = h.width;
      candidate->a = h.pair.first;
      candidate->b = h.pair.second;
    }
  }
  candidate->mean_spacing = spacing_sum / n;
  if (candidate->a < 0 || !(candidate->hole > 0.0)) return false;
  // lambda_s ~ w_s / (M_s - r_s), M in objective units.
  const Eigen::VectorXd midpoint_d =
      0.5 * (d.row(candidate->a) + d.row(candidate->b)).transpose();
  Eigen::VectorXd lambda(S);
  for (int s = 0; s < S; ++s) {
    const double offset = std::max(midpoint_d[s], 1e-12) * range[s];
    lambda[s] = scale[s] / offset;
  }
  if (!lambda.allFinite() || !(lambda.sum() > 0.0)) return false;
  lambda /= lambda.sum();
  candidate->preference.assign(lambda.data(), lambda.data() + S);
  return true;
}

}  // namespace internal
}  // namespace ecmo
