// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The number formats of the reports and closing messages against printf.

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "ecmo/internal/report.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace internal {
namespace {

std::string Printf(double x, int precision) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*e", precision, x);
  return buffer;
}

TEST(ReportFormat, ScientificMatchesPrintf) {
  const double values[] = {0.0,
                           -0.0,
                           1.8e-10,
                           -3.5e200,
                           1e-320,  // subnormal
                           123.456,
                           9.96e-7,  // rounds up into the next decade
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::nan("")};
  for (double x : values) {
    for (int precision : {1, 3, 6}) {
      EXPECT_EQ(FormatScientific(x, precision), Printf(x, precision))
          << "x = " << x << ", precision " << precision;
    }
    EXPECT_EQ(FormatNumber(x), Printf(x, 6));
  }
}

}  // namespace
}  // namespace internal
}  // namespace ecmo
