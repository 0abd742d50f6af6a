// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: tests for ecmo/preference_grid.h.

#include "ecmo/preference_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test_files.h"

namespace ecmo {
namespace {

using Grid = std::vector<std::vector<double>>;

double Sum(const std::vector<double>& w) {
  return std::accumulate(w.begin(), w.end(), 0.0);
}

// Binomial coefficient by Pascal's triangle (independent of the
// implementation's multiplicative formula).
int64_t Binomial(int n, int k) {
  std::vector<std::vector<int64_t>> c(n + 1, std::vector<int64_t>(n + 1, 0));
  for (int i = 0; i <= n; ++i) {
    c[i][0] = 1;
    for (int j = 1; j <= i; ++j) c[i][j] = c[i - 1][j - 1] + c[i - 1][j];
  }
  return c[n][k];
}

// Writes `contents` to a fresh file in the test temporary directory.
std::string WriteTempFile(const std::string& name,
                          const std::string& contents) {
  const std::string path = ::testing::TempDir() + "/ecmo_pref_" + name;
  std::ofstream out(path);
  out << contents;
  return path;
}

using testing::Contains;

// ---------------------------------------------------------------------------
// Das-Dennis.

TEST(DasDennis, CountMatchesBinomial) {
  for (int S = 1; S <= 6; ++S) {
    for (int H = 1; H <= 12; ++H) {
      const int64_t expected = Binomial(H + S - 1, S - 1);
      EXPECT_EQ(expected, DasDennisCount(S, H)) << "S=" << S << " H=" << H;
      EXPECT_EQ(expected, static_cast<int64_t>(DasDennis(S, H).size()))
          << "S=" << S << " H=" << H;
    }
  }
  EXPECT_EQ(Binomial(40, 9), DasDennisCount(10, 31));
}

TEST(DasDennis, LatticePointsOnTheSimplexWithoutDuplicates) {
  for (int S = 1; S <= 5; ++S) {
    for (int H : {1, 2, 3, 7}) {
      const Grid grid = DasDennis(S, H);
      std::set<std::vector<int>> seen;
      for (const auto& w : grid) {
        ASSERT_EQ(static_cast<size_t>(S), w.size());
        EXPECT_NEAR(1.0, Sum(w), 1e-14);
        std::vector<int> k(S);
        for (int s = 0; s < S; ++s) {
          k[s] = static_cast<int>(std::lround(w[s] * H));
          EXPECT_EQ(static_cast<double>(k[s]) / H, w[s]);
          EXPECT_GE(k[s], 0);
        }
        EXPECT_TRUE(seen.insert(k).second) << "duplicate";
      }
    }
  }
}

TEST(DasDennis, CornersFirstThenLexicographic) {
  for (int S = 2; S <= 5; ++S) {
    const int H = 4;
    const Grid grid = DasDennis(S, H);
    ASSERT_GE(grid.size(), static_cast<size_t>(S));
    for (int s = 0; s < S; ++s) {
      std::vector<double> corner(S, 0.0);
      corner[s] = 1.0;
      EXPECT_EQ(corner, grid[s]);
    }
    EXPECT_TRUE(std::is_sorted(grid.begin() + S, grid.end()));
    EXPECT_EQ(std::adjacent_find(grid.begin() + S, grid.end()), grid.end());
    for (size_t i = S; i < grid.size(); ++i) {
      EXPECT_LT(*std::max_element(grid[i].begin(), grid[i].end()), 1.0);
    }
  }
}

TEST(DasDennis, SmallExampleExactly) {
  const Grid expected = {{1, 0, 0},
                         {0, 1, 0},
                         {0, 0, 1},
                         {0, 0.5, 0.5},
                         {0.5, 0, 0.5},
                         {0.5, 0.5, 0}};
  EXPECT_EQ(expected, DasDennis(3, 2));
  EXPECT_EQ((Grid{{1.0}}), DasDennis(1, 5));
}

TEST(DasDennis, InvalidArguments) {
  std::string error;
  EXPECT_TRUE(DasDennis(0, 3, &error).empty());
  EXPECT_FALSE(error.empty());
  EXPECT_TRUE(DasDennis(3, 0).empty());
  EXPECT_EQ(-1, DasDennisCount(0, 3));
  EXPECT_EQ(-1, DasDennisCount(3, 0));
  EXPECT_EQ(-1, DasDennisCount(60, 1000000));  // overflows int64

  // Too many vectors: the message names the largest admissible H.
  error.clear();
  EXPECT_TRUE(DasDennis(10, 40, &error).empty());
  int largest = 0;
  while (DasDennisCount(10, largest + 1) <= kMaxPreferenceCount) ++largest;
  EXPECT_TRUE(Contains(
      error,
      "largest admissible number of divisions is " + std::to_string(largest)))
      << error;
  EXPECT_EQ(DasDennisCount(10, largest),
            static_cast<int64_t>(DasDennis(10, largest).size()));
}

// ---------------------------------------------------------------------------
// Evenly spaced, presets.

TEST(EvenlySpaced2, EndpointsAndSteps) {
  const Grid grid = EvenlySpaced2(5);
  const Grid expected = {
      {0, 1}, {0.25, 0.75}, {0.5, 0.5}, {0.75, 0.25}, {1, 0}};
  EXPECT_EQ(expected, grid);
  EXPECT_EQ((Grid{{0, 1}, {1, 0}}), EvenlySpaced2(2));
  std::string error;
  EXPECT_TRUE(EvenlySpaced2(1, &error).empty());
  EXPECT_TRUE(Contains(error, "2 <= n")) << error;
  for (const auto& w : EvenlySpaced2(101)) EXPECT_NEAR(1.0, Sum(w), 1e-15);
}

TEST(PaperPresets, FiveObjectives) {
  const std::vector<NamedPreference> presets = PaperPresets(5);
  ASSERT_EQ(11u, presets.size());
  for (int s = 0; s < 5; ++s) {
    const NamedPreference& prefer = presets[s];
    const NamedPreference& slightly = presets[5 + s];
    EXPECT_EQ("prefer-f" + std::to_string(s + 1), prefer.name);
    EXPECT_EQ("slightly-prefer-f" + std::to_string(s + 1), slightly.name);
    for (int j = 0; j < 5; ++j) {
      EXPECT_DOUBLE_EQ(j == s ? 0.96 : 0.01, prefer.weights[j]);
      EXPECT_DOUBLE_EQ(j == s ? 0.84 : 0.04, slightly.weights[j]);
    }
    EXPECT_NEAR(1.0, Sum(prefer.weights), 1e-15);
    EXPECT_NEAR(1.0, Sum(slightly.weights), 1e-15);
  }
  EXPECT_EQ("equal", presets[10].name);
  EXPECT_EQ(std::vector<double>(5, 0.2), presets[10].weights);
}

TEST(PaperPresets, GeneralS) {
  const auto two = PaperPresets(2);
  ASSERT_EQ(5u, two.size());
  EXPECT_DOUBLE_EQ(0.99, two[0].weights[0]);
  EXPECT_DOUBLE_EQ(0.96, two[2].weights[0]);
  EXPECT_DOUBLE_EQ(0.04, two[2].weights[1]);

  // S = 24: "slightly prefer" still prefers (0.08 > 0.04); S = 25 would give
  // 0.04 everywhere, so the family is dropped.
  EXPECT_EQ(24u * 2 + 1, PaperPresets(24).size());
  EXPECT_EQ(25u + 1, PaperPresets(25).size());
  EXPECT_EQ(99u + 1, PaperPresets(99).size());
  EXPECT_EQ(1u, PaperPresets(100).size());
  for (const auto& p : PaperPresets(30)) {
    EXPECT_NEAR(1.0, Sum(p.weights), 1e-12) << p.name;
    EXPECT_GT(*std::min_element(p.weights.begin(), p.weights.end()), 0.0);
  }
  const auto one = PaperPresets(1);
  ASSERT_EQ(1u, one.size());
  EXPECT_EQ("equal", one[0].name);
  EXPECT_EQ(std::vector<double>{1.0}, one[0].weights);
  EXPECT_TRUE(PaperPresets(0).empty());
}

// ---------------------------------------------------------------------------
// Dirichlet.

TEST(RandomDirichlet, DeterministicAndOnTheSimplex) {
  const Grid a = RandomDirichlet(4, 200, 7);
  const Grid b = RandomDirichlet(4, 200, 7);
  const Grid c = RandomDirichlet(4, 200, 8);
  ASSERT_EQ(200u, a.size());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (const auto& w : a) {
    ASSERT_EQ(4u, w.size());
    EXPECT_NEAR(1.0, Sum(w), 1e-14);
    for (double v : w) EXPECT_GT(v, 0.0);
  }
  // A prefix of a longer draw is the shorter draw.
  const Grid prefix = RandomDirichlet(4, 50, 7);
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), a.begin()));
}

