// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo_mtbl: the multi-task bilevel learning (MTBL) study. Runs the WC
// strategies and the paper's baselines (ecmo/mtbl_baselines.h) on one
// bilevel instance over several seeds, on the same oracles and with the
// same wall-time budget per point, and reports per method: the hypervolume
// of its losses, their additive epsilon and IGD+ indicators against the
// non-dominated union of all methods, the hypervolume in 1/loss space (the
// paper's), the KKT residual ||K||^2 (least-squares multipliers) and the
// lower-level gap of every point, whether its own stopping test was met,
// wall time and oracle counts, as mean and standard error over the seeds.
//
//   ecmo_mtbl --task=digits_data_weighting --method=all --preferences=paper
//             --seeds=5 --output_dir=study
//   ecmo_mtbl --task=digits_meta_learning --method=wc-reduced,moml,moco
//             --preferences=paper --seeds=5 --json
//   ecmo_mtbl --task=digits_data_weighting --baseline_budget=matched:2
//             (the baselines get twice the WC time per point)
//   ecmo_mtbl --task=digits_data_weighting --l2=0      (merely convex)
//   ecmo_mtbl --smoke --json                           (the CTest run)
//   mpirun -np 4 ecmo_mtbl --task=digits_data_weighting --num_threads=2
//             --output_dir=study            (4 ranks x 2 threads; add
//                                            --resume after a failure)
//
// Conventions (also in benchmarks/README.md):
//   - In loss space (minimized): HV(loss) with the reference point nadir +
//     0.1 (nadir - ideal) of R, the non-dominated union of every method's
//     losses on the same seed (the same point for every method, and every
//     point of R adds volume); eps+(loss) = max_{r in R} min_{a in A}
//     max_s (a_s - r_s) and IGD+(loss) (0: the method's points cover R).
//   - In v = 1/loss (maximized, as in the paper): HV(1/loss) with the
//     reference point v = 0, which needs none to be chosen but grows
//     without bound as a loss shrinks; study.json also keeps eps+ on v.
//   - Budgets: each WC solve stops at its certificate or after
//     --max_seconds_per_point; each baseline run, by default, after the
//     mean time per point of the study's first WC method on its seed
//     (--baseline_budget=matched: the WC runs go first), or earlier when
//     its own stationarity test is met. A WC point's time includes its
//     share of its seed's utopia point (each WC method pays for all of
//     it: the seed's utopia seconds over the preferences).
//   - ||K||^2 is the WC KKT residual with least-squares multipliers at the
//     point's preference; the preference-free methods (MOML, MoCo, FORUM)
//     are scored at lambda proportional to 1/f (the preference whose WC ray
//     passes through the point).
//   - The lower-level gap is g(x, y) - g(x, y*) with y* from Newton-CG on
//     g(x, .) started at y.
//   - "wc-reduced (equal)" (the first WC method's) is the paper's "Ours -
//     Equal": the equal preference alone.
//
// Runs: the study's runs (a method at a preference, or once, per seed) are
// tasks of ecmo::RunTasks (ecmo/task_farm.h) on --num_threads threads, each
// thread with instances of its own. Built with MPI, under `mpirun -np N`
// they are spread over the ranks by ecmo::DistributeTasks
// (ecmo/distributed_tasks.h, docs/distributed.md) with dynamic load
// balancing; rank 0 writes the files and the report, with "num_ranks" in
// study.json and "rank" in every point. With --scalarization=utopia the
// seeds' utopia points are computed first, each by one rank, and shared
// with all (study.json's scalarization_per_seed names the rank). Every
// run starts from its seed's
// start point, so threads and ranks give the single-process points to the
// bit, but wc-reduced's: the reduced form of a seed keeps its lower-level
// warm start and preconditioner from one point to the next on the worker
// that solves them, so those agree to the solver's tolerance.
//
// Output: a report on stdout (with --json: the study's JSON instead); with
// --output_dir: points.jsonl (a "settings" header line, then each run as
// it finishes, flushed at once), points.csv (one row per point),
// study.json, front.png (the first seed's points of every method, 1/loss,
// parallel coordinates for S > 3) and convergence.png (worst-task loss
// against wall time at the equal preference). An interrupted study (a
// kill, a rank that died) loses only its runs in progress: the same
// command with --resume keeps the runs in points.jsonl and solves the
// rest. One study at a time writes a directory: while one holds its lock
// (the file .lock there), another on the same --output_dir exits 2
// without touching it. Exit status: 0 success, 1 a run failed, 2 bad
// input, 4 a file could not be written.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "ecmo/indicators.h"
#include "ecmo/kkt.h"
#include "ecmo/lower_level_solver.h"
#include "ecmo/mtbl.h"
#include "ecmo/mtbl_baselines.h"
#include "ecmo/plot.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problems/digits.h"
#include "ecmo/problems/mtbl_logistic.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "ecmo/task_farm.h"
#include "ecmo/types.h"
#include "ecmo/version.h"
#include "gflags/gflags.h"
#include "mtbl_study_file.h"
#include "nlohmann/json.hpp"
#include "tool_flags.h"

#ifdef ECMO_WITH_MPI
#include "ecmo/distributed_tasks.h"
#endif

DEFINE_string(task,
              "digits_data_weighting",
              "The bilevel instance: digits_data_weighting, "
              "digits_meta_learning or mtbl_logistic (synthetic).");
DEFINE_string(method,
              "all",
              "Comma-separated methods: wc-penalty (the full-space ECMO "
              "form), wc-reduced (the reduced form over x, y = y*(x); "
              "strongly convex lower levels only), moml, moco, forum, "
              "itd-ls, soba-ls; or all: wc-reduced and the five "
              "baselines (wc-penalty instead of wc-reduced when --l2 = 0; "
              "otherwise the full-space form runs only when named: it "
              "reaches the same certified points 9-24x slower).");
DEFINE_string(preferences,
              "paper",
              "Preferences of wc-penalty and weights of the linear-"
              "scalarization baselines: paper (the paper's prefer / slightly "
              "prefer / equal presets), equal, grid:N (the Das-Dennis grid "
              "with N divisions, moved into the open simplex), or any form "
              "of ecmo_solve --preferences.");
DEFINE_int32(seeds, 5, "Number of seeds (data splits, initializations).");
DEFINE_int32(first_seed, 1, "The first seed; seeds are consecutive.");
DEFINE_string(strategy,
              "wc-newton",
              "The WC strategy of the wc-penalty method (see ecmo_solve "
              "--strategy).");
DEFINE_string(reduced_strategy,
              "automatic",
              "The WC strategy of the wc-reduced method and of the utopia "
              "point's single-objective solves on the reduced form (see "
              "ecmo_solve --strategy), or automatic: wc-sqp, with exact "
              "reduced Hessian products when x has at most "
              "Solver::Options::sqp.max_parameters (2,000) entries (2-3x "
              "fewer hypergradients than wc-newton) and limited-memory "
              "BFGS above (meta-learning, n_x = 10,400: a 65x larger "
              "hypervolume than wc-newton at 10 s per point, 5 seeds).");
DEFINE_string(lower_preconditioner,
              "automatic",
              "Preconditioner of the conjugate-gradient solves on "
              "grad^2_yy g (lower-level Newton steps, hypergradients of "
              "wc-reduced, scoring): automatic (a factorized Hessian of g "
              "when n_y <= 2000), dense-hessian or identity (plain CG).");
DEFINE_double(kkt_tolerance,
              -1.0,
              "wc-penalty: stop once ||K||^2 <= this (absolute); -1: the "
              "strategy's default certificate.");
DEFINE_double(l2,
              -1.0,
              "The lower level's L2 weight; -1: the default 1e-3 (strongly "
              "convex). 0 makes it merely convex (the paper's setting); on "
              "these small training sets the data are then separable and "
              "g(x, .) has no minimizer, so y*(x) used for scoring is "
              "ill-defined.");
DEFINE_int32(baseline_iterations,
             0,
             "Outer iterations of every baseline; 0: 200 with "
             "--baseline_budget=iterations, unlimited otherwise (the wall-"
             "time budget decides).");
DEFINE_string(baseline_budget,
              "matched",
              "Wall-time budget of every baseline run: matched (the mean "
              "time per point of the study's first WC method on the same "
              "seed, its share of the seed's utopia point included: equal "
              "budgets), matched:F (F times that), a number of seconds, or "
              "iterations (--baseline_iterations alone, 200 by default: the "
              "paper's fixed budget). A baseline stops earlier when its own "
              "stationarity test is met (the report's 'stationary' column). "
              "With --smoke the default is iterations, so that the smoke "
              "study's points do not depend on the machine's speed.");
DEFINE_int32(inner_iterations,
             0,
             "Inner gradient steps of MOML, MoCo, FORUM and ITD-LS; 0: the "
             "task's default.");
DEFINE_double(upper_step_size,
              0.0,
              "Upper-level step size of the baselines; 0: the task's "
              "default (10 for data weighting and mtbl_logistic, 0.05 for "
              "meta-learning).");
DEFINE_double(max_seconds_per_point,
              -1.0,
              "Wall-time budget of each WC solve (the baselines': "
              "--baseline_budget); -1: the task's default, 5 s for "
              "digits_meta_learning (its WC points are not certified "
              "within minutes, and 5 s already gives the best front of "
              "all methods: benchmarks/README.md, 'MTBL study') and 120 s "
              "for the others (which certify their points in about a "
              "second).");
DEFINE_double(proximal,
              -1.0,
              "delta/2 ||x||^2 added to every upper objective; -1: the "
              "task's default (1e-3 for both digits tasks: without it the "
              "data-weighting optimum is at infinity and the meta-learning "
              "network fits every validation set to zero loss at once).");
DEFINE_string(scalarization,
              "",
              "Reference point and scales of the WC methods: utopia (r = "
              "the utopia point, w = nadir - utopia, from S single-objective "
              "solves per seed, as ecmo::Sweep does by default; their time "
              "is charged to the seed's points of each WC method) or paper "
              "(r = 0, w = 1: the paper's form; the losses are positive). "
              "With r = 0 strongly lopsided preferences select the same "
              "weakly Pareto point; with the utopia point each preference "
              "selects its own. Empty: the task's default, the one whose "
              "front was better on every seed of a 5-seed study with equal "
              "budgets (benchmarks/README.md, 'Equal budgets'): utopia on "
              "digits_data_weighting (and mtbl_logistic), paper on "
              "digits_meta_learning, where the utopia point's five "
              "single-objective solves take half of each point's time.");
DEFINE_string(data, "", "The digits data file; empty: the shipped copy.");
DEFINE_string(output_dir,
              "",
              "Write points.csv, study.json, front.png and convergence.png "
              "into this directory (created if missing).");
DEFINE_bool(json, false, "Print the study as JSON on stdout.");
DEFINE_int32(num_threads,
             1,
             "Runs solved at once (per MPI rank under mpirun), each thread "
             "on instances of its own. Per-point times are wall times: "
             "more threads than free cores inflate them.");
DEFINE_bool(resume,
            false,
            "Finish an interrupted study: the runs already in "
            "--output_dir/points.jsonl are kept, the others are solved and "
            "appended. The file must come from the same study settings.");
DEFINE_bool(smoke,
            false,
            "A reduced study for the test suite: 1 seed, the equal and two "
            "prefer preferences (so --seeds and --preferences cannot be "
            "given with it), small budgets and instances.");

