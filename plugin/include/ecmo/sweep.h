// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Library: ecmo::sweep (find_package(ecmo COMPONENTS sweep)), which adds
// nlohmann-json to ecmo::plugin's dependencies.
//
// Pareto sweeps: solve the weighted-Chebyshev (WC) subproblem for many
// preferences, on several threads, each point warm-started from the nearest
// point already solved, streaming every finished point to disk so that an
// interrupted sweep loses nothing and can resume.
//
//   ecmo::ParetoSweep::Options options;
//   options.solver.strategy = ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN;
//   options.num_threads = 2;
//   options.jsonl_path = "front.jsonl";   // one line per finished point
//   options.resume = true;                // skip points already in the file
//   ecmo::ParetoSweep::Summary summary;
//   ecmo::Sweep(options, ecmo::MakeProblemFactory(info->build),
//               ecmo::DasDennis(2, 100), &summary);
//   std::cout << summary.FullReport() << "\n";
//
// Problems. Each worker thread needs its own evaluator (evaluators are
// stateful and not thread-safe), and a worker keeps its evaluator for the
// whole sweep (so a strategy may reuse what it learnt on one point, e.g. a
// sparse symbolic analysis, on the next). A sweep takes one of
//   * an EvaluatorFactory that builds an independent EvaluatorInstance (an
//     ecmo::Evaluator, its start point z0 and whatever the evaluator points
//     into) per worker: any evaluator, e.g. a matrix-free MtblEvaluator or a
//     CeresProblemAdapter (ecmo/mtbl.h, ecmo/ceres_problem_adapter.h). The
//     registry's entries fit through ecmo::problems::MakeEvaluatorFactory,
//     a ceres::Problem builder through ecmo::MakeCeresProblemFactory
//     (ecmo/ceres_problem_sweep.h);
//   * a single Evaluator and start point: one thread;
//   * a ProblemFactory that builds an independent ecmo::Problem instance
//     (its own blocks) per worker; the registry's
//     ecmo::problems::ProblemInfo::build fits through MakeProblemFactory, or
//   * a single Problem with its declared ThreadSafety (as in pagmo): BASIC
//     means its cost functions may be evaluated concurrently (each worker
//     then evaluates the shared problem through its own evaluator and never
//     writes the user's parameter blocks); NONE forces one thread.
// The Problem forms are thin wrappers over the evaluator form (each worker
// evaluates its problem through a ProblemEvaluator, start point = the
// parameter blocks): one implementation, the same results.
//
// A matrix-free bilevel problem, two threads:
//
//   ecmo::EvaluatorFactory factory = [](std::string* error) {
//     auto lower = std::make_shared<MyLowerLevel>();     // ecmo::LowerLevel
//     auto evaluator = std::make_unique<ecmo::MtblEvaluator>(lower.get());
//     evaluator->AddUpperObjective(new MyF1, {ecmo::MtblBlock::Y});
//     evaluator->AddUpperObjective(new MyF2, {ecmo::MtblBlock::Y});
//     if (!evaluator->IsValid(error)) return
//         std::unique_ptr<ecmo::EvaluatorInstance>();
//     auto instance = std::make_unique<ecmo::EvaluatorInstance>();
//     instance->start = MyStartPoint();                  // (x0, y0)
//     instance->storage = lower;          // outlives the evaluator
//     instance->evaluator = std::move(evaluator);
//     return instance;
//   };
//   options.num_threads = 2;
//   ecmo::Sweep(options, factory, ecmo::DasDennis(2, 20), &summary);
//
// A ceres::Problem (ecmo/ceres_problem_sweep.h has the whole example):
// BuildFit returns a CeresProblemInstance (parameter blocks, the
// ceres::Problem, the objective and constraint residual groups), one per
// worker; or sweep your one adapter on one thread:
//
//   ecmo::Sweep(options, ecmo::MakeCeresProblemFactory(BuildFit),
//               ecmo::DasDennis(2, 20), &summary);
//   ecmo::Sweep(options, &adapter, ecmo::DasDennis(2, 20), &summary);
//
// Writing back: a sweep never writes a solution into parameter blocks
// (every solution is in its SweepPoint::summary.z). Only a point_solver
// writes blocks: the point's start point, into the worker's ecmo::Problem
// (with a shared Problem, the user's blocks; then one thread).
//
// Start points. Every point starts from the problem's start point (the
// parameter blocks when the problem was built or handed in, or
// EvaluatorInstance::start of the first instance built) unless
// Options::warm_start is set, in which case it starts from the z of the
// nearest point (Euclidean distance between the preferences used) among the
// points finished so far, resumed points included. The warm start sets z
// and Solver::Options::warm_start: rho starts at its smallest feasible value
// for that z, max_s lambda_s (f_s(z) + offset_s), which is the neighbour's
// rho adjusted to the new preference (Solver::Options::initial_rho is left
// as given, so keep it NaN); the quasi-Newton strategies also start from the
// neighbour's final penalties (Summary::penalty_u, penalty_v) and the
// augmented Lagrangian from its final multipliers
// (Summary::kkt.solver_multipliers). Those replace any
// Options::solver.warm_start given, which is used as is by the points that
// start from the problem's start point. A warm-started point that does not
// end CONVERGENCE is solved again from the problem's start point, and the
// better of the two tries kept: a CONVERGENCE one; else a feasible one
// before an infeasible one; between feasible ones the smaller WC value
// (Solver::Summary::WcValue), so that an uncertified point is still the
// best the sweep found for its preference whatever the order of the walk.
// The point's message says which was kept.
//
// Work order. The preferences are visited along a walk through the simplex
// (sorted by lambda_1 for S = 2, a greedy nearest-neighbour path otherwise)
// and the walk is cut into one contiguous chunk per thread; odd chunks are
// walked backwards, so that with two threads each starts at an end of the
// walk and the two meet in the middle. A thread that runs out of work
// takes the half of the largest remaining chunk farthest from its owner
// and walks it towards the owner, starting next to a point that is
// already done; a chunk down to one point is taken whole, even from an
// owner that has not started (a thread descheduled for a whole short sweep
// then solves nothing, and no thread waits for it). Which neighbour a warm
// start uses therefore depends on timing when num_threads > 1; the points agree
// to solver tolerance.
//
// Threads call Solve concurrently; streaming writes, callbacks and progress
// output are serialized under one mutex. Nothing aborts or throws: invalid
// options, an invalid problem or a resume file from another sweep give a
// FAILURE summary with a message; a point that fails keeps its FAILURE in
// its own Solver::Summary and the sweep goes on.

