// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the runner behind ecmo::Sweep (ecmo/sweep.h).
//
// One SweepRunner per call. Its methods live in one file per
// responsibility:
//   sweep_runner.cc     preparation, the scalarization, resume and outputs;
//   sweep_scheduler.cc  threads, the walk, warm starts, progress and Run;
//   sweep_refine.cc     the sweep's summary and the front refinement;
//   sweep.cc            Options::IsValid and the public entry points;
//   sweep_report.cc     Summary::BriefReport / FullReport.

#ifndef ECMO_INTERNAL_SWEEP_RUNNER_H_
#define ECMO_INTERNAL_SWEEP_RUNNER_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/internal/report.h"
#include "ecmo/problem.h"
#include "ecmo/sweep.h"
#include "nlohmann/json.hpp"
#include "sweep_cold_check.h"
#include "sweep_io.h"
#include "sweep_neighbours.h"
#include "worker_thread.h"

namespace ecmo {
namespace internal {

using Clock = std::chrono::steady_clock;

// Checks a preference before the floor: size S, finite, >= 0, not all 0.
bool CheckPreference(const std::vector<double>& w,
                     int num_objectives,
                     std::string* error);

// The order in which the points are visited: a walk through the simplex.
// Points with an invalid preference (other size, non-finite) go last.
std::vector<int> Walk(const std::vector<SweepPoint>& points,
                      const std::vector<int>& todo,
                      int num_objectives);

// Solves a point somewhere else (another MPI rank, ecmo/sweep_mpi.h):
// gets the point (index, preferences, warm_start_from set), its start z0,
// the secant prediction (empty when there is none; used only if the
// problem evaluates there), the warm start (null: none) and the finished
// point it came from (null: none), exactly what SweepRunner::SolveTask
// gets; fills point->summary, extra, thread, rank and warm_start_from (a
// cold retry resets it), with the history thinned. Blocks until done.
// Must not throw.
using RemoteSolve = std::function<void(SweepPoint* point,
                                       const Eigen::VectorXd& z0,
                                       const Eigen::VectorXd& z_predicted,
                                       const Solver::Options::WarmStart* warm,
                                       const SweepPoint* source)>;

// One worker's evaluator, for the whole sweep.
struct Worker {
  // Null when the evaluator is borrowed (Sweep on one Evaluator).
  std::unique_ptr<EvaluatorInstance> instance;
  Evaluator* evaluator = nullptr;
  // The ecmo::Problem behind the evaluator, when there is one (the
  // point_solver's argument); not owned.
  const Problem* problem = nullptr;
  Eigen::VectorXd start;
  // Distributed sweeps: the MPI rank this worker solves on (copied into
  // SweepPoint::rank); -1 in a single-process sweep.
  int rank = -1;
  // Distributed sweeps: set for a worker that hands its points to another
  // rank; such a worker has no evaluator (worker 0 never is one).
  RemoteSolve remote;
  // This worker's copy of the sweep's solver options, made on the
  // worker's own thread at its first point and then only given each
  // point's warm start (the user's for a cold point). Its scalarization is
  // a private copy of the sweep's too. Why per worker: a copy of the whole
  // Options per point was a tenth of a small problem's sweep in
  // allocations, and with one Options and one Scalarization read by every
  // thread, two-thread sweeps were 0-2% slower at k = 10 and 100
  // (benchmarks/README.md, "Per-worker solver options").
  std::unique_ptr<Solver::Options> options;
  // The point's iterate and UsableStart's values, kept across this
  // worker's points so that their storage is reused.
  Eigen::VectorXd z, f, h;
  // Storage of the checks that compare a warm point with a cold solve.
  ColdCheckScratch cold_check;
};

// Where the workers come from: every public Sweep overload is one of these
// (sweep.cc), so there is one runner for every kind of problem.
struct WorkerSource {
  // Builds worker number `index` (0-based; called from the calling thread,
  // in order). False with *error when it cannot.
  std::function<bool(int index, Worker* worker, std::string* error)> build;
  // At most this many workers, and why (empty: no limit but the options').
  int max_threads = std::numeric_limits<int>::max();
  std::string max_threads_reason;
  // False: workers after the first are built only once the sweep is
  // prepared (its scalarization computed), for a source that hands them
  // the scalarization (the distributed sweep's remote workers). True lets
  // the runner build them earlier, to share the scalarization's
  // single-objective solves among them.
  bool build_during_preparation = true;
};

// Workers from a factory of evaluator instances, one each (the factory
// must outlive the source).
WorkerSource FactorySource(const EvaluatorFactory& factory);

class SweepRunner {
 public:
  SweepRunner(const ParetoSweep::Options& options,
              WorkerSource source,
              const std::vector<std::vector<double>>& preferences,
              ParetoSweep::Summary* summary)
      : options_(options),
        source_(std::move(source)),
        preferences_(preferences),
        summary_(summary) {}
  // Sends home the helpers still at the gate when Run is left by an
  // exception (from the user's factory, say), before team_ joins them.
  ~SweepRunner() { gate_.Open(0); }