namespace {

// The study's types and its file, points.jsonl (mtbl_study_file.h).
using ecmo::tools::AllMethods;
using ecmo::tools::AsStdVector;
using ecmo::tools::FinishedRun;
using ecmo::tools::kDefaultL2;
using ecmo::tools::MakeRuns;
using ecmo::tools::Method;
using ecmo::tools::Number;
using ecmo::tools::Point;
using ecmo::tools::PointToJson;
using ecmo::tools::ReadFinishedRuns;
using ecmo::tools::ReadNumber;
using ecmo::tools::ReadRunLine;
using ecmo::tools::Run;
using ecmo::tools::Study;
using ecmo::tools::UsesUtopia;

using Clock = std::chrono::steady_clock;

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::string> Split(const std::string& s, char separator) {
  std::vector<std::string> out;
  std::stringstream stream(s);
  std::string item;
  while (std::getline(stream, item, separator)) out.push_back(item);
  if (!s.empty() && s.back() == separator) out.push_back("");
  return out;
}

// ------------------------------------------------------------- instances --

// One instance of the task for one seed: the evaluator and what it points
// into.
struct Instance {
  std::shared_ptr<void> storage;
  ecmo::MtblEvaluator* evaluator = nullptr;
  Eigen::VectorXd start;
  std::vector<std::string> objective_names;
  std::string description;
  // The reduced form of `evaluator`, one per seed for every wc-reduced
  // solve (utopia point, then each preference), as a sweep keeps one: its
  // lower-level preconditioner and warm starts carry over between points
  // (each WC solve still starts from `start`).
  std::unique_ptr<ecmo::ReducedMtblEvaluator> reduced;
};

// The seed's reduced evaluator, made on first use.
ecmo::ReducedMtblEvaluator* ReducedForm(
    const ecmo::ReducedMtblEvaluator::Options& options, Instance* instance) {
  if (instance->reduced == nullptr) {
    const int nx = instance->evaluator->NumUpperParameters();
    const int ny = instance->evaluator->NumLowerParameters();
    instance->reduced = std::make_unique<ecmo::ReducedMtblEvaluator>(
        instance->evaluator, instance->start.segment(nx, ny), options);
  }
  return instance->reduced.get();
}

const std::vector<std::string>& TaskNames() {
  static const std::vector<std::string> names = {
      "digits_data_weighting", "digits_meta_learning", "mtbl_logistic"};
  return names;
}

// Makes a built digits instance the study's (null: false).
bool AdoptDigits(std::shared_ptr<ecmo::problems::DigitsInstance> built,
                 Instance* instance) {
  if (built == nullptr) return false;
  instance->evaluator = built->evaluator.get();
  instance->start = built->start;
  instance->objective_names = built->objective_names;
  instance->description = built->description;
  instance->storage = std::move(built);
  return true;
}

bool BuildInstance(const std::string& task,
                   uint64_t seed,
                   double l2,
                   bool smoke,
                   Instance* instance,
                   std::string* error) {
  if (task == "digits_data_weighting") {
    ecmo::problems::DigitsDataWeightingOptions options;
    options.seed = seed;
    options.l2 = l2;
    if (FLAGS_proximal >= 0.0) options.proximal = FLAGS_proximal;
    options.data_path = FLAGS_data;
    if (smoke) {
      options.train_images = 100;
      options.validation_images = 200;
    }
    std::shared_ptr<ecmo::problems::DigitsInstance> built(
        ecmo::problems::BuildDigitsDataWeighting(options, error).release());
    return AdoptDigits(std::move(built), instance);
  }
  if (task == "digits_meta_learning") {
    ecmo::problems::DigitsMetaLearningOptions options;
    options.seed = seed;
    options.l2 = l2;
    options.proximal = FLAGS_proximal >= 0.0 ? FLAGS_proximal : 1e-3;
    options.data_path = FLAGS_data;
    if (smoke) {
      options.hidden_sizes = {16};
      options.representation_size = 8;
      options.train_per_task = 40;
      options.validation_per_task = 30;
    }
    std::shared_ptr<ecmo::problems::DigitsInstance> built(
        ecmo::problems::BuildDigitsMetaLearning(options, error).release());
    return AdoptDigits(std::move(built), instance);
  }
  if (task == "mtbl_logistic") {
    ecmo::problems::MtblLogisticOptions options;
    options.seed = seed;
    options.l2 = l2;
    if (smoke) options.num_lower_parameters = 60;
    std::shared_ptr<ecmo::problems::MtblLogisticInstance> built(
        ecmo::problems::BuildMtblLogistic(options, error).release());
    if (built == nullptr) return false;
    instance->storage = built;
    instance->evaluator = built->evaluator.get();
    instance->start = built->start;
    for (int s = 0; s < options.num_tasks; ++s) {
      instance->objective_names.push_back("group_" + std::to_string(s));
    }
    instance->description = "mtbl_logistic (synthetic), n_y = " +
                            std::to_string(built->options.num_lower_parameters);
    return true;
  }
  *error = "unknown --task '" + task + "'";
  return false;
}

// --------------------------------------------------------------- methods --

bool ParseMethods(const std::string& spec,
                  std::vector<Method>* methods,
                  std::string* error) {
  const std::vector<Method> all = AllMethods();
  if (spec == "all") {
    *methods = all;
    return true;
  }
  methods->clear();
  std::string valid;
  for (const Method& m : all) valid += (valid.empty() ? "" : ", ") + m.name;
  for (const std::string& name : Split(spec, ',')) {
    auto it = std::find_if(all.begin(), all.end(), [&](const Method& m) {
      return m.name == name;
    });
    if (it == all.end()) {
      *error = "unknown --method '" + name + "'; valid: " + valid + ", all";
      return false;
    }
    if (std::none_of(methods->begin(), methods->end(), [&](const Method& m) {
          return m.name == name;
        })) {
      methods->push_back(*it);
    }
  }
  if (methods->empty()) {
    *error = "--method is empty; valid: " + valid + ", all";
    return false;
  }
  return true;
}

bool ParsePreferences(const std::string& spec,
                      int num_objectives,
                      std::vector<ecmo::NamedPreference>* out,
                      std::string* error) {
  if (spec == "equal") {
    out->assign(
        1,
        {"equal", std::vector<double>(num_objectives, 1.0 / num_objectives)});
    return true;
  }
  std::string parsed = spec;
  if (spec.rfind("grid:", 0) == 0) parsed = "das-dennis:" + spec.substr(5);
  if (!ecmo::ParsePreferenceSpec(parsed, num_objectives, out, error)) {
    *error = "--preferences=" + spec + ": " + *error + " (also: equal, grid:N)";
    return false;
  }
  for (ecmo::NamedPreference& p : *out) {
    p.weights = ecmo::ToOpenSimplex(p.weights);
    // The equal preference keeps its name whatever the spec (a file, a
    // grid), so the "wc-reduced (equal)" row exists whenever it is swept.
    const auto [lo, hi] =
        std::minmax_element(p.weights.begin(), p.weights.end());
    if (*hi - *lo <= 1e-12) p.name = "equal";
  }
  return true;
}

// --baseline_budget: matched, matched:F, iterations or a number of
// seconds (> 0, finite). False with *error naming the valid forms.
bool ParseBaselineBudget(const std::string& spec,
                         ecmo::tools::BaselineBudget* budget,
                         std::string* error) {
  using Kind = ecmo::tools::BaselineBudget::Kind;
  const std::string valid =
      " (valid: matched, matched:F with F > 0, iterations, or a number of "
      "seconds > 0)";
  auto positive = [](const std::string& text, double* value) {
    char* end = nullptr;
    *value = std::strtod(text.c_str(), &end);
    return !text.empty() && end == text.c_str() + text.size() &&
           std::isfinite(*value) && *value > 0.0;
  };
  if (spec == "iterations") {
    *budget = {Kind::ITERATIONS, 0.0};
    return true;
  }
  if (spec == "matched") {
    *budget = {Kind::MATCHED, 1.0};
    return true;
  }
  double value = 0.0;
  if (spec.rfind("matched:", 0) == 0) {
    if (positive(spec.substr(8), &value)) {
      *budget = {Kind::MATCHED, value};
      return true;
    }
  } else if (positive(spec, &value)) {
    *budget = {Kind::SECONDS, value};
    return true;
  }
  *error = "--baseline_budget '" + spec + "' is not a budget" + valid;
  return false;
}

// The budget as --baseline_budget writes it (study.json, the settings).
std::string BaselineBudgetSpec(const ecmo::tools::BaselineBudget& budget) {
  using Kind = ecmo::tools::BaselineBudget::Kind;
  std::ostringstream out;
  out << std::setprecision(17);
  if (budget.kind == Kind::ITERATIONS) {
    out << "iterations";
  } else if (budget.kind == Kind::SECONDS) {
    out << budget.value;
  } else {
    out << "matched";
    if (budget.value != 1.0) out << ":" << budget.value;
  }
  return out.str();
}

// Budgets and step sizes of the baselines. Gradient steps on g(x, .) are
// stable below 2 / lambda_max(grad^2_yy g), so the lower-level steps are
// 1 / lambda_max, estimated by Lanczos at each seed's start point (the
// header's rule); the upper steps are --upper_step_size (chosen per task on
// its first seed, benchmarks/README.md) and stay fixed over the seeds.
// With a finite `budget_seconds` the run stops on that wall time (or its
// own stationarity test), its iterations unlimited unless
// --baseline_iterations is given; NaN: the iteration budget alone.
ecmo::MtblBaseline::Options BaselineOptions(const std::string& task,
                                            ecmo::MtblBaselineType type,
                                            double lambda_max,
                                            bool smoke,
                                            double budget_seconds) {
  ecmo::MtblBaseline::Options options;
  options.type = type;
  options.max_iterations = smoke ? 40 : 200;
  if (std::isfinite(budget_seconds)) {
    options.max_iterations = std::numeric_limits<int>::max();
    options.max_solver_time_in_seconds = budget_seconds;
  }
  const double lower_step =
      std::isfinite(lambda_max) && lambda_max > 0.0 ? 1.0 / lambda_max : 1.0;
  options.inner_step_size = lower_step;
  options.forum_lower_step_size = lower_step;
  options.soba_lower_step_size = lower_step;
  double upper = FLAGS_upper_step_size;
  if (upper <= 0.0) upper = task == "digits_meta_learning" ? 0.05 : 10.0;
  options.upper_step_size = upper;
  options.soba_upper_step_size = upper;
  if (FLAGS_baseline_iterations > 0) {
    options.max_iterations = FLAGS_baseline_iterations;
  }
  if (FLAGS_inner_iterations > 0) {
    options.inner_iterations = FLAGS_inner_iterations;
  }
  options.history_stride = 1;
  return options;
}

// lambda_max(grad^2_yy g) at the start (Lanczos on Hessian-vector
// products; NaN if it fails).
double LargestLowerLevelEigenvalue(const Instance& instance) {
  const ecmo::MtblEvaluator* e = instance.evaluator;
  const int nx = e->NumUpperParameters();
  ecmo::LowerLevelSpectrumOptions options;
  options.probes = 1;
  options.lanczos_steps = 30;
  ecmo::LowerLevelSpectrum spectrum;
  if (!ecmo::EstimateLowerLevelSpectrum(*e->lower_level(),
                                        instance.start.data(),
                                        instance.start.data() + nx,
                                        options,
                                        &spectrum)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return spectrum.largest_eigenvalue;
}

// ----------------------------------------------------------------- runs --

// What both WC forms report alike: the verdict, the evaluations of F (with
// or without gradients) and the convergence curve. rho = max_s lambda_s
// f_s at feasible points, so S rho is the worst task's loss at the equal
// preference (the only one plotted).
void RecordWcSummary(const ecmo::Solver::Summary& summary, Point* point) {
  point->termination = ecmo::TerminationTypeName(summary.termination_type);
  point->usable = summary.IsSolutionUsable();
  point->iterations = summary.iterations;
  point->message = summary.message;
  const ecmo::EvaluationCounts& c = summary.evaluations;
  point->gradient_evaluations = c.value_evaluations + c.gradient_evaluations;
  const double S = static_cast<double>(point->preference.size());
  for (const ecmo::IterationSummary& it : summary.history) {
    point->curve_time.push_back(it.cumulative_time_in_seconds);
    point->curve_worst_loss.push_back(S * it.rho);
  }
}

// The utopia reference point and nadir - utopia scales of the seed's
// instances (all of one seed: ecmo::ComputeScalarization, S single-
// objective solves from the start, spread over the instances, one thread
// each; instances[0] evaluates the start). On the reduced form with
// `reduced_strategy` when the lower level is strongly convex (the same
// objectives at (x, y*(x)), far cheaper), else on the full space with
// wc_options' strategy.
bool UtopiaScalarization(const ecmo::Solver::Options& wc_options,
                         ecmo::StrategyType reduced_strategy,
                         const ecmo::ReducedMtblEvaluator::Options& reduced,
                         double l2,
                         const std::vector<Instance*>& instances,
                         ecmo::Scalarization* scalarization,
                         std::string* error) {
  ecmo::Solver::Options options = wc_options;
  options.reference_point.clear();
  options.normalize_objectives = true;
  // The solves spread over the instances, one thread each.
  std::vector<ecmo::Evaluator*> evaluators;
  for (Instance* instance : instances) {
    evaluators.push_back(
        l2 > 0.0 ? static_cast<ecmo::Evaluator*>(ReducedForm(reduced, instance))
                 : instance->evaluator);
  }
  const Instance& first = *instances[0];
  if (l2 > 0.0) {
    options.strategy = reduced_strategy;
    const Eigen::VectorXd x =
        first.start.head(first.evaluator->NumUpperParameters());
    return ecmo::ComputeScalarization(
        options, evaluators, x, scalarization, error);
  }
  return ecmo::ComputeScalarization(
      options, evaluators, first.start, scalarization, error);
}

// Runs the WC strategy from the instance's start; *z receives the final
// point.
void RunWc(const ecmo::Solver::Options& options,
           Instance* instance,
           Point* point,
           Eigen::VectorXd* z) {
  ecmo::MtblEvaluator* evaluator = instance->evaluator;
  evaluator->ResetCounts();
  *z = instance->start;
  ecmo::Solver::Summary summary;
  const Clock::time_point start = Clock::now();
  ecmo::Solve(options, evaluator, point->preference, z, &summary);
  point->seconds = Seconds(start);
  if (summary.z.size() == z->size()) *z = summary.z;
  RecordWcSummary(summary, point);
  const ecmo::EvaluationCounts& c = summary.evaluations;
  point->lower_gradients = point->gradient_evaluations;
  point->hessian_products =
      c.jacobian_transpose_products + c.jacobian_products + c.hessian_products;
}

// The WC strategy on the reduced-space form (variables x only, y = y*(x)
// by Newton-CG, hypergradients by the implicit function theorem): defined
// for a strongly convex lower level only. *z receives (x, y*(x)).
void RunWcReduced(const ecmo::Solver::Options& options,
                  const ecmo::ReducedMtblEvaluator::Options& reduced_options,
                  Instance* instance,
                  Point* point,
                  Eigen::VectorXd* z) {
  ecmo::MtblEvaluator* full = instance->evaluator;
  const int nx = full->NumUpperParameters();
  const int ny = full->NumLowerParameters();
  const Clock::time_point start = Clock::now();
  ecmo::ReducedMtblEvaluator& reduced = *ReducedForm(reduced_options, instance);
  reduced.ResetWork();
  Eigen::VectorXd x = instance->start.head(nx);
  ecmo::Solver::Summary summary;
  ecmo::Solve(options, &reduced, point->preference, &x, &summary);
  if (summary.z.size() == nx) x = summary.z;
  *z = reduced.FullPoint(x);
  point->seconds = Seconds(start);
  RecordWcSummary(summary, point);
  point->usable = point->usable && z->size() == nx + ny;
  // Every reduced evaluation is one upper-gradient evaluation plus the
  // lower-level work it did (gradients of g, Hessian-vector products).
  const ecmo::ReducedMtblEvaluator::Work& w = reduced.work();
  point->lower_gradients = w.lower_gradient_evaluations;
  point->hessian_products = w.hessian_vector_products;
}

// Runs a baseline from the instance's start; *z receives the final point.
void RunBaseline(const ecmo::MtblBaseline::Options& options,
                 Instance* instance,
                 Point* point,
                 Eigen::VectorXd* z) {
  *z = instance->start;
  ecmo::MtblBaseline::Summary summary;
  ecmo::Solve(options, instance->evaluator, point->preference, z, &summary);
  point->seconds = summary.total_time_in_seconds;
  point->termination = ecmo::TerminationTypeName(summary.termination_type);
  point->usable = summary.IsSolutionUsable();
  point->iterations = summary.iterations;
  point->message = summary.message;
  point->gradient_evaluations = summary.upper_gradients + summary.upper_values;
  point->lower_gradients = summary.lower_gradients;
  point->hessian_products = summary.hessian_products;
  // Under a wall-time budget a run takes thousands of iterations: the
  // curve keeps at most about kCurvePoints of them, evenly, and the last.
  constexpr size_t kCurvePoints = 256;
  const size_t n = summary.history.size();
  const size_t stride = std::max<size_t>(1, n / kCurvePoints);
  for (size_t i = 0; i < n; ++i) {
    const auto& entry = summary.history[i];
    if (entry.upper_objectives.size() == 0) continue;
    if (i % stride != 0 && i + 1 != n) continue;
    point->curve_time.push_back(entry.time_in_seconds);
    point->curve_worst_loss.push_back(entry.upper_objectives.maxCoeff());
  }
}

// Scores the point z = (x, y) of a run. The losses are those of the model
// the upper-level variables define, f(x, y*(x)), with y*(x) from Newton-CG
// on g(x, .) started at y: a method that leaves y off the lower-level
// solution set (FORUM's joint step fits y to the validation objectives)
// is not credited for it; losses_as_returned keeps f(x, y). The lower-level
// gap g(x, y) - g(x, y*(x)) and ||grad_y g(x, y)|| say how far y was.
// ||K||^2 is taken at the returned z with least-squares multipliers at the
// point's preference (at lambda proportional to 1/f for preference-free
// methods).
void ScorePoint(const ecmo::LowerLevelSolver::Options& lower_options,
                Instance* instance,
                const Eigen::VectorXd& z,
                Point* point) {
  ecmo::MtblEvaluator* evaluator = instance->evaluator;
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  const int nx = evaluator->NumUpperParameters();
  const int ny = evaluator->NumLowerParameters();
  Eigen::VectorXd f(S), h(q);
  std::string error;
  if (!evaluator->Evaluate(z.data(), f.data(), h.data(), nullptr, &error) ||
      !f.allFinite()) {
    point->usable = false;
    point->message +=
        " [scoring: the objectives cannot be evaluated at the "
        "final point: " +
        error + "]";
    return;
  }
  point->losses_as_returned = f;
  point->losses = f;
  point->grad_y_g_norm = h.norm();
  Eigen::VectorXd lambda(S);
  if (!point->preference.empty()) {
    for (int s = 0; s < S; ++s) lambda[s] = point->preference[s];
  } else {
    lambda = f.cwiseInverse();
    lambda /= lambda.sum();
  }
  // The WC problem lambda_s (f_s - r_s) / w_s <= rho in the paper's form:
  // weights lambda / w and offset -r.
  Eigen::VectorXd offset = Eigen::VectorXd::Zero(S);
  if (point->reference_point.size() == S &&
      point->objective_scale.size() == S) {
    lambda = lambda.cwiseQuotient(point->objective_scale);
    offset = -point->reference_point;
  }
  const double rho = (lambda.array() * (f + offset).array()).maxCoeff();
  // Only the least-squares multipliers are used; the "solver" ones are
  // zeros of the right sizes.
  ecmo::KktMultipliers zero_multipliers;
  zero_multipliers.omega = Eigen::VectorXd::Zero(S);
  zero_multipliers.nu = Eigen::VectorXd::Zero(q);
  ecmo::KktReport report;
  if (ecmo::ComputeKktReport(evaluator,
                             lambda,
                             offset,
                             rho,
                             z,
                             zero_multipliers,
                             &report,
                             &error)) {
    point->kkt_residual_sq =
        report.with_least_squares_multipliers.SquaredNorm();
  }
  const ecmo::LowerLevel* lower = evaluator->lower_level();
  const double* x = z.data();
  Eigen::VectorXd y = z.segment(nx, ny);
  double g_here = std::numeric_limits<double>::quiet_NaN();
  lower->Value(x, y.data(), &g_here);
  ecmo::LowerLevelSolver::Options options = lower_options;
  options.max_iterations = 50;
  options.gradient_tolerance = 1e-9;
  ecmo::LowerLevelSolver::Summary summary;
  ecmo::SolveLowerLevel(options, *lower, x, &y, &summary);
  if (std::isfinite(summary.value) && std::isfinite(g_here)) {
    point->lower_level_gap = g_here - summary.value;
  }
  Eigen::VectorXd z_star = z;
  z_star.segment(nx, ny) = y;
  Eigen::VectorXd f_star(S), h_star(q);
  if (summary.IsSolutionUsable() &&
      evaluator->Evaluate(
          z_star.data(), f_star.data(), h_star.data(), nullptr, &error) &&
      f_star.allFinite()) {
    point->losses = f_star;
  } else {
    point->usable = false;
    point->message +=
        " [scoring: the lower level could not be re-solved at "
        "the final x: " +
        summary.message + "]";
  }
}

// ---------------------------------------------------------------- metrics --

// The losses of the usable points (rows), for the loss-space indicators;
// with `positive_only`, of those whose losses are all > 0 (1/loss exists).
Eigen::MatrixXd Losses(const std::vector<const Point*>& points,
                       bool positive_only = false) {
  std::vector<const Point*> usable;
  for (const Point* p : points) {
    if (p->usable && p->losses.size() > 0 && p->losses.allFinite() &&
        (!positive_only || (p->losses.array() > 0.0).all())) {
      usable.push_back(p);
    }
  }
  if (usable.empty()) return Eigen::MatrixXd();
  Eigen::MatrixXd m(usable.size(), usable[0]->losses.size());
  for (size_t i = 0; i < usable.size(); ++i) {
    m.row(i) = usable[i]->losses.transpose();
  }
  return m;
}

// v = 1/loss (rows: points), negated so that the minimization indicators
// apply: a point of -v dominates when every 1/loss is larger.
Eigen::MatrixXd NegatedInverseLosses(const std::vector<const Point*>& points) {
  return -Losses(points, /*positive_only=*/true).cwiseInverse();
}

// The non-dominated rows of `points` (minimization), in their order.
Eigen::MatrixXd NonDominatedRows(const Eigen::MatrixXd& points) {
  if (points.rows() == 0) return points;
  const std::vector<int> nd = ecmo::NonDominatedIndices(points);
  Eigen::MatrixXd out(nd.size(), points.cols());
  for (size_t i = 0; i < nd.size(); ++i) out.row(i) = points.row(nd[i]);
  return out;
}

struct MeanError {
  double mean = std::numeric_limits<double>::quiet_NaN();
  double standard_error = std::numeric_limits<double>::quiet_NaN();
  int count = 0;
};

MeanError Aggregate(const std::vector<double>& values) {
  MeanError out;
  std::vector<double> finite;
  for (double v : values) {
    if (std::isfinite(v)) finite.push_back(v);
  }
  out.count = static_cast<int>(finite.size());
  if (finite.empty()) return out;
  double sum = 0.0;
  for (double v : finite) sum += v;
  out.mean = sum / finite.size();
  if (finite.size() > 1) {
    double ss = 0.0;
    for (double v : finite) ss += (v - out.mean) * (v - out.mean);
    out.standard_error =
        std::sqrt(ss / (finite.size() - 1)) / std::sqrt(finite.size());
  } else {
    out.standard_error = 0.0;
  }
  return out;
}

// One row of the comparison table: a method (or the equal preference of
// the first WC method, "wc-reduced (equal)") over the seeds.
struct MethodResult {
  // Adds one seed's indicators of the row's points: on v = 1/loss (negated,
  // so minimized) against reference 0 and the union's non-dominated
  // points, and on the losses against `loss_reference` and the union's.
  void Add(const Eigen::MatrixXd& inverse,
           const Eigen::MatrixXd& union_inverse,
           const Eigen::MatrixXd& losses,
           const Eigen::MatrixXd& union_losses,
           const Eigen::VectorXd& loss_reference) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const int S = static_cast<int>(loss_reference.size());
    std::string error;
    hypervolume.push_back(
        inverse.rows() > 0
            ? ecmo::Hypervolume(inverse, Eigen::VectorXd::Zero(S), &error)
            : 0.0);
    epsilon.push_back(inverse.rows() > 0 && union_inverse.rows() > 0
                          ? ecmo::AdditiveEpsilon(inverse, union_inverse)
                          : nan);
    hypervolume_loss.push_back(
        losses.rows() > 0 ? ecmo::Hypervolume(losses, loss_reference, &error)
                          : 0.0);
    epsilon_loss.push_back(losses.rows() > 0 && union_losses.rows() > 0
                               ? ecmo::AdditiveEpsilon(losses, union_losses)
                               : nan);
    igd_plus_loss.push_back(losses.rows() > 0 && union_losses.rows() > 0
                                ? ecmo::IgdPlus(losses, union_losses)
                                : nan);
  }

  std::string name;
  std::vector<double> hypervolume;        // per seed, v = 1/loss
  std::vector<double> epsilon;            // per seed, on v
  std::vector<double> hypervolume_loss;   // per seed, reference: the union's
  std::vector<double> epsilon_loss;       // per seed, on the losses
  std::vector<double> igd_plus_loss;      // per seed, on the losses
  std::vector<double> budget_per_point;   // per point with a time budget
  std::vector<double> seconds;            // per seed, all of the method's runs
  std::vector<double> seconds_per_point;  // per point
  std::vector<double> kkt;                // per point
  std::vector<double> gap;                // per point
  std::vector<double> grad_y_g;           // per point
  std::vector<double> gradient_evaluations;  // per point
  std::vector<double> hessian_products;      // per point
  int points = 0;
  int usable = 0;
  int converged = 0;
};

nlohmann::json ToJson(const MeanError& m) {
  nlohmann::json j;
  j["mean"] = std::isfinite(m.mean) ? nlohmann::json(m.mean) : nullptr;
  j["standard_error"] = std::isfinite(m.standard_error)
                            ? nlohmann::json(m.standard_error)
                            : nullptr;
  j["count"] = m.count;
  return j;
}

double Median(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(),
                              values.end(),
                              [](double v) { return !std::isfinite(v); }),
               values.end());
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// ------------------------------------------------------------ the runs --

