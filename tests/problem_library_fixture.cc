// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Problem libraries for problem_library_test's error cases, built in
// several variants by tests/CMakeLists.txt:
//   FIXTURE_NAME="..."                 the name of its one problem
//                                      (default fixture_problem);
//   FIXTURE_NO_REGISTRATION            a shared library without
//                                      ECMO_REGISTER_PROBLEM;
//   ECMO_PROBLEM_LIBRARY_ABI_FOR_TESTING / ..._VERSION_MINOR_FOR_TESTING
//                                      built "for another ECMO";
//   FIXTURE_THROW_IN_COST (everywhere), FIXTURE_THROW_AWAY_FROM_START
//   (where z1 > 0.3), FIXTURE_THROW_IN_BUILD, FIXTURE_THROW_IN_FRONT,
//   FIXTURE_EXIT_IN_COST, FIXTURE_EXIT_IN_BUILD, FIXTURE_EXIT_IN_FACTORY,
//   FIXTURE_WRONG_OBJECTIVES, FIXTURE_WRONG_PARAMETERS
//                                      a library that misbehaves there.
// Its problem: f1 = z1^2, f2 = (z2 - 1)^2 subject to z1 - z2 = 0.

#ifdef FIXTURE_NO_REGISTRATION

extern "C" int fixture_not_a_problem_library() { return 42; }

#else

#include <cstdlib>
#include <memory>
#include <stdexcept>

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
#ifdef FIXTURE_THROW_IN_COST
    throw std::runtime_error("fixture cost function throws");
#endif
#ifdef FIXTURE_THROW_AWAY_FROM_START
    if (z[0] > T(0.3)) throw std::runtime_error("fixture cost throws");
#endif
#ifdef FIXTURE_EXIT_IN_COST
    std::exit(0);
#endif
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
#ifdef FIXTURE_EXIT_IN_FACTORY
  std::exit(0);
#endif
  ecmo::problems::ProblemInfo info;
  info.name = FIXTURE_NAME;
  info.description =
      "problem_library_test fixture: f1 = z1^2, "
      "f2 = (z2-1)^2 subject to z1 = z2.";
#ifdef FIXTURE_WRONG_OBJECTIVES
  info.num_objectives = 3;
#else
  info.num_objectives = 2;
#endif
#ifdef FIXTURE_WRONG_PARAMETERS
  info.num_parameters = 5;
#else
  info.num_parameters = 2;
#endif
  info.num_constraints = 1;
#ifndef FIXTURE_WRONG_OBJECTIVES
  info.objective_offset = {1.0, 1.0};
#endif
#ifdef FIXTURE_THROW_IN_FRONT
  info.pareto_front = [](int) -> Eigen::MatrixXd {
    throw std::runtime_error("fixture front throws");
  };
#endif
  info.build = [] {
#ifdef FIXTURE_THROW_IN_BUILD
    throw std::runtime_error("fixture build throws");
#endif
#ifdef FIXTURE_EXIT_IN_BUILD
    std::exit(0);
#endif
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
