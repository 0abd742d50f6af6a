// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/problems/registry.h"

#include <cmath>
#include <memory>
#include <utility>

#include "ceres/autodiff_cost_function.h"
#include "registry_internal.h"

namespace ecmo {
namespace problems {
namespace {

using internal::MakeInstance;

// ---------------------------------------------------------------------------
// Shared helper: the WC solution along a one-parameter Pareto set t in
// [lo, hi] on which one shifted objective increases and the other decreases,
// so g(t) = lambda1 F1 - lambda2 F2 is monotone. The WC problem picks the
// balance point g = 0 when it lies inside, otherwise the end where the
// larger weighted objective is smallest.
template <typename Objectives>
double WcParameter(const Objectives& objectives,
                   const Eigen::VectorXd& lambda,
                   const Eigen::VectorXd& offset,
                   double lo,
                   double hi) {
  auto weighted = [&](double t) {
    const Eigen::Vector2d f = objectives(t);
    return Eigen::Vector2d(lambda[0] * (f[0] + offset[0]),
                           lambda[1] * (f[1] + offset[1]));
  };
  auto g = [&](double t) {
    const Eigen::Vector2d w = weighted(t);
    return w[0] - w[1];
  };
  const double g_lo = g(lo), g_hi = g(hi);
  if ((g_lo > 0.0) == (g_hi > 0.0)) {
    return weighted(lo).maxCoeff() <= weighted(hi).maxCoeff() ? lo : hi;
  }
  const bool lo_positive = g_lo > 0.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    ((g(mid) > 0.0) == lo_positive ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

template <typename Objectives>
Eigen::MatrixXd SampleFront(const Objectives& objectives,
                            double lo,
                            double hi,
                            int n) {
  Eigen::MatrixXd front(n, 2);
  for (int i = 0; i < n; ++i) {
    const double t = n == 1 ? lo : lo + (hi - lo) * i / (n - 1.0);
    front.row(i) = objectives(t).transpose();
  }
  return front;
}

// ------------------------------------------------------------ gebken_circle
// Synthetic example (ii): f1 = (z1-2)^2 + (z2-1)^2, f2 = (z1-2)^2 + (z2+1)^2,
// h = 1 - z1^2 - z2^2.
struct GebkenF1 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - 2.0) * (z[0] - 2.0) + (z[1] - 1.0) * (z[1] - 1.0);
    return true;
  }
};
struct GebkenF2 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - 2.0) * (z[0] - 2.0) + (z[1] + 1.0) * (z[1] + 1.0);
    return true;
  }
};
struct UnitCircle {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = 1.0 - z[0] * z[0] - z[1] * z[1];
    return true;
  }
};

// On the circle z = (cos t, sin t): f1 = 6 - 4 cos t - 2 sin t,
// f2 = 6 - 4 cos t + 2 sin t; the Pareto arc is |t| <= atan(1/2).
Eigen::Vector2d GebkenObjectives(double t) {
  return Eigen::Vector2d(6.0 - 4.0 * std::cos(t) - 2.0 * std::sin(t),
                         6.0 - 4.0 * std::cos(t) + 2.0 * std::sin(t));
}
const double kGebkenArc = std::atan(0.5);

ProblemInfo GebkenCircle() {
  ProblemInfo info;
  info.name = "gebken_circle";
  info.description =
      "Synthetic example (ii) of the paper, after Gebken et al. (2017): "
      "f1 = (z1-2)^2 + (z2-1)^2, f2 = (z1-2)^2 + (z2+1)^2 subject to "
      "h = 1 - z1^2 - z2^2 = 0. The Pareto set is the arc of the unit circle "
      "between the points nearest (2, 1) and (2, -1), angles |t| <= "
      "atan(1/2). Objectives are >= (sqrt(5)-1)^2 > 0 on the circle, so no "
      "offset is needed. Start z0 = (0.5, 0.5).";
  info.num_objectives = 2;
  info.num_parameters = 2;
  info.num_constraints = 1;
  info.objective_offset = {0.0, 0.0};
  info.build = [] {
    auto p = MakeInstance({{0.5, 0.5}});
    double* z = p->blocks[0].data();
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<GebkenF1, 1, 2>>(
            new GebkenF1),
        {z},
        "f1");
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<GebkenF2, 1, 2>>(
            new GebkenF2),
        {z},
        "f2");
    p->problem.AddConstraint(
        std::make_unique<ceres::AutoDiffCostFunction<UnitCircle, 1, 2>>(
            new UnitCircle),
        {z},
        "unit_circle");
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& offset) {
    const double t =
        WcParameter(GebkenObjectives, lambda, offset, -kGebkenArc, kGebkenArc);
    return Eigen::Vector2d(std::cos(t), std::sin(t)).eval();
  };
  info.pareto_front = [](int n) {
    return SampleFront(GebkenObjectives, -kGebkenArc, kGebkenArc, n);
  };
  return info;
}

