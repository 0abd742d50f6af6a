// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).

#include "sweep_neighbours.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>

#include "ecmo/internal/report.h"
#include "nanoflann.hpp"

namespace ecmo {
namespace internal {
namespace {

// The squared distance exactly as the sweep has always computed it (summed
// over the entries in order), so that ties resolve as before.
double SquaredDistance(const double* a, const double* b, int dimension) {
  double d = 0.0;
  for (int s = 0; s < dimension; ++s) d += (a[s] - b[s]) * (a[s] - b[s]);
  return d;
}

}  // namespace

class PreferenceIndex::Tree {
 public:
  // nanoflann's dataset interface over the owner's slots.
  struct Dataset {
    const PreferenceIndex* owner;
    size_t kdtree_get_point_count() const { return owner->id_of_slot_.size(); }
    double kdtree_get_pt(uint32_t slot, size_t entry) const {
      return owner->coordinates_[slot * owner->dimension_ + entry];
    }
    template <class BoundingBox>
    bool kdtree_get_bbox(BoundingBox&) const {
      return false;
    }
  };
  using Index = nanoflann::KDTreeSingleIndexDynamicAdaptor<
      nanoflann::L2_Simple_Adaptor<double, Dataset>,
      Dataset>;

  explicit Tree(const PreferenceIndex* owner)
      : dataset{owner}, index(owner->dimension_, dataset) {}

  Dataset dataset;
  Index index;
};

namespace {

// nanoflann result set keeping the nearest slot, ties to the smallest id.
// Its bound is a hair above the best distance so that the tree's pruning
// (whose box distances may round differently from the leaf distances)
// never drops a point at exactly that distance; the leaf distance is
// recomputed with SquaredDistance.
class NearestWithTies {
 public:
  using DistanceType = double;
  using IndexType = uint32_t;

  NearestWithTies(const double* query,
                  const std::vector<double>& coordinates,
                  const std::vector<int>& id_of_slot,
                  const std::vector<char>& removed,
                  int dimension)
      : query_(query),
        coordinates_(coordinates),
        id_of_slot_(id_of_slot),
        removed_(removed),
        dimension_(dimension) {}

  bool addPoint(double, uint32_t slot) {
    // The tree skips removed points itself; checked here too, so that a
    // removed id is never an answer (the walk relies on it to finish).
    if (removed_[slot]) return true;
    const double d = SquaredDistance(
        query_, coordinates_.data() + slot * dimension_, dimension_);
    if (best_slot_ < 0 || d < best_ ||
        (d == best_ && id_of_slot_[slot] < id_of_slot_[best_slot_])) {
      best_ = d;
      best_slot_ = static_cast<int>(slot);
      bound_ = best_ + 1e-12 * best_ + std::numeric_limits<double>::min();
    }
    return true;
  }
  double worstDist() const { return bound_; }
  bool full() const { return best_slot_ >= 0; }
  int best_slot() const { return best_slot_; }

