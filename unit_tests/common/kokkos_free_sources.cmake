# The library's Kokkos-free sources (impl/CMakeLists.txt, compiled by the host compiler alone in
# CUDA builds) include no Kokkos header: each is preprocessed without Kokkos on the include path, so
# an include of one fails here, naming it, before a CUDA build compiles it with g++.
#   cmake -DCXX=<compiler> -DSOURCES=<a;b;...> -DINCLUDES=<dir;dir;...> -P kokkos_free_sources.cmake
set(failed "")
set(include_args "")
foreach(dir IN LISTS INCLUDES)
  list(APPEND include_args "-I${dir}")
endforeach()
list(LENGTH SOURCES count)
if(count LESS 10)
  message(FATAL_ERROR "only ${count} Kokkos-free sources given: the list in impl/CMakeLists.txt did not reach the test")
endif()
foreach(source IN LISTS SOURCES)
  execute_process(COMMAND "${CXX}" -std=c++17 -M ${include_args} "${source}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE deps ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(APPEND failed "${source}: ${err}")
  elseif(deps MATCHES "Kokkos")
    list(APPEND failed "${source} includes a Kokkos header")
  endif()
endforeach()
if(failed)
  string(REPLACE ";" "\n" failed "${failed}")
  message(FATAL_ERROR "Kokkos-free sources that are not:\n${failed}\n(move the file out of "
                      "sprocket_kokkos_free_sources in impl/CMakeLists.txt, or drop the include)")
endif()
message(STATUS "${count} Kokkos-free sources include no Kokkos header")
