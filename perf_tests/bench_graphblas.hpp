#pragma once
// sprocket-bench: the SuiteSparse:GraphBLAS peers (--compare graphblas) of spmv, spmm, sddmm and
// spgemm.
// Compiled in when CMake finds GraphBLAS (SPROCKET_BENCH_HAVE_GRAPHBLAS, perf_tests/CMakeLists.txt);
// otherwise graphblas_peer() is listed as not in this build and asking for it is a usage error.
//
// GraphBLAS works on its own opaque objects, so each peer holds its own copies of the operands,
// built once at set-up (setup_seconds) from the same values the bench's Views hold, in the format a
// GraphBLAS user would pick for the operation:
//   spmv   w = A u           GrB_mxv, A CSR (by row), u a full vector
//   spmm   C = A B           GrB_mxm, A CSR (by row), B full by row (layout right) or by column (left)
//   sddmm  C<S> = A B'       GrB_mxm with S as a structural mask, A and B full by row (right) or by
//                            column (left), B transposed by the descriptor, GxB_AxB_DOT: C(i, j) =
//                            A(i, :) . B(j, :) for the entries of S only, i.e. (A B^T) o spy(S),
//                            Sprocket's pattern form; GrB_REPLACE so C is S's pattern alone
//   spgemm C = A B           GrB_mxm, A and B CSR (by row; B is A's copy when the bench multiplies A
//                            by itself), default descriptor: GraphBLAS picks the method
// alpha is folded into the copy of A (GraphBLAS has no scaled product); beta != 0 is not supported
// (graphblas_skip_reason). Every timed apply ends with GrB_*_wait(GrB_MATERIALIZE), so work that
// GraphBLAS's non-blocking mode could leave pending is inside the timing. GraphBLAS allocates its
// result on every call (its API has no caller-owned output); that is part of what it costs.
// fetch_result() copies the last result into the bench's output View for --check, untimed.
// GraphBLAS runs on the host (OpenMP) with as many threads as Kokkos' host execution space.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Sprocket_HostMatrix.hpp"
#include "bench_common.hpp"

#ifdef SPROCKET_BENCH_HAVE_GRAPHBLAS
// GraphBLAS.h declares its C functions without extern "C" and pulls in <cmath> and <complex> for
// C++ itself: include those first so their guards keep them out of the extern "C" block.
#include <cmath>
#include <complex>
extern "C" {
#include <GraphBLAS.h>
}
#endif

