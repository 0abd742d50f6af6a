// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Multi-task bilevel learning (MTBL) as ECMO. The bilevel problem
//
//   min_{x, y} [f_1(x, y), ..., f_S(x, y)]   s.t.   y in argmin_y g(x, y),
//
// with g(x, .) convex, is the ECMO problem with the equality constraint
// h(x, y) = grad_y g(x, y) = 0 (the paper's "Returning to MTBL Problems
// through the Lens of ECMO"). This header provides two ways to build it;
// ecmo/autodiff_lower_level.h adds a third.
//
// 1. MtblProblem (small and medium y): you write g ONCE as a templated
//    functor; the adapter derives h = grad_y g and its exact Jacobian
//    d h / d(x, y) (the second derivatives of g) by nested automatic
//    differentiation and produces an ordinary ecmo::Problem:
//
//      struct LowerG {   // g = 1/2 (y1 - x)^2 + 1/4 y2^4
//        template <typename T>
//        bool operator()(const T* x, const T* y, T* g) const {
//          const T d = y[0] - x[0];
//          g[0] = ecmo::K<T>(0.5) * d * d + ecmo::K<T>(0.25) * pow(y[1], 4);
//          return true;
//        }
//      };
//      double x[1] = {0.0}, y[2] = {0.0, 1.0};
//      ecmo::MtblProblem mtbl;
//      mtbl.SetUpperLevelVariables(x, 1);
//      mtbl.SetLowerLevelVariables(y, 2);
//      mtbl.SetLowerLevelObjective<1, 2>(new LowerG);   // compile-time sizes
//      mtbl.AddUpperObjective(new ceres::AutoDiffCostFunction<F1, 1, 1, 2>(
//                                 new F1), {x, y});
//      ...
//      ecmo::MtblSolver::Options options;
//      ecmo::MtblSolver::Summary summary;
//      ecmo::Solve(options, &mtbl, {0.5, 0.5}, &summary);
//      std::cout << summary.FullReport() << "\n";
//
//    SetDynamicLowerLevelObjective(new G) is the run-time sized variant
//    (Ceres' DynamicAutoDiffCostFunction) for y whose size is only known at
//    run time; G then reads the sizes from its own members.
//
//    WHAT THE FUNCTOR MUST LOOK LIKE. g is evaluated on nested Jets
//    (T = ceres::Jet<ceres::Jet<double, N>, M>), where Ceres 2.1 rejects
//    every implicit conversion from double:
//      - write every constant as ecmo::K<T>(c): K<T>(0.5) * a, a + K<T>(1.0),
//        T r = K<T>(0.0). NOT 0.5 * a, a + 1.0, T(0.5), T r(0),
//        a /= 2.0, ceres::fmax(a, 0.0);
//      - no Eigen reductions (dot, sum, norm, squaredNorm, matrix * vector):
//        loop over the entries with a K<T>(0.0) accumulator. Eigen::Map
//        and element access are fine;
//      - use unqualified (or ceres::) exp, log, sqrt, sin, cos, tanh, atan2,
//        abs, pow(a, 4.0) / pow(a, 4); not std::exp or fabs;
//      - comparisons with literals (a < 0.0) work;
//      - the functor must be declared at namespace scope (a template member
//        function is not allowed in a local class) and must be const-callable
//        and free of mutable state (it is shared by the derived cost function
//        and the lower-level solves of the report).
//    K<T> is also correct for T = double, single-level Jets and ADOL-C's
//    adouble (route 3 below), so the same functor works everywhere.
//
// 2. MtblEvaluator (large y, matrix-free): you implement LowerLevel with
//    grad_y g and Hessian-vector products (d grad_y g / d(x, y))^T v; the
//    evaluator combines it with upper-level objectives given as Ceres cost
//    functions into an ecmo::Evaluator, so the strategies never form the
//    ny x (nx + ny) Jacobian. Use ecmo::Solve(options, &evaluator, ...).
//
// 3. AutoDiffLowerLevel (ecmo/autodiff_lower_level.h, target
//    ecmo::autodiff; built with ADOL-C): write g once, as the functor of
//    route 1, and get the matrix-free products of route 2 by ADOL-C's
//    reverse mode: AutoDiffLowerLevel<LowerG> lower(new LowerG, nx, ny),
//    then MtblEvaluator evaluator(&lower).
//
// Which to use. Route 1 forms the dense ny x (nx + ny) Jacobian of h by
// nested Jets, about ny / 4 passes of Jets of width 4 over g per
// evaluation: fine up to ny ~ 30, then prohibitive (minutes per evaluation
// at ny = 640 for a logistic regression). Route 3 costs a small multiple of
// one evaluation of g per product at any size, with no derivative code;
// use it whenever writing the products by hand is not worth it. Route 2 is
// the fast one: on the multinomial logistic lower level of mtbl_logistic a
// hand-written product (Eigen matrix products) is about 40 times faster
// than ADOL-C's at ny = 640 (benchmarks/README.md, "Automatic
// Hessian-vector products"), so hand-write the lower level of a problem
// you solve often.
//
// Results in bilevel language: MtblReport (upper objectives, ||grad_y g||,
// the lower-level optimality gap g(x, y) - min_y g(x, .), warnings about a
// non-convex lower level or objectives that are unbounded below on the
// lower-level solution set).
//
// Errors: nothing here aborts or throws. Bad calls (missing y block, x and y
// overlapping, wrong sizes, null pointers) are refused: the method returns
// false / -1, takes ownership of (and destroys) what it was given, records the
// first error, and IsValid() reports it; a Solve on an invalid problem
// returns a FAILURE summary naming the error.

