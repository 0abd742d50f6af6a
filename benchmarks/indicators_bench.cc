// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: timing of ecmo::Hypervolume.
//
// All points lie on the positive part of the unit sphere, so every point is
// non-dominated and contributes (the hardest case for the sweeps). The S = 2
// and S = 3 cases report the fitted complexity against n log n: a roughly
// constant "BigO" coefficient with a small RMS confirms O(n log n). S = 5
// exercises WFG.

#include <cmath>
#include <cstdint>
#include <random>

#include "Eigen/Core"
#include "benchmark/benchmark.h"
#include "ecmo/indicators.h"

namespace ecmo {
namespace {

Eigen::MatrixXd SphereFront(int n, int dim, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd points(n, dim);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < dim; ++j) {
      points(i, j) = std::abs(normal(rng)) + 1e-12;
    }
    points.row(i).normalize();
  }
  return points;
}

void BM_Hypervolume(benchmark::State& state, int dim) {
  const int n = static_cast<int>(state.range(0));
  const Eigen::MatrixXd points = SphereFront(n, dim, 42);
  const Eigen::VectorXd reference = Eigen::VectorXd::Constant(dim, 1.1);
  double volume = 0.0;
  for (auto _ : state) {
    volume = Hypervolume(points, reference);
    benchmark::DoNotOptimize(volume);
  }
  state.SetComplexityN(n);
  state.counters["hv"] = volume;
}

void BM_Hypervolume2D(benchmark::State& state) { BM_Hypervolume(state, 2); }
void BM_Hypervolume3D(benchmark::State& state) { BM_Hypervolume(state, 3); }
void BM_Hypervolume5D(benchmark::State& state) { BM_Hypervolume(state, 5); }

BENCHMARK(BM_Hypervolume2D)
    ->Arg(1000)
    ->Arg(2000)
    ->Arg(4000)
    ->Arg(8000)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oNLogN);
BENCHMARK(BM_Hypervolume3D)
    ->Arg(1000)
    ->Arg(2000)
    ->Arg(4000)
    ->Arg(8000)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oNLogN);
BENCHMARK(BM_Hypervolume5D)->Arg(200)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ecmo

BENCHMARK_MAIN();
