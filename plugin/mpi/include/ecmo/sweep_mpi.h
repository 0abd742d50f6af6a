// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Library: ecmo::sweep_mpi (find_package(ecmo COMPONENTS sweep_mpi)), built
// only when CMake finds MPI (option ECMO_WITH_MPI); it links MPI's C
// library, the other ecmo libraries never do. This header does not include
// mpi.h.
//
// Distributed Pareto sweeps on MPI (docs/distributed.md). Every rank of an
// MPI job calls DistributedSweep with the same options, factory and
// preferences (the usual SPMD program, e.g. `mpirun -np 4 ecmo_solve ...`):
//
//   int main(int argc, char** argv) {
//     ecmo::MpiSession mpi(&argc, &argv);   // MPI_Init_thread under mpirun
//     ...
//     ecmo::ParetoSweep::Summary summary;
//     ecmo::DistributedSweep(options, factory, preferences, &summary);
//     if (!mpi.coordinator()) return 0;     // results are on rank 0
//     std::cout << summary.FullReport();
//   }
//
// Rank 0 is the coordinator: it runs the sweep of ecmo/sweep.h (walk, warm
// starts, resume, streaming to Options::jsonl_path and csv_path through the
// same writer, callbacks, progress, refinement, the final Summary), with
// Options::num_threads worker threads of its own plus, for every other
// rank, num_threads slots whose points are solved on that rank. A slot
// hands out one point at a time and takes the next one when its rank
// reports back (dynamic load balancing: points differ in cost). Each rank
// builds its own evaluator instances with `factory` (num_threads of them)
// and solves with them exactly as a single-process sweep does (the same
// code, the same start point, the cold retry after a warm start that does
// not converge); the sweep's scalarization is computed once, on rank 0,
// and sent to the other ranks. A finished point travels back as its JSON
// line (SweepPointToJson, the format of the JSON-lines file), which rank 0
// writes unchanged. Adaptive refinement (Options::refine_to) runs on rank
// 0 only. point_solver runs on the rank that solves the point (each rank
// has its own copy of the options).
//
// What is recorded: every point's JSON gets "rank" (SweepPoint::rank, 0 for
// the coordinator's own threads), the sweep's JSON "num_ranks"
// (Summary::num_ranks); Summary::num_threads_given is Options::num_threads
// (per rank) and num_threads_used counts the slots over all ranks. Only
// rank 0's summary describes the sweep; on another rank *summary says how
// many points that rank served (CONVERGENCE) or why it could not (FAILURE),
// with no points.
//
// Determinism. With Options::warm_start = false every point is solved from
// the problem's start point with the sweep's scalarization, so a
// distributed sweep returns the same points as a single-process sweep, to
// the bit (z, objectives, rho, multipliers, KKT scores, iteration and
// evaluation counts) on ranks running the same binary on the same kind of
// CPU; only timings, "rank", SweepPoint::thread and the history's running
// evaluation counts (a worker's evaluator counts over every point it
// solved) differ. With warm starts, which finished neighbour starts a
// point depends on completion order, as with several threads in one
// process: each point still meets the solver's tolerances, and its
// solution agrees with the single-process one to those tolerances where
// the WC subproblem has a unique solution (tests/sweep_mpi_test.cc checks
// both); where it has several local solutions a point may end in another
// one, as it may with two threads.
//
// Failure. Rank 0 writes every finished point at once (when jsonl_path is
// set), so when a rank dies, which makes Open MPI end the whole job, only
// the points in progress are lost: run the same command with
// Options::resume (ecmo_solve --resume) to finish the sweep, with any
// number of ranks.
//
// Test hook: when the environment variable ECMO_MPI_TEST_KILL_AT_POINT is
// m >= 1, every rank other than 0 kills itself (SIGKILL) when it receives
// its m-th point, before solving it. It exists for tests of the failure
// path above and is read nowhere else.
//
// Threads: MPI is called only by the thread that calls DistributedSweep,
// which must be the thread that initialized MPI with at least
// MPI_THREAD_FUNNELED (MpiSession does); the solving threads never call
// MPI. Nothing throws; invalid options give the FAILURE summary of
// ecmo::Sweep on rank 0.