namespace sprocket_bench {

/// The graphblas entry of a kernel's peer list: available where GraphBLAS was found at build time.
inline Peer graphblas_peer() {
#ifdef SPROCKET_BENCH_HAVE_GRAPHBLAS
  return {"graphblas", true, ""};
#else
  return {"graphblas", false,
          "graphblas: this sprocket-bench was built without SuiteSparse:GraphBLAS (install libgraphblas-dev, "
          "e.g. with cmake/install-packages.sh, and reconfigure)"};
#endif
}

/// The line a run prints when its default peers would have included graphblas but the build has none.
inline const char* graphblas_absent_note() {
  return "sprocket-bench: note: built without SuiteSparse:GraphBLAS (libgraphblas-dev not found at configure "
         "time): no graphblas peer in this run";
}

/// Why the graphblas peer cannot run this problem ("" when it can): beta != 0 (the peers compute
/// the product alone), or a row with a repeated column (a GraphBLAS matrix holds one entry per
/// position).
inline std::string graphblas_skip_reason(const Sprocket::HostCsr& host, double beta) {
  if (beta != 0) return "beta != 0 (the graphblas peers compute alpha times the product only)";
  if (host.is_sorted_and_unique()) return "";
  std::vector<int> row;
  for (int64_t i = 0; i < host.num_rows; ++i) {
    row.assign(host.entries.begin() + host.row_map[i], host.entries.begin() + host.row_map[i + 1]);
    std::sort(row.begin(), row.end());
    if (std::adjacent_find(row.begin(), row.end()) != row.end())
      return "row " + std::to_string(i) + " holds column " +
             std::to_string(*std::adjacent_find(row.begin(), row.end())) +
             " twice, which a GraphBLAS matrix cannot represent";
  }
  return "";
}

#ifdef SPROCKET_BENCH_HAVE_GRAPHBLAS

inline void graphblas_check(GrB_Info info, const char* call) {
  if (info != GrB_SUCCESS)
    throw std::runtime_error(std::string("GraphBLAS: ") + call + " returned GrB_Info " + std::to_string(info));
}
#define SPROCKET_BENCH_GRB(call) ::sprocket_bench::graphblas_check((call), #call)

/// GrB_init on first use, GrB_finalize at exit (after every peer is gone); GraphBLAS gets the thread
/// count of Kokkos' host execution space, so both sides use the same cores.
inline void graphblas_init() {
  struct Library {
    Library() {
      SPROCKET_BENCH_GRB(GrB_init(GrB_NONBLOCKING));
      SPROCKET_BENCH_GRB(
          GxB_Global_Option_set_INT32(GxB_GLOBAL_NTHREADS, Kokkos::DefaultHostExecutionSpace().concurrency()));
    }
    ~Library() { GrB_finalize(); }
  };
  static Library library;
}

inline int graphblas_threads() { return Kokkos::DefaultHostExecutionSpace().concurrency(); }

/// "7.4.0": the library's version at run time.
inline std::string graphblas_version() {
  graphblas_init();
  int32_t v[3] = {0, 0, 0};
  SPROCKET_BENCH_GRB(GxB_Global_Option_get_INT32(GxB_LIBRARY_VERSION, v));
  return std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]);
}

/// Owns one GraphBLAS object (GrB_Matrix, GrB_Vector, GrB_Descriptor).
template <class T, GrB_Info (*Free)(T*)>
class GrbObject {
 public:
  GrbObject() = default;
  GrbObject(const GrbObject&) = delete;
  GrbObject& operator=(const GrbObject&) = delete;
  ~GrbObject() {
    if (object_) Free(&object_);
  }
  T get() const { return object_; }
  T* out() { return &object_; }
  /// Frees the object (if any); out() may then make a new one.
  void reset() {
    if (object_) Free(&object_);
    object_ = nullptr;
  }

 private:
  T object_ = nullptr;
};
using GrbMatrix = GrbObject<GrB_Matrix, GrB_Matrix_free>;
using GrbVector = GrbObject<GrB_Vector, GrB_Vector_free>;
using GrbDescriptor = GrbObject<GrB_Descriptor, GrB_Descriptor_free>;

template <class Scalar>
GrB_Type graphblas_type() {
  return std::is_same_v<Scalar, float> ? GrB_FP32 : GrB_FP64;
}
template <class Scalar>
GrB_Semiring graphblas_plus_times() {
  return std::is_same_v<Scalar, float> ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64;
}

