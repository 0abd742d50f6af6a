// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Automatic against hand-written lower-level products (plain program,
// Markdown tables on stdout). The lower level of mtbl_logistic
// (ecmo/problems/mtbl_logistic.h: multinomial logistic regression, 3
// sources, 10 classes) three ways:
//
//   hand-written  MtblLogisticLowerLevel: Eigen matrix products, class
//                 probabilities cached across products at the same y;
//   ADOL-C        AutoDiffLowerLevel<MtblLogisticObjective>: the same g
//                 written once as a templated functor, reverse mode on one
//                 ADOL-C tape (ecmo/autodiff_lower_level.h);
//   dense         the MtblProblem route: h = grad_y g and its dense
//                 ny x (nx + ny) Jacobian by nested Jets
//                 (DynamicGradYFunctor, as SetDynamicLowerLevelObjective),
//                 one evaluation, n_y <= --dense_max_ny and 900 samples
//                 only (minutes at n_y = 640).
//
// Table 1, per (n_y, samples) and product: milliseconds per call of each
// and the ratio ADOL-C / hand-written. "value" is g alone (for ADOL-C: one
// zero-order sweep, the part of every product that cannot be skipped);
// "H v" the transpose product (0, v) -> (H_xy v, H_yy v) repeated at one
// point (the CG iterations of one Newton step); "J w" the forward product;
// "D3" the third-order product. Table 2: tape length, recordings (a second
// one when the tape outgrew ADOL-C's default buffers), the time of the last
// (one-off) recording, and the dense route's time per constraint +
// Jacobian evaluation.
//
//   autodiff_hvp_bench [--sizes=64,640,6400] [--samples=300,900,2700]
//                      [--dense_max_ny=640] [--min_time=0.5]
//   autodiff_hvp_bench --smoke   (CTest: n_y = 64, 90 samples; exit 1
//       unless every ADOL-C product matches the hand-written one to 1e-9)
//
// --samples are used at n_y = 640 (the other sizes use 900).

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/dynamic_autodiff_cost_function.h"
#include "ecmo/autodiff_lower_level.h"
#include "ecmo/mtbl.h"
#include "ecmo/problems/mtbl_logistic.h"

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Milliseconds per call of `call`, repeated for at least min_time seconds
// (at least twice); *ok is cleared when a call fails.
double TimePerCall(const std::function<bool()>& call,
                   double min_time,
                   bool* ok) {
  if (!call()) *ok = false;  // warm-up (and the ADOL-C recording)
  int calls = 0;
  const Clock::time_point start = Clock::now();
  do {
    if (!call()) *ok = false;
    ++calls;
  } while (calls < 2 || Seconds(start) < min_time);
  return 1e3 * Seconds(start) / calls;
}

std::vector<int> ParseList(const char* text) {
  std::vector<int> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ','))
    values.push_back(std::atoi(item.c_str()));
  return values;
}

double RelativeError(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).norm() / std::max(1e-300, b.norm());
}

// The number of training samples at every n_y; --samples varies it at
// n_y = 640 only.
constexpr int kDefaultSamples = 900;

struct Config {
  int ny;
  int samples;  // training samples, over 3 sources
};

struct TapeRow {
  Config config;
  long long operations = 0;
  int recordings = 0;
  double taping_ms = 0.0;
  double dense_s = -1.0;  // < 0: not measured
};

int g_failures = 0;

