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
