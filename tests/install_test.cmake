# Installs the build tree into a scratch prefix, then configures, builds and
# runs tests/install_consumer against it with find_package(ecmo).
# Variables: SRC (source dir), BIN (build dir), WORK (scratch dir).
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BIN}" --prefix "${WORK}/prefix"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SRC}/tests/install_consumer"
                        -B "${WORK}/build" "-DCMAKE_PREFIX_PATH=${WORK}/prefix"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed:\n${out}\n${err}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK}/build" -j2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "building the consumer failed:\n${out}\n${err}")
endif()
execute_process(COMMAND "${WORK}/build/consumer" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
message(STATUS "${out}")
if(rc)
  message(FATAL_ERROR "the consumer failed (${rc})")
endif()