  void Run();

  // Distributed sweeps (ecmo/sweep_mpi.h), on a rank that solves points
  // handed to it instead of running the sweep: checks the options, builds
  // up to `threads` workers (at least one) and prepares the solver options
  // as Run would. Options::solver.scalarization must hold the sweep's
  // scalarization (computed once, by the coordinator). Returns the number
  // of workers built, 0 on failure with *error.
  int PrepareToServe(int threads, std::string* error);
  // Solves one point on worker `thread` as a single-process sweep does:
  // the start z0, or z_predicted when the problem evaluates there, the
  // warm start (null: none), a cold retry when a warm start does not
  // converge or may have kept its source's point (sweep_cold_check.h),
  // then the history thinned. `source`: the finished point the warm start
  // came from (its preference and objectives are read), or null.
  // Thread-safe across threads.
  void SolveTask(int thread,
                 SweepPoint* point,
                 const Eigen::VectorXd& z0,
                 const Eigen::VectorXd& z_predicted,
                 const Solver::Options::WarmStart* warm,
                 const SweepPoint* source);

 private:
  bool Fail(const std::string& message) {
    summary_->termination_type = ceres::FAILURE;
    summary_->message = message;
    summary_->total_time_in_seconds = timer_.Seconds();
    return false;
  }
  bool Prepare();
  bool AddWorker(std::string* error);
  bool PrepareScalarization();
  // The most points refinement may bring the sweep to (Options::refine_to;
  // 2 P - 1 for kRefineWhereNeeded, P the preferences given).
  int RefinementCap() const;
  void Refine();
  bool Resume();
  bool OpenOutputs();
  bool UpdateJsonlForResume();
  int WakeHelpers();
  int StartHelpers(int threads, int woken);
  void RecordWriteError(LineWriter* writer);
  void ChooseThreads(int num_todo);
  int NextTask(int thread);
  int NearestFinished(const std::vector<double>& preference) const;
  void WorkerLoop(int thread);
  // After the workers: solves, on the calling thread, the points they
  // left unfinished after std::bad_alloc (not in a distributed sweep, nor
  // after a callback stopped it).
  void SolveLeftOverPoints();
  // A point a worker has taken, and the finished points its start comes
  // from (-1: none).
  struct Claimed {
    SweepPoint* point = nullptr;
    int position = -1;  // in walk_: where to put the point back
    // Recorded as a FAILURE after std::bad_alloc: finish, do not solve.
    bool out_of_memory = false;
    // Solved again once, by the last active thread, after the idle
    // threads' stacks were given back (WorkerLoop).
    bool retried_after_trim = false;
    int from = -1;    // the nearest finished point: z, multipliers
    int before = -1;  // the point `from` started from: the secant step
  };
  bool Claim(int thread, Claimed* claimed);
  // After std::bad_alloc while holding `claimed` (point null: none): false
  // when the thread handed the point back to a thread still claiming
  // points and must stop; true when it was the last one and recorded the
  // point as a FAILURE instead.
  bool OutOfMemory(int thread, const Claimed& claimed);
  // WorkerLoop's points: *claimed (if any), then every point Claim gives;
  // *claimed is the point in hand when an exception leaves it.
  void SolveClaimedPoints(int thread, Claimed* claimed);
  std::set<std::pair<int, int>> ResumedRefinementPairs() const;
  // A point's start, kept by its worker from point to point (same-sized
  // assignments reuse their storage).
  struct Start {
    Eigen::VectorXd z0;
    bool have_warm = false;
    Solver::Options::WarmStart warm, warm_before;
    bool predicted = false;
    Eigen::VectorXd prediction;
  };
  void StartFrom(const Claimed& claimed, Start* start) const;
  // The worker's own copy of the solver options (Worker::options), made
  // on first use; called on the worker's thread.
  Solver::Options& WorkerOptions(Worker* worker) const;
  void SolvePoint(Worker* worker,
                  SweepPoint* point,
                  const Eigen::VectorXd& z0,
                  const Solver::Options::WarmStart* warm,
                  const SweepPoint* source);
  bool WarmStartFrom(const Solver::Summary& from,
                     Solver::Options::WarmStart* warm) const;
  bool SecantStep(const std::vector<double>& preference,
                  int from,
                  int before,
                  double* t) const;
  bool UsableStart(Worker* worker, const Eigen::VectorXd& z) const;
  std::string ColdCheckReason(Worker* worker,
                              const SweepPoint& point,
                              const Solver::Summary& summary,
                              const SweepPoint* source) const;
  void RecordIfUsable(const SweepPoint& point);
  // A finished point's JSON line and CSV row (each empty when its file is
  // not written), built outside the lock.
  struct PointLines {
    std::string jsonl;
    std::string csv;
  };
  void FormatLines(const SweepPoint& point, PointLines* lines) const;
  // Drops what a finished point does not keep.
  void Trim(SweepPoint* point) const;
  // Marks the point solved, writes its lines, calls the callbacks, and
  // (when `trim`) keeps what a finished point keeps. Called with mutex_
  // held.
  void Finish(SweepPoint* point, const PointLines& lines, bool trim = true);
  void ProgressLoop();
  std::string ProgressLine() const;
  void Summarize();