#ifndef ECMO_SWEEP_H_
#define ECMO_SWEEP_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "ecmo/types.h"
#include "nlohmann/json.hpp"

namespace ecmo {

// Declared thread safety of a Problem shared by the threads of a sweep (the
// pagmo convention): NONE, its cost functions must not run concurrently
// (the sweep then uses one thread); BASIC, they may (true of Ceres auto-diff
// cost functions without mutable state).
enum class ThreadSafety { NONE, BASIC };
const char* ThreadSafetyToString(ThreadSafety safety);

// Builds one independent problem instance: an ecmo::Problem whose parameter
// blocks are owned by the returned object (or live as long as it), holding
// the start point. Must return the same problem (same structure and start
// point) on every call; nullptr means the build failed. Called from the
// thread that calls Sweep, once per worker.
using ProblemFactory = std::function<std::shared_ptr<const Problem>()>;

// Adapts a builder of any type that owns its blocks and exposes a member
// `problem` (e.g. ecmo::problems::ProblemInstance) to a ProblemFactory; the
// returned pointer keeps the whole instance alive.
template <typename Instance>
ProblemFactory MakeProblemFactory(
    std::function<std::unique_ptr<Instance>()> build) {
  return [build]() -> std::shared_ptr<const Problem> {
    if (!build) return nullptr;
    std::shared_ptr<Instance> instance(build());
    if (instance == nullptr) return nullptr;
    return std::shared_ptr<const Problem>(instance, &instance->problem);
  };
}

// One independent instance of a problem given as an evaluator: what one
// worker of a sweep evaluates, for the whole sweep.
//
// Ownership: the instance owns everything in it. `storage` holds what the
// evaluator refers to without owning it (an MtblEvaluator's LowerLevel, a
// CeresProblemAdapter's ceres::Problem and parameter blocks, an
// ecmo::Problem and its blocks); it is declared first, so it is destroyed
// after `evaluator`. `problem` is never owned through this pointer.
//
// Thread safety: each instance is used by one worker thread at a time;
// instances built by one factory must not share mutable state (two
// evaluators over one ecmo::Problem are fine when its cost functions may
// run concurrently).
struct EvaluatorInstance {
  // Anything the evaluator points into; may be null.
  std::shared_ptr<void> storage;
  // The evaluator (required).
  std::unique_ptr<Evaluator> evaluator;
  // The start point z0, size evaluator->NumParameters(), finite.
  Eigen::VectorXd start;
  // Optional: the ecmo::Problem that `evaluator` evaluates (a
  // ProblemEvaluator over it), kept in `storage`. Only
  // ParetoSweep::Options::point_solver needs it (it receives a Problem);
  // null for evaluators that are not built from an ecmo::Problem.
  const Problem* problem = nullptr;
};

// Builds one independent EvaluatorInstance (see above). Must return the
// same problem (same sizes and start point) on every call. On failure
// returns null and says why in *error (never null), e.g. the evaluator's
// IsValid message. Called from the thread that calls Sweep, once per
// worker.
using EvaluatorFactory =
    std::function<std::unique_ptr<EvaluatorInstance>(std::string* error)>;

// The evaluator form of a ProblemFactory: each instance evaluates a problem
// built by `factory` through a ProblemEvaluator, starts from its parameter
// blocks and keeps it alive (EvaluatorInstance::problem points to it). An
// invalid problem is a failed build ("Invalid problem: ...").
EvaluatorFactory MakeEvaluatorFactory(ProblemFactory factory);

// One point of a sweep.
struct SweepPoint {
  // Position in the preference list given to Sweep.
  int index = -1;
  // The preference as given, and as used: moved into the open simplex by
  // ToOpenSimplex(given, floor), floor = Summary::preference_floor (see
  // Options::preference_floor).
  std::vector<double> preference_given;
  std::vector<double> preference;
  // True when the floor raised an entry of this preference.
  bool preference_changed = false;
  // True for points added by adaptive refinement (Options::refine_to).
  bool refined = false;
  // True when the point is certified but may be a spurious end of the
  // front: one objective alone is active there although it is above its
  // minimum (the ideal point), i.e. z is a stationary point of that
  // objective that does not minimize it, as at the ends of a concave front
  // on a closed constraint set, which are KKT points of EVERY WC problem. A
  // warm-started point that ends so is solved again from the problem's
  // start (the smaller WC value is kept; the message says what happened);
  // this flag says the kept point still looks so. Written into the point's
  // JSON as "possibly_spurious_end" (only when true) and counted in
  // ParetoSweep::Summary::num_possibly_spurious_ends. Needs the ideal point
  // (the automatic reference point): false otherwise.
  bool possibly_spurious_end = false;
  // True when this point was warm-started, did not end CONVERGENCE, and
  // was solved again from the problem's start (see the top of this file
  // for which of the two tries is kept; warm_start_from is -1 when the
  // cold one was). Written into the JSON as "cold_retry" (only when true)
  // and counted in ParetoSweep::Summary::num_cold_retries.
  bool cold_retry = false;
  // Why this certified warm-started point was compared with a cold solve
  // at its preference; empty when it was not. A warm start can carry the
  // neighbour's point into a region where it is KKT for more preferences
  // than its own, and the certificate, which judges the point, accepts it
  // there. The sweep compares with a cold solve, and keeps the smaller WC
  // value, when the point
  //   - is a possibly spurious end (above);
  //   - has the objectives of the point it started from although the
  //     preference differs (one point KKT for both: a saturated model, a
  //     kink of the front, an inactive objective at an end);
  //   - has coordinates that the objectives respond to a million times
  //     less than at the sweep's start point, also after a small move: a
  //     saturated region (a softmax weight at 0), not an ordinary
  //     minimizer (which has curvature) or an unused parameter.
  // The cold solve wins when it is feasible and its WC value is smaller by
  // more than 1e-6 of it, also when it did not converge (a feasible point
  // below the warm one shows that the warm one is not the WC minimizer;
  // the kept point's termination then says it is not certified).
  // warm_start_from is -1 when the cold solve won. Written into the JSON
  // as "cold_check" (only when set) and counted in
  // ParetoSweep::Summary::num_cold_checks / num_solved_cold.
  std::string cold_check;

