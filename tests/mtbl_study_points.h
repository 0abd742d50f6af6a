// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Comparing two runs of one ecmo_mtbl study (threads, resume, MPI ranks):
// shared by ecmo_mtbl_test.cc and distributed_tasks_test.cc.

#ifndef ECMO_TESTS_MTBL_STUDY_POINTS_H_
#define ECMO_TESTS_MTBL_STUDY_POINTS_H_

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace ecmo {
namespace testing {

// study.json's points without what differs between two runs of one study:
// the wall times and who solved them.
inline nlohmann::json StudyPoints(const std::string& study_json) {
  std::ifstream in(study_json);
  const nlohmann::json study = nlohmann::json::parse(in, nullptr, false);
  EXPECT_TRUE(study.is_object()) << study_json;
  nlohmann::json points = nlohmann::json::array();
  if (!study.is_object()) return points;
  for (nlohmann::json p : study["points"]) {
    p.erase("seconds");
    p.erase("rank");
    points.push_back(p);
  }
  return points;
}

// Two runs' points of one study agree: to the bit, but wc-reduced's, whose
// lower-level warm start carries over between the points one instance
// solves (so they depend on which points that worker solved before):
// those to the solver's tolerance.
inline void ExpectSameStudyPoints(const nlohmann::json& a,
                                  const nlohmann::json& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]["method"] != "wc-reduced") {
      EXPECT_EQ(a[i], b[i]) << "point " << i;
      continue;
    }
    for (const char* key : {"termination", "usable", "preference"}) {
      EXPECT_EQ(a[i][key], b[i][key]) << key << " of point " << i;
    }
    const std::vector<double> fa = a[i]["losses"], fb = b[i]["losses"];
    ASSERT_EQ(fa.size(), fb.size());
    for (size_t s = 0; s < fa.size(); ++s) {
      EXPECT_NEAR(fa[s], fb[s], 1e-6 * std::abs(fa[s])) << "point " << i;
    }
  }
}

// The mean of study.json's "seconds" over the points of `method`; their
// number in *count (0: the mean is NaN).
inline double MeanSeconds(const nlohmann::json& study,
                          const std::string& method,
                          int* count) {
  double sum = 0.0;
  *count = 0;
  for (const nlohmann::json& p : study["points"]) {
    if (p["method"] != method) continue;
    sum += p["seconds"].get<double>();
    ++*count;
  }
  return *count > 0 ? sum / *count : std::nan("");
}

}  // namespace testing
}  // namespace ecmo

#endif  // ECMO_TESTS_MTBL_STUDY_POINTS_H_
