# Installs the build tree into a scratch prefix, then uses it from outside:
#   1. find_package(ecmo) (all components): configures, builds and runs
#      tests/install_consumer's `consumer` (plugin, adapters, problems);
#   2. find_package(ecmo COMPONENTS plugin): builds and runs
#      `consumer_plugin` with find_package(PkgConfig) and
#      find_package(nlohmann_json) disabled, which proves the plugin
#      component looks for neither Ipopt nor nlohmann-json (and the program
#      fails to compile if a core header includes nlohmann/json.hpp);
#      find_package(ecmo COMPONENTS sweep): builds and runs `consumer_sweep`
#      with find_package(PkgConfig) disabled;
#      find_package(ecmo COMPONENTS autodiff), when built with ADOL-C:
#      builds and runs `consumer_autodiff` (a Hessian-vector product);
#   3. find_package(ecmo COMPONENTS problems) imports the adapters and
#      plugin it needs (configure only), and an unknown component among
#      OPTIONAL_COMPONENTS is only reported not found;
#   4. an unknown (required) component fails with a message naming it;
#   5. pkg-config --cflags --libs ecmo (ecmo.pc in the install tree)
#      succeeds, names -lecmo_plugin, and builds and runs `consumer` without
#      CMake;
#   6. (checked first) the digits data file is installed to share/ecmo.
# Variables: SRC (source dir), BIN (build dir), WORK (scratch dir),
# LIBDIR (CMAKE_INSTALL_LIBDIR), CXX (the C++ compiler).
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BIN}" --prefix "${WORK}/prefix"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
# The digits data ship with the library (ecmo/problems/digits.h).
if(NOT EXISTS "${WORK}/prefix/share/ecmo/digits.csv.gz")
  message(FATAL_ERROR "cmake --install did not install share/ecmo/digits.csv.gz")
endif()

# Configures tests/install_consumer in WORK/<name> with extra arguments;
# builds `target` unless it is empty, then runs it.
function(consumer name target)
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SRC}/tests/install_consumer"
                          -B "${WORK}/${name}" "-DCMAKE_PREFIX_PATH=${WORK}/prefix"
                          -DCMAKE_BUILD_TYPE=Release ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "${name}: configuring the consumer failed:\n${out}\n${err}")
  endif()
  if(target STREQUAL "")
    message(STATUS "${name}: configured")
    return()
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK}/${name}" -j2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "${name}: building the consumer failed:\n${out}\n${err}")
  endif()
  execute_process(COMMAND "${WORK}/${name}/${target}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out)
  message(STATUS "${name}: ${out}")
  if(rc)
    message(FATAL_ERROR "${name}: ${target} failed (${rc})")
  endif()
endfunction()

consumer(all consumer)
consumer(plugin_only consumer_plugin -DECMO_COMPONENTS=plugin
         -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
         -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON)
consumer(sweep_only consumer_sweep -DECMO_COMPONENTS=sweep
         -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON)
consumer(problems_only "" -DECMO_COMPONENTS=problems
         -DECMO_OPTIONAL_COMPONENTS=gui)
# ecmo::autodiff and its header are installed only by builds with ADOL-C.
if(EXISTS "${WORK}/prefix/include/ecmo/autodiff_lower_level.h")
  consumer(autodiff consumer_autodiff -DECMO_COMPONENTS=autodiff)
else()
  message(STATUS "autodiff: not built (no ADOL-C), not installed")
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SRC}/tests/install_consumer"
                        -B "${WORK}/unknown" "-DCMAKE_PREFIX_PATH=${WORK}/prefix"
                        "-DECMO_COMPONENTS=plugin;solvers"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc)
  message(FATAL_ERROR "find_package(ecmo COMPONENTS plugin solvers) succeeded")
endif()
if(NOT "${out}${err}" MATCHES "ecmo has no component 'solvers'")
  message(FATAL_ERROR "unknown component: no clear message:\n${out}\n${err}")
endif()
message(STATUS "unknown component refused")

# pkg-config, against the install tree only.
find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${WORK}/prefix/${LIBDIR}/pkgconfig")
execute_process(COMMAND "${PKG_CONFIG_EXECUTABLE}" --cflags --libs ecmo
                RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(rc)
  message(FATAL_ERROR "pkg-config --cflags --libs ecmo failed:\n${err}")
endif()
if(NOT flags MATCHES "-lecmo_sweep -lecmo_plugin")
  message(FATAL_ERROR "pkg-config flags lack -lecmo_sweep -lecmo_plugin: ${flags}")
endif()
message(STATUS "pkg-config --cflags --libs ecmo: ${flags}")
execute_process(COMMAND "${PKG_CONFIG_EXECUTABLE}" --modversion ecmo
                OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
file(STRINGS "${WORK}/prefix/include/ecmo/version.h" version_line
     REGEX "define ECMO_VERSION_STRING")
if(NOT version_line MATCHES "\"${version}\"")
  message(FATAL_ERROR "ecmo.pc version ${version} is not ecmo/version.h's: ${version_line}")
endif()
separate_arguments(flag_list UNIX_COMMAND "${flags}")
execute_process(COMMAND "${CXX}" -O1 "${SRC}/tests/install_consumer/consumer.cc"
                        -o "${WORK}/consumer_pkgconfig" ${flag_list}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "building the consumer with pkg-config's flags failed:\n${out}\n${err}")
endif()
execute_process(COMMAND "${WORK}/consumer_pkgconfig" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
message(STATUS "pkg-config consumer: ${out}")
if(rc)
  message(FATAL_ERROR "the pkg-config consumer failed (${rc})")
endif()

# A problem library (examples/problem_library, ecmo/problems/registration.h)
# built against the install tree only, loaded by the installed ecmo_solve.
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SRC}/examples/problem_library"
                        -B "${WORK}/problem_library" "-DCMAKE_PREFIX_PATH=${WORK}/prefix"
                        -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "configuring the problem library against the install failed:\n${out}\n${err}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK}/problem_library" -j2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "building the problem library against the install failed:\n${out}\n${err}")
endif()
execute_process(COMMAND "${WORK}/prefix/bin/ecmo_solve"
                        "--problem_library=${WORK}/problem_library/libecmo_example_problems.so"
                        --problem=library_segment --preference=0.5,0.5
                        --reference_point=offset --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# lambda = (1/2, 1/2): the balance 2t^2 + 1 = 2(1-t)^2 + 1 gives t = 1/2,
# z = (0.5, 0.5, 0).
if(rc OR NOT out MATCHES "\"problem\": \"library_segment\""
   OR NOT out MATCHES "\"z\": \\[[ \n]*0\\.(5,|50000|49999)")
  message(FATAL_ERROR "the installed ecmo_solve on the problem library (${rc}):\n${out}\n${err}")
endif()
message(STATUS "problem library built against the install and solved by the installed ecmo_solve")