// A worker thread's instance of the seed it solved last, and what the
// seed's runs share: the WC options with the seed's scalarization and the
// baselines' step rule. "info" is sent with every point, so that rank 0
// can report the seed without building it.
struct SeedContext {
  int seed = -1;
  Instance instance;
  ecmo::Solver::Options options;
  double lambda_max = std::numeric_limits<double>::quiet_NaN();
  nlohmann::json info;
};

// The utopia scalarization of every seed, computed once per process (under
// mpirun, once for the job and shared with every rank before the runs:
// Put) and shared by the worker threads that solve the seed's runs. Why:
// it is S training runs (about 3 s a seed on digits_data_weighting, a
// fifth of a 2-seed study on two threads), and every thread used to
// compute it again for itself. The first thread to come for a seed builds
// its instance and one more per other thread (at most S), spreads the
// solves over them (ComputeScalarization on several evaluators), and the
// threads that come next wait for it and take those instances as theirs,
// so nothing is built or solved twice.
class SeedScalarizations {
 public:
  struct Value {
    std::shared_ptr<const ecmo::Scalarization> scalarization;
    nlohmann::json info;  // the seed's "scalarization" report
  };
  // Computes the value; the instances it built beyond the caller's own go
  // to *spares, for the threads that come for the seed later.
  using Compute = std::function<bool(
      Value*, std::vector<Instance>* spares, int* exit_code, std::string*)>;

