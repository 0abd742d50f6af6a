// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The ADOL-C tape behind AutoDiffLowerLevel (ecmo/autodiff_lower_level.h).
//
// One tape per instance, over z = (x, y) with the single dependent g. The
// sweeps used, with ADOL-C's Taylor coefficients of x(t) = z + s t:
//   gradient           zos_forward(keep = 1) + fos_reverse;
//   H s                fos_forward(keep = 2) + hos_reverse(d = 1), whose
//                      Z[i][1] = d (grad g . s) / d z_i;
//   D^3 g [a, b, .]    hos_forward(d = 2, keep = 3) + hos_reverse(d = 2)
//                      along s = a + b and s = a - b: Z[i][2] =
//                      1/2 D^3 g [s, s, e_i], and by polarization
//                      D^3 g [a, b] = (Z_2(a + b) - Z_2(a - b)) / 2; a and
//                      b are normalized first so neither drowns the other
//                      in the difference.
// ADOL-C's forward sweeps always recompute the zero-order values, so
// consecutive products at the same point cannot skip them; keep = 2 stores
// exactly what the reverse sweep of that product needs. (A zero-order sweep
// alone costs about a quarter of a product: benchmarks/README.md.)
//
// Not used, with reasons:
//   - hess_vec: ADOL-C's driver for the same pair of sweeps.
//   - External functions (reg_ext_fct) for a linear part of g with
//     hand-written derivatives: ADOL-C 2.7's hos_reverse skips external
//     functions (its ext_diff case does nothing), so second-order adjoints
//     through them are wrong.
//   - adolc_vec_dot on contiguous adoubles: one operation per inner
//     product, about 1.4 times faster still on the logistic g, but it
//     needs an ADOL-C-specific call in the functor and contiguous
//     locations, which the functor cannot see.

#include "ecmo/autodiff_lower_level.h"

#include <adolc/adolc.h>
#include <adolc/internal/usrparms.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <vector>

namespace ecmo {
namespace internal {

namespace {

// ADOL-C's global state (tapes, the location store, the current tape) is
// not thread-safe: every call into it goes through this mutex.
std::mutex& AdolcMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

// Entries of each buffer (operations, locations, values) of a tape's first
// recording; see AdolcTape::Impl::Record.
constexpr size_t kFirstRecordingEntries = size_t{1} << 23;

// Tape tags in use (tags are shorts in ADOL-C 2.7). Guarded by AdolcMutex.
std::vector<bool>& UsedTags() {
  static std::vector<bool>* used =
      new std::vector<bool>(32768 - kFirstTapeTag, false);
  return *used;
}

bool AllFinite(const double* values, int n) {
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) return false;
  }
  return true;
}

// (a, b) as one vector over z = (x, y); a null part is zero.
std::vector<double> Pack(int nx, int ny, const double* a, const double* b) {
  std::vector<double> z(nx + ny, 0.0);
  if (a != nullptr) std::copy(a, a + nx, z.begin());
  if (b != nullptr) std::copy(b, b + ny, z.begin() + nx);
  return z;
}

// The x and y parts of z into out_x and out_y (a null part is skipped).
void Unpack(int nx,
            int ny,
            const std::vector<double>& z,
            double* out_x,
            double* out_y) {
  if (out_x != nullptr) std::copy(z.begin(), z.begin() + nx, out_x);
  if (out_y != nullptr) std::copy(z.begin() + nx, z.begin() + nx + ny, out_y);
}

}  // namespace

// A row-pointer view (double**) of an n x columns row-major array, the
// layout ADOL-C's higher-order drivers take. Outside the anonymous
// namespace: AdolcTape::Impl's lambdas capture it, and a type with external
// linkage must not hold one with internal linkage (g++'s
// -Wsubobject-linkage, raised when a unity build includes this file).
class AdolcRows {
 public:
  AdolcRows(int n, int columns)
      : data_(static_cast<size_t>(n) * columns, 0.0), rows_(n) {
    for (int i = 0; i < n; ++i) rows_[i] = data_.data() + i * columns;
  }
  double** get() { return rows_.data(); }
  double* operator[](int i) { return rows_[i]; }

