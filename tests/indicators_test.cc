// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: tests for ecmo/indicators.h.
//
// Oracles: the hand-verified vectors of the project notes (mtbl_baselines.md
// section 3, which agree with moocore's documentation), inclusion-exclusion
// and unit-cell counting for the hypervolume, and invariances (permutation,
// dominated and duplicate points, scaling, embedding in a higher dimension).

#include "ecmo/indicators.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

Eigen::MatrixXd Rows(const std::vector<std::vector<double>>& rows) {
  const int cols = rows.empty() ? 0 : static_cast<int>(rows[0].size());
  Eigen::MatrixXd m(rows.size(), cols);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int j = 0; j < cols; ++j) {
      m(i, j) = rows[i][j];
    }
  }
  return m;
}

Eigen::VectorXd Vec(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
}

// Sum over non-empty subsets T of (-1)^(|T|+1) * vol(intersection of the
// boxes [t, r], t in T). Exponential in n: for n <= 12 only.
double InclusionExclusionHv(const Eigen::MatrixXd& points,
                            const Eigen::VectorXd& reference) {
  const int n = static_cast<int>(points.rows());
  const int dim = static_cast<int>(points.cols());
  double total = 0.0;
  for (uint32_t mask = 1; mask < (1u << n); ++mask) {
    Eigen::VectorXd corner = Eigen::VectorXd::Constant(
        dim, -std::numeric_limits<double>::infinity());
    int bits = 0;
    for (int i = 0; i < n; ++i) {
      if (mask & (1u << i)) {
        // Element-wise loop: the aliased Eigen expression
        // corner = corner.cwiseMax(...) trips a GCC 12 -Wuse-after-free
        // false positive inside Eigen's allocator.
        for (int j = 0; j < dim; ++j) {
          corner[j] = std::max(corner[j], points(i, j));
        }
        ++bits;
      }
    }
    double volume = 1.0;
    for (int j = 0; j < dim; ++j) {
      volume *= std::max(reference[j] - corner[j], 0.0);
    }
    total += (bits % 2 == 1) ? volume : -volume;
  }
  return total;
}

// For integer points in [0, side)^S and reference (side, ..., side): the
// number of unit cells [c, c + 1] that some point weakly dominates.
double CellCountHv(const Eigen::MatrixXd& points, int side) {
  const int dim = static_cast<int>(points.cols());
  std::vector<int> cell(dim, 0);
  double count = 0.0;
  while (true) {
    for (int i = 0; i < points.rows(); ++i) {
      bool dominated = true;
      for (int j = 0; j < dim && dominated; ++j) {
        dominated = points(i, j) <= cell[j];
      }
      if (dominated) {
        count += 1.0;
        break;
      }
    }
    int j = 0;
    while (j < dim && ++cell[j] == side) {
      cell[j++] = 0;
    }
    if (j == dim) {
      break;
    }
  }
  return count;
}

Eigen::MatrixXd RandomPoints(int n, int dim, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Eigen::MatrixXd m(n, dim);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < dim; ++j) {
      m(i, j) = uniform(*rng);
    }
  }
  return m;
}

Eigen::MatrixXd RandomIntegerPoints(int n,
                                    int dim,
                                    int side,
                                    std::mt19937_64* rng) {
  std::uniform_int_distribution<int> uniform(0, side - 1);
  Eigen::MatrixXd m(n, dim);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < dim; ++j) {
      m(i, j) = uniform(*rng);
    }
  }
  return m;
}

// Points on the positive part of the unit sphere: mutually non-dominated.
Eigen::MatrixXd SpherePoints(int n, int dim, std::mt19937_64* rng) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd m(n, dim);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < dim; ++j) {
      m(i, j) = std::abs(normal(*rng)) + 1e-12;
    }
    m.row(i).normalize();
  }
  return m;
}

Eigen::MatrixXd PermuteRows(const Eigen::MatrixXd& m, std::mt19937_64* rng) {
  std::vector<int> order(m.rows());
  for (int i = 0; i < m.rows(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), *rng);
  Eigen::MatrixXd result(m.rows(), m.cols());
  for (int i = 0; i < m.rows(); ++i) result.row(i) = m.row(order[i]);
  return result;
}

Eigen::MatrixXd AppendRows(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  Eigen::MatrixXd result(a.rows() + b.rows(), a.cols());
  result << a, b;
  return result;
}

