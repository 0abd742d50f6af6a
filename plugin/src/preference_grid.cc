// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.

#include "ecmo/preference_grid.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "ecmo/internal/report.h"

namespace ecmo {
namespace {

constexpr uint64_t kDefaultRandomSeed = 1;

constexpr char kValidForms[] =
    "valid forms: das-dennis:H (H >= 1), paper, random:N[:SEED] (N >= 1), "
    "file:PATH, even:N (N >= 2, 2 objectives only)";

using internal::SetError;

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

std::string Trim(const std::string& s) {
  size_t begin = 0;
  size_t end = s.size();
  while (begin < end && IsSpace(s[begin])) ++begin;
  while (end > begin && IsSpace(s[end - 1])) --end;
  return s.substr(begin, end - begin);
}

// Parses the whole of `text` as a number of type T (std::from_chars:
// locale-independent). A leading '+' is accepted.
template <typename T>
bool ParseNumber(const std::string& text, T* value) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') {
    ++begin;
    if (begin != end && *begin == '-') return false;
  }
  if (begin == end) return false;
  const auto [ptr, ec] = std::from_chars(begin, end, *value);
  return ec == std::errc() && ptr == end;
}

// Splits a trimmed, non-empty line into cells: on commas if there is one,
// otherwise on runs of whitespace.
std::vector<std::string> SplitCells(const std::string& line) {
  std::vector<std::string> cells;
  if (line.find(',') != std::string::npos) {
    size_t start = 0;
    while (true) {
      const size_t comma = line.find(',', start);
      cells.push_back(Trim(line.substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return cells;
  }
  std::istringstream stream(line);
  std::string cell;
  while (stream >> cell) cells.push_back(cell);
  return cells;
}

// The rows of a preference file read from `in`, with the line number of
// every row; messages name the file `path`.
bool ReadPreferenceRowsFrom(std::istream& in,
                            const std::string& path,
                            int num_objectives,
                            std::vector<std::vector<double>>* rows,
                            std::vector<int>* line_numbers,
                            std::string* error) {
  if (num_objectives < 1) {
    SetError(error,
             path + ": the number of objectives is " +
                 std::to_string(num_objectives) + "; need at least 1");
    return false;
  }
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string where = path + ":" + std::to_string(line_number) + ": ";
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line = Trim(line);
    if (line.empty()) continue;

    const std::vector<std::string> cells = SplitCells(line);
    if (static_cast<int>(cells.size()) != num_objectives) {
      SetError(error,
               where + "expected " + std::to_string(num_objectives) +
                   " values (one per objective), found " +
                   std::to_string(cells.size()));
      return false;
    }
    std::vector<double> row(num_objectives);
    double sum = 0.0;
    for (int j = 0; j < num_objectives; ++j) {
      const std::string column = "column " + std::to_string(j + 1);
      if (cells[j].empty()) {
        SetError(error, where + column + " is empty");
        return false;
      }
      double value = 0.0;
      if (!ParseNumber(cells[j], &value)) {
        SetError(error,
                 where + column + " ('" + cells[j] + "') is not a number");
        return false;
      }
      if (std::isnan(value)) {
        SetError(error, where + column + " is NaN");
        return false;
      }
      if (std::isinf(value)) {
        SetError(error, where + column + " is infinite");
        return false;
      }
      if (value < 0.0) {
        SetError(error,
                 where + column + " is negative (" + cells[j] +
                     "); preference weights must be >= 0");
        return false;
      }
      row[j] = value;
      sum += value;
    }
    if (sum == 0.0) {
      SetError(error,
               where +
                   "all values are zero; a preference needs a positive "
                   "weight");
      return false;
    }
    if (!std::isfinite(sum)) {
      SetError(error, where + "the values are too large to normalize");
      return false;
    }
    for (double& value : row) value /= sum;
    rows->push_back(std::move(row));
    line_numbers->push_back(line_number);
  }
  if (in.bad()) {
    SetError(
        error,
        line_number == 0
            ? path + ": cannot read the preference file (a directory?)"
            : path + ":" + std::to_string(line_number + 1) + ": read error");
    return false;
  }
  if (rows->empty()) {
    SetError(error,
             path + ":" + std::to_string(line_number) +
                 ": the file contains no preference (only blank lines and "
                 "comments)");
    return false;
  }
  return true;
}

// ReadPreferenceFile, also returning the line number of every row.
bool ReadPreferenceRows(const std::string& path,
                        int num_objectives,
                        std::vector<std::vector<double>>* rows,
                        std::vector<int>* line_numbers,
                        std::string* error) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    SetError(error, path + ": is a directory, not a preference file");
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    SetError(error, path + ": cannot open the preference file");
    return false;
  }
  // Read with a bound before parsing: a pipe that never ends (yes 0.5,0.5
  // | ... file:/dev/stdin) or /dev/zero (one endless line) was read until
  // memory ran out. kMaxPreferenceCount rows of S = 2 fit in far less.
  constexpr size_t kMaxBytes = size_t{64} << 20;
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxBytes) {
      SetError(error,
               path + ": the preference file exceeds the limit of 64 MiB "
                      "(at most 1,000,000 preferences are taken)");
      return false;
    }
  }
  std::istringstream bounded(text);
  return ReadPreferenceRowsFrom(
      bounded, path, num_objectives, rows, line_numbers, error);
}

