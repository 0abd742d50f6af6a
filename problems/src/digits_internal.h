// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Internal to ecmo::problems (not installed): the pieces the two digits
// instances share (ecmo/problems/digits.h): loading with the instance's
// error message, and seeded stratified sampling without replacement.

#ifndef ECMO_PROBLEMS_SRC_DIGITS_INTERNAL_H_
#define ECMO_PROBLEMS_SRC_DIGITS_INTERNAL_H_

#include <random>
#include <string>
#include <vector>

#include "cross_entropy_cost.h"
#include "ecmo/problems/digits.h"

namespace ecmo {
namespace problems {
namespace internal {

constexpr int kDigitsClasses = 10;
constexpr int kDigitsPixels = 64;

// LoadDigits(option_path, or DefaultDigitsPath() when empty); on failure
// *error = "<builder>: <why>. <what to do (data_path, ECMO_DATA_DIR)>".
bool LoadDigitsForInstance(const std::string& option_path,
                           const char* builder,
                           DigitsData* data,
                           std::string* error);

// The image indices of each class, each list in a seeded random order;
// Take() hands them out without replacement, so every image is used at
// most once across all the subsets drawn from one pool.
class ClassPools {
 public:
  ClassPools(const std::vector<int>& labels, std::mt19937_64* rng);
  int Remaining(int c) const;
  // Appends `count` unused images of class c to *indices; false (nothing
  // taken) when fewer remain.
  bool Take(int c, int count, std::vector<int>* indices);

 private:
  std::vector<std::vector<int>> pools_;
  std::vector<int> next_;
};

// Splits `total` over `classes`: total / k each, and the remainder one
// each to the first (total mod k) classes of a seeded random order.
std::vector<int> EvenCounts(int total,
                            const std::vector<int>& classes,
                            std::mt19937_64* rng);

// Splits `total` over the 10 classes in proportion to `weights` (largest
// remainders; ties to the smaller class).
std::vector<int> ProportionalCounts(int total, const std::vector<int>& weights);

}  // namespace internal
}  // namespace problems
}  // namespace ecmo

#endif  // ECMO_PROBLEMS_SRC_DIGITS_INTERNAL_H_
