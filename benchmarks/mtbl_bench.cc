// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// MTBL adapter benchmarks (plain program, Markdown tables on stdout):
//
//   1. Adapter overhead: time per evaluation of h = grad_y g derived by
//      nested automatic differentiation (ecmo::MtblProblem) against the
//      hand-written h, on the paper's examples (i) and (iii), values only
//      and values + Jacobian.
//   2. Matrix-free vs dense on growing y: one evaluator call (F, grad F, h)
//      plus one J_h^T v product, for the separable lower level
//      g = sum_i r_i^2 / 2 + b_i r_i^4 / 4, r = y - a x, through
//      MtblProblem (run-time sized autodiff, dense ny x (1 + ny) Jacobian)
//      and through MtblEvaluator (hand-written Hessian-vector products).
//
// No solves: nothing here depends on a strategy or a scalarization.
//
//   mtbl_bench [--max_dense_ny=1000] [--max_ny=100000]
//   mtbl_bench --smoke   (CTest: 2e4 calls per row, ny <= 100, dense ny <= 30,
//       short timing batches; exits 1 unless the derived h and its Jacobian
//       match the hand-written ones, both routes of table 2 agree on F and h,
//       and every time is finite and positive)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/mtbl.h"
#include "ecmo/problems/registry.h"

namespace {

// Smoke test: failures found by the checks below (they run outside the
// timed loops in every mode; only --smoke turns them into the exit code).
int g_failures = 0;

void Check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "mtbl_bench: %s\n", what.c_str());
  ++g_failures;
}

bool Close(double a, double b) {
  return std::isfinite(a) && std::isfinite(b) &&
         std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

// Values and Jacobians of two cost functions of the blocks (x, y) agree.
bool SameOutputs(const ceres::CostFunction& a,
                 const ceres::CostFunction& b,
                 const double* x,
                 const double* y,
                 int ny,
                 int nx) {
  std::vector<double> ha(ny), hb(ny), jxa(ny * nx), jxb(ny * nx),
      jya(ny * ny), jyb(ny * ny);
  const double* parameters[2] = {x, y};
  double* ja[2] = {jxa.data(), jya.data()};
  double* jb[2] = {jxb.data(), jyb.data()};
  if (!a.Evaluate(parameters, ha.data(), ja) ||
      !b.Evaluate(parameters, hb.data(), jb)) {
    return false;
  }
  for (int i = 0; i < ny; ++i) {
    if (!Close(ha[i], hb[i])) return false;
  }
  for (size_t i = 0; i < jxa.size(); ++i) {
    if (!Close(jxa[i], jxb[i])) return false;
  }
  for (size_t i = 0; i < jya.size(); ++i) {
    if (!Close(jya[i], jyb[i])) return false;
  }
  return true;
}

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Example (i): g = x y + y^4 / 4, h = x + y^3.
struct GExampleI {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    g[0] = x[0] * y[0] + ecmo::K<T>(0.25) * pow(y[0], 4);
    return true;
  }
};
struct HandHExampleI {
  template <typename T>
  bool operator()(const T* x, const T* y, T* h) const {
    h[0] = x[0] + y[0] * y[0] * y[0];
    return true;
  }
};
// Example (iii): g = (y1 - x)^2 / 2 + (y2 - x)^2 / 2 + y3^4 / 4.
struct GExampleIii {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    const T d1 = y[0] - x[0];
    const T d2 = y[1] - x[0];
    g[0] = ecmo::K<T>(0.5) * d1 * d1 + ecmo::K<T>(0.5) * d2 * d2 +
           ecmo::K<T>(0.25) * pow(y[2], 4.0);
    return true;
  }
};
struct UpperY {
  template <typename T>
  bool operator()(const T* y, T* f) const {
    f[0] = y[0];
    return true;
  }
};