/// malloc'ed storage GraphBLAS takes over in GxB_*_pack_* (it frees it with free(), its default
/// allocator); freed here if the pack never happened.
template <class T>
class PackBuffer {
 public:
  explicit PackBuffer(size_t n) : size_(std::max<size_t>(n, 1) * sizeof(T)) {
    data_ = static_cast<T*>(std::malloc(size_));
    if (!data_) throw std::bad_alloc();
  }
  PackBuffer(const PackBuffer&) = delete;
  PackBuffer& operator=(const PackBuffer&) = delete;
  ~PackBuffer() { std::free(data_); }  // null after a successful pack
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  void** handle() { return reinterpret_cast<void**>(&data_); }
  T** typed_handle() { return &data_; }
  GrB_Index bytes() const { return size_; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

/// host's CSR as a GraphBLAS matrix held by row: values scale * host's rounded to Scalar, or
/// (pattern) one iso boolean, for a mask whose values are never read. graphblas_skip_reason must
/// have found no repeated columns.
template <class Scalar>
void graphblas_csr(GrbMatrix& M, const Sprocket::HostCsr& host, double scale, bool pattern) {
  const int64_t rows = host.num_rows, nnz = host.nnz();
  SPROCKET_BENCH_GRB(GrB_Matrix_new(M.out(), pattern ? GrB_BOOL : graphblas_type<Scalar>(), rows, host.num_cols));
  PackBuffer<GrB_Index> p(rows + 1), j(nnz);
  for (int64_t i = 0; i <= rows; ++i) p[i] = static_cast<GrB_Index>(host.row_map[i]);
  for (int64_t k = 0; k < nnz; ++k) j[k] = static_cast<GrB_Index>(host.entries[k]);
  const bool jumbled = !host.is_sorted_and_unique();
  if (pattern) {
    PackBuffer<bool> x(1);
    x[0] = true;
    SPROCKET_BENCH_GRB(GxB_Matrix_pack_CSR(M.get(), p.typed_handle(), j.typed_handle(), x.handle(), p.bytes(),
                                           j.bytes(), x.bytes(), true, jumbled, nullptr));
  } else {
    PackBuffer<Scalar> x(nnz);
    for (int64_t k = 0; k < nnz; ++k)
      x[k] = static_cast<Scalar>(scale * static_cast<double>(static_cast<Scalar>(host.values[k])));
    SPROCKET_BENCH_GRB(GxB_Matrix_pack_CSR(M.get(), p.typed_handle(), j.typed_handle(), x.handle(), p.bytes(),
                                           j.bytes(), x.bytes(), false, jumbled, nullptr));
  }
}

/// A rank-2 View's values (times scale) as a full GraphBLAS matrix in the View's own order: by row
/// for LayoutRight, by column otherwise.
template <class Mat>
void graphblas_full(GrbMatrix& M, const Mat& view, double scale) {
  using Scalar = typename Mat::non_const_value_type;
  constexpr bool by_row = std::is_same_v<typename Mat::array_layout, Kokkos::LayoutRight>;
  const int64_t rows = view.extent(0), cols = view.extent(1);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  SPROCKET_BENCH_GRB(GrB_Matrix_new(M.out(), graphblas_type<Scalar>(), rows, cols));
  PackBuffer<Scalar> x(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < cols; ++c)
      x[by_row ? i * cols + c : i + c * rows] = static_cast<Scalar>(scale * static_cast<double>(h(i, c)));
  if (by_row)
    SPROCKET_BENCH_GRB(GxB_Matrix_pack_FullR(M.get(), x.handle(), x.bytes(), false, nullptr));
  else
    SPROCKET_BENCH_GRB(GxB_Matrix_pack_FullC(M.get(), x.handle(), x.bytes(), false, nullptr));
}

/// Every entry of M as (row, column, value), sorted by row and then column.
template <class Scalar>
struct GrbTuples {
  std::vector<GrB_Index> rows, cols;
  std::vector<Scalar> values;
};

template <class Scalar>
GrbTuples<Scalar> graphblas_tuples(GrB_Matrix M) {
  GrB_Index n = 0;
  SPROCKET_BENCH_GRB(GrB_Matrix_nvals(&n, M));
  GrbTuples<Scalar> t;
  t.rows.resize(n);
  t.cols.resize(n);
  t.values.resize(n);
  if constexpr (std::is_same_v<Scalar, float>)
    SPROCKET_BENCH_GRB(GrB_Matrix_extractTuples_FP32(t.rows.data(), t.cols.data(), t.values.data(), &n, M));
  else
    SPROCKET_BENCH_GRB(GrB_Matrix_extractTuples_FP64(t.rows.data(), t.cols.data(), t.values.data(), &n, M));
  bool sorted = true;
  for (GrB_Index k = 1; k < n && sorted; ++k)
    sorted = t.rows[k - 1] < t.rows[k] || (t.rows[k - 1] == t.rows[k] && t.cols[k - 1] < t.cols[k]);
  if (!sorted) {
    std::vector<GrB_Index> order(n);
    for (GrB_Index k = 0; k < n; ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](GrB_Index a, GrB_Index b) {
      return t.rows[a] != t.rows[b] ? t.rows[a] < t.rows[b] : t.cols[a] < t.cols[b];
    });
    GrbTuples<Scalar> s;
    for (GrB_Index k : order) {
      s.rows.push_back(t.rows[k]);
      s.cols.push_back(t.cols[k]);
      s.values.push_back(t.values[k]);
    }
    t = std::move(s);
  }
  return t;
}

/// Fills a rank-2 View (any space and layout) from a GraphBLAS matrix of the same shape; positions
/// GraphBLAS holds no entry for (rows of A without entries) are zeros, as they are in the product.
template <class Mat>
void graphblas_to_dense(GrB_Matrix M, const Mat& view) {
  using Scalar = typename Mat::non_const_value_type;
  const GrbTuples<Scalar> t = graphblas_tuples<Scalar>(M);
  auto h = Kokkos::create_mirror_view(view);
  Kokkos::deep_copy(h, Scalar(0));
  for (size_t k = 0; k < t.values.size(); ++k) h(t.rows[k], t.cols[k]) = t.values[k];
  Kokkos::deep_copy(view, h);
}

/// spmv peer: w = (alpha A) u with GrB_mxv (default descriptor: GraphBLAS picks the method).
template <class Vec>
class GraphblasSpmv {
 public:
  using Scalar = typename Vec::non_const_value_type;