  const ParetoSweep::Options& options_;
  const WorkerSource source_;
  const std::vector<std::vector<double>>& preferences_;
  ParetoSweep::Summary* summary_;

  Clock::time_point start_ = Clock::now();
  WallTimer timer_;
  Solver::Options solver_options_;
  // Options::preference_floor, raised to m / (1 + m) with the automatic
  // normalized scalarization (m its utopia margin): see sweep.h.
  double preference_floor_ = kDefaultPreferenceFloor;
  std::vector<Worker> workers_;
  int num_objectives_ = 0;
  int num_parameters_ = 0;
  int num_constraints_ = 0;
  Eigen::VectorXd start_point_;

  LineWriter jsonl_;
  LineWriter csv_;
  std::string write_error_;
  // What SweepSettings records in every JSON line.
  nlohmann::json settings_;
  ResumeContents resume_;

  // Shared state, guarded by mutex_.
  mutable std::mutex mutex_;
  std::condition_variable progress_cv_;
  bool finished_ = false;
  bool stop_ = false;
  TerminationType stop_type_ = ceres::CONVERGENCE;
  std::vector<char> done_;  // finished with a usable z (warm start source)
  // The preferences of the done_ points, for NearestFinished (created by Run).
  std::unique_ptr<PreferenceIndex> neighbours_;
  std::vector<int> walk_;
  struct Chunk {
    int lo = 0;
    int hi = 0;
    bool forward = true;
  };
  std::vector<Chunk> chunks_;
  std::vector<int> chunk_of_thread_;
  // Helper threads that ran out of memory (std::bad_alloc) and stopped,
  // handing their point back.
  int num_threads_out_of_memory_ = 0;
  // Threads in WorkerLoop that may still claim points (under mutex_): a
  // point handed back after std::bad_alloc needs one.
  int num_active_threads_ = 0;
  int num_finished_ = 0;  // solved by this call
  int num_todo_ = 0;
  double worst_kkt_ = -1.0;
  bool progress_printed_ = false;
  // Where the helpers, woken at the start of Run, wait for the walk.
  Gate gate_;
  int num_early_ = 0;  // how many WakeHelpers meant to wake
  int num_woken_ = 0;  // and woke: helpers 1 .. num_woken_ are at gate_
  // The helper threads (worker 0 is the caller): those woken early (one
  // per other CPU) and any beyond them. Last: destroyed first, so no
  // helper outlives the members it uses.
  WorkerTeam team_;
  WorkerTeam late_team_;
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_SWEEP_RUNNER_H_