  // SOLVED: solved by this call. RESUMED: read back from the JSON-lines file
  // (Options::resume). NOT_SOLVED: not reached (a callback stopped the
  // sweep, or the sweep failed before it started).
  enum Status { NOT_SOLVED, SOLVED, RESUMED };
  Status status = NOT_SOLVED;

  // Index of the point whose z started this one; -1 for the problem's start
  // point (cold start, or no point finished yet). For resumed points, as
  // recorded in the file.
  int warm_start_from = -1;
  // Worker thread that solved it (0-based); -1 unless SOLVED. In a
  // distributed sweep (ecmo/sweep_mpi.h), the thread within its rank.
  int thread = -1;
  // Distributed sweeps only (ecmo/sweep_mpi.h): the MPI rank that solved
  // it, written into the point's JSON as "rank" (restored from it on
  // resume). -1 in a single-process sweep, whose JSON has no "rank".
  int rank = -1;

  // The solve's summary: preference (as used), termination, z, objectives,
  // KKT scores, and the history only with ParetoSweep::Options::keep_history.
  // Once the point's callbacks have run, its KKT residuals keep only the
  // squared norms of their blocks (KktResidual::KeepNormsOnly: the block
  // vectors are empty, SquaredNorm() and the block accessors are exact),
  // so that a large sweep does not hold two k-vectors per point; a
  // callback sees the whole residual. Resumed points are restored by
  // SummaryFromJson (ecmo/result_writer.h).
  Solver::Summary summary;
  // Extra fields from Options::point_solver (e.g. a cross-check), merged into
  // the point's JSON. Empty object otherwise. For a resumed point, the
  // fields of its line that SweepPointToJson would not write back as they
  // are in the file (the point_solver's fields, "version", fields of other
  // versions), so that the point's JSON is the line's.
  nlohmann::json extra = nlohmann::json::object();
};

// Called once per finished point (SOLVED points only, in completion order,
// under the sweep's mutex, after the point was written). Not owned.
// SOLVER_CONTINUE goes on; SOLVER_ABORT stops the sweep (USER_FAILURE) and
// SOLVER_TERMINATE_SUCCESSFULLY stops it (USER_SUCCESS): points under way
// finish and are written, no new point starts.
class SweepCallback {
 public:
  virtual ~SweepCallback() = default;
  virtual CallbackReturnType operator()(const SweepPoint& point) = 0;
};

// Replaces ecmo::Solve for each point (e.g. to cross-check every point
// against a reference solver). Gets the options, a problem whose parameter
// blocks hold the point's start point (the worker's own instance; a shared
// Problem only with one thread), and the preference as used. Must fill
// *summary; may put extra JSON fields into *extra (an empty object on
// entry). Must not throw. May be called concurrently from several workers,
// each with its own problem. Needs an ecmo::Problem: a sweep over evaluator
// instances without EvaluatorInstance::problem refuses it.
using PointSolver = std::function<void(const Solver::Options& options,
                                       const Problem& problem,
                                       const std::vector<double>& preference,
                                       Solver::Summary* summary,
                                       nlohmann::json* extra)>;

class ParetoSweep {
 public:
  struct Options {
    // Options of every point's solve. With automatic_objective_offset the
    // offsets are computed once, from the problem's start point, and used
    // for every point (so warm starts do not change the scalarization).
    // The automatic reference point's single-objective solves are shared
    // among the sweep's threads, each on its own instance (the result is
    // the one-thread result bit for bit when an instance's results do not
    // depend on what it solved before; with a ReducedMtblEvaluator, whose
    // lower-level warm starts carry over, to solver tolerance).
    // solver.callbacks are shared by all workers: with num_threads > 1 they
    // are called concurrently and must be thread-safe. Record the history
    // (solver.record_history, history_stride) and keep it (keep_history
    // below) for convergence plots.
    Solver::Options solver;

