// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Registering your own problems in a shared library, so that the installed
// command-line tool can sweep, plot and cross-check them:
//
//   ecmo_solve --problem_library=./libmy_problems.so --list_problems
//   ecmo_solve --problem_library=./libmy_problems.so --problem=my_front
//              --sweep=21 --plot=front.png --reference=ipopt
//
// In the library, write one function per problem that returns its
// ecmo::problems::ProblemInfo (ecmo/problems/registry.h: name, description,
// sizes, objective_offset, and `build` returning a ProblemInstance, or
// `build_evaluator` for an evaluator-only problem; optionally pareto_point
// and pareto_front, which --plot draws), and register it once at namespace
// scope in any source file of the library:
//
//   #include "ecmo/problems/registration.h"
//
//   ecmo::problems::ProblemInfo MyFront() {
//     ecmo::problems::ProblemInfo info;
//     info.name = "my_front";
//     ...
//     return info;
//   }
//   ECMO_REGISTER_PROBLEM(MyFront);
//
// and build the library against the installed package (CMake):
//
//   find_package(ecmo 0.2 REQUIRED COMPONENTS problems)
//   add_library(my_problems MODULE my_problems.cc)
//   target_link_libraries(my_problems PRIVATE ecmo::problems)
//
// examples/problem_library/ is a complete, tested example and
// docs/problem_libraries.md the guide.
//
// Rules checked when the library is loaded (ecmo::problems::
// LoadProblemLibrary in registry.h, used by ecmo_solve --problem_library),
// each refused with a message that names the library and what to do: the
// library must have been built against the same ECMO version (major.minor)
// and problem-library ABI (kProblemLibraryAbi below) as the tool loading it;
// it must register at least one problem; every name must be non-empty and
// must not clash with a built-in problem or a problem of another loaded
// library; every entry needs num_objectives >= 1 and `build` or
// `build_evaluator`.
//
// Lifetime: a loaded library stays loaded until the program exits (its code
// backs every ProblemInfo it registered). Thread safety: the factories run
// once, when the library is loaded; `build` / `build_evaluator` must be
// callable from several threads at once (a sweep with --num_threads builds
// one instance per thread), as the built-in entries are.
//
// How it works (nothing a library author needs to touch): the macro adds
// the factory to a list private to the library (hidden visibility), and
// makes the library export two C functions that the loader looks up with
// dlsym: ecmo_problem_library_abi (fills an EcmoProblemLibraryAbi, a C
// struct whose layout never changes, so that any loader can read it and
// refuse a mismatch before calling any C++ code of the library) and
// ecmo_problem_library_factories (the list). They are functions rather than
// variables because GCC makes inline variables process-wide unique symbols,
// and the second library loaded would then report the first one's ABI.

#ifndef ECMO_PROBLEMS_REGISTRATION_H_
#define ECMO_PROBLEMS_REGISTRATION_H_

#include <vector>

#include "ecmo/problems/registry.h"
#include "ecmo/version.h"

// What a problem library was built against. Plain C, and frozen (never
// change it: loaders of every version fill it through the library's
// ecmo_problem_library_abi): the loader reads it before trusting anything
// else in the library.
struct EcmoProblemLibraryAbi {
  // ecmo::problems::kProblemLibraryAbi of the headers the library was built
  // with.
  int abi;
  // ECMO_VERSION_MAJOR / MINOR / PATCH of those headers.
  int version_major;
  int version_minor;
  int version_patch;
  // sizeof(ProblemInfo), sizeof(ProblemInstance): catch a library built with
  // another standard library ABI (e.g. _GLIBCXX_USE_CXX11_ABI=0) or
  // modified headers.
  int problem_info_size;
  int problem_instance_size;
};

namespace ecmo {
namespace problems {

// The problem-library ABI: raised whenever a change to ProblemInfo,
// ProblemInstance, EvaluatorInstance, ecmo::Problem, ecmo::Evaluator or the
// registration functions would make a library built against older headers
// misbehave in a newer tool. The loader also requires the same ECMO
// major.minor version.
constexpr int kProblemLibraryAbi = 1;

namespace registration_internal {

using ProblemFactory = ProblemInfo (*)();

// The factories registered by this library (hidden: each library has its
// own list, even if several are loaded into one process).
__attribute__((visibility("hidden"))) inline std::vector<ProblemFactory>&
Factories() {
  static std::vector<ProblemFactory> factories;
  return factories;
}

struct Registrar {
  explicit Registrar(ProblemFactory factory) { Factories().push_back(factory); }
};

}  // namespace registration_internal
}  // namespace problems
}  // namespace ecmo

// The tests build deliberately mismatched libraries with these; never define
// them in a real library.
#ifndef ECMO_PROBLEM_LIBRARY_ABI_FOR_TESTING
#define ECMO_PROBLEM_LIBRARY_ABI_FOR_TESTING \
  ::ecmo::problems::kProblemLibraryAbi
#endif
#ifndef ECMO_PROBLEM_LIBRARY_VERSION_MINOR_FOR_TESTING
#define ECMO_PROBLEM_LIBRARY_VERSION_MINOR_FOR_TESTING ECMO_VERSION_MINOR
#endif

// The loader (registry_library.cc) includes this header for the types
// above only.
#ifndef ECMO_PROBLEM_LIBRARY_LOADER
extern "C" {

// Exported from the library (see "How it works" above). `used`: emitted in
// every source file that includes this header, even if nothing calls them.
__attribute__((visibility("default"), used)) inline void
ecmo_problem_library_abi(EcmoProblemLibraryAbi* abi) {
  abi->abi = ECMO_PROBLEM_LIBRARY_ABI_FOR_TESTING;
  abi->version_major = ECMO_VERSION_MAJOR;
  abi->version_minor = ECMO_PROBLEM_LIBRARY_VERSION_MINOR_FOR_TESTING;
  abi->version_patch = ECMO_VERSION_PATCH;
  abi->problem_info_size =
      static_cast<int>(sizeof(::ecmo::problems::ProblemInfo));
  abi->problem_instance_size =
      static_cast<int>(sizeof(::ecmo::problems::ProblemInstance));
}

// The registered factories: *count of them at the returned address.
__attribute__((
    visibility("default"),
    used)) inline const ::ecmo::problems::registration_internal::ProblemFactory*
ecmo_problem_library_factories(int* count) {
  const auto& factories = ::ecmo::problems::registration_internal::Factories();
  *count = static_cast<int>(factories.size());
  return factories.data();
}

}  // extern "C"
#endif  // ECMO_PROBLEM_LIBRARY_LOADER

// Registers `factory`, a function `ecmo::problems::ProblemInfo factory()`
// named by an unqualified identifier, as a problem of this library. Use at
// namespace scope, once per problem.
#define ECMO_REGISTER_PROBLEM(factory)                            \
  static const ::ecmo::problems::registration_internal::Registrar \
      ecmo_problem_registrar_##factory(&factory)

#endif  // ECMO_PROBLEMS_REGISTRATION_H_