// Names the rows of a preference file "file-line-<line number>".
std::vector<NamedPreference> NameFileRows(
    std::vector<std::vector<double>>* rows,
    const std::vector<int>& line_numbers) {
  std::vector<NamedPreference> result(rows->size());
  for (size_t i = 0; i < rows->size(); ++i) {
    result[i].name = "file-line-" + std::to_string(line_numbers[i]);
    result[i].weights = std::move((*rows)[i]);
  }
  return result;
}

void AppendComposition(const std::vector<int>& k,
                       int divisions,
                       std::vector<std::vector<double>>* out) {
  std::vector<double> w(k.size());
  for (size_t s = 0; s < k.size(); ++s) {
    w[s] = static_cast<double>(k[s]) / divisions;
  }
  out->push_back(std::move(w));
}

std::vector<NamedPreference> Name(const std::vector<std::vector<double>>& w,
                                  const std::string& prefix) {
  std::vector<NamedPreference> named(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    named[i].name = prefix + std::to_string(i);
    named[i].weights = w[i];
  }
  return named;
}

std::string NormalizeKeyword(std::string keyword) {
  for (char& c : keyword) {
    c = (c == '_')
            ? '-'
            : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return keyword;
}

}  // namespace

int64_t DasDennisCount(int num_objectives, int divisions) {
  if (num_objectives < 1 || divisions < 1) return -1;
  // C(H + i, i) = C(H + i - 1, i - 1) * (H + i) / i, exact at every step.
  const int64_t limit = std::numeric_limits<int64_t>::max();
  int64_t count = 1;
  for (int64_t i = 1; i < num_objectives; ++i) {
    const int64_t factor = divisions + i;
    if (count > limit / factor) return -1;
    count = count * factor / i;
  }
  return count;
}

