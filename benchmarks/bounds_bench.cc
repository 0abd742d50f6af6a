// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: what bounds and inequality constraints cost the default
// strategy when they never bind (issue 14 target: no overhead when no bound
// is set).
//
// Problem family (not in the registry): gebken_circle lifted to R^k, as in
// scaling_bench.cc,
//
//   f_s(z) = ||z - c_s||^2 (s = 1, 2),   h(z) = ||z||^2 - 1,
//   c_1 = 2a + b, c_2 = 2a - b,
//
// a = (1, ..., 1)/sqrt(k), b = (1, -1, 1, ...)/sqrt(k), solved for one
// preference from z0 = (a + b)/2 + 0.3 w (w orthogonal to a and b), in
// five variants of the same problem:
//   plain        as above;
//   inf_bounds   SetParameterLowerBound / UpperBound(-inf / +inf) on every
//                component: no bound is set, so this must be the plain path;
//   max_bounds   the same with Ceres' +-numeric_limits<double>::max(), which
//                Ceres and ecmo read as "unbounded";
//   box          -10 <= z_i <= 10 on every component (never active: every
//                iterate has |z_i| < 2 here);
//   inequality   c(z) = ||z||^2 - 4 <= 0 (never active on the sphere).
// Each row: the median wall time and process CPU time of `reps` solves
// (each from z0) and their ratios to `plain` measured in the same run (on
// a shared machine the CPU ratio is the steadier one), and the largest
// |z - z_plain|, which must be ~0 (the same point).
//
//   bounds_bench [--k=N (one size only; default 10, 1000, 100000)]
//                [--reps=R (default: 21, 7, 3 for the three sizes)]
//   bounds_bench --smoke   (CTest: k = 10 and 100, 3 reps; exits 1 unless
//                           every variant that runs converges to the plain
//                           point with finite numbers)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "sphere_family.h"