#ifndef ECMO_MTBL_H_
#define ECMO_MTBL_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/autodiff_cost_function.h"
#include "ceres/cost_function.h"
#include "ceres/dynamic_autodiff_cost_function.h"
#include "ceres/gradient_problem_solver.h"
#include "ceres/jet.h"
#include "ecmo/evaluator.h"
#include "ecmo/lower_level_solver.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"

namespace ecmo {

// ------------------------------------------------------------- constants --

// A constant of type T, for T = double, ceres::Jet<double, N> and nested
// Jets of any depth. Nested Jets cannot be built from a double implicitly
// (Ceres' Jet(const T&) is explicit), so functors that are differentiated
// twice must write constants as K<T>(0.5).
template <typename T>
struct Constant {
  static T Make(double value) { return T(value); }
};
template <typename T, int N>
struct Constant<ceres::Jet<T, N>> {
  static ceres::Jet<T, N> Make(double value) {
    return ceres::Jet<T, N>(Constant<T>::Make(value));
  }
};
template <typename T>
inline T K(double value) {
  return Constant<T>::Make(value);
}

// ---------------------------------------------- h = grad_y g by autodiff --

// h(x, y) = grad_y g(x, y) for compile-time sizes NX, NY, as a Ceres
// functor with two parameter blocks (x, y) and NY residuals:
//   new ceres::AutoDiffCostFunction<GradYFunctor<G, NX, NY>, NY, NX, NY>(...)
// g is differentiated with respect to y by an inner Jet<T, NY>; Ceres'
// outer Jets then give the exact second derivatives d h / d(x, y).
// The functor g is shared (not copied) with the caller.
template <typename G, int NX, int NY>
class GradYFunctor {
 public:
  explicit GradYFunctor(std::shared_ptr<const G> g) : g_(std::move(g)) {}

  template <typename T>
  bool operator()(const T* x, const T* y, T* h) const {
    using J = ceres::Jet<T, NY>;
    J xj[NX];
    J yj[NY];
    J value;
    for (int i = 0; i < NX; ++i) xj[i] = J(x[i]);
    for (int i = 0; i < NY; ++i) yj[i] = J(y[i], i);
    if (!(*g_)(xj, yj, &value)) return false;
    for (int i = 0; i < NY; ++i) h[i] = value.v[i];
    return true;
  }

 private:
  std::shared_ptr<const G> g_;
};

// The run-time sized variant, for ceres::DynamicAutoDiffCostFunction with
// two parameter blocks (nx, ny) and ny residuals. The inner derivative is
// taken kInnerStride coordinates of y at a time, so one evaluation of h
// costs ceil(ny / kInnerStride) evaluations of g.
template <typename G>
class DynamicGradYFunctor {
 public:
  static constexpr int kInnerStride = 4;

  DynamicGradYFunctor(std::shared_ptr<const G> g, int nx, int ny)
      : g_(std::move(g)), nx_(nx), ny_(ny) {}

