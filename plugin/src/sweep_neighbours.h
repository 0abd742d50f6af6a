// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the finished points of a sweep, searchable by
// preference (the warm-start source of the next point).

#ifndef ECMO_INTERNAL_SWEEP_NEIGHBOURS_H_
#define ECMO_INTERNAL_SWEEP_NEIGHBOURS_H_

#include <memory>
#include <vector>

namespace ecmo {
namespace internal {

// The preferences of the points finished so far: scanned while there are
// at most kScanLimit of them, then in a k-d tree (nanoflann's dynamic
// index: a logarithmic family of static trees, O(log^2 n) amortized per
// insertion, about O(log n) per query). The scan alone made a sweep
// O(n^2): 87% of a 40,000-point sweep at k = 2, under the sweep's lock;
// below the limit it is cheaper than the tree.
//
// Nearest() answers exactly what the scan did: the smallest squared
// Euclidean distance, summed over the entries in order, and among equal
// distances the smallest point index (a sweep's warm starts, and so its
// output, must not depend on how the index is built).
//
// Not thread-safe: the sweep calls it under its mutex.
class FinishedPreferences {
 public:
  // Preferences of `dimension` entries; others are never added or found.
  explicit FinishedPreferences(int dimension);
  ~FinishedPreferences();
  FinishedPreferences(const FinishedPreferences&) = delete;
  FinishedPreferences& operator=(const FinishedPreferences&) = delete;

  // Adds point `index` (>= 0) with this preference (copied). A preference
  // of another size, or with a non-finite entry, is ignored.
  void Add(int index, const std::vector<double>& preference);

  // The index of the nearest added point, or -1 when there is none (or the
  // preference has another size).
  int Nearest(const std::vector<double>& preference) const;

  int size() const { return static_cast<int>(point_of_slot_.size()); }

  // Above this many points, queries go through the tree.
  static constexpr int kScanLimit = 128;

 private:
  class Tree;

  const int dimension_;
  // Slot s (insertion order, which the dynamic index requires) holds the
  // preference of point point_of_slot_[s], at coordinates_[s * dimension_].
  std::vector<double> coordinates_;
  std::vector<int> point_of_slot_;
  std::unique_ptr<Tree> tree_;  // null while scanning
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_SWEEP_NEIGHBOURS_H_
