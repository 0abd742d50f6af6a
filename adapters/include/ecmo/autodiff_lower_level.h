// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// AutoDiffLowerLevel: a matrix-free LowerLevel (ecmo/mtbl.h) from the same
// templated functor g that MtblProblem::SetLowerLevelObjective takes,
// differentiated in reverse mode by ADOL-C (Debian: libadolc-dev). Built
// only when ceres-ecmo is configured with ADOL-C (CMake option
// ECMO_WITH_ADOLC; target and package component ecmo::autodiff).
//
//   struct LowerG {   // any g written for MtblProblem
//     template <typename T>
//     bool operator()(const T* x, const T* y, T* g) const;
//   };
//   ecmo::AutoDiffLowerLevel<LowerG> lower(new LowerG, nx, ny);
//   std::string error;
//   if (!lower.IsValid(&error)) { ... }
//   ecmo::MtblEvaluator evaluator(&lower);        // not owned
//
// WHY. MtblProblem differentiates g twice by nested forward-mode Jets and
// forms the dense ny x (nx + ny) Jacobian of grad_y g: fine for ny up to
// about 30, prohibitive beyond (one evaluation takes minutes at ny = 640
// for a logistic regression). Reverse mode gives grad g and every Hessian-vector
// product at a cost of a small multiple of one evaluation of g, whatever ny.
//
// HOW. g is instantiated with T = adouble (ADOL-C's active type) and
// recorded once on an ADOL-C tape (a trace of every elementary operation,
// with the control flow taken at the recording point). Each method then
// replays the tape at the requested (x, y):
//   Value, GradY, GradX   a zero-order forward sweep and, for the
//                         gradients, one first-order reverse sweep;
//   the Hessian products  a first-order forward sweep along (0, v) or
//                         (w_x, w_y) and one second-order reverse sweep;
//   the third-order       two second-order forward sweeps and two
//   product               second-order reverse sweeps (polarization of
//                         the third derivative tensor along (0, v) and d),
//                         exact up to rounding: HasExactThirdOrderProduct()
//                         is true. It costs about three Hessian-vector
//                         products, against 2 for LowerLevel's default
//                         central difference; it is kept because it is
//                         exact and evaluates g only at (x, y), where the
//                         difference steps to (x, y) +- t d, which may
//                         leave the domain of g or flip a branch (and force
//                         two new recordings per product).
// The functor is written exactly as for MtblProblem (constants as
// ecmo::K<T>(c), unqualified exp/log/pow, ...: see ecmo/mtbl.h); K<T> is
// correct for adouble. The cost of a product is proportional to the number
// of operations g performs (tens of bytes of tape per operation, and one
// stored Taylor coefficient per intermediate value), so a hand-written
// LowerLevel built on matrix products remains much faster (about 40 times
// for a logistic regression at ny = 640: benchmarks/README.md, "Automatic
// Hessian-vector products").
//
// Writing g for a short tape. ADOL-C records `s += a * b` with a and b
// both adoubles as one operation without an intermediate, but
// `s += a * 0.3` as two (a product, then a sum), each storing a Taylor
// coefficient for the Hessian products. In a long inner product with
// constant data (features times weights), copying the data of one sample
// into adoubles first (T c = 0.3; s += a * c) halves the tape and the
// time per product; ecmo::problems::MtblLogisticObjective does so for any
// T other than double and Jets.
//
// Branches. A comparison of adoubles (if (r < K<T>(1.0)) ...) is recorded
// with its outcome. When a sweep at a new (x, y) reports that a recorded
// comparison goes the other way (ADOL-C's negative return codes), the tape
// is recorded again at that point and the sweep repeated, so g may contain
// branches (Huber-type losses, max/min written with if). The branch taken
// must depend on (x, y) only through adoubles: a branch on a double read
// from the functor's own state is frozen at recording time.
//
// Ownership: takes ownership of the functor (as ceres::AutoDiffCostFunction
// does) and destroys it; a null functor is recorded as an error.
//
// Errors: nothing aborts. Sizes nx < 1 or ny < 1, a null functor, or no free
// tape tag make IsValid() false with a message; every method of an invalid
// instance returns false (MtblEvaluator::IsValid does not see the lower
// level's error, so check IsValid before building on it). When g returns
// false or a non-finite value (or non-finite derivatives) at the requested
// point, the method returns false, which MtblEvaluator and the lower-level
// solver turn into a failed evaluation with a message.
//
// Thread safety: ADOL-C keeps global state (tape buffers, the location
// store) that is not thread-safe. Every call into ADOL-C, from every
// AutoDiffLowerLevel in the process, is made under one process-wide mutex,
// so the const methods are safe to call from several threads, but
// concurrent products serialize: a threaded sweep (Sweep::Options::
// num_threads) gains nothing on the lower level. For parallel sweeps over
// AutoDiffLowerLevels use processes (MPI sweeps, docs/distributed.md).
// Your own ADOL-C code in the same process must not use tape tags from
// kFirstTapeTag up, nor call ADOL-C while another thread uses an
// AutoDiffLowerLevel (it does not take this mutex). Creating an instance
// turns off ADOL-C's branch-switch warnings on stderr for the process
// (switches are handled by recording again).
//
// Tape files: ADOL-C keeps a tape in memory when it fits its buffers, and
// otherwise spills it into ADOLC-*_<tag>.tap files in the working
// directory. The first recording gets buffers for 2^23 operations (only the
// part a tape uses is backed by memory), then the tape is recorded again
// with buffers of its measured size; so a g of up to 2^23 (8.4 million)
// elementary operations never touches the disk (ny = 6400 in the logistic
// benchmark: 6.4 million), and a larger one spills only its first
// recording. ADOL-C removes such files with the tape, which
// the destructor releases.