void ExpectRelNear(double expected, double actual, double tolerance) {
  EXPECT_NEAR(expected, actual, tolerance * std::max(1.0, std::abs(expected)));
}

// ---------------------------------------------------------------------------
// Verified vectors.

TEST(Hypervolume, TwoDimensionalNotesExample) {
  const Eigen::MatrixXd points = Rows({{5, 5}, {4, 6}, {2, 7}, {7, 4}});
  EXPECT_DOUBLE_EQ(38.0, Hypervolume(points, Vec({10, 10})));
  // The same points maximized with reference 0 (moocore docstring): 39.
  EXPECT_DOUBLE_EQ(39.0, Hypervolume(-points, Vec({0, 0})));
}

TEST(Hypervolume, InverseLossExampleFromNotes) {
  // Losses {(0.5,2),(1,1),(2,0.4)}, scored as v = 1/loss (maximized) with
  // reference 0.
  const Eigen::MatrixXd losses = Rows({{0.5, 2}, {1, 1}, {2, 0.4}});
  const Eigen::MatrixXd v = losses.cwiseInverse();
  EXPECT_NEAR(2.25, Hypervolume(-v, Vec({0, 0})), 1e-12);
}

TEST(Hypervolume, ThreeDimensionalNotesExample) {
  const Eigen::MatrixXd points = Rows({{1, 2, 3}, {2, 3, 1}, {3, 1, 2}});
  EXPECT_DOUBLE_EQ(13.0, Hypervolume(points, Vec({4, 4, 4})));
}

TEST(Hypervolume, FourDimensionalNotesExample) {
  const Eigen::MatrixXd points =
      Rows({{1, 2, 3, 4}, {4, 3, 2, 1}, {2, 2, 2, 2}, {3, 1, 4, 2}});
  EXPECT_DOUBLE_EQ(99.0, Hypervolume(points, Vec({5, 5, 5, 5})));
  EXPECT_DOUBLE_EQ(99.0, InclusionExclusionHv(points, Vec({5, 5, 5, 5})));
}

TEST(Hypervolume, OneDimension) {
  EXPECT_DOUBLE_EQ(7.0, Hypervolume(Rows({{3}, {5}, {12}}), Vec({10})));
  EXPECT_DOUBLE_EQ(0.0, Hypervolume(Rows({{12}}), Vec({10})));
}

TEST(Hypervolume, SinglePointIsABox) {
  EXPECT_DOUBLE_EQ(2.0 * 3.0 * 4.0 * 5.0 * 6.0,
                   Hypervolume(Rows({{0, 0, 0, 0, 0}}), Vec({2, 3, 4, 5, 6})));
}

TEST(Hypervolume, EmptySetIsZero) {
  for (int dim = 1; dim <= 5; ++dim) {
    std::string error;
    EXPECT_EQ(0.0,
              Hypervolume(
                  Eigen::MatrixXd(0, dim), Eigen::VectorXd::Ones(dim), &error));
    EXPECT_TRUE(error.empty());
  }
}

TEST(Hypervolume, PointsNotStrictlyDominatingTheReferenceContributeNothing) {
  const Eigen::MatrixXd points = Rows({{5, 5}, {4, 6}, {2, 7}, {7, 4}});
  const Eigen::MatrixXd outside =
      Rows({{10, 0}, {0, 10}, {11, 1}, {1, 12}, {10, 10}, {-5, 10}});
  EXPECT_DOUBLE_EQ(38.0,
                   Hypervolume(AppendRows(points, outside), Vec({10, 10})));
  EXPECT_DOUBLE_EQ(0.0, Hypervolume(outside, Vec({10, 10})));
  const Eigen::MatrixXd outside4 =
      Rows({{5, 5, 5, 0}, {0, 0, 0, 5}, {6, 0, 0, 0}, {0, 0, 0, 7}});
  EXPECT_DOUBLE_EQ(0.0, Hypervolume(outside4, Vec({5, 5, 5, 5})));
}

// ---------------------------------------------------------------------------
// Errors.

