// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: nearest-neighbour search over a sweep's preferences
// (the warm-start source of the next point, and the sweep's walk).

#ifndef ECMO_INTERNAL_SWEEP_NEIGHBOURS_H_
#define ECMO_INTERNAL_SWEEP_NEIGHBOURS_H_

#include <memory>
#include <vector>

namespace ecmo {
namespace internal {

// A set of preferences, each under an id (a point index, a position), that
// finds the one nearest to a query. Scanned while it has held at most
// kScanLimit of them, then a k-d tree (nanoflann's dynamic index: a
// logarithmic family of static trees, O(log^2 n) amortized per insertion,
// about O(log n) per query; removal is lazy). Scans made a sweep O(n^2) in
// its number of points: finding every point's nearest finished point was
// 87% of a 40,000-point sweep at k = 2 (under the sweep's lock), and the
// greedy walk through 20,000 preferences took 0.5 s before the first
// solve; below the limit a scan is cheaper than the tree.
//
// Nearest() answers exactly what those scans did: the smallest squared
// Euclidean distance, summed over the entries in order, and among equal
// distances the smallest id (a sweep's walk and warm starts, and so its
// output, must not depend on how the index is built).
//
// Not thread-safe: the sweep calls it under its mutex.
class PreferenceIndex {
 public:
  // Preferences of `dimension` entries; others are never added or found.
  explicit PreferenceIndex(int dimension);
  ~PreferenceIndex();
  PreferenceIndex(const PreferenceIndex&) = delete;
  PreferenceIndex& operator=(const PreferenceIndex&) = delete;

  // Room for ids [0, n) without allocating in Add (the sweep reserves its
  // points: a worker that finished a point must be able to record it
  // when memory has run out). May throw std::bad_alloc.
  void Reserve(int n);

  // Adds the preference (copied) under `id` (>= 0, not present). A
  // preference of another size, or with a non-finite entry, is ignored.
  // When the tree cannot get memory (std::bad_alloc, under a memory limit)
  // the index drops it and scans from then on: the same answers, slower.
  void Add(int id, const std::vector<double>& preference);
  // Removes `id` (nothing when it is not present).
  void Remove(int id);

  // The id of the nearest preference held, or -1 when there is none (or
  // the query has another size or a non-finite entry).
  int Nearest(const std::vector<double>& preference) const;
  int Nearest(const double* preference) const;

  // Preferences held (added and not removed).
  int size() const { return size_; }

  // Once more than this many have been added, queries use the tree.
  static constexpr int kScanLimit = 128;

 private:
  class Tree;

  const int dimension_;
  // Slot s (insertion order, which the dynamic index requires) holds the
  // preference of id id_of_slot_[s], at coordinates_[s * dimension_];
  // removed_[s] when it was removed.
  std::vector<double> coordinates_;
  std::vector<int> id_of_slot_;
  std::vector<char> removed_;
  std::vector<int> slot_of_id_;  // -1: not present
  int size_ = 0;
  std::unique_ptr<Tree> tree_;  // null while scanning
  bool scan_only_ = false;      // the tree ran out of memory once
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_SWEEP_NEIGHBOURS_H_