#ifndef ECMO_AUTODIFF_LOWER_LEVEL_H_
#define ECMO_AUTODIFF_LOWER_LEVEL_H_

#include <adolc/adouble.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ecmo/mtbl.h"

namespace ecmo {

namespace internal {

// The non-template part of AutoDiffLowerLevel: one ADOL-C tape over
// z = (x, y) with one dependent, g. Every public method takes the
// process-wide ADOL-C mutex.
class AdolcTape {
 public:
  // Records g: called with the ADOL-C mutex held while tracing, with nx and
  // ny independent adoubles; returns what the functor returns.
  using Recorder =
      std::function<bool(const adouble* x, const adouble* y, adouble* g)>;

  // Allocates a tape tag (no recording yet: the first sweep records at its
  // point). On failure (no free tag) ok() is false and error() says why.
  AdolcTape(int nx, int ny, Recorder recorder);
  ~AdolcTape();
  AdolcTape(const AdolcTape&) = delete;
  AdolcTape& operator=(const AdolcTape&) = delete;

  bool ok() const { return tag_ >= 0; }
  const std::string& error() const { return error_; }

  // Vectors over z = (x, y) are passed as their x and y parts. A null
  // input part is zero; a null output part is not written.

  // g(x, y).
  bool Value(const double* x, const double* y, double* g);
  // grad g(x, y).
  bool Gradient(const double* x, const double* y, double* out_x, double* out_y);
  // grad^2 g(x, y) (d_x, d_y).
  bool HessianProduct(const double* x,
                      const double* y,
                      const double* d_x,
                      const double* d_y,
                      double* out_x,
                      double* out_y);
  // The third derivative tensor of g at (x, y) applied to a and b:
  // D^3 g [(a_x, a_y), (b_x, b_y), .].
  bool ThirdOrderProduct(const double* x,
                         const double* y,
                         const double* a_x,
                         const double* a_y,
                         const double* b_x,
                         const double* b_y,
                         double* out_x,
                         double* out_y);

  // Statistics, for benchmarks: recordings so far (the first one plus one
  // per branch change; a recording's sizing pass is part of it), the wall
  // time of the last one, and the operations on the tape.
  struct Statistics {
    int recordings = 0;
    double last_recording_seconds = 0.0;
    long long num_operations = 0;
  };
  Statistics statistics() const;

 private:
  class Impl;
  // Runs `sweep` (filling a vector over z) under the ADOL-C mutex and
  // splits its result into out_x and out_y.
  bool SweepAndSplit(const std::function<bool(std::vector<double>*)>& sweep,
                     double* out_x,
                     double* out_y);

