// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Counts heap allocations by interposing malloc, calloc and realloc (Eigen
// allocates with std::malloc, not operator new; operator new calls malloc)
// and forwarding to glibc. Include it in exactly one file of a test
// program (and so of a test group, tests/CMakeLists.txt): it defines those
// functions for the whole program. Not under the
// sanitizers, whose runtimes own malloc, nor without glibc: there
// ECMO_COUNT_MALLOC is 0 and a test should GTEST_SKIP.
//
//   ecmo::testing::AllocationCount count;  // counts from here ...
//   ...
//   const long n = count.Stop();           // ... to here
#ifndef ECMO_TESTS_MALLOC_COUNTER_H_
#define ECMO_TESTS_MALLOC_COUNTER_H_

#include <atomic>
#include <cstddef>

#include "sanitizers.h"

#if ECMO_UNDER_ASAN || ECMO_UNDER_TSAN || ECMO_UNDER_MSAN
#define ECMO_COUNT_MALLOC 0
#endif
#if !defined(ECMO_COUNT_MALLOC) && defined(__GLIBC__)
#define ECMO_COUNT_MALLOC 1
#endif
#ifndef ECMO_COUNT_MALLOC
#define ECMO_COUNT_MALLOC 0
#endif

namespace ecmo {
namespace testing {

inline std::atomic<bool> g_counting{false};
inline std::atomic<long> g_allocations{0};
// While set, every malloc, calloc and realloc fails (returns null), as
// under an exhausted memory limit; operator new then throws
// std::bad_alloc.
inline std::atomic<bool> g_failing{false};

// Makes every allocation of every thread fail while it lives. Keep the
// scope tight: gtest's own messages allocate.
class AllocationFailure {
 public:
  AllocationFailure() { g_failing = true; }
  ~AllocationFailure() { g_failing = false; }
};

// Counts the allocations of every thread while it lives (or until Stop).
class AllocationCount {
 public:
  AllocationCount() {
    g_allocations = 0;
    g_counting = true;
  }
  ~AllocationCount() { g_counting = false; }
  long Stop() {
    g_counting = false;
    return g_allocations.load();
  }
};

}  // namespace testing
}  // namespace ecmo

#if ECMO_COUNT_MALLOC
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* malloc(size_t size) {
  if (ecmo::testing::g_counting.load(std::memory_order_relaxed)) {
    ++ecmo::testing::g_allocations;
  }
  if (ecmo::testing::g_failing.load(std::memory_order_relaxed)) {
    return nullptr;
  }
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  if (ecmo::testing::g_counting.load(std::memory_order_relaxed)) {
    ++ecmo::testing::g_allocations;
  }
  if (ecmo::testing::g_failing.load(std::memory_order_relaxed)) {
    return nullptr;
  }
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, size_t size) {
  if (ecmo::testing::g_counting.load(std::memory_order_relaxed)) {
    ++ecmo::testing::g_allocations;
  }
  if (ecmo::testing::g_failing.load(std::memory_order_relaxed)) {
    return nullptr;
  }
  return __libc_realloc(pointer, size);
}
}
#endif

#endif  // ECMO_TESTS_MALLOC_COUNTER_H_
