// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// SweepRunner: threads, the walk through the simplex, warm starts,
// progress and Run (see sweep_runner.h).

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

#include "ecmo/indicators.h"
#include "ecmo/result_writer.h"
#include "front_refinement.h"
#include "sweep_cold_check.h"
#include "sweep_runner.h"

namespace ecmo {
namespace internal {

// Wakes, before anything is prepared, the helpers the sweep will likely
// use, one per other CPU: they wait at gate_ until the walk is ready (see
// Gate). At most as many as ChooseThreads can choose (one per point, the
// source's limit); those it does not choose return at the gate. Returns
// how many were started.
int SweepRunner::WakeHelpers() {
  num_early_ = std::min({options_.num_threads,
                         static_cast<int>(preferences_.size()),
                         source_.max_threads,
                         UsableCpus()}) -
               1;
  if (num_early_ <= 0) return 0;
  num_woken_ = team_.Start(1, num_early_ + 1, [this](int t) {
    if (gate_.Wait(t)) WorkerLoop(t);
  });
  return num_woken_;
}

// Starts the helpers of `threads` (ChooseThreads' choice) beyond the
// `woken` early ones, and returns how many threads run (fewer, with the
// reason in the summary, when the system refuses threads; the chunks of
// the missing ones are then taken by the others).
int SweepRunner::StartHelpers(int threads, int woken) {
  int running = 1 + std::min(woken, threads - 1);
  if (threads > num_early_ + 1 && woken == num_early_) {
    running += late_team_.Start(
        num_early_ + 1, threads, [this](int t) { WorkerLoop(t); });
  }
  if (running < threads) {
    std::lock_guard<std::mutex> lock(mutex_);
    summary_->num_threads_used = running;
    summary_->threads_message =
        "could create only " + std::to_string(running) + " of " +
        std::to_string(threads) +
        " threads; lower num_threads or raise the memory / process limits";
  }
  return running;
}

void SweepRunner::ChooseThreads(int num_todo) {
  const int given = options_.num_threads;
  int used = std::max(1, std::min(given, num_todo));
  std::string why;
  if (used < given) {
    why = "only " + std::to_string(num_todo) + " point(s) to solve";
  }
  if (used > source_.max_threads) {
    used = std::max(1, source_.max_threads);
    why = source_.max_threads_reason;
  }
  while (static_cast<int>(workers_.size()) < used) {
    std::string error;
    bool added = false;
    try {
      added = AddWorker(&error);
    } catch (const std::bad_alloc&) {
      error = "out of memory (std::bad_alloc)";
    }
    if (!added) {
      used = static_cast<int>(workers_.size());
      why = "the factory failed to build instance " +
            std::to_string(workers_.size()) + ": " + error;
      break;
    }
  }
  summary_->num_threads_used = used;
  summary_->threads_message = why;
}

// Next walk position for `thread`, or -1 when there is no work left.
int SweepRunner::NextTask(int thread) {
  if (stop_) return -1;
  Chunk* own = &chunks_[chunk_of_thread_[thread]];
  if (own->lo < own->hi) return own->forward ? own->lo++ : --own->hi;
  // Steal from the largest remaining chunk the half farthest from its
  // owner's cursor, and walk it towards the owner.
  int victim = -1;
  for (size_t c = 0; c < chunks_.size(); ++c) {
    const int size = chunks_[c].hi - chunks_[c].lo;
    if (size > 0 &&
        (victim < 0 || size > chunks_[victim].hi - chunks_[victim].lo)) {
      victim = static_cast<int>(c);
    }
  }
  if (victim < 0) return -1;
  Chunk& v = chunks_[victim];
  const int size = v.hi - v.lo;
  // The last point goes to whoever asks, even when its owner has not
  // started: leaving it would make the sweep wait for a thread that may be
  // descheduled, and the thief starts it warm from its own last point.
  if (size == 1) return v.forward ? v.lo++ : --v.hi;
  Chunk stolen, kept = v;
  if (v.forward) {
    const int mid = v.lo + (size + 1) / 2;
    stolen = {mid, v.hi, /*forward=*/false};
    kept.hi = mid;
  } else {
    const int mid = v.lo + size / 2;
    stolen = {v.lo, mid, /*forward=*/true};
    kept.lo = mid;
  }
  // The new chunk first: if it cannot be stored (std::bad_alloc), the
  // victim keeps all its points.
  chunks_.push_back(stolen);
  chunks_[victim] = kept;
  chunk_of_thread_[thread] = static_cast<int>(chunks_.size()) - 1;
  Chunk& mine = chunks_.back();
  return mine.forward ? mine.lo++ : --mine.hi;
}

int SweepRunner::NearestFinished(const std::vector<double>& preference) const {
  return neighbours_ == nullptr ? -1 : neighbours_->Nearest(preference);
}

// The neighbour's final multipliers and penalties as a warm start (see
// Solver::Options::warm_start). Entries the neighbour does not have (sizes
// that do not match, a strategy without penalties) are left cold. False
// when nothing could be taken.
bool SweepRunner::WarmStartFrom(const Solver::Summary& from,
                                Solver::Options::WarmStart* warm) const {
  // Filled in place: the worker's warm start keeps its storage from point
  // to point (a fresh one per point freed it and allocated it again).
  auto leave_cold = [warm]() {
    warm->omega.resize(0);
    warm->nu.resize(0);
    warm->preference.clear();
    warm->penalty_u = 0.0;
    warm->penalty_v = 0.0;
  };
  // Only the augmented Lagrangian continues well from where the neighbour
  // ended: the pure penalty's final u is the end of its penalty path (often
  // near max_penalty), and starting there leaves it neither room to grow
  // nor two penalties to extrapolate from (measured: 1.6x the gradient
  // evaluations of cold starts on gebken_circle, and unconverged points).
  // The faithful strategy has no use for the block. WC_SQP takes the
  // multipliers (its first exact Hessian of the Lagrangian needs them).
  if (from.strategy != StrategyType::WC_AUGMENTED_LAGRANGIAN &&
      from.strategy != StrategyType::WC_NEWTON &&
      from.strategy != StrategyType::WC_SQP) {
    leave_cold();
    return false;
  }
  const KktMultipliers& m = from.kkt.solver_multipliers;
  const bool omega_ok = m.omega.size() == num_objectives_ &&
                        m.omega.allFinite() && (m.omega.array() >= 0.0).all();
  const bool nu_ok = (m.nu.size() == num_constraints_ && m.nu.allFinite()) ||
                     (num_constraints_ == 0 && m.nu.size() == 0);
  if (omega_ok && nu_ok) {
    warm->omega = m.omega;
    if (num_constraints_ > 0) {
      warm->nu = m.nu;
    } else {
      warm->nu.resize(0);
    }
    // The multipliers belong to the neighbour's preference (valid: its
    // Solve checked it before finding them); Solve carries them over.
    warm->preference = from.preference;
  } else {
    leave_cold();
  }
  auto penalty = [](double p) { return std::isfinite(p) && p > 0.0 ? p : 0.0; };
  warm->penalty_u = penalty(from.penalty_u);
  warm->penalty_v = penalty(from.penalty_v);
  return warm->IsSet();
}

// Secant continuation: when the preference continues the line from point
// `before` through point `from` (within 10% of the step, at most two steps
// on), *t is how many steps of before -> from it lies beyond `from`.
bool SweepRunner::SecantStep(const std::vector<double>& preference,
                             int from,
                             int before,
                             double* t) const {
  const std::vector<double>& a = summary_->points[from].preference;
  const std::vector<double>& b = summary_->points[before].preference;
  if (a.size() != preference.size() || b.size() != preference.size()) {
    return false;
  }
  const int S = static_cast<int>(preference.size());
  const Eigen::Map<const Eigen::VectorXd> la(a.data(), S), lb(b.data(), S),
      l(preference.data(), S);
  // Expressions, not vectors: nothing to allocate for a few numbers.
  const auto d = la - lb;
  const auto e = l - la;
  const double d_sq = d.squaredNorm();
  if (d_sq <= 0.0 || e.squaredNorm() <= 0.0) return false;
  *t = e.dot(d) / d_sq;
  return *t > 0.0 && *t <= 2.0 && (e - *t * d).norm() <= 0.1 * e.norm();
}

// A predicted start point is used only if the problem evaluates there with
// finite values and positive shifted objectives (one value evaluation, not
// counted in the point's work).
bool SweepRunner::UsableStart(Worker* worker, const Eigen::VectorXd& z) const {
  if (!z.allFinite()) return false;
  Eigen::VectorXd& f = worker->f;
  Eigen::VectorXd& h = worker->h;
  f.resize(num_objectives_);
  h.resize(num_constraints_);
  std::string error;
  if (!worker->evaluator->Evaluate(
          z.data(), f.data(), h.data(), nullptr, &error)) {
    return false;
  }
  return f.allFinite() && h.allFinite();
}

Solver::Options& SweepRunner::WorkerOptions(Worker* worker) const {
  if (worker->options == nullptr) {
    worker->options = std::make_unique<Solver::Options>(solver_options_);
    if (solver_options_.scalarization != nullptr) {
      worker->options->scalarization =
          std::make_shared<const Scalarization>(*solver_options_.scalarization);
    }
  }
  return *worker->options;
}

void SweepRunner::SolvePoint(Worker* worker,
                             SweepPoint* point,
                             const Eigen::VectorXd& z0,
                             const Solver::Options::WarmStart* warm,
                             const SweepPoint* source) {
  // The sweep's solver options, with the neighbour's multipliers and
  // penalties when warm-starting (cold points keep the user's
  // Options::solver.warm_start, as ecmo/sweep.h says).
  Solver::Options& options = WorkerOptions(worker);
  options.warm_start = warm != nullptr ? *warm : solver_options_.warm_start;
  Solver::Summary& summary = point->summary;
  std::string error;
  if (!CheckPreference(point->preference_given, num_objectives_, &error)) {
    summary = Solver::Summary();
    summary.strategy = solver_options_.strategy;
    summary.preference = point->preference_given;
    summary.termination_type = ceres::FAILURE;
    summary.message = "Invalid preference: " + error;
    return;
  }
  if (options_.point_solver) {
    worker->problem->SetParameters(z0.data());
    options_.point_solver(
        options, *worker->problem, point->preference, &summary, &point->extra);
    if (!point->extra.is_object()) point->extra = nlohmann::json::object();
    return;
  }
  Eigen::VectorXd& z = worker->z;
  z = z0;
  Solve(options, worker->evaluator, point->preference, &z, &summary);
  // Sets the point's flag from its summary (`spurious` says why).
  std::string spurious;
  const auto flag = [&] {
    point->possibly_spurious_end =
        summary.termination_type == ceres::CONVERGENCE &&
        SpuriousEnd(summary, point->preference, &spurious);
    return point->possibly_spurious_end;
  };
  // The flag the kept point ends with, said in its message.
  const auto say_flag = [&] {
    if (point->possibly_spurious_end) {
      summary.message += " (Possibly a spurious end: " + spurious + ".)";
    }
  };
  const bool was_spurious = flag();
  // Why this certified warm point is compared with a cold solve (empty:
  // it is not); the checks' evaluations are the point's work.
  std::string check;
  if (warm != nullptr && summary.termination_type == ceres::CONVERGENCE) {
    const EvaluationCounts before = worker->evaluator->counts();
    if (was_spurious) {
      check = spurious;
    } else if (options_.cold_checks) {
      check = ColdCheckReason(worker, *point, summary, source);
    }
    summary.evaluations += worker->evaluator->counts() - before;
  }
  if (warm == nullptr ||
      (summary.termination_type == ceres::CONVERGENCE && check.empty())) {
    say_flag();
    return;
  }
  // Retry from the problem's start, for one of two reasons:
  //   - a warm start can inherit a neighbour's saturated region or
  //     penalties and end worse than a cold start would: keep the better
  //     of the two (ColdRetryIsBetter: converged first, then feasible,
  //     then the smaller WC value);
  //   - a certified warm point that may be KKT for more preferences than
  //     its own (sweep_cold_check.h: an end where every objective is
  //     stationary, a point equal to its source, a saturated region)
  //     keeps the neighbour's point where a cold start finds a smaller WC
  //     value: keep the smaller WC value.
  // The message says which; the work of both solves is the point's.
  Solver::Summary cold;
  Eigen::VectorXd z_cold = start_point_;
  options.warm_start = solver_options_.warm_start;
  Solve(options, worker->evaluator, point->preference, &z_cold, &cold);
  bool cold_better;
  std::string note;
  if (!check.empty()) {
    point->cold_check = check;
    const double warm_value = summary.WcValue();
    const double cold_value = cold.WcValue();
    cold_better = ColdSolveBeatsFlaggedPoint(options, summary, cold);
    const std::string from = std::to_string(point->warm_start_from);
    // The cold point may be uncertified: it is still the better point of
    // the WC problem, and its termination says it is not certified.
    const std::string uncertified =
        cold.termination_type == ceres::CONVERGENCE
            ? std::string()
            : std::string("; the cold solve ended ") +
                  TerminationTypeName(cold.termination_type) +
                  " at the smaller WC value " +
                  FormatScientific(cold_value, 6) +
                  " (the warm point's: " + FormatScientific(warm_value, 6) +
                  ")";
    if (was_spurious) {
      note = cold_better ? " (Solved cold: the warm start from point " + from +
                               " ended at " + spurious + uncertified + ".)"
                         : " (Possibly a spurious end: " + spurious +
                               "; a cold retry did no better.)";
    } else {
      note =
          cold_better
              ? " (Solved cold: the warm start from point " + from +
                    " ended with " + check + "; the cold solve's WC value " +
                    FormatScientific(cold_value, 6) + " is below its " +
                    FormatScientific(warm_value, 6) +
                    (cold.termination_type == ceres::CONVERGENCE
                         ? std::string()
                         : ", though the cold solve ended " +
                               std::string(TerminationTypeName(
                                   cold.termination_type))) +
                    ".)"
              : " (Compared with a cold solve, which did no better: " + check +
                    ".)";
    }
  } else {
    point->cold_retry = true;
    cold_better = ColdRetryIsBetter(options, summary, cold);
    const std::string values = cold.termination_type == ceres::CONVERGENCE
                                   ? std::string()
                                   : " at WC value " +
                                         FormatScientific(cold.WcValue(), 6) +
                                         " against the warm start's " +
                                         FormatScientific(summary.WcValue(), 6);
    note = cold_better
               ? " (Solved cold after the warm start from point " +
                     std::to_string(point->warm_start_from) + " ended " +
                     TerminationTypeName(summary.termination_type) +
                     "; the cold solve ended " +
                     TerminationTypeName(cold.termination_type) + values + ".)"
               : std::string(" (A cold retry did no better: it ended ") +
                     TerminationTypeName(cold.termination_type) + values + ".)";
  }
  if (!cold_better) {
    summary.evaluations += cold.evaluations;
    summary.message += note;
    return;
  }
  const EvaluationCounts warm_counts = summary.evaluations;
  summary = std::move(cold);
  summary.evaluations += warm_counts;
  summary.message += note;
  point->warm_start_from = -1;
  flag();
  say_flag();
}

// Why the certified warm point `summary` should be compared with a cold
// solve (sweep_cold_check.h), or empty. SpuriousEnd is checked by the
// caller.
std::string SweepRunner::ColdCheckReason(Worker* worker,
                                         const SweepPoint& point,
                                         const Solver::Summary& summary,
                                         const SweepPoint* source) const {
  if (source != nullptr &&
      CollapsedOntoSource(
          summary, point.preference, source->summary, source->preference)) {
    return "the objectives of point " + std::to_string(source->index) +
           " at another preference (a point that is KKT for both)";
  }
  std::string why;
  if (SaturatedCoordinates(worker->evaluator,
                           summary,
                           point.preference,
                           start_point_,
                           solver_options_.feasibility_tolerance,
                           &worker->cold_check,
                           &why)) {
    return why;
  }
  return std::string();
}

// A finished or resumed point with a usable z becomes a warm-start source
// and counts towards the progress line's worst ||K||^2.
void SweepRunner::RecordIfUsable(const SweepPoint& point) {
  const Solver::Summary& s = point.summary;
  if (!s.IsSolutionUsable() || s.z.size() != num_parameters_) return;
  done_[point.index] = 1;
  neighbours_->Add(point.index, point.preference);
  worst_kkt_ =
      std::max(worst_kkt_, s.kkt.with_solver_multipliers.SquaredNorm());
}

// Serializing a point takes longer than all the rest of its bookkeeping:
// it is done before the lock is taken. Decided by the paths (fixed for the
// whole sweep), not by the files' state, which a write error changes
// under the lock.
void SweepRunner::FormatLines(const SweepPoint& point,
                              PointLines* lines) const {
  if (!options_.jsonl_path.empty()) {
    // The options that computed the point travel with its line, so that a
    // resume with other options refuses it (in memory they are kept once,
    // in Summary::settings).
    nlohmann::json line = SweepPointToJson(point, options_.problem_name);
    line["settings"] = settings_;
    lines->jsonl = Dump(line) + "\n";
  }
  if (!options_.csv_path.empty()) {
    lines->csv = SweepCsvRow(point, options_.problem_name) + "\n";
  }
}

// What a finished point keeps once it has been written and seen by the
// callbacks: the history only when asked for (memory per finished point
// O(1), ParetoSweep::Options::keep_history), and the KKT blocks as norms
// (as a resumed point has them): k-sized vectors kept per finished point
// were most of a large sweep's memory, and their storage, freed here,
// serves the next point's solve.
void SweepRunner::Trim(SweepPoint* point) const {
  if (!options_.keep_history) DropHistory(&point->summary);
  point->summary.kkt.with_solver_multipliers.KeepNormsOnly();
  point->summary.kkt.with_least_squares_multipliers.KeepNormsOnly();
}

void SweepRunner::Finish(SweepPoint* point,
                         const PointLines& lines,
                         bool trim) {
  // Called with mutex_ held.
  point->status = SweepPoint::SOLVED;
  RecordIfUsable(*point);
  ++num_finished_;
  if (jsonl_.is_open() && !jsonl_.Write(lines.jsonl)) {
    RecordWriteError(&jsonl_);
  }
  if (csv_.is_open() && !csv_.Write(lines.csv)) RecordWriteError(&csv_);
  for (SweepCallback* callback : options_.callbacks) {
    const CallbackReturnType r = (*callback)(*point);
    if (r == ceres::SOLVER_ABORT && !stop_) {
      stop_ = true;
      stop_type_ = ceres::USER_FAILURE;
    } else if (r == ceres::SOLVER_TERMINATE_SUCCESSFULLY && !stop_) {
      stop_ = true;
      stop_type_ = ceres::USER_SUCCESS;
    }
  }
  if (trim) Trim(point);
}

// Called with mutex_ held: the thread's next point and the finished points
// its start comes from. False when there is no work left.
bool SweepRunner::Claim(int thread, Claimed* claimed) {
  const int position = NextTask(thread);
  if (position < 0) return false;
  *claimed = Claimed();
  claimed->point = &summary_->points[walk_[position]];
  claimed->position = position;
  if (!options_.warm_start) return true;
  claimed->from = NearestFinished(claimed->point->preference);
  if (claimed->from < 0) return true;
  claimed->point->warm_start_from = claimed->from;
  // The point `from` itself started from, for the secant continuation.
  const int before = summary_->points[claimed->from].warm_start_from;
  if (before >= 0 && before < static_cast<int>(done_.size()) &&
      before != claimed->from && done_[before]) {
    claimed->before = before;
  }
  return true;
}

// Outside the lock: the claimed point's start (z0, *warm and the secant
// prediction) from its finished neighbours. Finished points do not change
// while the workers run, and the claim saw them finished under the lock.
void SweepRunner::StartFrom(const Claimed& claimed, Start* start) const {
  start->z0 = start_point_;
  start->have_warm = false;
  start->predicted = false;
  if (claimed.from < 0) return;
  const SweepPoint& point = *claimed.point;
  const Solver::Summary& from = summary_->points[claimed.from].summary;
  start->z0 = from.z;
  start->have_warm = WarmStartFrom(from, &start->warm);
  // Secant continuation through the point `from` itself started from,
  // when the new preference continues that line: the prediction error
  // drops from O(step) to O(step^2).
  double t = 0.0;
  if (!start->have_warm || claimed.before < 0 ||
      !SecantStep(point.preference, claimed.from, claimed.before, &t)) {
    return;
  }
  const Solver::Summary& b = summary_->points[claimed.before].summary;
  Solver::Options::WarmStart& warm = start->warm;
  Solver::Options::WarmStart& wb = start->warm_before;
  if (WarmStartFrom(b, &wb) && warm.omega.size() > 0 &&
      wb.omega.size() == warm.omega.size() && wb.nu.size() == warm.nu.size()) {
    warm.omega = (warm.omega + t * (warm.omega - wb.omega)).cwiseMax(0.0);
    warm.nu += t * (warm.nu - wb.nu);
  }
  // (A worker solving on another rank has no evaluator here; every
  // instance has worker 0's manifold.)
  if (b.z.size() == start->z0.size() &&
      workers_[0].evaluator->manifold() == nullptr) {
    start->prediction = start->z0 + t * (start->z0 - b.z);
    // The secant may leave the box; user functions are never evaluated
    // outside it (Solve would project the start too, but UsableStart
    // evaluates it first).
    workers_[0].evaluator->ProjectOntoBounds(start->prediction.data());
    start->predicted = true;
  }
}

void SweepRunner::WorkerLoop(int thread) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++num_active_threads_;
  }
  Claimed claimed;
  for (;;) {
    try {
      SolveClaimedPoints(thread, &claimed);
      return;  // it left the active count when Claim found no work
    } catch (const std::bad_alloc&) {
      // Out of memory (a process limit, or the stacks of many threads):
      // the thread hands its point back to the threads still working and
      // stops, as when the system refuses a thread; the last one gives the
      // stacks of the threads that stopped back and solves its point once
      // more (a sweep under ulimit -v with 1,000 threads asked for ended
      // one point in about 250 FAILURE, exit 1, without this), then
      // records the point as a FAILURE and goes on.
      if (claimed.point != nullptr && !claimed.out_of_memory &&
          !claimed.retried_after_trim) {
        bool last = false;
        {
          const std::unique_lock<std::mutex> lock = LockBriefly(&mutex_);
          last = num_active_threads_ == 1;
        }
        if (last) {
          claimed.retried_after_trim = true;
          try {
            TrimIdleWorkerThreads(UsableCpus());
          } catch (const std::system_error&) {
            // Joining failed: solve again with what there is.
          }
          continue;
        }
      }
      // Out of memory again while finishing a point already recorded as a
      // FAILURE (a callback or the lines that allocate every time), or
      // while recording it: stop here rather than loop, and leave the
      // point to SolveLeftOverPoints.
      bool recorded = false;
      if (!claimed.out_of_memory) {
        try {
          if (!OutOfMemory(thread, claimed)) return;
          recorded = true;
        } catch (const std::bad_alloc&) {
        }
      }
      if (!recorded) {
        const std::unique_lock<std::mutex> lock = LockBriefly(&mutex_);
        ++num_threads_out_of_memory_;
        --num_active_threads_;
        return;
      }
      claimed.out_of_memory = true;
    }
  }
}

