# sprocket_cuda_arch(target): in CUDA builds, add machine code for SPROCKET_CUDA_EXTRA_ARCH next to
# the sm_80 code Kokkos 3.4 asks for, so Sprocket's kernels run natively on Hopper. Our patched
# nvcc_wrapper passes an extra -gencode through next to Kokkos' -arch=sm_80.
function(sprocket_cuda_arch target)
  if(SPROCKET_ENABLE_CUDA AND SPROCKET_CUDA_EXTRA_ARCH)
    foreach(arch ${SPROCKET_CUDA_EXTRA_ARCH})
      target_compile_options(${target} PRIVATE "-gencode=arch=compute_${arch},code=sm_${arch}")
    endforeach()
  endif()
endfunction()
