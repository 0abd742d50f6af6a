// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Tests of the L-BFGS pairs and two-loop recursion shared by BoxLbfgs and
// wc-sqp (plugin/src/lbfgs_memory.h), against the dense BFGS inverse update
// written out as matrices (independent of the recursion):
//   H_{i+1} = (I - r s y^T) H_i (I - r y s^T) + r s s^T,  r = 1 / s^T y,
// from H_0 = gamma I (gamma of the newest pair, or 1 unscaled);
//   - H x for full and wrapped rings (only the newest `rank` pairs count);
//   - the secant condition H y = s of the newest pair;
//   - pairs without positive curvature are refused and change nothing;
//   - on a free set, H acts on the free variables only (zero elsewhere)
//     and equals the dense update restricted to them.

#include "lbfgs_memory.h"

#include <limits>
#include <random>
#include <vector>

#include "Eigen/Dense"
#include "gtest/gtest.h"

namespace ecmo {
namespace internal {
namespace {

struct Pair {
  Eigen::VectorXd s, y;
};

// Pairs with positive curvature: y = A s for a random symmetric positive
// definite A (a quadratic's gradient differences).
std::vector<Pair> QuadraticPairs(int n, int count, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd M(n, n);
  for (int i = 0; i < n * n; ++i) M.data()[i] = normal(random);
  const Eigen::MatrixXd A =
      M * M.transpose() + n * Eigen::MatrixXd::Identity(n, n);
  std::vector<Pair> pairs;
  for (int c = 0; c < count; ++c) {
    Pair p;
    p.s.resize(n);
    for (int i = 0; i < n; ++i) p.s[i] = normal(random);
    p.y = A * p.s;
    pairs.push_back(p);
  }
  return pairs;
}

// The dense BFGS inverse after the given pairs (oldest first).
Eigen::MatrixXd DenseInverse(const std::vector<Pair>& pairs, bool scale) {
  const int n = static_cast<int>(pairs.front().s.size());
  const Pair& newest = pairs.back();
  const double gamma =
      scale ? newest.s.dot(newest.y) / newest.y.squaredNorm() : 1.0;
  Eigen::MatrixXd H = gamma * Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n);
  for (const Pair& p : pairs) {
    const double r = 1.0 / p.s.dot(p.y);
    H = (I - r * p.s * p.y.transpose()) * H * (I - r * p.y * p.s.transpose()) +
        r * p.s * p.s.transpose();
  }
  return H;
}

void Push(LbfgsMemory* memory, const Pair& p) {
  memory->next_s() = p.s;
  memory->next_y() = p.y;
  ASSERT_TRUE(memory->Commit(1e-16, 1e-10));
}

// A memory of `rank` pairs holding `pairs` (the newest `rank` of them).
LbfgsMemory Filled(const std::vector<Pair>& pairs, int rank) {
  LbfgsMemory memory;
  memory.Resize(static_cast<int>(pairs.front().s.size()), rank);
  for (const Pair& p : pairs) Push(&memory, p);
  return memory;
}

// memory's H x against the dense update from `pairs`.
void ExpectAppliesTheDenseInverse(const LbfgsMemory& memory,
                                  const std::vector<Pair>& pairs,
                                  const Eigen::VectorXd& x,
                                  bool scale) {
  Eigen::VectorXd hx = x;
  memory.ApplyInverse(hx, nullptr, scale);
  const Eigen::VectorXd expected = DenseInverse(pairs, scale) * x;
  EXPECT_LE((hx - expected).norm(), 1e-12 * expected.norm()) << scale;
}

TEST(LbfgsMemory, MatchesTheDenseBfgsInverseUpdate) {
  const int n = 6;
  const std::vector<Pair> pairs = QuadraticPairs(n, 4, 1);
  const LbfgsMemory memory = Filled(pairs, 5);
  EXPECT_EQ(memory.size(), 4);
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
  for (bool scale : {true, false}) {
    ExpectAppliesTheDenseInverse(memory, pairs, x, scale);
  }
  // Secant condition of the newest pair.
  Eigen::VectorXd hy = pairs.back().y;
  memory.ApplyInverse(hy, nullptr, true);
  EXPECT_LE((hy - pairs.back().s).norm(), 1e-12 * pairs.back().s.norm());
}

TEST(LbfgsMemory, AWrappedRingKeepsOnlyTheNewestPairs) {
  const int n = 5;
  const std::vector<Pair> pairs = QuadraticPairs(n, 7, 2);
  const LbfgsMemory memory = Filled(pairs, 3);
  EXPECT_EQ(memory.size(), 3);
  const std::vector<Pair> newest(pairs.end() - 3, pairs.end());
  ExpectAppliesTheDenseInverse(memory, newest, Eigen::VectorXd::Ones(n), true);
}

TEST(LbfgsMemory, RefusesPairsWithoutPositiveCurvature) {
  const int n = 4;
  const std::vector<Pair> pairs = QuadraticPairs(n, 2, 3);
  LbfgsMemory memory;
  memory.Resize(n, 4);
  Push(&memory, pairs[0]);
  // Negative curvature, zero y, and a non-finite y are all refused.
  memory.next_s() = pairs[1].s;
  memory.next_y() = -pairs[1].y;
  EXPECT_FALSE(memory.Commit(1e-16, 0.0));
  memory.next_y().setZero();
  EXPECT_FALSE(memory.Commit(1e-16, 0.0));
  memory.next_y() = pairs[1].y;
  memory.next_y()[0] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(memory.Commit(1e-16, 0.0));
  // Positive but nearly orthogonal to s: refused by the angle test only.
  Eigen::VectorXd orthogonal = pairs[1].s.unitOrthogonal();
  memory.next_s() = pairs[1].s;
  memory.next_y() = orthogonal + 1e-12 * pairs[1].s / pairs[1].s.norm();
  EXPECT_FALSE(memory.Commit(0.0, 1e-10));
  EXPECT_TRUE(memory.Commit(0.0, 0.0));
  memory.Clear();
  EXPECT_EQ(memory.size(), 0);
  // After Clear the memory starts over.
  Push(&memory, pairs[0]);
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(n, 1.0, 4.0);
  ExpectAppliesTheDenseInverse(memory, {pairs[0]}, x, true);
  memory.Clear();
  Eigen::VectorXd hx = x;
  memory.ApplyInverse(hx, nullptr, true);
  EXPECT_EQ(hx, x);
}

TEST(LbfgsMemory, OnAFreeSetActsOnTheFreeVariablesOnly) {
  const int n = 6;
  Eigen::VectorXd free(n);
  free << 1, 0, 1, 1, 0, 1;
  // Steps along the free variables (so that their curvature there is
  // s^T A s > 0); y has entries on the fixed ones too, which H ignores.
  std::vector<Pair> pairs = QuadraticPairs(n, 3, 4);
  const Eigen::MatrixXd A =
      Eigen::VectorXd::LinSpaced(n, 1.0, 6.0).asDiagonal().toDenseMatrix() +
      0.3 * Eigen::MatrixXd::Ones(n, n);
  for (Pair& p : pairs) {
    p.s = p.s.cwiseProduct(free);
    p.y = A * p.s;
  }
  const LbfgsMemory memory = Filled(pairs, 3);
  // The same pairs restricted to the free variables, as a dense update.
  std::vector<int> index = {0, 2, 3, 5};
  std::vector<Pair> restricted;
  for (const Pair& p : pairs) {
    Pair r;
    r.s.resize(4);
    r.y.resize(4);
    for (int i = 0; i < 4; ++i) {
      r.s[i] = p.s[index[i]];
      r.y[i] = p.y[index[i]];
    }
    restricted.push_back(r);
  }
  Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(n, 0.5, 3.0);
  x = x.cwiseProduct(free);  // callers start from a masked vector
  Eigen::VectorXd hx = x;
  memory.ApplyInverse(hx, &free, true);
  Eigen::VectorXd x_free(4);
  for (int i = 0; i < 4; ++i) x_free[i] = x[index[i]];
  const Eigen::VectorXd expected = DenseInverse(restricted, true) * x_free;
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(hx[index[i]], expected[i], 1e-12 * expected.norm()) << i;
  }
  EXPECT_EQ(hx[1], 0.0);
  EXPECT_EQ(hx[4], 0.0);
}

}  // namespace
}  // namespace internal
}  // namespace ecmo
