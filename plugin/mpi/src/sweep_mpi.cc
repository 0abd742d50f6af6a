// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo::DistributedSweep (ecmo/sweep_mpi.h): rank 0 runs the sweep of
// ecmo/sweep.h with slots whose points are solved on other ranks; the
// other ranks solve the points they are sent with the same runner.
//
// Messages (all text, on a duplicate of MPI_COMM_WORLD):
//   setup   0 -> r, once, before r's first task: {"scalarization"}
//   task    0 -> r: {"index", "preference", "preference_given", "refined",
//           "warm_start_from", "z0", "z_predicted", "warm"?,
//           "source_preference"?, "source_objectives"?}
//   result  r -> 0: {"index", "thread", "point": SweepPointToJson} or
//           {"index", "error"}
//   stop    0 -> r: empty; r has no task left when it gets it.
// Only the thread that calls DistributedSweep calls MPI (FUNNELED): on rank
// 0 it relays between MPI and the runner's slot threads, on the other
// ranks between MPI and the solving threads (internal::TaskServer,
// mpi_relay.h, which says how it waits and why MPI is called by some
// PMPI_ names).

#include "ecmo/sweep_mpi.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "ecmo/result_writer.h"
#include "mpi_relay.h"
#include "nlohmann/json.hpp"
#include "sweep_runner.h"