    // Worker threads. > 0. Fewer are used when there are fewer points to
    // solve, when the system refuses to create more threads (the sweep
    // goes on with those it has, at least the calling thread), when the
    // factory fails to build another instance, when the sweep runs on one
    // Evaluator, when a shared Problem is declared ThreadSafety::NONE, or
    // when a shared Problem is combined with a point_solver (which needs
    // the parameter blocks); Summary::num_threads_used and threads_message
    // say so.
    int num_threads = 1;

    // Start each point from the nearest finished point (see the top of this
    // file). false: every point starts from the problem's start point.
    bool warm_start = true;

    // Compare a certified warm-started point with a cold solve at its
    // preference, and keep the smaller WC value, where the point may be
    // KKT for more preferences than its own (SweepPoint::cold_check: its
    // source's objectives at another preference, or coordinates in a
    // saturated region). Costs one or two gradient evaluations per
    // certified warm point (and one at the start per worker), and a cold
    // solve per point so flagged. false: only possibly spurious ends are
    // compared.
    bool cold_checks = true;

    // Every preference is passed through ToOpenSimplex with this floor:
    // entries below it (zeros, e.g. the corners of a Das-Dennis grid) are
    // raised to it. In (0, 1). Summary::changed_preferences lists the
    // points whose preference it changed. With two objectives and the
    // automatic normalized scalarization (no reference point, scales,
    // offsets or scalarization given; normalize_objectives), the floor
    // used is at least m / (1 + m),
    // m = solver.utopia_margin (0.0099 for the default 1e-2): the reference
    // point sits m ranges below the ideal point, so at a corner preference
    // (1 - e, e) with a smaller e the other objective's term stays inactive
    // until that objective is (1 - e) m / e - m ranges above its nadir, and
    // the corner's point is only weakly Pareto optimal, anywhere in that
    // range (on mit.g2o 58 ranges beyond the end of the front); at
    // m / (1 + m) the terms balance next to the payoff table's corner.
    // Summary::preference_floor is the floor used.
    double preference_floor = kDefaultPreferenceFloor;