// A point can leave the workers unfinished only through std::bad_alloc:
// the last working thread could not record it as a FAILURE (the summary's
// message allocates), or the recording itself ran out of memory (1999 of
// 2000 points finished, exit 1, in about 1 run of 100 of the
// thread-creation test under ulimit -v). With every helper joined and the
// idle threads' stacks given back, the calling thread solves such points
// once more, with the same out-of-memory handling; a point that fails
// even then stays NOT_SOLVED, which the summary counts. Not in a
// distributed sweep: a point is left there when its rank died, and the
// resume solves it.
void SweepRunner::SolveLeftOverPoints() {
  if (stop_) return;
  for (const Worker& worker : workers_) {
    if (worker.remote) return;
  }
  // Every chunk is empty now: their storage (reserved for one chunk per
  // point) holds the left-over positions without allocating.
  chunks_.clear();
  for (int position = 0; position < static_cast<int>(walk_.size());
       ++position) {
    if (summary_->points[walk_[position]].status == SweepPoint::NOT_SOLVED) {
      chunks_.push_back({position, position + 1, true});
    }
  }
  if (chunks_.empty()) return;
  chunk_of_thread_[0] = 0;
  num_active_threads_ = 0;
  WorkerLoop(0);
}

void SweepRunner::SolveClaimedPoints(int thread, Claimed* claimed) {
  Worker* worker = &workers_[thread];
  // Kept across this thread's points: same-sized assignments reuse their
  // storage (with WarmStartFrom's and UsableStart's, fresh ones per point
  // were a tenth of a k = 10 sweep's heap allocations).
  Start start;
  const Eigen::VectorXd no_prediction;
  // The lock is held only to pick the point and to record it: copying the
  // neighbours' vectors under it, and freeing a finished point's
  // k-vectors, made the other thread wait on each point of a short sweep.
  // Recording a point and picking the next are one critical section: each
  // lock moves the mutex and the shared bookkeeping (the chunks, done_,
  // the neighbour index) from the other thread's CPU to this one. (Time
  // under the lock per point, k = 10, two threads: 0.30 / 0.23 us against
  // 0.36 / 0.26 us with a lock each; more threads contend more.)
  const bool trim_before_lock = options_.callbacks.empty();
  if (claimed->point == nullptr) {
    const std::unique_lock<std::mutex> lock = LockBriefly(&mutex_);
    if (!Claim(thread, claimed)) {
      --num_active_threads_;
      return;
    }
  }
  while (true) {
    SweepPoint* point = claimed->point;
    if (!claimed->out_of_memory) {
      StartFrom(*claimed, &start);
      point->rank = worker->rank;
      const Eigen::VectorXd& z_predicted =
          start.predicted ? start.prediction : no_prediction;
      const Solver::Options::WarmStart* warm =
          start.have_warm ? &start.warm : nullptr;
      // A finished point: it does not change while the workers run.
      const SweepPoint* source =
          claimed->from >= 0 ? &summary_->points[claimed->from] : nullptr;
      if (worker->remote) {
        worker->remote(point, start.z0, z_predicted, warm, source);
      } else {
        SolveTask(thread, point, start.z0, z_predicted, warm, source);
      }
    }
    PointLines lines;
    FormatLines(*point, &lines);
    // No callback is to see the whole point: trimmed while no other
    // thread can read it (it is not finished yet).
    if (trim_before_lock) Trim(point);
    const std::unique_lock<std::mutex> lock = LockBriefly(&mutex_);
    Finish(point, lines, /*trim=*/!trim_before_lock);
    *claimed = Claimed();
    if (!Claim(thread, claimed)) {
      --num_active_threads_;
      return;
    }
  }
}