#ifndef ECMO_SWEEP_MPI_H_
#define ECMO_SWEEP_MPI_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ecmo/sweep.h"

namespace ecmo {

// True when the environment says this process was started by an MPI
// launcher (Open MPI's mpirun / mpiexec, a PMI or PMIx launcher such as
// Slurm's srun --mpi=pmix, MPICH's hydra).
bool LaunchedByMpi();

// Initializes MPI for the life of the object when the process was started
// by an MPI launcher (MPI_Init_thread with MPI_THREAD_FUNNELED) and
// finalizes it on destruction; does nothing for a process started without
// one (a single process: rank 0 of 1), and adopts an MPI that is already
// initialized (then leaves finalizing to whoever initialized it).
// Construct it once, in main, before any thread is started.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  // False when the launcher was detected but MPI could not be initialized
  // with the thread support needed; error() says why.
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // MPI is initialized (by this session or before it).
  bool active() const { return active_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool coordinator() const { return rank_ == 0; }

  // Ends every process of the job with `exit_code` (MPI_Abort on
  // MPI_COMM_WORLD; std::exit without MPI). For an error that only rank 0
  // sees before the sweep (e.g. an output file it cannot write) while the
  // other ranks wait in DistributedSweep.
  [[noreturn]] void AbortAll(int exit_code) const;

  // Rank 0's *text on every rank (MPI_Bcast on MPI_COMM_WORLD). A
  // collective: every rank calls it, from the thread that initialized MPI,
  // in the same order, and none while a DistributedSweep or
  // DistributeTasks of this job runs. For what rank 0 alone computed
  // between two of them (ecmo_mtbl: the seeds' utopia points). Without
  // MPI, or with one rank, *text is left as it is. False when MPI fails
  // (the text is then unchanged).
  bool Broadcast(std::string* text) const;

 private:
  bool active_ = false;
  bool owns_ = false;
  int rank_ = 0;
  int size_ = 1;
  std::string error_;
};

// What a distributed sweep sent and received, counted on rank 0 (zeros on
// the other ranks and for a single process).
struct DistributedSweepStatistics {
  int num_ranks = 1;
  // Points solved on each rank by this call (size num_ranks).
  std::vector<int> points_per_rank;
  // Points handed to other ranks, and the bytes of those messages: the
  // tasks (preference, start point, warm start), the one-off setup per
  // rank (the scalarization), and the results (a point's JSON line).
  int64_t remote_points = 0;
  int64_t task_bytes = 0;
  int64_t setup_bytes = 0;
  int64_t result_bytes = 0;
  // (task_bytes + result_bytes) / remote_points; 0 when none.
  double BytesPerPoint() const;
  // One line, e.g. "2 ranks; points per rank 5, 6; 6 points sent, 1.2 KB
  // per point (0.5 KB task, 0.7 KB result), setup 0.4 KB".
  std::string Report() const;
};

// Runs the sweep of ecmo::Sweep (ecmo/sweep.h) over the ranks of
// MPI_COMM_WORLD, every rank calling it with the same arguments (see the
// top of this file). Without MPI, or with one rank, it is ecmo::Sweep.
// `statistics` may be null.
void DistributedSweep(const ParetoSweep::Options& options,
                      const EvaluatorFactory& factory,
                      const std::vector<std::vector<double>>& preferences,
                      ParetoSweep::Summary* summary,
                      DistributedSweepStatistics* statistics = nullptr);

// The same for a factory of ecmo::Problem instances.
void DistributedSweep(const ParetoSweep::Options& options,
                      const ProblemFactory& factory,
                      const std::vector<std::vector<double>>& preferences,
                      ParetoSweep::Summary* summary,
                      DistributedSweepStatistics* statistics = nullptr);

}  // namespace ecmo

#endif  // ECMO_SWEEP_MPI_H_
