// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Preference vectors (weights) for weighted-Chebyshev (WC) sweeps: uniform
// simplex grids, the presets used in the paper, seeded random draws, files,
// and the command-line syntax that selects one of them.
//
// A preference for S objectives is a vector lambda with lambda_s >= 0 and
// sum_s lambda_s = 1 (the simplex Delta_S). Index s = 0..S-1 of the vector
// belongs to objective f_{s+1}. The generators below may return weights on
// the boundary of the simplex (zeros, e.g. the corners of a Das-Dennis grid);
// the WC theory needs lambda in the OPEN simplex (every lambda_s > 0), so pass
// each vector through ToOpenSimplex before handing it to a WC solver.
//
// No function throws or aborts. Generators return an empty result on invalid
// arguments (and set `error` if one is given); the parsers return false with
// a message.
//
// This module depends on the C++ standard library only.

#ifndef ECMO_PREFERENCE_GRID_H_
#define ECMO_PREFERENCE_GRID_H_

#include <cstdint>
#include <string>
#include <vector>

namespace ecmo {

// Weights below this value are raised to it by ToOpenSimplex. The WC theory
// needs lambda in the open simplex: with lambda_s = 0 objective s drops out of
// the max and the WC solution may be only weakly Pareto optimal. 1e-4 is
// small enough not to move a solution visibly and large enough to keep the
// objective in play. Callers that want another floor pass it explicitly and
// should report it alongside their results.
inline constexpr double kDefaultPreferenceFloor = 1e-4;

// Upper limit on the number of vectors any generator below produces, so that
// a typo in a command line cannot exhaust memory.
inline constexpr int kMaxPreferenceCount = 1000000;

// A preference with a stable name, for logs, result files and plots.
struct NamedPreference {
  std::string name;
  std::vector<double> weights;
};

// Number of vectors in the Das-Dennis grid with S objectives and H
// divisions: C(H + S - 1, S - 1). Returns -1 if S < 1, H < 1 or the count
// does not fit in an int64_t.
int64_t DasDennisCount(int num_objectives, int divisions);

// The Das-Dennis (simplex-lattice) grid: every lambda whose entries are k_s/H
// with non-negative integers k_s summing to H; there are C(H + S - 1, S - 1)
// of them. Order: the S corners e_1, e_2, ..., e_S first (so a truncated
// sweep always has the single-objective optima, as in pagmo), then all other
// vectors in ascending lexicographic order of (k_1, ..., k_S).
// Returns an empty vector if S < 1, H < 1 or the count exceeds
// kMaxPreferenceCount; in the last case `error` also names the largest
// admissible H.
std::vector<std::vector<double>> DasDennis(int num_objectives,
                                           int divisions,
                                           std::string* error = nullptr);

// For S = 2: the n vectors (i/(n-1), 1 - i/(n-1)), i = 0..n-1, i.e. lambda_1
// runs from 0 to 1 in equal steps. Empty if n < 2 or n > kMaxPreferenceCount.
std::vector<std::vector<double>> EvenlySpaced2(int n,
                                               std::string* error = nullptr);

// The paper's named presets, in this order:
//   "prefer-f<s>" for s = 1..S:          lambda_s = 1 - 0.01 (S - 1), others
//                                        0.01 (0.96 / 0.01 for S = 5);
//   "slightly-prefer-f<s>" for s = 1..S: lambda_s = 1 - 0.04 (S - 1), others
//                                        0.04 (0.84 / 0.04 for S = 5);
//   "equal":                              lambda_s = 1/S.
// A family is left out when its lambda_s would not exceed the other weights
// (so would not be a preference at all, and for larger S not positive):
// "prefer" needs S < 100 and "slightly prefer" S < 25. For S = 1 only
// "equal" = (1) is returned; for S < 1 the result is empty.
std::vector<NamedPreference> PaperPresets(int num_objectives);

// n vectors drawn independently from the symmetric Dirichlet(alpha)
// distribution (alpha = 1: uniform on the simplex), as normalized
// Gamma(alpha, 1) draws from std::mt19937_64 seeded with `seed`. The same
// arguments give the same output (with the same standard library, since
// std::gamma_distribution's algorithm is implementation-defined). Entries
// are > 0 with probability 1. Empty if S < 1, n < 0, n > kMaxPreferenceCount
// or alpha is not finite and positive.
std::vector<std::vector<double>> RandomDirichlet(int num_objectives,
                                                 int n,
                                                 uint64_t seed,
                                                 double alpha = 1.0);

// Reads preferences from a text file: one vector per line with exactly
// num_objectives non-negative numbers separated by commas or whitespace
// (not both: on a line with a comma, every cell is between commas). A '#'
// starts a comment; blank and comment-only lines are ignored. Each row is
// normalized to sum 1. On success replaces *out and returns true. Otherwise
// returns false, leaves *out unchanged, and sets *error (if not null) to a
// message "<path>:<line>: <what is wrong>" for a wrong number of columns, a
// non-numeric or empty cell ("column <j>", 1-based), a negative, NaN or
// infinite entry, a row of zeros, or a file without any preference (line =
// last line), and "<path>: cannot open the preference file" if the file
// cannot be opened. num_objectives must be >= 1.
bool ReadPreferenceFile(const std::string& path,
                        int num_objectives,
                        std::vector<std::vector<double>>* out,
                        std::string* error);

// Moves w into the open simplex: normalizes w to sum 1, then raises every
// entry below `floor` (zeros included; negative and NaN entries count as 0)
// to exactly `floor` and rescales the remaining entries, keeping their
// ratios, so that the result again sums to 1. This is repeated until no
// rescaled entry falls below the floor, so every entry of the result is
// >= floor. *changed (if not null) tells whether any entry was raised.
// A floor that is not finite and positive is replaced by
// kDefaultPreferenceFloor; a floor above 1/S is lowered to 1/S (which gives
// the equal weights). An all-zero w gives the equal weights. Entries of w
// must otherwise be finite.
std::vector<double> ToOpenSimplex(const std::vector<double>& w,
                                  double floor = kDefaultPreferenceFloor,
                                  bool* changed = nullptr);

// Parses the command-line preference syntax (the keyword is case-insensitive
// and '-' / '_' are interchangeable):
//
//   das-dennis:H      DasDennis(S, H), H >= 1;
//                     names "das-dennis-0", "das-dennis-1", ...
//   paper             PaperPresets(S), with their names
//   random:N[:SEED]   RandomDirichlet(S, N, SEED), N >= 1, SEED an unsigned
//                     64-bit integer, default 1; names "random-0", ...
//   file:PATH         ReadPreferenceFile(PATH, S) (PATH taken verbatim, it
//                     may contain ':'); names "file-line-<line number>"
//   even:N            EvenlySpaced2(N), only for S = 2, N >= 2;
//                     names "even-0", "even-1", ...
//
// On success replaces *out and returns true; otherwise returns false, leaves
// *out unchanged, and sets *error to a message naming the problem and
// listing the valid forms. The weights are NOT moved into the open simplex.
bool ParsePreferenceSpec(const std::string& spec,
                         int num_objectives,
                         std::vector<NamedPreference>* out,
                         std::string* error);

// ParsePreferenceSpec's file:PATH on the file's text, read by the caller:
// the rows of `text` in ReadPreferenceFile's format, named
// "file-line-<line number>"; messages name the file `name`. For a caller
// that bounds the read (ecmo_solve reads with ecmo::ReadFileText: an
// endless pipe given as the file would otherwise be read until memory runs
// out). On failure returns false and leaves *out unchanged.
bool ParsePreferenceFileText(const std::string& text,
                             const std::string& name,
                             int num_objectives,
                             std::vector<NamedPreference>* out,
                             std::string* error);

}  // namespace ecmo

#endif  // ECMO_PREFERENCE_GRID_H_
