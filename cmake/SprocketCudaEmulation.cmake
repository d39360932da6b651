# The test-only CPU emulation of the hand-written CUDA kernels (unit_tests/cuda_emulation/), for
# the emulated kernel tests (unit_tests/) and the access profiler (perf_tests/cuda_profile/). Host
# configurations only.
#
# SPROCKET_CUDA_ACCESS_FLAGS: the compile options of a translation unit whose emulated kernels'
# memory accesses are recorded (sprocket_cuda_access_profile.hpp): GCC's kernel-address
# instrumentation in its outline form calls __asan_{load,store}*_noabort on every load and store
# (defined by the recorder; no sanitizer runtime is linked); line tables name the call sites; no
# vectorization, so that one access of the source is one access recorded (a GPU thread does not
# merge its loop iterations into vector loads).
set(SPROCKET_CUDA_ACCESS_FLAGS -O0 -g1
    -fsanitize=kernel-address --param=asan-instrumentation-with-call-threshold=0 --param=asan-stack=0
    --param=asan-globals=0)

# SPROCKET_CUDA_ACCESS_RECORDING: the recorder, the profiler and its tests are built. Not under
# AddressSanitizer (the sanitize configuration): the recorder defines the entry points its
# instrumentation calls, which are AddressSanitizer's own.
if(NOT SPROCKET_ENABLE_CUDA AND NOT CMAKE_CXX_FLAGS MATCHES "sanitize=address")
  set(SPROCKET_CUDA_ACCESS_RECORDING ON)
else()
  set(SPROCKET_CUDA_ACCESS_RECORDING OFF)
endif()

if(NOT SPROCKET_ENABLE_CUDA AND NOT TARGET sprocket_cuda_emulation)
  set(sprocket_emulation_dir ${PROJECT_SOURCE_DIR}/unit_tests/cuda_emulation)
  add_library(sprocket_cuda_emulation STATIC ${sprocket_emulation_dir}/sprocket_cuda_emulation.cpp)
  if(SPROCKET_CUDA_ACCESS_RECORDING)
    target_sources(sprocket_cuda_emulation PRIVATE ${sprocket_emulation_dir}/sprocket_cuda_access_profile.cpp)
  endif()
  target_link_libraries(sprocket_cuda_emulation PUBLIC Sprocket::sprocket)
  target_include_directories(sprocket_cuda_emulation PUBLIC ${sprocket_emulation_dir})
  target_compile_definitions(sprocket_cuda_emulation PUBLIC SPROCKET_CUDA_EMULATION)
  # The kernels' `#pragma unroll` is nvcc's; g++ ignores it.
  target_compile_options(sprocket_cuda_emulation PUBLIC -Wno-unknown-pragmas)
  # The recorder reads its callers' return addresses (the call chain that names a site) through
  # frame pointers.
  set_source_files_properties(${sprocket_emulation_dir}/sprocket_cuda_access_profile.cpp PROPERTIES COMPILE_OPTIONS
                              -fno-omit-frame-pointer)
endif()