// Nanoseconds per Evaluate of `cost` at (x, y), x moving slightly each call
// and the cost function called through a volatile pointer so that the
// compiler can neither devirtualize nor hoist the call.
double TimeCost(const ceres::CostFunction& cost,
                const double* x0,
                const double* y,
                int ny,
                int nx,
                bool jacobian,
                int repetitions) {
  const ceres::CostFunction* volatile pointer = &cost;
  std::vector<double> x(x0, x0 + nx), h(ny), jx(ny * nx), jy(ny * ny);
  const double* parameters[2] = {x.data(), y};
  double* jacobians[2] = {jx.data(), jy.data()};
  double sink = 0.0;
  const double start = Now();
  for (int r = 0; r < repetitions; ++r) {
    x[0] = x0[0] + 1e-9 * (r & 1023);
    pointer->Evaluate(parameters, h.data(), jacobian ? jacobians : nullptr);
    sink += h[0] + jy[0];
  }
  const double seconds = Now() - start;
  if (sink == 1234.5678) std::printf(" ");
  return 1e9 * seconds / repetitions;
}

void AdapterOverhead(int repetitions) {
  std::printf(
      "| example | evaluation | hand-written h (ns) | derived h (ns) | "
      "ratio |\n|---|---|---|---|---|\n");
  {
    double x[1] = {0.7}, y[1] = {-1.3};
    ecmo::MtblProblem mtbl;
    mtbl.SetUpperLevelVariables(x, 1);
    mtbl.SetLowerLevelVariables(y, 1);
    mtbl.SetLowerLevelObjective<1, 1>(new GExampleI);
    mtbl.AddUpperObjective(
        new ceres::AutoDiffCostFunction<UpperY, 1, 1>(new UpperY), {y});
    const ceres::CostFunction& derived =
        *mtbl.problem().constraints()[0].cost_function;
    ceres::AutoDiffCostFunction<HandHExampleI, 1, 1, 1> hand(new HandHExampleI);
    Check(SameOutputs(hand, derived, x, y, 1, 1),
          "(i): derived h or its Jacobian differs from the hand-written h");
    for (bool jacobian : {false, true}) {
      const double a = TimeCost(hand, x, y, 1, 1, jacobian, repetitions);
      const double b = TimeCost(derived, x, y, 1, 1, jacobian, repetitions);
      Check(std::isfinite(b / a) && a > 0.0 && b > 0.0,
            "(i): time not finite and positive");
      std::printf("| (i) | %s | %.1f | %.1f | %.2f |\n",
                  jacobian ? "value + Jacobian" : "value",
                  a,
                  b,
                  b / a);
    }
  }
  {
    const ecmo::problems::ProblemInfo* info =
        ecmo::problems::Find("mtbl_example_iii");
    std::unique_ptr<ecmo::problems::ProblemInstance> reference = info->build();
    const ceres::CostFunction& hand =
        *reference->problem.constraints()[0].cost_function;
    double x[1] = {0.7}, y[3] = {1.5, -0.2, -1.3};
    ecmo::MtblProblem mtbl;
    mtbl.SetUpperLevelVariables(x, 1);
    mtbl.SetLowerLevelVariables(y, 3);
    mtbl.SetLowerLevelObjective<1, 3>(new GExampleIii);
    const ceres::CostFunction& derived =
        *mtbl.problem().constraints()[0].cost_function;
    Check(SameOutputs(hand, derived, x, y, 3, 1),
          "(iii): derived h or its Jacobian differs from the registry's h");
    for (bool jacobian : {false, true}) {
      const double a = TimeCost(hand, x, y, 3, 1, jacobian, repetitions);
      const double b = TimeCost(derived, x, y, 3, 1, jacobian, repetitions);
      Check(std::isfinite(b / a) && a > 0.0 && b > 0.0,
            "(iii): time not finite and positive");
      std::printf("| (iii) | %s | %.1f | %.1f | %.2f |\n",
                  jacobian ? "value + Jacobian" : "value",
                  a,
                  b,
                  b / a);
    }
  }
}

// ------------------------------------------------- growing y, two routes --

