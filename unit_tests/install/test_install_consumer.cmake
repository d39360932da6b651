# cmake -P script run by ctest: install, configure + build the consumer, run it. Optional:
# EXTRA_PREFIX (more install prefixes to find, e.g. Trilinos), CONSUMER_EXE (the consumer's
# executable, default sprocket_consumer), EXPECTED (a regex its output must match, default
# "consumer ok"), EXAMPLE_SOURCE (handed to the consumer's CMakeLists).
file(REMOVE_RECURSE "${SCRATCH_DIR}")
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()
run_step("install" ${CMAKE_COMMAND} --install "${SPROCKET_BUILD_DIR}" --prefix "${SCRATCH_DIR}/prefix")
# EXTRA_PREFIX goes through the environment: a list inside -D would be split into arguments here.
run_step("configure consumer" ${CMAKE_COMMAND} -E env "CMAKE_PREFIX_PATH=${EXTRA_PREFIX}"
  ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE}" -B "${SCRATCH_DIR}/build"
  "-DCMAKE_PREFIX_PATH=${SCRATCH_DIR}/prefix" "-DEXAMPLE_SOURCE=${EXAMPLE_SOURCE}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release
  "-DCMAKE_CXX_FLAGS=${CONSUMER_CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_LINKER_FLAGS}")
run_step("build consumer" ${CMAKE_COMMAND} --build "${SCRATCH_DIR}/build")
if(NOT CONSUMER_EXE)
  set(CONSUMER_EXE sprocket_consumer)
endif()
if(NOT EXPECTED)
  set(EXPECTED "consumer ok")
endif()
run_step("run consumer" "${SCRATCH_DIR}/build/${CONSUMER_EXE}")
if(NOT step_output MATCHES "${EXPECTED}")
  message(FATAL_ERROR "consumer printed:\n${step_output}")
endif()