  GraphblasSpmv(const Sprocket::HostCsr& host, const Vec& x, const Vec& y, double alpha) : y_(y) {
    graphblas_init();
    graphblas_csr<Scalar>(A_, host, alpha, false);
    const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    const int64_t n = x.extent(0);
    SPROCKET_BENCH_GRB(GrB_Vector_new(u_.out(), graphblas_type<Scalar>(), n));
    PackBuffer<Scalar> ux(n);
    for (int64_t i = 0; i < n; ++i) ux[i] = xh(i);
    SPROCKET_BENCH_GRB(GxB_Vector_pack_Full(u_.get(), ux.handle(), ux.bytes(), false, nullptr));
    SPROCKET_BENCH_GRB(GrB_Vector_new(w_.out(), graphblas_type<Scalar>(), y.extent(0)));
  }

  void apply() const {
    SPROCKET_BENCH_GRB(GrB_mxv(w_.get(), nullptr, nullptr, graphblas_plus_times<Scalar>(), A_.get(), u_.get(), nullptr));
    SPROCKET_BENCH_GRB(GrB_Vector_wait(w_.get(), GrB_MATERIALIZE));
  }

  /// y = w (zeros where w has no entry: empty rows of A).
  void fetch_result() const {
    GrB_Index n = 0;
    SPROCKET_BENCH_GRB(GrB_Vector_nvals(&n, w_.get()));
    std::vector<GrB_Index> index(n);
    std::vector<Scalar> value(n);
    if constexpr (std::is_same_v<Scalar, float>)
      SPROCKET_BENCH_GRB(GrB_Vector_extractTuples_FP32(index.data(), value.data(), &n, w_.get()));
    else
      SPROCKET_BENCH_GRB(GrB_Vector_extractTuples_FP64(index.data(), value.data(), &n, w_.get()));
    auto yh = Kokkos::create_mirror_view(y_);
    Kokkos::deep_copy(yh, Scalar(0));
    for (GrB_Index k = 0; k < n; ++k) yh(index[k]) = value[k];
    Kokkos::deep_copy(y_, yh);
  }

  std::string note() const {
    return "GrB_mxv(w, PLUS_TIMES, A, u) on GraphBLAS's own copies of A (CSR, alpha folded in) and x, " +
           std::to_string(graphblas_threads()) + " threads";
  }

 private:
  Vec y_;
  GrbMatrix A_;
  GrbVector u_, w_;
};

/// spmm peer: C = (alpha A) B with GrB_mxm, B full in the layout of the bench's B.
template <class Mat>
class GraphblasSpmm {
 public:
  using Scalar = typename Mat::non_const_value_type;

