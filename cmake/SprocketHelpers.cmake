# sprocket_cuda_arch(target): in CUDA builds, add machine code for SPROCKET_CUDA_EXTRA_ARCH next to
# the sm_80 code Kokkos 3.4 asks for, so Sprocket's kernels run natively on Hopper. Our patched
# nvcc_wrapper passes an extra -gencode through next to Kokkos' -arch=sm_80.
#
# sprocket_cuda_arch(target KOKKOS_ARCH_ONLY source...): the same for every source of the target
# except those listed, which keep Kokkos' architecture alone (its sm_80 code and PTX, which the
# driver compiles for a newer card at first use): sources with no kernel of ours in them, only
# Kokkos' and Kokkos Kernels' own (sprocket-bench's Kokkos peers, where SPROCKET_CUDA_PEERS_EXTRA_ARCH
# is OFF). Call it after the target's sources are all added.
function(sprocket_cuda_arch target)
  cmake_parse_arguments(ARG "" "" "KOKKOS_ARCH_ONLY" ${ARGN})
  if(NOT SPROCKET_ENABLE_CUDA OR NOT SPROCKET_CUDA_EXTRA_ARCH)
    return()
  endif()
  set(flags "")
  foreach(arch ${SPROCKET_CUDA_EXTRA_ARCH})
    list(APPEND flags "-gencode=arch=compute_${arch},code=sm_${arch}")
  endforeach()
  if(NOT ARG_KOKKOS_ARCH_ONLY)
    target_compile_options(${target} PRIVATE ${flags})
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    if(NOT source IN_LIST ARG_KOKKOS_ARCH_ONLY AND source MATCHES "\\.(cpp|cu)$")
      set_property(SOURCE ${source} APPEND PROPERTY COMPILE_OPTIONS ${flags})
    endif()
  endforeach()
endfunction()

# sprocket_default_test_timeouts(): every test of the calling directory without a TIMEOUT of its
# own gets one, so that a hung test fails its ctest run (and CI's stage) within minutes instead of
# holding it to CI's limit. SPROCKET_TEST_TIMEOUT seconds for the unit tier, twice that for the
# tiers that run longer (slow, shared_matrices, trilinos, cuda_emulation_asan): several times the
# slowest test's time on the 2-core CI machine (under a minute,
# perf_tests/results/build-times-test-optimization-2026-11-29.md). Each directory that adds tests
# calls it last; test_ctest_timeouts checks that none was missed.
set(SPROCKET_TEST_TIMEOUT 300 CACHE STRING "Seconds a unit-tier test may run before ctest stops it and fails it (twice that for slow tiers)")
function(sprocket_default_test_timeouts)
  get_property(tests DIRECTORY PROPERTY TESTS)
  math(EXPR long_timeout "2 * ${SPROCKET_TEST_TIMEOUT}")
  foreach(test IN LISTS tests)
    get_test_property(${test} TIMEOUT timeout)
    if(timeout)
      continue()
    endif()
    get_test_property(${test} LABELS labels)
    if(labels MATCHES "slow|shared_matrices|trilinos|asan")
      set_tests_properties(${test} PROPERTIES TIMEOUT ${long_timeout})
    else()
      set_tests_properties(${test} PROPERTIES TIMEOUT ${SPROCKET_TEST_TIMEOUT})
    endif()
  endforeach()
endfunction()