  template <typename T>
  bool operator()(T const* const* parameters, T* h) const {
    using J = ceres::Jet<T, kInnerStride>;
    const T* x = parameters[0];
    const T* y = parameters[1];
    std::vector<J> xj(nx_), yj(ny_);
    for (int i = 0; i < nx_; ++i) xj[i] = J(x[i]);
    for (int start = 0; start < ny_; start += kInnerStride) {
      const int end = std::min(ny_, start + kInnerStride);
      for (int i = 0; i < ny_; ++i) {
        yj[i] = (i >= start && i < end) ? J(y[i], i - start) : J(y[i]);
      }
      J value;
      if (!(*g_)(xj.data(), yj.data(), &value)) return false;
      for (int i = start; i < end; ++i) h[i] = value.v[i - start];
    }
    return true;
  }

 private:
  std::shared_ptr<const G> g_;
  int nx_;
  int ny_;
};

// ------------------------------------------------------------ lower level --

// The lower level of an MTBL problem: g(x, y) with x in R^nx, y in R^ny and
// h = grad_y g. Implement this directly for a matrix-free lower level (large
// y); MtblProblem implements it internally from a templated functor.
//
// Notation: H_yy = d h / d y = grad^2_yy g (ny x ny, symmetric), H_yx =
// d h / d x = grad^2_yx g (ny x nx).
//
// Every method returns false when it cannot evaluate (outside the domain);
// outputs must then not be relied upon. Implementations must be safe to
// call from const methods (no hidden mutable state) unless every use is
// single-threaded.
class LowerLevel {
 public:
  virtual ~LowerLevel();

  virtual int NumUpperParameters() const = 0;  // nx
  virtual int NumLowerParameters() const = 0;  // ny

  // g(x, y). Optional: the default returns false, and then the report cannot
  // estimate the lower-level gap (it says so).
  virtual bool Value(const double* x, const double* y, double* g) const;

  // h = grad_y g(x, y) (size ny).
  virtual bool GradY(const double* x, const double* y, double* h) const = 0;

  // Optional: grad_x g(x, y) (size nx). Only the value-function baseline
  // (FORUM, ecmo/mtbl_baselines.h) needs it; the default returns false and
  // that baseline then refuses the problem, naming this method.
  virtual bool GradX(const double* x, const double* y, double* out) const;

  // (d h / d(x, y))^T v for v in R^ny (Hessian-vector products):
  //   out_x = H_yx^T v = grad^2_xy g v   (size nx),
  //   out_y = H_yy v   = grad^2_yy g v   (size ny).
  virtual bool GradYJacobianTransposeProduct(const double* x,
                                             const double* y,
                                             const double* v,
                                             double* out_x,
                                             double* out_y) const = 0;

  // Optional: out_y = H_yy v alone (size ny). The lower-level solver, its
  // preconditioner, the reduced form's adjoint solves and the report's
  // convexity check need only this part, once per conjugate-gradient
  // iteration. The default calls GradYJacobianTransposeProduct (into a
  // per-thread scratch x part) and keeps out_y; override it when the y
  // part costs much less than the pair, e.g. when y enters g through a
  // last linear layer and x through a network: the pair back-propagates
  // through the network, the y part does not (digits_meta_learning:
  // problems/src/digits_meta_learning.cc).
  virtual bool HessianYYProduct(const double* x,
                                const double* y,
                                const double* v,
                                double* out_y) const;

  // Optional forward product out = H_yx w_x + H_yy w_y (size ny), used by
  // the least-squares KKT multipliers of large problems. The default is
  // exact in y (H_yy w_y = the y part of the transpose product, H_yy being
  // symmetric) and uses a central difference of GradY along w_x for the x
  // part (relative accuracy about 1e-10 for smooth g); override it when an
  // exact product is cheap.
  virtual bool GradYJacobianProduct(const double* x,
                                    const double* y,
                                    const double* w_x,
                                    const double* w_y,
                                    double* out) const;

