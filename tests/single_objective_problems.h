// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Single-objective equality-constrained test problems with NEGATIVE optimal
// values, from the Hock-Schittkowski collection (W. Hock and K. Schittkowski,
// "Test Examples for Nonlinear Programming Codes", Lecture Notes in
// Economics and Mathematical Systems 187, Springer, 1981; numbering as
// there) or in closed form. Each is written as a struct with
//
//   static void Build(double* z, ecmo::Problem* problem);
//
// which adds one objective (an AutoDiffCostFunction with 1 residual: the
// value f) and the constraints on the single parameter block z (size
// kNumParameters, owned by the caller), and a static Info() descriptor with
// the standard start point, the optimal point and value, and how precisely
// these are known. The builders use no objective offset and depend on
// nothing but Ceres and ecmo::Problem, so they can test a solver that must
// reach f* < 0 with no offset at all. Every formula and optimum below is
// checked by tests/single_objective_problems_test.cc (constraints vanish,
// f(z*) = f*, KKT residual with least-squares multipliers, and Ipopt from
// the start point reaches f*).
//
// Only problems without bounds or inequalities in the original are
// included, or ones whose bounds are inactive at the solution.

#ifndef ECMO_TESTS_SINGLE_OBJECTIVE_PROBLEMS_H_
#define ECMO_TESTS_SINGLE_OBJECTIVE_PROBLEMS_H_

#include <cmath>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/problem.h"