  // The seed's value: computed by the first caller, waited for by the
  // others, who also get one of the spare instances (warmed by the solves
  // it ran) in *spare when one is left. False with the computation's error
  // and exit code (every caller gets the same).
  bool Get(int seed,
           const Compute& compute,
           Value* value,
           Instance* spare,
           int* exit_code,
           std::string* error) {
    std::unique_lock<std::mutex> lock(mutex_);
    // The runs come seed by seed: a thread that has moved on will not
    // come back for the other seeds' spares (and one that does builds its
    // own), so at most one seed's are kept.
    for (auto& [other, entry] : entries_) {
      if (other != seed && entry.done) entry.spares.clear();
    }
    const bool computed = entries_.find(seed) == entries_.end();
    if (computed) {
      entries_[seed];  // taken: later callers wait for it
      lock.unlock();
      Entry result;
      result.ok = compute(
          &result.value, &result.spares, &result.exit_code, &result.error);
      result.done = true;
      lock.lock();
      entries_[seed] = std::move(result);
      cv_.notify_all();
    }
    cv_.wait(lock, [&] { return entries_[seed].done; });
    Entry& entry = entries_[seed];
    *value = entry.value;
    *exit_code = entry.exit_code;
    *error = entry.error;
    if (!computed && !entry.spares.empty()) {
      *spare = std::move(entry.spares.back());
      entry.spares.pop_back();
    }
    return entry.ok;
  }

  // A seed's value computed before the runs (under mpirun, by one rank
  // for all): Get returns it without computing, handing out `spares` (the
  // instances that computed it, when it was this rank) as it hands out
  // its own.
  void Put(int seed, Value value, std::vector<Instance> spares) {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& entry = entries_[seed];
    entry = Entry();
    entry.done = true;
    entry.ok = true;
    entry.value = std::move(value);
    entry.spares = std::move(spares);
    cv_.notify_all();
  }

 private:
  struct Entry {
    bool done = false;
    bool ok = false;
    Value value;
    std::vector<Instance> spares;
    int exit_code = 0;
    std::string error;
  };
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<int, Entry> entries_;
};

// Builds an instance of `seed`; false with *error and *exit_code 2 (bad
// input) when it cannot.
bool BuildSeedInstance(const Study& study,
                       int seed,
                       Instance* built,
                       int* exit_code,
                       std::string* error) {
  if (!BuildInstance(study.task, seed, study.l2, study.smoke, built, error)) {
    *exit_code = kExitUsage;
    return false;
  }
  return true;
}

// The utopia scalarization of `seed` (SeedScalarizations' computation):
// builds *own and min(num_threads, S) - 1 more instances (*spares), and
// spreads the S single-objective solves over them. False with *error and
// *exit_code (2: an instance cannot be built, 1: a solve failed).
bool ComputeSeedUtopia(const Study& study,
                       int seed,
                       int num_threads,
                       Instance* own,
                       std::vector<Instance>* spares,
                       SeedScalarizations::Value* value,
                       int* exit_code,
                       std::string* error) {
  const Clock::time_point start = Clock::now();
  if (!BuildSeedInstance(study, seed, own, exit_code, error)) return false;
  // This thread's instance first (it also evaluates the start), then one
  // more per other thread, at most S in all.
  const int S = own->evaluator->NumObjectives();
  spares->resize(std::max(0, std::min(num_threads, S) - 1));
  std::vector<Instance*> instances = {own};
  for (Instance& spare : *spares) {
    if (!BuildSeedInstance(study, seed, &spare, exit_code, error)) {
      return false;
    }
    instances.push_back(&spare);
  }
  auto computed = std::make_shared<ecmo::Scalarization>();
  if (!UtopiaScalarization(study.wc_options,
                           study.reduced_strategy,
                           study.reduced_evaluator_options,
                           study.l2,
                           instances,
                           computed.get(),
                           error)) {
    *error = "seed " + std::to_string(seed) + ": " + *error;
    *exit_code = kExitFailure;
    return false;
  }
  value->info = {{"seed", seed},
                 {"seconds", Seconds(start)},
                 {"instances", static_cast<int>(instances.size())},
                 {"reference_point", AsStdVector(computed->reference_point)},
                 {"objective_scale", AsStdVector(computed->objective_scale)}};
  value->scalarization = std::move(computed);
  return true;
}

// Builds the context of `seed`; false with *error and *exit_code (2: bad
// input, 1: a failed computation) when it cannot. The utopia scalarization
// comes from *scalarizations: the first thread to come for the seed
// computes it on its instance and on up to num_threads - 1 more (at most S
// in all), which the next threads to come take as theirs.
bool PrepareSeed(const Study& study,
                 int seed,
                 int num_threads,
                 SeedScalarizations* scalarizations,
                 SeedContext* context,
                 int* exit_code,
                 std::string* error) {
  context->seed = -1;
  context->instance = Instance();
  context->options = study.wc_options;
  Instance& instance = context->instance;
  const bool utopia = UsesUtopia(study);
  SeedScalarizations::Value scalarization;
  if (utopia) {
    const auto compute = [&](SeedScalarizations::Value* value,
                             std::vector<Instance>* spares,
                             int* code,
                             std::string* why) {
      return ComputeSeedUtopia(
          study, seed, num_threads, &instance, spares, value, code, why);
    };
    if (!scalarizations->Get(
            seed, compute, &scalarization, &instance, exit_code, error)) {
      return false;
    }
  }
  if (instance.evaluator == nullptr &&
      !BuildSeedInstance(study, seed, &instance, exit_code, error)) {
    return false;
  }
  Eigen::VectorXd f(instance.evaluator->NumObjectives());
  Eigen::VectorXd h(instance.evaluator->NumConstraints());
  if (!instance.evaluator->Evaluate(
          instance.start.data(), f.data(), h.data(), nullptr, error)) {
    *error = "seed " + std::to_string(seed) +
             ": the start point cannot be evaluated: " + *error;
    *exit_code = kExitFailure;
    return false;
  }
  context->info = nlohmann::json::object();
  context->info["start"] = {
      {"seed", seed}, {"losses", AsStdVector(f)}, {"grad_y_g_norm", h.norm()}};
  context->lambda_max = LargestLowerLevelEigenvalue(instance);
  context->info["lambda_max"] = Number(context->lambda_max);
  // The WC methods' scalarization for this seed.
  if (utopia) {
    context->options.reference_point.clear();
    context->options.scalarization = scalarization.scalarization;
    context->info["scalarization"] = scalarization.info;
  }
  context->seed = seed;
  return true;
}

// Solves one run and scores its point (the study's loop body); a baseline
// runs for `budget_seconds` (NaN: its iteration budget).
Point SolveRun(const Study& study,
               const Run& run,
               double budget_seconds,
               SeedContext* context) {
  const Method& method = study.methods[run.method];
  Point point;
  point.method = method.name;
  point.seed = run.seed;
  if (run.preference >= 0) {
    point.preference_name = study.preferences[run.preference].name;
    point.preference = study.preferences[run.preference].weights;
  }
  const ecmo::Solver::Options& seed_options = context->options;
  if (method.wc && seed_options.scalarization != nullptr) {
    point.reference_point = seed_options.scalarization->reference_point;
    point.objective_scale = seed_options.scalarization->objective_scale;
  }
  Instance* instance = &context->instance;
  Eigen::VectorXd z;
  if (method.name == "wc-reduced") {
    ecmo::Solver::Options reduced_options = seed_options;
    reduced_options.strategy = study.reduced_strategy;
    RunWcReduced(
        reduced_options, study.reduced_evaluator_options, instance, &point, &z);
  } else if (method.wc) {
    RunWc(seed_options, instance, &point, &z);
  } else {
    point.budget_seconds = budget_seconds;
    RunBaseline(BaselineOptions(study.task,
                                method.baseline,
                                context->lambda_max,
                                study.smoke,
                                budget_seconds),
                instance,
                &point,
                &z);
  }
  if (z.size() == instance->start.size() && z.allFinite()) {
    ScorePoint(
        study.reduced_evaluator_options.lower_level, instance, z, &point);
  } else {
    point.usable = false;
  }
  return point;
}

// The study's first WC method (null: none): the one whose time the
// matched budgets follow and whose equal preference gets its own row.
const Method* FirstWcMethod(const std::vector<Method>& methods) {
  const auto found = std::find_if(
      methods.begin(), methods.end(), [](const Method& m) { return m.wc; });
  return found == methods.end() ? nullptr : &*found;
}

// The seconds of a seed's utopia point, from its runs' seed report (0
// without one).
double UtopiaSeconds(const nlohmann::json& seed_info) {
  if (!seed_info.is_object() || !seed_info.contains("scalarization")) {
    return 0.0;
  }
  const double seconds =
      ReadNumber(seed_info["scalarization"].value("seconds", nlohmann::json()));
  return std::isfinite(seconds) ? seconds : 0.0;
}

// The wall time a point cost its method: a WC point also carries its share
// of its seed's utopia point. Every WC method that uses the utopia point
// pays for all of it (one point per preference), as it would if it were
// run alone.
double ChargedSeconds(const Study& study,
                      const Method& method,
                      const Point& point,
                      const nlohmann::json& seed_info) {
  if (!method.wc || study.preferences.empty()) return point.seconds;
  return point.seconds + UtopiaSeconds(seed_info) /
                             static_cast<double>(study.preferences.size());
}

// Per seed, the wall-time budget of every baseline run under
// --baseline_budget=matched[:F]: F times the mean charged time per point of
// the study's first WC method on that seed, from its finished runs.
std::map<int, double> MatchedBudgets(
    const Study& study,
    const std::vector<Run>& runs,
    const std::map<int, FinishedRun>& finished) {
  const Method* reference = FirstWcMethod(study.methods);
  std::map<int, std::pair<double, int>> sums;  // seed -> (seconds, points)
  for (const auto& [task, run] : finished) {
    const Method& method = study.methods[runs[task].method];
    if (&method != reference) continue;
    auto& [seconds, count] = sums[runs[task].seed];
    seconds += ChargedSeconds(study, method, run.point, run.seed);
    ++count;
  }
  std::map<int, double> budgets;
  for (const auto& [seed, sum] : sums) {
    budgets[seed] = study.baseline_budget.value * sum.first / sum.second;
  }
  return budgets;
}

