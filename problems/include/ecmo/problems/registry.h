// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// A registry of named, documented ECMO problems with known answers where they
// exist. Each entry builds a fresh, self-contained instance (the instance
// owns the parameter blocks the ecmo::Problem points into), so instances can
// be built once per thread.
//
//   const ecmo::problems::ProblemInfo* info =
//   ecmo::problems::Find("gebken_circle");
//   std::unique_ptr<ecmo::problems::ProblemInstance> p = info->build();
//   ecmo::Solve(options, p->problem, {0.5, 0.5}, &summary);
//
// Two kinds of entries. Most build an ecmo::Problem (ProblemInfo::build).
// Some exist only as an ecmo::Evaluator (ProblemInfo::build_evaluator), e.g.
// a matrix-free bilevel problem whose constraint Jacobian is never formed;
// they can be solved and swept like the others but not handed to code that
// needs an ecmo::Problem (the Ipopt reference, the cross-check). Every entry
// builds as an evaluator through BuildEvaluator / MakeEvaluatorFactory:
//
//   const ecmo::problems::ProblemInfo* info =
//       ecmo::problems::Find("mtbl_example_iii_matrix_free");
//   std::string error;
//   std::unique_ptr<ecmo::EvaluatorInstance> e =
//       ecmo::problems::BuildEvaluator(*info, /*problem_size=*/0, &error);
//   Eigen::VectorXd z = e->start;
//   ecmo::Solve(options, e->evaluator.get(), {0.5, 0.5}, &z, &summary);
//   ecmo::Sweep(sweep_options, ecmo::problems::MakeEvaluatorFactory(*info, 0),
//               ecmo::DasDennis(2, 20), &sweep_summary);
//
// Registering an evaluator-only problem (e.g. mtbl_logistic, a function
// returning an MtblEvaluator and its start point): fill name, description,
// the sizes, objective_offset and build_evaluator (leave build empty); for
// a family with a size parameter set default_problem_size and
// problem_size_description, and let build_evaluator read its problem_size
// argument; then add the ProblemInfo to EvaluatorProblems() in
// registry.cc.

#ifndef ECMO_PROBLEMS_REGISTRY_H_
#define ECMO_PROBLEMS_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "ecmo/lower_level_solver.h"
#include "ecmo/problem.h"
#include "ecmo/sweep.h"

namespace ecmo {
namespace problems {

// A built problem: parameter storage plus the ecmo::Problem over it. Not
// copyable or movable (the problem holds pointers into `blocks`).
struct ProblemInstance {
  ProblemInstance() = default;
  ProblemInstance(const ProblemInstance&) = delete;
  ProblemInstance& operator=(const ProblemInstance&) = delete;

  // Parameter blocks, owned here; problem points into them. They hold the
  // start point after build().
  std::vector<std::vector<double>> blocks;
  ecmo::Problem problem;
  // Packed start point z0 (the same values as `blocks` after build()).
  Eigen::VectorXd start;
  // Resets the parameter blocks to the start point.
  void ResetToStart();
};

struct ProblemInfo {
  std::string name;
  // One paragraph: where it comes from, the formulas, what is known.
  std::string description;
  int num_objectives = 0;
  int num_parameters = 0;
  // q: equality constraint residuals (ecmo::Problem::NumConstraints).
  int num_constraints = 0;
  // p: inequality constraint residuals c(z) <= 0
  // (ecmo::Problem::NumInequalityConstraints); an evaluator of the problem
  // has NumConstraints() = num_constraints + num_inequality_constraints.
  int num_inequality_constraints = 0;
  // Default objective offset for this problem (size S): zeros when the
  // objectives are positive on the feasible set, otherwise a shift that
  // makes them so (documented in `description`).
  std::vector<double> objective_offset;
  // Builds the problem as an ecmo::Problem. Empty for entries that exist
  // only as an evaluator (then build_evaluator is set); see has_problem().
  std::function<std::unique_ptr<ProblemInstance>()> build;
  // Builds the problem as an evaluator instance (ecmo/sweep.h: the
  // evaluator, its start point and what it points into), for entries that
  // have no ecmo::Problem (build empty). `problem_size` is the size
  // parameter (default_problem_size when the user gave none; always 0 for
  // fixed-size entries). On failure returns null with *error saying why
  // (e.g. a size out of range). Use BuildEvaluator(), which also serves the
  // entries that have `build`.
  std::function<std::unique_ptr<EvaluatorInstance>(int problem_size,
                                                   std::string* error)>
      build_evaluator;
  // Families with a size parameter (ecmo_solve --problem_size): the size
  // used when none is given, > 0; 0 for fixed-size entries (the default),
  // which refuse a size. num_parameters and num_constraints above are at
  // the default size.
  int default_problem_size = 0;
  // What the size means and its range, e.g. "n_y, the number of
  // lower-level variables (>= 10)". Empty for fixed-size entries.
  std::string problem_size_description;

