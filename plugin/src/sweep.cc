#include "ecmo/sweep.h"

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
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "ecmo/evaluator.h"
#include "ecmo/indicators.h"
#include "ecmo/result_writer.h"
#include "front_refinement.h"
#include "sweep_io.h"

namespace ecmo {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Greedy nearest-neighbour walks cost O(n^2); beyond this many points the
// walk is the lexicographic order.
constexpr int kMaxGreedyWalk = 20000;

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template <typename T>
std::string Violation(const char* field, T value, const char* rule) {
  std::ostringstream os;
  os << "Invalid configuration. ParetoSweep::Options::" << field << " = "
     << value << ". Violated constraint: ParetoSweep::Options::" << field << " "
     << rule;
  return os.str();
}

#define ECMO_SWEEP_OPTION_CHECK(field, condition, rule)              \
  do {                                                               \
    if (!(condition)) {                                              \
      if (error != nullptr) *error = Violation(#field, field, rule); \
      return false;                                                  \
    }                                                                \
  } while (0)

std::string FormatVector(const std::vector<double>& v, int precision = 4) {
  std::ostringstream os;
  os.precision(precision);
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ")";
  return os.str();
}

std::string FormatVector(const Eigen::VectorXd& v, int precision = 6) {
  return FormatVector(std::vector<double>(v.data(), v.data() + v.size()),
                      precision);
}

std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Checks a preference before the floor: size S, finite, >= 0, not all 0.
bool CheckPreference(const std::vector<double>& w,
                     int num_objectives,
                     std::string* error) {
  std::ostringstream os;
  if (static_cast<int>(w.size()) != num_objectives) {
    os << "The preference has " << w.size() << " entries while the problem "
       << "has " << num_objectives << " objectives.";
    *error = os.str();
    return false;
  }
  double sum = 0.0;
  for (size_t s = 0; s < w.size(); ++s) {
    if (!std::isfinite(w[s]) || w[s] < 0.0) {
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
  if (num_objectives > 2 && walk.size() > 2 &&
      static_cast<int>(walk.size()) <= kMaxGreedyWalk) {
    // Greedy nearest-neighbour path from the lexicographically first point.
    std::vector<int> path;
    path.reserve(walk.size());
    std::vector<char> used(walk.size(), 0);
    size_t current = 0;
    used[0] = 1;
    path.push_back(walk[0]);
    for (size_t step = 1; step < walk.size(); ++step) {
      size_t best = 0;
      double best_distance = std::numeric_limits<double>::infinity();
      const std::vector<double>& pc = points[walk[current]].preference;
      for (size_t j = 0; j < walk.size(); ++j) {
        if (used[j]) continue;
        const std::vector<double>& pj = points[walk[j]].preference;
        double d = 0.0;
        for (int s = 0; s < num_objectives; ++s) {
          d += (pj[s] - pc[s]) * (pj[s] - pc[s]);
        }
        if (d < best_distance) {
          best_distance = d;
          best = j;
        }
      }
      used[best] = 1;
      path.push_back(walk[best]);
      current = best;
    }
    walk = std::move(path);
  }
  walk.insert(walk.end(), invalid.begin(), invalid.end());
  return walk;
}

// One worker's problem: the evaluator route (default) or the point solver.
struct Worker {
  std::shared_ptr<const Problem> owned;
  const Problem* problem = nullptr;
  std::unique_ptr<ProblemEvaluator> evaluator;
};

class SweepRunner {
 public:
  SweepRunner(const ParetoSweep::Options& options,
              const ProblemFactory* factory,
              const Problem* shared_problem,
              ThreadSafety thread_safety,
              const std::vector<std::vector<double>>& preferences,
              ParetoSweep::Summary* summary)
      : options_(options),
        factory_(factory),
        shared_problem_(shared_problem),
        thread_safety_(thread_safety),
        preferences_(preferences),
        summary_(summary) {}

  void Run();

 private:
  bool Fail(const std::string& message) {
    summary_->termination_type = ceres::FAILURE;
    summary_->message = message;
    summary_->total_time_in_seconds = SecondsSince(start_);
    return false;
  }
  bool Prepare();
  bool PrepareScalarization();
  void Refine();
  void SolveAndFinish(Worker* worker, int thread, SweepPoint* point);
  bool Resume();
  bool OpenOutputs();
  bool UpdateJsonlForResume();
  int StartThreads(int threads, std::vector<std::thread>* pool);
  void RecordWriteError(internal::LineWriter* writer);
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
  const ProblemFactory* factory_;
  const Problem* shared_problem_;
  const ThreadSafety thread_safety_;
  const std::vector<std::vector<double>>& preferences_;
  ParetoSweep::Summary* summary_;

  Clock::time_point start_ = Clock::now();
  Solver::Options solver_options_;
  std::vector<Worker> workers_;
  int num_objectives_ = 0;
  int num_parameters_ = 0;
  int num_constraints_ = 0;
  Eigen::VectorXd start_point_;

  internal::LineWriter jsonl_;
  internal::LineWriter csv_;
  std::string write_error_;
  // What SweepSettings records in every JSON line.
  nlohmann::json settings_;
  internal::ResumeContents resume_;

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

bool SweepRunner::Prepare() {
  const int n = static_cast<int>(preferences_.size());
  summary_->points.assign(n, SweepPoint());
  summary_->num_points = n;
  for (int i = 0; i < n; ++i) {
    SweepPoint& p = summary_->points[i];
    p.index = i;
    p.preference_given = preferences_[i];
    p.preference = preferences_[i];
  }

  std::string error;
  if (!options_.IsValid(&error)) return Fail(error);
  const Problem* problem = shared_problem_;
  if (factory_ != nullptr) {
    if (!*factory_) return Fail("The problem factory is empty.");
    Worker worker;
    worker.owned = (*factory_)();
    if (worker.owned == nullptr) {
      return Fail("The problem factory returned no problem.");
    }
    worker.problem = worker.owned.get();
    workers_.push_back(std::move(worker));
    problem = workers_[0].problem;
  }
  if (problem == nullptr) return Fail("The problem is null.");
  if (!problem->IsValid(&error)) return Fail("Invalid problem: " + error);
  num_objectives_ = problem->NumObjectives();
  num_parameters_ = problem->NumParameters();
  num_constraints_ = problem->NumConstraints();
  summary_->num_objectives = num_objectives_;
  summary_->num_parameters = num_parameters_;
  if (options_.preference_floor * num_objectives_ >= 1.0) {
    // Every entry would be raised to at least 1/S: all preferences become
    // (1/S, ..., 1/S) and the sweep would solve one point n times.
    std::ostringstream os;
    os << "Invalid configuration. ParetoSweep::Options::preference_floor = "
       << options_.preference_floor << " is >= 1/S = "
       << 1.0 / num_objectives_ << " for " << num_objectives_
       << " objectives: it would collapse every preference to the centre. "
       << "Use a floor well below 1/S (default " << kDefaultPreferenceFloor
       << ").";
    return Fail(os.str());
  }
  start_point_.resize(num_parameters_);
  problem->GetParameters(start_point_.data());
  if (factory_ == nullptr) {
    Worker worker;
    worker.problem = shared_problem_;
    workers_.push_back(std::move(worker));
  }

  for (int i = 0; i < n; ++i) {
    SweepPoint& p = summary_->points[i];
    if (!CheckPreference(p.preference_given, num_objectives_, &error)) {
      continue;  // solved as a FAILURE point by the worker
    }
    p.preference = ToOpenSimplex(
        p.preference_given, options_.preference_floor, &p.preference_changed);
    if (p.preference_changed) summary_->changed_preferences.push_back(i);
  }
  solver_options_ = options_.solver;
  return PrepareScalarization();
}

// Computes the scalarization once, at the problem's start point, and hands
// it to every point (Solver::Options::scalarization): the single-objective
// solves run once, and warm starts never change which problem is solved.
bool SweepRunner::PrepareScalarization() {
  Solver::Options& o = solver_options_;
  const bool automatic = o.scalarization == nullptr &&
                         o.objective_offset.empty() &&
                         o.reference_point.empty() &&
                         o.objective_scale.empty() &&
                         !o.automatic_objective_offset;
  if (automatic && options_.normalize_objectives) o.normalize_objectives = true;
  // The options as the user means them (plus the normalization): what a
  // resumed run must match.
  settings_ = internal::SweepSettings(o, options_.warm_start,
                                      options_.preference_floor,
                                      options_.settings);
  if (o.scalarization != nullptr) {
    summary_->scalarization = *o.scalarization;
    return true;
  }
  std::string error;
  if (!o.IsValid(&error)) return Fail(error);
  ProblemEvaluator evaluator(workers_[0].problem);
  auto computed = std::make_shared<Scalarization>();
  if (!ComputeScalarization(o, &evaluator, start_point_, computed.get(),
                            &error)) {
    return Fail("The sweep's scalarization (computed once, at the start "
                "point): " + error);
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
  if (!jsonl_.ReadAll(&text)) return Fail("Resume: " + jsonl_.error() + ".");
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
  expect.num_refinable = std::max(0, options_.refine_to - given);
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
  for (internal::ResumedLine& line : resume_.points) {
    SweepPoint& point = summary_->points[line.index];
    if (point.refined) {
      point.preference = line.summary.preference;
      point.preference_given = line.summary.preference;
    }
    point.status = SweepPoint::RESUMED;
    point.summary = std::move(line.summary);
    point.warm_start_from = line.warm_start_from;
    point.extra = line.json;
  }
  summary_->resume_dropped_lines =
      resume_.num_duplicates + (resume_.truncated_last_line ? 1 : 0);
  summary_->resume_dropped_truncated_line = resume_.truncated_last_line;
  std::ostringstream os;
  os << "resumed " << resume_.points.size() << " of "
     << std::max<int>(summary_->num_points, options_.refine_to)
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
      return Fail("Resume: cannot rewrite the JSON-lines file without its "
                  "duplicate lines: " + error + " (the file is unchanged).");
    }
    internal::LineWriter rewritten;
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
    std::string text = CsvHeader(num_objectives_, num_parameters_) + "\n";
    for (const SweepPoint& p : summary_->points) {
      if (p.status == SweepPoint::RESUMED) {
        text += CsvRow(p.summary, options_.problem_name) + "\n";
      }
    }
    if (!csv_.Write(text)) {
      return Fail("Cannot write the CSV file: " + csv_.error() + ".");
    }
  }
  return UpdateJsonlForResume();
}

void SweepRunner::RecordWriteError(internal::LineWriter* writer) {
  // Called with mutex_ held. Stop writing to the file: a line cut short by
  // a full disk stays the last one, which a resume drops and reports.
  if (write_error_.empty()) write_error_ = writer->error();
  writer->Close();
}

// Starts workers 1 .. threads-1 (the caller is worker 0). When the system
// refuses a thread (std::system_error: no memory for its stack, a process
// limit), the sweep goes on with the threads it has: the chunks of the
// missing workers are taken by the others' work stealing.
int SweepRunner::StartThreads(int threads, std::vector<std::thread>* pool) {
  for (int t = 1; t < threads; ++t) {
    try {
      pool->emplace_back([this, t] { WorkerLoop(t); });
    } catch (const std::system_error& e) {
      std::lock_guard<std::mutex> lock(mutex_);
      summary_->num_threads_used = t;
      summary_->threads_message =
          "could create only " + std::to_string(t) + " of " +
          std::to_string(threads) + " threads (" + e.what() +
          "); lower num_threads or raise the memory / process limits";
      break;
    }
  }
  return static_cast<int>(pool->size()) + 1;
}

void SweepRunner::ChooseThreads(int num_todo) {
  const int given = options_.num_threads;
  int used = std::max(1, std::min(given, num_todo));
  std::string why;
  if (used < given) {
    why = "only " + std::to_string(num_todo) + " point(s) to solve";
  }
  if (factory_ == nullptr && used > 1) {
    if (thread_safety_ == ThreadSafety::NONE) {
      used = 1;
      why = "the shared problem is declared ThreadSafety::NONE";
    } else if (options_.point_solver) {
      used = 1;
      why =
          "a point_solver on a shared problem needs its parameter blocks; "
          "pass a ProblemFactory to run it on several threads";
    }
  }
  if (factory_ != nullptr) {
    while (static_cast<int>(workers_.size()) < used) {
      Worker worker;
      worker.owned = (*factory_)();
      if (worker.owned == nullptr || !worker.owned->IsValid(nullptr)) {
        used = static_cast<int>(workers_.size());
        why = "the problem factory failed to build instance " +
              std::to_string(workers_.size());
        break;
      }
      worker.problem = worker.owned.get();
      workers_.push_back(std::move(worker));
    }
  } else {
    while (static_cast<int>(workers_.size()) < used) {
      Worker worker;
      worker.problem = shared_problem_;
      workers_.push_back(std::move(worker));
    }
  }
  for (Worker& worker : workers_) {
    worker.evaluator = std::make_unique<ProblemEvaluator>(worker.problem);
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
  if (size == 1) return v.forward ? v.lo++ : --v.hi;
  Chunk stolen;
  if (v.forward) {
    const int mid = v.lo + (size + 1) / 2;
    stolen = {mid, v.hi, /*forward=*/false};
    v.hi = mid;
  } else {
    const int mid = v.lo + size / 2;
    stolen = {v.lo, mid, /*forward=*/true};
    v.lo = mid;
  }
  chunks_.push_back(stolen);
  chunk_of_thread_[thread] = static_cast<int>(chunks_.size()) - 1;
  Chunk& mine = chunks_.back();
  return mine.forward ? mine.lo++ : --mine.hi;
}

int SweepRunner::NearestFinished(const std::vector<double>& preference) const {
  int best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < done_.size(); ++i) {
    if (!done_[i]) continue;
    const std::vector<double>& q = summary_->points[i].preference;
    if (q.size() != preference.size()) continue;
    double d = 0.0;
    for (size_t s = 0; s < q.size(); ++s) {
      d += (q[s] - preference[s]) * (q[s] - preference[s]);
    }
    if (d < best_distance) {
      best_distance = d;
      best = static_cast<int>(i);
    }
  }
  return best;
}

// The neighbour's final multipliers and penalties as a warm start (see
// Solver::Options::warm_start). Entries the neighbour does not have (sizes
// that do not match, a strategy without penalties) are left cold. False
// when nothing could be taken.
bool SweepRunner::WarmStartFrom(const Solver::Summary& from,
                                Solver::Options::WarmStart* warm) const {
  *warm = Solver::Options::WarmStart();
  // Only the augmented Lagrangian continues well from where the neighbour
  // ended: the pure penalty's final u is the end of its penalty path (often
  // near max_penalty), and starting there leaves it neither room to grow
  // nor two penalties to extrapolate from (measured: 1.6x the gradient
  // evaluations of cold starts on gebken_circle, and unconverged points).
  // The faithful strategy has no use for the block.
  if (from.strategy != StrategyType::WC_AUGMENTED_LAGRANGIAN) return false;
  const KktMultipliers& m = from.kkt.solver_multipliers;
  const bool omega_ok = m.omega.size() == num_objectives_ &&
                        m.omega.allFinite() && (m.omega.array() >= 0.0).all();
  const bool nu_ok = (m.nu.size() == num_constraints_ && m.nu.allFinite()) ||
                     (num_constraints_ == 0 && m.nu.size() == 0);
  if (omega_ok && nu_ok) {
    warm->omega = m.omega;
    warm->nu = num_constraints_ > 0 ? m.nu : Eigen::VectorXd();
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
  const Eigen::VectorXd d = la - lb;
  const Eigen::VectorXd e = l - la;
  if (d.squaredNorm() <= 0.0 || e.squaredNorm() <= 0.0) return false;
  *t = e.dot(d) / d.squaredNorm();
  return *t > 0.0 && *t <= 2.0 && (e - *t * d).norm() <= 0.1 * e.norm();
}

// A predicted start point is used only if the problem evaluates there with
// finite values and positive shifted objectives (one value evaluation, not
// counted in the point's work).
bool SweepRunner::UsableStart(Worker* worker, const Eigen::VectorXd& z) const {
  if (!z.allFinite()) return false;
  Eigen::VectorXd f(num_objectives_), h(num_constraints_);
  std::string error;
  if (!worker->evaluator->Evaluate(
          z.data(), f.data(), h.data(), nullptr, &error)) {
    return false;
  }
  return f.allFinite() && h.allFinite();
}

void SweepRunner::SolvePoint(Worker* worker,
                             SweepPoint* point,
                             const Eigen::VectorXd& z0,
                             const Solver::Options::WarmStart* warm) {
  // The sweep's solver options, with the neighbour's multipliers and
  // penalties when warm-starting.
  std::unique_ptr<Solver::Options> warm_options;
  if (warm != nullptr) {
    warm_options = std::make_unique<Solver::Options>(solver_options_);
    warm_options->warm_start = *warm;
  }
  const Solver::Options& options =
      warm_options != nullptr ? *warm_options : solver_options_;
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
  Eigen::VectorXd z = z0;
  Solve(options, worker->evaluator.get(), point->preference, &z, &summary);
  if (warm == nullptr || summary.termination_type == ceres::CONVERGENCE) {
    return;
  }
  // A warm start can inherit a neighbour's saturated region or penalties
  // and end worse than a cold start would: retry from the problem's start
  // point and keep the better of the two (converged first, then the
  // smaller certificate ratio), saying so in the message.
  Solver::Summary cold;
  Eigen::VectorXd z_cold = start_point_;
  Solve(solver_options_, worker->evaluator.get(), point->preference, &z_cold,
        &cold);
  const auto ratio = [&](const Solver::Summary& s) {
    if (!s.IsSolutionUsable() || s.kkt.objective_scale.size() == 0) {
      return std::numeric_limits<double>::infinity();
    }
    return s.kkt
        .BestCertificate(options.stationarity_tolerance,
                         options.complementarity_tolerance,
                         options.feasibility_tolerance)
        .Ratio(options.stationarity_tolerance,
               options.complementarity_tolerance,
               options.feasibility_tolerance);
  };
  const bool cold_better =
      cold.termination_type == ceres::CONVERGENCE ||
      (cold.IsSolutionUsable() && ratio(cold) < ratio(summary));
  const std::string warm_outcome =
      std::string(TerminationTypeName(summary.termination_type));
  if (cold_better) {
    const EvaluationCounts warm_counts = summary.evaluations;
    summary = std::move(cold);
    summary.evaluations.value_evaluations += warm_counts.value_evaluations;
    summary.evaluations.gradient_evaluations +=
        warm_counts.gradient_evaluations;
    summary.evaluations.jacobian_transpose_products +=
        warm_counts.jacobian_transpose_products;
    summary.evaluations.jacobian_products += warm_counts.jacobian_products;
    summary.message += " (Solved cold after the warm start from point " +
                       std::to_string(point->warm_start_from) + " ended " +
                       warm_outcome + ".)";
    point->warm_start_from = -1;
  } else {
    summary.message += " (A cold retry did no better: it ended " +
                       std::string(TerminationTypeName(cold.termination_type)) +
                       ".)";
  }
}

void SweepRunner::Finish(SweepPoint* point) {
  // Called with mutex_ held.
  const Solver::Summary& s = point->summary;
  if (s.IsSolutionUsable() && s.z.size() == num_parameters_) {
    done_[point->index] = 1;
    worst_kkt_ =
        std::max(worst_kkt_, s.kkt.with_solver_multipliers.SquaredNorm());
  }
  ++num_finished_;
  // The options that computed the point travel with it, so that a resume
  // with other options refuses it.
  if (point->extra.is_object()) point->extra["settings"] = settings_;
  if (jsonl_.is_open() &&
      !jsonl_.Write(Dump(SweepPointToJson(*point, options_.problem_name)) +
                    "\n")) {
    RecordWriteError(&jsonl_);
  }
  if (csv_.is_open() && !csv_.Write(CsvRow(s, options_.problem_name) + "\n")) {
    RecordWriteError(&csv_);
  }
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
}

void SweepRunner::WorkerLoop(int thread) {
  Worker* worker = &workers_[thread];
  while (true) {
    SweepPoint* point = nullptr;
    Eigen::VectorXd z0 = start_point_;
    Solver::Options::WarmStart warm;
    bool have_warm = false;
    Eigen::VectorXd z_predicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const int position = NextTask(thread);
      if (position < 0) return;
      point = &summary_->points[walk_[position]];
      if (options_.warm_start) {
        const int from = NearestFinished(point->preference);
        if (from >= 0) {
          point->warm_start_from = from;
          z0 = summary_->points[from].summary.z;
          have_warm = WarmStartFrom(summary_->points[from].summary, &warm);
          // Secant continuation through the point `from` itself started
          // from, when the new preference continues that line: the
          // prediction error drops from O(step) to O(step^2).
          const int before = summary_->points[from].warm_start_from;
          double t = 0.0;
          if (have_warm && before >= 0 &&
              before < static_cast<int>(done_.size()) && before != from &&
              done_[before] &&
              SecantStep(point->preference, from, before, &t)) {
            const Solver::Summary& b = summary_->points[before].summary;
            Solver::Options::WarmStart wb;
            if (WarmStartFrom(b, &wb) && warm.omega.size() > 0 &&
                wb.omega.size() == warm.omega.size() &&
                wb.nu.size() == warm.nu.size()) {
              warm.omega =
                  (warm.omega + t * (warm.omega - wb.omega)).cwiseMax(0.0);
              warm.nu = warm.nu + t * (warm.nu - wb.nu);
            }
            if (b.z.size() == z0.size() &&
                worker->evaluator->manifold() == nullptr) {
              z_predicted = z0 + t * (z0 - b.z);
            }
          }
        }
      }
    }
    if (z_predicted.size() == z0.size() && UsableStart(worker, z_predicted)) {
      z0 = z_predicted;
    }
    point->thread = thread;
    SolvePoint(worker, point, z0, have_warm ? &warm : nullptr);
    if (options_.max_history_entries > 0) {
      ThinHistory(options_.max_history_entries, &point->summary.history);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    point->status = SweepPoint::SOLVED;
    Finish(point);
  }
}

std::string SweepRunner::ProgressLine() const {
  // Called with mutex_ held.
  const double elapsed = SecondsSince(start_);
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

void SweepRunner::Summarize() {
  ParetoSweep::Summary& sum = *summary_;
  const int S = num_objectives_;
  std::vector<int> usable_index;
  sum.num_solved = sum.num_usable = sum.num_converged = sum.num_not_solved = 0;
  sum.num_refined = 0;
  sum.num_points = static_cast<int>(sum.points.size());
  sum.gradient_evaluations = 0;
  for (const SweepPoint& p : sum.points) {
    const Solver::Summary& s = p.summary;
    if (p.refined && p.status != SweepPoint::NOT_SOLVED) ++sum.num_refined;
    if (p.status == SweepPoint::NOT_SOLVED) {
      ++sum.num_not_solved;
      continue;
    }
    if (p.status == SweepPoint::SOLVED) {
      ++sum.num_solved;
      sum.gradient_evaluations += s.evaluations.gradient_evaluations;
    }
    if (s.termination_type == ceres::CONVERGENCE) ++sum.num_converged;
    if (!s.IsSolutionUsable()) continue;
    ++sum.num_usable;
    const double kkt = s.kkt.with_solver_multipliers.SquaredNorm();
    const double kkt_ls = s.kkt.with_least_squares_multipliers.SquaredNorm();
    if (std::isfinite(kkt)) {
      sum.worst_kkt_residual_sq = std::max(sum.worst_kkt_residual_sq, kkt);
    }
    if (std::isfinite(kkt_ls)) {
      sum.worst_kkt_residual_sq_least_squares =
          std::max(sum.worst_kkt_residual_sq_least_squares, kkt_ls);
    }
    if (s.objectives.size() == S && s.objectives.allFinite()) {
      usable_index.push_back(p.index);
    }
  }
  Eigen::MatrixXd front(usable_index.size(), std::max(S, 0));
  for (size_t r = 0; r < usable_index.size(); ++r) {
    front.row(r) = sum.points[usable_index[r]].summary.objectives.transpose();
  }
  if (S > 0 && !usable_index.empty()) {
    sum.ideal = Ideal(front);
    sum.nadir = Nadir(front);
    if (static_cast<int>(options_.reference_point.size()) == S) {
      sum.reference_point =
          Eigen::Map<const Eigen::VectorXd>(options_.reference_point.data(), S);
    } else {
      sum.reference_point =
          DefaultReferencePoint(front, options_.reference_point_offset);
    }
    std::string error;
    sum.hypervolume = Hypervolume(front, sum.reference_point, &error);
    sum.non_dominated.clear();
    for (int r : NonDominatedIndices(front)) {
      sum.non_dominated.push_back(usable_index[r]);
    }
  } else if (S > 0) {
    sum.ideal = Eigen::VectorXd::Constant(S, kNaN);
    sum.nadir = Eigen::VectorXd::Constant(S, kNaN);
    sum.reference_point = Eigen::VectorXd::Constant(S, kNaN);
    sum.hypervolume = kNaN;
  }

  std::ostringstream os;
  const int reached = sum.num_points - sum.num_not_solved;
  os << reached << " of " << sum.num_points << " points reached ("
     << sum.num_solved << " solved, " << sum.num_resumed
     << " resumed): " << sum.num_converged << " converged, "
     << (sum.num_usable - sum.num_converged) << " usable without "
     << "convergence, " << (reached - sum.num_usable) << " failed.";
  if (stop_) {
    sum.termination_type = stop_type_;
    os << " Stopped by a SweepCallback.";
  } else if (sum.num_converged == sum.num_points) {
    sum.termination_type = ceres::CONVERGENCE;
  } else {
    sum.termination_type = ceres::NO_CONVERGENCE;
  }
  if (!write_error_.empty()) {
    os << " Writing the results failed: " << write_error_ << ".";
  }
  sum.write_error = write_error_;
  sum.message = os.str();
}

// Adaptive refinement (Options::refine_to): one point at a time, each aimed
// at the largest hole of the front found so far (front_refinement.h) and
// warm-started from the nearest finished point.
void SweepRunner::Refine() {
  const int S = num_objectives_;
  const Scalarization& scalarization = summary_->scalarization;
  if (scalarization.reference_point.size() != S ||
      scalarization.objective_scale.size() != S) {
    return;
  }
  summary_->points.reserve(options_.refine_to);
  Worker* worker = &workers_[0];
  std::set<std::pair<int, int>> tried;  // pairs of point indices
  const int max_attempts = 4 * options_.refine_to;
  for (int attempt = 0;
       attempt < max_attempts &&
       static_cast<int>(summary_->points.size()) < options_.refine_to;
       ++attempt) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
    }
    std::vector<int> usable;
    for (const SweepPoint& p : summary_->points) {
      if (p.summary.IsSolutionUsable() && p.summary.objectives.size() == S &&
          p.summary.objectives.allFinite()) {
        usable.push_back(p.index);
      }
    }
    if (usable.size() < 2) return;
    Eigen::MatrixXd objectives(usable.size(), S);
    for (size_t r = 0; r < usable.size(); ++r) {
      objectives.row(r) =
          summary_->points[usable[r]].summary.objectives.transpose();
    }
    // The spread that measures holes: nadir - r when the payoff table gave
    // one, else the points' own spread above r.
    Eigen::VectorXd range =
        scalarization.nadir_point.size() == S
            ? Eigen::VectorXd(scalarization.nadir_point -
                              scalarization.reference_point)
            : Eigen::VectorXd(objectives.colwise().maxCoeff().transpose() -
                              scalarization.reference_point);
    for (int s = 0; s < S; ++s) {
      if (!(range[s] > 0.0)) range[s] = 1.0;
    }
    std::set<std::pair<int, int>> tried_rows;
    for (size_t a = 0; a < usable.size(); ++a) {
      for (size_t b = a + 1; b < usable.size(); ++b) {
        if (tried.count({usable[a], usable[b]}) > 0) {
          tried_rows.insert({static_cast<int>(a), static_cast<int>(b)});
        }
      }
    }
    internal::RefinementCandidate candidate;
    if (!internal::NextRefinement(objectives, scalarization.reference_point,
                                  scalarization.objective_scale, range,
                                  tried_rows, &candidate)) {
      return;
    }
    tried.insert({usable[candidate.a], usable[candidate.b]});

    SweepPoint* point = nullptr;
    Eigen::VectorXd z0 = start_point_;
    Solver::Options::WarmStart warm;
    bool have_warm = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      SweepPoint fresh;
      fresh.index = static_cast<int>(summary_->points.size());
      fresh.refined = true;
      fresh.preference_given = candidate.preference;
      fresh.preference = ToOpenSimplex(candidate.preference,
                                       options_.preference_floor,
                                       &fresh.preference_changed);
      summary_->points.push_back(std::move(fresh));
      done_.push_back(0);
      point = &summary_->points.back();
      if (options_.warm_start) {
        const int from = NearestFinished(point->preference);
        if (from >= 0) {
          point->warm_start_from = from;
          z0 = summary_->points[from].summary.z;
          have_warm = WarmStartFrom(summary_->points[from].summary, &warm);
        }
      }
    }
    point->thread = 0;
    SolvePoint(worker, point, z0, have_warm ? &warm : nullptr);
    if (options_.max_history_entries > 0) {
      ThinHistory(options_.max_history_entries, &point->summary.history);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    point->status = SweepPoint::SOLVED;
    Finish(point);
  }
}

void SweepRunner::Run() {
  *summary_ = ParetoSweep::Summary();
  summary_->num_threads_given = options_.num_threads;
  summary_->warm_start = options_.warm_start;
  summary_->preference_floor = options_.preference_floor;
  if (!Prepare() || !Resume() || !OpenOutputs()) {
    jsonl_.Close();
    csv_.Close();
    summary_->num_not_solved = summary_->num_points;
    return;
  }
  const int n = static_cast<int>(summary_->points.size());
  done_.assign(n, 0);
  std::vector<int> todo;
  for (SweepPoint& p : summary_->points) {
    if (p.status == SweepPoint::RESUMED) {
      ++summary_->num_resumed;
      if (p.summary.IsSolutionUsable() &&
          p.summary.z.size() == num_parameters_) {
        done_[p.index] = 1;
        worst_kkt_ = std::max(
            worst_kkt_, p.summary.kkt.with_solver_multipliers.SquaredNorm());
      }
    } else {
      todo.push_back(p.index);
    }
  }
  num_todo_ = static_cast<int>(todo.size());
  walk_ = Walk(summary_->points, todo, num_objectives_);
  ChooseThreads(num_todo_);
  const int threads = summary_->num_threads_used;
  for (int t = 0; t < threads; ++t) {
    Chunk chunk;
    chunk.lo = static_cast<int>(static_cast<int64_t>(num_todo_) * t / threads);
    chunk.hi =
        static_cast<int>(static_cast<int64_t>(num_todo_) * (t + 1) / threads);
    chunks_.push_back(chunk);
    chunk_of_thread_.push_back(t);
  }

  std::thread progress;
  if (options_.progress_to_stderr && num_todo_ > 0) {
    try {
      progress = std::thread([this] { ProgressLoop(); });
    } catch (const std::system_error&) {
      // No progress lines then; the sweep itself does not need them.
    }
  }
  std::vector<std::thread> pool;
  StartThreads(threads, &pool);
  WorkerLoop(0);  // the calling thread is worker 0
  for (std::thread& t : pool) t.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  progress_cv_.notify_all();
  if (progress.joinable()) progress.join();
  if (options_.refine_to > static_cast<int>(summary_->points.size()) &&
      write_error_.empty()) {
    Refine();
  }
  if (!jsonl_.Close() && write_error_.empty()) write_error_ = jsonl_.error();
  if (!csv_.Close() && write_error_.empty()) write_error_ = csv_.error();
  Summarize();
  summary_->total_time_in_seconds = SecondsSince(start_);
}

}  // namespace

const char* ThreadSafetyToString(ThreadSafety safety) {
  switch (safety) {
    case ThreadSafety::NONE:
      return "NONE";
    case ThreadSafety::BASIC:
      return "BASIC";
  }
  return "UNKNOWN";
}

bool ParetoSweep::Options::IsValid(std::string* error) const {
  ECMO_SWEEP_OPTION_CHECK(num_threads, num_threads > 0, "> 0");
  ECMO_SWEEP_OPTION_CHECK(preference_floor,
                          preference_floor > 0.0 && preference_floor < 1.0,
                          "in (0, 1)");
  ECMO_SWEEP_OPTION_CHECK(
      progress_every_n_seconds,
      progress_every_n_seconds > 0.0 && std::isfinite(progress_every_n_seconds),
      "> 0 and finite");
  ECMO_SWEEP_OPTION_CHECK(
      max_history_entries, max_history_entries >= 0, ">= 0");
  ECMO_SWEEP_OPTION_CHECK(refine_to, refine_to >= 0, ">= 0 (0: no refinement)");
  ECMO_SWEEP_OPTION_CHECK(
      reference_point_offset,
      reference_point_offset >= 0.0 && std::isfinite(reference_point_offset),
      ">= 0 and finite");
  for (size_t i = 0; i < reference_point.size(); ++i) {
    if (!std::isfinite(reference_point[i])) {
      if (error != nullptr) {
        std::ostringstream os;
        os << "Invalid configuration. ParetoSweep::Options::reference_point["
           << i << "] = " << reference_point[i] << " is not finite.";
        *error = os.str();
      }
      return false;
    }
  }
  if (!settings.is_object()) {
    if (error != nullptr) {
      *error =
          "Invalid configuration. ParetoSweep::Options::settings must be a "
          "JSON object.";
    }
    return false;
  }
  if (resume && jsonl_path.empty()) {
    if (error != nullptr) {
      *error =
          "Invalid configuration. ParetoSweep::Options::resume = true needs "
          "ParetoSweep::Options::jsonl_path (the file to resume from).";
    }
    return false;
  }
  for (size_t i = 0; i < callbacks.size(); ++i) {
    if (callbacks[i] == nullptr) {
      if (error != nullptr) {
        *error = "Invalid configuration. ParetoSweep::Options::callbacks[" +
                 std::to_string(i) + "] is null.";
      }
      return false;
    }
  }
  std::string solver_error;
  if (!solver.IsValid(&solver_error)) {
    if (error != nullptr) *error = solver_error;
    return false;
  }
  return true;
}

bool ParetoSweep::Summary::AllPointsUsable() const {
  return num_points > 0 && num_not_solved == 0 && num_usable == num_points;
}

std::string ParetoSweep::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(6);
  os << "ecmo::Sweep Report: Points: " << num_points
     << ", Usable: " << num_usable << ", Hypervolume: " << hypervolume
     << ", Worst ||K||^2: " << worst_kkt_residual_sq
     << ", Time: " << total_time_in_seconds
     << " s, Termination: " << TerminationTypeName(termination_type);
  return os.str();
}

std::string ParetoSweep::Summary::FullReport() const {
  std::ostringstream os;
  char line[512];
  auto row = [&](const char* name, const std::string& value) {
    std::snprintf(line, sizeof(line), "%-34s %s\n", name, value.c_str());
    os << line;
  };
  auto num = [](double x) {
    char b[64];
    std::snprintf(b, sizeof(b), "%.6e", x);
    return std::string(b);
  };
  os << "\necmo::Sweep Report\n------------------\n";
  std::snprintf(line, sizeof(line), "%-34s %10s %10s\n", "", "Given", "Used");
  os << line;
  std::snprintf(line,
                sizeof(line),
                "%-34s %10d %10d\n",
                "Threads",
                num_threads_given,
                num_threads_used);
  os << line;
  if (!threads_message.empty()) os << "  (" << threads_message << ")\n";
  row("Warm start", warm_start ? "yes" : "no");
  {
    std::ostringstream v;
    v << preference_floor << " (" << changed_preferences.size()
      << " preference(s) raised)";
    row("Preference floor", v.str());
  }
  os << "\n";
  row("Points", std::to_string(num_points));
  row("  solved", std::to_string(num_solved));
  row("  resumed", std::to_string(num_resumed));
  row("  not solved", std::to_string(num_not_solved));
  row("  usable", std::to_string(num_usable));
  row("  converged", std::to_string(num_converged));
  if (num_refined > 0) row("  added by refinement", std::to_string(num_refined));
  if (!resume_message.empty()) row("Resume", resume_message);
  if (scalarization.reference_point.size() > 0) {
    row("Reference point r",
        std::string(
            ReferencePointTypeToString(scalarization.reference_point_type)) +
            " " + FormatVector(scalarization.reference_point));
    row(scalarization.normalized ? "Objective scales (nadir - utopia)"
                                 : "Objective scales",
        FormatVector(scalarization.objective_scale));
    if (scalarization.num_single_objective_solves > 0) {
      row("Single-objective solves (once)",
          std::to_string(scalarization.num_single_objective_solves) + " (" +
              std::to_string(scalarization.evaluations.gradient_evaluations) +
              " gradient evaluations, " + num(scalarization.time_in_seconds) +
              " s)");
    }
    if (!scalarization.message.empty()) row("  note", scalarization.message);
  }
  row("Gradient evaluations (solved)", std::to_string(gradient_evaluations));
  row("Worst ||K||^2", num(worst_kkt_residual_sq));
  row("Worst ||K||^2 (least squares)",
      num(worst_kkt_residual_sq_least_squares));
  row("Hypervolume", num(hypervolume));
  row("  reference point", FormatVector(reference_point));
  row("Ideal", FormatVector(ideal));
  row("Nadir", FormatVector(nadir));
  row("Non-dominated points", std::to_string(non_dominated.size()));
  row("Total time (s)", num(total_time_in_seconds));

  const int rows_shown = 200;
  if (!points.empty()) {
    os << "\n  index  preference                objectives"
          "                     ||K||^2   iterations  status    termination\n";
    int shown = 0;
    for (const SweepPoint& p : points) {
      if (shown++ == rows_shown) {
        os << "  ... (" << points.size() - rows_shown << " more)\n";
        break;
      }
      const char* status = p.status == SweepPoint::SOLVED    ? "solved"
                           : p.status == SweepPoint::RESUMED ? "resumed"
                                                             : "-";
      std::snprintf(line,
                    sizeof(line),
                    "  %5d  %-25s %-30s %10.3e %11d  %-9s %s\n",
                    p.index,
                    FormatVector(p.preference).c_str(),
                    FormatVector(p.summary.objectives).c_str(),
                    p.summary.kkt.with_solver_multipliers.SquaredNorm(),
                    p.summary.iterations,
                    status,
                    p.status == SweepPoint::NOT_SOLVED
                        ? "-"
                        : TerminationTypeName(p.summary.termination_type));
      os << line;
    }
  }
  os << "\nTermination: " << TerminationTypeName(termination_type) << " ("
     << message << ")\n";
  return os.str();
}

void ThinHistory(int max_entries, std::vector<IterationSummary>* history) {
  if (history == nullptr || max_entries < 2 ||
      static_cast<int>(history->size()) <= max_entries) {
    return;
  }
  const std::vector<IterationSummary>& h = *history;
  const double first = std::log(std::max(0, h.front().iteration) + 1.0);
  const double last = std::log(std::max(0, h.back().iteration) + 1.0);
  const double step = (last - first) / (max_entries - 1);
  std::vector<IterationSummary> kept;
  kept.reserve(max_entries + 1);
  kept.push_back(h.front());
  double next = first + step;
  for (size_t i = 1; step > 0.0 && i + 1 < h.size(); ++i) {
    const double x = std::log(std::max(0, h[i].iteration) + 1.0);
    if (x >= next) {
      kept.push_back(h[i]);
      while (next <= x) next += step;
    }
  }
  kept.push_back(h.back());
  *history = std::move(kept);
}

void Sweep(const ParetoSweep::Options& options,
           const ProblemFactory& factory,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary) {
  if (summary == nullptr) return;
  SweepRunner runner(
      options, &factory, nullptr, ThreadSafety::BASIC, preferences, summary);
  runner.Run();
}

void Sweep(const ParetoSweep::Options& options,
           const Problem& problem,
           ThreadSafety thread_safety,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary) {
  if (summary == nullptr) return;
  SweepRunner runner(
      options, nullptr, &problem, thread_safety, preferences, summary);
  runner.Run();
}

}  // namespace ecmo
