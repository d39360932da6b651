#pragma once
// sprocket-bench's Intel MKL peers (MKL 2020.4 from Debian's non-free archive, unpacked into the
// dependency cache by cmake/sprocket-mkl.sh), behind an interface that names neither Kokkos nor
// MKL: mkl_peer.cpp alone includes MKL's headers, and nothing of Kokkos.
//
// Each operation is set up as an MKL user writes it, through the inspector-executor sparse BLAS
// on the caller's own arrays (the bench's Views, host memory: no copy of A, x, y, B or C):
//   spmv    mkl_sparse_?_mv                      ways: plain (a handle, no optimisation) and
//                                                ie (mkl_sparse_set_mv_hint with the number of
//                                                calls, mkl_sparse_set_memory_hint aggressive,
//                                                mkl_sparse_optimize)
//   bsr     the same on a BSR handle (mkl_sparse_?_create_bsr on the bench's block arrays, the
//           bench's block size) beside the CSR ones: ways csr_plain, csr_ie, bsr_ie
//   spmm    mkl_sparse_?_mm in B's and C's layout  ways: plain and ie (mkl_sparse_set_mm_hint for
//                                                that layout and K)
//   spgemm  C = A B into a new C per call          ways: spmm (mkl_sparse_spmm) and sp2m
//                                                (mkl_sparse_sp2m, SPARSE_STAGE_FULL_MULT); then
//                                                mkl_sparse_order when sorted output is asked for
//           numeric re-run on a kept structure: mkl_sparse_sp2m's SPARSE_STAGE_FINALIZE_MULT after
//           one SPARSE_STAGE_FULL_MULT_NO_VAL; sorted: then a copy of that C, ordered
//           (mkl_sparse_copy + mkl_sparse_order). The structure itself is never ordered: MKL 2020.4's
//           FINALIZE_MULT on a C that mkl_sparse_order has sorted writes each value where the
//           unsorted structure had it, under the sorted columns (a wrong C; seen on a 3 x 3 product).
// The set-up of a way (handle, hints, mkl_sparse_optimize) is its setup_seconds. The bench tries
// the ways and keeps the fastest, as for the other peers. MKL runs with the threads of Kokkos'
// host space, on libgomp (MKL's GNU threading layer): one OpenMP runtime in the process.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"

namespace sprocket_bench {
namespace mkl {

/// MKL's version string (mkl_get_version_string).
std::string version();
/// The code path MKL's dispatcher chose for this CPU (MKLVersion::Processor): on processors that
/// are not Intel's, MKL 2020 takes its generic path, which makes it a weaker peer there.
std::string code_path();
/// The library whose dgemm_ the process calls (the first definition in symbol lookup order): our
/// BLAS, never MKL's, which defines one too.
std::string dgemm_library();
/// Sets MKL's threads (mkl_set_num_threads).
void set_threads(int threads);

/// A CSR matrix in the caller's arrays: zero-based, 32-bit offsets and columns (MKL's LP64
/// interface), values of the bench's scalar type (single: float, else double).
struct Csr {
  int64_t rows = 0, cols = 0;
  const int* row_map = nullptr;  ///< rows + 1 offsets
  const int* entries = nullptr;
  const void* values = nullptr;
  bool single = false;
};

/// A BSR matrix in the caller's arrays (square blocks, row-major inside a block).
struct Bsr {
  int64_t block_rows = 0, block_cols = 0;
  int block_size = 1;
  const int* row_map = nullptr;  ///< block_rows + 1 offsets
  const int* entries = nullptr;  ///< block column of each block
  const void* values = nullptr;  ///< block_size^2 values per block
  bool single = false;
};

/// A dense matrix in the caller's array: rows x cols, leading dimension ld, by row or by column.
struct Dense {
  void* data = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;
  bool row_major = true;
};

/// One way of running an operation, set up and ready: apply() is timed.
class Op {
 public:
  virtual ~Op() = default;
  virtual void apply() = 0;
  /// Seconds of this way's set-up by MKL (handle, hints, mkl_sparse_optimize or conversion).
  virtual double setup_seconds() const = 0;
};

/// The ways of y = alpha A x + beta y (x and y the caller's); expected_calls goes to the hints.
std::vector<std::pair<std::string, std::unique_ptr<Op>>> spmv_ways(const Csr& A, double alpha, const void* x,
                                                                   double beta, void* y, int expected_calls);
/// The ways of y = alpha A x + beta y with A also given in BSR form: csr_plain, csr_ie, bsr_ie.
std::vector<std::pair<std::string, std::unique_ptr<Op>>> bsr_ways(const Csr& A, const Bsr& Ab, double alpha,
                                                                  const void* x, double beta, void* y,
                                                                  int expected_calls);
/// The ways of C = alpha A B + beta C (B and C in one layout).
std::vector<std::pair<std::string, std::unique_ptr<Op>>> spmm_ways(const Csr& A, double alpha, const Dense& B,
                                                                   double beta, const Dense& C, int expected_calls);

/// spgemm: apply() is a full product into a new C (sorted: then mkl_sparse_order); numeric()
/// re-runs the values on a structure kept by prepare_numeric().
class SpgemmOp {
 public:
  virtual ~SpgemmOp() = default;
  virtual void apply() = 0;
  virtual void release() = 0;
  virtual Sprocket::HostCsr result() const = 0;
  virtual void prepare_numeric() = 0;
  virtual void numeric() = 0;
  /// Runs untimed after every numeric() once its result has been read: drops the sorted copy.
  virtual void after_numeric() = 0;
  virtual Sprocket::HostCsr numeric_result() const = 0;
  virtual void release_numeric() = 0;
  /// Sets every value of the last apply()'s C (numeric_c false) or of the C the numeric re-runs
  /// write (true: the unsorted structure that SPARSE_STAGE_FINALIZE_MULT fills).
  virtual void fill_c_values(bool numeric_c, double value) = 0;
  /// "spmm" or "sp2m".
  virtual std::string algorithm() const = 0;
  virtual std::string note() const = 0;
};

/// The ways of C = A B (B null: B is A): "spmm" and "sp2m", each sorted (mkl_sparse_order after
/// the product) or not. A and B's arrays are the caller's: values changed there are seen by the
/// next product or numeric re-run.
std::unique_ptr<SpgemmOp> make_spgemm(const Csr& A, const Csr* B, bool sorted, const std::string& algorithm);
/// The algorithms make_spgemm takes.
std::vector<std::string> spgemm_algorithms();

}  // namespace mkl
}  // namespace sprocket_bench
