// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).

#include "sweep_neighbours.h"

#include <cmath>
#include <cstdint>
#include <limits>

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

bool AllFinite(const std::vector<double>& v) {
  for (double x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

}  // namespace

class FinishedPreferences::Tree {
 public:
  // nanoflann's dataset interface over the owner's slots.
  struct Dataset {
    const FinishedPreferences* owner;
    size_t kdtree_get_point_count() const {
      return owner->point_of_slot_.size();
    }
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

  explicit Tree(const FinishedPreferences* owner)
      : dataset{owner}, index(owner->dimension_, dataset) {}

  Dataset dataset;
  Index index;
};

namespace {

// nanoflann result set keeping the nearest slot, ties to the smallest point
// index. Its bound is a hair above the best distance so that the tree's
// pruning (whose box distances may round differently from the leaf
// distances) never drops a point at exactly that distance; the leaf
// distance is recomputed with SquaredDistance.
class NearestWithTies {
 public:
  using DistanceType = double;
  using IndexType = uint32_t;

  NearestWithTies(const double* query,
                  const std::vector<double>& coordinates,
                  const std::vector<int>& point_of_slot,
                  int dimension)
      : query_(query),
        coordinates_(coordinates),
        point_of_slot_(point_of_slot),
        dimension_(dimension) {}

  bool addPoint(double, uint32_t slot) {
    const double d = SquaredDistance(
        query_, coordinates_.data() + slot * dimension_, dimension_);
    if (best_slot_ < 0 || d < best_ ||
        (d == best_ && point_of_slot_[slot] < point_of_slot_[best_slot_])) {
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
  const std::vector<int>& point_of_slot_;
  const int dimension_;
  double best_ = std::numeric_limits<double>::infinity();
  double bound_ = std::numeric_limits<double>::infinity();
  int best_slot_ = -1;
};

}  // namespace

FinishedPreferences::FinishedPreferences(int dimension)
    : dimension_(dimension) {}

FinishedPreferences::~FinishedPreferences() = default;

void FinishedPreferences::Add(int index,
                              const std::vector<double>& preference) {
  if (dimension_ < 1 || index < 0 ||
      static_cast<int>(preference.size()) != dimension_ ||
      !AllFinite(preference)) {
    return;
  }
  coordinates_.insert(coordinates_.end(), preference.begin(), preference.end());
  point_of_slot_.push_back(index);
  const uint32_t slots = static_cast<uint32_t>(point_of_slot_.size());
  if (tree_ != nullptr) {
    tree_->index.addPoints(slots - 1, slots - 1);
  } else if (slots > kScanLimit) {
    tree_ = std::make_unique<Tree>(this);  // takes all slots so far
  }
}

int FinishedPreferences::Nearest(const std::vector<double>& preference) const {
  if (point_of_slot_.empty() ||
      static_cast<int>(preference.size()) != dimension_ ||
      !AllFinite(preference)) {
    return -1;
  }
  NearestWithTies result(
      preference.data(), coordinates_, point_of_slot_, dimension_);
  if (tree_ != nullptr) {
    tree_->index.findNeighbors(
        result, preference.data(), nanoflann::SearchParams());
  } else {
    for (size_t slot = 0; slot < point_of_slot_.size(); ++slot) {
      result.addPoint(0.0, static_cast<uint32_t>(slot));
    }
  }
  return result.best_slot() < 0 ? -1 : point_of_slot_[result.best_slot()];
}

}  // namespace internal
}  // namespace ecmo
