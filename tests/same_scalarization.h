// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// One check that two scalarizations are the same to the bit: the payoff
// table and everything derived from it, the work and the notes. For the
// tests that spread the single-objective solves over threads.
#ifndef ECMO_TESTS_SAME_SCALARIZATION_H_
#define ECMO_TESTS_SAME_SCALARIZATION_H_

#include "ecmo/scalarization.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace testing {

inline void ExpectSameScalarization(const Scalarization& got,
                                    const Scalarization& want) {
  EXPECT_EQ(got.reference_point_type, want.reference_point_type);
  EXPECT_EQ(got.normalized, want.normalized);
  EXPECT_EQ(got.payoff_table, want.payoff_table);
  EXPECT_EQ(got.reference_point, want.reference_point);
  EXPECT_EQ(got.objective_scale, want.objective_scale);
  EXPECT_EQ(got.ideal_point, want.ideal_point);
  EXPECT_EQ(got.nadir_point, want.nadir_point);
  EXPECT_EQ(got.num_single_objective_solves, want.num_single_objective_solves);
  EXPECT_EQ(got.evaluations.gradient_evaluations,
            want.evaluations.gradient_evaluations);
  EXPECT_EQ(got.message, want.message);
}

}  // namespace testing
}  // namespace ecmo

#endif  // ECMO_TESTS_SAME_SCALARIZATION_H_
