// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The digits loader and the data path (see ecmo/problems/digits.h). zlib's
// gz* functions read gzip and plain files alike (a file without the gzip
// magic is passed through), so one reader serves both.

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "digits_internal.h"
#include "ecmo/problems/digits.h"
#include "zlib.h"

#ifndef ECMO_DATA_SOURCE_DIR
#define ECMO_DATA_SOURCE_DIR ""
#endif
#ifndef ECMO_DATA_INSTALL_DIR
#define ECMO_DATA_INSTALL_DIR ""
#endif

namespace ecmo {
namespace problems {

namespace {

bool FileExists(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return static_cast<bool>(in);
}

// The whole (decompressed) file, or false with *error. Pipes and devices
// are read like files (--data=<(zcat ...) works), up to the size limit.
bool ReadAll(const std::string& path, std::string* text, std::string* error) {
  if (!FileExists(path)) {
    *error = "cannot open '" + path + "' (" + std::strerror(errno) + ")";
    return false;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    *error = "'" + path + "' is a directory, not a digits file";
    return false;
  }
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    *error = "cannot open '" + path + "' for reading";
    return false;
  }
  text->clear();
  char buffer[1 << 16];
  bool too_large = false;
  for (;;) {
    const int n = gzread(file, buffer, sizeof(buffer));
    if (n < 0) break;
    if (static_cast<int64_t>(text->size()) + n > kMaxDigitsFileBytes) {
      too_large = true;
      break;
    }
    text->append(buffer, static_cast<size_t>(n));
    if (n < static_cast<int>(sizeof(buffer))) break;
  }
  int code = Z_OK;
  const char* message = gzerror(file, &code);
  const std::string what = message != nullptr ? message : "";
  gzclose(file);
  if (too_large) {
    text->clear();
    *error = "'" + path + "' holds more than " +
             std::to_string(kMaxDigitsFileBytes >> 20) +
             " MiB once decompressed, the limit of a digits file (the "
             "shipped one holds 265 KB): it is not the digits CSV; pass "
             "data/digits.csv.gz or a CSV of the same form";
    return false;
  }
  if (code != Z_OK && code != Z_STREAM_END) {
    *error = "'" + path + "' is not a readable gzip file (zlib: " + what +
             "); it may be truncated or corrupt: restore it from the "
             "source tree's data/digits.csv.gz";
    return false;
  }
  return true;
}

}  // namespace

bool LoadDigits(const std::string& path, DigitsData* data, std::string* error) {
  std::string local_error;
  if (error == nullptr) error = &local_error;
  if (data == nullptr) {
    *error = "LoadDigits: data is null";
    return false;
  }
  std::string text;
  if (!ReadAll(path, &text, error)) {
    *error = "LoadDigits: " + *error;
    return false;
  }
  std::vector<double> pixels;
  std::vector<int> labels;
  std::istringstream lines(text);
  std::string line;
  int line_number = 0;
  auto fail = [&](const std::string& what) {
    *error = "LoadDigits: '" + path + "' line " + std::to_string(line_number) +
             ": " + what +
             " (expected 64 integers in [0, 16] then a label in [0, 9], "
             "comma-separated)";
    return false;
  };
  while (std::getline(lines, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const char* p = line.c_str();
    for (int k = 0; k <= internal::kDigitsPixels; ++k) {
      char* end = nullptr;
      errno = 0;
      const long value = std::strtol(p, &end, 10);
      if (end == p || errno != 0) {
        return fail("column " + std::to_string(k + 1) + " is not an integer");
      }
      const long max_value =
          k < internal::kDigitsPixels ? 16 : internal::kDigitsClasses - 1;
      if (value < 0 || value > max_value) {
        return fail("column " + std::to_string(k + 1) + " = " +
                    std::to_string(value) + " is out of range");
      }
      if (k < internal::kDigitsPixels) {
        pixels.push_back(value / 16.0);
      } else {
        labels.push_back(static_cast<int>(value));
      }
      p = end;
      while (*p == ' ') ++p;
      if (k < internal::kDigitsPixels) {
        if (*p != ',') {
          return fail("found " + std::to_string(k + 1) + " columns");
        }
        ++p;
      } else if (*p == ',') {
        return fail("more than 65 columns");
      } else if (p != line.c_str() + line.size()) {
        // Also a NUL byte: the line would end there for strtol.
        return fail("unexpected characters after column 65");
      }
    }
  }
  if (labels.empty()) {
    *error = "LoadDigits: '" + path + "' holds no images";
    return false;
  }
  const int n = static_cast<int>(labels.size());
  data->images = Eigen::Map<const internal::RowMatrix>(
      pixels.data(), n, internal::kDigitsPixels);
  data->labels = std::move(labels);
  return true;
}

std::string DefaultDigitsPath() {
  const char* dir = std::getenv("ECMO_DATA_DIR");
  if (dir != nullptr && *dir != '\0') {
    return std::string(dir) + "/digits.csv.gz";
  }
  const std::string source =
      std::string(ECMO_DATA_SOURCE_DIR) + "/digits.csv.gz";
  if (std::string(ECMO_DATA_SOURCE_DIR).size() > 0 && FileExists(source)) {
    return source;
  }
  return std::string(ECMO_DATA_INSTALL_DIR) + "/digits.csv.gz";
}

namespace internal {

bool LoadDigitsForInstance(const std::string& option_path,
                           const char* builder,
                           DigitsData* data,
                           std::string* error) {
  const std::string path =
      option_path.empty() ? DefaultDigitsPath() : option_path;
  std::string why;
  if (LoadDigits(path, data, &why)) return true;
  *error = std::string(builder) + ": " + why +
           ". Set the options' data_path, or the environment variable "
           "ECMO_DATA_DIR to the folder holding digits.csv.gz (the source "
           "tree's data/ folder, or <prefix>/share/ecmo when installed).";
  return false;
}

ClassPools::ClassPools(const std::vector<int>& labels, std::mt19937_64* rng)
    : pools_(internal::kDigitsClasses), next_(internal::kDigitsClasses, 0) {
  for (int i = 0; i < static_cast<int>(labels.size()); ++i) {
    pools_[labels[i]].push_back(i);
  }
  // Fisher-Yates with our own index draws (std::shuffle's sequence is not
  // specified across standard libraries; this one is fixed by the seed).
  for (std::vector<int>& pool : pools_) {
    for (int i = static_cast<int>(pool.size()) - 1; i > 0; --i) {
      const int j = static_cast<int>((*rng)() % static_cast<uint64_t>(i + 1));
      std::swap(pool[i], pool[j]);
    }
  }
}

int ClassPools::Remaining(int c) const {
  return static_cast<int>(pools_[c].size()) - next_[c];
}

bool ClassPools::Take(int c, int count, std::vector<int>* indices) {
  if (count > Remaining(c)) return false;
  for (int k = 0; k < count; ++k) indices->push_back(pools_[c][next_[c]++]);
  return true;
}

std::vector<int> EvenCounts(int total,
                            const std::vector<int>& classes,
                            std::mt19937_64* rng) {
  std::vector<int> counts(internal::kDigitsClasses, 0);
  const int k = static_cast<int>(classes.size());
  std::vector<int> order = classes;
  for (int i = k - 1; i > 0; --i) {
    const int j = static_cast<int>((*rng)() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  for (int i = 0; i < k; ++i) {
    counts[order[i]] = total / k + (i < total % k ? 1 : 0);
  }
  return counts;
}

std::vector<int> ProportionalCounts(int total,
                                    const std::vector<int>& weights) {
  const int k = static_cast<int>(weights.size());
  long sum = 0;
  for (int w : weights) sum += w;
  std::vector<int> counts(k, 0);
  std::vector<std::pair<long, int>> remainders;
  int given = 0;
  for (int c = 0; c < k; ++c) {
    const long scaled = static_cast<long>(total) * weights[c];
    counts[c] = static_cast<int>(scaled / sum);
    given += counts[c];
    remainders.push_back({-(scaled % sum), c});
  }
  std::sort(remainders.begin(), remainders.end());
  for (int i = 0; given < total && i < k; ++i, ++given) {
    ++counts[remainders[i].second];
  }
  return counts;
}

}  // namespace internal

}  // namespace problems
}  // namespace ecmo