TEST(RandomDirichlet, MeanIsTheCentroid) {
  // E[lambda_s] = 1/S for a symmetric Dirichlet; with 20000 draws and
  // Var = (S-1)/(S^2 (S alpha + 1)) the standard error is below 0.003.
  for (double alpha : {0.3, 1.0, 5.0}) {
    const Grid draws = RandomDirichlet(3, 20000, 11, alpha);
    std::vector<double> mean(3, 0.0);
    for (const auto& w : draws) {
      for (int s = 0; s < 3; ++s) mean[s] += w[s] / draws.size();
    }
    for (double m : mean) EXPECT_NEAR(1.0 / 3.0, m, 0.015) << alpha;
  }
}

TEST(RandomDirichlet, InvalidArgumentsGiveEmpty) {
  EXPECT_TRUE(RandomDirichlet(0, 5, 1).empty());
  EXPECT_TRUE(RandomDirichlet(3, -1, 1).empty());
  EXPECT_TRUE(RandomDirichlet(3, 0, 1).empty());
  EXPECT_TRUE(RandomDirichlet(3, 5, 1, 0.0).empty());
  EXPECT_TRUE(RandomDirichlet(3, 5, 1, -1.0).empty());
  EXPECT_TRUE(RandomDirichlet(3, 5, 1, std::numeric_limits<double>::quiet_NaN())
                  .empty());
  EXPECT_EQ(5u, RandomDirichlet(1, 5, 1).size());
  EXPECT_EQ(std::vector<double>{1.0}, RandomDirichlet(1, 5, 1)[3]);
}