 private:
  std::vector<double> data_;
  std::vector<double*> rows_;
};

class AdolcTape::Impl {
 public:
  Impl(short tag, int nx, int ny, Recorder recorder)
      : tag_(tag), nx_(nx), n_(nx + ny), recorder_(recorder) {}

  ~Impl() {
    if (ever_recorded_) removeTape(tag_, ADOLC_REMOVE_COMPLETELY);
  }

  // Vectors of size n = nx + ny over z = (x, y).
  bool Value(const std::vector<double>& z, double* g) {
    double value = 0.0;
    if (!Sweep(z,
               [&] { return zos_forward(tag_, 1, n_, 0, z.data(), &value); })) {
      return false;
    }
    *g = value;
    return std::isfinite(value);
  }

  bool Gradient(const std::vector<double>& z, std::vector<double>* grad) {
    double value = 0.0;
    if (!Sweep(z,
               [&] { return zos_forward(tag_, 1, n_, 1, z.data(), &value); })) {
      return false;
    }
    double weight = 1.0;
    grad->resize(n_);
    fos_reverse(tag_, 1, n_, &weight, grad->data());
    return std::isfinite(value) && AllFinite(grad->data(), n_);
  }

  bool HessianProduct(const std::vector<double>& z,
                      std::vector<double> dir,
                      std::vector<double>* out) {
    double value = 0.0, slope = 0.0;
    if (!Sweep(z, [&] {
          return fos_forward(
              tag_, 1, n_, 2, z.data(), dir.data(), &value, &slope);
        })) {
      return false;
    }
    double weight = 1.0;
    AdolcRows adjoints(n_, 2);
    hos_reverse(tag_, 1, n_, 1, &weight, adjoints.get());
    out->resize(n_);
    for (int i = 0; i < n_; ++i) (*out)[i] = adjoints[i][1];
    return std::isfinite(value) && AllFinite(out->data(), n_);
  }

  bool ThirdOrderProduct(const std::vector<double>& z,
                         const std::vector<double>& a,
                         const std::vector<double>& b,
                         std::vector<double>* out) {
    double norm_a = 0.0, norm_b = 0.0;
    for (int i = 0; i < n_; ++i) {
      norm_a += a[i] * a[i];
      norm_b += b[i] * b[i];
    }
    norm_a = std::sqrt(norm_a);
    norm_b = std::sqrt(norm_b);
    out->assign(n_, 0.0);
    if (norm_a == 0.0 || norm_b == 0.0) {
      // Still evaluate g, so a point outside the domain is reported.
      double value = 0.0;
      return Value(z, &value);
    }
    AdolcRows taylor(n_, 2);
    AdolcRows adjoints(n_, 3);
    double value = 0.0, weight = 1.0;
    double image[2] = {0.0, 0.0};
    double* image_rows[1] = {image};
    for (const double sign : {1.0, -1.0}) {
      for (int i = 0; i < n_; ++i) {
        taylor[i][0] = a[i] / norm_a + sign * b[i] / norm_b;
        taylor[i][1] = 0.0;
      }
      if (!Sweep(z, [&] {
            return hos_forward(
                tag_, 1, n_, 2, 3, z.data(), taylor.get(), &value, image_rows);
          })) {
        return false;
      }
      hos_reverse(tag_, 1, n_, 2, &weight, adjoints.get());
      for (int i = 0; i < n_; ++i) (*out)[i] += sign * adjoints[i][2];
    }
    const double scale = 0.5 * norm_a * norm_b;
    for (int i = 0; i < n_; ++i) (*out)[i] *= scale;
    return std::isfinite(value) && AllFinite(out->data(), n_);
  }