    // Name written into every JSON line and CSV row, and checked on resume.
    std::string problem_name = "problem";

    // Streaming output. When not empty, each finished point is written and
    // flushed at once: a line of JSON (SummaryToJson plus "index",
    // "preference" as used, "preference_given", "warm_start_from" and the
    // point_solver's extra fields) to jsonl_path, and a SweepCsvRow to
    // csv_path (SweepCsvHeader first). Lines appear in completion order.
    std::string jsonl_path;
    std::string csv_path;

    // Resume from jsonl_path (required): lines whose "index" and
    // "preference" match a point of this sweep (every entry within 1e-12)
    // are taken as done and not solved again; the rest are solved and
    // appended. A last line cut short (the writer was killed mid-write) is
    // dropped from the file and reported; later lines repeating an index
    // are dropped (the file is replaced atomically). Any other line makes
    // the sweep fail (FAILURE, nothing solved, file untouched byte for
    // byte) with "PATH:LINE: field ..." : a line that is not JSON (the file
    // is not a sweep's JSON-lines file), an index out of range, another
    // problem or preference (another sweep), other "settings" (the options
    // that determine a point, see below; the message lists the differing
    // ones), sizes of z / objectives / multipliers that are not this
    // problem's, counts that do not fit an int, or a warm_start_from that
    // is not -1 or another index. A missing file starts a fresh sweep. The
    // CSV file is rewritten: header, the resumed points, then the new ones.
    //
    // Every line carries "settings": the solver options that determine the
    // point (strategy, max_iterations, kkt_tolerance, the objective offsets
    // used, initial_rho, the pgd and quasi_newton options, record_history
    // and history_stride), warm_start,
    // preference_floor and, under "extra", Options::settings.
    //
    // The JSON-lines file is held under an exclusive advisory lock
    // (flock) for the whole sweep: a second sweep on the same file fails
    // with "another ecmo_solve (or ecmo::Sweep) is writing PATH". A
    // symbolic link stays a link: lines go to its target.
    bool resume = false;

    // Further settings that determine a point's result and are not in
    // `solver` (e.g. a point_solver's own options). Recorded in every JSON
    // line and compared on resume. A JSON object.
    nlohmann::json settings = nlohmann::json::object();

