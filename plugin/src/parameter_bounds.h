// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the per-block bounds that ecmo::Problem and
// ecmo::StochasticProblem keep, with Ceres' semantics and one wording of
// their errors for both.

#ifndef ECMO_INTERNAL_PARAMETER_BOUNDS_H_
#define ECMO_INTERNAL_PARAMETER_BOUNDS_H_

#include <string>
#include <vector>

namespace ecmo {
namespace internal {

// The bounds of one parameter block are two vectors, both empty until a
// bound is set, then of the block's size each with -inf / +inf where
// unbounded.

// Sets component `index` of a block of `size` entries whose bounds are
// *lower / *upper (both null when `values` is not a registered block) from
// below or above, as ceres::Problem::SetParameterLowerBound / UpperBound
// do: +-inf and +-std::numeric_limits<double>::max() both mean unbounded.
// Returns "" on success, else the message (starting with owner, e.g.
// "Problem") naming the block, the component and the fix; the bounds are
// then unchanged.
std::string SetBlockBound(const char* owner,
                          const double* values,
                          int size,
                          int index,
                          double bound,
                          bool is_lower,
                          std::vector<double>* lower,
                          std::vector<double>* upper);

// The same for a block record with members `size`, `lower` and `upper`, or
// null when `values` is not registered.
template <typename Block>
std::string SetBlockBound(const char* owner,
                          const double* values,
                          Block* block,
                          int index,
                          double bound,
                          bool is_lower) {
  if (block == nullptr) {
    return SetBlockBound(
        owner, values, 0, index, bound, is_lower, nullptr, nullptr);
  }
  return SetBlockBound(owner,
                       values,
                       block->size,
                       index,
                       bound,
                       is_lower,
                       &block->lower,
                       &block->upper);
}

// "" when no component of the block has its lower bound above its upper
// one, else the message.
std::string CrossedBoundsError(const char* owner,
                               const double* values,
                               const std::vector<double>& lower,
                               const std::vector<double>& upper);

// Whether some component has a finite bound.
bool HasFiniteBound(const std::vector<double>& lower,
                    const std::vector<double>& upper);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_PARAMETER_BOUNDS_H_
