// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Problem libraries for problem_library_test's error cases, built in
// several variants by tests/CMakeLists.txt:
//   FIXTURE_NAME="..."                 the name of its one problem
//                                      (default fixture_problem);
//   FIXTURE_NO_REGISTRATION            a shared library without
//                                      ECMO_REGISTER_PROBLEM;
//   ECMO_PROBLEM_LIBRARY_ABI_FOR_TESTING / ..._VERSION_MINOR_FOR_TESTING
//                                      built "for another ECMO".
// Its problem: f1 = z1^2, f2 = (z2 - 1)^2 subject to z1 - z2 = 0.

#ifdef FIXTURE_NO_REGISTRATION

extern "C" int fixture_not_a_problem_library() { return 42; }

#else

#include <memory>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/problems/registration.h"

#ifndef FIXTURE_NAME
#define FIXTURE_NAME "fixture_problem"
#endif

namespace {

struct Square {
  explicit Square(int i, double c) : i(i), c(c) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[i] - c) * (z[i] - c);
    return true;
  }
  int i;
  double c;
};
struct Equal {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] - z[1];
    return true;
  }
};

ecmo::problems::ProblemInfo Fixture() {
  ecmo::problems::ProblemInfo info;
  info.name = FIXTURE_NAME;
  info.description =
      "problem_library_test fixture: f1 = z1^2, "
      "f2 = (z2-1)^2 subject to z1 = z2.";
  info.num_objectives = 2;
  info.num_parameters = 2;
  info.num_constraints = 1;
  info.objective_offset = {1.0, 1.0};
  info.build = [] {
    auto p = std::make_unique<ecmo::problems::ProblemInstance>();
    p->blocks = {{0.0, 0.0}};
    p->start = Eigen::Vector2d(0.0, 0.0);
    double* z = p->blocks[0].data();
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<Square, 1, 2> >(
            new Square(0, 0.0)),
        {z});
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<Square, 1, 2> >(
            new Square(1, 1.0)),
        {z});
    p->problem.AddConstraint(
        std::make_unique<ceres::AutoDiffCostFunction<Equal, 1, 2> >(new Equal),
        {z});
    return p;
  };
  return info;
}

}  // namespace

ECMO_REGISTER_PROBLEM(Fixture);

#endif  // FIXTURE_NO_REGISTRATION
