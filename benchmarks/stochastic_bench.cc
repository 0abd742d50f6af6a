// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Stochastic WC-Penalty (Algorithm 3) benchmark (plain program, Markdown
// table on stdout): ||K||^2 against samples drawn, over several seeds, on
// the noisy problem of tests/stochastic_test.cc (two noisy least-squares
// objectives 1/2 ||z - c_s - xi||^2, xi ~ N(0, 0.25 I_3), under the noisy
// plane 1^T z - 1 + zeta = 0, zeta ~ N(0, 0.25)), lambda = (0.4, 0.6),
// theorem schedule: eta = eta0 T^(-1/4), u = v = T^(1/4),
// B = T_batch = ceil(0.5 T^(5/4)).
//
// Offsets: zeros (StochasticSolver's default; the objectives are positive).
//
//   stochastic_bench [--seeds=5] [--max_t=1024]
//   stochastic_bench --smoke   (CTest: --seeds=2 --max_t=128; exits 1 unless
//       every run is usable with finite scores and the mean average
//       ||K_t||^2 falls with every doubling of T)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "Eigen/Core"
#include "ecmo/stochastic.h"

namespace {

constexpr int kK = 3;
constexpr double kSigma = 0.5;

class NoisyDistance final : public ecmo::SingleSampleFunction {
 public:
  explicit NoisyDistance(const Eigen::Vector3d& c) : c_(c) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(kK);
  }
  bool EvaluateSample(const double* const* parameters,
                      std::mt19937_64* rng,
                      double* values,
                      double** jacobians) const override {
    std::normal_distribution<double> noise(0.0, kSigma);
    double sum = 0.0;
    for (int i = 0; i < kK; ++i) {
      const double d = parameters[0][i] - c_[i] - noise(*rng);
      sum += d * d;
      if (jacobians != nullptr && jacobians[0] != nullptr) jacobians[0][i] = d;
    }
    values[0] = 0.5 * sum;
    return true;
  }
  bool EvaluateExpectation(const double* const* parameters,
                           double* values,
                           double** jacobians) const override {
    double sum = 0.0;
    for (int i = 0; i < kK; ++i) {
      const double d = parameters[0][i] - c_[i];
      sum += d * d;
      if (jacobians != nullptr && jacobians[0] != nullptr) jacobians[0][i] = d;
    }
    values[0] = 0.5 * sum + 0.5 * kK * kSigma * kSigma;
    return true;
  }

 private:
  Eigen::Vector3d c_;
};

class NoisyPlane final : public ecmo::SingleSampleFunction {
 public:
  NoisyPlane() {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(kK);
  }
  bool EvaluateSample(const double* const* parameters,
                      std::mt19937_64* rng,
                      double* values,
                      double** jacobians) const override {
    std::normal_distribution<double> noise(0.0, kSigma);
    return Exact(parameters, values, jacobians, noise(*rng));
  }
  bool EvaluateExpectation(const double* const* parameters,
                           double* values,
                           double** jacobians) const override {
    return Exact(parameters, values, jacobians, 0.0);
  }

 private:
  static bool Exact(const double* const* parameters,
                    double* values,
                    double** jacobians,
                    double zeta) {
    values[0] =
        parameters[0][0] + parameters[0][1] + parameters[0][2] - 1.0 + zeta;
    if (jacobians != nullptr && jacobians[0] != nullptr) {
      for (int i = 0; i < kK; ++i) jacobians[0][i] = 1.0;
    }
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  int seeds = 5, max_t = 1024;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strncmp(argv[i], "--seeds=", 8) == 0) {
      seeds = std::atoi(argv[i] + 8);
    } else if (std::strncmp(argv[i], "--max_t=", 8) == 0) {
      max_t = std::atoi(argv[i] + 8);
    } else {
      std::fprintf(stderr,
                   "usage: stochastic_bench [--seeds=N] [--max_t=N] [--smoke]\n");
      return 1;
    }
  }
  if (smoke) {
    seeds = 2;
    max_t = 128;
  }
  int failures = 0;
  double previous_mean = INFINITY;
  std::printf(
      "| T | batch B | samples drawn | avg ||K_t||^2 mean | avg ||K_t||^2 "
      "min..max | final ||K||^2 (LS) mean | final ||K||^2 (LS) min..max | "
      "time per run (s) |\n|---|---|---|---|---|---|---|---|\n");
  for (int T = 32; T <= max_t; T *= 2) {
    std::vector<double> average, final_kkt;
    long long samples = 0;
    int batch = 0;
    double seconds = 0.0;
    for (int seed = 1; seed <= seeds; ++seed) {
      Eigen::Vector3d z = Eigen::Vector3d::Zero();
      ecmo::StochasticProblem problem;
      problem.AddObjective(new NoisyDistance(Eigen::Vector3d(2, 0, 0)),
                           {z.data()});
      problem.AddObjective(new NoisyDistance(Eigen::Vector3d(0, 2, 0)),
                           {z.data()});
      problem.AddConstraint(new NoisyPlane, {z.data()});
      ecmo::StochasticSolver::Options options;
      options.max_iterations = T;
      options.seed = seed;
      options.eta0 = 0.05;
      options.batch_size_factor = 0.5;
      ecmo::StochasticSolver::Summary summary;
      ecmo::Solve(options, problem, {0.4, 0.6}, &summary);
      if (!summary.IsSolutionUsable()) {
        std::fprintf(
            stderr, "T = %d seed %d: %s\n", T, seed, summary.message.c_str());
        return 1;
      }
      average.push_back(summary.average_kkt_residual_sq);
      final_kkt.push_back(
          summary.kkt.with_least_squares_multipliers.SquaredNorm());
      samples = summary.samples_drawn;
      batch = summary.first_objective_batch_size;
      seconds += summary.total_time_in_seconds;
    }
    auto mean = [](const std::vector<double>& v) {
      double s = 0.0;
      for (double x : v) s += x;
      return s / v.size();
    };
    std::printf(
        "| %d | %d | %.3g | %.3e | %.2e..%.2e | %.3e | %.2e..%.2e | "
        "%.3f |\n",
        T,
        batch,
        static_cast<double>(samples),
        mean(average),
        *std::min_element(average.begin(), average.end()),
        *std::max_element(average.begin(), average.end()),
        mean(final_kkt),
        *std::min_element(final_kkt.begin(), final_kkt.end()),
        *std::max_element(final_kkt.begin(), final_kkt.end()),
        seconds / seeds);
    std::fflush(stdout);
    if (smoke) {
      bool finite = true;
      for (double v : average) finite = finite && std::isfinite(v) && v >= 0.0;
      for (double v : final_kkt) finite = finite && std::isfinite(v);
      if (!finite || !(mean(average) < previous_mean)) {
        std::fprintf(stderr,
                     "stochastic_bench: T = %d: %s\n",
                     T,
                     finite ? "average ||K_t||^2 did not fall with T"
                            : "non-finite KKT score");
        ++failures;
      }
      previous_mean = mean(average);
    }
  }
  return failures == 0 ? 0 : 1;
}