std::vector<std::vector<double>> DasDennis(int num_objectives,
                                           int divisions,
                                           std::string* error) {
  std::vector<std::vector<double>> grid;
  if (num_objectives < 1 || divisions < 1) {
    SetError(error,
             "DasDennis: need at least 1 objective and 1 division, got " +
                 std::to_string(num_objectives) + " objectives and " +
                 std::to_string(divisions) + " divisions");
    return grid;
  }
  const int64_t count = DasDennisCount(num_objectives, divisions);
  if (count < 0 || count > kMaxPreferenceCount) {
    int largest = 0;
    int64_t largest_count = 0;
    for (int h = 1;; ++h) {
      const int64_t c = DasDennisCount(num_objectives, h);
      if (c < 0 || c > kMaxPreferenceCount) break;
      largest = h;
      largest_count = c;
    }
    std::string message =
        "DasDennis: " + std::to_string(divisions) + " divisions for " +
        std::to_string(num_objectives) + " objectives give " +
        (count < 0 ? std::string("more than 2^63") : std::to_string(count)) +
        " vectors, above the limit of " + std::to_string(kMaxPreferenceCount);
    if (largest > 0) {
      message += "; the largest admissible number of divisions is " +
                 std::to_string(largest) + " (" +
                 std::to_string(largest_count) + " vectors)";
    } else {
      message += "; even 1 division is too many for this many objectives";
    }
    SetError(error, message);
    return grid;
  }
  grid.reserve(count);
  std::vector<int> k(num_objectives, 0);
  for (int s = 0; s < num_objectives; ++s) {
    k.assign(num_objectives, 0);
    k[s] = divisions;
    AppendComposition(k, divisions, &grid);
  }
  // Every composition of H into S non-negative parts, in ascending
  // lexicographic order, starting from (0, ..., 0, H). The successor of k:
  // find the last position p < S - 1 whose suffix k[p+1..] is non-zero, add
  // one to k[p], and put the rest of the suffix sum minus one into k[S-1].
  k.assign(num_objectives, 0);
  k[num_objectives - 1] = divisions;
  while (true) {
    if (*std::max_element(k.begin(), k.end()) != divisions) {
      AppendComposition(k, divisions, &grid);
    }
    int p = num_objectives - 2;
    int suffix = k[num_objectives - 1];
    while (p >= 0 && suffix == 0) {
      suffix += k[p];
      --p;
    }
    if (p < 0) break;
    // Here suffix = sum of k[p+1..S-1] > 0.
    ++k[p];
    for (int j = p + 1; j < num_objectives; ++j) k[j] = 0;
    k[num_objectives - 1] = suffix - 1;
  }
  return grid;
}

std::vector<std::vector<double>> EvenlySpaced2(int n, std::string* error) {
  std::vector<std::vector<double>> result;
  if (n < 2 || n > kMaxPreferenceCount) {
    SetError(error,
             "EvenlySpaced2: the number of vectors is " + std::to_string(n) +
                 "; need 2 <= n <= " + std::to_string(kMaxPreferenceCount));
    return result;
  }
  result.reserve(n);
  for (int i = 0; i < n; ++i) {
    const double lambda = static_cast<double>(i) / (n - 1);
    result.push_back({lambda, 1.0 - lambda});
  }
  return result;
}

std::vector<NamedPreference> PaperPresets(int num_objectives) {
  std::vector<NamedPreference> presets;
  if (num_objectives < 1) return presets;
  const int S = num_objectives;
  if (S > 1) {
    // Weights in hundredths, so that the admissibility test is exact.
    const std::pair<const char*, int> families[] = {{"prefer-f", 1},
                                                    {"slightly-prefer-f", 4}};
    for (const auto& [prefix, other] : families) {
      const int preferred = 100 - other * (S - 1);
      if (preferred <= other) continue;  // not a preference (S * other >= 100)
      for (int s = 0; s < S; ++s) {
        NamedPreference p;
        p.name = prefix + std::to_string(s + 1);
        p.weights.assign(S, other / 100.0);
        p.weights[s] = preferred / 100.0;
        presets.push_back(std::move(p));
      }
    }
  }
  presets.push_back({"equal", std::vector<double>(S, 1.0 / S)});
  return presets;
}