// -------------------------------------------------------------- convex_line
// The toy example of "Linear Scalarization Method for Convex ECMO Problems".
struct LineF1 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = z[0] * z[0] + 4.0 * z[1] * z[1];
    return true;
  }
};
struct LineF2 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = 4.0 * (z[0] - 2.0) * (z[0] - 2.0) + (z[1] - 2.0) * (z[1] - 2.0);
    return true;
  }
};
struct Line {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = 0.5 * z[0] - z[1] - 0.1;
    return true;
  }
};

// On the line z = (t, t/2 - 0.1): f1 = 2t^2 - 0.4t + 0.04 (min at t = 0.1),
// f2 = 4(t-2)^2 + (t/2 - 2.1)^2 (min at t = 18.1/8.5).
Eigen::Vector2d LineObjectives(double t) {
  const double z2 = 0.5 * t - 0.1;
  return Eigen::Vector2d(t * t + 4.0 * z2 * z2,
                         4.0 * (t - 2.0) * (t - 2.0) + (z2 - 2.0) * (z2 - 2.0));
}
const double kLineLo = 0.1;
const double kLineHi = 18.1 / 8.5;

ProblemInfo ConvexLine() {
  ProblemInfo info;
  info.name = "convex_line";
  info.description =
      "The convex toy example of the paper's linear-scalarization appendix: "
      "f1 = z1^2 + 4 z2^2, f2 = 4(z1-2)^2 + (z2-2)^2 subject to the affine "
      "h = 0.5 z1 - z2 - 0.1 = 0. On the line z = (t, t/2 - 0.1) the Pareto "
      "set is t in [0.1, 18.1/8.5] (the minimizers of f1 and f2 along the "
      "line). Objectives are >= 0.02 on the line: no offset needed. "
      "Start z0 = (0, 1).";
  info.num_objectives = 2;
  info.num_parameters = 2;
  info.num_constraints = 1;
  info.objective_offset = {0.0, 0.0};
  info.build = [] {
    auto p = MakeInstance({{0.0, 1.0}});
    double* z = p->blocks[0].data();
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<LineF1, 1, 2>>(new LineF1),
        {z},
        "f1");
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<LineF2, 1, 2>>(new LineF2),
        {z},
        "f2");
    p->problem.AddConstraint(
        std::make_unique<ceres::AutoDiffCostFunction<Line, 1, 2>>(new Line),
        {z},
        "line");
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& offset) {
    const double t =
        WcParameter(LineObjectives, lambda, offset, kLineLo, kLineHi);
    return Eigen::Vector2d(t, 0.5 * t - 0.1).eval();
  };
  info.pareto_front = [](int n) {
    return SampleFront(LineObjectives, kLineLo, kLineHi, n);
  };
  return info;
}

// -------------------------------------------------------- mtbl_example_iii
// Synthetic example (iii) written out as ECMO with h = grad_y g by hand:
// g = 1/2 (y1-x)^2 + 1/2 (y2-x)^2 + 1/4 y3^4.
struct MtblF {
  explicit MtblF(double target) : target(target) {}
  template <typename T>
  bool operator()(const T* x, const T* y, T* f) const {
    f[0] = (y[0] - target) * (y[0] - target) + (y[1] - x[0]) * (y[1] - x[0]) +
           y[2] * y[2];
    return true;
  }
  double target;
};
struct MtblGradYG {
  template <typename T>
  bool operator()(const T* x, const T* y, T* h) const {
    h[0] = y[0] - x[0];
    h[1] = y[1] - x[0];
    h[2] = y[2] * y[2] * y[2];
    return true;
  }
};

// On the lower-level solution set y = (x, x, 0): f1 = (x-1)^2,
// f2 = (x-2)^2; Pareto set x in [1, 2].
Eigen::Vector2d MtblObjectives(double x) {
  return Eigen::Vector2d((x - 1.0) * (x - 1.0), (x - 2.0) * (x - 2.0));
}