// What determines the study's points: its flags (not the outputs). The
// header line of points.jsonl, compared on --resume.
nlohmann::json StudySettings(const Study& study, int num_seeds) {
  nlohmann::json s;
  s["task"] = study.task;
  nlohmann::json methods = nlohmann::json::array();
  for (const Method& m : study.methods) methods.push_back(m.name);
  s["methods"] = methods;
  nlohmann::json prefs = nlohmann::json::array();
  for (const ecmo::NamedPreference& p : study.preferences) {
    prefs.push_back({{"name", p.name}, {"weights", p.weights}});
  }
  s["preferences"] = prefs;
  s["seeds"] = num_seeds;
  s["first_seed"] = FLAGS_first_seed;
  s["strategy"] = FLAGS_strategy;
  s["reduced_strategy"] = ecmo::StrategyTypeToString(study.reduced_strategy);
  s["lower_preconditioner"] = ecmo::LowerLevelPreconditionerTypeToString(
      study.reduced_evaluator_options.lower_level.preconditioner_type);
  s["kkt_tolerance"] = FLAGS_kkt_tolerance;
  s["l2"] = study.l2;
  s["baseline_iterations"] = FLAGS_baseline_iterations;
  s["baseline_budget"] = BaselineBudgetSpec(study.baseline_budget);
  s["inner_iterations"] = FLAGS_inner_iterations;
  s["upper_step_size"] = FLAGS_upper_step_size;
  s["max_seconds_per_point"] = study.wc_options.max_solver_time_in_seconds;
  s["proximal"] = FLAGS_proximal;
  s["scalarization"] = study.utopia ? "utopia" : "paper";
  s["data"] = FLAGS_data;
  s["smoke"] = study.smoke;
  return s;
}

// Takes the lock of the study directory for the rest of the process: an
// exclusive flock on dir/.lock, whose descriptor stays open until exit
// (O_CLOEXEC: gnuplot must not inherit it). Two studies writing one
// directory at once tore points.jsonl, and each took the other's runs for
// its own on --resume. The lock is on a file of its own, not on
// points.jsonl: --resume replaces points.jsonl by a rename when it drops a
// cut-short last line (ecmo::WriteFileAtomically), and the new file would
// not carry the lock; and it must also cover points.csv, study.json and
// the pictures, written after points.jsonl is closed. The file is never
// deleted: unlinking it would let a third process lock a new one while a
// second still holds the old. False with *error (bad input) when another
// process holds it or it cannot be taken.
bool LockOutputDir(const std::string& dir, std::string* error) {
  const std::string path = dir + "/.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "--output_dir: cannot create " + path + " (" +
             std::strerror(errno) + ")";
    return false;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int cause = errno;
    ::close(fd);
    *error = cause == EWOULDBLOCK
                 ? "another ecmo_mtbl is writing " + dir +
                       "/points.jsonl (it holds the lock on " + path +
                       "); wait for it to finish, or use another "
                       "--output_dir"
                 : "--output_dir: cannot lock " + path + " (" +
                       std::strerror(cause) + ")";
    return false;
  }
  return true;
}

// ----------------------------------------------------------------- flags --

// A double flag and its documented range: finite and >= 0 (> 0 when
// `positive`), or exactly -1 when that is its "use the default". gflags
// reads "nan" and "inf" as doubles, and NaN fails every comparison, so
// `x >= 0 ? x : default` took --proximal=nan (and any negative) for the
// default without a word.
struct DoubleFlag {
  const char* name;
  double value;
  bool positive;
  bool minus_one_is_default;
  const char* range;  // for the message
};

bool CheckDoubleFlags(std::string* error) {
  const DoubleFlag flags[] = {
      {"kkt_tolerance",
       FLAGS_kkt_tolerance,
       false,
       true,
       ">= 0 and finite, or -1 (the strategy's default certificate)"},
      {"l2",
       FLAGS_l2,
       false,
       true,
       ">= 0 and finite, or -1 (the default, 1e-3)"},
      {"proximal",
       FLAGS_proximal,
       false,
       true,
       ">= 0 and finite, or -1 (the task's default)"},
      {"upper_step_size",
       FLAGS_upper_step_size,
       false,
       false,
       ">= 0 and finite (0: the task's default)"},
      {"max_seconds_per_point",
       FLAGS_max_seconds_per_point,
       true,
       true,
       "> 0 and finite, or -1 (the task's default)"},
  };
  for (const DoubleFlag& f : flags) {
    const bool in_range =
        std::isfinite(f.value) && (f.positive ? f.value > 0.0 : f.value >= 0.0);
    if (in_range || (f.minus_one_is_default && f.value == -1.0)) continue;
    std::ostringstream message;
    message << "--" << f.name << " must be " << f.range << "; got " << f.value;
    *error = message.str();
    return false;
  }
  return true;
}

// The integer flags' ranges, with `num_seeds` the study's seeds. Seeds are
// ints (a point's "seed"), so the last one, first_seed + seeds - 1, must
// be one too: --first_seed=2147483647 --seeds=2 made seed -2147483648.
// --smoke fixes the seeds and the preferences, which it ignored when given.
bool CheckIntegerFlags(bool smoke, int num_seeds, std::string* error) {
  if (smoke) {
    for (const char* name : {"seeds", "preferences"}) {
      if (!gflags::GetCommandLineFlagInfoOrDie(name).is_default) {
        *error = std::string("--") + name +
                 " cannot be combined with --smoke, whose study is one seed "
                 "at the equal, prefer-f1 and prefer-f2 preferences; drop "
                 "one of the two";
        return false;
      }
    }
  }
  const int64_t kMaxInt = std::numeric_limits<int>::max();
  const int64_t kNoMax = std::numeric_limits<int64_t>::max();
  struct IntFlag {
    const char* name;
    int64_t value, min, max;  // max: kNoMax for none
    const char* note;
  };
  const IntFlag flags[] = {
      {"seeds", FLAGS_seeds, 1, 1000, ""},
      {"first_seed",
       FLAGS_first_seed,
       0,
       kMaxInt - (num_seeds - 1),
       " (the last seed, --first_seed + --seeds - 1, must be at most "
       "2147483647)"},
      {"baseline_iterations",
       FLAGS_baseline_iterations,
       0,
       kNoMax,
       " (0: the task's default)"},
      {"inner_iterations",
       FLAGS_inner_iterations,
       0,
       kNoMax,
       " (0: the task's default)"},
      {"num_threads", FLAGS_num_threads, 1, 256, ""},
  };
  for (const IntFlag& f : flags) {
    if (f.value >= f.min && f.value <= f.max) continue;
    *error = "--" + std::string(f.name) + " must be " +
             (f.max == kNoMax ? ">= " + std::to_string(f.min)
                              : "in [" + std::to_string(f.min) + ", " +
                                    std::to_string(f.max) + "]") +
             f.note + "; got " + std::to_string(f.value);
    return false;
  }
  return true;
}

// `message` with the values of the string flags cut by
// ecmo::TextForMessage wherever it quotes them (library code names a
// --data or --output_dir path whole): a 100 kB value gave a refusal of
// 100-300 kB (battery K1).
std::string ForMessage(std::string message) {
  for (const std::string* value : {&FLAGS_task,
                                   &FLAGS_method,
                                   &FLAGS_preferences,
                                   &FLAGS_strategy,
                                   &FLAGS_reduced_strategy,
                                   &FLAGS_lower_preconditioner,
                                   &FLAGS_scalarization,
                                   &FLAGS_data,
                                   &FLAGS_output_dir,
                                   &FLAGS_baseline_budget}) {
    message = ecmo::tools::CutValue(message, *value);
    // --method and --preferences are lists: their items are quoted alone.
    size_t start = 0;
    while (start < value->size()) {
      size_t comma = value->find(',', start);
      if (comma == std::string::npos) comma = value->size();
      message =
          ecmo::tools::CutValue(message, value->substr(start, comma - start));
      start = comma + 1;
    }
  }
  return message;
}

// "mean +- se" with `digits` significant digits.
std::string MeanAndError(const std::vector<double>& values, int digits) {
  const MeanError m = Aggregate(values);
  std::ostringstream out;
  out << std::setprecision(digits) << m.mean << " +- " << std::setprecision(2)
      << m.standard_error;
  return out.str();
}

// The report's two tables: the fronts' quality (lower is better but for
// the hypervolumes), then what the points cost and whether each method's
// own stopping test was met.
void PrintReport(const Study& study,
                 const std::vector<MethodResult>& results,
                 std::ostream& out) {
  using Kind = ecmo::tools::BaselineBudget::Kind;
  const bool has_baselines = std::any_of(study.methods.begin(),
                                         study.methods.end(),
                                         [](const Method& m) { return !m.wc; });
  if (has_baselines) {
    out << "baseline budget: " << BaselineBudgetSpec(study.baseline_budget);
    if (study.baseline_budget.kind == Kind::MATCHED) {
      out << " (each baseline run may take ";
      if (study.baseline_budget.value != 1.0) {
        out << std::defaultfloat << std::setprecision(6)
            << study.baseline_budget.value << "x ";
      }
      out << "the mean time per point of the first WC method on its seed)";
    } else if (study.baseline_budget.kind == Kind::ITERATIONS) {
      out << " (a fixed number of outer iterations, no time limit)";
    } else {
      out << " s per baseline run";
    }
    out << "\n";
  }
  out << "\n"
      << std::left << std::setw(20) << "method" << std::right << std::setw(22)
      << "HV(loss) +- se" << std::setw(22) << "eps+(loss) +- se"
      << std::setw(22) << "IGD+(loss) +- se" << std::setw(22)
      << "HV(1/loss) +- se"
      << "\n";
  for (const MethodResult& r : results) {
    out << std::left << std::setw(20) << r.name << std::right << std::setw(22)
        << MeanAndError(r.hypervolume_loss, 4) << std::setw(22)
        << MeanAndError(r.epsilon_loss, 3) << std::setw(22)
        << MeanAndError(r.igd_plus_loss, 3) << std::setw(22)
        << MeanAndError(r.hypervolume, 4) << "\n";
  }
  out << "\n"
      << std::left << std::setw(20) << "method" << std::right << std::setw(10)
      << "s/point" << std::setw(10) << "budget" << std::setw(12) << "median K^2"
      << std::setw(12) << "median gap" << std::setw(10) << "grads/pt"
      << std::setw(10) << "HVPs/pt" << std::setw(12) << "stationary"
      << "\n";
  for (const MethodResult& r : results) {
    std::ostringstream budget;
    if (r.budget_per_point.empty()) {
      budget << "-";
    } else {
      budget << std::fixed << std::setprecision(3)
             << Aggregate(r.budget_per_point).mean;
    }
    out << std::left << std::setw(20) << r.name << std::right << std::setw(10)
        << std::fixed << std::setprecision(3)
        << Aggregate(r.seconds_per_point).mean << std::setw(10) << budget.str()
        << std::setw(12) << std::scientific << std::setprecision(1)
        << Median(r.kkt) << std::setw(12) << Median(r.gap) << std::fixed
        << std::setprecision(0) << std::setw(10)
        << Aggregate(r.gradient_evaluations).mean << std::setw(10)
        << Aggregate(r.hessian_products).mean << std::setw(12)
        << (std::to_string(r.converged) + "/" + std::to_string(r.points))
        << "\n";
  }
  out << std::defaultfloat
      << "\nHV(loss): reference = nadir + 0.1 (nadir - ideal) of the "
         "non-dominated union of every method's losses on the seed; eps+ and "
         "IGD+: against that union (0: the method's points cover it); "
         "HV(1/loss): "
         "reference v = 0. stationary: the WC certificate, or the "
         "baseline's own test (direction and ||grad_y g|| tolerances in "
         "study.json's baseline_options).\n";
}

}  // namespace

