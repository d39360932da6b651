#pragma once
// sprocket-bench's SuiteSparse:GraphBLAS peers behind an interface that names neither Kokkos nor
// GraphBLAS, so that one implementation (graphblas_peer.cpp) is compiled twice, against two
// GraphBLAS releases, into one sprocket-bench:
//   graphblas    Debian's libgraphblas 7.4 (GrB_* symbols), namespace graphblas::debian
//   graphblas9   GraphBLAS 9.3.1 with its JIT, built for this machine by
//                cmake/sprocket-graphblas9.sh as its own renamed library (GrM_* symbols),
//                namespace graphblas::v9
// Both use the OpenMP runtime Kokkos uses, so the interleaved timing sees one thread pool.
//
// Each operation is set up as a GraphBLAS expert would write it, on GraphBLAS's own copies of the
// operands (made at set-up), every dense operand held by row:
//   spmv    y = alpha A x           A CSR with alpha folded in; w full
//   spmm    C = alpha A B           B and C full by row
//   sddmm   C<S, struct> = alpha A B'   A and B full by row, B transposed by the descriptor
//   spgemm  C = A B (a new C each call); numeric re-run C<C, struct> = A B on the last C
// Where GraphBLAS offers several ways (accumulating into an existing full result or a new result;
// the mxm method), every way is tried at set-up (untimed, after one warm-up that absorbs the JIT's
// compile) and the fastest kept: algorithm() names it and trials() says what each took. Every
// timed call ends with GrB_*_wait(GrB_MATERIALIZE).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"

namespace sprocket_bench {
namespace graphblas {

/// Which library: the names --compare takes.
enum class Flavor { debian, v9 };
inline const char* peer_name(Flavor f) { return f == Flavor::debian ? "graphblas" : "graphblas9"; }

/// One timed operation of a GraphBLAS peer.
class Op {
 public:
  virtual ~Op() = default;
  virtual void apply() = 0;
  /// The way chosen at set-up ("mxv_accum_full", "mxm_new", ...): the peer_algorithm key.
  virtual std::string algorithm() const = 0;
  /// Each way tried at set-up: "name first_s/median_s", comma-separated (first: the JIT compile
  /// of a kernel not yet in the cache, or its load).
  virtual std::string trials() const = 0;
  /// Seconds of the first call of the chosen way (JIT compile or cache load included).
  virtual double first_use_seconds() const = 0;
  /// Seconds of the set-up proper: GraphBLAS's copies of the operands (not the trials).
  virtual double setup_seconds() const = 0;
  /// Seconds of the trial of the ways (first calls included): set-up as a user pays it, as an
  /// expert picking the fastest way runs them on the problem first.
  virtual double trial_seconds() const = 0;
  virtual std::string note() const = 0;
};

/// spmv: result(y) writes alpha A x (rows entries; zeros where A's row is empty).
class SpmvOp : public Op {
 public:
  virtual void result(std::vector<double>& y) const = 0;
};

/// spmm: result(c) writes alpha A B by row (rows x k).
class SpmmOp : public Op {
 public:
  virtual void result(std::vector<double>& c) const = 0;
};

/// sddmm: result(v) writes C's value for each entry of S in S's entry order (NaN where C has none).
class SddmmOp : public Op {
 public:
  virtual void result(std::vector<double>& values) const = 0;
};

/// spgemm: apply() is a full product into a new C; numeric() re-runs the values on the last C's
/// pattern (C<C, struct> = A B) after prepare_numeric().
class SpgemmOp : public Op {
 public:
  virtual void release() = 0;
  virtual Sprocket::HostCsr result() const = 0;
  virtual void prepare_numeric() = 0;
  virtual void numeric() = 0;
  virtual Sprocket::HostCsr numeric_result() const = 0;
  virtual void release_numeric() = 0;
  /// Sets every value of the last apply()'s C (numeric_c false) or of the numeric re-runs' C to
  /// value, the pattern kept (the bench's --check poisons the latter with NaN).
  virtual void fill_c_values(bool numeric_c, double value) = 0;
  /// Replaces GraphBLAS's copies of A (and B; null: B is A, as at set-up) with these, of the same
  /// shapes: the bench's --check re-runs the numeric pass on changed values.
  virtual void set_operands(const Sprocket::HostCsr& A, const Sprocket::HostCsr* B) = 0;
};

/// What every peer is made from: the scalar type the bench runs and the threads GraphBLAS gets.
struct Config {
  bool single = false;  ///< float (GrB_FP32) instead of double
  int threads = 1;
};

// One set per flavor (defined by graphblas_peer.cpp compiled for that flavor). Inputs are doubles
// already rounded to the bench's scalar type; dense operands are row-major.
#define SPROCKET_GRAPHBLAS_PEER_DECLARATIONS                                                                        \
  std::string version();                                                                                          \
  std::unique_ptr<SpmvOp> make_spmv(const Config&, const Sprocket::HostCsr& A, double alpha,                      \
                                    const std::vector<double>& x);                                                \
  std::unique_ptr<SpmmOp> make_spmm(const Config&, const Sprocket::HostCsr& A, double alpha,                      \
                                    const std::vector<double>& B, int64_t k);                                     \
  std::unique_ptr<SddmmOp> make_sddmm(const Config&, const Sprocket::HostCsr& S, double alpha,                    \
                                      const std::vector<double>& A, const std::vector<double>& B, int64_t k);     \
  std::unique_ptr<SpgemmOp> make_spgemm(const Config&, const Sprocket::HostCsr& A, const Sprocket::HostCsr* B);
namespace debian {
SPROCKET_GRAPHBLAS_PEER_DECLARATIONS
}
namespace v9 {
SPROCKET_GRAPHBLAS_PEER_DECLARATIONS
}
#undef SPROCKET_GRAPHBLAS_PEER_DECLARATIONS

}  // namespace graphblas
}  // namespace sprocket_bench
