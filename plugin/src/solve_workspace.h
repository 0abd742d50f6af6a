// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// What ecmo::Solve keeps between the solves made on one evaluator: the
// points of a sweep that one worker solves on its own evaluator.
//
// Why: every k-sized vector a solve allocates and frees is, from k ~ 1e5
// on (800 KB and more), a fresh mapping from the kernel (above glibc's mmap
// threshold, or trimmed from the top of the heap when freed), zeroed page
// by page on first touch. Allocated per point, the certification systems,
// the reduced penalty's gradients and the outer loop's iterates cost 1,400
// page faults per point of a k = 1e5 warm sweep, and the two threads of a
// sweep spent their time in the kernel's page-fault path instead of in the
// problem (1.45x instead of 2x). Kept here, they are sized on the first
// point and reused by every later one.
//
// Owned by the evaluator (Evaluator::workspace), created on first use,
// freed with it; it retains what its largest solve needed. One solve at a
// time, like the evaluator itself: a strategy uses these members for the
// length of its solve, and ComputeKktReport(Evaluator*, ...) uses
// `certification` (so a strategy must not hold a reference to it across
// such a call).

#ifndef ECMO_INTERNAL_SOLVE_WORKSPACE_H_
#define ECMO_INTERNAL_SOLVE_WORKSPACE_H_

#include <memory>

#include "Eigen/Core"
#include "ecmo/kkt.h"
#include "ecmo/wc_reduced_penalty.h"
#include "sparse_ldlt.h"
#include "wc_sqp_workspace.h"

namespace ecmo {
namespace internal {

struct SolveWorkspace {
  // ecmo::Solve's own evaluations around the strategy: at the start point
  // (objectives, constraints, gradients for the internal scaling) and at
  // the final point, with its constraint violation. Only Solve uses them,
  // before and after the strategy runs.
  Eigen::VectorXd start_f, start_h, final_f, final_h, final_violation;
  Eigen::MatrixXd start_grad;
  // The strategies' least-squares certification (WC_SQP's linearization
  // too) and ComputeKktReport(Evaluator*, ...), which scores the final
  // point when the strategy does not hand its system over.
  KktSystem certification;
  // The quasi-Newton strategies' extrapolated penalty-path points.
  KktSystem extrapolation;
  // The quasi-Newton strategies' reduced penalty function (Reset per solve).
  std::unique_ptr<WcReducedPenalty> reduced_penalty;
  // The quasi-Newton outer loop's iterates x = (rho, z) (1 + k each), its
  // multiplier shifts (S and q) and the residual its least-squares
  // certification scores.
  Eigen::VectorXd x, x_start, previous_x, x_extrapolated;
  Eigen::VectorXd omega_shift, nu_shift;
  KktResidual certification_residual;
  // WC_SQP's iterates, curvature, QP and line-search storage.
  SqpWorkspace sqp;
  // WC_NEWTON's sparse factorization of the Gauss-Newton matrix, whose
  // pattern is the evaluator's (see sparse_ldlt.h).
  SparseLdlt gauss_newton;
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_SOLVE_WORKSPACE_H_