  Statistics statistics() const { return statistics_; }

 private:
  // Runs a forward sweep (which returns ADOL-C's code) on a tape valid at
  // z: records it first if there is none, and again at z when the sweep
  // reports a recorded comparison decided differently at z (negative
  // codes: -1 a tie, -2 a switch). False when g cannot be recorded at z.
  template <typename Forward>
  bool Sweep(const std::vector<double>& z, Forward forward) {
    if (!recorded_ && !Record(z)) return false;
    if (forward() >= 0) return true;
    if (!Record(z)) return false;
    // At a tie the new tape still reports -1; its branch is the one g took
    // at z, which is what a plain evaluation would give.
    forward();
    return true;
  }

  // Records g at z. The first recording gets buffers of
  // kFirstRecordingEntries entries each: the C library backs a large
  // allocation with pages only where it is written, so this costs the
  // tape's real size in memory while keeping a g of up to that many
  // operations from spilling into ADOLC-*.tap files in the working
  // directory (where two processes using the same tag would share them).
  // The tape is then recorded again with buffers of its measured size (25%
  // headroom, at least ADOL-C's defaults), and again later whenever a
  // recording spilled or its Taylor stack outgrew the buffer (keep = 3
  // stores three coefficients per value), so every sweep runs in memory.
  // Counts as one recording in the statistics, whatever the passes.
  bool Record(const std::vector<double>& z) {
    const auto start = std::chrono::steady_clock::now();
    ++statistics_.recordings;
    const bool ok = RecordSized(z);
    statistics_.last_recording_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return ok;
  }

  bool RecordSized(const std::vector<double>& z) {
    const bool first = !sized_;
    if (first) {
      buffers_.op = buffers_.loc = buffers_.val = kFirstRecordingEntries;
      buffers_.tay = TBUFSIZE;
    }
    if (!RecordOnce(z)) return false;
    size_t stats[STAT_SIZE];
    tapestats(tag_, stats);
    statistics_.num_operations = static_cast<long long>(stats[NUM_OPERATIONS]);
    const bool spilled = stats[OP_FILE_ACCESS] != 0 ||
                         stats[LOC_FILE_ACCESS] != 0 ||
                         stats[VAL_FILE_ACCESS] != 0;
    const size_t taylors = 3 * stats[TAY_STACK_SIZE] + 1024;
    if (!first && !spilled && taylors <= buffers_.tay) return true;
    auto fit = [](size_t needed, size_t minimum) {
      return std::max<size_t>(minimum, needed + needed / 4 + 1024);
    };
    buffers_.op = fit(stats[NUM_OPERATIONS], OBUFSIZE);
    buffers_.loc = fit(stats[NUM_LOCATIONS], LBUFSIZE);
    buffers_.val = fit(stats[NUM_VALUES], VBUFSIZE);
    buffers_.tay = fit(taylors, TBUFSIZE);
    sized_ = true;
    return RecordOnce(z);
  }

  bool RecordOnce(const std::vector<double>& z) {
    trace_on(tag_,
             0,
             static_cast<uint>(buffers_.op),
             static_cast<uint>(buffers_.loc),
             static_cast<uint>(buffers_.val),
             static_cast<uint>(buffers_.tay));
    bool ok = false;
    {
      std::vector<adouble> az(n_);
      for (int i = 0; i < n_; ++i) az[i] <<= z[i];
      adouble g = 0.0;
      ok = recorder_(az.data(), az.data() + nx_, &g);
      // One dependent even when g failed, so the tape is closed properly.
      double value = 0.0;
      g >>= value;
      ok = ok && std::isfinite(value);
    }
    trace_off();
    ever_recorded_ = true;
    recorded_ = ok;
    return ok;
  }

  struct Buffers {
    size_t op = 0, loc = 0, val = 0, tay = 0;
  };