  GraphblasSpmm(const Sprocket::HostCsr& host, const Mat& B, const Mat& C, double alpha) : C_view_(C) {
    graphblas_init();
    graphblas_csr<Scalar>(A_, host, alpha, false);
    graphblas_full(B_, B, 1.0);
    SPROCKET_BENCH_GRB(GrB_Matrix_new(C_.out(), graphblas_type<Scalar>(), C.extent(0), C.extent(1)));
  }

  void apply() const {
    SPROCKET_BENCH_GRB(GrB_mxm(C_.get(), nullptr, nullptr, graphblas_plus_times<Scalar>(), A_.get(), B_.get(), nullptr));
    SPROCKET_BENCH_GRB(GrB_Matrix_wait(C_.get(), GrB_MATERIALIZE));
  }

  void fetch_result() const { graphblas_to_dense(C_.get(), C_view_); }

  std::string note() const {
    return std::string("GrB_mxm(C, PLUS_TIMES, A, B) on GraphBLAS's own copies of A (CSR, alpha folded in) and B (full ") +
           (std::is_same_v<typename Mat::array_layout, Kokkos::LayoutRight> ? "by row" : "by column") + "), " +
           std::to_string(graphblas_threads()) + " threads";
  }

 private:
  Mat C_view_;
  GrbMatrix A_, B_, C_;
};

/// sddmm peer: C<S, structural> = (alpha A) B' with GrB_mxm, the dot-product method, GrB_REPLACE.
/// fetch_result() writes C's values into out in S's entry order.
template <class Mat, class Out>
class GraphblasSddmm {
 public:
  using Scalar = typename Mat::non_const_value_type;

  GraphblasSddmm(const Sprocket::HostCsr& S, const Mat& A, const Mat& B, const Out& out, double alpha)
      : S_(S), out_(out) {
    graphblas_init();
    graphblas_csr<Scalar>(mask_, S, 1.0, true);
    graphblas_full(A_, A, alpha);
    graphblas_full(B_, B, 1.0);
    SPROCKET_BENCH_GRB(GrB_Matrix_new(C_.out(), graphblas_type<Scalar>(), S.num_rows, S.num_cols));
    SPROCKET_BENCH_GRB(GrB_Descriptor_new(desc_.out()));
    SPROCKET_BENCH_GRB(GrB_Descriptor_set(desc_.get(), GrB_OUTP, GrB_REPLACE));
    SPROCKET_BENCH_GRB(GrB_Descriptor_set(desc_.get(), GrB_MASK, GrB_STRUCTURE));
    SPROCKET_BENCH_GRB(GrB_Descriptor_set(desc_.get(), GrB_INP1, GrB_TRAN));
    SPROCKET_BENCH_GRB(GrB_Descriptor_set(desc_.get(), GxB_AxB_METHOD, GxB_AxB_DOT));
  }

  void apply() const {
    SPROCKET_BENCH_GRB(
        GrB_mxm(C_.get(), mask_.get(), nullptr, graphblas_plus_times<Scalar>(), A_.get(), B_.get(), desc_.get()));
    SPROCKET_BENCH_GRB(GrB_Matrix_wait(C_.get(), GrB_MATERIALIZE));
  }

  /// out(k) = C(i, j) for S's entry k = (i, j); NaN where C has no entry (so --check fails).
  void fetch_result() const {
    const GrbTuples<Scalar> t = graphblas_tuples<Scalar>(C_.get());
    auto h = Kokkos::create_mirror_view(out_);
    size_t start = 0;
    for (int64_t i = 0; i < S_.num_rows; ++i) {
      size_t end = start;
      while (end < t.rows.size() && t.rows[end] == static_cast<GrB_Index>(i)) ++end;
      for (int64_t k = S_.row_map[i]; k < S_.row_map[i + 1]; ++k) {
        const GrB_Index j = static_cast<GrB_Index>(S_.entries[k]);
        const auto at = std::lower_bound(t.cols.begin() + start, t.cols.begin() + end, j);
        h(k) = at != t.cols.begin() + end && *at == j ? t.values[at - t.cols.begin()]
                                                      : std::numeric_limits<Scalar>::quiet_NaN();
      }
      start = end;
    }
    Kokkos::deep_copy(out_, h);
  }