namespace ecmo {
namespace {

using internal::kMaxWait;
using internal::kMinWait;
using internal::kTagResult;
using internal::kTagSetup;
using internal::kTagStop;
using internal::kTagTask;
using internal::MpiRunning;
using internal::Outbox;
using internal::Sender;
using internal::TryReceive;
using nlohmann::json;

using internal::Dump;

std::vector<double> ToStd(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

// A JSON array of numbers (null reads as NaN: NaN is written as null).
bool ReadVector(const json& j, std::vector<double>* out) {
  if (!j.is_array()) return false;
  out->clear();
  out->reserve(j.size());
  for (const json& x : j) {
    if (x.is_null()) {
      out->push_back(std::numeric_limits<double>::quiet_NaN());
    } else if (x.is_number()) {
      out->push_back(x.get<double>());
    } else {
      return false;
    }
  }
  return true;
}

bool ReadVector(const json& j, Eigen::VectorXd* out) {
  std::vector<double> v;
  if (!ReadVector(j, &v)) return false;
  *out = Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
  return true;
}

double ReadDouble(const json& j) {
  return j.is_number() ? j.get<double>()
                       : std::numeric_limits<double>::quiet_NaN();
}

// ---- Rank 0 ---------------------------------------------------------------

class Coordinator {
 public:
  Coordinator(MPI_Comm comm, int num_ranks)
      : comm_(comm), set_up_(num_ranks, 0) {}

  // Called on the runner's thread while it builds its workers (after it
  // computed the scalarization).
  void SetScalarization(const Scalarization& scalarization) {
    std::lock_guard<std::mutex> lock(outbox_.mutex);
    if (setup_text_.empty()) {
      setup_text_ =
          Dump({{"scalarization", ScalarizationToJson(scalarization)}});
    }
  }

  // A slot's RemoteSolve (internal::RemoteSolve): hands the point to
  // `rank` and waits for its result.
  void Solve(int rank,
             SweepPoint* point,
             const Eigen::VectorXd& z0,
             const Eigen::VectorXd& z_predicted,
             const Solver::Options::WarmStart* warm,
             const SweepPoint* source) {
    json task = {{"index", point->index},
                 {"preference", point->preference},
                 {"preference_given", point->preference_given},
                 {"refined", point->refined},
                 {"warm_start_from", point->warm_start_from},
                 {"z0", ToStd(z0)},
                 {"z_predicted", ToStd(z_predicted)}};
    if (source != nullptr) {
      // What the rank compares the warm point with (sweep_cold_check.h).
      task["source_preference"] = source->preference;
      task["source_objectives"] = ToStd(source->summary.objectives);
    }
    if (warm != nullptr) {
      task["warm"] = {{"omega", ToStd(warm->omega)},
                      {"nu", ToStd(warm->nu)},
                      {"penalty_u", warm->penalty_u},
                      {"penalty_v", warm->penalty_v}};
    }
    std::string text = Dump(task);
    {
      std::lock_guard<std::mutex> lock(outbox_.mutex);
      if (!set_up_[rank]) {
        set_up_[rank] = 1;
        stats_.setup_bytes += static_cast<int64_t>(setup_text_.size());
        outbox_.messages.push_back({rank, kTagSetup, setup_text_});
      }
      ++stats_.remote_points;
      stats_.task_bytes += static_cast<int64_t>(text.size());
      outbox_.messages.push_back({rank, kTagTask, std::move(text)});
    }
    outbox_.wake.notify_all();

    json result;
    {
      std::unique_lock<std::mutex> lock(results_mutex_);
      results_cv_.wait(lock, [&] { return results_.count(point->index) > 0; });
      result = std::move(results_[point->index]);
      results_.erase(point->index);
    }
    Adopt(rank, result, point);
  }

  // The relay loop on the thread that called DistributedSweep, until the
  // runner is done; then stops every other rank.
  void Relay(const std::atomic<bool>& runner_done) {
    Sender sender(comm_);
    std::chrono::microseconds wait = kMinWait;
    while (true) {
      const bool done = runner_done.load();
      bool busy = false;
      for (Outbox::Message& m :
           outbox_.Take(wait, [&] { return runner_done.load(); })) {
        sender.Send(m.destination, m.tag, std::move(m.text));
        busy = true;
      }
      busy = sender.Progress() || busy;
      int from = 0, tag = 0;
      std::string text;
      while (
          TryReceive(comm_, MPI_ANY_SOURCE, kTagResult, &from, &tag, &text)) {
        busy = true;
        json result = json::parse(text, nullptr, /*allow_exceptions=*/false);
        const auto index =
            result.is_object() ? result.find("index") : result.end();
        if (result.is_discarded() || !result.is_object() ||
            index == result.end() || !index->is_number_integer()) {
          // Cannot be matched to a point; every slot waits for its own.
          std::fprintf(stderr,
                       "ecmo::DistributedSweep: dropped a malformed result "
                       "from rank %d\n",
                       from);
          continue;
        }
        // (Not in one statement with the move below: in C++17 the right
        // operand of = is evaluated first, which would empty `result`.)
        const int point_index = index->get<int>();
        {
          std::lock_guard<std::mutex> lock(results_mutex_);
          stats_.result_bytes += static_cast<int64_t>(text.size());
          results_[point_index] = std::move(result);
        }
        results_cv_.notify_all();
      }
      if (done) break;
      wait = busy ? kMinWait : std::min(kMaxWait, wait * 2);
    }
    for (size_t r = 1; r < set_up_.size(); ++r) {
      sender.Send(static_cast<int>(r), kTagStop, std::string());
    }
    sender.WaitAll();
  }

  DistributedSweepStatistics statistics() const { return stats_; }

 private:
  // Takes a result into the point: the summary read back from the point's
  // JSON, which also becomes its `extra`, so that rank 0 writes the line
  // exactly as the solving rank made it.
  void Adopt(int rank, const json& result, SweepPoint* point) {
    point->rank = rank;
    std::string error;
    const auto thread = result.find("thread");
    if (thread != result.end() && thread->is_number_integer()) {
      point->thread = thread->get<int>();
    }
    const auto point_json = result.find("point");
    if (result.contains("error") || point_json == result.end()) {
      const auto e = result.find("error");
      error = e != result.end() && e->is_string() ? e->get<std::string>()
                                                  : "no point in the reply";
    } else if (SummaryFromJson(*point_json, &point->summary, &error)) {
      point->extra = *point_json;
      const auto from = point_json->find("warm_start_from");
      if (from != point_json->end() && from->is_number_integer()) {
        point->warm_start_from = from->get<int>();
      }
      point->possibly_spurious_end =
          internal::JsonFlag(*point_json, "possibly_spurious_end");
      point->cold_retry = internal::JsonFlag(*point_json, "cold_retry");
      point->cold_check = internal::ColdCheck(*point_json);
      return;
    }
    point->summary = Solver::Summary();
    point->summary.preference = point->preference;
    point->summary.termination_type = ceres::FAILURE;
    point->summary.message =
        "Rank " + std::to_string(rank) + " could not solve the point: " + error;
  }

  MPI_Comm comm_;
  Outbox outbox_;
  std::string setup_text_;    // guarded by outbox_.mutex
  std::vector<char> set_up_;  // guarded by outbox_.mutex
  std::mutex results_mutex_;
  std::condition_variable results_cv_;
  std::map<int, json> results_;
  DistributedSweepStatistics stats_;  // guarded by the two mutexes
};

DistributedSweepStatistics MakeStatistics(int num_ranks) {
  DistributedSweepStatistics s;
  s.num_ranks = num_ranks;
  s.points_per_rank.assign(num_ranks, 0);
  return s;
}

void Coordinate(const ParetoSweep::Options& options,
                const EvaluatorFactory& factory,
                const std::vector<std::vector<double>>& preferences,
                MPI_Comm comm,
                int num_ranks,
                ParetoSweep::Summary* summary,
                DistributedSweepStatistics* statistics) {
  Coordinator coordinator(comm, num_ranks);
  // Slot i runs on rank i % num_ranks: slot 0 (which computes the
  // scalarization) is local, and a short sweep spreads over the ranks.
  ParetoSweep::Options slots = options;
  slots.num_threads = options.num_threads * num_ranks;
  const internal::WorkerSource local = internal::FactorySource(factory);
  internal::WorkerSource source;
  source.build = [&](int index, internal::Worker* worker, std::string* error) {
    const int rank = index % num_ranks;
    worker->rank = rank;
    if (rank == 0) return local.build(index, worker, error);
    coordinator.SetScalarization(summary->scalarization);
    worker->remote = [&coordinator, rank](
                         SweepPoint* point,
                         const Eigen::VectorXd& z0,
                         const Eigen::VectorXd& z_predicted,
                         const Solver::Options::WarmStart* warm,
                         const SweepPoint* source) {
      coordinator.Solve(rank, point, z0, z_predicted, warm, source);
    };
    return true;
  };
  // A remote worker takes the scalarization when it is built.
  source.build_during_preparation = false;

  std::atomic<bool> runner_done(false);
  internal::SweepRunner runner(slots, std::move(source), preferences, summary);
  std::thread thread;
  try {
    thread = std::thread([&] {
      runner.Run();
      runner_done = true;
    });
  } catch (const std::system_error& e) {
    *summary = ParetoSweep::Summary();
    summary->message = std::string(
                           "ecmo::DistributedSweep could not start "
                           "its runner thread: ") +
                       e.what();
    runner_done = true;
  }
  coordinator.Relay(runner_done);
  if (thread.joinable()) thread.join();

  summary->num_ranks = num_ranks;
  summary->num_threads_given = options.num_threads;
  if (statistics != nullptr) {
    *statistics = coordinator.statistics();
    statistics->num_ranks = num_ranks;
    statistics->points_per_rank.assign(num_ranks, 0);
    for (const SweepPoint& p : summary->points) {
      if (p.status == SweepPoint::SOLVED && p.rank >= 0 && p.rank < num_ranks) {
        ++statistics->points_per_rank[p.rank];
      }
    }
  }
}

// ---- Other ranks ----------------------------------------------------------

// A rank other than 0: an internal::TaskServer whose setup builds this
// rank's runner with the sweep's scalarization and whose tasks are points.
class Server {
 public:
  Server(const ParetoSweep::Options& options,
         const EvaluatorFactory& factory,
         const std::vector<std::vector<double>>& preferences,
         MPI_Comm comm,
         int rank)
      : options_(options),
        factory_(factory),
        preferences_(preferences),
        rank_(rank),
        server_(comm,
                {[this](const std::string& text, std::string* error) {
                   return SetUp(text, error);
                 },
                 [this](int thread, const std::string& task) {
                   return Dump(SolveOne(thread, task));
                 },
                 [](const std::string& task, const std::string& error) {
                   const json t = json::parse(task, nullptr, false);
                   json reply = {{"error", error}};
                   reply["index"] = t.is_object() && t.contains("index")
                                        ? t["index"]
                                        : json(-1);
                   return Dump(reply);
                 }}) {}

  // Serves until rank 0 says stop; fills *summary for this rank.
  void Run(ParetoSweep::Summary* summary) {
    server_.Run(/*threads_at_start=*/0);
    *summary = ParetoSweep::Summary();
    summary->num_solved = solved_;
    summary->num_threads_given = options_.num_threads;
    summary->num_threads_used = server_.threads_started();
    if (!server_.error().empty()) {
      summary->termination_type = ceres::FAILURE;
      summary->message =
          "Rank " + std::to_string(rank_) +
          " could not serve the distributed sweep: " + server_.error();
    } else {
      summary->termination_type = ceres::CONVERGENCE;
      summary->message = "Rank " + std::to_string(rank_) + " solved " +
                         std::to_string(solved_) +
                         " point(s) of the distributed sweep; the results "
                         "are on rank 0.";
    }
  }

 private:
  // Builds this rank's runner with the sweep's scalarization; returns the
  // number of solving threads it prepared.
  int SetUp(const std::string& text, std::string* error) {
    const json setup = json::parse(text, nullptr, false);
    auto scalarization = std::make_shared<Scalarization>();
    if (setup.is_discarded() || !setup.is_object() ||
        !setup.contains("scalarization") ||
        !ScalarizationFromJson(
            setup["scalarization"], scalarization.get(), error)) {
      *error = "the setup message from rank 0 does not read: " + *error;
      return 0;
    }
    // As rank 0 prepared its solver options: the scalarization replaces
    // what would have computed it. Files, callbacks and progress belong to
    // rank 0.
    options_copy_ = options_;
    Solver::Options& o = options_copy_.solver;
    o.scalarization = scalarization;
    o.objective_offset.clear();
    o.reference_point.clear();
    o.objective_scale.clear();
    o.automatic_objective_offset = false;
    o.normalize_objectives = false;
    options_copy_.jsonl_path.clear();
    options_copy_.csv_path.clear();
    options_copy_.resume = false;
    options_copy_.callbacks.clear();
    options_copy_.progress_to_stderr = false;
    options_copy_.refine_to = 0;
    runner_ = std::make_unique<internal::SweepRunner>(
        options_copy_,
        internal::FactorySource(factory_),
        preferences_,
        &runner_summary_);
    const int built = runner_->PrepareToServe(options_.num_threads, error);
    if (built == 0) runner_.reset();
    return built;
  }

  json SolveOne(int thread, const std::string& text) {
    const json t = json::parse(text, nullptr, false);
    json reply = {{"index", -1}};
    SweepPoint point;
    Eigen::VectorXd z0, z_predicted;
    Solver::Options::WarmStart warm;
    bool have_warm = false;
    bool ok =
        t.is_object() && t.contains("index") && t["index"].is_number_integer();
    if (ok) {
      point.index = t["index"].get<int>();
      reply["index"] = point.index;
      ok = t.contains("preference") && t.contains("preference_given") &&
           t.contains("z0") && t.contains("z_predicted") &&
           ReadVector(t["preference"], &point.preference) &&
           ReadVector(t["preference_given"], &point.preference_given) &&
           ReadVector(t["z0"], &z0) &&
           ReadVector(t["z_predicted"], &z_predicted);
    }
    if (ok) {
      point.refined = t.value("refined", false);
      point.warm_start_from = t.value("warm_start_from", -1);
      const auto w = t.find("warm");
      if (w != t.end() && w->is_object()) {
        have_warm = w->contains("omega") && w->contains("nu") &&
                    ReadVector((*w)["omega"], &warm.omega) &&
                    ReadVector((*w)["nu"], &warm.nu);
        ok = have_warm;
        if (ok) {
          warm.penalty_u = ReadDouble(w->value("penalty_u", json()));
          warm.penalty_v = ReadDouble(w->value("penalty_v", json()));
        }
      }
    }
    SweepPoint source;
    const bool have_source =
        ok && t.contains("source_preference") &&
        t.contains("source_objectives") &&
        ReadVector(t["source_preference"], &source.preference) &&
        ReadVector(t["source_objectives"], &source.summary.objectives);
    source.index = point.warm_start_from;
    if (!ok) {
      reply["error"] = "the task message from rank 0 does not read";
      return reply;
    }
    runner_->SolveTask(thread,
                       &point,
                       z0,
                       z_predicted,
                       have_warm ? &warm : nullptr,
                       have_source ? &source : nullptr);
    point.rank = rank_;
    point.status = SweepPoint::SOLVED;
    solved_.fetch_add(1);
    reply["thread"] = thread;
    reply["point"] = SweepPointToJson(point, options_.problem_name);
    return reply;
  }

  const ParetoSweep::Options& options_;
  const EvaluatorFactory& factory_;
  const std::vector<std::vector<double>>& preferences_;
  const int rank_;

  ParetoSweep::Options options_copy_;
  ParetoSweep::Summary runner_summary_;
  std::unique_ptr<internal::SweepRunner> runner_;
  std::atomic<int> solved_{0};
  // Last: its threads call SolveOne, which uses the members above.
  internal::TaskServer server_;
};

std::string Kilobytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f KB", bytes / 1024.0);
  return text;
}

}  // namespace

bool LaunchedByMpi() {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    if (!LaunchedByMpi()) return;
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) !=
        MPI_SUCCESS) {
      error_ = "MPI_Init_thread failed";
      return;
    }
    owns_ = true;
  }
  active_ = MpiRunning(&rank_, &size_);
  int provided = MPI_THREAD_SINGLE;
  if (active_) MPI_Query_thread(&provided);
  if (active_ && provided < MPI_THREAD_FUNNELED) {
    error_ =
        "this MPI provides no thread support (MPI_THREAD_FUNNELED), which "
        "a sweep's solving threads need";
  }
}