// ---------------------------------------------------------------------------
// Preference files.

TEST(ReadPreferenceFile, CommentsBlankLinesSeparatorsAndNormalization) {
  const std::string path = WriteTempFile("good.txt",
                                         "# weights for three objectives\n"
                                         "\n"
                                         "1, 1, 2\n"
                                         "   0.2 0.3\t0.5   # trailing\n"
                                         "  \t \n"
                                         "3,0,0\r\n"
                                         "+1e-1 , 1E-1, 2e-1\n");
  Grid out = {{42.0}};
  std::string error;
  ASSERT_TRUE(ReadPreferenceFile(path, 3, &out, &error)) << error;
  ASSERT_EQ(4u, out.size());
  EXPECT_EQ((std::vector<double>{0.25, 0.25, 0.5}), out[0]);
  EXPECT_NEAR(0.2, out[1][0], 1e-15);
  EXPECT_NEAR(0.5, out[1][2], 1e-15);
  EXPECT_EQ((std::vector<double>{1, 0, 0}), out[2]);
  EXPECT_NEAR(0.25, out[3][0], 1e-15);
  EXPECT_NEAR(0.5, out[3][2], 1e-15);
}

struct BadFileCase {
  const char* name;
  const char* contents;
  int line;
  const char* message;
};

TEST(ReadPreferenceFile, ErrorsNameTheFileAndLine) {
  const BadFileCase cases[] = {
      {"columns.txt", "# header\n1,2,3\n\n1,2\n", 4, "found 2"},
      {"columns_ws.txt", "1 2 3 4\n", 1, "expected 3 values"},
      {"text.txt", "1,2,3\n0.5,abc,1\n", 2, "column 2 ('abc') is not a number"},
      {"partial.txt", "1,2,3x\n", 1, "column 3"},
      {"empty_cell.txt", "1,,3\n", 1, "column 2 is empty"},
      {"trailing_comma.txt", "1,2,3,\n", 1, "found 4"},
      {"negative.txt", "1,2,3\n1,2,3\n1,-2,3\n", 3, "column 2 is negative"},
      {"nan.txt", "\n\nnan 1 1\n", 3, "column 1 is NaN"},
      {"inf.txt", "1 inf 1\n", 1, "infinite"},
      {"zero.txt", "# c\n0, 0, 0  # all zero\n", 2, "all values are zero"},
      {"nothing.txt", "# only a comment\n\n", 2, "no preference"},
  };
  for (const BadFileCase& c : cases) {
    const std::string path = WriteTempFile(c.name, c.contents);
    Grid out = {{42.0}};
    std::string error;
    EXPECT_FALSE(ReadPreferenceFile(path, 3, &out, &error)) << c.name;
    EXPECT_TRUE(Contains(error, path + ":" + std::to_string(c.line) + ": "))
        << c.name << ": " << error;
    EXPECT_TRUE(Contains(error, c.message)) << c.name << ": " << error;
    EXPECT_EQ((Grid{{42.0}}), out) << "output must be left unchanged";
  }
}