  // Optional third-order product: the derivative of the transpose product
  // above along the direction d = (d_x, d_y) of (x, y), for fixed v,
  //   out = d/dt [(d h / d(x, y))^T v] at (x + t d_x, y + t d_y), t = 0,
  // i.e. the Hessian of the scalar v^T grad_y g(x, y) times d (out_x of
  // size nx, out_y of size ny). MtblEvaluator uses it for exact products
  // with the Hessian of the Lagrangian (StrategyType::WC_NEWTON). The
  // default is a central difference of two transpose products at
  // (x, y) +- t d (relative accuracy about 1e-10 for smooth g; it costs two
  // Hessian-vector products and never re-linearizes anything); override it,
  // and HasExactThirdOrderProduct, when the third derivatives of g are
  // cheap (as for a softmax or logistic loss).
  virtual bool GradYJacobianTransposeProductDerivative(const double* x,
                                                       const double* y,
                                                       const double* v,
                                                       const double* d_x,
                                                       const double* d_y,
                                                       double* out_x,
                                                       double* out_y) const;
  virtual bool HasExactThirdOrderProduct() const { return false; }
};

// ------------------------------------------------------------ MtblProblem --

// A bilevel problem over user-owned parameter blocks, built into an
// ecmo::Problem whose objectives are the upper-level objectives and whose
// single constraint block is h = grad_y g (named "grad_y_g"), derived by
// automatic differentiation. The MtblProblem owns the ecmo::Problem, which
// owns the cost functions; the parameter blocks must outlive it.
class MtblProblem {
 public:
  MtblProblem();
  ~MtblProblem();
  MtblProblem(const MtblProblem&) = delete;
  MtblProblem& operator=(const MtblProblem&) = delete;

  // The upper-level variables x (size >= 1) and the lower-level variables y
  // (size >= 1): two disjoint user arrays. Each may be set once.
  bool SetUpperLevelVariables(double* x, int size);
  bool SetLowerLevelVariables(double* y, int size);

  // Adds an upper-level objective f_s: a cost function with exactly one
  // residual (the value, not squared) over any parameter blocks: x, y, or
  // further upper-level blocks of your own (g does not depend on those).
  // Blocks must not overlap x or y partially. Returns the objective's index
  // or -1 (the cost function is then destroyed).
  int AddUpperObjective(ceres::CostFunction* cost_function,
                        const std::vector<double*>& parameter_blocks,
                        const std::string& name = "");
  int AddUpperObjective(std::unique_ptr<ceres::CostFunction> cost_function,
                        const std::vector<double*>& parameter_blocks,
                        const std::string& name = "");

  // The lower-level objective g, a functor
  //   template <typename T> bool operator()(const T* x, const T* y, T* g) const
  // written as described at the top of this file. Takes ownership of g.
  // NX and NY must equal the sizes given to Set*LevelVariables, which must
  // be called first. May be called once.
  template <int NX, int NY, typename G>
  bool SetLowerLevelObjective(G* g);
  // Run-time sized variant (g must know nx and ny itself).
  template <typename G>
  bool SetDynamicLowerLevelObjective(G* g);

  // True when every call succeeded and x, y, g and at least one upper
  // objective are present. Otherwise `error` names the first problem.
  bool IsValid(std::string* error) const;

  // The ECMO problem: objectives f_1..f_S, constraint grad_y g = 0. Pass it
  // to ecmo::Solve (or use SolveMtbl below).
  const Problem& problem() const { return problem_; }
  // The lower level (functor-based; dense second derivatives), or null
  // before SetLowerLevelObjective.
  const LowerLevel* lower_level() const { return lower_level_.get(); }

  int NumUpperParameters() const { return nx_; }
  int NumLowerParameters() const { return ny_; }
  // Offsets of x and y in the packed vector z of problem() (-1 if unset).
  int UpperOffset() const;
  int LowerOffset() const;

 private:
  bool CheckLowerLevelCall(int nx, int ny, const char* method);
  void AdoptLowerLevel(
      std::unique_ptr<ceres::CostFunction> grad_y,
      std::function<bool(const double*, const double*, double*)> value);
  void RecordError(const std::string& error);

  Problem problem_;
  double* x_ = nullptr;
  double* y_ = nullptr;
  int nx_ = 0;
  int ny_ = 0;
  std::unique_ptr<LowerLevel> lower_level_;
  std::string first_error_;
};

// ---------------------------------------------------------- MtblEvaluator --

// Which variable block of an MTBL problem a cost function argument is.
enum class MtblBlock { X, Y };

// A matrix-free ecmo::Evaluator for z = (x, y) (packed in that order:
// z[0..nx-1] = x, z[nx..nx+ny-1] = y): upper objectives are Ceres cost
// functions over x and/or y, h = grad_y g comes from a LowerLevel, and the
// products J_h^T v and J_h w are its Hessian-vector products. Memory and
// work per evaluation are linear in ny when the lower level's are.
//
//   MyLowerLevel lower(...);                       // implements LowerLevel
//   ecmo::MtblEvaluator evaluator(&lower);         // not owned
//   evaluator.AddUpperObjective(new MyF1(...), {ecmo::MtblBlock::Y});
//   Eigen::VectorXd z = ...;                       // (x0, y0)
//   ecmo::Solve(options, &evaluator, {0.5, 0.5}, &z, &summary);
//
// Like every evaluator it is stateful and not thread-safe.
class MtblEvaluator final : public Evaluator {
 public:
  // `lower_level` must outlive the evaluator. Null is recorded as an error.
  explicit MtblEvaluator(const LowerLevel* lower_level);
  ~MtblEvaluator() override;

