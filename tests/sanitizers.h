// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Whether this test file is compiled under a sanitizer, for the few tests
// that cannot run there. g++ defines __SANITIZE_ADDRESS__ and
// __SANITIZE_THREAD__; clang (scripts/sanitize.sh) answers __has_feature
// instead. A build whose test files are not instrumented but linked with
// a sanitizer runtime (scripts/sanitize.sh) defines ECMO_UNDER_ASAN=1 on
// the command line.
#ifndef ECMO_TESTS_SANITIZERS_H_
#define ECMO_TESTS_SANITIZERS_H_

#if defined(__SANITIZE_ADDRESS__)
#define ECMO_UNDER_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define ECMO_UNDER_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(ECMO_UNDER_ASAN)
#define ECMO_UNDER_ASAN 1
#endif
#if __has_feature(thread_sanitizer) && !defined(ECMO_UNDER_TSAN)
#define ECMO_UNDER_TSAN 1
#endif
#if __has_feature(memory_sanitizer)
#define ECMO_UNDER_MSAN 1
#endif
#endif

#ifndef ECMO_UNDER_ASAN
#define ECMO_UNDER_ASAN 0
#endif
#ifndef ECMO_UNDER_TSAN
#define ECMO_UNDER_TSAN 0
#endif
#ifndef ECMO_UNDER_MSAN
#define ECMO_UNDER_MSAN 0
#endif

#endif  // ECMO_TESTS_SANITIZERS_H_
