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
#include <string>
#include <thread>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/internal/report.h"
#include "ecmo/problem.h"
#include "ecmo/sweep.h"
#include "nlohmann/json.hpp"
#include "sweep_io.h"

namespace ecmo {
namespace internal {

constexpr double kSweepNaN = std::numeric_limits<double>::quiet_NaN();
// Greedy nearest-neighbour walks cost O(n^2); beyond this many points the
// walk is the lexicographic order.
constexpr int kMaxGreedyWalk = 20000;

using Clock = std::chrono::steady_clock;

// nlohmann::json::dump with invalid UTF-8 replaced.
std::string Dump(const nlohmann::json& j);

// Checks a preference before the floor: size S, finite, >= 0, not all 0.
bool CheckPreference(const std::vector<double>& w,
                     int num_objectives,
                     std::string* error);

// The order in which the points are visited: a walk through the simplex.
// Points with an invalid preference (other size, non-finite) go last.
std::vector<int> Walk(const std::vector<SweepPoint>& points,
                      const std::vector<int>& todo,
                      int num_objectives);

// One worker's evaluator, for the whole sweep.
struct Worker {
  // Null when the evaluator is borrowed (Sweep on one Evaluator).
  std::unique_ptr<EvaluatorInstance> instance;
  Evaluator* evaluator = nullptr;
  // The ecmo::Problem behind the evaluator, when there is one (the
  // point_solver's argument); not owned.
  const Problem* problem = nullptr;
  Eigen::VectorXd start;
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
};

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

  void Run();

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
  void Refine();
  void SolveAndFinish(Worker* worker, int thread, SweepPoint* point);
  bool Resume();
  bool OpenOutputs();
  bool UpdateJsonlForResume();
  int StartThreads(int threads, std::vector<std::thread>* pool);
  void RecordWriteError(LineWriter* writer);
  void ChooseThreads(int num_todo);
  int NextTask(int thread);
  int NearestFinished(const std::vector<double>& preference) const;
  void WorkerLoop(int thread);
  void SolvePoint(Worker* worker,
                  SweepPoint* point,
                  const Eigen::VectorXd& z0,
                  const Solver::Options::WarmStart* warm);
  bool WarmStartFrom(const Solver::Summary& from,
                     Solver::Options::WarmStart* warm) const;
  bool SecantStep(const std::vector<double>& preference,
                  int from,
                  int before,
                  double* t) const;
  bool UsableStart(Worker* worker, const Eigen::VectorXd& z) const;
  void Finish(SweepPoint* point);
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
  std::vector<int> walk_;
  struct Chunk {
    int lo = 0;
    int hi = 0;
    bool forward = true;
  };
  std::vector<Chunk> chunks_;
  std::vector<int> chunk_of_thread_;
  int num_finished_ = 0;  // solved by this call
  int num_todo_ = 0;
  double worst_kkt_ = -1.0;
  bool progress_printed_ = false;
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_SWEEP_RUNNER_H_
