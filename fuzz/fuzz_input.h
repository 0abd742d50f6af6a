// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Reads typed values from a fuzzer's byte string; past the end every read
// returns zero, so any input is a valid program.
#ifndef ECMO_FUZZ_FUZZ_INPUT_H_
#define ECMO_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace ecmo {
namespace fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }

  // An integer in [lo, hi].
  int Int(int lo, int hi) { return lo + Byte() % (hi - lo + 1); }

  // A double that is usually moderate but can be NaN, +-Inf, huge or tiny.
  double Double() {
    const uint8_t kind = Byte();
    switch (kind % 16) {
      case 0:
        return std::numeric_limits<double>::quiet_NaN();
      case 1:
        return std::numeric_limits<double>::infinity();
      case 2:
        return -std::numeric_limits<double>::infinity();
      case 3:
        return 1e300;
      case 4:
        return -1e-300;
      case 5: {
        // Any bit pattern: denormals, NaN payloads, extremes.
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | Byte();
        double raw = 0.0;
        std::memcpy(&raw, &bits, sizeof(raw));
        return raw;
      }
      default:
        return (static_cast<int>(Byte()) - 128) / 16.0;
    }
  }

  size_t remaining() const { return pos_ < size_ ? size_ - pos_ : 0; }
  const uint8_t* rest() const { return data_ + pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace fuzz
}  // namespace ecmo

#endif  // ECMO_FUZZ_FUZZ_INPUT_H_