    // Progress line on stderr ("points done/total, worst ||K||^2, elapsed,
    // remaining") every progress_every_n_seconds, starting only once the
    // sweep has run that long (so short sweeps print nothing), and a final
    // line if any was printed. > 0.
    bool progress_to_stderr = false;
    double progress_every_n_seconds = 2.0;

    // Hypervolume reference point (size S). Empty: DefaultReferencePoint
    // of the usable points with reference_point_offset.
    std::vector<double> reference_point;
    double reference_point_offset = 0.1;

    // Keep every point's Summary::history in memory (SweepPoint::summary)
    // once the point is finished. false (default): the history is recorded
    // as Options::solver says, written to jsonl_path and passed to the
    // callbacks, then dropped, and a resumed point's history is not kept
    // either, so that what a sweep holds per finished point is a small
    // constant (benchmarks/README.md, "Pareto sweeps": about 2.6 KB at
    // k = 2, S = 2) whatever the iteration counts: a 40,000-point sweep
    // no longer needs a gigabyte. Set it for whatever reads the histories
    // from the Summary afterwards: convergence plots (PlotSweep,
    // ConvergenceCurves) and a SweepToJson document with "history".
    bool keep_history = false;

    // When > 0, each solved point's Summary::history is thinned by
    // ThinHistory to at most about this many entries before it is stored
    // and written, so saved results stay small while log-log convergence
    // plots keep their shape. 0 keeps the history as recorded. >= 0.
    int max_history_entries = 0;

    // Scalarization (ecmo/scalarization.h). The reference point and scales
    // are computed ONCE, at the problem's start point, and shared by every
    // point (Solver::Options::scalarization), so the single-objective
    // solves of the automatic utopia point run once and warm starts never
    // change the scalarization; Summary::scalarization reports them and
    // their cost. With normalize_objectives (default) the objectives are
    // divided by nadir - utopia whenever solver leaves the scalarization
    // automatic (no objective_offset, reference_point or objective_scale),
    // so that a uniform preference grid spreads points evenly; false turns
    // it off whatever solver.normalize_objectives says.
    bool normalize_objectives = true;

    // Adaptive refinement: after the given preferences, add points where
    // the front has its largest holes (front_refinement: midpoints of
    // neighbouring points in normalized objective space, each aimed at by
    // the preference whose Chebyshev ray passes through it). Each new point
    // is warm-started from the nearest finished point, solved one at a
    // time after the grid, written and resumable like the others (index >=
    // the number of preferences, SweepPoint::refined). For any S >= 2.
    //
    //   kRefineWhereNeeded (-1, default): add points only while the largest
    //     hole is wide: while twice its distance to the nearest point
    //     exceeds refine_gap_ratio times the mean distance between
    //     neighbouring points (each usable point's nearest other point), up
    //     to 2 P - 1 points in all, P the preferences given. An evenly
    //     spread front gets no point; a front whose preferences crowd one
    //     stretch (a real pose graph's loop-closure range is 1e5-1e8 times
    //     its odometry range) gets its holes filled, within twice the
    //     grid's cost. Only for sweeps of at most
    //     kRefineWhereNeededMaxPreferences preferences (finding a hole costs
    //     O(n^2) per added point; a larger grid is taken as dense enough).
    //   0: no refinement.
    //   > 0: add points, largest hole first, until the sweep has refine_to
    //     points (fewer preferences than that: none).
    static constexpr int kRefineWhereNeeded = -1;
    static constexpr int kRefineWhereNeededMaxPreferences = 200;
    int refine_to = kRefineWhereNeeded;
    // The largest hole's width over the mean neighbour distance below
    // which kRefineWhereNeeded stops. >= 1.
    double refine_gap_ratio = 3.0;

    // Optional replacement for ecmo::Solve (see PointSolver).
    PointSolver point_solver;

    // Called once per solved point; not owned.
    std::vector<SweepCallback*> callbacks;

    // Ceres-style validation, including solver.IsValid. Does not look at the
    // problem or the preferences.
    bool IsValid(std::string* error) const;
  };