bool SweepRunner::OutOfMemory(int /*thread*/, const Claimed& claimed) {
  SweepPoint* point = claimed.point;
  {
    const std::unique_lock<std::mutex> lock = LockBriefly(&mutex_);
    if (point == nullptr || num_active_threads_ > 1) {
      // Another thread is still claiming points: it will take this one.
      ++num_threads_out_of_memory_;
      --num_active_threads_;
      if (point != nullptr) {
        chunks_.push_back({claimed.position, claimed.position + 1, true});
        point->warm_start_from = -1;
      }
      return false;
    }
  }
  point->summary = Solver::Summary();
  point->summary.preference = point->preference;
  point->summary.termination_type = ceres::FAILURE;
  point->summary.message =
      "Out of memory while solving this point (std::bad_alloc); free "
      "memory or lower ParetoSweep::Options::num_threads, and resume.";
  return true;
}

void SweepRunner::SolveTask(int thread,
                            SweepPoint* point,
                            const Eigen::VectorXd& z0,
                            const Eigen::VectorXd& z_predicted,
                            const Solver::Options::WarmStart* warm,
                            const SweepPoint* source) {
  Worker* worker = &workers_[thread];
  const bool predicted =
      z_predicted.size() == z0.size() && UsableStart(worker, z_predicted);
  point->thread = thread;
  SolvePoint(worker, point, predicted ? z_predicted : z0, warm, source);
  if (options_.max_history_entries > 0) {
    ThinHistory(options_.max_history_entries, &point->summary.history);
  }
}

