# The API reference builds without a warning: every public entity in src/ documented (docs/Doxyfile
# fails on a warning). Writes into the build tree, not the source tree.
#   cmake -DDOXYGEN=<doxygen> -DSOURCE=<repository root> -DOUT=<directory> -P doxygen_clean.cmake
if(NOT DOXYGEN OR NOT EXISTS "${DOXYGEN}")
  message(FATAL_ERROR "doxygen was not found when CMake configured: cmake/install-packages.sh installs Debian's doxygen")
endif()
file(READ "${SOURCE}/docs/Doxyfile" config)
file(MAKE_DIRECTORY "${OUT}")
file(WRITE "${OUT}/Doxyfile" "${config}\nOUTPUT_DIRECTORY = ${OUT}\n")
execute_process(COMMAND "${DOXYGEN}" "${OUT}/Doxyfile" WORKING_DIRECTORY "${SOURCE}" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR err MATCHES "(warning|error):")
  message(FATAL_ERROR "doxygen over src/ (exit ${rc}) reported:\n${err}\nDocument each entity it names.")
endif()
message(STATUS "API reference built without a warning into ${OUT}/html")