  struct Summary {
    // One line: points, usable, hypervolume, worst ||K||^2, time,
    // termination.
    std::string BriefReport() const;
    // Multi-line: options given/used, counts, indicators, and one row per
    // point (preference, objectives, ||h||, ||K||^2, iterations, status).
    std::string FullReport() const;
    // True when every point was reached and its solution is usable.
    bool AllPointsUsable() const;

    // CONVERGENCE: every point converged. NO_CONVERGENCE: every point was
    // reached but at least one did not converge or failed (see its
    // summary). USER_SUCCESS / USER_FAILURE: a callback stopped the sweep.
    // FAILURE: the sweep did not run (message says why).
    TerminationType termination_type = ceres::FAILURE;
    std::string message = "ecmo::Sweep was not called.";

    int num_objectives = -1;
    int num_parameters = -1;
    // Evaluator::ObjectiveName of each objective (e.g. the objective groups
    // of a CeresProblemAdapter); JSON "objective_names", the report's
    // "Objectives" row and the plots' axis labels.
    std::vector<std::string> objective_names;

    int num_threads_given = -1;
    int num_threads_used = -1;
    // Processes that solved points: 1 for a single-process sweep; the MPI
    // ranks of a distributed sweep (ecmo/sweep_mpi.h), which then counts
    // num_threads_used over all ranks.
    int num_ranks = 1;
    // Why fewer threads than given were used (empty if not).
    std::string threads_message;
    bool warm_start = false;

    // One entry per preference, in the order given.
    std::vector<SweepPoint> points;
    // Indices of the points whose preference the floor changed.
    std::vector<int> changed_preferences;
    // The floor used (Options::preference_floor, raised with the automatic
    // scalarization).
    double preference_floor = -1.0;

    int num_points = 0;
    int num_solved = 0;     // by this call
    int num_resumed = 0;    // read back from the JSON-lines file
    int num_usable = 0;     // IsSolutionUsable, solved or resumed
    int num_converged = 0;  // CONVERGENCE
    int num_not_solved = 0;
    // Points added by adaptive refinement (solved or resumed).
    int num_refined = 0;
    // Usable points with SweepPoint::possibly_spurious_end.
    int num_possibly_spurious_ends = 0;
    // Points compared with a cold solve (SweepPoint::cold_check), and those
    // of them where the cold solve won and was kept.
    int num_cold_checks = 0;
    int num_solved_cold = 0;
    // Warm-started points that did not converge and were solved again
    // cold (SweepPoint::cold_retry), and those of them where the cold try
    // was kept.
    int num_cold_retries = 0;
    int num_cold_retries_kept = 0;
    // Which strategies produced the usable points, with counts, e.g.
    // "wc-sqp 49, wc-augmented-lagrangian 2" (StrategyType::AUTOMATIC
    // picks per point and may fall back).
    std::string strategies_used;

    // The scalarization every point used, computed once (see
    // Options::normalize_objectives), with the cost of computing it.
    Scalarization scalarization;

    // Resume: what was found in the JSON-lines file (empty when not
    // resuming), e.g. "resumed 40 points from front.jsonl; dropped a
    // truncated last line (line 41)".
    std::string resume_message;
    bool resume_dropped_truncated_line = false;
    int resume_dropped_lines = 0;

    // Empty unless writing the JSON-lines or CSV file failed (disk full, a
    // file-size limit, ...): the path and strerror. The points are in this
    // summary but the files miss some of them; nothing more was written to
    // the file that failed.
    std::string write_error;

    // The "settings" object (see Options::resume) of every point's JSON
    // line; SweepToJson adds it to every point. Kept once here, not per
    // point.
    nlohmann::json settings = nlohmann::json::object();

    // Gradient evaluations summed over the points solved by this call.
    int64_t gradient_evaluations = 0;
    double total_time_in_seconds = -1.0;

    // Worst ||K||^2 over the usable points, with the solvers' multipliers
    // and with the least-squares multipliers (-1 if no usable point).
    double worst_kkt_residual_sq = -1.0;
    double worst_kkt_residual_sq_least_squares = -1.0;