TEST(ReadPreferenceFile, MissingFileAndBadArguments) {
  const std::string path = ::testing::TempDir() + "/ecmo_pref_does_not_exist";
  Grid out;
  std::string error;
  EXPECT_FALSE(ReadPreferenceFile(path, 3, &out, &error));
  EXPECT_TRUE(Contains(error, path)) << error;
  EXPECT_TRUE(Contains(error, "cannot open")) << error;

  const std::string good = WriteTempFile("ok.txt", "1 2\n");
  EXPECT_FALSE(ReadPreferenceFile(good, 0, &out, &error));
  EXPECT_FALSE(ReadPreferenceFile(good, 2, nullptr, &error));
  EXPECT_TRUE(ReadPreferenceFile(good, 2, &out, nullptr));
  EXPECT_FALSE(ReadPreferenceFile(good, 3, &out, nullptr));
}

// The hostile-input battery: /dev/zero (one endless line) and an endless
// pipe were read until memory ran out, through ReadPreferenceFile and
// ParsePreferenceSpec's file:PATH alike (ecmo_mtbl --preferences=file:).
TEST(ReadPreferenceFile, EndlessInputsAndDirectoriesAreRefusedWithABound) {
  Grid out;
  std::string error;
  EXPECT_FALSE(ReadPreferenceFile("/dev/zero", 2, &out, &error));
  EXPECT_TRUE(Contains(error, "exceeds the limit of 64 MiB")) << error;
  std::vector<NamedPreference> named;
  EXPECT_FALSE(ParsePreferenceSpec("file:/dev/zero", 2, &named, &error));
  EXPECT_TRUE(Contains(error, "64 MiB")) << error;
  EXPECT_TRUE(named.empty());
  EXPECT_FALSE(ReadPreferenceFile(::testing::TempDir(), 2, &out, &error));
  EXPECT_TRUE(Contains(error, "is a directory")) << error;
}

// ---------------------------------------------------------------------------
// Open simplex.

TEST(ToOpenSimplex, InteriorVectorsAreOnlyNormalized) {
  bool changed = true;
  const std::vector<double> w =
      ToOpenSimplex({0.2, 0.3, 0.5}, kDefaultPreferenceFloor, &changed);
  EXPECT_FALSE(changed);
  EXPECT_NEAR(0.2, w[0], 1e-16);
  EXPECT_NEAR(0.5, w[2], 1e-16);
  const std::vector<double> scaled = ToOpenSimplex({2, 3, 5}, 1e-4, &changed);
  EXPECT_FALSE(changed);
  EXPECT_NEAR(0.3, scaled[1], 1e-16);
}