TEST(Hypervolume, RejectsBadInput) {
  std::string error;
  EXPECT_TRUE(std::isnan(Hypervolume(Rows({{1, 2}}), Vec({3, 3, 3}), &error)));
  EXPECT_NE(std::string::npos, error.find("3 entries")) << error;
  EXPECT_NE(std::string::npos, error.find("2 objectives")) << error;

  error.clear();
  EXPECT_TRUE(std::isnan(
      Hypervolume(Eigen::MatrixXd(3, 0), Eigen::VectorXd(0), &error)));
  EXPECT_NE(std::string::npos, error.find("0 objectives")) << error;

  error.clear();
  Eigen::MatrixXd nan_points = Rows({{1, 2}, {2, 1}});
  nan_points(1, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(Hypervolume(nan_points, Vec({3, 3}), &error)));
  EXPECT_NE(std::string::npos, error.find("point 1, objective 0")) << error;

  error.clear();
  Eigen::MatrixXd inf_points = Rows({{1, 2}, {2, 1}});
  inf_points(0, 1) = -std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(Hypervolume(inf_points, Vec({3, 3}), &error)));
  EXPECT_FALSE(error.empty());

  error.clear();
  EXPECT_TRUE(
      std::isnan(Hypervolume(Rows({{1, 2}}),
                             Vec({3, std::numeric_limits<double>::infinity()}),
                             &error)));
  EXPECT_NE(std::string::npos, error.find("reference")) << error;

  // A null error pointer is allowed.
  EXPECT_TRUE(std::isnan(Hypervolume(Rows({{1, 2}}), Vec({3}))));
}

// ---------------------------------------------------------------------------
// Independent oracles on random sets.

TEST(Hypervolume, MatchesInclusionExclusionOnRandomSets) {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<int> size(1, 10);
  for (int dim = 2; dim <= 5; ++dim) {
    for (int trial = 0; trial < 60; ++trial) {
      const int n = size(rng);
      const Eigen::MatrixXd points = RandomPoints(n, dim, &rng);
      // Some points fall outside the reference box.
      const Eigen::VectorXd reference =
          Eigen::VectorXd::Constant(dim, trial % 3 == 0 ? 0.8 : 1.0);
      const double expected = InclusionExclusionHv(points, reference);
      std::string error;
      const double actual = Hypervolume(points, reference, &error);
      ASSERT_TRUE(error.empty()) << error;
      ExpectRelNear(expected, actual, 1e-12);
    }
  }
}

TEST(Hypervolume, MatchesCellCountOnIntegerSetsWithTies) {
  // Integer coordinates make ties, duplicates and weak dominance frequent.
  std::mt19937_64 rng(777);
  std::uniform_int_distribution<int> size(1, 25);
  const int side = 6;
  for (int dim = 1; dim <= 5; ++dim) {
    for (int trial = 0; trial < 40; ++trial) {
      const Eigen::MatrixXd points =
          RandomIntegerPoints(size(rng), dim, side, &rng);
      const Eigen::VectorXd reference = Eigen::VectorXd::Constant(dim, side);
      EXPECT_DOUBLE_EQ(CellCountHv(points, side),
                       Hypervolume(points, reference))
          << "dim " << dim << " trial " << trial;
    }
  }
}

// ---------------------------------------------------------------------------
// Invariances.

TEST(Hypervolume, InvariantUnderPermutationDominatedAndDuplicatePoints) {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int dim = 2; dim <= 5; ++dim) {
    const int n = dim <= 3 ? 300 : 40;
    const Eigen::MatrixXd front = SpherePoints(n, dim, &rng);
    const Eigen::VectorXd reference = Eigen::VectorXd::Constant(dim, 1.1);
    const double base = Hypervolume(front, reference);
    ASSERT_GT(base, 0.0);

    ExpectRelNear(
        base, Hypervolume(PermuteRows(front, &rng), reference), 1e-12);

    // Dominated points: each front point pushed away by a random amount.
    Eigen::MatrixXd dominated = front;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < dim; ++j) dominated(i, j) += 0.2 * uniform(rng);
    }
    ExpectRelNear(
        base,
        Hypervolume(PermuteRows(AppendRows(front, dominated), &rng), reference),
        1e-12);

    // Duplicates.
    ExpectRelNear(
        base, Hypervolume(AppendRows(front, front), reference), 1e-12);
  }
}