ProblemInfo MtblExampleIii() {
  ProblemInfo info;
  info.name = "mtbl_example_iii";
  info.description =
      "Synthetic MTBL example (iii) of the paper (after Ye et al. 2024) as "
      "ECMO: upper level f1 = (y1-1)^2 + (y2-x)^2 + y3^2, f2 = (y1-2)^2 + "
      "(y2-x)^2 + y3^2; lower level g = (y1-x)^2/2 + (y2-x)^2/2 + y3^4/4, "
      "convex but not strongly convex in y; h = grad_y g = (y1-x, y2-x, "
      "y3^3) written by hand. Lower-level solutions y = (x, x, 0); Pareto "
      "set x in [1, 2] with front (t^2, (1-t)^2), t = x - 1. The objectives "
      "reach 0 on the front, so the default objective offset is 1 for both. "
      "grad h3 = 3 y3^2 vanishes at the solution (LICQ fails in y3), so "
      "first-order methods converge slowly in y3. Parameters: x (1), y (3); "
      "start x = 0, y = (0, 0, 1).";
  info.num_objectives = 2;
  info.num_parameters = 4;
  info.num_constraints = 3;
  info.objective_offset = {1.0, 1.0};
  info.build = [] {
    auto p = MakeInstance({{0.0}, {0.0, 0.0, 1.0}});
    double* x = p->blocks[0].data();
    double* y = p->blocks[1].data();
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<MtblF, 1, 1, 3>>(
            new MtblF(1.0)),
        {x, y},
        "f1");
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<MtblF, 1, 1, 3>>(
            new MtblF(2.0)),
        {x, y},
        "f2");
    p->problem.AddConstraint(
        std::make_unique<ceres::AutoDiffCostFunction<MtblGradYG, 3, 1, 3>>(
            new MtblGradYG),
        {x, y},
        "grad_y_g");
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& offset) {
    const double x = WcParameter(MtblObjectives, lambda, offset, 1.0, 2.0);
    Eigen::VectorXd z(4);
    z << x, x, x, 0.0;
    return z;
  };
  info.pareto_front = [](int n) {
    return SampleFront(MtblObjectives, 1.0, 2.0, n);
  };
  return info;
}

}  // namespace

namespace internal {

std::unique_ptr<ProblemInstance> MakeInstance(
    const std::vector<std::vector<double>>& start) {
  auto instance = std::make_unique<ProblemInstance>();
  instance->blocks = start;
  int k = 0;
  for (const auto& b : start) k += static_cast<int>(b.size());
  instance->start.resize(k);
  int offset = 0;
  for (const auto& b : start) {
    for (double v : b) instance->start[offset++] = v;
  }
  return instance;
}

}  // namespace internal

void ProblemInstance::ResetToStart() {
  int offset = 0;
  for (auto& b : blocks) {
    for (double& v : b) v = start[offset++];
  }
}

const std::vector<ProblemInfo>& AllProblems() {
  static const std::vector<ProblemInfo>* all =
      new std::vector<ProblemInfo>{GebkenCircle(),
                                   ConvexLine(),
                                   MtblExampleIii(),
                                   internal::CircleQuarter(),
                                   internal::SphereOctant(),
                                   internal::ConcaveQuarter()};
  return *all;
}

const std::vector<ProblemInfo>& ConstrainedProblems() {
  static const std::vector<ProblemInfo>* all =
      new std::vector<ProblemInfo>{internal::HsBoxQuadratic(),
                                   internal::HsDiskLinear(),
                                   internal::HsMixedBlocks(),
                                   internal::Bnh(),
                                   internal::DiskBiobjective(),
                                   internal::BoundedSegment(),
                                   internal::MixedBiobjective(),
                                   internal::SimplexTriObjective()};
  return *all;
}

const std::vector<ProblemInfo>& EvaluatorProblems() {
  // Register evaluator-only problems here (see registry.h).
  static const std::vector<ProblemInfo>* all = new std::vector<ProblemInfo>{
      internal::MtblExampleIiiMatrixFree(MtblExampleIii()),
      internal::MtblLogistic(),
      internal::MtblLogisticReduced(),
      internal::DigitsDataWeighting(),
      internal::DigitsDataWeightingReduced(),
      internal::DigitsMetaLearning()};
  return *all;
}

std::vector<const ProblemInfo*> AllEntries() {
  std::vector<const ProblemInfo*> entries;
  for (const ProblemInfo& info : AllProblems()) entries.push_back(&info);
  for (const ProblemInfo& info : ConstrainedProblems()) {
    entries.push_back(&info);
  }
  for (const ProblemInfo& info : EvaluatorProblems()) entries.push_back(&info);
  for (const ProblemInfo* info : LibraryProblems()) entries.push_back(info);
  return entries;
}

const ProblemInfo* Find(const std::string& name) {
  for (const ProblemInfo* info : AllEntries()) {
    if (info->name == name) return info;
  }
  return nullptr;
}

std::string ProblemNames() {
  std::string names;
  for (const ProblemInfo* info : AllEntries()) {
    names += (names.empty() ? "" : ", ") + info->name;
  }
  return names;
}