MpiSession::~MpiSession() {
  int finalized = 0;
  if (owns_ && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) {
    PMPI_Finalize();
  }
}

void MpiSession::AbortAll(int exit_code) const {
  int rank = 0, size = 1;
  if (MpiRunning(&rank, &size)) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

bool MpiSession::Broadcast(std::string* text) const {
  int rank = 0, size = 1;
  if (!MpiRunning(&rank, &size) || size <= 1) return true;
  // The length first (a 64-bit count: MPI_Bcast counts are int, so the
  // text goes in chunks of at most 1 GiB), then the bytes. PMPI_ names:
  // see mpi_relay.h (the sequential MUMPS' stubs shadow some MPI_ ones).
  long long length = static_cast<long long>(text->size());
  if (PMPI_Bcast(&length, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
    return false;
  }
  std::string received =
      rank == 0 ? *text : std::string(static_cast<size_t>(length), '\0');
  constexpr long long kChunk = 1LL << 30;
  for (long long offset = 0; offset < length; offset += kChunk) {
    const int count = static_cast<int>(std::min(kChunk, length - offset));
    if (PMPI_Bcast(&received[static_cast<size_t>(offset)],
                   count,
                   MPI_CHAR,
                   0,
                   MPI_COMM_WORLD) != MPI_SUCCESS) {
      return false;
    }
  }
  *text = std::move(received);
  return true;
}

double DistributedSweepStatistics::BytesPerPoint() const {
  return remote_points > 0
             ? static_cast<double>(task_bytes + result_bytes) / remote_points
             : 0.0;
}

std::string DistributedSweepStatistics::Report() const {
  std::ostringstream os;
  os << num_ranks << " rank" << (num_ranks == 1 ? "" : "s")
     << "; points per rank";
  for (size_t r = 0; r < points_per_rank.size(); ++r) {
    os << (r ? ", " : " ") << points_per_rank[r];
  }
  os << "; " << remote_points << " point(s) sent";
  if (remote_points > 0) {
    os << ", " << Kilobytes(BytesPerPoint()) << " per point ("
       << Kilobytes(static_cast<double>(task_bytes) / remote_points)
       << " task, "
       << Kilobytes(static_cast<double>(result_bytes) / remote_points)
       << " result), setup " << Kilobytes(static_cast<double>(setup_bytes));
  }
  return os.str();
}

void DistributedSweep(const ParetoSweep::Options& options,
                      const EvaluatorFactory& factory,
                      const std::vector<std::vector<double>>& preferences,
                      ParetoSweep::Summary* summary,
                      DistributedSweepStatistics* statistics) {
  if (summary == nullptr) return;
  int rank = 0, size = 1;
  if (!MpiRunning(&rank, &size) || size <= 1) {
    Sweep(options, factory, preferences, summary);
    if (statistics != nullptr) {
      *statistics = MakeStatistics(1);
      statistics->points_per_rank[0] = summary->num_solved;
    }
    return;
  }
  if (statistics != nullptr) *statistics = MakeStatistics(size);
  int provided = MPI_THREAD_SINGLE, main_thread = 0;
  MPI_Query_thread(&provided);
  MPI_Is_thread_main(&main_thread);
  if (provided < MPI_THREAD_FUNNELED || !main_thread) {
    // The same on every rank (up to the thread check): nobody communicates.
    *summary = ParetoSweep::Summary();
    summary->num_ranks = size;
    summary->message =
        "ecmo::DistributedSweep must be called from the thread that "
        "initialized MPI, with at least MPI_THREAD_FUNNELED (ecmo::MpiSession "
        "does both).";
    return;
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (rank == 0) {
    Coordinate(options, factory, preferences, comm, size, summary, statistics);
  } else {
    Server server(options, factory, preferences, comm, rank);
    server.Run(summary);
    summary->num_ranks = size;
  }
  MPI_Comm_free(&comm);
}

void DistributedSweep(const ParetoSweep::Options& options,
                      const ProblemFactory& factory,
                      const std::vector<std::vector<double>>& preferences,
                      ParetoSweep::Summary* summary,
                      DistributedSweepStatistics* statistics) {
  DistributedSweep(
      options, MakeEvaluatorFactory(factory), preferences, summary, statistics);
}

}  // namespace ecmo