// dense: also time the MtblProblem route.
TapeRow RunConfig(const Config& config,
                  bool dense,
                  double min_time,
                  double tolerance) {
  ecmo::problems::MtblLogisticOptions options;
  options.num_lower_parameters = config.ny;
  options.train_samples_per_source = config.samples / 3;
  options.start_newton_iterations = 0;
  std::string error;
  auto instance = ecmo::problems::BuildMtblLogistic(options, &error);
  TapeRow tape_row;
  tape_row.config = config;
  tape_row.config.ny =
      options.num_lower_parameters / options.num_classes * options.num_classes;
  if (instance == nullptr) {
    std::fprintf(stderr, "%s\n", error.c_str());
    ++g_failures;
    return tape_row;
  }
  const ecmo::problems::MtblLogisticLowerLevel& hand = *instance->lower_level;
  const int nx = hand.NumUpperParameters(), ny = hand.NumLowerParameters();
  ecmo::AutoDiffLowerLevel<ecmo::problems::MtblLogisticObjective> automatic(
      new ecmo::problems::MtblLogisticObjective(hand), nx, ny);
  if (!automatic.IsValid(&error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    ++g_failures;
    return tape_row;
  }
  std::mt19937_64 rng(17);
  std::normal_distribution<double> normal(0.0, 1.0);
  auto random = [&](int n, double scale) {
    Eigen::VectorXd v(n);
    for (int i = 0; i < n; ++i) v[i] = scale * normal(rng);
    return v;
  };
  const Eigen::VectorXd x = random(nx, 0.5), y = random(ny, 0.3);
  const Eigen::VectorXd v = random(ny, 1.0), w_x = random(nx, 1.0),
                        w_y = random(ny, 1.0);

  // The one-off recording happens on the first call.
  double g = 0.0;
  if (!automatic.Value(x.data(), y.data(), &g)) ++g_failures;
  const ecmo::internal::AdolcTape::Statistics statistics =
      automatic.TapeStatistics();
  tape_row.operations = statistics.num_operations;
  tape_row.taping_ms = 1e3 * statistics.last_recording_seconds;

  struct Product {
    const char* name;
    std::function<bool(const ecmo::LowerLevel&, Eigen::VectorXd*)> call;
  };
  const std::vector<Product> products = {
      {"value",
       [&](const ecmo::LowerLevel& lower, Eigen::VectorXd* out) {
         out->resize(1);
         return lower.Value(x.data(), y.data(), out->data());
       }},
      {"GradY",
       [&](const ecmo::LowerLevel& lower, Eigen::VectorXd* out) {
         out->resize(ny);
         return lower.GradY(x.data(), y.data(), out->data());
       }},
      {"H v",
       [&](const ecmo::LowerLevel& lower, Eigen::VectorXd* out) {
         out->resize(nx + ny);
         return lower.GradYJacobianTransposeProduct(
             x.data(), y.data(), v.data(), out->data(), out->data() + nx);
       }},
      {"J w",
       [&](const ecmo::LowerLevel& lower, Eigen::VectorXd* out) {
         out->resize(ny);
         return lower.GradYJacobianProduct(
             x.data(), y.data(), w_x.data(), w_y.data(), out->data());
       }},
      {"D3",
       [&](const ecmo::LowerLevel& lower, Eigen::VectorXd* out) {
         out->resize(nx + ny);
         return lower.GradYJacobianTransposeProductDerivative(x.data(),
                                                              y.data(),
                                                              v.data(),
                                                              w_x.data(),
                                                              w_y.data(),
                                                              out->data(),
                                                              out->data() + nx);
       }},
  };
  for (const Product& product : products) {
    Eigen::VectorXd out_hand, out_auto;
    bool ok = true;
    const double hand_ms = TimePerCall(
        [&] { return product.call(hand, &out_hand); }, min_time, &ok);
    const double auto_ms = TimePerCall(
        [&] { return product.call(automatic, &out_auto); }, min_time, &ok);
    const double error_rel = RelativeError(out_auto, out_hand);
    if (!ok || !(error_rel <= tolerance)) {
      std::fprintf(stderr,
                   "n_y %d samples %d %s: ok %d, relative error %.2e\n",
                   ny,
                   config.samples,
                   product.name,
                   ok,
                   error_rel);
      ++g_failures;
    }
    std::printf("| %5d | %5d | %-5s | %10.3f | %10.3f | %6.1f | %8.1e |\n",
                ny,
                config.samples,
                product.name,
                hand_ms,
                auto_ms,
                auto_ms / hand_ms,
                error_rel);
    std::fflush(stdout);
  }
  // One recording, plus one when the tape outgrew ADOL-C's default buffers
  // (recorded again with buffers of its size); g has no branches.
  tape_row.recordings = automatic.TapeStatistics().recordings;
  if (tape_row.recordings > 2) {
    std::fprintf(stderr,
                 "n_y %d: %d recordings (expected 1 or 2)\n",
                 ny,
                 tape_row.recordings);
    ++g_failures;
  }

  if (dense) {
    // The MtblProblem route: the derived cost function h = grad_y g over
    // (x, y) with its dense Jacobian.
    using Functor =
        ecmo::DynamicGradYFunctor<ecmo::problems::MtblLogisticObjective>;
    auto functor =
        std::make_shared<const ecmo::problems::MtblLogisticObjective>(hand);
    ceres::DynamicAutoDiffCostFunction<Functor, 4> cost(
        new Functor(functor, nx, ny));
    cost.AddParameterBlock(nx);
    cost.AddParameterBlock(ny);
    cost.SetNumResiduals(ny);
    std::vector<double> h(ny), jx(static_cast<size_t>(ny) * nx),
        jy(static_cast<size_t>(ny) * ny);
    const double* parameters[2] = {x.data(), y.data()};
    double* jacobians[2] = {jx.data(), jy.data()};
    const Clock::time_point start = Clock::now();
    if (!cost.Evaluate(parameters, h.data(), jacobians)) ++g_failures;
    tape_row.dense_s = Seconds(start);
  }
  return tape_row;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {64, 640, 6400};
  std::vector<int> samples = {300, 900, 2700};
  int dense_max_ny = 640;
  double min_time = 0.5;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strncmp(argv[i], "--sizes=", 8) == 0) {
      sizes = ParseList(argv[i] + 8);
    } else if (std::strncmp(argv[i], "--samples=", 10) == 0) {
      samples = ParseList(argv[i] + 10);
    } else if (std::strncmp(argv[i], "--dense_max_ny=", 15) == 0) {
      dense_max_ny = std::atoi(argv[i] + 15);
    } else if (std::strncmp(argv[i], "--min_time=", 11) == 0) {
      min_time = std::atof(argv[i] + 11);
    } else {
      std::fprintf(stderr,
                   "usage: autodiff_hvp_bench [--sizes=64,640,6400] "
                   "[--samples=300,900,2700] [--dense_max_ny=640] "
                   "[--min_time=0.5] [--smoke]\n");
      return 2;
    }
  }
  std::vector<Config> configs;
  if (smoke) {
    configs = {{64, 90}};
    min_time = 0.01;
  } else {
    for (int ny : sizes) {
      if (ny == 640) {
        for (int n : samples) configs.push_back({ny, n});
      } else {
        configs.push_back({ny, kDefaultSamples});
      }
    }
  }
  std::printf(
      "| n_y | samples | product | hand-written ms | ADOL-C ms | ratio | "
      "rel. diff |\n|---|---|---|---|---|---|---|\n");
  std::vector<TapeRow> tape_rows;
  for (const Config& config : configs) {
    const bool dense = config.ny <= (smoke ? 64 : dense_max_ny) &&
                       (smoke || config.samples == kDefaultSamples);
    tape_rows.push_back(
        RunConfig(config, dense, min_time, smoke ? 1e-9 : 1e-8));
  }
  std::printf(
      "\n| n_y | samples | tape operations | recordings | taping ms | dense "
      "route s per h + Jacobian |\n|---|---|---|---|---|---|\n");
  for (const TapeRow& row : tape_rows) {
    char dense[32] = "-";
    if (row.dense_s >= 0.0)
      std::snprintf(dense, sizeof(dense), "%.3f", row.dense_s);
    std::printf("| %d | %d | %lld | %d | %.1f | %s |\n",
                row.config.ny,
                row.config.samples,
                row.operations,
                row.recordings,
                row.taping_ms,
                dense);
  }
  return g_failures > 0 ? 1 : 0;
}