  // True when `build` is set: the entry can be given to code that needs an
  // ecmo::Problem.
  bool has_problem() const { return static_cast<bool>(build); }
  bool has_problem_size() const { return default_problem_size > 0; }
  // Optional: the Pareto-optimal z (packed) that the WC problem selects for
  // preference lambda with objective offset `offset`. Empty when unknown.
  std::function<Eigen::VectorXd(const Eigen::VectorXd& lambda,
                                const Eigen::VectorXd& offset)>
      pareto_point;
  // Optional: n points of the analytic Pareto front in objective space
  // (rows = points, columns = objectives, unshifted). Empty when unknown.
  std::function<Eigen::MatrixXd(int n)> pareto_front;
  // Optional: the exact hypervolume (ecmo::Hypervolume convention: every
  // objective minimized, unshifted objectives) of the whole analytic Pareto
  // front for a hypervolume reference point R of size S, which must be
  // componentwise >= the front's nadir point. Empty when unknown. Known
  // values:
  //   circle_quarter, R = (a, b):     (a+1)(b+1) - (1 - pi/4);
  //   sphere_octant,  R = (a, b, c):  (a+1)(b+1)(c+1) - (1 - pi/6)
  //                                     - (1 - pi/4)(a + b + c).
  // The last term is not a typo: a point y with y_3 in [0, c] but
  // y_1^2 + y_2^2 > 1 (y_1, y_2 < 0) is dominated by no point of the octant,
  // so the unit square's corner outside the quarter disk is missing along
  // each of the three edges of the box as well.
  std::function<double(const Eigen::VectorXd& reference_point)>
      exact_hypervolume;
};

// The registered problems that build an ecmo::Problem (has_problem()), in
// a stable order. Code written for ProblemInstance (info.build()) can loop
// over it.
const std::vector<ProblemInfo>& AllProblems();
// The registered problems with bounds or inequality constraints (all
// has_problem(), with closed-form pareto_point), in a stable order: the
// textbook set of issue 14 (registry_bounded.cc). Kept out of AllProblems()
// because not every strategy takes bounds and inequalities yet, and code
// that loops over AllProblems() solves each entry with every strategy.
const std::vector<ProblemInfo>& ConstrainedProblems();
// The registered problems that exist only as an evaluator
// (build_evaluator), in a stable order.
const std::vector<ProblemInfo>& EvaluatorProblems();
// Every registered problem: AllProblems(), ConstrainedProblems(),
// EvaluatorProblems(), then LibraryProblems().
std::vector<const ProblemInfo*> AllEntries();
// The entry named `name` (either kind), or nullptr.
const ProblemInfo* Find(const std::string& name);
// "a, b, c": the valid names (both kinds), for error messages.
std::string ProblemNames();

// Problems of shared libraries (ecmo/problems/registration.h; ecmo_solve
// --problem_library). LoadProblemLibrary opens the library at `path` with
// dlopen, checks that it was built against this ECMO version and
// problem-library ABI, and adds its problems to the registry: Find,
// AllEntries and ProblemNames include them from then on (AllProblems and
// EvaluatorProblems stay the built-in ones). Returns false with *error
// naming the library and what to do, and registers nothing, when the file
// is missing or not a shared library, has no ECMO registration symbols, was
// built for another version or ABI, registers no problem, or registers an
// invalid entry or a name that is already taken (built-in or loaded
// earlier). `names` (optional) receives the names registered. Loaded
// libraries are never unloaded. Not thread safe: load libraries at start-up,
// before any other thread uses the registry.
bool LoadProblemLibrary(const std::string& path,
                        std::vector<std::string>* names,
                        std::string* error);
// The problems registered by loaded libraries, in load order.
std::vector<const ProblemInfo*> LibraryProblems();
// The path of the library that registered `info` (as given to
// LoadProblemLibrary), or "" for a built-in problem.
std::string ProblemLibraryOf(const ProblemInfo& info);

// Builds any entry as an evaluator instance: build_evaluator(size), or
// build() evaluated through an ecmo::ProblemEvaluator (then
// EvaluatorInstance::problem points to the instance's problem, which it
// keeps alive, and the start point is its parameter blocks).
// problem_size = 0 means the entry's default; a size > 0 for a fixed-size
// entry, or < 0, is refused. Returns null with *error naming the problem
// and what to do.
std::unique_ptr<EvaluatorInstance> BuildEvaluator(const ProblemInfo& info,
                                                  int problem_size,
                                                  std::string* error);
// BuildEvaluator as a sweep's factory (ecmo/sweep.h). `info` must outlive
// the factory (registry entries live for the whole program).
EvaluatorFactory MakeEvaluatorFactory(const ProblemInfo& info,
                                      int problem_size);

// The reduced form (ReducedMtblEvaluator with default options: variables x
// only, y = y*(x)) of a built bilevel instance, as the registry's *_reduced
// entries build it: Instance is any type with an MtblEvaluator
// `evaluator` and a full start point `start` = (x0, y0), e.g.
// MtblLogisticInstance or DigitsInstance (built with options of one's own).
// The instance moves into `storage`, so the full evaluator and the lower
// level it points into outlive the reduced evaluator, which points into
// them.
template <typename Instance>
std::unique_ptr<EvaluatorInstance> ReducedEvaluatorInstance(
    std::shared_ptr<Instance> built) {
  const int nx = built->evaluator->NumUpperParameters();
  const int ny = built->evaluator->NumLowerParameters();
  auto instance = std::make_unique<EvaluatorInstance>();
  instance->start = built->start.head(nx);
  instance->evaluator = std::make_unique<ReducedMtblEvaluator>(
      built->evaluator.get(), built->start.tail(ny));
  instance->storage = std::move(built);
  return instance;
}

}  // namespace problems
}  // namespace ecmo

#endif  // ECMO_PROBLEMS_REGISTRY_H_