std::vector<std::vector<double>> RandomDirichlet(int num_objectives,
                                                 int n,
                                                 uint64_t seed,
                                                 double alpha) {
  std::vector<std::vector<double>> result;
  if (num_objectives < 1 || n < 0 || n > kMaxPreferenceCount ||
      !std::isfinite(alpha) || !(alpha > 0.0)) {
    return result;
  }
  std::mt19937_64 rng(seed);
  std::gamma_distribution<double> gamma(alpha, 1.0);
  result.reserve(n);
  std::vector<double> w(num_objectives);
  while (static_cast<int>(result.size()) < n) {
    double sum = 0.0;
    for (double& value : w) {
      value = gamma(rng);
      sum += value;
    }
    // With a tiny alpha every draw can underflow to 0; draw again.
    if (!(sum > 0.0) || !std::isfinite(sum)) continue;
    for (double& value : w) value /= sum;
    result.push_back(w);
  }
  return result;
}

bool ReadPreferenceFile(const std::string& path,
                        int num_objectives,
                        std::vector<std::vector<double>>* out,
                        std::string* error) {
  if (out == nullptr) {
    SetError(error, "ReadPreferenceFile: the output pointer is null");
    return false;
  }
  std::vector<std::vector<double>> rows;
  std::vector<int> line_numbers;
  if (!ReadPreferenceRows(path, num_objectives, &rows, &line_numbers, error)) {
    return false;
  }
  *out = std::move(rows);
  return true;
}

std::vector<double> ToOpenSimplex(const std::vector<double>& w,
                                  double floor,
                                  bool* changed) {
  const int S = static_cast<int>(w.size());
  if (changed != nullptr) *changed = false;
  if (S == 0) return {};
  if (!std::isfinite(floor) || !(floor > 0.0)) {
    floor = kDefaultPreferenceFloor;
  }
  floor = std::min(floor, 1.0 / S);

  std::vector<double> v(S);
  double sum = 0.0;
  for (int s = 0; s < S; ++s) {
    v[s] = (w[s] > 0.0) ? w[s] : 0.0;  // NaN and negative count as 0
    sum += v[s];
  }
  if (!(sum > 0.0)) {
    if (changed != nullptr) *changed = true;
    return std::vector<double>(S, 1.0 / S);
  }
  for (double& value : v) value /= sum;

  // The common case, no entry below the floor: the first round of the
  // water filling below, in place (the same arithmetic, so the same bits,
  // without its two work vectors).
  {
    const double free_mass = 1.0;  // 1 - (number raised = 0) * floor
    double free_sum = 0.0;
    for (double value : v) free_sum += value;
    bool below = false;
    for (double value : v) {
      below = below || value * free_mass / free_sum < floor;
    }
    if (!below) {
      for (double& value : v) value = value * free_mass / free_sum;
      return v;
    }
  }

  // Water filling: raised entries sit at the floor; the free ones share the
  // remaining mass in their original ratios. Raising an entry shrinks the
  // free ones, which may push more of them below the floor, so repeat; each
  // round raises at least one more entry or stops. Since floor <= 1/S the
  // free entries always average at least the floor, so the largest one is
  // never raised and the loop ends after at most S rounds.
  std::vector<bool> raised(S, false);
  int num_raised = 0;
  std::vector<double> result(S);
  while (true) {
    double free_sum = 0.0;
    for (int s = 0; s < S; ++s) {
      if (!raised[s]) free_sum += v[s];
    }
    const double free_mass = 1.0 - num_raised * floor;
    bool raised_more = false;
    for (int s = 0; s < S; ++s) {
      if (raised[s]) {
        result[s] = floor;
        continue;
      }
      result[s] = free_sum > 0.0 ? v[s] * free_mass / free_sum : floor;
      if (result[s] < floor) {
        raised[s] = true;
        ++num_raised;
        raised_more = true;
      }
    }
    if (!raised_more) break;
  }
  if (changed != nullptr) *changed = num_raised > 0;
  return result;
}

