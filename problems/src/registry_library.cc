// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The loader of problem libraries (ecmo/problems/registration.h): dlopen,
// the version / ABI check, and the entries they add to the registry.

#include <dlfcn.h>
#include <sys/stat.h>

#include <deque>
#include <exception>
#include <limits>
#include <set>
#include <string>
#include <vector>

// The types of registration.h, not the functions it makes a library export.
#define ECMO_PROBLEM_LIBRARY_LOADER
#include "ecmo/problems/registration.h"
#include "ecmo/problems/registry.h"
#include "ecmo/result_writer.h"
#include "ecmo/version.h"

namespace ecmo {
namespace problems {
namespace {

struct LoadedProblem {
  ProblemInfo info;
  std::string library;
};

// A deque: MakeEvaluatorFactory keeps pointers to entries, which must not
// move when later libraries add theirs.
std::deque<LoadedProblem>& Loaded() {
  static std::deque<LoadedProblem>* loaded = new std::deque<LoadedProblem>;
  return *loaded;
}

std::string VersionText(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(patch);
}

// Checks what the library was built against; empty if it matches.
std::string CheckAbi(const EcmoProblemLibraryAbi& abi) {
  const std::string theirs =
      "ECMO " +
      VersionText(abi.version_major, abi.version_minor, abi.version_patch) +
      " (problem-library ABI " + std::to_string(abi.abi) + ")";
  const std::string ours = "ECMO " + std::string(ECMO_VERSION_STRING) +
                           " (problem-library ABI " +
                           std::to_string(kProblemLibraryAbi) + ")";
  const std::string rebuild =
      "; rebuild the library against the installed ECMO " +
      std::string(ECMO_VERSION_STRING) + " (find_package(ecmo " +
      std::to_string(ECMO_VERSION_MAJOR) + "." +
      std::to_string(ECMO_VERSION_MINOR) + ")).";
  if (abi.abi != kProblemLibraryAbi ||
      abi.version_major != ECMO_VERSION_MAJOR ||
      abi.version_minor != ECMO_VERSION_MINOR) {
    return "it was built against " + theirs + " but this program uses " + ours +
           rebuild;
  }
  if (abi.problem_info_size != static_cast<int>(sizeof(ProblemInfo)) ||
      abi.problem_instance_size != static_cast<int>(sizeof(ProblemInstance))) {
    return "it was built against " + theirs +
           " with another layout of ProblemInfo / ProblemInstance (sizes " +
           std::to_string(abi.problem_info_size) + " / " +
           std::to_string(abi.problem_instance_size) + " bytes, here " +
           std::to_string(sizeof(ProblemInfo)) + " / " +
           std::to_string(sizeof(ProblemInstance)) +
           "): modified headers or another C++ standard library ABI" + rebuild;
  }
  return "";
}

// Checks one entry against the registry and the entries before it.
std::string CheckEntry(const ProblemInfo& info,
                       const std::set<std::string>& taken) {
  if (info.name.empty()) return "a problem has an empty name; give it one.";
  const std::string which = "problem '" + info.name + "' ";
  if (taken.count(info.name) > 0) {
    const ProblemInfo* known = Find(info.name);
    const std::string owner =
        known == nullptr ? std::string("registered twice by this library")
        : ProblemLibraryOf(*known).empty()
            ? std::string("already a built-in problem")
            : "already registered by '" + ProblemLibraryOf(*known) + "'";
    return which + "is " + owner +
           "; rename it (names must be unique; see --list_problems).";
  }
  if (info.num_objectives < 1) {
    return which +
           "has num_objectives = " + std::to_string(info.num_objectives) +
           "; set it to S >= 1.";
  }
  if (!info.build && !info.build_evaluator) {
    return which + "has neither build nor build_evaluator; set one of them.";
  }
  if (!info.objective_offset.empty() &&
      static_cast<int>(info.objective_offset.size()) != info.num_objectives) {
    return which + "has " + std::to_string(info.objective_offset.size()) +
           " objective offsets for " + std::to_string(info.num_objectives) +
           " objectives; give one per objective (or none).";
  }
  return "";
}

// A library's optional answers (the analytic front, a Pareto point, the
// exact hypervolume) are only ever a comparison: one that throws is taken
// as unknown (empty, NaN) instead of ending the tool.
void GuardOptionalFunctions(ProblemInfo* entry) {
  if (entry->pareto_front) {
    entry->pareto_front = [f = std::move(entry->pareto_front)](int n) {
      try {
        return f(n);
      } catch (...) {
        return Eigen::MatrixXd();
      }
    };
  }
  if (entry->pareto_point) {
    entry->pareto_point = [f = std::move(entry->pareto_point)](
                              const Eigen::VectorXd& lambda,
                              const Eigen::VectorXd& offset) {
      try {
        return f(lambda, offset);
      } catch (...) {
        return Eigen::VectorXd();
      }
    };
  }
  if (entry->exact_hypervolume) {
    entry->exact_hypervolume = [f = std::move(entry->exact_hypervolume)](
                                   const Eigen::VectorXd& reference) {
      try {
        return f(reference);
      } catch (...) {
        return std::numeric_limits<double>::quiet_NaN();
      }
    };
  }
}

}  // namespace

bool LoadProblemLibrary(const std::string& path,
                        std::vector<std::string>* names,
                        std::string* error) {
  std::string ignored;
  if (error == nullptr) error = &ignored;
  error->clear();
  if (names != nullptr) names->clear();
  const std::string prefix = "problem library '" + path + "': ";
  struct stat info;
  if (path.empty() || stat(path.c_str(), &info) != 0) {
    *error = prefix +
             "no such file. Give the path of a shared library (.so) built "
             "with ECMO_REGISTER_PROBLEM (ecmo/problems/registration.h).";
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    *error = prefix + "not a regular file; give the path of a shared library.";
    return false;
  }
  for (const LoadedProblem& loaded : Loaded()) {
    if (SameFile(loaded.library, path)) {
      *error = prefix + "given twice (already loaded as '" + loaded.library +
               "'); give each library once.";
      return false;
    }
  }
  // A path without a slash would make dlopen search the system's library
  // path instead of opening the file that was checked above.
  const std::string open_path =
      path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_LOCAL: the library's symbols (its own copy of ECMO's if it linked
  // the static libraries) do not replace anyone else's.
  void* handle = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = prefix + "cannot be loaded as a shared library (" +
             (why != nullptr ? why : "dlopen failed") +
             "). Build it as one (CMake: add_library(NAME MODULE ...)) "
             "against the installed ECMO.";
    return false;
  }
  using AbiFunction = void (*)(EcmoProblemLibraryAbi*);
  using FactoriesFunction =
      const registration_internal::ProblemFactory* (*)(int*);
  const auto abi_function =
      reinterpret_cast<AbiFunction>(dlsym(handle, "ecmo_problem_library_abi"));
  const auto factories_function = reinterpret_cast<FactoriesFunction>(
      dlsym(handle, "ecmo_problem_library_factories"));
  if (abi_function == nullptr || factories_function == nullptr) {
    dlclose(handle);
    *error = prefix + "a shared library, but not an ECMO problem library: " +
             "it exports no symbol '" +
             (abi_function == nullptr ? "ecmo_problem_library_abi"
                                      : "ecmo_problem_library_factories") +
             "'. Register its problems with ECMO_REGISTER_PROBLEM "
             "(#include \"ecmo/problems/registration.h\").";
    return false;
  }
  EcmoProblemLibraryAbi abi = {};
  abi_function(&abi);
  const std::string mismatch = CheckAbi(abi);
  if (!mismatch.empty()) {
    dlclose(handle);  // none of its C++ code has run on our side
    *error = prefix + mismatch;
    return false;
  }

