# Precompiled headers for our own targets (ECMO_PRECOMPILE_HEADERS, on by
# default).
#
# Why: almost every file of ours includes the same third-party headers (the
# standard library, Eigen, Ceres and, in tests, GoogleTest and
# nlohmann-json), and parsing them was about a third of a file's compile
# time under clang (-ftime-trace over the whole build: 299 of 983 s). A
# precompiled header per kind of target parses them once: under clang with
# ASan, sweep_streaming_test.cc 16.6 -> 11.3 s, ceres_problem_adapter_test.cc
# 21.6 -> 16.3 s; with GCC -O3, five test files 60-65 -> 50-52 s and five
# library files 14-15 -> 11 s, paired runs (tests/README.md, "CI time").
#
# Only third-party headers go in, so that editing a header of ours does not
# rebuild the precompiled one, and the layers keep seeing only what they
# link: libraries get the standard library, Eigen and Ceres; programs also
# the stream headers; tests also GoogleTest and nlohmann-json.
#
# One precompiled header per kind, built in a donor target that has exactly
# the compile flags and definitions every target of that kind has (GCC uses
# a precompiled header only when each macro it was built with is defined the
# same way in the file using it, and clang refuses one built with other
# code-generation flags). The donors are never installed or run.
#
# -DECMO_PRECOMPILE_HEADERS=OFF builds without them: then every file must
# include what it uses (scripts/fuzz.sh builds the libraries so in CI).

include_guard(GLOBAL)

option(ECMO_PRECOMPILE_HEADERS
       "Precompile the third-party headers our files share" ON)

set(ECMO_PCH_HEADERS_library
    <algorithm> <cmath> <cstdio> <functional> <limits> <memory> <string>
    <utility> <vector> <Eigen/Core> <Eigen/Dense> <ceres/ceres.h>)
set(ECMO_PCH_HEADERS_program ${ECMO_PCH_HEADERS_library}
    <fstream> <iostream> <sstream>)
set(ECMO_PCH_HEADERS_test ${ECMO_PCH_HEADERS_program}
    <random> <gtest/gtest.h> <nlohmann/json.hpp>)

# Writes <content> to <path> only when it differs, so that configuring again
# does not touch the file and rebuild the donor.
function(_ecmo_pch_write path content)
  if(EXISTS ${path})
    file(READ ${path} old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE ${path} "${content}")
endfunction()

# The donor of one kind, made on first use: an empty file compiled with
# that kind's flags, whose precompiled header the others reuse.
function(_ecmo_pch_donor kind out_var)
  set(donor ecmo_pch_donor_${kind})
  if(NOT TARGET ${donor})
    set(empty ${PROJECT_BINARY_DIR}/generated/ecmo_pch_donor_${kind}.cc)
    if(kind STREQUAL "library")
      _ecmo_pch_write(${empty} "// The donor of the libraries' precompiled header.\n")
      add_library(${donor} OBJECT EXCLUDE_FROM_ALL ${empty})
      target_link_libraries(${donor} PRIVATE Ceres::ceres Eigen3::Eigen)
      target_compile_options(${donor} PRIVATE ${ECMO_WARNINGS})
    elseif(kind STREQUAL "program")
      # An executable: programs are compiled as position-independent
      # executables (-fPIE), which an object library cannot be.
      _ecmo_pch_write(${empty} "// The donor of the programs' precompiled header.
int main() { return 0; }\n")
      add_executable(${donor} EXCLUDE_FROM_ALL ${empty})
      target_link_libraries(${donor} PRIVATE ecmo_plugin)
      target_compile_options(${donor} PRIVATE ${ECMO_WARNINGS})
    elseif(kind STREQUAL "test")
      # main() comes from gtest_main.
      _ecmo_pch_write(${empty} "// The donor of the tests' precompiled header.\n")
      add_executable(${donor} EXCLUDE_FROM_ALL ${empty})
      target_link_libraries(${donor} PRIVATE ecmo_problems ecmo_adapters
                            ecmo_plugin GTest::gtest_main)
      target_compile_options(${donor} PRIVATE ${ECMO_WARNINGS}
                             ${ECMO_TEST_COMPILE_OPTIONS})
    else()
      message(FATAL_ERROR "ecmo_precompile_headers: unknown kind '${kind}' "
                          "(library, program or test)")
    endif()
    target_precompile_headers(${donor} PRIVATE ${ECMO_PCH_HEADERS_${kind}})
  endif()
  set(${out_var} ${donor} PARENT_SCOPE)
endfunction()

# ecmo_precompile_headers(<target> library|program|test): <target> reuses
# its kind's precompiled header. A no-op when ECMO_PRECOMPILE_HEADERS is off.
function(ecmo_precompile_headers target kind)
  if(NOT ECMO_PRECOMPILE_HEADERS)
    return()
  endif()
  _ecmo_pch_donor(${kind} donor)
  target_precompile_headers(${target} REUSE_FROM ${donor})
  # A precompiled header GCC finds but may not use is skipped silently,
  # only slower; say so instead.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Winvalid-pch)
  endif()
endfunction()

# Every target of <kind> defined in <dir> and its subdirectories: static
# and shared libraries for "library", executables for "program" and "test"
# (modules, e.g. the problem-library fixtures, are left alone). The donors
# belong to the top-level directory, which is never passed here.
function(ecmo_precompile_headers_in_directory dir kind)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if((kind STREQUAL "library" AND type MATCHES "^(STATIC|SHARED)_LIBRARY$") OR
       (NOT kind STREQUAL "library" AND type STREQUAL "EXECUTABLE"))
      ecmo_precompile_headers(${target} ${kind})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    ecmo_precompile_headers_in_directory(${subdir} ${kind})
  endforeach()
endfunction()