namespace {

// Runs `body` (a library's build or build_evaluator); an exception becomes
// false with a message naming the problem, so that no tool or sweep
// thread dies of it.
template <typename Body>
bool CatchingUserCode(const ProblemInfo& info,
                      const char* what,
                      std::string* error,
                      Body&& body) {
  std::string why;
  try {
    body();
    return true;
  } catch (const std::exception& e) {
    why = e.what();
  } catch (...) {
    why = "not a std::exception";
  }
  *error = "building '" + info.name + "' failed: its " + what +
           " threw an exception (" + why + ").";
  return false;
}

// Checks that a built instance has the sizes the entry declares (a
// library whose ProblemInfo says S = 3 but builds 2 objectives would fail
// every point with a misleading message). Sizes are compared at the
// default size only: the entry's num_parameters and num_constraints are
// given for it.
bool MatchesInfo(const ProblemInfo& info,
                 bool default_size,
                 const EvaluatorInstance& instance,
                 std::string* error) {
  const Evaluator& e = *instance.evaluator;
  const auto mismatch = [&](const char* field, int declared, int built) {
    *error = "'" + info.name + "': its ProblemInfo::" + field + " is " +
             std::to_string(declared) + " but the problem it builds has " +
             std::to_string(built) + "; make the two agree.";
    return false;
  };
  if (e.NumObjectives() != info.num_objectives) {
    return mismatch("num_objectives", info.num_objectives, e.NumObjectives());
  }
  if (default_size) {
    if (e.NumParameters() != info.num_parameters) {
      return mismatch("num_parameters", info.num_parameters, e.NumParameters());
    }
    const int constraints =
        info.num_constraints + info.num_inequality_constraints;
    if (e.NumConstraints() != constraints) {
      return mismatch("num_constraints (+ num_inequality_constraints)",
                      constraints,
                      e.NumConstraints());
    }
  }
  if (instance.start.size() != e.NumParameters()) {
    *error = "'" + info.name + "': its start point has " +
             std::to_string(instance.start.size()) +
             " entries but the problem has " +
             std::to_string(e.NumParameters()) + " parameters.";
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<EvaluatorInstance> BuildEvaluator(const ProblemInfo& info,
                                                  int problem_size,
                                                  std::string* error) {
  std::string ignored;
  if (error == nullptr) error = &ignored;
  error->clear();
  if (problem_size < 0) {
    *error = "problem size " + std::to_string(problem_size) + " for '" +
             info.name + "' is negative; give a size > 0 (or 0 for the " +
             "default).";
    return nullptr;
  }
  if (problem_size > 0 && !info.has_problem_size()) {
    *error = "'" + info.name +
             "' has a fixed size (k = " + std::to_string(info.num_parameters) +
             ") and takes no problem size; drop the size.";
    return nullptr;
  }
  if (info.build_evaluator) {
    const int size =
        info.has_problem_size()
            ? (problem_size > 0 ? problem_size : info.default_problem_size)
            : 0;
    std::unique_ptr<EvaluatorInstance> instance;
    if (!CatchingUserCode(info, "build_evaluator", error, [&] {
          instance = info.build_evaluator(size, error);
        })) {
      return nullptr;
    }
    if (instance == nullptr || instance->evaluator == nullptr) {
      *error = "building '" + info.name + "' failed: " +
               (error->empty() ? std::string("no evaluator") : *error);
      return nullptr;
    }
    if (!MatchesInfo(
            info, size == info.default_problem_size, *instance, error)) {
      return nullptr;
    }
    return instance;
  }
  if (!info.build) {
    *error = "'" + info.name + "' has neither build nor build_evaluator.";
    return nullptr;
  }
  std::shared_ptr<ProblemInstance> built;
  if (!CatchingUserCode(
          info, "build", error, [&] { built.reset(info.build().release()); })) {
    return nullptr;
  }
  std::string why;
  if (built == nullptr || !built->problem.IsValid(&why)) {
    *error = "building '" + info.name + "' failed" +
             (why.empty() ? std::string(".") : ": " + why);
    return nullptr;
  }
  auto instance = std::make_unique<EvaluatorInstance>();
  instance->evaluator = std::make_unique<ProblemEvaluator>(&built->problem);
  instance->start.resize(built->problem.NumParameters());
  built->problem.GetParameters(instance->start.data());
  instance->problem = &built->problem;
  instance->storage = std::move(built);
  if (!MatchesInfo(info, /*default_size=*/true, *instance, error)) {
    return nullptr;
  }
  return instance;
}

EvaluatorFactory MakeEvaluatorFactory(const ProblemInfo& info,
                                      int problem_size) {
  const ProblemInfo* entry = &info;
  return [entry, problem_size](std::string* error) {
    return BuildEvaluator(*entry, problem_size, error);
  };
}

}  // namespace problems
}  // namespace ecmo
