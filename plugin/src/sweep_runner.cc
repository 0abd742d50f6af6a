// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// SweepRunner: preparation, the shared scalarization, resume and the
// streamed outputs (see sweep_runner.h).

#include "sweep_runner.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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
#include "scalarization_internal.h"
#include "strategy.h"

namespace ecmo {
namespace internal {

// Checks a preference before the floor: size S, finite, >= 0, not all 0.
bool CheckPreference(const std::vector<double>& w,
                     int num_objectives,
                     std::string* error) {
  // The message stream is built only on failure: constructing one per
  // call was 1-2% of a small sweep (every point is checked twice).
  if (static_cast<int>(w.size()) != num_objectives) {
    std::ostringstream os;
    os << "The preference has " << w.size() << " entries while the problem "
       << "has " << num_objectives << " objectives.";
    *error = os.str();
    return false;
  }
  double sum = 0.0;
  for (size_t s = 0; s < w.size(); ++s) {
    if (!std::isfinite(w[s]) || w[s] < 0.0) {
      std::ostringstream os;
      os << "Preference entry " << s << " is " << w[s]
         << "; entries must be finite and >= 0.";
      *error = os.str();
      return false;
    }
    sum += w[s];
  }
  if (!(sum > 0.0)) {
    *error = "The preference is all zeros; at least one entry must be > 0.";
    return false;
  }
  return true;
}

// The order in which the points are visited: a walk through the simplex.
// Points with an invalid preference (other size, non-finite) go last.
std::vector<int> Walk(const std::vector<SweepPoint>& points,
                      const std::vector<int>& todo,
                      int num_objectives) {
  std::vector<int> walk, invalid;
  for (int i : todo) {
    const std::vector<double>& p = points[i].preference;
    bool ok = static_cast<int>(p.size()) == num_objectives;
    for (double w : p) ok = ok && std::isfinite(w);
    (ok ? walk : invalid).push_back(i);
  }
  // Start at the lambda_1 = 1 corner.
  std::sort(walk.begin(), walk.end(), [&](int a, int b) {
    const std::vector<double>& pa = points[a].preference;
    const std::vector<double>& pb = points[b].preference;
    if (pa != pb) return pa > pb;
    return a < b;
  });
  if (num_objectives > 2 && walk.size() > 2) {
    // Greedy nearest-neighbour path from the lexicographically first point:
    // the nearest not yet visited, ties to the earliest in that order
    // (ids are positions in `walk`).
    PreferenceIndex remaining(num_objectives);
    for (size_t j = 0; j < walk.size(); ++j) {
      remaining.Add(static_cast<int>(j), points[walk[j]].preference);
    }
    std::vector<int> path;
    path.reserve(walk.size());
    int current = 0;
    remaining.Remove(current);
    path.push_back(walk[current]);
    while (remaining.size() > 0) {
      current = remaining.Nearest(points[walk[current]].preference);
      if (current < 0) break;  // not reached: every preference is valid
      remaining.Remove(current);
      path.push_back(walk[current]);
    }
    if (path.size() == walk.size()) walk = std::move(path);
  }
  walk.insert(walk.end(), invalid.begin(), invalid.end());
  return walk;
}

namespace {

// The sweep computes the reference point and the scales itself (once).
bool AutomaticScalarization(const Solver::Options& o) {
  return o.scalarization == nullptr && o.objective_offset.empty() &&
         o.reference_point.empty() && o.objective_scale.empty() &&
         !o.automatic_objective_offset;
}

}  // namespace

bool SweepRunner::Prepare() {
  const int n = static_cast<int>(preferences_.size());
  // Built in place: copying a prototype record into each was a third of
  // the preparation of a 101-point sweep.
  summary_->points.clear();
  summary_->points.resize(n);
  summary_->num_points = n;
  for (int i = 0; i < n; ++i) {
    SweepPoint& p = summary_->points[i];
    p.index = i;
    p.preference_given = preferences_[i];
    p.preference = preferences_[i];
  }

  std::string error;
  if (!options_.IsValid(&error)) return Fail(error);
  if (!AddWorker(&error)) return Fail(error);
  const Worker& first = workers_[0];
  const Evaluator& evaluator = *first.evaluator;
  num_objectives_ = evaluator.NumObjectives();
  num_parameters_ = evaluator.NumParameters();
  num_constraints_ = evaluator.NumConstraints();
  summary_->num_objectives = num_objectives_;
  summary_->num_parameters = num_parameters_;
  summary_->objective_names.clear();
  for (int s = 0; s < num_objectives_; ++s) {
    summary_->objective_names.push_back(evaluator.ObjectiveName(s));
  }
  if (num_objectives_ < 1) {
    return Fail("The evaluator has no objectives (NumObjectives() = " +
                std::to_string(num_objectives_) + ").");
  }
  if (options_.preference_floor * num_objectives_ >= 1.0) {
    // Every entry would be raised to at least 1/S: all preferences become
    // (1/S, ..., 1/S) and the sweep would solve one point n times.
    std::ostringstream os;
    os << "Invalid configuration. ParetoSweep::Options::preference_floor = "
       << options_.preference_floor << " is >= 1/S = " << 1.0 / num_objectives_
       << " for " << num_objectives_
       << " objectives: it would collapse every preference to the centre. "
       << "Use a floor well below 1/S (default " << kDefaultPreferenceFloor
       << ").";
    return Fail(os.str());
  }
  start_point_ = first.start;

  // With the automatic normalized scalarization, r = ideal - m w: at a
  // corner preference (1 - e, e) a floor e below m / (1 + m) leaves the
  // other objective's term inactive up to (1 - e) m / e - m ranges beyond
  // its nadir, so the point is only weakly Pareto optimal (mit.g2o: the
  // odometry end came out 58 ranges above the lexicographic end). At
  // e = m / (1 + m) the terms balance next to the payoff table's corner.
  preference_floor_ = options_.preference_floor;
  const double margin = options_.solver.utopia_margin;
  // Two objectives only, where it is measured: on three-objective corners
  // (mtbl_logistic) the augmented Lagrangian then failed a point it
  // certified at 1e-4.
  if (num_objectives_ == 2 && AutomaticScalarization(options_.solver) &&
      options_.normalize_objectives && margin > 0.0 &&
      std::isfinite(margin)) {
    preference_floor_ = std::max(preference_floor_, margin / (1.0 + margin));
  }
  if (preference_floor_ * num_objectives_ >= 1.0) {
    preference_floor_ = options_.preference_floor;
  }
  summary_->preference_floor = preference_floor_;

  for (int i = 0; i < n; ++i) {
    SweepPoint& p = summary_->points[i];
    if (!CheckPreference(p.preference_given, num_objectives_, &error)) {
      continue;  // solved as a FAILURE point by the worker
    }
    p.preference = ToOpenSimplex(
        p.preference_given, preference_floor_, &p.preference_changed);
    if (p.preference_changed) summary_->changed_preferences.push_back(i);
  }
  solver_options_ = options_.solver;
  return PrepareScalarization();
}

// Builds the next worker through the source and checks what it got: an
// evaluator, a start point of its size, the first worker's sizes, and a
// Problem when a point_solver needs one. (A start point that is not finite
// fails each point's Solve with its message, as for any problem.)
bool SweepRunner::AddWorker(std::string* error) {
  Worker worker;
  const int index = static_cast<int>(workers_.size());
  error->clear();
  if (!source_.build || !source_.build(index, &worker, error)) {
    if (error->empty()) *error = "The evaluator factory returned no evaluator.";
    return false;
  }
  if (worker.remote && index > 0) {
    // Solves on another rank, which checks its own instances.
    workers_.push_back(std::move(worker));
    return true;
  }
  if (worker.evaluator == nullptr) {
    *error = "The evaluator factory returned no evaluator.";
    return false;
  }
  const Evaluator& e = *worker.evaluator;
  std::ostringstream os;
  if (worker.start.size() != e.NumParameters()) {
    os << "The start point has " << worker.start.size()
       << " entries but the evaluator has " << e.NumParameters()
       << " parameters (EvaluatorInstance::start).";
  } else if (index > 0 && (e.NumParameters() != num_parameters_ ||
                           e.NumObjectives() != num_objectives_ ||
                           e.NumConstraints() != num_constraints_)) {
    os << "instance " << index << " has (k, S, q) = (" << e.NumParameters()
       << ", " << e.NumObjectives() << ", " << e.NumConstraints()
       << ") but the first has (" << num_parameters_ << ", " << num_objectives_
       << ", " << num_constraints_
       << "); the factory must build the same problem every time";
  }
  if (os.str().empty() && options_.point_solver && worker.problem == nullptr) {
    os << "Invalid configuration. ParetoSweep::Options::point_solver needs "
       << "an ecmo::Problem (it receives one per point), but this sweep's "
       << "evaluator has none (EvaluatorInstance::problem is null). Drop "
       << "point_solver, or sweep an ecmo::Problem (a ProblemFactory).";
  }
  if (!os.str().empty()) {
    *error = os.str();
    return false;
  }
  workers_.push_back(std::move(worker));
  return true;
}

// Computes the scalarization once, at the problem's start point, and hands
// it to every point (Solver::Options::scalarization): the single-objective
// solves run once, and warm starts never change which problem is solved.
bool SweepRunner::PrepareScalarization() {
  Solver::Options& o = solver_options_;
  const bool automatic = AutomaticScalarization(o);
  // The sweep's flag decides, both ways (Solve's own default is on too).
  o.normalize_objectives = automatic && options_.normalize_objectives;
  // The options as the user means them (plus the normalization): what a
  // resumed run must match.
  settings_ = internal::SweepSettings(
      o, options_.warm_start, options_.preference_floor, options_.settings);
  summary_->settings = settings_;
  if (o.scalarization != nullptr) {
    summary_->scalarization = *o.scalarization;
    return true;
  }
  std::string error;
  if (!o.IsValid(&error)) return Fail(error);
  // On the workers' own evaluators (they keep them for the whole sweep, and
  // Solve re-linearizes at every point's start): the single-objective
  // solves are shared with the helpers waiting at the gate, each on the
  // evaluator of the worker it will be, built now rather than in
  // ChooseThreads. Otherwise the helpers waited for S solves in a row.
  std::vector<Evaluator*> evaluators = {workers_[0].evaluator};
  internal::ParallelFor parallel_for;
  if (num_woken_ > 0 && source_.build_during_preparation &&
      internal::NeedsSingleObjectiveSolves(o, num_objectives_)) {
    const int wanted = std::min(num_woken_ + 1, num_objectives_);
    std::string ignored;  // ChooseThreads builds it again and says why
    while (static_cast<int>(workers_.size()) < wanted &&
           !workers_.back().remote && AddWorker(&ignored)) {
    }
    for (size_t t = 1; t < workers_.size() && !workers_[t].remote; ++t) {
      evaluators.push_back(workers_[t].evaluator);
    }
    const int threads = static_cast<int>(evaluators.size());
    parallel_for = [this, threads](int n,
                                   const std::function<void(int, int)>& body) {
      gate_.Share(n, threads, body);
    };
  }
  auto computed = std::make_shared<Scalarization>();
  if (!internal::ComputeScalarization(
          o, evaluators, parallel_for, start_point_, computed.get(), &error)) {
    return Fail(
        "The sweep's scalarization (computed once, at the start "
        "point): " +
        error);
  }
  summary_->scalarization = *computed;
  o.objective_offset.clear();
  o.reference_point.clear();
  o.objective_scale.clear();
  o.automatic_objective_offset = false;
  o.normalize_objectives = false;
  o.scalarization = computed;
  return true;
}

// Opens and locks the JSON-lines file and reads it back when resuming.
// Nothing in the file changes here: a file that is refused stays as it was
// (UpdateJsonlForResume edits it once every output could be opened).
bool SweepRunner::Resume() {
  if (options_.jsonl_path.empty()) return true;
  const bool existed = ::access(options_.jsonl_path.c_str(), F_OK) == 0;
  if (!jsonl_.OpenLocked(options_.jsonl_path)) {
    return Fail("Cannot write the JSON-lines file: " + jsonl_.error() + ".");
  }
  if (!options_.resume) return true;
  if (!existed) {
    summary_->resume_message =
        options_.jsonl_path + " does not exist; starting a fresh sweep";
    return true;
  }
  std::string text;
  bool read = false;
  try {
    read = jsonl_.ReadAll(&text, JsonReadLimits().max_file_bytes);
  } catch (const std::bad_alloc&) {
    return Fail("Resume: " + options_.jsonl_path +
                ": out of memory while reading it (" +
                std::to_string(text.size()) + " bytes read).");
  }
  if (!read) return Fail("Resume: " + jsonl_.error() + ".");
  internal::ResumeExpectation expect;
  expect.path = options_.jsonl_path;
  expect.problem_name = options_.problem_name;
  expect.num_objectives = num_objectives_;
  expect.num_parameters = num_parameters_;
  expect.num_constraints = num_constraints_;
  expect.settings = settings_;
  for (const SweepPoint& p : summary_->points) {
    expect.preferences.push_back(p.preference);
  }
  const int given = summary_->num_points;
  expect.num_refinable = std::max(0, RefinementCap() - given);
  std::string error;
  if (!internal::ParseResumeText(text, expect, &resume_, &error)) {
    return Fail("Resume: " + error);
  }
  // Refined points (index >= the number of preferences) extend the list;
  // they are solved one after another, so a file holds a contiguous run.
  int last_refined = given - 1;
  for (const internal::ResumedLine& line : resume_.points) {
    last_refined = std::max(last_refined, line.index);
  }
  if (last_refined >= given) {
    std::vector<char> present(last_refined + 1 - given, 0);
    for (const internal::ResumedLine& line : resume_.points) {
      if (line.index >= given) present[line.index - given] = 1;
    }
    for (size_t i = 0; i < present.size(); ++i) {
      if (!present[i]) {
        return Fail("Resume: " + options_.jsonl_path + ": refined point " +
                    std::to_string(given + static_cast<int>(i)) +
                    " is missing while later refined points are present; "
                    "refined points are written one after another, so the "
                    "file was edited. The file is left untouched: give "
                    "another JSON-lines file, or drop resume to overwrite "
                    "it.");
      }
    }
    for (int index = given; index <= last_refined; ++index) {
      SweepPoint point;
      point.index = index;
      point.refined = true;
      summary_->points.push_back(std::move(point));
    }
  }
  // A line says what was computed; it counts once the problem agrees
  // (an edited or foreign line claimed "5 certified" at z = (3, -3)).
  Evaluator* evaluator = workers_[0].evaluator;
  if (evaluator != nullptr) {
    for (const internal::ResumedLine& line : resume_.points) {
      if (!line.summary.IsSolutionUsable()) continue;
      if (!internal::CheckSavedPoint(
              solver_options_, evaluator, line.summary, &error)) {
        return Fail("Resume: " + options_.jsonl_path + ":" +
                    std::to_string(line.line_number) + ": point " +
                    std::to_string(line.index) + ": " + error +
                    ". The file is left untouched: give another JSON-lines "
                    "file, or drop resume to overwrite it.");
      }
    }
  }
  for (internal::ResumedLine& line : resume_.points) {
    SweepPoint& point = summary_->points[line.index];
    if (point.refined) {
      point.preference = line.summary.preference;
      point.preference_given = line.summary.preference;
    }
    point.status = SweepPoint::RESUMED;
    point.summary = std::move(line.summary);
    point.warm_start_from = line.warm_start_from;
    // Written by distributed sweeps only (old files have none).
    const auto rank = line.json.find("rank");
    if (rank != line.json.end() && rank->is_number_integer()) {
      point.rank = rank->get<int>();
    }
    point.possibly_spurious_end =
        internal::JsonFlag(line.json, "possibly_spurious_end");
    point.cold_retry = internal::JsonFlag(line.json, "cold_retry");
    point.cold_check = internal::ColdCheck(line.json);
    if (!options_.keep_history) DropHistory(&point.summary);
    // Only what SweepPointToJson would not write back as the file has it
    // (the whole line would cost kilobytes per point).
    point.extra =
        internal::ResumedExtra(line.json,
                               SweepPointToJson(point, options_.problem_name),
                               options_.keep_history);
    nlohmann::json().swap(line.json);
  }
  summary_->resume_dropped_lines =
      resume_.num_duplicates + (resume_.truncated_last_line ? 1 : 0);
  summary_->resume_dropped_truncated_line = resume_.truncated_last_line;
  std::ostringstream os;
  os << "resumed " << resume_.points.size() << " of "
     << std::max<int>(summary_->num_points,
                      options_.refine_to > 0
                          ? options_.refine_to
                          : static_cast<int>(resume_.points.size()))
     << " points from " << options_.jsonl_path;
  if (resume_.truncated_last_line) {
    os << "; dropped a truncated last line (line "
       << resume_.truncated_line_number << ", the writer was interrupted)";
  }
  if (resume_.num_duplicates > 0) {
    os << "; dropped " << resume_.num_duplicates << " duplicate(s)";
  }
  summary_->resume_message = os.str();
  return true;
}

// Makes the JSON-lines file hold exactly the resumed points (or nothing,
// for a fresh sweep) before new lines are appended.
bool SweepRunner::UpdateJsonlForResume() {
  if (!jsonl_.is_open()) return true;
  if (!options_.resume) {
    if (!jsonl_.Truncate(0)) return Fail(jsonl_.error() + ".");
    return true;
  }
  if (resume_.num_duplicates > 0) {
    // Replace the file atomically (through a symbolic link, to its
    // target), then lock the new file before letting go of the old one.
    std::string text;
    for (const internal::ResumedLine& line : resume_.points) {
      text += line.text + "\n";
    }
    std::string error;
    if (!WriteFileAtomically(options_.jsonl_path, text, &error)) {
      return Fail(
          "Resume: cannot rewrite the JSON-lines file without its "
          "duplicate lines: " +
          error + " (the file is unchanged).");
    }
    LineWriter rewritten;
    if (!rewritten.OpenLocked(options_.jsonl_path)) {
      return Fail("Resume: " + rewritten.error() + ".");
    }
    jsonl_.Swap(&rewritten);
    return true;
  }
  if (resume_.truncated_last_line &&
      !jsonl_.Truncate(resume_.valid_prefix_bytes)) {
    return Fail("Resume: " + jsonl_.error() + ".");
  }
  if (resume_.needs_newline && !jsonl_.Write("\n")) {
    return Fail("Resume: " + jsonl_.error() + ".");
  }
  return true;
}

bool SweepRunner::OpenOutputs() {
  if (!options_.csv_path.empty()) {
    if (!csv_.Open(options_.csv_path, /*truncate=*/true)) {
      return Fail("Cannot write the CSV file: " + csv_.error() + ".");
    }
    std::string text = SweepCsvHeader(num_objectives_, num_parameters_) + "\n";
    for (const SweepPoint& p : summary_->points) {
      if (p.status == SweepPoint::RESUMED) {
        text += SweepCsvRow(p, options_.problem_name) + "\n";
      }
    }
    if (!csv_.Write(text)) {
      return Fail("Cannot write the CSV file: " + csv_.error() + ".");
    }
  }
  return UpdateJsonlForResume();
}

void SweepRunner::RecordWriteError(LineWriter* writer) {
  // Called with mutex_ held. Stop writing to the file: a line cut short by
  // a full disk stays the last one, which a resume drops and reports.
  if (write_error_.empty()) write_error_ = writer->error();
  writer->Close();
}

// Starts workers 1 .. threads-1 (the caller is worker 0). When the system
// refuses a thread (std::system_error: no memory for its stack, a process
// limit), the sweep goes on with the threads it has: the chunks of the
// missing workers are taken by the others' work stealing.

}  // namespace internal
}  // namespace ecmo
