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
//   mtbl_bench [--max_dense_ny=1000] [--max_ny=100000]

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

void AdapterOverhead() {
  const int repetitions = 2000000;
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
    for (bool jacobian : {false, true}) {
      const double a = TimeCost(hand, x, y, 1, 1, jacobian, repetitions);
      const double b = TimeCost(derived, x, y, 1, 1, jacobian, repetitions);
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
    for (bool jacobian : {false, true}) {
      const double a = TimeCost(hand, x, y, 3, 1, jacobian, repetitions);
      const double b = TimeCost(derived, x, y, 3, 1, jacobian, repetitions);
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

// Seconds per (Evaluate with gradients + one J^T v) on the evaluator.
double TimeEvaluator(ecmo::Evaluator* evaluator,
                     const Eigen::VectorXd& z,
                     double min_seconds) {
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  Eigen::VectorXd f(S), h(q), out(k), v = Eigen::VectorXd::Ones(q);
  Eigen::MatrixXd grad(k, S);
  std::string error;
  int n = 0;
  const double start = Now();
  double elapsed = 0.0;
  do {
    evaluator->Evaluate(z.data(), f.data(), h.data(), grad.data(), &error);
    evaluator->JacobianTransposeMultiply(v.data(), out.data());
    ++n;
    elapsed = Now() - start;
  } while (elapsed < min_seconds);
  return elapsed / n;
}

void GrowingY(int max_dense_ny, int max_ny) {
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
      dense_ms = 1e3 * TimeEvaluator(&evaluator, z, 0.5);
    }
    SeparableLowerLevel lower(a, b);
    ecmo::MtblEvaluator evaluator(&lower);
    evaluator.AddUpperObjective(new HalfSquaredDistance(plus),
                                {ecmo::MtblBlock::Y});
    evaluator.AddUpperObjective(new HalfSquaredDistance(minus),
                                {ecmo::MtblBlock::Y});
    const double free_ms = 1e3 * TimeEvaluator(&evaluator, z, 0.3);
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
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--max_dense_ny=", 15) == 0) {
      max_dense_ny = std::atoi(argv[i] + 15);
    } else if (std::strncmp(argv[i], "--max_ny=", 9) == 0) {
      max_ny = std::atoi(argv[i] + 9);
    } else {
      std::fprintf(stderr,
                   "usage: mtbl_bench [--max_dense_ny=N] [--max_ny=N]\n");
      return 1;
    }
  }
  AdapterOverhead();
  GrowingY(max_dense_ny, max_ny);
  return 0;
}