namespace {

enum class Variant { PLAIN, INF_BOUNDS, MAX_BOUNDS, BOX, INEQUALITY };
const char* VariantName(Variant v) {
  switch (v) {
    case Variant::PLAIN:
      return "plain";
    case Variant::INF_BOUNDS:
      return "inf_bounds";
    case Variant::MAX_BOUNDS:
      return "max_bounds";
    case Variant::BOX:
      return "box";
    case Variant::INEQUALITY:
      return "inequality";
  }
  return "?";
}

struct Outcome {
  bool ok = false;
  std::string message;
  double median_seconds = 0.0;      // wall clock
  double median_cpu_seconds = 0.0;  // process CPU time (std::clock)
  Eigen::VectorXd z;
  int iterations = 0;
};

// Builds the variant at the start point and solves it `reps` times.
Outcome Run(int k, Variant variant, int reps) {
  std::shared_ptr<ecmo_bench::SphereInstance> instance =
      ecmo_bench::MakeSphereInstance(k);
  std::vector<double>& z = instance->z;
  const Eigen::VectorXd z0 = Eigen::Map<const Eigen::VectorXd>(z.data(), k);
  ecmo::Problem& problem = instance->problem;
  const double inf = std::numeric_limits<double>::infinity();
  const double big = std::numeric_limits<double>::max();
  for (int i = 0; i < k; ++i) {
    if (variant == Variant::INF_BOUNDS) {
      problem.SetParameterLowerBound(z.data(), i, -inf);
      problem.SetParameterUpperBound(z.data(), i, inf);
    } else if (variant == Variant::MAX_BOUNDS) {
      problem.SetParameterLowerBound(z.data(), i, -big);
      problem.SetParameterUpperBound(z.data(), i, big);
    } else if (variant == Variant::BOX) {
      problem.SetParameterLowerBound(z.data(), i, -10.0);
      problem.SetParameterUpperBound(z.data(), i, 10.0);
    }
  }
  if (variant == Variant::INEQUALITY) {
    problem.AddInequalityConstraint(new ecmo_bench::SphereConstraint(k, 4.0),
                                    {z.data()});
  }

  ecmo::Solver::Options options;  // the default strategy
  options.objective_offset = {0.0, 0.0};
  options.record_history = false;
  Outcome out;
  std::vector<double> times, cpu_times;
  for (int r = 0; r < reps; ++r) {
    Eigen::Map<Eigen::VectorXd>(z.data(), k) = z0;
    ecmo::Solver::Summary summary;
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    ecmo::Solve(options, &problem, {0.3, 0.7}, &summary);
    cpu_times.push_back(static_cast<double>(std::clock() - cpu_start) /
                        CLOCKS_PER_SEC);
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
    out.message = summary.message;
    out.ok = summary.termination_type == ceres::CONVERGENCE;
    out.iterations = summary.inner_iterations;
    if (!out.ok) return out;
  }
  out.z = Eigen::Map<const Eigen::VectorXd>(z.data(), k);
  std::sort(times.begin(), times.end());
  out.median_seconds = times[times.size() / 2];
  std::sort(cpu_times.begin(), cpu_times.end());
  out.median_cpu_seconds = cpu_times[cpu_times.size() / 2];
  return out;
}

// One table per k. Returns false when a variant that ran did not converge
// to the plain point.
bool RunSize(int k, int reps) {
  const Variant variants[] = {Variant::PLAIN,
                              Variant::INF_BOUNDS,
                              Variant::MAX_BOUNDS,
                              Variant::BOX,
                              Variant::INEQUALITY};
  bool ok = true;
  Outcome plain;
  Run(k, Variant::PLAIN, 1);  // warm-up: first-call costs stay out of rows
  for (Variant v : variants) {
    const Outcome o = Run(k, v, reps);
    if (v == Variant::PLAIN) plain = o;
    if (!o.ok || !plain.ok) {
      std::printf("%8d %-11s %5d  FAILED: %s\n",
                  k,
                  VariantName(v),
                  reps,
                  o.message.c_str());
      ok = false;
      continue;
    }
    const double dz = (o.z - plain.z).cwiseAbs().maxCoeff();
    const double ratio = o.median_seconds / plain.median_seconds;
    const double cpu_ratio = o.median_cpu_seconds / plain.median_cpu_seconds;
    std::printf("%8d %-11s %5d %10.3f %7.3f %10.3f %7.3f %10.2e %6d\n",
                k,
                VariantName(v),
                reps,
                1e3 * o.median_seconds,
                ratio,
                1e3 * o.median_cpu_seconds,
                cpu_ratio,
                dz,
                o.iterations);
    if (!std::isfinite(ratio) || !(dz <= 1e-6)) ok = false;
  }
  std::fflush(stdout);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = false;
  int only_k = 0, reps = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strncmp(argv[i], "--k=", 4) == 0) {
      only_k = std::atoi(argv[i] + 4);
    } else if (std::strncmp(argv[i], "--reps=", 7) == 0) {
      reps = std::atoi(argv[i] + 7);
    } else {
      std::fprintf(stderr,
                   "bounds_bench: unknown argument '%s'; valid: --smoke, "
                   "--k=N, --reps=R\n",
                   argv[i]);
      return 2;
    }
  }
  if (only_k < 0 || reps < 0 || (only_k > 0 && only_k % 2 != 0)) {
    std::fprintf(stderr,
                 "bounds_bench: --k must be even and > 0, --reps > 0\n");
    return 2;
  }
  std::vector<std::pair<int, int>> sizes;  // (k, reps)
  if (smoke) {
    sizes = {{10, 3}, {100, 3}};
  } else if (only_k > 0) {
    sizes = {{only_k, reps > 0 ? reps : 5}};
  } else {
    sizes = {{10, 21}, {1000, 7}, {100000, 3}};
  }
  if (reps > 0) {
    for (auto& s : sizes) s.second = reps;
  }
  std::printf(
      "Default strategy, preference (0.3, 0.7), reference point 0; "
      "median of reps solves.\n");
  std::printf("%8s %-11s %5s %10s %7s %10s %7s %10s %6s\n",
              "k",
              "variant",
              "reps",
              "wall ms",
              "ratio",
              "cpu ms",
              "ratio",
              "|z-z_plain|",
              "inner");
  bool ok = true;
  for (const auto& s : sizes) ok = RunSize(s.first, s.second) && ok;
  return ok ? 0 : 1;
}
