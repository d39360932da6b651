# A page that shows a program must quote the file the tests compile and run, from its first
# #include on, verbatim (so the page cannot drift from code that works).
#   cmake -DDOC=<page.md> -DFILE=<source> -P doc_quotes_file.cmake
file(READ "${DOC}" doc)
file(READ "${FILE}" source)
string(FIND "${source}" "#include" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${FILE} has no #include")
endif()
string(SUBSTRING "${source}" ${start} -1 code)
string(FIND "${doc}" "${code}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC} does not contain ${FILE} (from its first #include on) verbatim: copy the file into it")
endif()
message(STATUS "${DOC} quotes ${FILE}")