TEST(Hypervolume, ScalesAndTranslatesLikeAVolume) {
  std::mt19937_64 rng(99);
  for (int dim = 2; dim <= 5; ++dim) {
    const Eigen::MatrixXd points = RandomPoints(dim <= 3 ? 200 : 30, dim, &rng);
    const Eigen::VectorXd reference = Eigen::VectorXd::Ones(dim);
    const double base = Hypervolume(points, reference);
    const double scale = 2.5;
    ExpectRelNear(std::pow(scale, dim) * base,
                  Hypervolume(scale * points, scale * reference),
                  1e-12);
    const Eigen::RowVectorXd shift = Eigen::RowVectorXd::LinSpaced(dim, -3, 7);
    ExpectRelNear(
        base,
        Hypervolume(points.rowwise() + shift, reference + shift.transpose()),
        1e-12);
  }
}

// A set with a constant extra objective c and reference r' has volume
// HV_{S}(P) * (r' - c): checks the S = 3 sweep and WFG against the lower
// dimensional algorithms on sets too large for the brute-force oracles.
TEST(Hypervolume, EmbeddingInOneMoreDimension) {
  std::mt19937_64 rng(5);
  for (int dim = 1; dim <= 4; ++dim) {
    const int n = dim <= 2 ? 500 : 60;
    const Eigen::MatrixXd points =
        AppendRows(SpherePoints(n, dim, &rng), RandomPoints(n, dim, &rng));
    const Eigen::VectorXd reference = Eigen::VectorXd::Constant(dim, 1.2);
    const double base = Hypervolume(points, reference);
    Eigen::MatrixXd lifted(points.rows(), dim + 1);
    lifted << points, Eigen::VectorXd::Constant(points.rows(), 0.5);
    Eigen::VectorXd lifted_reference(dim + 1);
    lifted_reference << reference, 2.0;
    ExpectRelNear(1.5 * base, Hypervolume(lifted, lifted_reference), 1e-12);
  }
}

TEST(Hypervolume, StrictlyMonotoneWhenAddingANonDominatedPoint) {
  const Eigen::MatrixXd points = Rows({{1, 2, 3}, {2, 3, 1}, {3, 1, 2}});
  const Eigen::MatrixXd more = AppendRows(points, Rows({{1.5, 1.5, 1.5}}));
  EXPECT_GT(Hypervolume(more, Vec({4, 4, 4})),
            Hypervolume(points, Vec({4, 4, 4})));
}

// ---------------------------------------------------------------------------
// Non-dominated filtering, ideal, nadir, reference point.

TEST(NonDominatedIndices, WeakDominanceAndFirstDuplicateKept) {
  const Eigen::MatrixXd points = Rows({
      {3, 3},  // 0: dominated by 1
      {2, 2},  // 1
      {2, 2},  // 2: duplicate of 1
      {1, 5},  // 3
      {1, 6},  // 4: weakly dominated by 3 (equal first objective)
      {4, 1},  // 5
      {5, 1},  // 6: weakly dominated by 5
  });
  EXPECT_EQ((std::vector<int>{1, 3, 5}), NonDominatedIndices(points));
}

TEST(NonDominatedIndices, HigherDimensionAndNaN) {
  Eigen::MatrixXd points = Rows({
      {1, 2, 3},  // 0
      {2, 3, 1},  // 1
      {1, 2, 3},  // 2: duplicate of 0
      {2, 3, 4},  // 3: dominated by 0
      {0, 9, 9},  // 4
      {5, 5, 5},  // 5: NaN below
  });
  points(5, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ((std::vector<int>{0, 1, 4}), NonDominatedIndices(points));
  EXPECT_TRUE(NonDominatedIndices(Eigen::MatrixXd(0, 3)).empty());
}

// The definition: a point is kept unless another weakly dominates it (of
// equal points, the first is kept).
std::vector<int> PairwiseNonDominated(const Eigen::MatrixXd& points) {
  std::vector<int> kept;
  for (int i = 0; i < points.rows(); ++i) {
    bool keep = true;
    for (int k = 0; k < points.rows() && keep; ++k) {
      if (k == i) continue;
      const bool weakly =
          (points.row(k).array() <= points.row(i).array()).all();
      const bool equal = points.row(k) == points.row(i);
      if (weakly && (!equal || k < i)) keep = false;
    }
    if (keep) kept.push_back(i);
  }
  return kept;
}

TEST(NonDominatedIndices, AgreesWithPairwiseDefinition) {
  std::mt19937_64 rng(31);
  for (int dim = 1; dim <= 5; ++dim) {
    const Eigen::MatrixXd points = RandomIntegerPoints(60, dim, 4, &rng);
    const std::vector<int> expected = PairwiseNonDominated(points);
    EXPECT_EQ(expected, NonDominatedIndices(points)) << "dim " << dim;
  }
}

// The three-objective sweep against the pairwise definition on larger sets:
// many ties (integer coordinates), duplicates, and a front with no
// dominated point at all (where the sweep's staircase is longest).
TEST(NonDominatedIndices, ThreeObjectiveSweepAgreesWithPairwiseDefinition) {
  std::mt19937_64 rng(47);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int set = 0; set < 3; ++set) {
    Eigen::MatrixXd points;
    if (set == 0) {
      points = RandomIntegerPoints(1500, 3, 12, &rng);
    } else if (set == 1) {
      points = RandomIntegerPoints(1500, 3, 40, &rng);
    } else {
      // On the sphere's negative octant: mutually non-dominated, plus some
      // exact duplicates and points pushed up (dominated).
      points.resize(1500, 3);
      for (int i = 0; i < 1500; ++i) {
        Eigen::Vector3d v(uniform(rng), uniform(rng), uniform(rng));
        points.row(i) = -v.normalized().transpose();
        if (i % 10 == 9) points.row(i) = points.row(i - 3);
        if (i % 10 == 7) points(i, 2) += 0.5;
      }
    }
    const std::vector<int> expected = PairwiseNonDominated(points);
    EXPECT_EQ(expected, NonDominatedIndices(points)) << "set " << set;
    if (set == 2) {
      EXPECT_GT(expected.size(), 1000u);
    }
  }
}