bool ParsePreferenceSpec(const std::string& spec,
                         int num_objectives,
                         std::vector<NamedPreference>* out,
                         std::string* error) {
  const std::string quoted = "'" + spec + "'";
  if (out == nullptr) {
    SetError(error, "ParsePreferenceSpec: the output pointer is null");
    return false;
  }
  if (num_objectives < 1) {
    SetError(error,
             "preference spec " + quoted + ": the number of objectives is " +
                 std::to_string(num_objectives) + "; need at least 1");
    return false;
  }
  const std::string trimmed = Trim(spec);
  const size_t colon = trimmed.find(':');
  const std::string keyword = NormalizeKeyword(Trim(trimmed.substr(0, colon)));
  const bool has_argument = colon != std::string::npos;
  const std::string argument =
      has_argument ? trimmed.substr(colon + 1) : std::string();
  const auto fail = [&](const std::string& what) {
    SetError(error,
             "preference spec " + quoted + ": " + what + "; " + kValidForms);
    return false;
  };

  std::vector<NamedPreference> result;
  if (keyword == "paper") {
    if (has_argument) return fail("'paper' takes no argument");
    result = PaperPresets(num_objectives);
  } else if (keyword == "das-dennis") {
    int divisions = 0;
    if (!has_argument || !ParseNumber(Trim(argument), &divisions)) {
      return fail("das-dennis needs an integer number of divisions H");
    }
    if (divisions < 1) {
      return fail("das-dennis needs H >= 1, got " + std::to_string(divisions));
    }
    std::string grid_error;
    const auto grid = DasDennis(num_objectives, divisions, &grid_error);
    if (grid.empty()) return fail(grid_error);
    result = Name(grid, "das-dennis-");
  } else if (keyword == "random") {
    const size_t second = argument.find(':');
    const std::string count_text = Trim(argument.substr(0, second));
    int n = 0;
    if (!has_argument || !ParseNumber(count_text, &n)) {
      return fail("random needs an integer count N");
    }
    if (n < 1 || n > kMaxPreferenceCount) {
      return fail(
          "random needs 1 <= N <= " + std::to_string(kMaxPreferenceCount) +
          ", got " + std::to_string(n));
    }
    uint64_t seed = kDefaultRandomSeed;
    if (second != std::string::npos &&
        !ParseNumber(Trim(argument.substr(second + 1)), &seed)) {
      return fail("the SEED of random:N:SEED must be an unsigned integer");
    }
    result = Name(RandomDirichlet(num_objectives, n, seed), "random-");
  } else if (keyword == "file") {
    if (argument.empty()) return fail("file needs a PATH");
    std::vector<std::vector<double>> rows;
    std::vector<int> line_numbers;
    std::string file_error;
    if (!ReadPreferenceRows(
            argument, num_objectives, &rows, &line_numbers, &file_error)) {
      SetError(error, file_error);
      return false;
    }
    result = NameFileRows(&rows, line_numbers);
  } else if (keyword == "even") {
    if (num_objectives != 2) {
      return fail("even:N is only defined for 2 objectives, the problem has " +
                  std::to_string(num_objectives));
    }
    int n = 0;
    if (!has_argument || !ParseNumber(Trim(argument), &n)) {
      return fail("even needs an integer count N");
    }
    if (n < 2 || n > kMaxPreferenceCount) {
      return fail(
          "even needs 2 <= N <= " + std::to_string(kMaxPreferenceCount) +
          ", got " + std::to_string(n));
    }
    result = Name(EvenlySpaced2(n), "even-");
  } else {
    return fail(keyword.empty() ? std::string("empty specification")
                                : "unknown kind '" + keyword + "'");
  }
  *out = std::move(result);
  return true;
}

bool ParsePreferenceFileText(const std::string& text,
                             const std::string& name,
                             int num_objectives,
                             std::vector<NamedPreference>* out,
                             std::string* error) {
  if (out == nullptr) {
    SetError(error, "ParsePreferenceFileText: the output pointer is null");
    return false;
  }
  std::istringstream in(text);
  std::vector<std::vector<double>> rows;
  std::vector<int> line_numbers;
  if (!ReadPreferenceRowsFrom(
          in, name, num_objectives, &rows, &line_numbers, error)) {
    return false;
  }
  *out = NameFileRows(&rows, line_numbers);
  return true;
}

}  // namespace ecmo
