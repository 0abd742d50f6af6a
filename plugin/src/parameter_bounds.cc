// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "parameter_bounds.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace ecmo {
namespace internal {

std::string SetBlockBound(const char* owner,
                          const double* values,
                          int size,
                          int index,
                          double bound,
                          bool is_lower,
                          std::vector<double>* lower,
                          std::vector<double>* upper) {
  const char* what =
      is_lower ? "SetParameterLowerBound" : "SetParameterUpperBound";
  std::ostringstream os;
  if (lower == nullptr || upper == nullptr) {
    os << owner << "::" << what << ": parameter block not found: " << values
       << ". You must add the parameter block to the problem before you can "
          "set a bound on one of its components (AddParameterBlock or a term "
          "that uses it).";
  } else if (index < 0 || index >= size) {
    os << owner << "::" << what << ": parameter index " << index
       << " is out of range for block " << values << " of size " << size << ".";
  } else if (std::isnan(bound)) {
    os << owner << "::" << what << ": the bound on component " << index
       << " of block " << values << " is NaN.";
  }
  if (!os.str().empty()) return os.str();
  const double inf = std::numeric_limits<double>::infinity();
  if (lower->empty()) {
    lower->assign(size, -inf);
    upper->assign(size, inf);
  }
  // Ceres' "no bound" is +-std::numeric_limits<double>::max(); both it and
  // infinity mean unbounded here.
  const double max = std::numeric_limits<double>::max();
  if (is_lower) {
    (*lower)[index] = bound <= -max ? -inf : bound;
  } else {
    (*upper)[index] = bound >= max ? inf : bound;
  }
  return "";
}

std::string CrossedBoundsError(const char* owner,
                               const double* values,
                               const std::vector<double>& lower,
                               const std::vector<double>& upper) {
  for (size_t i = 0; i < lower.size(); ++i) {
    if (lower[i] > upper[i]) {
      std::ostringstream os;
      os << owner << ": component " << i << " of parameter block " << values
         << " has lower bound " << lower[i] << " above its upper bound "
         << upper[i] << "; no point satisfies them.";
      return os.str();
    }
  }
  return "";
}

bool HasFiniteBound(const std::vector<double>& lower,
                    const std::vector<double>& upper) {
  for (size_t i = 0; i < lower.size(); ++i) {
    if (std::isfinite(lower[i]) || std::isfinite(upper[i])) {
      return true;
    }
  }
  return false;
}

}  // namespace internal
}  // namespace ecmo