  // Adds f_s over the listed blocks (e.g. {MtblBlock::X, MtblBlock::Y}); the
  // cost function must have one residual and matching block sizes. Takes
  // ownership; returns the index or -1 (the cost function is destroyed).
  int AddUpperObjective(ceres::CostFunction* cost_function,
                        const std::vector<MtblBlock>& blocks,
                        const std::string& name = "");

  bool IsValid(std::string* error) const;

  int NumParameters() const override;
  int NumObjectives() const override;
  int NumConstraints() const override;

  const LowerLevel* lower_level() const { return lower_level_; }
  int NumUpperParameters() const { return nx_; }
  int NumLowerParameters() const { return ny_; }

  // True: products with the Hessian of the Lagrangian come from the lower
  // level's second- and third-order products (see
  // DoLagrangianHessianMultiply), not from forward differences of the
  // whole evaluator.
  bool HasExactLagrangianHessian() const override { return true; }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override;
  void DoJacobianTransposeMultiply(const double* v, double* out) const override;
  void DoJacobianMultiply(const double* x, double* out) const override;
  // grad^2 (sum_s a_s f_s + b^T grad_y g) x at the linearization point: the
  // lower-level part from LowerLevel::GradYJacobianTransposeProductDerivative
  // (exact, or central differences of exact Hessian-vector products), the
  // upper objectives' part by central differences of their gradients
  // (Ceres cost functions have no second derivatives; they are usually
  // small next to the lower level). Relative accuracy about 1e-10; nothing
  // is re-linearized.
  bool DoLagrangianHessianMultiply(const double* a,
                                   const double* b,
                                   const double* x,
                                   double* out,
                                   std::string* error) override;

 private:
  // Columns grad f_s (k x S, column-major) of the upper objectives at z,
  // without touching the linearization point. False if one fails.
  bool UpperGradients(const double* z,
                      double* f,
                      double* grad_f,
                      std::string* error);

  struct Objective {
    std::unique_ptr<ceres::CostFunction> cost_function;
    std::vector<MtblBlock> blocks;
    std::string name;
  };
  const LowerLevel* lower_level_;
  int nx_ = 0;
  int ny_ = 0;
  std::vector<Objective> objectives_;
  std::string first_error_;
  // Last linearization point.
  Eigen::VectorXd z_lin_;
  std::vector<std::vector<double>> jacobian_scratch_;
};

// ------------------------------------------------------------- the report --

struct MtblReportOptions {
  // Random directions d in y along which the curvature d^T grad^2_yy g d is
  // checked (at the start point in SolveMtbl, and at the final point).
  int convexity_directions = 8;
  uint64_t seed = 20240917;
  // A direction counts as non-convex when d^T H_yy d < -convexity_tolerance
  // * ||H_yy d|| ||d|| (relative, so the scale of g does not matter).
  double convexity_tolerance = 1e-8;

  // Estimate min_y g(x, .) at the final x with Ceres' GradientProblemSolver
  // (L-BFGS) from the final y. Needs LowerLevel::Value.
  bool estimate_lower_level_gap = true;
  // Options of the lower-level solves (the gap and the unboundedness probe).
  // Defaults: max_num_iterations = 2000, function/parameter tolerance 1e-15,
  // gradient tolerance 1e-12, logging SILENT.
  ceres::GradientProblemSolver::Options lower_level_solver =
      DefaultLowerLevelSolverOptions();
  static ceres::GradientProblemSolver::Options DefaultLowerLevelSolverOptions();