    // Indicators of the usable points (objectives as returned, unshifted):
    // hypervolume with reference_point (given or default), ideal and nadir
    // (of the exactly non-dominated points, NonDominatedIndices), and the
    // indices (into points, ascending) of the non-dominated ones by the rule
    // ecmo_plot draws with (NonDominatedWithTolerance: near-duplicates all
    // count). NaN / empty when no point is usable. The hypervolume is
    // exact unless hypervolume_estimated (BoundedHypervolume in
    // ecmo/indicators.h: many points in many objectives), when it is a
    // Monte Carlo estimate with the given standard error.
    double hypervolume = -1.0;
    bool hypervolume_estimated = false;
    double hypervolume_standard_error = 0.0;
    Eigen::VectorXd reference_point;
    Eigen::VectorXd ideal;
    Eigen::VectorXd nadir;
    std::vector<int> non_dominated;
  };
};

// Runs the sweep on evaluator instances built by `factory`, one per worker
// (the factory is called from the calling thread). Every point starts from
// the first instance's start point (or a warm start). A point_solver needs
// instances with a `problem` (FAILURE otherwise, nothing solved).
// `preferences`: as below.
void Sweep(const ParetoSweep::Options& options,
           const EvaluatorFactory& factory,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary);

// The same on one evaluator (not owned; evaluators are not thread-safe, so
// one thread: Summary::threads_message says so when more were asked for),
// starting from `start` (size evaluator->NumParameters()). The evaluator
// is used for the whole sweep; `start` is not written. No point_solver
// (it needs an ecmo::Problem).
void Sweep(const ParetoSweep::Options& options,
           Evaluator* evaluator,
           const Eigen::VectorXd& start,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary);

// Runs the sweep on instances built by `factory`, one per worker (the
// factory is called from the calling thread). `preferences` need not lie in
// the open simplex (see Options::preference_floor) but must have S finite,
// non-negative entries that are not all zero; a preference that does not is
// a FAILURE point (its summary says why).
void Sweep(const ParetoSweep::Options& options,
           const ProblemFactory& factory,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary);

// The same on one shared problem. The user's parameter blocks hold the
// start point; they are read, never written (every solution is in the
// summary), except by a point_solver, which then runs on one thread.
void Sweep(const ParetoSweep::Options& options,
           const Problem& problem,
           ThreadSafety thread_safety,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary);

// Keeps at most about max_entries entries of a solver history, spaced
// evenly in log(iteration + 1), always with the first and the last entry;
// entries are kept in order. Does nothing when the history is not longer
// than max_entries or max_entries < 2.
void ThinHistory(int max_entries, std::vector<IterationSummary>* history);

// The JSON line written for a point: SummaryToJson(point.summary,
// problem_name) with "index", "preference" (as used), "preference_given",
// "warm_start_from", "rank" (distributed sweeps only: point.rank >= 0) and
// point.extra merged in.
nlohmann::json SweepPointToJson(const SweepPoint& point,
                                const std::string& problem_name);

// A sweep's CSV: SweepCsvHeader(S, k) once, then one SweepCsvRow per point:
// the columns "index" and "warm_start_from" (-1: cold), then those of
// CsvHeader / CsvRow (ecmo/result_writer.h), "certified" among them.
std::string SweepCsvHeader(int num_objectives, int num_parameters);
std::string SweepCsvRow(const SweepPoint& point,
                        const std::string& problem_name);

// The sweep as one JSON document: {"problem", "strategy", "points": [one
// SweepPointToJson per reached point, in index order, with the
// summary's "settings"], "hypervolume", "hypervolume_estimated",
// "reference_point", "ideal", "nadir", "non_dominated" (point indices, the
// "index" field), "num_points", "num_solved", "num_resumed", "num_usable",
// "gradient_evaluations", "num_threads_given",
// "num_threads_used", "warm_start", "preference_floor",
// "changed_preferences", "worst_kkt_residual_sq",
// "worst_kkt_residual_sq_least_squares", "termination", "message",
// "wall_time_seconds"}, and "num_ranks" when the sweep was distributed
// over more than one MPI rank (absent: one process). NaN is written as
// null.
nlohmann::json SweepToJson(const ParetoSweep::Summary& summary,
                           const std::string& problem_name);

}  // namespace ecmo

#endif  // ECMO_SWEEP_H_
