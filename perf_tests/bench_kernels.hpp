#pragma once
// The matrix kernels of sprocket-bench, one translation unit each (bench_<kernel>.cpp): they
// compile in parallel, and a change to one kernel's benchmark recompiles only that file. The
// stream kernel is header-only (bench_stream.hpp): every matrix kernel prints its lines too.
#include "bench_common.hpp"

namespace sprocket_bench {

KernelEntry spmv_entry();  // bench_spmv.cpp
KernelEntry bsr_entry();   // bench_bsr.cpp
KernelEntry spmm_entry();  // bench_spmm.cpp
KernelEntry sddmm_entry(); // bench_sddmm.cpp
KernelEntry spgemm_entry(); // bench_spgemm.cpp
KernelEntry gram_entry();   // bench_gram.cpp
KernelEntry tpetra_spmv_entry();  // bench_tpetra.cpp (a stub outside the Trilinos configuration)

}  // namespace sprocket_bench