  // Unboundedness probe: from the final x, move along up to
  // 2 * min(nx, probe_max_coordinates) + 1 rays x + t d (the coordinate
  // directions and, when start_z is known, the direction from the start to
  // the final x) with t = 2^j, j = 0..probe_steps, re-solving the lower
  // level at each x and evaluating psi(t) = max_s lambda_s f_s(x, y*(x)).
  // The problem is reported as (apparently) unbounded below on the
  // lower-level solution set when, along some ray, psi decreases at every
  // step and its decrease over the last third of the doublings is at least
  // half of that over the middle third (i.e. it is not levelling off:
  // psi falls at least like -log t). 0 disables the probe.
  int probe_steps = 48;
  int probe_max_coordinates = 4;

  // The start point (packed z), if known: SolveMtbl fills it. Used for the
  // probe direction and the start-point convexity check.
  Eigen::VectorXd start_z;

  // Estimate the small eigenvalues and the null space of grad^2_yy g at the
  // final point (EstimateLowerLevelSpectrum, ecmo/lower_level_solver.h:
  // Lanczos on Hessian-vector products, probes * lanczos_steps products)
  // and warn when y* is not unique.
  bool estimate_null_space = true;
  LowerLevelSpectrumOptions null_space;
};

// The outcome of a bilevel solve, in bilevel language.
struct MtblReport {
  // Final point and upper-level objectives f_s(x, y) (unshifted).
  Eigen::VectorXd x, y;
  Eigen::VectorXd upper_objectives;
  // ||grad_y g(x, y)||_2: lower-level stationarity (the ECMO feasibility).
  double grad_y_g_norm = std::numeric_limits<double>::quiet_NaN();
  // g(x, y) - min_y g(x, .), the minimum estimated by L-BFGS from y (NaN
  // when LowerLevel::Value is not provided or the estimate failed).
  // For convex g(x, .) this is >= 0 up to the solver's accuracy.
  double lower_level_gap = std::numeric_limits<double>::quiet_NaN();
  // The lower-level minimizer found for the final x (empty if not solved).
  Eigen::VectorXd lower_level_solution;
  // ||K||^2 of the WC problem with the least-squares multipliers, as
  // reported by the solver (-1 if unknown).
  double kkt_residual_sq = -1.0;

  // The solver's termination, downgraded to FAILURE when the upper level
  // was found unbounded below on the lower-level solution set.
  ceres::TerminationType termination_type = ceres::FAILURE;
  // Every random direction had non-negative curvature (at the start point
  // when known, and at the final point).
  bool lower_level_convex = true;
  double min_relative_curvature = std::numeric_limits<double>::quiet_NaN();
  // The unboundedness probe fired (see MtblReportOptions::probe_steps), or
  // a shifted objective became non-positive while descending.
  bool unbounded_suspected = false;
  // grad^2_yy g at the final point (MtblReportOptions::estimate_null_space):
  // extreme eigenvalue estimates, the estimated null-space dimension
  // (-1: not estimated) and whether y* is unique. A merely convex lower
  // level (e.g. a multinomial logistic regression without L2) has a null
  // space, so the lower-level solution set is an affine family and the
  // reduced (y = y*(x)) form is not defined.
  LowerLevelSpectrum lower_level_spectrum;
  bool lower_level_unique = true;
  // Human-readable warnings (non-convex lower level, unboundedness, lower
  // level not solved, y* not unique, ...).
  std::vector<std::string> warnings;
  // One paragraph: the solver's verdict, the upper objectives, the
  // lower-level optimality, and the warnings.
  std::string message;
};

// Computes the report for the solution in summary.z (as returned by
// ecmo::Solve on problem.problem()). Returns false, with report->message
// saying why, if the problem is invalid or the summary has no point.
bool ComputeMtblReport(const MtblProblem& problem,
                       const Solver::Summary& summary,
                       const MtblReportOptions& options,
                       MtblReport* report);
// The same for a matrix-free evaluator (summary.z = (x, y)).
bool ComputeMtblReport(MtblEvaluator* evaluator,
                       const Solver::Summary& summary,
                       const MtblReportOptions& options,
                       MtblReport* report);

// Checks d^T grad^2_yy g d >= 0 for random directions d at (x, y).
// Returns true when no direction had negative curvature; *min_relative
// receives min_d d^T H d / (||H d|| ||d||) and *message a warning text.
bool CheckLowerLevelConvexity(const LowerLevel& lower_level,
                              const double* x,
                              const double* y,
                              const MtblReportOptions& options,
                              double* min_relative,
                              std::string* message);

// A bilevel solve in Ceres' shape: ecmo::Solve on the MTBL problem plus the
// bilevel report.
class MtblSolver {
 public:
  using ReportOptions = MtblReportOptions;
  using Report = MtblReport;

