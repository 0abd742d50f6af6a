// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The storage of a WC_SQP solve (wc_sqp.cc), kept with the evaluator
// (SolveWorkspace::sqp) from one solve to the next.
//
// Why: at k = 2 a WC_SQP point costs about 8 us, and building these
// vectors and matrices afresh per solve was a large part of its 121 heap
// allocations (73 once they are kept here and Eigen temporaries are
// avoided; benchmarks/README.md, "Per-solve overhead out of wc-sqp"); the
// sweep of a small problem solves thousands of points on one evaluator.
// Every member is sized and overwritten before it is read in a solve;
// nothing carries over but the capacity.

#ifndef ECMO_INTERNAL_WC_SQP_WORKSPACE_H_
#define ECMO_INTERNAL_WC_SQP_WORKSPACE_H_

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "Eigen/QR"
#include "ecmo/kkt.h"
#include "lbfgs_memory.h"

namespace ecmo {
namespace internal {

// The QP of one iteration and its solution, with the workspace SolveQp
// reuses across iterations and solves (at small k the QP's few-by-few
// temporaries, allocated afresh, cost more than its arithmetic).
struct QpStep {
  Eigen::VectorXd d;      // k
  Eigen::VectorXd omega;  // S, on the simplex
  Eigen::VectorXd nu;     // q
  // For the second-order correction: B^-1 J^T and SolveM.
  Eigen::MatrixXd b_inverse_jt;
  // M = J B^-1 J^T (q x q) and its complete orthogonal decomposition
  // (minimum-norm solutions if J lacks rank), or for q = 1 its one entry.
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> m;
  double m_scalar = 0.0;
  // M^-1 x in place (the minimum-norm least-squares solution).
  template <typename Matrix>
  void SolveM(Matrix* x) const {
    if (b_inverse_jt.cols() == 1) {
      // What the decomposition gives for 1 x 1: rank 0 only for M = 0.
      *x *= m_scalar != 0.0 ? 1.0 / m_scalar : 0.0;
    } else {
      *x = m.solve(*x);
    }
  }
  // Workspace.
  Eigen::MatrixXd pg;   // P G (k x S)
  Eigen::MatrixXd jx;   // J B^-1 G, then M^-1 J B^-1 G (q x S)
  Eigen::MatrixXd jbj;  // M (q x q)
  Eigen::VectorXd m_h;  // M^-1 h (q)
  Eigen::VectorXd d0;   // k
  Eigen::MatrixXd Q;    // S x S
  Eigen::VectorXd p;    // S
};

struct SqpWorkspace {
  Eigen::VectorXd z, a, h;  // iterate, weighted objectives, constraints
  KktMultipliers multipliers;
  Eigen::MatrixXd G, J;  // grad F diag(lambda) (k x S), J_h (q x k)
  Eigen::MatrixXd B;     // curvature (dense BFGS or exact)
  Eigen::LLT<Eigen::MatrixXd> factor;
  LbfgsMemory lbfgs;  // the limited-memory curvature
  QpStep qp;
  Eigen::VectorXd mu;  // merit weights (q)
  Eigen::VectorXd previous_z;
  Eigen::MatrixXd previous_G, previous_J;
  Eigen::VectorXd linearized_h;  // h + J d
  // The last step pair, B s, the line search's trial point.
  Eigen::VectorXd step_s, step_y, step_bs;
  Eigen::VectorXd slope, z_trial, a_trial, h_trial;
  // The second-order correction's.
  Eigen::VectorXd correction, z_soc, a_soc, h_soc;
  KktResidual estimate;        // K with the QP's multipliers
  KktResidual exact_residual;  // the exact K, when the estimate is close
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_WC_SQP_WORKSPACE_H_
