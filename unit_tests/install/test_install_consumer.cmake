# cmake -P script run by ctest: install, configure + build the consumer, run it.
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
run_step("configure consumer" ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE}" -B "${SCRATCH_DIR}/build"
  "-DCMAKE_PREFIX_PATH=${SCRATCH_DIR}/prefix"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release)
run_step("build consumer" ${CMAKE_COMMAND} --build "${SCRATCH_DIR}/build")
run_step("run consumer" "${SCRATCH_DIR}/build/sprocket_consumer")
if(NOT step_output MATCHES "consumer ok")
  message(FATAL_ERROR "consumer printed:\n${step_output}")
endif()
