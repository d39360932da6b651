# sprocket_cuda_arch(target): in CUDA builds, add machine code for SPROCKET_CUDA_EXTRA_ARCH next to
# the sm_80 code Kokkos 3.4 asks for, so Sprocket's kernels run natively on Hopper.
function(sprocket_cuda_arch target)
  if(SPROCKET_ENABLE_CUDA AND SPROCKET_CUDA_EXTRA_ARCH)
    foreach(arch ${SPROCKET_CUDA_EXTRA_ARCH})
      target_compile_options(${target} PRIVATE
        "SHELL:-Xcudafe --diag_suppress=esa_on_defaulted_function_ignored"
        "-gencode=arch=compute_${arch},code=sm_${arch}")
    endforeach()
  endif()
endfunction()