namespace ecmo {
namespace testing {

// What is known about one problem.
struct SingleObjectiveProblem {
  std::string name;
  int num_parameters = 0;
  int num_constraints = 0;
  // The start point of the collection (size num_parameters).
  std::vector<double> start;
  // A global minimizer z* and f* = f(z*) < 0.
  std::vector<double> optimum;
  double optimal_value = 0.0;
  // Absolute accuracy of the entries of `optimum` (and of optimal_value
  // relative to max(1, |f*|)): about 1e-15 for closed forms, the last digit
  // the literature prints otherwise.
  double precision = 0.0;
  // Adds the objective and constraints on z (num_parameters doubles).
  void (*build)(double* z, Problem* problem) = nullptr;
};

// ------------------------------------------------------------ circle_sum
// min z1 + z2  s.t.  z1^2 + z2^2 = 2. Closed form: z* = (-1, -1), f* = -2
// (the constraint normal is parallel to (1, 1) only at +-(1, 1)).
struct CircleSum {
  struct F {
    template <typename T>
    bool operator()(const T* z, T* f) const {
      f[0] = z[0] + z[1];
      return true;
    }
  };
  struct H {
    template <typename T>
    bool operator()(const T* z, T* h) const {
      h[0] = z[0] * z[0] + z[1] * z[1] - 2.0;
      return true;
    }
  };
  static void Build(double* z, Problem* problem) {
    problem->AddObjective(new ceres::AutoDiffCostFunction<F, 1, 2>(new F),
                          {z});
    problem->AddConstraint(new ceres::AutoDiffCostFunction<H, 1, 2>(new H),
                           {z});
  }
  static SingleObjectiveProblem Info() {
    return {"circle_sum", 2, 1, {1.0, 0.5}, {-1.0, -1.0}, -2.0, 1e-15, Build};
  }
};

// ----------------------------------------------------------------- HS 7
// min log(1 + z1^2) - z2  s.t.  (1 + z1^2)^2 + z2^2 - 4 = 0.
// Start (2, 2). z* = (0, sqrt(3)), f* = -sqrt(3): z2^2 = 4 - (1 + z1^2)^2 is
// largest at z1 = 0, where log(1 + z1^2) is smallest too.
struct Hs7 {
  struct F {
    template <typename T>
    bool operator()(const T* z, T* f) const {
      using std::log;
      f[0] = log(1.0 + z[0] * z[0]) - z[1];
      return true;
    }
  };
  struct H {
    template <typename T>
    bool operator()(const T* z, T* h) const {
      const T a = 1.0 + z[0] * z[0];
      h[0] = a * a + z[1] * z[1] - 4.0;
      return true;
    }
  };
  static void Build(double* z, Problem* problem) {
    problem->AddObjective(new ceres::AutoDiffCostFunction<F, 1, 2>(new F),
                          {z});
    problem->AddConstraint(new ceres::AutoDiffCostFunction<H, 1, 2>(new H),
                           {z});
  }
  static SingleObjectiveProblem Info() {
    return {"hs7",  2, 1, {2.0, 2.0}, {0.0, std::sqrt(3.0)}, -std::sqrt(3.0),
            1e-15, Build};
  }
};

// ----------------------------------------------------------------- HS 9
// min sin(pi z1 / 12) cos(pi z2 / 16)  s.t.  4 z1 - 3 z2 = 0.
// Start (0, 0). On the line z2 = 4 z1 / 3, so pi z2 / 16 = pi z1 / 12 = a
// and f = sin(a) cos(a) = sin(2a) / 2: minimizers z* = (12k - 3, 16k - 4),
// k integer, f* = -1/2; the one nearest the start is k = 0: z* = (-3, -4).
struct Hs9 {
  struct F {
    template <typename T>
    bool operator()(const T* z, T* f) const {
      using std::cos;
      using std::sin;
      const double pi = 3.14159265358979323846;
      f[0] = sin(pi * z[0] / 12.0) * cos(pi * z[1] / 16.0);
      return true;
    }
  };
  struct H {
    template <typename T>
    bool operator()(const T* z, T* h) const {
      h[0] = 4.0 * z[0] - 3.0 * z[1];
      return true;
    }
  };
  static void Build(double* z, Problem* problem) {
    problem->AddObjective(new ceres::AutoDiffCostFunction<F, 1, 2>(new F),
                          {z});
    problem->AddConstraint(new ceres::AutoDiffCostFunction<H, 1, 2>(new H),
                           {z});
  }
  static SingleObjectiveProblem Info() {
    return {"hs9", 2, 1, {0.0, 0.0}, {-3.0, -4.0}, -0.5, 1e-15, Build};
  }
};

// ---------------------------------------------------------------- HS 39
// min -z1  s.t.  z2 - z1^3 - z3^2 = 0,  z1^2 - z2 - z4^2 = 0.
// Start (2, 2, 2, 2). z* = (1, 1, 0, 0), f* = -1 (z1^3 + z3^2 = z2 =
// z1^2 - z4^2 gives z1^3 <= z1^2, so z1 <= 1).
struct Hs39 {
  struct F {
    template <typename T>
    bool operator()(const T* z, T* f) const {
      f[0] = -z[0];
      return true;
    }
  };
  struct H {
    template <typename T>
    bool operator()(const T* z, T* h) const {
      h[0] = z[1] - z[0] * z[0] * z[0] - z[2] * z[2];
      h[1] = z[0] * z[0] - z[1] - z[3] * z[3];
      return true;
    }
  };
  static void Build(double* z, Problem* problem) {
    problem->AddObjective(new ceres::AutoDiffCostFunction<F, 1, 4>(new F),
                          {z});
    problem->AddConstraint(new ceres::AutoDiffCostFunction<H, 2, 4>(new H),
                           {z});
  }
  static SingleObjectiveProblem Info() {
    return {"hs39", 4, 2, {2.0, 2.0, 2.0, 2.0}, {1.0, 1.0, 0.0, 0.0}, -1.0,
            1e-15, Build};
  }
};

// ---------------------------------------------------------------- HS 40
// min -z1 z2 z3 z4  s.t.  z1^3 + z2^2 - 1 = 0,  z1^2 z4 - z3 = 0,
//                         z4^2 - z2 = 0.
// Start (0.8, 0.8, 0.8, 0.8). z* = (2^(-1/3), 2^(-1/2), 2^(-11/12),
// 2^(-1/4)), f* = -2^(-(4 + 6 + 11 + 3)/12) = -1/4 (z4 = -2^(-1/4) with
// z3 = -2^(-11/12) is the other minimizer).
struct Hs40 {
  struct F {
    template <typename T>
    bool operator()(const T* z, T* f) const {
      f[0] = -z[0] * z[1] * z[2] * z[3];
      return true;
    }
  };
  struct H {
    template <typename T>
    bool operator()(const T* z, T* h) const {
      h[0] = z[0] * z[0] * z[0] + z[1] * z[1] - 1.0;
      h[1] = z[0] * z[0] * z[3] - z[2];
      h[2] = z[3] * z[3] - z[1];
      return true;
    }
  };
  static void Build(double* z, Problem* problem) {
    problem->AddObjective(new ceres::AutoDiffCostFunction<F, 1, 4>(new F),
                          {z});
    problem->AddConstraint(new ceres::AutoDiffCostFunction<H, 3, 4>(new H),
                           {z});
  }
  static SingleObjectiveProblem Info() {
    return {"hs40",
            4,
            3,
            {0.8, 0.8, 0.8, 0.8},
            {std::pow(2.0, -1.0 / 3.0), std::pow(2.0, -0.5),
             std::pow(2.0, -11.0 / 12.0), std::pow(2.0, -0.25)},
            -0.25,
            1e-15,
            Build};
  }
};

// ---------------------------------------------------------------- HS 56
// min -z1 z2 z3  s.t.  z1 - 4.2 sin^2 z4 = 0,  z2 - 4.2 sin^2 z5 = 0,
//                      z3 - 4.2 sin^2 z6 = 0,
//                      z1 + 2 z2 + 2 z3 - 7.2 sin^2 z7 = 0.
// Start z1 = z2 = z3 = 1, z4 = z5 = z6 = asin(sqrt(1/4.2)),
// z7 = asin(sqrt(5/7.2)) (feasible). Since sin^2 <= 1 the problem is
// max z1 z2 z3 s.t. z1 + 2 z2 + 2 z3 <= 7.2, 0 <= z_i <= 4.2, whose
// maximizer (AM-GM on z1, 2 z2, 2 z3) is z1 = 2.4, z2 = z3 = 1.2; so
// z7 = pi/2, z4 = asin(sqrt(2.4/4.2)), z5 = z6 = asin(sqrt(1.2/4.2)) and
// f* = -3.456 exactly, as the collection gives it.
// At z7 = pi/2 the last constraint's derivative in z7 vanishes; J_h keeps
// full rank through z1..z3.
struct Hs56 {
  struct F {
    template <typename T>
    bool operator()(const T* z, T* f) const {
      f[0] = -z[0] * z[1] * z[2];
      return true;
    }
  };
  struct H {
    template <typename T>
    bool operator()(const T* z, T* h) const {
      using std::sin;
      const T s4 = sin(z[3]), s5 = sin(z[4]), s6 = sin(z[5]), s7 = sin(z[6]);
      h[0] = z[0] - 4.2 * s4 * s4;
      h[1] = z[1] - 4.2 * s5 * s5;
      h[2] = z[2] - 4.2 * s6 * s6;
      h[3] = z[0] + 2.0 * z[1] + 2.0 * z[2] - 7.2 * s7 * s7;
      return true;
    }
  };
  static void Build(double* z, Problem* problem) {
    problem->AddObjective(new ceres::AutoDiffCostFunction<F, 1, 7>(new F),
                          {z});
    problem->AddConstraint(new ceres::AutoDiffCostFunction<H, 4, 7>(new H),
                           {z});
  }
  static SingleObjectiveProblem Info() {
    const double a = std::asin(std::sqrt(1.0 / 4.2));
    return {"hs56",
            7,
            4,
            {1.0, 1.0, 1.0, a, a, a, std::asin(std::sqrt(5.0 / 7.2))},
            {2.4, 1.2, 1.2, std::asin(std::sqrt(2.4 / 4.2)),
             std::asin(std::sqrt(1.2 / 4.2)), std::asin(std::sqrt(1.2 / 4.2)),
             0.5 * 3.14159265358979323846},
            -3.456,
            1e-15,
            Build};
  }
};

// ---------------------------------------------------------------- HS 61
// min 4 z1^2 + 2 z2^2 + 2 z3^2 - 33 z1 + 16 z2 - 24 z3
// s.t. 3 z1 - 2 z2^2 - 7 = 0,  4 z1 - z3^2 - 11 = 0.
// Start (0, 0, 0). The collection gives z* = (5.326770157, -2.118998639,
// 3.210464239), f* = -143.6461422. Substituting 2 z2^2 = 3 z1 - 7 and
// 2 z3^2 = 8 z1 - 22 (with z2 < 0, z3 > 0, the signs that lower f) leaves
// the convex g(z1) = 4 z1^2 - 22 z1 - 29 - 16 sqrt((3 z1 - 7)/2)
// - 24 sqrt(4 z1 - 11), whose root of g' (by bisection) is z1 =
// 5.326770135563927, z2 = -2.1189986322189758, z3 = 3.21046422535055,
// f* = -143.64614219778025: the printed point is good to about 2e-8, the
// value to all ten printed digits. The refined values are listed here.
struct Hs61 {
  struct F {
    template <typename T>
    bool operator()(const T* z, T* f) const {
      f[0] = 4.0 * z[0] * z[0] + 2.0 * z[1] * z[1] + 2.0 * z[2] * z[2] -
             33.0 * z[0] + 16.0 * z[1] - 24.0 * z[2];
      return true;
    }
  };
  struct H {
    template <typename T>
    bool operator()(const T* z, T* h) const {
      h[0] = 3.0 * z[0] - 2.0 * z[1] * z[1] - 7.0;
      h[1] = 4.0 * z[0] - z[2] * z[2] - 11.0;
      return true;
    }
  };
  static void Build(double* z, Problem* problem) {
    problem->AddObjective(new ceres::AutoDiffCostFunction<F, 1, 3>(new F),
                          {z});
    problem->AddConstraint(new ceres::AutoDiffCostFunction<H, 2, 3>(new H),
                           {z});
  }
  static SingleObjectiveProblem Info() {
    return {"hs61",
            3,
            2,
            {0.0, 0.0, 0.0},
            {5.326770135563927, -2.1189986322189758, 3.21046422535055},
            -143.64614219778025,
            1e-14,
            Build};
  }
};

// ---------------------------------------------------------------- HS 78
// min z1 z2 z3 z4 z5
// s.t. z1^2 + z2^2 + z3^2 + z4^2 + z5^2 - 10 = 0,  z2 z3 - 5 z4 z5 = 0,
//      z1^3 + z2^3 + 1 = 0.
// Start (-2, 1.5, 2, -1, -1). The collection gives z* = (-1.717142,
// 1.595708, 1.827248, -0.7636429, -0.7636435), f* = -2.919700 (seven
// digits; the problem is symmetric in z4, z5 and z4 = z5 at the optimum).
struct Hs78 {
  struct F {
    template <typename T>
    bool operator()(const T* z, T* f) const {
      f[0] = z[0] * z[1] * z[2] * z[3] * z[4];
      return true;
    }
  };
  struct H {
    template <typename T>
    bool operator()(const T* z, T* h) const {
      h[0] = z[0] * z[0] + z[1] * z[1] + z[2] * z[2] + z[3] * z[3] +
             z[4] * z[4] - 10.0;
      h[1] = z[1] * z[2] - 5.0 * z[3] * z[4];
      h[2] = z[0] * z[0] * z[0] + z[1] * z[1] * z[1] + 1.0;
      return true;
    }
  };
  static void Build(double* z, Problem* problem) {
    problem->AddObjective(new ceres::AutoDiffCostFunction<F, 1, 5>(new F),
                          {z});
    problem->AddConstraint(new ceres::AutoDiffCostFunction<H, 3, 5>(new H),
                           {z});
  }
  static SingleObjectiveProblem Info() {
    return {"hs78",
            5,
            3,
            {-2.0, 1.5, 2.0, -1.0, -1.0},
            {-1.717142, 1.595708, 1.827248, -0.7636429, -0.7636435},
            -2.919700,
            1e-6,
            Build};
  }
};

// All of the above, in a stable order.
inline std::vector<SingleObjectiveProblem> SingleObjectiveProblems() {
  return {CircleSum::Info(), Hs7::Info(),  Hs9::Info(),  Hs39::Info(),
          Hs40::Info(),      Hs56::Info(), Hs61::Info(), Hs78::Info()};
}

}  // namespace testing
}  // namespace ecmo

#endif  // ECMO_TESTS_SINGLE_OBJECTIVE_PROBLEMS_H_
