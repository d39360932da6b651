# The README's "Using Sprocket from Trilinos" code block must be example/trilinos/
# belos_with_sprocket.cpp from its first #include on (the file the tests compile and run).
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${example}" "#include" start)
string(SUBSTRING "${example}" ${start} -1 code)
string(FIND "${readme}" "${code}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not contain ${EXAMPLE} (from its first #include) verbatim: copy it into "
                      "the section \"Using Sprocket from Trilinos\"")
endif()
message(STATUS "README example matches ${EXAMPLE}")