  const short tag_;
  const int nx_, n_;
  const Recorder recorder_;
  bool recorded_ = false;       // a tape valid somewhere exists
  bool ever_recorded_ = false;  // ADOL-C holds (or held) a tape for tag_
  Buffers buffers_;
  bool sized_ = false;  // buffers_ fit a recorded tape
  Statistics statistics_;
};

AdolcTape::AdolcTape(int nx, int ny, Recorder recorder) : nx_(nx), ny_(ny) {
  std::lock_guard<std::mutex> lock(AdolcMutex());
  std::vector<bool>& used = UsedTags();
  for (size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) {
      used[i] = true;
      tag_ = kFirstTapeTag + static_cast<int>(i);
      break;
    }
  }
  if (tag_ < 0) {
    error_ = "AutoDiffLowerLevel: all " + std::to_string(used.size()) +
             " ADOL-C tape tags from " + std::to_string(kFirstTapeTag) +
             " are in use; destroy unused instances.";
    return;
  }
  // Branch switches are handled here (re-recording), so ADOL-C's warning
  // about them on stderr would only be noise.
  disableBranchSwitchWarnings();
  impl_ = std::make_unique<Impl>(
      static_cast<short>(tag_), nx, ny, std::move(recorder));
}

AdolcTape::~AdolcTape() {
  std::lock_guard<std::mutex> lock(AdolcMutex());
  impl_.reset();
  if (tag_ >= 0) UsedTags()[tag_ - kFirstTapeTag] = false;
}

bool AdolcTape::Value(const double* x, const double* y, double* g) {
  const std::vector<double> z = Pack(nx_, ny_, x, y);
  std::lock_guard<std::mutex> lock(AdolcMutex());
  return impl_ != nullptr && impl_->Value(z, g);
}

bool AdolcTape::Gradient(const double* x,
                         const double* y,
                         double* out_x,
                         double* out_y) {
  const std::vector<double> z = Pack(nx_, ny_, x, y);
  return SweepAndSplit(
      [&](std::vector<double>* grad) { return impl_->Gradient(z, grad); },
      out_x,
      out_y);
}

bool AdolcTape::HessianProduct(const double* x,
                               const double* y,
                               const double* d_x,
                               const double* d_y,
                               double* out_x,
                               double* out_y) {
  const std::vector<double> z = Pack(nx_, ny_, x, y);
  std::vector<double> d = Pack(nx_, ny_, d_x, d_y);
  return SweepAndSplit(
      [&](std::vector<double>* product) {
        return impl_->HessianProduct(z, std::move(d), product);
      },
      out_x,
      out_y);
}

bool AdolcTape::ThirdOrderProduct(const double* x,
                                  const double* y,
                                  const double* a_x,
                                  const double* a_y,
                                  const double* b_x,
                                  const double* b_y,
                                  double* out_x,
                                  double* out_y) {
  const std::vector<double> z = Pack(nx_, ny_, x, y);
  const std::vector<double> a = Pack(nx_, ny_, a_x, a_y);
  const std::vector<double> b = Pack(nx_, ny_, b_x, b_y);
  return SweepAndSplit(
      [&](std::vector<double>* product) {
        return impl_->ThirdOrderProduct(z, a, b, product);
      },
      out_x,
      out_y);
}

bool AdolcTape::SweepAndSplit(
    const std::function<bool(std::vector<double>*)>& sweep,
    double* out_x,
    double* out_y) {
  std::vector<double> result;
  {
    std::lock_guard<std::mutex> lock(AdolcMutex());
    if (impl_ == nullptr || !sweep(&result)) return false;
  }
  Unpack(nx_, ny_, result, out_x, out_y);
  return true;
}

AdolcTape::Statistics AdolcTape::statistics() const {
  std::lock_guard<std::mutex> lock(AdolcMutex());
  return impl_ != nullptr ? impl_->statistics() : Statistics();
}

}  // namespace internal
}  // namespace ecmo