int SweepRunner::PrepareToServe(int threads, std::string* error) {
  *summary_ = ParetoSweep::Summary();
  if (options_.solver.scalarization == nullptr) {
    *error =
        "A rank serving a distributed sweep needs the sweep's "
        "scalarization from the coordinator.";
    return 0;
  }
  if (!Prepare()) {
    *error = summary_->message;
    return 0;
  }
  while (static_cast<int>(workers_.size()) < std::max(1, threads)) {
    std::string why;
    if (!AddWorker(&why)) break;  // serve with the workers built so far
  }
  return static_cast<int>(workers_.size());
}

std::string SweepRunner::ProgressLine() const {
  // Called with mutex_ held.
  const double elapsed = timer_.Seconds();
  const int total = summary_->num_points;
  const int done = summary_->num_resumed + num_finished_;
  char line[256];
  std::snprintf(
      line, sizeof(line), "ecmo::Sweep: %d/%d points done", done, total);
  std::string text = line;
  if (summary_->num_resumed > 0) {
    text += " (" + std::to_string(summary_->num_resumed) + " resumed)";
  }
  if (worst_kkt_ >= 0.0) {
    std::snprintf(line, sizeof(line), ", worst ||K||^2 = %.3e", worst_kkt_);
    text += line;
  }
  std::snprintf(line, sizeof(line), ", elapsed %.1f s", elapsed);
  text += line;
  const int left = num_todo_ - num_finished_;
  if (left > 0 && num_finished_ > 0) {
    std::snprintf(line,
                  sizeof(line),
                  ", remaining ~%.1f s",
                  elapsed * left / num_finished_);
    text += line;
  }
  return text;
}