// The tolerant rule (sweep reports and plots) against its definition applied
// to every pair, on sets with near-duplicates, exact duplicates, points just
// inside and just outside the tolerance, and non-finite rows.
TEST(NonDominatedWithTolerance, AgreesWithPairwiseDefinition) {
  std::mt19937_64 rng(59);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double rel = 1e-3;
  for (int dim = 2; dim <= 4; ++dim) {
    Eigen::MatrixXd points(300, dim);
    for (int i = 0; i < points.rows(); ++i) {
      for (int s = 0; s < dim; ++s) points(i, s) = std::floor(8 * uniform(rng));
      if (i % 7 == 6) {
        // A near-duplicate of an earlier row: within or beyond the
        // tolerance (the range is 7 in every objective).
        points.row(i) = points.row(i - 3);
        points(i, 0) += (i % 2 ? 0.5 : 2.0) * rel * 7.0;
      }
    }
    points(5, 1) = std::numeric_limits<double>::quiet_NaN();
    points(9, 0) = std::numeric_limits<double>::infinity();
    std::vector<int> finite;
    for (int i = 0; i < points.rows(); ++i) {
      if (points.row(i).allFinite()) finite.push_back(i);
    }
    Eigen::VectorXd lo = points.row(finite[0]).transpose(), hi = lo;
    for (int i : finite) {
      lo = lo.cwiseMin(points.row(i).transpose());
      hi = hi.cwiseMax(points.row(i).transpose());
    }
    const Eigen::VectorXd tol = rel * (hi - lo);
    std::vector<int> expected;
    for (int i : finite) {
      bool dominated = false;
      for (int j : finite) {
        if (j == i) continue;
        const Eigen::ArrayXd d = (points.row(j) - points.row(i)).transpose();
        if ((d <= tol.array()).all() && (d < -tol.array()).any()) {
          dominated = true;
        }
      }
      if (!dominated) expected.push_back(i);
    }
    EXPECT_EQ(expected, NonDominatedWithTolerance(points, rel)) << "dim " << dim;
    // Near-duplicates within the tolerance survive together; the exact rule
    // keeps one of them.
    EXPECT_GT(expected.size(), NonDominatedIndices(points).size());
  }
}

TEST(IdealNadir, IgnoreDominatedPointsForTheNadir) {
  const Eigen::MatrixXd points = Rows({{5, 5}, {4, 6}, {2, 7}, {7, 4}, {9, 9}});
  EXPECT_EQ(Vec({2, 4}), Ideal(points));
  EXPECT_EQ(Vec({7, 7}), Nadir(points));
  EXPECT_TRUE(Ideal(Eigen::MatrixXd(0, 2)).array().isNaN().all());
  EXPECT_TRUE(Nadir(Eigen::MatrixXd(0, 2)).array().isNaN().all());
  // With the non-dominated rows given (as a sweep's summary passes them).
  EXPECT_EQ(Vec({7, 7}), Nadir(points, NonDominatedIndices(points)));
  EXPECT_EQ(Vec({5, 6}), Nadir(points, {0, 1}));
  EXPECT_TRUE(Nadir(points, {}).array().isNaN().all());
}