  std::unique_ptr<Impl> impl_;
  int nx_;
  int ny_;
  int tag_ = -1;
  std::string error_;
};

}  // namespace internal

// The first ADOL-C tape tag AutoDiffLowerLevel uses; tags are allocated
// upwards from here, process-wide, and released by the destructor.
constexpr int kFirstTapeTag = 16384;

// A LowerLevel whose derivatives come from ADOL-C's reverse mode on a tape
// of the functor G (see the top of this file).
template <typename G>
class AutoDiffLowerLevel final : public LowerLevel {
 public:
  // Takes ownership of g. nx, ny >= 1 are the sizes of x and y (the functor
  // is called with arrays of exactly these sizes).
  AutoDiffLowerLevel(G* g, int nx, int ny) : functor_(g), nx_(nx), ny_(ny) {
    if (functor_ == nullptr) {
      error_ = "AutoDiffLowerLevel: the functor is null.";
    } else if (nx < 1 || ny < 1) {
      error_ = "AutoDiffLowerLevel: nx = " + std::to_string(nx) +
               " and ny = " + std::to_string(ny) + "; both must be >= 1.";
    } else {
      const G* functor = functor_.get();
      tape_ = std::make_unique<internal::AdolcTape>(
          nx, ny, [functor](const adouble* x, const adouble* y, adouble* g) {
            return (*functor)(x, y, g);
          });
      if (!tape_->ok()) error_ = tape_->error();
    }
  }
  AutoDiffLowerLevel(const AutoDiffLowerLevel&) = delete;
  AutoDiffLowerLevel& operator=(const AutoDiffLowerLevel&) = delete;

  // True when the functor, the sizes and the tape tag are valid; otherwise
  // `error` (if not null) says what is wrong.
  bool IsValid(std::string* error) const {
    if (error != nullptr) *error = error_;
    return error_.empty();
  }

  int NumUpperParameters() const override { return nx_; }
  int NumLowerParameters() const override { return ny_; }

  bool Value(const double* x, const double* y, double* g) const override {
    return usable() && tape_->Value(x, y, g);
  }
  bool GradY(const double* x, const double* y, double* h) const override {
    return usable() && tape_->Gradient(x, y, nullptr, h);
  }
  bool GradX(const double* x, const double* y, double* out) const override {
    return usable() && tape_->Gradient(x, y, out, nullptr);
  }
  // out_x = H_xy v, out_y = H_yy v: the Hessian of g in (x, y) times (0, v).
  bool GradYJacobianTransposeProduct(const double* x,
                                     const double* y,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    return usable() && tape_->HessianProduct(x, y, nullptr, v, out_x, out_y);
  }
  // The y rows of the Hessian of g times (w_x, w_y), exact.
  bool GradYJacobianProduct(const double* x,
                            const double* y,
                            const double* w_x,
                            const double* w_y,
                            double* out) const override {
    return usable() && tape_->HessianProduct(x, y, w_x, w_y, nullptr, out);
  }
  // D^3 g [(0, v), (d_x, d_y), .], exact (see the top of this file).
  bool GradYJacobianTransposeProductDerivative(const double* x,
                                               const double* y,
                                               const double* v,
                                               const double* d_x,
                                               const double* d_y,
                                               double* out_x,
                                               double* out_y) const override {
    return usable() &&
           tape_->ThirdOrderProduct(x, y, nullptr, v, d_x, d_y, out_x, out_y);
  }
  bool HasExactThirdOrderProduct() const override { return true; }

  // Recordings, last recording time and tape length (for benchmarks).
  internal::AdolcTape::Statistics TapeStatistics() const {
    return tape_ != nullptr ? tape_->statistics()
                            : internal::AdolcTape::Statistics();
  }

 private:
  bool usable() const { return error_.empty(); }

  std::unique_ptr<G> functor_;
  int nx_;
  int ny_;
  std::string error_;
  std::unique_ptr<internal::AdolcTape> tape_;
};

}  // namespace ecmo

#endif  // ECMO_AUTODIFF_LOWER_LEVEL_H_