TEST(ToOpenSimplex, ZerosAreRaisedToTheFloor) {
  bool changed = false;
  const std::vector<double> w = ToOpenSimplex({1, 0, 0}, 1e-4, &changed);
  EXPECT_TRUE(changed);
  EXPECT_DOUBLE_EQ(1e-4, w[1]);
  EXPECT_DOUBLE_EQ(1e-4, w[2]);
  EXPECT_NEAR(1.0 - 2e-4, w[0], 1e-16);
  EXPECT_NEAR(1.0, Sum(w), 1e-15);

  // Default floor; the ratio of the free entries is kept.
  const std::vector<double> v = ToOpenSimplex({0.25, 0.0, 0.75});
  EXPECT_DOUBLE_EQ(kDefaultPreferenceFloor, v[1]);
  EXPECT_NEAR(3.0, v[2] / v[0], 1e-14);
  EXPECT_NEAR(1.0, Sum(v), 1e-15);
}

TEST(ToOpenSimplex, RepeatsUntilEveryEntryIsAtLeastTheFloor) {
  // Floor 0.2: raising the zero shrinks 0.21 below the floor as well.
  bool changed = false;
  const std::vector<double> w = ToOpenSimplex({0.79, 0.21, 0.0}, 0.2, &changed);
  EXPECT_TRUE(changed);
  EXPECT_DOUBLE_EQ(0.2, w[1]);
  EXPECT_DOUBLE_EQ(0.2, w[2]);
  EXPECT_NEAR(0.6, w[0], 1e-15);
  for (const auto& g : DasDennis(4, 6)) {
    const std::vector<double> open = ToOpenSimplex(g, 0.05);
    EXPECT_NEAR(1.0, Sum(open), 1e-14);
    EXPECT_GE(*std::min_element(open.begin(), open.end()), 0.05 - 1e-16);
  }
}

TEST(ToOpenSimplex, DegenerateInputs) {
  bool changed = false;
  EXPECT_EQ(std::vector<double>(4, 0.25),
            ToOpenSimplex({0, 0, 0, 0}, 1e-4, &changed));
  EXPECT_TRUE(changed);
  EXPECT_TRUE(ToOpenSimplex({}, 1e-4, &changed).empty());
  EXPECT_FALSE(changed);
  // Negative and NaN entries count as zero.
  const std::vector<double> w = ToOpenSimplex(
      {-1.0, std::numeric_limits<double>::quiet_NaN(), 2.0}, 1e-3, &changed);
  EXPECT_TRUE(changed);
  EXPECT_DOUBLE_EQ(1e-3, w[0]);
  EXPECT_DOUBLE_EQ(1e-3, w[1]);
  EXPECT_NEAR(1.0 - 2e-3, w[2], 1e-15);
  // A floor above 1/S gives the equal weights; an invalid floor the default.
  const std::vector<double> equal = ToOpenSimplex({1, 0}, 0.9);
  EXPECT_NEAR(0.5, equal[0], 1e-15);
  EXPECT_NEAR(0.5, equal[1], 1e-15);
  EXPECT_DOUBLE_EQ(kDefaultPreferenceFloor, ToOpenSimplex({1, 0}, -1.0)[1]);
  EXPECT_DOUBLE_EQ(kDefaultPreferenceFloor, ToOpenSimplex({1, 0}, 0.0)[1]);
  // Null `changed` is allowed.
  EXPECT_EQ(2u, ToOpenSimplex({1, 0}, 1e-4, nullptr).size());
}

// ---------------------------------------------------------------------------
// Command-line specs.