TEST(DefaultReferencePoint, NadirPlusOffsetTimesRange) {
  const Eigen::MatrixXd points = Rows({{5, 5}, {4, 6}, {2, 7}, {7, 4}, {9, 9}});
  // ideal (2, 4), nadir (7, 7): ranges (5, 3).
  const Eigen::VectorXd reference = DefaultReferencePoint(points);
  EXPECT_DOUBLE_EQ(7.5, reference[0]);
  EXPECT_DOUBLE_EQ(7.3, reference[1]);
  const Eigen::VectorXd wide = DefaultReferencePoint(points, 1.0);
  EXPECT_DOUBLE_EQ(12.0, wide[0]);
  EXPECT_DOUBLE_EQ(10.0, wide[1]);
  // Every non-dominated point strictly dominates it, so all contribute.
  for (int i : NonDominatedIndices(points)) {
    EXPECT_TRUE((points.row(i).transpose().array() < reference.array()).all());
  }
}

TEST(DefaultReferencePoint, AbsoluteOffsetWhereTheRangeIsZero) {
  const Eigen::MatrixXd points = Rows({{1, 3, 2}, {2, 3, 1}});
  const Eigen::VectorXd reference = DefaultReferencePoint(points, 0.25);
  EXPECT_DOUBLE_EQ(2.25, reference[0]);
  EXPECT_DOUBLE_EQ(3.25, reference[1]);
  EXPECT_DOUBLE_EQ(2.25, reference[2]);
  const Eigen::VectorXd single = DefaultReferencePoint(Rows({{4, 5}}));
  EXPECT_DOUBLE_EQ(4.1, single[0]);
  EXPECT_DOUBLE_EQ(5.1, single[1]);
}

// From the ideal and nadir points themselves: the same rule.
TEST(DefaultReferencePoint, FromTheIdealAndNadirPoints) {
  // ideal (2, 4), nadir (7, 7) as in NadirPlusOffsetTimesRange.
  const Eigen::VectorXd reference =
      DefaultReferencePoint(Vec({2, 4}), Vec({7, 7}), 0.1);
  EXPECT_DOUBLE_EQ(7.5, reference[0]);
  EXPECT_DOUBLE_EQ(7.3, reference[1]);
  // A zero range: the offset in absolute terms.
  const Eigen::VectorXd flat =
      DefaultReferencePoint(Vec({3, 1}), Vec({3, 2}), 0.25);
  EXPECT_DOUBLE_EQ(3.25, flat[0]);
  EXPECT_DOUBLE_EQ(2.25, flat[1]);
  EXPECT_TRUE(DefaultReferencePoint(Vec({2, 4}), Vec({7, 7}), -1.0)
                  .array()
                  .isNaN()
                  .all());
  EXPECT_TRUE(
      DefaultReferencePoint(Vec({2}), Vec({7, 7}), 0.1).array().isNaN().all());
  EXPECT_TRUE(DefaultReferencePoint(Vec({NAN, 4}), Vec({7, 7}), 0.1)
                  .array()
                  .head(1)
                  .isNaN()
                  .all());
}

TEST(DefaultReferencePoint, InvalidInputGivesNaN) {
  const Eigen::MatrixXd points = Rows({{1, 2}, {2, 1}});
  EXPECT_TRUE(DefaultReferencePoint(points, -0.1).array().isNaN().all());
  EXPECT_TRUE(
      DefaultReferencePoint(points, std::nan("")).array().isNaN().all());
  EXPECT_TRUE(
      DefaultReferencePoint(Eigen::MatrixXd(0, 2)).array().isNaN().all());
  EXPECT_EQ(2, DefaultReferencePoint(Eigen::MatrixXd(0, 2)).size());
}

// ---------------------------------------------------------------------------
// Epsilon, IGD, IGD+.

// moocore's documentation example (values re-derived in the project notes).
const Eigen::MatrixXd& MoocoreApproximation() {
  static const Eigen::MatrixXd m =
      Rows({{3.5, 5.5}, {3.6, 4.1}, {4.1, 3.2}, {5.5, 1.5}});
  return m;
}
const Eigen::MatrixXd& MoocoreReference() {
  static const Eigen::MatrixXd m =
      Rows({{1, 6}, {2, 5}, {3, 4}, {4, 3}, {5, 2}, {6, 1}});
  return m;
}