struct SeparableG {
  std::vector<double> a, b;
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    T sum = ecmo::K<T>(0.0);
    for (size_t i = 0; i < a.size(); ++i) {
      const T r = y[i] - ecmo::K<T>(a[i]) * x[0];
      const T r2 = r * r;
      sum += ecmo::K<T>(0.5) * r2 + ecmo::K<T>(0.25 * b[i]) * r2 * r2;
    }
    g[0] = sum;
    return true;
  }
};

class SeparableLowerLevel final : public ecmo::LowerLevel {
 public:
  SeparableLowerLevel(std::vector<double> a, std::vector<double> b)
      : a_(std::move(a)), b_(std::move(b)) {}
  int NumUpperParameters() const override { return 1; }
  int NumLowerParameters() const override {
    return static_cast<int>(a_.size());
  }
  bool GradY(const double* x, const double* y, double* h) const override {
    for (size_t i = 0; i < a_.size(); ++i) {
      const double r = y[i] - a_[i] * x[0];
      h[i] = r + b_[i] * r * r * r;
    }
    return true;
  }
  bool GradYJacobianTransposeProduct(const double* x,
                                     const double* y,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    out_x[0] = 0.0;
    for (size_t i = 0; i < a_.size(); ++i) {
      const double r = y[i] - a_[i] * x[0];
      const double d = 1.0 + 3.0 * b_[i] * r * r;
      out_y[i] = d * v[i];
      out_x[0] -= a_[i] * d * v[i];
    }
    return true;
  }

 private:
  std::vector<double> a_, b_;
};

class HalfSquaredDistance final : public ceres::CostFunction {
 public:
  explicit HalfSquaredDistance(std::vector<double> target)
      : target_(std::move(target)) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(
        static_cast<int>(target_.size()));
  }
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    double sum = 0.0;
    for (size_t i = 0; i < target_.size(); ++i) {
      const double d = parameters[0][i] - target_[i];
      sum += d * d;
      if (jacobians != nullptr && jacobians[0] != nullptr) {
        jacobians[0][i] = d;
      }
    }
    residuals[0] = 0.5 * sum;
    return true;
  }

 private:
  std::vector<double> target_;
};

// Seconds per (Evaluate with gradients + one J^T v) on the evaluator; F and
// h of the last call in *f_out, *h_out (empty when an evaluation failed).
double TimeEvaluator(ecmo::Evaluator* evaluator,
                     const Eigen::VectorXd& z,
                     double min_seconds,
                     Eigen::VectorXd* f_out,
                     Eigen::VectorXd* h_out) {
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  Eigen::VectorXd f(S), h(q), out(k), v = Eigen::VectorXd::Ones(q);
  Eigen::MatrixXd grad(k, S);
  std::string error;
  int n = 0;
  bool ok = true;
  const double start = Now();
  double elapsed = 0.0;
  do {
    ok &= evaluator->Evaluate(z.data(), f.data(), h.data(), grad.data(),
                              &error);
    evaluator->JacobianTransposeMultiply(v.data(), out.data());
    ++n;
    elapsed = Now() - start;
  } while (elapsed < min_seconds);
  *f_out = ok ? f : Eigen::VectorXd();
  *h_out = ok ? h : Eigen::VectorXd();
  return elapsed / n;
}