int main(int argc, char** argv) {
  ecmo::tools::ParseToolFlags(
      "Runs the multi-task bilevel study: the WC strategies and the paper's "
      "baselines on one instance over several seeds, with equal time "
      "budgets, and reports HV, eps+ and IGD+ of the losses, HV(1/loss), "
      "KKT residuals, lower-level gaps, time and oracle counts.\n"
      "  ecmo_mtbl --task=digits_data_weighting --method=all "
      "--preferences=paper --seeds=5 --output_dir=study",
      "ecmo_mtbl.cc",
      &argc,
      &argv);
#ifdef ECMO_WITH_MPI
  // Under mpirun every rank runs this program and solves runs; rank 0
  // alone writes files and reports.
  ecmo::MpiSession mpi(&argc, &argv);
  if (!mpi.ok()) {
    std::cerr << "ecmo_mtbl: MPI: " << mpi.error() << "\n";
    return kExitUsage;
  }
  const int rank = mpi.rank();
  const int num_ranks = mpi.size();
  // For an error only rank 0 sees while the others wait for runs.
  auto AbortAll = [&mpi](int status) {
    if (mpi.size() > 1) mpi.AbortAll(status);
    return status;
  };
#else
  const int rank = 0;
  const int num_ranks = 1;
  auto AbortAll = [](int status) { return status; };
#endif
  const bool coordinator = rank == 0;
  if (argc > 1) {
    std::cerr << "ecmo_mtbl: unexpected argument '"
              << ecmo::TextForMessage(argv[1])
              << "' (flags are written --name=value; see --help)\n";
    return kExitUsage;
  }
  const bool smoke = FLAGS_smoke;
  std::string error;
  // ---- Flags.
  const std::string task = FLAGS_task;
  if (std::find(TaskNames().begin(), TaskNames().end(), task) ==
      TaskNames().end()) {
    std::string valid;
    for (const std::string& n : TaskNames()) {
      valid += (valid.empty() ? "" : ", ") + n;
    }
    std::cerr << "ecmo_mtbl: unknown --task '"
              << ecmo::TextForMessage(task) << "'; valid: " << valid
              << "\n";
    return kExitUsage;
  }
  std::vector<Method> methods;
  if (!ParseMethods(FLAGS_method, &methods, &error)) {
    std::cerr << "ecmo_mtbl: " << ForMessage(error) << "\n";
    return kExitUsage;
  }
  const int num_seeds = smoke ? 1 : FLAGS_seeds;
  if (!CheckIntegerFlags(smoke, num_seeds, &error) ||
      !CheckDoubleFlags(&error)) {
    std::cerr << "ecmo_mtbl: " << ForMessage(error) << "\n";
    return kExitUsage;
  }
  ecmo::Solver::Options wc_options;
  if (!ecmo::StringToStrategyType(FLAGS_strategy, &wc_options.strategy)) {
    std::cerr << "ecmo_mtbl: unknown --strategy '"
              << ecmo::TextForMessage(FLAGS_strategy)
              << "' (see ecmo_solve --help for the strategies)\n";
    return kExitUsage;
  }
  ecmo::StrategyType reduced_strategy = ecmo::StrategyType::WC_NEWTON;
  const bool automatic_reduced_strategy = FLAGS_reduced_strategy == "automatic";
  if (!automatic_reduced_strategy &&
      !ecmo::StringToStrategyType(FLAGS_reduced_strategy, &reduced_strategy)) {
    std::cerr << "ecmo_mtbl: unknown --reduced_strategy '"
              << ecmo::TextForMessage(FLAGS_reduced_strategy)
              << "' (see ecmo_solve --help for the strategies)\n";
    return kExitUsage;
  }
  ecmo::ReducedMtblEvaluator::Options reduced_evaluator_options;
  if (!ecmo::StringToLowerLevelPreconditionerType(
          FLAGS_lower_preconditioner,
          &reduced_evaluator_options.lower_level.preconditioner_type)) {
    std::cerr << "ecmo_mtbl: unknown --lower_preconditioner '"
              << ecmo::TextForMessage(FLAGS_lower_preconditioner)
              << "' (automatic, dense-hessian or identity)\n";
    return kExitUsage;
  }
  if (FLAGS_kkt_tolerance != -1.0) {
    wc_options.kkt_tolerance = FLAGS_kkt_tolerance;
  }
  wc_options.record_history = true;
  wc_options.max_solver_time_in_seconds =
      FLAGS_max_seconds_per_point != -1.0 ? FLAGS_max_seconds_per_point
      : task == "digits_meta_learning"    ? 5.0
                                          : 120.0;
  if (!wc_options.IsValid(&error)) {
    std::cerr << "ecmo_mtbl: " << ForMessage(error) << "\n";
    return kExitUsage;
  }
  // The task's default scalarization, by measurement (see the flag).
  const std::string scalarization = !FLAGS_scalarization.empty()
                                        ? FLAGS_scalarization
                                    : task == "digits_meta_learning" ? "paper"
                                                                     : "utopia";
  const bool utopia = scalarization == "utopia";
  if (!utopia && scalarization != "paper") {
    std::cerr << "ecmo_mtbl: unknown --scalarization '"
              << ecmo::TextForMessage(FLAGS_scalarization)
              << "'; valid: paper, utopia\n";
    return kExitUsage;
  }
  const double l2 = FLAGS_l2 == -1.0 ? kDefaultL2 : FLAGS_l2;
  // --method=all has one WC form: the reduced one where it is defined (a
  // strongly convex lower level), else the full-space one.
  if (FLAGS_method == "all") {
    const std::string left_out = l2 > 0.0 ? "wc-penalty" : "wc-reduced";
    methods.erase(
        std::remove_if(methods.begin(),
                       methods.end(),
                       [&](const Method& m) { return m.name == left_out; }),
        methods.end());
  }
  if (l2 == 0.0 &&
      std::any_of(methods.begin(), methods.end(), [](const Method& m) {
        return m.name == "wc-reduced";
      })) {
    std::cerr << "ecmo_mtbl: wc-reduced needs a strongly convex lower "
                 "level (y*(x) unique), but --l2 = 0 makes it merely "
                 "convex; use wc-penalty (the full-space form) or --l2 > "
                 "0\n";
    return kExitUsage;
  }
  // The baselines' budget: equal to the WC methods' time by default, the
  // iteration budget under --smoke (machine-independent points) and when
  // no WC method is run to match.
  const bool has_wc = std::any_of(
      methods.begin(), methods.end(), [](const Method& m) { return m.wc; });
  const bool budget_given =
      !gflags::GetCommandLineFlagInfoOrDie("baseline_budget").is_default;
  ecmo::tools::BaselineBudget baseline_budget;
  if (!ParseBaselineBudget(
          budget_given || !smoke ? FLAGS_baseline_budget : "iterations",
          &baseline_budget,
          &error)) {
    std::cerr << "ecmo_mtbl: " << ForMessage(error) << "\n";
    return kExitUsage;
  }
  if (baseline_budget.kind == ecmo::tools::BaselineBudget::Kind::MATCHED &&
      !has_wc) {
    if (budget_given) {
      std::cerr << "ecmo_mtbl: "
                << ForMessage("--baseline_budget=" + FLAGS_baseline_budget +
                              " matches the time of a WC method, but "
                              "--method has none; add wc-reduced (or "
                              "wc-penalty), or give the budget in seconds or "
                              "as iterations")
                << "\n";
      return kExitUsage;
    }
    baseline_budget = {ecmo::tools::BaselineBudget::Kind::ITERATIONS, 0.0};
  }
  for (const Method& m : methods) {
    if (m.wc) continue;
    const ecmo::MtblBaseline::Options options = BaselineOptions(
        task,
        m.baseline,
        1.0,
        smoke,
        baseline_budget.kind == ecmo::tools::BaselineBudget::Kind::ITERATIONS
            ? std::numeric_limits<double>::quiet_NaN()
            : 1.0);
    if (!options.IsValid(&error)) {
      std::cerr << "ecmo_mtbl: " << m.name << ": " << ForMessage(error) << "\n";
      return kExitUsage;
    }
  }
  const std::string out_dir = FLAGS_output_dir;
  if (FLAGS_resume && out_dir.empty()) {
    std::cerr << "ecmo_mtbl: --resume needs --output_dir (the study's "
                 "points.jsonl is there)\n";
    return kExitUsage;
  }
  if (coordinator && !out_dir.empty()) {
    ::mkdir(out_dir.c_str(), 0755);
    if (!LockOutputDir(out_dir, &error)) {
      std::cerr << "ecmo_mtbl: " << ForMessage(error) << "\n";
      return AbortAll(kExitUsage);
    }
    if (!ecmo::CheckWritable(out_dir + "/study.json", &error) ||
        !ecmo::CheckWritable(out_dir + "/points.jsonl", &error)) {
      std::cerr << "ecmo_mtbl: --output_dir: " << ForMessage(error) << "\n";
      return AbortAll(kExitUsage);
    }
  }

  // ---- The study: the first seed's instance gives S, the objectives'
  // names and the preferences; every rank makes the same list of runs.
  Study study;
  study.task = task;
  study.l2 = l2;
  study.smoke = smoke;
  study.utopia = utopia;
  study.methods = methods;
  study.wc_options = wc_options;
  study.reduced_strategy = reduced_strategy;
  study.reduced_evaluator_options = reduced_evaluator_options;
  study.baseline_budget = baseline_budget;
  std::vector<std::string> objective_names;
  std::string description;
  int S = 0;
  {
    Instance first;
    if (!BuildInstance(task, FLAGS_first_seed, l2, smoke, &first, &error)) {
      std::cerr << "ecmo_mtbl: " << ForMessage(error) << "\n";
      return kExitUsage;
    }
    S = first.evaluator->NumObjectives();
    objective_names = first.objective_names;
    description = first.description;
  }
  // wc-sqp picks its curvature by the size of x (sqp.hessian = AUTOMATIC):
  // exact products up to sqp.max_parameters, limited-memory BFGS above.
  if (automatic_reduced_strategy) {
    study.reduced_strategy = ecmo::StrategyType::WC_SQP;
  }
  // The paper's scalarization: reference point r = 0 below the front
  // (cross-entropies are positive), so no single-objective solves precede
  // each point.
  study.wc_options.reference_point.assign(S, 0.0);
  if (smoke) {
    std::vector<ecmo::NamedPreference> all;
    ParsePreferences("paper", S, &all, &error);
    for (const ecmo::NamedPreference& p : all) {
      if (p.name == "equal" || p.name == "prefer-f1" || p.name == "prefer-f2") {
        study.preferences.push_back(p);
      }
    }
  } else if (!ParsePreferences(
                 FLAGS_preferences, S, &study.preferences, &error)) {
    std::cerr << "ecmo_mtbl: " << ForMessage(error) << "\n";
    return kExitUsage;
  }
  const std::vector<ecmo::NamedPreference>& preferences = study.preferences;
  const std::vector<Run> runs = MakeRuns(study, FLAGS_first_seed, num_seeds);
  const nlohmann::json settings = StudySettings(study, num_seeds);

  // ---- Finished runs (rank 0): resumed from points.jsonl, then each one
  // appended there as it comes back.
  std::map<int, FinishedRun> finished;  // by task
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> jsonl(nullptr, &std::fclose);
  const std::string jsonl_path =
      out_dir.empty() ? "" : out_dir + "/points.jsonl";
  if (coordinator && !jsonl_path.empty()) {
    std::string note;
    if (FLAGS_resume &&
        !ReadFinishedRuns(
            jsonl_path, settings, runs, study, S, &finished, &note, &error)) {
      std::cerr << "ecmo_mtbl: --resume: " << ForMessage(error) << "\n";
      return AbortAll(kExitUsage);
    }
    const bool append = FLAGS_resume && !finished.empty();
    jsonl.reset(std::fopen(jsonl_path.c_str(), append ? "a" : "w"));
    if (jsonl == nullptr) {
      std::cerr << "ecmo_mtbl: cannot write "
                << ForMessage(jsonl_path) << "\n";
      return AbortAll(kExitUsage);
    }
    if (!append) {
      const std::string header =
          nlohmann::json(
              {{"ecmo_mtbl", ecmo::VersionString()}, {"settings", settings}})
              .dump() +
          "\n";
      if (std::fputs(header.c_str(), jsonl.get()) < 0 ||
          std::fflush(jsonl.get()) != 0) {
        std::cerr << "ecmo_mtbl: " << ForMessage(jsonl_path)
                  << ": write failed\n";
        return AbortAll(4);
      }
    }
    if (FLAGS_resume) {
      std::cerr << "ecmo_mtbl: " << note << "resumed " << finished.size()
                << " of " << runs.size() << " runs from " << jsonl_path << "\n";
    }
  }
  std::vector<int> tasks;
  for (size_t t = 0; t < runs.size(); ++t) {
    if (!finished.count(static_cast<int>(t))) tasks.push_back(t);
  }

  // ---- Runs: solved on the worker threads (of every rank), each point
  // back as its points.jsonl line.
  std::vector<SeedContext> contexts(FLAGS_num_threads);
  SeedScalarizations seed_scalarizations;
#ifdef ECMO_WITH_MPI
  // ---- The seeds' utopia points over several ranks: each seed's is a task
  // of its own, solved once for the whole job (on the rank's threads, as
  // in a single process), then shared with every rank. Otherwise every
  // rank that serves one of a seed's WC runs would compute it again (S
  // training runs per seed and rank).
  if (num_ranks > 1 && UsesUtopia(study)) {
    std::vector<int> utopia_seeds;  // rank 0's list: seeds with WC runs left
    if (coordinator) {
      std::set<int> seeds;
      for (int t : tasks) {
        if (study.methods[runs[t].method].wc) seeds.insert(runs[t].seed);
      }
      utopia_seeds.assign(seeds.begin(), seeds.end());
    }
    nlohmann::json shared = {{"seeds", nlohmann::json::object()}};
    // The instances that computed a seed's point on this rank, kept for
    // its threads' runs of the seed (as in a single process).
    std::map<int, std::vector<Instance>> kept;
    std::mutex kept_mutex;
    auto compute = [&](int, int seed) {
      Instance own;
      std::vector<Instance> spares;
      SeedScalarizations::Value value;
      int code = kExitFailure;
      std::string why;
      if (!ComputeSeedUtopia(study,
                             seed,
                             FLAGS_num_threads,
                             &own,
                             &spares,
                             &value,
                             &code,
                             &why)) {
        return nlohmann::json({{"error", why}, {"exit_code", code}}).dump();
      }
      value.info["rank"] = rank;
      spares.push_back(std::move(own));
      {
        std::lock_guard<std::mutex> lock(kept_mutex);
        kept[seed] = std::move(spares);
      }
      return nlohmann::json({{"seed", seed},
                             {"scalarization",
                              ecmo::ScalarizationToJson(*value.scalarization)},
                             {"info", value.info}})
          .dump();
    };
    auto keep = [&](const ecmo::TaskFarm::Result& result) {
      const nlohmann::json reply =
          result.error.empty()
              ? nlohmann::json::parse(result.text, nullptr, false)
              : nlohmann::json({{"error", result.error}});
      if (shared.contains("error")) return;  // the first failure is reported
      if (!reply.is_object() || reply.contains("error") ||
          !reply.contains("scalarization")) {
        shared["error"] = reply.is_object() && reply.contains("error")
                              ? reply["error"]
                              : nlohmann::json("the utopia point of seed " +
                                               std::to_string(result.task) +
                                               " came back unreadable");
        shared["exit_code"] =
            reply.is_object() ? reply.value("exit_code", 1) : 1;
        return;
      }
      shared["seeds"][std::to_string(result.task)] = reply;
    };
    ecmo::TaskFarm::Options utopia_farm;
    // One seed at a time per rank: its solves take the rank's threads.
    utopia_farm.num_threads = 1;
    ecmo::DistributeTasks(utopia_farm, utopia_seeds, compute, keep, nullptr);
    std::string text = coordinator ? shared.dump() : std::string();
    if (!mpi.Broadcast(&text)) {
      std::cerr << "ecmo_mtbl: MPI: sharing the utopia points failed\n";
      return AbortAll(kExitFailure);
    }
    shared = nlohmann::json::parse(text, nullptr, false);
    if (!shared.is_object() || shared.contains("error")) {
      // Every rank stops; rank 0 says why.
      const int code = shared.is_object() ? shared.value("exit_code", 1) : 1;
      if (coordinator) {
        std::cerr << "ecmo_mtbl: "
                  << (shared.is_object() && shared["error"].is_string()
                          ? shared["error"].get<std::string>()
                          : std::string("the utopia points are unreadable"))
                  << "\n";
      }
      return code;
    }
    for (const auto& [key, reply] : shared["seeds"].items()) {
      SeedScalarizations::Value value;
      auto scalarization = std::make_shared<ecmo::Scalarization>();
      std::string why;
      if (!ecmo::ScalarizationFromJson(
              reply["scalarization"], scalarization.get(), &why)) {
        if (coordinator) {
          std::cerr << "ecmo_mtbl: the utopia point of seed " << key << ": "
                    << why << "\n";
        }
        return kExitFailure;
      }
      value.scalarization = std::move(scalarization);
      value.info = reply["info"];
      const int seed = std::stoi(key);
      seed_scalarizations.Put(seed, std::move(value), std::move(kept[seed]));
    }
  }
#endif
  // Per seed, the baselines' wall-time budget (matched: set between the
  // two phases below, on every rank).
  std::map<int, double> budget_of_seed;
  auto baseline_budget_seconds = [&](int seed) {
    using Kind = ecmo::tools::BaselineBudget::Kind;
    switch (study.baseline_budget.kind) {
      case Kind::SECONDS:
        return study.baseline_budget.value;
      case Kind::MATCHED: {
        const auto found = budget_of_seed.find(seed);
        if (found != budget_of_seed.end()) return found->second;
        break;
      }
      case Kind::ITERATIONS:
        break;
    }
    return std::numeric_limits<double>::quiet_NaN();
  };
  auto solve = [&](int thread, int t) {
    const Run& run = runs[t];
    SeedContext& context = contexts[thread];
    nlohmann::json reply = {{"task", t}};
    int exit_code = kExitFailure;
    std::string why;
    if (context.seed != run.seed && !PrepareSeed(study,
                                                 run.seed,
                                                 FLAGS_num_threads,
                                                 &seed_scalarizations,
                                                 &context,
                                                 &exit_code,
                                                 &why)) {
      reply["error"] = why;
      reply["exit_code"] = exit_code;
      return reply.dump();
    }
    Point point =
        SolveRun(study, run, baseline_budget_seconds(run.seed), &context);
    point.rank = rank;
    reply["point"] = PointToJson(point);
    reply["seed"] = context.info;
    return reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  std::string run_error;
  int run_exit_code = 0;
  std::string write_error;
  auto on_result = [&](const ecmo::TaskFarm::Result& result) {
    const nlohmann::json line =
        result.error.empty()
            ? nlohmann::json::parse(result.text, nullptr, false)
            : nlohmann::json({{"task", result.task}, {"error", result.error}});
    FinishedRun run;
    int task = -1;
    std::string why = "it came back unreadable";
    if (!line.is_object() || line.contains("error") ||
        !ReadRunLine(line, study, runs, S, &task, &run, &why)) {
      if (run_error.empty()) {
        run_error = line.is_object() && line.contains("error") &&
                            line["error"].is_string()
                        ? line["error"].get<std::string>()
                        : "run " + std::to_string(result.task) + ": " + why;
        run_exit_code = line.is_object() && line.contains("exit_code") &&
                                line["exit_code"].is_number_integer()
                            ? line["exit_code"].get<int>()
                            : kExitFailure;
      }
      return;
    }
    // The reply is the points.jsonl line as it is.
    if (jsonl != nullptr && write_error.empty() &&
        (std::fputs((result.text + "\n").c_str(), jsonl.get()) < 0 ||
         std::fflush(jsonl.get()) != 0)) {
      write_error = jsonl_path + ": write failed";
    }
    const Point& p = run.point;
    if (!FLAGS_json) {
      std::cerr << "seed " << p.seed << " " << std::left << std::setw(10)
                << p.method << " " << std::setw(22)
                << (p.preference_name.empty() ? "-" : p.preference_name) << " "
                << std::setw(15) << p.termination << " " << std::fixed
                << std::setprecision(2) << p.seconds << " s  max loss "
                << (p.losses.size() ? p.losses.maxCoeff() : NAN)
                << std::defaultfloat << "  ||K||^2 " << std::setprecision(3)
                << p.kkt_residual_sq << std::setprecision(6) << std::right
                << (num_ranks > 1 ? "  rank " + std::to_string(p.rank)
                                  : std::string())
                << "\n";
    }
    finished[result.task] = std::move(run);
  };
  ecmo::TaskFarm::Options farm_options;
  farm_options.num_threads = FLAGS_num_threads;
  const Clock::time_point study_start = Clock::now();
  auto run_phase = [&](const std::vector<int>& phase) {
#ifdef ECMO_WITH_MPI
    ecmo::DistributedSweepStatistics distribution;
    ecmo::DistributeTasks(farm_options, phase, solve, on_result, &distribution);
    if (coordinator && num_ranks > 1) {
      // One write: under mpirun stdout and stderr are forwarded apart, and
      // a line written in pieces came out with the report's table inside.
      std::cerr << "ecmo_mtbl: distributed over " + distribution.Report() + "\n"
                << std::flush;
    }
#else
    ecmo::RunTasks(farm_options, phase, solve, on_result);
#endif
  };
  // Matched budgets come from the WC runs' times: those run first (every
  // seed's), then the baselines. Otherwise all runs are one phase.
  const bool matched =
      study.baseline_budget.kind == ecmo::tools::BaselineBudget::Kind::MATCHED;
  std::vector<int> wc_phase, baseline_phase;
  for (int t : tasks) {
    (matched && !study.methods[runs[t].method].wc ? baseline_phase : wc_phase)
        .push_back(t);
  }
  run_phase(wc_phase);
  if (matched) {
    // Rank 0 has every WC point; each rank needs the budgets. A failed run
    // ends the study before the baselines, on every rank.
    nlohmann::json shared = {{"stop", !run_error.empty()}};
    if (coordinator && run_error.empty()) {
      for (const auto& [seed, seconds] :
           MatchedBudgets(study, runs, finished)) {
        shared["budgets"][std::to_string(seed)] = seconds;
      }
    }
    std::string text = shared.dump();
#ifdef ECMO_WITH_MPI
    if (num_ranks > 1 && !mpi.Broadcast(&text)) {
      std::cerr << "ecmo_mtbl: MPI: sharing the baselines' budgets failed\n";
      return AbortAll(kExitFailure);
    }
#endif
    shared = nlohmann::json::parse(text, nullptr, false);
    if (shared.is_object() && shared.contains("budgets")) {
      for (const auto& [seed, seconds] : shared["budgets"].items()) {
        budget_of_seed[std::stoi(seed)] = seconds.get<double>();
      }
    }
    if (shared.is_object() && !shared.value("stop", true)) {
      run_phase(baseline_phase);
    }
  }
#ifdef ECMO_WITH_MPI
  if (!coordinator) return 0;  // rank 0 reports and sets the exit status
#endif
  const double study_seconds = Seconds(study_start);
  // A lost write can show only when the file is closed (NFS, a full disk).
  if (jsonl != nullptr && std::fclose(jsonl.release()) != 0 &&
      write_error.empty()) {
    write_error = jsonl_path + ": close failed";
  }
  if (!run_error.empty()) {
    std::cerr << "ecmo_mtbl: " << ForMessage(run_error) << "\n";
    return run_exit_code;
  }
  if (!write_error.empty()) {
    std::cerr << "ecmo_mtbl: " << ForMessage(write_error) << "\n";
    return 4;
  }

  // ---- The points in the study's order, and what each seed reported.
  std::vector<Point> points;
  std::map<int, nlohmann::json> seed_info;  // seed -> "seed" of its points
  for (size_t t = 0; t < runs.size(); ++t) {
    const auto found = finished.find(static_cast<int>(t));
    if (found == finished.end()) {
      std::cerr << "ecmo_mtbl: run " << t << " has no result\n";
      return kExitFailure;
    }
    // A WC point's seconds include its share of the utopia point.
    Point& point = found->second.point;
    point.seconds = ChargedSeconds(
        study, study.methods[runs[t].method], point, found->second.seed);
    seed_info.emplace(runs[t].seed, std::move(found->second.seed));
    points.push_back(std::move(point));
  }
  nlohmann::json start_losses = nlohmann::json::array();
  std::vector<double> lambda_max_per_seed;
  nlohmann::json scalarizations = nlohmann::json::array();
  for (const auto& [seed, info] : seed_info) {
    start_losses.push_back(info.value("start", nlohmann::json()));
    lambda_max_per_seed.push_back(
        ReadNumber(info.value("lambda_max", nlohmann::json())));
    if (info.contains("scalarization")) {
      scalarizations.push_back(info["scalarization"]);
    }
  }

  // ---- Metrics: per seed, the union of every method's points; per method
  // (and for the equal preference of the first WC method alone) the
  // indicators.
  const Method* first_wc = FirstWcMethod(study.methods);
  const bool has_equal = std::any_of(
      preferences.begin(),
      preferences.end(),
      [](const ecmo::NamedPreference& p) { return p.name == "equal"; });
  std::vector<std::string> row_names;
  std::string equal_row, equal_method;
  for (const Method& m : study.methods) {
    row_names.push_back(m.name);
    if (&m == first_wc && has_equal && preferences.size() > 1) {
      equal_method = m.name;
      equal_row = m.name + " (equal)";
      row_names.push_back(equal_row);
    }
  }
  auto in_row = [&](const std::string& row, const Point& p) {
    if (row == equal_row) {
      return p.method == equal_method && p.preference_name == "equal";
    }
    return p.method == row;
  };
  std::vector<MethodResult> results(row_names.size());
  for (size_t i = 0; i < row_names.size(); ++i) results[i].name = row_names[i];
  nlohmann::json loss_references = nlohmann::json::array();  // per seed
  for (int k = 0; k < num_seeds; ++k) {
    const int seed = FLAGS_first_seed + k;
    std::vector<const Point*> all;
    for (const Point& p : points) {
      if (p.seed == seed) all.push_back(&p);
    }
    const Eigen::MatrixXd union_inverse =
        NonDominatedRows(NegatedInverseLosses(all));
    const Eigen::MatrixXd union_losses = NonDominatedRows(Losses(all));
    // HV(loss)'s reference point: the nadir of the union's non-dominated
    // losses plus a tenth of their range (the rule of Ishibuchi et al.,
    // 2018, ecmo::DefaultReferencePoint): the same for every method of the
    // seed, fixed by the points found, and every non-dominated point of
    // the union adds volume.
    const Eigen::VectorXd loss_reference =
        union_losses.rows() > 0
            ? ecmo::DefaultReferencePoint(union_losses, 0.1)
            : Eigen::VectorXd::Constant(
                  S, std::numeric_limits<double>::quiet_NaN());
    loss_references.push_back(AsStdVector(loss_reference));
    for (MethodResult& result : results) {
      std::vector<const Point*> mine;
      double seconds = 0.0;
      for (const Point* p : all) {
        if (!in_row(result.name, *p)) continue;
        mine.push_back(p);
        seconds += p->seconds;
      }
      result.Add(NegatedInverseLosses(mine),
                 union_inverse,
                 Losses(mine),
                 union_losses,
                 loss_reference);
      result.seconds.push_back(seconds);
      for (const Point* p : mine) {
        ++result.points;
        if (p->usable) ++result.usable;
        if (p->termination == "CONVERGENCE") ++result.converged;
        result.seconds_per_point.push_back(p->seconds);
        if (std::isfinite(p->budget_seconds)) {
          result.budget_per_point.push_back(p->budget_seconds);
        }
        result.kkt.push_back(p->kkt_residual_sq);
        result.gap.push_back(p->lower_level_gap);
        result.grad_y_g.push_back(p->grad_y_g_norm);
        result.gradient_evaluations.push_back(
            static_cast<double>(p->gradient_evaluations));
        result.hessian_products.push_back(
            static_cast<double>(p->hessian_products));
      }
    }
  }

  // ---- JSON.
  nlohmann::json document;
  document["ecmo_version"] = ecmo::VersionString();
  document["num_ranks"] = num_ranks;
  document["num_threads"] = FLAGS_num_threads;
  document["task"] = task;
  document["description"] = description;
  document["l2"] = l2;
  document["seeds"] = num_seeds;
  document["first_seed"] = FLAGS_first_seed;
  document["smoke"] = smoke;
  document["strategy"] = FLAGS_strategy;
  document["reduced_strategy"] =
      ecmo::StrategyTypeToString(study.reduced_strategy);
  document["lower_preconditioner"] = ecmo::LowerLevelPreconditionerTypeToString(
      reduced_evaluator_options.lower_level.preconditioner_type);
  document["kkt_tolerance"] = FLAGS_kkt_tolerance;
  document["objective_names"] = objective_names;
  document["total_time_in_seconds"] = study_seconds;
  document["hypervolume_reference_point"] = "v = 1/loss, reference v = 0";
  document["hypervolume_loss_reference_point"] =
      "per seed: nadir + 0.1 (nadir - ideal) of the non-dominated union of "
      "every method's losses";
  document["hypervolume_loss_reference_per_seed"] = loss_references;
  document["baseline_budget"] = BaselineBudgetSpec(study.baseline_budget);
  document["scalarization"] = scalarization;
  if (utopia) document["scalarization_per_seed"] = scalarizations;
  document["preferences"] = settings["preferences"];
  document["start"] = start_losses;
  nlohmann::json method_options = nlohmann::json::object();
  for (const Method& m : methods) {
    if (m.wc) continue;
    const bool timed = study.baseline_budget.kind !=
                       ecmo::tools::BaselineBudget::Kind::ITERATIONS;
    const ecmo::MtblBaseline::Options o =
        BaselineOptions(task,
                        m.baseline,
                        lambda_max_per_seed.front(),
                        smoke,
                        timed ? 1.0 : std::numeric_limits<double>::quiet_NaN());
    method_options[m.name] = {
        {"max_iterations",
         o.max_iterations == std::numeric_limits<int>::max()
             ? nlohmann::json("unlimited")
             : nlohmann::json(o.max_iterations)},
        {"budget", BaselineBudgetSpec(study.baseline_budget)},
        {"direction_tolerance", o.direction_tolerance},
        {"lower_tolerance", o.lower_tolerance},
        {"inner_iterations", o.inner_iterations},
        {"inner_step_size_first_seed", o.inner_step_size},
        {"upper_step_size", o.upper_step_size},
        {"lower_step_rule", "1 / lambda_max(grad^2_yy g) at the start"}};
  }
  document["baseline_options"] = method_options;
  document["lambda_max_per_seed"] = lambda_max_per_seed;
  nlohmann::json table = nlohmann::json::array();
  for (const MethodResult& r : results) {
    nlohmann::json row;
    row["method"] = r.name;
    row["hypervolume"] = ToJson(Aggregate(r.hypervolume));
    row["epsilon"] = ToJson(Aggregate(r.epsilon));
    row["hypervolume_loss"] = ToJson(Aggregate(r.hypervolume_loss));
    row["epsilon_loss"] = ToJson(Aggregate(r.epsilon_loss));
    row["igd_plus_loss"] = ToJson(Aggregate(r.igd_plus_loss));
    row["budget_seconds_per_point"] = ToJson(Aggregate(r.budget_per_point));
    // The indicators seed by seed (in seed order), for paired comparisons:
    // the reference point of HV(loss) changes from seed to seed, so the
    // standard errors above mostly measure that.
    nlohmann::json per_seed;
    for (const auto& [key, values] :
         std::vector<std::pair<const char*, const std::vector<double>*>>{
             {"hypervolume_loss", &r.hypervolume_loss},
             {"epsilon_loss", &r.epsilon_loss},
             {"igd_plus_loss", &r.igd_plus_loss},
             {"hypervolume", &r.hypervolume}}) {
      per_seed[key] = nlohmann::json::array();
      for (double v : *values) per_seed[key].push_back(Number(v));
    }
    row["per_seed"] = per_seed;
    row["seconds_per_seed"] = ToJson(Aggregate(r.seconds));
    row["seconds_per_point"] = ToJson(Aggregate(r.seconds_per_point));
    row["kkt_residual_sq_median"] = Number(Median(r.kkt));
    row["kkt_residual_sq_max"] = Number(
        r.kkt.empty() ? NAN : *std::max_element(r.kkt.begin(), r.kkt.end()));
    row["lower_level_gap_median"] = Number(Median(r.gap));
    row["grad_y_g_norm_median"] = Number(Median(r.grad_y_g));
    row["gradient_evaluations_per_point"] =
        ToJson(Aggregate(r.gradient_evaluations));
    row["hessian_products_per_point"] = ToJson(Aggregate(r.hessian_products));
    row["points"] = r.points;
    row["usable"] = r.usable;
    row["converged"] = r.converged;
    table.push_back(row);
  }
  document["methods"] = table;
  // The hypervolume of the first WC method, for scripts.
  for (const MethodResult& r : results) {
    if (first_wc != nullptr && r.name == first_wc->name) {
      document["hypervolume"] = Number(Aggregate(r.hypervolume).mean);
      document["hypervolume_method"] = r.name;
    }
  }
  nlohmann::json point_rows = nlohmann::json::array();
  for (const Point& p : points) {
    nlohmann::json j = PointToJson(p);
    // The curves are in the pictures; the points stay short.
    j.erase("curve_time");
    j.erase("curve_worst_loss");
    point_rows.push_back(std::move(j));
  }
  document["points"] = point_rows;

  // ---- Files.
  int status = 0;
  for (const Point& p : points) {
    if (!p.usable) status = kExitFailure;
  }
  if (!out_dir.empty()) {
    std::ostringstream csv;
    csv << "index,method,seed,preference_name";
    for (int s = 0; s < S; ++s) csv << ",lambda_" << s + 1;
    for (int s = 0; s < S; ++s) {
      csv << ","
          << (s < static_cast<int>(objective_names.size())
                  ? objective_names[s]
                  : "f_" + std::to_string(s + 1));
    }
    csv << ",termination,kkt_residual_sq,grad_y_g_norm,lower_level_gap,"
           "seconds,budget_seconds,gradient_evaluations,hessian_products\n";
    csv << std::setprecision(17);
    for (size_t i = 0; i < points.size(); ++i) {
      const Point& p = points[i];
      csv << i << "," << p.method << "," << p.seed << "," << p.preference_name;
      for (int s = 0; s < S; ++s) {
        csv << ",";
        if (!p.preference.empty()) csv << p.preference[s];
      }
      for (int s = 0; s < S; ++s) {
        csv << ",";
        if (s < p.losses.size()) csv << p.losses[s];
      }
      csv << "," << p.termination << "," << p.kkt_residual_sq << ","
          << p.grad_y_g_norm << "," << p.lower_level_gap << "," << p.seconds
          << ",";
      if (std::isfinite(p.budget_seconds)) csv << p.budget_seconds;
      csv << "," << p.gradient_evaluations << "," << p.hessian_products << "\n";
    }
    if (!ecmo::WriteFileAtomically(
            out_dir + "/points.csv", csv.str(), &error) ||
        !ecmo::WriteFileAtomically(
            out_dir + "/study.json", document.dump(2) + "\n", &error)) {
      std::cerr << "ecmo_mtbl: " << ForMessage(error) << "\n";
      return 4;
    }
    // Pictures of the first seed: every method's points in 1/loss space,
    // and the worst-task loss against time at the equal preference.
    ecmo::PlotOptions plot;
    plot.objective_names.clear();
    for (const std::string& n : objective_names) {
      plot.objective_names.push_back("1/" + n);
    }
    plot.title = task + ": 1/validation loss (seed " +
                 std::to_string(FLAGS_first_seed) + ")";
    std::vector<ecmo::LabeledPointSet> sets;
    std::vector<ecmo::LabeledCurve> curves;
    for (const Method& m : methods) {
      std::vector<const Point*> mine;
      for (const Point& p : points) {
        if (p.method == m.name && p.seed == FLAGS_first_seed) {
          mine.push_back(&p);
          const bool equal_or_free =
              p.preference_name.empty() || p.preference_name == "equal";
          if (equal_or_free && !p.curve_time.empty()) {
            curves.push_back({m.name, p.curve_time, p.curve_worst_loss});
          }
        }
      }
      Eigen::MatrixXd set = NegatedInverseLosses(mine);
      if (set.rows() > 0) sets.push_back({m.name, -set});
    }
    for (const ecmo::PlotResult& r :
         {ecmo::PlotPointSets(plot, sets, out_dir + "/front.png"),
          ecmo::PlotCurves(
              [&] {
                ecmo::PlotOptions o = plot;
                o.title = task + ": worst-task validation loss (seed " +
                          std::to_string(FLAGS_first_seed) +
                          ", equal preference or preference-free)";
                return o;
              }(),
              curves,
              "wall time (s)",
              "max_s f_s",
              false,
              true,
              out_dir + "/convergence.png")}) {
      if (!r.image_written) std::cerr << "ecmo_mtbl: " << ForMessage(r.message) << "\n";
    }
  }

  // ---- Report.
  if (FLAGS_json) {
    std::cout << document.dump(2) << "\n";
    return status;
  }
  std::cout << "ecmo_mtbl " << ecmo::VersionString() << ": " << task
            << " (l2 = " << l2 << "), " << num_seeds << " seed(s), "
            << preferences.size() << " preference(s), " << std::fixed
            << std::setprecision(1) << study_seconds << " s\n"
            << description << "\n\n";
  PrintReport(study, results, std::cout);
  std::cout << std::defaultfloat;
  return status;
}