TEST(Epsilon, MoocoreExample) {
  EXPECT_NEAR(
      2.5, AdditiveEpsilon(MoocoreApproximation(), MoocoreReference()), 1e-12);
  EXPECT_NEAR(3.5,
              MultiplicativeEpsilon(MoocoreApproximation(), MoocoreReference()),
              1e-12);
}

TEST(Igd, MoocoreExample) {
  EXPECT_NEAR(1.0627908666722465,
              Igd(MoocoreApproximation(), MoocoreReference()),
              1e-14);
  EXPECT_NEAR(0.9855036468106652,
              IgdPlus(MoocoreApproximation(), MoocoreReference()),
              1e-14);
}

TEST(Epsilon, IdentityAndDominance) {
  const Eigen::MatrixXd& r = MoocoreReference();
  EXPECT_DOUBLE_EQ(0.0, AdditiveEpsilon(r, r));
  EXPECT_DOUBLE_EQ(1.0, MultiplicativeEpsilon(r, r));
  EXPECT_DOUBLE_EQ(0.0, Igd(r, r));
  EXPECT_DOUBLE_EQ(0.0, IgdPlus(r, r));
  // A set that dominates R: eps+ < 0, eps* < 1, IGD+ = 0 but IGD > 0.
  const Eigen::MatrixXd better = (r.array() - 0.5).matrix();
  EXPECT_DOUBLE_EQ(-0.5, AdditiveEpsilon(better, r));
  EXPECT_LT(MultiplicativeEpsilon(better, r), 1.0);
  EXPECT_DOUBLE_EQ(0.0, IgdPlus(better, r));
  EXPECT_NEAR(std::sqrt(0.5), Igd(better, r), 1e-15);
  // Translating A by t raises eps+ by t.
  EXPECT_NEAR(
      2.5 + 0.75,
      AdditiveEpsilon((MoocoreApproximation().array() + 0.75).matrix(), r),
      1e-12);
  // Scaling A by c multiplies eps* by c.
  EXPECT_NEAR(
      3.5 * 2.0, MultiplicativeEpsilon(2.0 * MoocoreApproximation(), r), 1e-12);
}

TEST(Epsilon, IndicatorsAreInvariantUnderPermutationAndDuplicates) {
  std::mt19937_64 rng(8);
  const Eigen::MatrixXd a = (RandomPoints(30, 3, &rng).array() + 0.1).matrix();
  const Eigen::MatrixXd r = (RandomPoints(20, 3, &rng).array() + 0.1).matrix();
  const Eigen::MatrixXd a2 = PermuteRows(AppendRows(a, a), &rng);
  const Eigen::MatrixXd r2 = PermuteRows(r, &rng);
  EXPECT_DOUBLE_EQ(AdditiveEpsilon(a, r), AdditiveEpsilon(a2, r2));
  EXPECT_DOUBLE_EQ(MultiplicativeEpsilon(a, r), MultiplicativeEpsilon(a2, r2));
  EXPECT_NEAR(Igd(a, r), Igd(a2, r2), 1e-14);
  EXPECT_NEAR(IgdPlus(a, r), IgdPlus(a2, r2), 1e-14);
}

TEST(Epsilon, RejectsBadInput) {
  const Eigen::MatrixXd& a = MoocoreApproximation();
  const Eigen::MatrixXd& r = MoocoreReference();
  using Indicator =
      double (*)(const Eigen::MatrixXd&, const Eigen::MatrixXd&, std::string*);
  const Indicator indicators[] = {
      &AdditiveEpsilon, &MultiplicativeEpsilon, &Igd, &IgdPlus};
  for (Indicator indicator : indicators) {
    std::string error;
    EXPECT_TRUE(std::isnan(indicator(a, Rows({{1, 2, 3}}), &error)));
    EXPECT_NE(std::string::npos, error.find("2 objectives")) << error;
    error.clear();
    EXPECT_TRUE(std::isnan(indicator(Eigen::MatrixXd(0, 2), r, &error)));
    EXPECT_NE(std::string::npos, error.find("empty")) << error;
    error.clear();
    EXPECT_TRUE(std::isnan(indicator(a, Eigen::MatrixXd(0, 2), &error)));
    EXPECT_NE(std::string::npos, error.find("empty")) << error;
    error.clear();
    Eigen::MatrixXd bad = a;
    bad(2, 1) = std::numeric_limits<double>::infinity();
    EXPECT_TRUE(std::isnan(indicator(bad, r, &error)));
    EXPECT_NE(std::string::npos, error.find("point 2, objective 1")) << error;
    EXPECT_TRUE(std::isnan(indicator(bad, r, nullptr)));
  }
}