 private:
  const double* query_;
  const std::vector<double>& coordinates_;
  const std::vector<int>& id_of_slot_;
  const std::vector<char>& removed_;
  const int dimension_;
  double best_ = std::numeric_limits<double>::infinity();
  double bound_ = std::numeric_limits<double>::infinity();
  int best_slot_ = -1;
};

}  // namespace

PreferenceIndex::PreferenceIndex(int dimension) : dimension_(dimension) {}

PreferenceIndex::~PreferenceIndex() = default;

void PreferenceIndex::Add(int id, const std::vector<double>& preference) {
  if (dimension_ < 1 || id < 0 ||
      static_cast<int>(preference.size()) != dimension_ ||
      !AllFinite(preference.data(), dimension_)) {
    return;
  }
  if (id >= static_cast<int>(slot_of_id_.size()))
    slot_of_id_.resize(id + 1, -1);
  if (slot_of_id_[id] >= 0) return;  // present already
  const uint32_t slot = static_cast<uint32_t>(id_of_slot_.size());
  coordinates_.insert(coordinates_.end(), preference.begin(), preference.end());
  id_of_slot_.push_back(id);
  removed_.push_back(0);
  slot_of_id_[id] = static_cast<int>(slot);
  ++size_;
  if (scan_only_) return;
  try {
    if (tree_ != nullptr) {
      tree_->index.addPoints(slot, slot);
    } else if (static_cast<int>(slot) + 1 > kScanLimit) {
      // Takes every slot so far, then drops the removed ones.
      tree_ = std::make_unique<Tree>(this);
      for (uint32_t s = 0; s < slot; ++s) {
        if (removed_[s]) tree_->index.removePoint(s);
      }
    }
  } catch (const std::bad_alloc&) {
    // A sweep under a memory limit (ecmo_solve exited 1 here, 1 run in
    // 250 of the thread-creation test): the tree is only a speed-up.
    tree_.reset();
    scan_only_ = true;
  }
}

void PreferenceIndex::Reserve(int n) {
  if (n <= 0) return;
  coordinates_.reserve(static_cast<size_t>(n) * std::max(dimension_, 0));
  id_of_slot_.reserve(n);
  removed_.reserve(n);
  slot_of_id_.reserve(n);
}

void PreferenceIndex::Remove(int id) {
  if (id < 0 || id >= static_cast<int>(slot_of_id_.size()) ||
      slot_of_id_[id] < 0) {
    return;
  }
  const int slot = slot_of_id_[id];
  slot_of_id_[id] = -1;
  removed_[slot] = 1;
  --size_;
  if (tree_ != nullptr) tree_->index.removePoint(slot);
}

int PreferenceIndex::Nearest(const std::vector<double>& preference) const {
  if (static_cast<int>(preference.size()) != dimension_) return -1;
  return Nearest(preference.data());
}

int PreferenceIndex::Nearest(const double* preference) const {
  if (size_ == 0 || !AllFinite(preference, dimension_)) return -1;
  if (tree_ != nullptr) {
    try {
      NearestWithTies result(
          preference, coordinates_, id_of_slot_, removed_, dimension_);
      tree_->index.findNeighbors(
          result, preference, nanoflann::SearchParams());
      return result.best_slot() < 0 ? -1 : id_of_slot_[result.best_slot()];
    } catch (const std::bad_alloc&) {
      // The search's scratch could not be allocated: the scan below
      // allocates nothing and gives the same answer.
    }
  }
  // The scan, by hand: through the result set it cost 46 instructions per
  // preference held (callgrind), 2% of a 101-point sweep at k = 10, under
  // the sweep's lock. Same distances, same ties (smallest id).
  // Two objectives (the common sweep) with nothing removed (a sweep's
  // finished points) get a loop of their own.
  int best_slot = -1;
  double best = std::numeric_limits<double>::infinity();
  const auto consider = [&](int slot, double d) {
    if (best_slot < 0 || d < best ||
        (d == best && id_of_slot_[slot] < id_of_slot_[best_slot])) {
      best = d;
      best_slot = slot;
    }
  };
  const double* c = coordinates_.data();
  const int slots = static_cast<int>(id_of_slot_.size());
  if (dimension_ == 2 && size_ == slots) {
    const double q0 = preference[0], q1 = preference[1];
    for (int slot = 0; slot < slots; ++slot, c += 2) {
      // As SquaredDistance sums: (0 + e0^2) + e1^2.
      const double d = (q0 - c[0]) * (q0 - c[0]) + (q1 - c[1]) * (q1 - c[1]);
      if (d <= best) consider(slot, d);
    }
  } else {
    for (int slot = 0; slot < slots; ++slot, c += dimension_) {
      if (removed_[slot]) continue;
      consider(slot, SquaredDistance(preference, c, dimension_));
    }
  }
  return best_slot < 0 ? -1 : id_of_slot_[best_slot];
}

}  // namespace internal
}  // namespace ecmo