void SweepRunner::ProgressLoop() {
  const auto interval =
      std::chrono::duration<double>(options_.progress_every_n_seconds);
  std::unique_lock<std::mutex> lock(mutex_);
  auto next = start_ + std::chrono::duration_cast<Clock::duration>(interval);
  while (!finished_) {
    if (progress_cv_.wait_until(lock, next, [this] { return finished_; })) {
      break;
    }
    std::cerr << ProgressLine() << std::endl;
    progress_printed_ = true;
    next += std::chrono::duration_cast<Clock::duration>(interval);
  }
  if (progress_printed_) std::cerr << ProgressLine() << std::endl;
}

void SweepRunner::Run() {
  *summary_ = ParetoSweep::Summary();
  summary_->num_threads_given = options_.num_threads;
  summary_->warm_start = options_.warm_start;
  summary_->preference_floor = options_.preference_floor;
  // Woken now, while the sweep is prepared (see Gate).
  const int woken = WakeHelpers();
  if (!Prepare() || !Resume() || !OpenOutputs()) {
    gate_.Open(0);
    team_.Join();
    jsonl_.Close();
    csv_.Close();
    summary_->num_not_solved = summary_->num_points;
    return;
  }
  const int n = static_cast<int>(summary_->points.size());
  done_.assign(n, 0);
  neighbours_ = std::make_unique<PreferenceIndex>(num_objectives_);
  neighbours_->Reserve(std::max(n, RefinementCap()));
  std::vector<int> todo;
  for (SweepPoint& p : summary_->points) {
    if (p.status == SweepPoint::RESUMED) {
      ++summary_->num_resumed;
      RecordIfUsable(p);
    } else {
      todo.push_back(p.index);
    }
  }
  num_todo_ = static_cast<int>(todo.size());
  walk_ = Walk(summary_->points, todo, num_objectives_);
  ChooseThreads(num_todo_);
  const int threads = summary_->num_threads_used;
  // Odd chunks walk backwards: with two threads each chain starts at an end
  // of the walk, as a one-thread sweep's does, and the two meet in the
  // middle. Measured (inner_solver_bench, k = 10 .. 1e3): a chain from a
  // cold start in the middle of the front cost up to 45% more gradient
  // evaluations per point than the first thread's, and the two-thread
  // sweep 2.7-9.8% more than one thread; from the far end, 0.4-4.0%.
  // Room for every chunk a steal or a hand-back (OutOfMemory) adds, at
  // most one per point each: under an exhausted memory limit a push_back
  // that threw in NextTask lost the half of the walk it had just cut off
  // (45 points of 2,000 never solved, exit 1, in 1 run of about 40 of
  // the thread-creation test).
  chunks_.reserve(static_cast<size_t>(threads) + 2 * walk_.size() + 1);
  for (int t = 0; t < threads; ++t) {
    Chunk chunk;
    chunk.lo = static_cast<int>(static_cast<int64_t>(num_todo_) * t / threads);
    chunk.hi =
        static_cast<int>(static_cast<int64_t>(num_todo_) * (t + 1) / threads);
    chunk.forward = t % 2 == 0;
    chunks_.push_back(chunk);
    chunk_of_thread_.push_back(t);
  }

  std::thread progress;
  if (options_.progress_to_stderr && num_todo_ > 0) {
    try {
      progress = std::thread([this] { ProgressLoop(); });
    } catch (const std::system_error&) {
      // No progress lines then; the sweep itself does not need them.
    } catch (const std::bad_alloc&) {
    }
  }
  gate_.Open(threads);
  StartHelpers(threads, woken);
  WorkerLoop(0);  // the calling thread is worker 0
  team_.Join();
  late_team_.Join();
  if (summary_->num_threads_used < threads || num_threads_out_of_memory_ > 0) {
    // The system refused threads or memory: give the idle threads' stacks
    // back before the results are assembled.
    TrimIdleWorkerThreads(UsableCpus());
  }
  SolveLeftOverPoints();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  progress_cv_.notify_all();
  if (progress.joinable()) progress.join();
  if (RefinementCap() > static_cast<int>(summary_->points.size()) &&
      write_error_.empty()) {
    Refine();
  }
  if (!jsonl_.Close() && write_error_.empty()) write_error_ = jsonl_.error();
  if (!csv_.Close() && write_error_.empty()) write_error_ = csv_.error();
  Summarize();
  summary_->total_time_in_seconds = timer_.Seconds();
}

}  // namespace internal
}  // namespace ecmo