TEST(Epsilon, MultiplicativeNeedsPositiveValues) {
  std::string error;
  Eigen::MatrixXd r = MoocoreReference();
  r(3, 0) = 0.0;
  EXPECT_TRUE(
      std::isnan(MultiplicativeEpsilon(MoocoreApproximation(), r, &error)));
  EXPECT_NE(std::string::npos, error.find("reference front point 3")) << error;
  EXPECT_NE(std::string::npos, error.find("> 0")) << error;
  // The other indicators accept non-positive values.
  EXPECT_FALSE(std::isnan(AdditiveEpsilon(MoocoreApproximation(), -r)));
}

// Points on the unit simplex's positive orthant face (sum = 1), a
// typical many-objective front: no point dominates another.
Eigen::MatrixXd SimplexFront(int n, int S, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::exponential_distribution<double> draw(1.0);
  Eigen::MatrixXd points(n, S);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < S; ++j) points(i, j) = draw(engine);
    points.row(i) /= points.row(i).sum();
  }
  return points;
}

// Issue 60, row 13: 100 points in 15 objectives ran the exact WFG for
// minutes in a plot title.
TEST(HypervolumeBudget, ManyObjectivesGetAnEstimateAtOnce) {
  const Eigen::MatrixXd front = SimplexFront(100, 15, 7);
  const Eigen::VectorXd reference = Eigen::VectorXd::Constant(15, 1.1);
  std::string error;
  EXPECT_TRUE(std::isnan(HypervolumeWithinBudget(
      front, reference, kHypervolumeWorkBudget, &error)));
  EXPECT_NE(error.find("exceeds its work budget"), std::string::npos) << error;
  const HypervolumeValue hv = BoundedHypervolume(front, reference);
  EXPECT_TRUE(hv.estimated);
  // The dominated region lies between the box [0, 1.1]^15 minus the
  // region below the simplex face; at least the box of the best point in
  // each objective pair is dominated. A loose but independent check: the
  // estimate is positive, below the box, and its error is small.
  EXPECT_GT(hv.value, 0.0);
  EXPECT_LT(hv.value, std::pow(1.1, 15));
  EXPECT_GT(hv.standard_error, 0.0);
  EXPECT_LT(hv.standard_error, 0.02 * hv.value);
}

TEST(HypervolumeBudget, TheEstimateAgreesWithTheExactValue) {
  for (int S : {2, 3, 4, 5}) {
    SCOPED_TRACE(S);
    const Eigen::MatrixXd front = SimplexFront(30, S, 11 + S);
    const Eigen::VectorXd reference = Eigen::VectorXd::Constant(S, 1.2);
    const double exact = Hypervolume(front, reference);
    // Within budget: the exact value, not an estimate.
    const HypervolumeValue bounded = BoundedHypervolume(front, reference);
    EXPECT_FALSE(bounded.estimated);
    EXPECT_EQ(bounded.value, exact);
    double se = 0.0;
    const double estimate =
        HypervolumeEstimate(front, reference, 200000, 3, &se);
    // Four standard errors: fails about once in 16,000 seeds; the seed is
    // fixed, so the test is deterministic.
    EXPECT_NEAR(estimate, exact, 4.0 * se + 1e-12);
    EXPECT_GT(se, 0.0);
  }
  // A budget too small for WFG gives NaN, not a wrong value.
  const Eigen::MatrixXd front = SimplexFront(30, 5, 1);
  EXPECT_TRUE(std::isnan(
      HypervolumeWithinBudget(front, Eigen::VectorXd::Constant(5, 1.2), 10)));
  // Bad input is refused as by Hypervolume.
  std::string error;
  EXPECT_TRUE(std::isnan(HypervolumeEstimate(
      front, Eigen::VectorXd::Constant(4, 1.2), 100, 1, nullptr, &error)));
  EXPECT_NE(error.find("reference point has 4 entries"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace ecmo
