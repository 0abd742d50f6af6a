// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Library: ecmo::sweep_mpi (find_package(ecmo COMPONENTS sweep_mpi)), built
// only with MPI (see ecmo/sweep_mpi.h). This header does not include mpi.h.
//
// The task farm of ecmo/task_farm.h over the ranks of an MPI job, for
// programs whose points are not one ecmo::Sweep (ecmo_mtbl's study over
// seeds, methods and preferences). Every rank calls DistributeTasks with
// the same options and functions (the usual SPMD program, under an
// ecmo::MpiSession):
//
//   ecmo::MpiSession mpi(&argc, &argv);
//   ecmo::DistributeTasks(options, tasks,
//       [&](int thread, int task) { return Solve(thread, task); },
//       [&](const ecmo::TaskFarm::Result& r) { Keep(r); });
//   if (!mpi.coordinator()) return 0;   // every result went to rank 0
//
// Rank 0 holds the list: only its `tasks` count (the other ranks' lists
// are ignored, so a list that only rank 0 can make, e.g. after reading a
// resume file, is fine). It solves tasks on num_threads threads of its
// own and hands the others to the other ranks, each of which solves up to
// num_threads at a time on its own threads: a rank gets its next task
// when it returns one (dynamic load balancing). A task travels as its
// number and its result as the text `solve` returned; `on_result` is
// called on rank 0 only, one call at a time, in completion order, with
// Result::rank saying who solved it. Without MPI, or with one rank, this
// is ecmo::RunTasks.
//
// Failure: a rank that dies makes Open MPI end the whole job; rank 0 has
// by then passed every result that came back to on_result, so a program
// that writes them as they come (ecmo_mtbl --output_dir) loses only the
// tasks in progress. The test hook ECMO_MPI_TEST_KILL_AT_POINT of
// ecmo/sweep_mpi.h applies here too (counting tasks).
//
// Threads: MPI is called only by the thread that calls DistributeTasks,
// which must be the thread that initialized MPI with at least
// MPI_THREAD_FUNNELED (MpiSession does); `solve` and `on_result` never
// need to call MPI. Nothing throws: on a misuse (not the MPI main thread)
// every task of rank 0 gets a Result whose error says so.

#ifndef ECMO_DISTRIBUTED_TASKS_H_
#define ECMO_DISTRIBUTED_TASKS_H_

#include <vector>

#include "ecmo/sweep_mpi.h"
#include "ecmo/task_farm.h"

namespace ecmo {

// Runs the tasks over the ranks of MPI_COMM_WORLD (see the top of this
// file). `statistics` (may be null) is filled on rank 0: points_per_rank
// counts tasks, remote_points the tasks sent, task_bytes and result_bytes
// what they cost on the wire.
void DistributeTasks(const TaskFarm::Options& options,
                     const std::vector<int>& tasks,
                     const TaskFarm::SolveFunction& solve,
                     const TaskFarm::ResultFunction& on_result,
                     DistributedSweepStatistics* statistics = nullptr);

}  // namespace ecmo

#endif  // ECMO_DISTRIBUTED_TASKS_H_
