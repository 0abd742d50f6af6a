// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Internal to the registry (not installed): the pieces shared by
// registry.cc and the per-problem files registry_<name>.cc.

#ifndef ECMO_PROBLEMS_SRC_REGISTRY_INTERNAL_H_
#define ECMO_PROBLEMS_SRC_REGISTRY_INTERNAL_H_

#include <memory>
#include <vector>

#include "ecmo/problems/registry.h"

namespace ecmo {
namespace problems {
namespace internal {

// A ProblemInstance whose parameter blocks hold `start` (one vector per
// block) and whose `start` is the same values packed. The caller adds the
// objectives and constraints.
std::unique_ptr<ProblemInstance> MakeInstance(
    const std::vector<std::vector<double>>& start);

// registry_sphere.cc: f_s = z_s on the unit circle / sphere.
ProblemInfo CircleQuarter();
ProblemInfo SphereOctant();

// registry_mtbl_matrix_free.cc: example (iii) as a matrix-free evaluator,
// with the analytic answers of its ecmo::Problem twin.
ProblemInfo MtblExampleIiiMatrixFree(const ProblemInfo& twin);

// registry_mtbl_logistic.cc: the synthetic logistic MTBL family (sized).
ProblemInfo MtblLogistic();
ProblemInfo MtblLogisticReduced();

// registry_digits.cc: the two MTBL instances on the UCI digits data.
ProblemInfo DigitsDataWeighting();
ProblemInfo DigitsDataWeightingReduced();
ProblemInfo DigitsMetaLearning();

// registry_concave.cc: a least-squares problem with a concave front.
ProblemInfo ConcaveQuarter();

// registry_bounded.cc: textbook problems with bounds and inequality
// constraints and closed-form WC points.
ProblemInfo HsBoxQuadratic();
ProblemInfo HsDiskLinear();
ProblemInfo HsMixedBlocks();
ProblemInfo Bnh();
ProblemInfo DiskBiobjective();
ProblemInfo BoundedSegment();
ProblemInfo MixedBiobjective();
ProblemInfo SimplexTriObjective();

}  // namespace internal
}  // namespace problems
}  // namespace ecmo

#endif  // ECMO_PROBLEMS_SRC_REGISTRY_INTERNAL_H_