void GrowingY(int max_dense_ny, int max_ny, double min_seconds) {
  std::printf(
      "\n| ny | dense: MtblProblem (ms) | dense Jacobian entries | "
      "matrix-free: MtblEvaluator (ms) | dense / matrix-free |\n"
      "|---|---|---|---|---|\n");
  for (int ny : {10, 30, 100, 300, 1000, 10000, 100000}) {
    if (ny > max_ny) break;
    std::vector<double> a(ny), b(ny), plus(ny), minus(ny);
    for (int i = 0; i < ny; ++i) {
      a[i] = (1.0 + 0.5 * std::sin(0.37 * i)) / std::sqrt(ny);
      b[i] = 0.5 + 0.5 * std::cos(1.3 * i);
      plus[i] = a[i];
      minus[i] = -a[i];
    }
    Eigen::VectorXd z(1 + ny);
    z[0] = 0.3;
    for (int i = 0; i < ny; ++i) z[1 + i] = 0.1 * std::sin(i);

    double dense_ms = -1.0;
    Eigen::VectorXd dense_f, dense_h, free_f, free_h;
    if (ny <= max_dense_ny) {
      std::vector<double> x(1, z[0]), y(z.data() + 1, z.data() + 1 + ny);
      ecmo::MtblProblem mtbl;
      mtbl.SetUpperLevelVariables(x.data(), 1);
      mtbl.SetLowerLevelVariables(y.data(), ny);
      auto* g = new SeparableG;
      g->a = a;
      g->b = b;
      mtbl.SetDynamicLowerLevelObjective(g);
      mtbl.AddUpperObjective(new HalfSquaredDistance(plus), {y.data()});
      mtbl.AddUpperObjective(new HalfSquaredDistance(minus), {y.data()});
      ecmo::ProblemEvaluator evaluator(&mtbl.problem());
      dense_ms = 1e3 * TimeEvaluator(&evaluator, z, 0.5 * min_seconds,
                                     &dense_f, &dense_h);
    }
    SeparableLowerLevel lower(a, b);
    ecmo::MtblEvaluator evaluator(&lower);
    evaluator.AddUpperObjective(new HalfSquaredDistance(plus),
                                {ecmo::MtblBlock::Y});
    evaluator.AddUpperObjective(new HalfSquaredDistance(minus),
                                {ecmo::MtblBlock::Y});
    const double free_ms = 1e3 * TimeEvaluator(&evaluator, z, 0.3 * min_seconds,
                                               &free_f, &free_h);
    const std::string row = "ny = " + std::to_string(ny) + ": ";
    Check(free_f.size() == 2 && free_h.size() == ny && free_f.allFinite() &&
              free_h.allFinite(),
          row + "matrix-free evaluation failed");
    Check(std::isfinite(free_ms) && free_ms > 0.0,
          row + "matrix-free time not finite and positive");
    if (ny <= max_dense_ny) {
      bool same = dense_f.size() == free_f.size() &&
                  dense_h.size() == free_h.size();
      for (int i = 0; same && i < free_f.size(); ++i) {
        same = Close(dense_f[i], free_f[i]);
      }
      for (int i = 0; same && i < free_h.size(); ++i) {
        same = Close(dense_h[i], free_h[i]);
      }
      Check(same, row + "dense and matrix-free F or h differ");
      Check(std::isfinite(dense_ms) && dense_ms > 0.0,
            row + "dense time not finite and positive");
    }
    if (dense_ms >= 0.0) {
      std::printf("| %d | %.4g | %.3g | %.4g | %.0f |\n",
                  ny,
                  dense_ms,
                  static_cast<double>(ny) * (ny + 1),
                  free_ms,
                  dense_ms / free_ms);
    } else {
      std::printf("| %d | (skipped) | %.3g | %.4g | - |\n",
                  ny,
                  static_cast<double>(ny) * (ny + 1),
                  free_ms);
    }
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int max_dense_ny = 1000, max_ny = 100000;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strncmp(argv[i], "--max_dense_ny=", 15) == 0) {
      max_dense_ny = std::atoi(argv[i] + 15);
    } else if (std::strncmp(argv[i], "--max_ny=", 9) == 0) {
      max_ny = std::atoi(argv[i] + 9);
    } else {
      std::fprintf(stderr,
                   "usage: mtbl_bench [--max_dense_ny=N] [--max_ny=N] "
                   "[--smoke]\n");
      return 1;
    }
  }
  if (smoke) {
    max_dense_ny = 30;
    max_ny = 100;
  }
  AdapterOverhead(smoke ? 20000 : 2000000);
  GrowingY(max_dense_ny, max_ny, smoke ? 0.02 : 1.0);
  return smoke && g_failures > 0 ? 1 : 0;
}