  int count = 0;
  const registration_internal::ProblemFactory* factories =
      factories_function(&count);
  if (count <= 0 || factories == nullptr) {
    dlclose(handle);
    *error = prefix +
             "registers no problem; add ECMO_REGISTER_PROBLEM(factory) for "
             "each of its problems.";
    return false;
  }
  std::set<std::string> taken;
  for (const ProblemInfo* entry : AllEntries()) taken.insert(entry->name);
  std::vector<ProblemInfo> entries;
  for (int i = 0; i < count; ++i) {
    ProblemInfo entry;
    try {
      entry = factories[i]();
    } catch (const std::exception& e) {
      *error = prefix + "the factory of its problem " + std::to_string(i + 1) +
               " threw: " + e.what();
    } catch (...) {
      *error = prefix + "the factory of its problem " + std::to_string(i + 1) +
               " threw an exception.";
    }
    if (error->empty()) *error = CheckEntry(entry, taken);
    if (!error->empty()) {
      // Not unloaded: the entries built so far hold its code.
      if (error->rfind(prefix, 0) != 0) *error = prefix + *error;
      return false;
    }
    taken.insert(entry.name);
    GuardOptionalFunctions(&entry);
    entries.push_back(std::move(entry));
  }
  for (ProblemInfo& entry : entries) {
    if (names != nullptr) names->push_back(entry.name);
    Loaded().push_back({std::move(entry), path});
  }
  return true;
}

std::vector<const ProblemInfo*> LibraryProblems() {
  std::vector<const ProblemInfo*> entries;
  for (const LoadedProblem& loaded : Loaded()) entries.push_back(&loaded.info);
  return entries;
}

std::string ProblemLibraryOf(const ProblemInfo& info) {
  for (const LoadedProblem& loaded : Loaded()) {
    if (&loaded.info == &info) return loaded.library;
  }
  return "";
}

}  // namespace problems
}  // namespace ecmo