TEST(ParsePreferenceSpec, AllForms) {
  std::vector<NamedPreference> out;
  std::string error;

  ASSERT_TRUE(ParsePreferenceSpec("das-dennis:4", 3, &out, &error)) << error;
  ASSERT_EQ(15u, out.size());
  EXPECT_EQ("das-dennis-0", out[0].name);
  EXPECT_EQ(DasDennis(3, 4)[7], out[7].weights);

  ASSERT_TRUE(ParsePreferenceSpec("DAS_DENNIS:2", 2, &out, &error)) << error;
  EXPECT_EQ(3u, out.size());

  ASSERT_TRUE(ParsePreferenceSpec("paper", 5, &out, &error)) << error;
  EXPECT_EQ(11u, out.size());
  EXPECT_EQ("equal", out.back().name);

  ASSERT_TRUE(ParsePreferenceSpec("random:6", 3, &out, &error)) << error;
  ASSERT_EQ(6u, out.size());
  EXPECT_EQ("random-5", out[5].name);
  EXPECT_EQ(RandomDirichlet(3, 6, 1)[2], out[2].weights);  // default seed 1
  ASSERT_TRUE(ParsePreferenceSpec("random:6:99", 3, &out, &error)) << error;
  EXPECT_EQ(RandomDirichlet(3, 6, 99)[4], out[4].weights);

  ASSERT_TRUE(ParsePreferenceSpec(" even:3 ", 2, &out, &error)) << error;
  ASSERT_EQ(3u, out.size());
  EXPECT_EQ("even-1", out[1].name);
  EXPECT_EQ((std::vector<double>{0.5, 0.5}), out[1].weights);

  const std::string path =
      WriteTempFile("spec:with:colons.txt", "# c\n1 3\n\n2, 2\n");
  ASSERT_TRUE(ParsePreferenceSpec("file:" + path, 2, &out, &error)) << error;
  ASSERT_EQ(2u, out.size());
  EXPECT_EQ("file-line-2", out[0].name);
  EXPECT_EQ("file-line-4", out[1].name);
  EXPECT_EQ((std::vector<double>{0.25, 0.75}), out[0].weights);
}

TEST(ParsePreferenceSpec, ErrorsListTheValidForms) {
  const char* bad_specs[] = {
      "",
      "grid:5",
      "das-dennis",
      "das-dennis:",
      "das-dennis:0",
      "das-dennis:2.5",
      "das-dennis:x",
      "random",
      "random:0",
      "random:-3",
      "random:5:",
      "random:5:-1",
      "random:5:x",
      "even:5",
      "paper:3",
      "file:",
  };
  for (const char* spec : bad_specs) {
    std::vector<NamedPreference> out = {{"keep", {1.0}}};
    std::string error;
    EXPECT_FALSE(ParsePreferenceSpec(spec, 3, &out, &error)) << spec;
    EXPECT_TRUE(Contains(error, "das-dennis:H")) << spec << ": " << error;
    EXPECT_TRUE(Contains(error, "random:N[:SEED]")) << spec << ": " << error;
    ASSERT_EQ(1u, out.size());
    EXPECT_EQ("keep", out[0].name);
  }
  std::vector<NamedPreference> out;
  std::string error;
  EXPECT_FALSE(ParsePreferenceSpec("even:5", 3, &out, &error));
  EXPECT_TRUE(Contains(error, "only defined for 2 objectives")) << error;
  EXPECT_FALSE(ParsePreferenceSpec("even:1", 2, &out, &error));
  EXPECT_TRUE(Contains(error, "2 <= N")) << error;
  EXPECT_FALSE(ParsePreferenceSpec("das-dennis:400", 8, &out, &error));
  EXPECT_TRUE(Contains(error, "largest admissible")) << error;
  EXPECT_FALSE(ParsePreferenceSpec("paper", 0, &out, &error));
  EXPECT_FALSE(ParsePreferenceSpec("paper", 2, nullptr, &error));

  // File errors are passed through with their line numbers.
  const std::string path = WriteTempFile("spec_bad.txt", "1 2\n1 2 3\n");
  EXPECT_FALSE(ParsePreferenceSpec("file:" + path, 2, &out, &error));
  EXPECT_TRUE(Contains(error, path + ":2: ")) << error;
}

}  // namespace
}  // namespace ecmo
