// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: where to add the next point of a Pareto sweep
// (ParetoSweep::Options::refine_to).
//
// The front is measured in normalized objective space D = (F - r) / range,
// with r the scalarization's reference point and range the objectives'
// spread (nadir - r when known), so that gaps in objectives of different
// units compare. Candidates are the midpoints of pairs of neighbouring
// points (each point with its nearest neighbours); the candidate farthest
// from every existing point is the largest hole. The WC problem with
// effective weights lambda_s / w_s selects the point where the ray
// r + t (w_1 / lambda_1, ..., w_S / lambda_S) meets the front, so the
// preference lambda_s proportional to w_s / (M_s - r_s) aims its ray
// through the midpoint M: on a convex stretch of front the new point lands
// between the pair, on a gap of a disconnected front it lands on an end
// that exists already (the pair is then not tried again).

#ifndef ECMO_INTERNAL_FRONT_REFINEMENT_H_
#define ECMO_INTERNAL_FRONT_REFINEMENT_H_

#include <set>
#include <utility>
#include <vector>

#include "Eigen/Core"

namespace ecmo {
namespace internal {

struct RefinementCandidate {
  // The pair (indices into the rows given), a < b.
  int a = -1;
  int b = -1;
  // Distance in D from the midpoint to the nearest existing point.
  double hole = 0.0;
  // The mean over the rows of the distance in D to the nearest other row:
  // the spacing kRefineWhereNeeded compares the largest hole with.
  double mean_spacing = 0.0;
  // The preference aimed at the midpoint (in the open simplex, sums to 1).
  std::vector<double> preference;
};

// objectives: one row per usable point (F, the user's objectives).
// reference, scale: the scalarization's r and w (size S). range: positive
// spread per objective for D. tried: pairs already used. False when no
// untried pair is left.
bool NextRefinement(const Eigen::MatrixXd& objectives,
                    const Eigen::VectorXd& reference,
                    const Eigen::VectorXd& scale,
                    const Eigen::VectorXd& range,
                    const std::set<std::pair<int, int>>& tried,
                    RefinementCandidate* candidate);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_FRONT_REFINEMENT_H_
