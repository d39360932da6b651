# Sprocket: every target sets up what it needs (Debian packages, Kokkos / Kokkos Kernels 3.4.01
# from Debian's trilinos source, the CMake build) and then does its job. See README.md.
.PHONY: build-times docs demo test test-kokkos4 test-trilinos test-sanitize fuzz test-cuda-emulation-asan bench build cuda-check cuda-compile-check gpu-bundle deps deps-cuda clean

demo:                ## build and run the demo
	@bash cmake/sprocket-build.sh host demo
test:                ## build everything and run the unit tests (ctest)
	@bash cmake/sprocket-build.sh host test
test-kokkos4:        ## the host tests against Kokkos 4.6.01 + Kokkos Kernels 4.6.02 from ../shared/deps (built once into the dependency cache), in build/kokkos4
	@bash cmake/sprocket-build.sh kokkos4 test
test-trilinos:       ## Trilinos 13.2 with MPI (built once, about 30 min on 2 cores), then the Belos/Anasazi/Tpetra adapters' tests
	@bash cmake/sprocket-build.sh trilinos trilinos-test
test-sanitize:       ## the host tests (emulated CUDA kernels included) under AddressSanitizer + UBSan
	@bash cmake/sprocket-build.sh sanitize test
fuzz:                ## every fuzz target for 10^6 executions (SPROCKET_FUZZ_RUNS=N for another count)
	@bash cmake/sprocket-build.sh host fuzz
test-cuda-emulation-asan:  ## the CUDA kernels' CPU-emulated tests under AddressSanitizer
	@bash cmake/sprocket-build.sh host cuda-emulation-asan
bench:               ## build the benchmarks into build/host/bin
	@bash cmake/sprocket-build.sh host bench
build:               ## build everything (host)
	@bash cmake/sprocket-build.sh host build
# KOKKOS4=1: the CUDA configuration against Kokkos 4.6.01 + Kokkos Kernels 4.6.02 (../shared/deps,
# built with CUDA for Kokkos_ARCH_HOPPER90 into the dependency cache) in build/kokkos4-cuda.
CUDA_CONFIG := $(if $(filter 1,$(KOKKOS4)),kokkos4-cuda,cuda)
cuda-check:          ## CUDA configuration: compile everything (needs nvcc, not a GPU); KOKKOS4=1 against Kokkos 4.6
	@bash cmake/sprocket-build.sh $(CUDA_CONFIG) build
cuda-compile-check:  ## CUDA configuration: library, tools and one test per kernel (CI); KOKKOS4=1 against Kokkos 4.6
	@bash cmake/sprocket-build.sh $(CUDA_CONFIG) cuda-subset
gpu-bundle:          ## CUDA configuration: build the tests and benchmarks (compiler cache reused) and pack .device/bundle.tar.xz for a GPU run (perf_tests/gpu/run_checks.sh)
	@bash cmake/sprocket-build.sh cuda build && bash perf_tests/gpu/pack_bundle.sh
build-times:         ## the slowest translation units of each build tree, with their seconds (Ninja's log)
	@/usr/bin/python3 tools/build_times.py
docs:                ## the API reference of the public headers (Doxygen) into build/docs/html
	@bash cmake/install-packages.sh && doxygen docs/Doxyfile && echo "API reference: build/docs/html/index.html"
deps:                ## only build Kokkos + Kokkos Kernels (host)
	@bash cmake/install-packages.sh && bash cmake/sprocket-deps.sh host
deps-cuda:
	@bash cmake/install-packages.sh && bash cmake/sprocket-deps.sh cuda
clean:
	rm -rf build