  std::string note() const {
    return std::string("GrB_mxm(C<S, structural, replace>, PLUS_TIMES, A, B', GxB_AxB_DOT) on GraphBLAS's own copies "
                       "of S (iso pattern), A (alpha folded in) and B (full ") +
           (std::is_same_v<typename Mat::array_layout, Kokkos::LayoutRight> ? "by row" : "by column") + "), " +
           std::to_string(graphblas_threads()) + " threads";
  }

 private:
  const Sprocket::HostCsr& S_;
  Out out_;
  GrbMatrix mask_, A_, B_, C_;
  GrbDescriptor desc_;
};

/// spgemm peer: C = A B with GrB_mxm (PLUS_TIMES of the scalar type, default descriptor) on
/// GraphBLAS's own CSR copies of A and B made at set-up, values rounded to Scalar. apply() makes a
/// new C (GrB_Matrix_new), multiplies and finishes every pending piece of work
/// (GrB_Matrix_wait(C, GrB_MATERIALIZE): C is complete and its rows sorted); release() frees C
/// (untimed in the bench). GraphBLAS has no separate numeric phase.
template <class Scalar>
class GraphblasSpgemm {
 public:
  /// B null: C = A A, with A's copy as both operands (what a GraphBLAS user writes).
  GraphblasSpgemm(const Sprocket::HostCsr& A, const Sprocket::HostCsr* B)
      : rows_(A.num_rows), cols_(B ? B->num_cols : A.num_cols), square_(B == nullptr) {
    graphblas_init();
    graphblas_csr<Scalar>(A_, A, 1.0, false);
    if (B) graphblas_csr<Scalar>(B_, *B, 1.0, false);
  }

  void apply() {
    C_.reset();
    SPROCKET_BENCH_GRB(GrB_Matrix_new(C_.out(), graphblas_type<Scalar>(), rows_, cols_));
    SPROCKET_BENCH_GRB(GrB_mxm(C_.get(), nullptr, nullptr, graphblas_plus_times<Scalar>(), A_.get(),
                               square_ ? A_.get() : B_.get(), nullptr));
    SPROCKET_BENCH_GRB(GrB_Matrix_wait(C_.get(), GrB_MATERIALIZE));
  }

  void release() { C_.reset(); }

  /// The last C in CSR (rows sorted): every entry GraphBLAS holds, explicit zeros included.
  Sprocket::HostCsr result() const {
    Sprocket::HostCsr C;
    C.num_rows = rows_;
    C.num_cols = cols_;
    C.row_map.assign(static_cast<size_t>(rows_ + 1), 0);
    if (!C_.get()) return C;
    const GrbTuples<Scalar> t = graphblas_tuples<Scalar>(C_.get());
    for (const GrB_Index i : t.rows) ++C.row_map[i + 1];
    for (int64_t i = 0; i < rows_; ++i) C.row_map[i + 1] += C.row_map[i];
    C.entries.assign(t.cols.begin(), t.cols.end());
    C.values.assign(t.values.begin(), t.values.end());
    return C;
  }

  std::string note() const {
    return std::string("GrB_mxm(C, PLUS_TIMES, A, ") + (square_ ? "A" : "B") +
           ") on GraphBLAS's own CSR copies (default method), then GrB_Matrix_wait(C, GrB_MATERIALIZE); C made "
           "by every call; no separate numeric phase: numeric_seconds is a full product; " +
           std::to_string(graphblas_threads()) + " threads";
  }

 private:
  int64_t rows_, cols_;
  bool square_;
  GrbMatrix A_, B_, C_;
};

#endif  // SPROCKET_BENCH_HAVE_GRAPHBLAS

}  // namespace sprocket_bench