  struct Options {
    // The WC solve of the ECMO problem (ecmo/solver.h).
    Solver::Options solver;
    // The bilevel checks (start_z is filled by Solve).
    MtblReportOptions report;

    // solver.IsValid and the report options' ranges, with Ceres-style
    // messages.
    bool IsValid(std::string* error) const;
  };

  struct Summary {
    // One line: the solver's brief report and the bilevel verdict.
    std::string BriefReport() const;
    // The solver's FullReport followed by the bilevel section (x, y, upper
    // objectives, lower-level optimality, convexity, warnings).
    std::string FullReport() const;
    bool IsSolutionUsable() const;

    // report.termination_type: the solver's, downgraded to FAILURE when the
    // upper level was found unbounded below on the lower-level solution
    // set (or the solver's, when the report could not be computed).
    TerminationType termination_type = ceres::FAILURE;
    // The report's paragraph (or the reason there is none).
    std::string message = "ecmo::Solve (MTBL) was not called.";

    Solver::Summary solver;
    MtblReport report;
  };
};

// Checks the lower level's convexity at the start point, runs ecmo::Solve
// (options.solver) on problem->problem(), writing the solution back into
// the blocks when usable, and fills the bilevel report.
void Solve(const MtblSolver::Options& options,
           MtblProblem* problem,
           const std::vector<double>& preference,
           MtblSolver::Summary* summary);

// Legacy form, kept for existing callers: the same solve, with the
// summary and report as separate outputs (report may be null) and the
// report options last.
void SolveMtbl(const Solver::Options& options,
               MtblProblem* problem,
               const std::vector<double>& preference,
               Solver::Summary* summary,
               MtblReport* report,
               const MtblReportOptions& report_options = MtblReportOptions());

// ------------------------------------------------- template implementation --

namespace internal {
// The LowerLevel of an MtblProblem: h from the derived cost function (two
// blocks x, y; ny residuals; not owned), second derivatives from its dense
// Jacobian, g from the functor.
std::unique_ptr<LowerLevel> MakeCostFunctionLowerLevel(
    int nx,
    int ny,
    const ceres::CostFunction* grad_y,
    std::function<bool(const double*, const double*, double*)> value);
}  // namespace internal

template <int NX, int NY, typename G>
bool MtblProblem::SetLowerLevelObjective(G* g) {
  std::unique_ptr<G> owned(g);
  static_assert(NX > 0 && NY > 0, "NX and NY must be positive");
  if (!CheckLowerLevelCall(NX, NY, "SetLowerLevelObjective<NX, NY>")) {
    return false;
  }
  if (owned == nullptr) {
    RecordError("MtblProblem::SetLowerLevelObjective: the functor is null.");
    return false;
  }
  std::shared_ptr<const G> shared(owned.release());
  auto cost = std::make_unique<
      ceres::AutoDiffCostFunction<GradYFunctor<G, NX, NY>, NY, NX, NY>>(
      new GradYFunctor<G, NX, NY>(shared));
  AdoptLowerLevel(std::move(cost),
                  [shared](const double* x, const double* y, double* value) {
                    return (*shared)(x, y, value);
                  });
  return lower_level_ != nullptr;
}

template <typename G>
bool MtblProblem::SetDynamicLowerLevelObjective(G* g) {
  std::unique_ptr<G> owned(g);
  if (!CheckLowerLevelCall(nx_, ny_, "SetDynamicLowerLevelObjective")) {
    return false;
  }
  if (owned == nullptr) {
    RecordError(
        "MtblProblem::SetDynamicLowerLevelObjective: the functor is null.");
    return false;
  }
  std::shared_ptr<const G> shared(owned.release());
  using Functor = DynamicGradYFunctor<G>;
  auto cost = std::make_unique<ceres::DynamicAutoDiffCostFunction<Functor, 4>>(
      new Functor(shared, nx_, ny_));
  cost->AddParameterBlock(nx_);
  cost->AddParameterBlock(ny_);
  cost->SetNumResiduals(ny_);
  AdoptLowerLevel(std::move(cost),
                  [shared](const double* x, const double* y, double* value) {
                    return (*shared)(x, y, value);
                  });
  return lower_level_ != nullptr;
}

}  // namespace ecmo

#endif  // ECMO_MTBL_H_
