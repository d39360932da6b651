// sprocket-bench's GraphBLAS peers (graphblas_peer.hpp), compiled once per library:
//   SPROCKET_GRAPHBLAS_FLAVOR_NS=debian   against Debian's GraphBLAS.h (7.4)
//   SPROCKET_GRAPHBLAS_FLAVOR_NS=v9       against GraphBLAS 9.3.1's GraphBLAS.h with GBMATLAB
//                                         defined: its macros rename every call to the GrM_*
//                                         symbols of the renamed library it links
// No Kokkos here: the bench's adapters (bench_graphblas.hpp) copy Views to and from vectors.
#include "graphblas_peer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

// GraphBLAS.h declares its C functions without extern "C" and pulls in <cmath> and <complex> for
// C++ itself: those come first (above) so their guards keep them out of the extern "C" block.
extern "C" {
#include <GraphBLAS.h>
}

#ifndef SPROCKET_GRAPHBLAS_FLAVOR_NS
#error "compile graphblas_peer.cpp with SPROCKET_GRAPHBLAS_FLAVOR_NS=debian or v9"
#endif

namespace sprocket_bench {
namespace graphblas {
namespace SPROCKET_GRAPHBLAS_FLAVOR_NS {
namespace {

void check(GrB_Info info, const char* call) {
  if (info != GrB_SUCCESS)
    throw std::runtime_error(std::string("GraphBLAS: ") + call + " returned GrB_Info " + std::to_string(info));
}
#define SPROCKET_GRB(call) check((call), #call)

/// GrB_init once; GrB_finalize at exit, after every peer is gone.
void init(int threads) {
  struct Library {
    Library() { SPROCKET_GRB(GrB_init(GrB_NONBLOCKING)); }
    ~Library() { GrB_finalize(); }
  };
  static Library library;
  SPROCKET_GRB(GxB_Global_Option_set_INT32(GxB_GLOBAL_NTHREADS, threads));
}

/// Owns one GraphBLAS object.
template <class T, GrB_Info (*Free)(T*)>
class Object {
 public:
  Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  ~Object() { reset(); }
  T get() const { return object_; }
  T* out() { return &object_; }
  void reset() {
    if (object_) Free(&object_);
    object_ = nullptr;
  }

 private:
  T object_ = nullptr;
};
using Matrix = Object<GrB_Matrix, GrB_Matrix_free>;
using Vector = Object<GrB_Vector, GrB_Vector_free>;
using Descriptor = Object<GrB_Descriptor, GrB_Descriptor_free>;

GrB_Type type_of(const Config& c) { return c.single ? GrB_FP32 : GrB_FP64; }
GrB_Semiring plus_times(const Config& c) { return c.single ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64; }
GrB_BinaryOp plus(const Config& c) { return c.single ? GrB_PLUS_FP32 : GrB_PLUS_FP64; }

/// malloc'ed storage GraphBLAS takes over in GxB_*_pack_* (it frees it with free(), its default
/// allocator); freed here if the pack never happened.
class PackBuffer {
 public:
  PackBuffer(size_t n, size_t element) : bytes_(std::max<size_t>(n, 1) * element) {
    data_ = std::malloc(bytes_);
    if (!data_) throw std::bad_alloc();
  }
  PackBuffer(const PackBuffer&) = delete;
  PackBuffer& operator=(const PackBuffer&) = delete;
  ~PackBuffer() { std::free(data_); }  // null after a successful pack
  template <class T>
  T* as() {
    return static_cast<T*>(data_);
  }
  void** handle() { return &data_; }
  GrB_Index bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

/// Values (scaled) into a buffer of the configured type.
void fill_values(PackBuffer& x, const Config& c, const double* v, size_t n, double scale) {
  if (c.single)
    for (size_t k = 0; k < n; ++k) x.as<float>()[k] = static_cast<float>(scale * v[k]);
  else
    for (size_t k = 0; k < n; ++k) x.as<double>()[k] = scale * v[k];
}

/// A CSR copy held by row: values scale * host's, or (pattern) one iso boolean.
void make_csr(Matrix& M, const Config& c, const Sprocket::HostCsr& host, double scale, bool pattern) {
  const int64_t rows = host.num_rows, nnz = host.nnz();
  SPROCKET_GRB(GrB_Matrix_new(M.out(), pattern ? GrB_BOOL : type_of(c), rows, host.num_cols));
  PackBuffer p(rows + 1, sizeof(GrB_Index)), j(nnz, sizeof(GrB_Index));
  for (int64_t i = 0; i <= rows; ++i) p.as<GrB_Index>()[i] = static_cast<GrB_Index>(host.row_map[i]);
  for (int64_t k = 0; k < nnz; ++k) j.as<GrB_Index>()[k] = static_cast<GrB_Index>(host.entries[k]);
  const bool jumbled = !host.is_sorted_and_unique();
  if (pattern) {
    PackBuffer x(1, sizeof(bool));
    x.as<bool>()[0] = true;
    SPROCKET_GRB(GxB_Matrix_pack_CSR(M.get(), reinterpret_cast<GrB_Index**>(p.handle()),
                                     reinterpret_cast<GrB_Index**>(j.handle()), x.handle(), p.bytes(), j.bytes(),
                                     x.bytes(), true, jumbled, nullptr));
  } else {
    PackBuffer x(nnz, c.single ? sizeof(float) : sizeof(double));
    fill_values(x, c, host.values.data(), host.values.size(), scale);
    SPROCKET_GRB(GxB_Matrix_pack_CSR(M.get(), reinterpret_cast<GrB_Index**>(p.handle()),
                                     reinterpret_cast<GrB_Index**>(j.handle()), x.handle(), p.bytes(), j.bytes(),
                                     x.bytes(), false, jumbled, nullptr));
  }
}

/// A full matrix held by row from row-major values (times scale).
void make_full_by_row(Matrix& M, const Config& c, const std::vector<double>& v, int64_t rows, int64_t cols,
                      double scale) {
  SPROCKET_GRB(GrB_Matrix_new(M.out(), type_of(c), rows, cols));
  PackBuffer x(static_cast<size_t>(rows * cols), c.single ? sizeof(float) : sizeof(double));
  fill_values(x, c, v.data(), static_cast<size_t>(rows * cols), scale);
  SPROCKET_GRB(GxB_Matrix_pack_FullR(M.get(), x.handle(), x.bytes(), false, nullptr));
}

/// A full vector.
void make_full_vector(Vector& w, const Config& c, const double* v, int64_t n) {
  SPROCKET_GRB(GrB_Vector_new(w.out(), type_of(c), n));
  PackBuffer x(static_cast<size_t>(n), c.single ? sizeof(float) : sizeof(double));
  if (v) fill_values(x, c, v, static_cast<size_t>(n), 1.0);
  else if (c.single) std::fill(x.as<float>(), x.as<float>() + n, 0.0f);
  else std::fill(x.as<double>(), x.as<double>() + n, 0.0);
  SPROCKET_GRB(GxB_Vector_pack_Full(w.get(), x.handle(), x.bytes(), false, nullptr));
}

/// A full matrix of zeros held by row.
void make_zero_full_by_row(Matrix& M, const Config& c, int64_t rows, int64_t cols) {
  make_full_by_row(M, c, std::vector<double>(static_cast<size_t>(rows * cols), 0.0), rows, cols, 1.0);
}

/// Every entry of M as (row, column, value), sorted by row and column.
struct Tuples {
  std::vector<GrB_Index> rows, cols;
  std::vector<double> values;
};

Tuples tuples_of(GrB_Matrix M, const Config& c) {
  GrB_Index n = 0;
  SPROCKET_GRB(GrB_Matrix_nvals(&n, M));
  Tuples t;
  t.rows.resize(n);
  t.cols.resize(n);
  t.values.resize(n);
  if (c.single) {
    std::vector<float> v(n);
    SPROCKET_GRB(GrB_Matrix_extractTuples_FP32(t.rows.data(), t.cols.data(), v.data(), &n, M));
    t.values.assign(v.begin(), v.end());
  } else {
    SPROCKET_GRB(GrB_Matrix_extractTuples_FP64(t.rows.data(), t.cols.data(), t.values.data(), &n, M));
  }
  std::vector<GrB_Index> order(n);
  for (GrB_Index k = 0; k < n; ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](GrB_Index a, GrB_Index b) {
    return t.rows[a] != t.rows[b] ? t.rows[a] < t.rows[b] : t.cols[a] < t.cols[b];
  });
  Tuples s;
  s.rows.reserve(n);
  s.cols.reserve(n);
  s.values.reserve(n);
  for (GrB_Index k : order) {
    s.rows.push_back(t.rows[k]);
    s.cols.push_back(t.cols[k]);
    s.values.push_back(t.values[k]);
  }
  return s;
}

Sprocket::HostCsr csr_of(GrB_Matrix M, const Config& c, int64_t rows, int64_t cols) {
  Sprocket::HostCsr C;
  C.num_rows = rows;
  C.num_cols = cols;
  C.row_map.assign(static_cast<size_t>(rows + 1), 0);
  if (!M) return C;
  const Tuples t = tuples_of(M, c);
  for (const GrB_Index i : t.rows) ++C.row_map[i + 1];
  for (int64_t i = 0; i < rows; ++i) C.row_map[i + 1] += C.row_map[i];
  C.entries.assign(t.cols.begin(), t.cols.end());
  C.values = t.values;
  return C;
}

double seconds_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The ways an operation can be written, tried at set-up; the fastest median of 3 (after one
/// first call) is kept.
struct Ways {
  std::vector<std::string> names;
  std::vector<std::function<void()>> runs;
  size_t chosen = 0;
  double first_seconds = 0;
  double setup_seconds = 0;
  double trial_seconds = 0;  ///< the trial of every way (first calls included), after the set-up
  std::string trials;

  void add(std::string name, std::function<void()> run) {
    names.push_back(std::move(name));
    runs.push_back(std::move(run));
  }
  /// Set-up so far (the copies), then the trials.
  void choose(std::chrono::steady_clock::time_point setup_start, const std::function<void()>& after_each = {}) {
    setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
    double best = std::numeric_limits<double>::infinity();
    std::vector<double> first(runs.size());
    std::ostringstream os;
    os.precision(3);
    for (size_t w = 0; w < runs.size(); ++w) {
      first[w] = seconds_of(runs[w]);
      if (after_each) after_each();
      double t[3];
      for (double& s : t) {
        s = seconds_of(runs[w]);
        if (after_each) after_each();
      }
      std::sort(t, t + 3);
      os << (w ? ", " : "") << names[w] << " " << first[w] << "/" << t[1];
      if (t[1] < best) {
        best = t[1];
        chosen = w;
      }
    }
    first_seconds = first[chosen];
    trials = os.str();
    trial_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count() - setup_seconds;
  }
  void run() const { runs[chosen](); }
};

std::string thread_text(const Config& c) { return std::to_string(c.threads) + " threads"; }

// ------------------------------------------------------------------------------------------------

class Spmv final : public SpmvOp {
 public:
  Spmv(const Config& c, const Sprocket::HostCsr& A, double alpha, const std::vector<double>& x)
      : c_(c), rows_(A.num_rows) {
    const auto start = std::chrono::steady_clock::now();
    make_csr(A_, c, A, alpha, false);
    make_full_vector(u_, c, x.data(), A.num_cols);
    make_full_vector(w_, c, nullptr, rows_);
    // w(:) = 0, then w += A u: GraphBLAS accumulates into the full w in place (no new vector).
    ways_.add("mxv_accum_full", [this] {
      if (c_.single) SPROCKET_GRB(GrB_Vector_assign_FP32(w_.get(), nullptr, nullptr, 0.0f, GrB_ALL, rows_, nullptr));
      else SPROCKET_GRB(GrB_Vector_assign_FP64(w_.get(), nullptr, nullptr, 0.0, GrB_ALL, rows_, nullptr));
      SPROCKET_GRB(GrB_mxv(w_.get(), nullptr, plus(c_), plus_times(c_), A_.get(), u_.get(), nullptr));
      SPROCKET_GRB(GrB_Vector_wait(w_.get(), GrB_MATERIALIZE));
    });
    // w = A u: GraphBLAS builds the result and moves it into w.
    ways_.add("mxv_new", [this] {
      SPROCKET_GRB(GrB_mxv(w_.get(), nullptr, nullptr, plus_times(c_), A_.get(), u_.get(), nullptr));
      SPROCKET_GRB(GrB_Vector_wait(w_.get(), GrB_MATERIALIZE));
    });
    ways_.choose(start);
  }
  void apply() override { ways_.run(); }
  void result(std::vector<double>& y) const override {
    y.assign(static_cast<size_t>(rows_), 0.0);
    GrB_Index n = 0;
    SPROCKET_GRB(GrB_Vector_nvals(&n, w_.get()));
    std::vector<GrB_Index> index(n);
    std::vector<double> value(n);
    if (c_.single) {
      std::vector<float> v(n);
      SPROCKET_GRB(GrB_Vector_extractTuples_FP32(index.data(), v.data(), &n, w_.get()));
      value.assign(v.begin(), v.end());
    } else {
      SPROCKET_GRB(GrB_Vector_extractTuples_FP64(index.data(), value.data(), &n, w_.get()));
    }
    for (GrB_Index k = 0; k < n; ++k) y[index[k]] = value[k];
  }
  std::string algorithm() const override { return ways_.names[ways_.chosen]; }
  std::string trials() const override { return ways_.trials; }
  double first_use_seconds() const override { return ways_.first_seconds; }
  double setup_seconds() const override { return ways_.setup_seconds; }
  double trial_seconds() const override { return ways_.trial_seconds; }
  std::string note() const override {
    return "GrB_mxv on GraphBLAS's own copies of A (CSR, alpha folded in) and x (full); " + algorithm() +
           " chosen of w(:) = 0, w += A*u (mxv_accum_full) and w = A*u (mxv_new); " + thread_text(c_);
  }

 private:
  Config c_;
  int64_t rows_;
  Matrix A_;
  Vector u_, w_;
  Ways ways_;
};

class Spmm final : public SpmmOp {
 public:
  Spmm(const Config& c, const Sprocket::HostCsr& A, double alpha, const std::vector<double>& B, int64_t k)
      : c_(c), rows_(A.num_rows), k_(k) {
    const auto start = std::chrono::steady_clock::now();
    make_csr(A_, c, A, alpha, false);
    make_full_by_row(B_, c, B, A.num_cols, k, 1.0);
    make_zero_full_by_row(C_, c, rows_, k);
    ways_.add("mxm_accum_full", [this] {
      if (c_.single)
        SPROCKET_GRB(GrB_Matrix_assign_FP32(C_.get(), nullptr, nullptr, 0.0f, GrB_ALL, rows_, GrB_ALL, k_, nullptr));
      else SPROCKET_GRB(GrB_Matrix_assign_FP64(C_.get(), nullptr, nullptr, 0.0, GrB_ALL, rows_, GrB_ALL, k_, nullptr));
      SPROCKET_GRB(GrB_mxm(C_.get(), nullptr, plus(c_), plus_times(c_), A_.get(), B_.get(), nullptr));
      SPROCKET_GRB(GrB_Matrix_wait(C_.get(), GrB_MATERIALIZE));
    });
    ways_.add("mxm_new", [this] {
      SPROCKET_GRB(GrB_mxm(C_.get(), nullptr, nullptr, plus_times(c_), A_.get(), B_.get(), nullptr));
      SPROCKET_GRB(GrB_Matrix_wait(C_.get(), GrB_MATERIALIZE));
    });
    ways_.choose(start);
  }
  void apply() override { ways_.run(); }
  void result(std::vector<double>& out) const override {
    out.assign(static_cast<size_t>(rows_ * k_), 0.0);
    const Tuples t = tuples_of(C_.get(), c_);
    for (size_t e = 0; e < t.values.size(); ++e) out[t.rows[e] * k_ + t.cols[e]] = t.values[e];
  }
  std::string algorithm() const override { return ways_.names[ways_.chosen]; }
  std::string trials() const override { return ways_.trials; }
  double first_use_seconds() const override { return ways_.first_seconds; }
  double setup_seconds() const override { return ways_.setup_seconds; }
  double trial_seconds() const override { return ways_.trial_seconds; }
  std::string note() const override {
    return "GrB_mxm on GraphBLAS's own copies of A (CSR, alpha folded in) and B (full by row); " + algorithm() +
           " chosen of C(:,:) = 0, C += A*B into C full by row (mxm_accum_full) and C = A*B (mxm_new); " +
           thread_text(c_);
  }

 private:
  Config c_;
  int64_t rows_, k_;
  Matrix A_, B_, C_;
  Ways ways_;
};

class Sddmm final : public SddmmOp {
 public:
  Sddmm(const Config& c, const Sprocket::HostCsr& S, double alpha, const std::vector<double>& A,
        const std::vector<double>& B, int64_t k)
      : c_(c), S_(S) {
    const auto start = std::chrono::steady_clock::now();
    make_csr(mask_, c, S, 1.0, true);
    make_full_by_row(A_, c, A, S.num_rows, k, alpha);
    make_full_by_row(B_, c, B, S.num_cols, k, 1.0);
    SPROCKET_GRB(GrB_Matrix_new(C_.out(), type_of(c), S.num_rows, S.num_cols));
    for (int d = 0; d < 2; ++d) {
      Descriptor& desc = d == 0 ? dot_ : auto_;
      SPROCKET_GRB(GrB_Descriptor_new(desc.out()));
      SPROCKET_GRB(GrB_Descriptor_set(desc.get(), GrB_OUTP, GrB_REPLACE));
      SPROCKET_GRB(GrB_Descriptor_set(desc.get(), GrB_MASK, GrB_STRUCTURE));
      SPROCKET_GRB(GrB_Descriptor_set(desc.get(), GrB_INP1, GrB_TRAN));
      if (d == 0) SPROCKET_GRB(GrB_Descriptor_set(desc.get(), GxB_AxB_METHOD, GxB_AxB_DOT));
    }
    ways_.add("mxm_masked_dot", [this] { run(dot_.get()); });
    ways_.add("mxm_masked_default", [this] { run(auto_.get()); });
    ways_.choose(start);
  }
  void apply() override { ways_.run(); }
  void result(std::vector<double>& out) const override {
    const Tuples t = tuples_of(C_.get(), c_);
    out.assign(static_cast<size_t>(S_.nnz()), std::numeric_limits<double>::quiet_NaN());
    size_t start = 0;
    for (int64_t i = 0; i < S_.num_rows; ++i) {
      size_t end = start;
      while (end < t.rows.size() && t.rows[end] == static_cast<GrB_Index>(i)) ++end;
      for (int64_t e = S_.row_map[i]; e < S_.row_map[i + 1]; ++e) {
        const GrB_Index j = static_cast<GrB_Index>(S_.entries[e]);
        const auto at = std::lower_bound(t.cols.begin() + start, t.cols.begin() + end, j);
        if (at != t.cols.begin() + end && *at == j) out[e] = t.values[at - t.cols.begin()];
      }
      start = end;
    }
  }
  std::string algorithm() const override { return ways_.names[ways_.chosen]; }
  std::string trials() const override { return ways_.trials; }
  double first_use_seconds() const override { return ways_.first_seconds; }
  double setup_seconds() const override { return ways_.setup_seconds; }
  double trial_seconds() const override { return ways_.trial_seconds; }
  std::string note() const override {
    return "GrB_mxm(C<S, structural, replace>, PLUS_TIMES, A, B') on GraphBLAS's own copies of S (iso pattern), A "
           "(alpha folded in) and B (both full by row); " +
           algorithm() + " chosen of the dot method and GraphBLAS's own choice; " + thread_text(c_);
  }

 private:
  void run(GrB_Descriptor desc) {
    SPROCKET_GRB(GrB_mxm(C_.get(), mask_.get(), nullptr, plus_times(c_), A_.get(), B_.get(), desc));
    SPROCKET_GRB(GrB_Matrix_wait(C_.get(), GrB_MATERIALIZE));
  }
  Config c_;
  const Sprocket::HostCsr& S_;
  Matrix mask_, A_, B_, C_;
  Descriptor dot_, auto_;
  Ways ways_;
};

class Spgemm final : public SpgemmOp {
 public:
  Spgemm(const Config& c, const Sprocket::HostCsr& A, const Sprocket::HostCsr* B)
      : c_(c), rows_(A.num_rows), cols_(B ? B->num_cols : A.num_cols), square_(B == nullptr) {
    const auto start = std::chrono::steady_clock::now();
    make_csr(A_, c, A, 1.0, false);
    if (B) make_csr(B_, c, *B, 1.0, false);
    const std::pair<const char*, GrB_Desc_Value> methods[] = {
        {"mxm_default", GxB_DEFAULT}, {"mxm_gustavson", GxB_AxB_GUSTAVSON}, {"mxm_hash", GxB_AxB_HASH}};
    for (size_t m = 0; m < 3; ++m) {
      SPROCKET_GRB(GrB_Descriptor_new(method_[m].out()));
      if (methods[m].second != GxB_DEFAULT)
        SPROCKET_GRB(GrB_Descriptor_set(method_[m].get(), GxB_AxB_METHOD, methods[m].second));
      ways_.add(methods[m].first, [this, m] { full_with(method_[m].get()); });
    }
    ways_.choose(start, [this] { release(); });
    SPROCKET_GRB(GrB_Descriptor_new(masked_.out()));
    SPROCKET_GRB(GrB_Descriptor_set(masked_.get(), GrB_MASK, GrB_STRUCTURE));
  }
  void apply() override { ways_.run(); }
  void release() override { C_.reset(); }
  Sprocket::HostCsr result() const override { return csr_of(C_.get(), c_, rows_, cols_); }
  void prepare_numeric() override {
    numeric_C_.reset();
    SPROCKET_GRB(GrB_Matrix_new(numeric_C_.out(), type_of(c_), rows_, cols_));
    SPROCKET_GRB(GrB_mxm(numeric_C_.get(), nullptr, nullptr, plus_times(c_), A_.get(), right(),
                         method_[ways_.chosen].get()));
    SPROCKET_GRB(GrB_Matrix_wait(numeric_C_.get(), GrB_MATERIALIZE));
  }
  /// C<C, struct> = A B: the values recomputed on the pattern C already has.
  void numeric() override {
    SPROCKET_GRB(GrB_mxm(numeric_C_.get(), numeric_C_.get(), nullptr, plus_times(c_), A_.get(), right(), masked_.get()));
    SPROCKET_GRB(GrB_Matrix_wait(numeric_C_.get(), GrB_MATERIALIZE));
  }
  Sprocket::HostCsr numeric_result() const override { return csr_of(numeric_C_.get(), c_, rows_, cols_); }
  void release_numeric() override { numeric_C_.reset(); }
  /// C = second(C, value): every entry of C set to value.
  void fill_c_values(bool numeric_c, double value) override {
    const GrB_Matrix C = numeric_c ? numeric_C_.get() : C_.get();
    if (c_.single)
      SPROCKET_GRB(GrB_Matrix_apply_BinaryOp2nd_FP32(C, nullptr, nullptr, GrB_SECOND_FP32, C,
                                                     static_cast<float>(value), nullptr));
    else
      SPROCKET_GRB(GrB_Matrix_apply_BinaryOp2nd_FP64(C, nullptr, nullptr, GrB_SECOND_FP64, C, value, nullptr));
    SPROCKET_GRB(GrB_Matrix_wait(C, GrB_MATERIALIZE));
  }
  void set_operands(const Sprocket::HostCsr& A, const Sprocket::HostCsr* B) override {
    A_.reset();
    make_csr(A_, c_, A, 1.0, false);
    if (B) {
      B_.reset();
      make_csr(B_, c_, *B, 1.0, false);
    }
  }
  std::string algorithm() const override { return ways_.names[ways_.chosen]; }
  std::string trials() const override { return ways_.trials; }
  double first_use_seconds() const override { return ways_.first_seconds; }
  double setup_seconds() const override { return ways_.setup_seconds; }
  double trial_seconds() const override { return ways_.trial_seconds; }
  std::string note() const override {
    return std::string("GrB_mxm(C, PLUS_TIMES, A, ") + (square_ ? "A" : "B") +
           ") on GraphBLAS's own CSR copies, a new C per call, then GrB_Matrix_wait(C, GrB_MATERIALIZE); " +
           algorithm() + " chosen of GraphBLAS's default, Gustavson and hash methods; numeric re-run: C<C, struct> = "
           "A*B on the kept C; " + thread_text(c_);
  }

 private:
  GrB_Matrix right() const { return square_ ? A_.get() : B_.get(); }
  void full_with(GrB_Descriptor desc) {
    C_.reset();
    SPROCKET_GRB(GrB_Matrix_new(C_.out(), type_of(c_), rows_, cols_));
    SPROCKET_GRB(GrB_mxm(C_.get(), nullptr, nullptr, plus_times(c_), A_.get(), right(), desc));
    SPROCKET_GRB(GrB_Matrix_wait(C_.get(), GrB_MATERIALIZE));
  }
  Config c_;
  int64_t rows_, cols_;
  bool square_;
  Matrix A_, B_, C_, numeric_C_;
  Descriptor method_[3], masked_;
  Ways ways_;
};

}  // namespace

std::string version() {
  init(1);
  int32_t v[3] = {0, 0, 0};
  SPROCKET_GRB(GxB_Global_Option_get_INT32(GxB_LIBRARY_VERSION, v));
  return std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]);
}

std::unique_ptr<SpmvOp> make_spmv(const Config& c, const Sprocket::HostCsr& A, double alpha,
                                  const std::vector<double>& x) {
  init(c.threads);
  return std::make_unique<Spmv>(c, A, alpha, x);
}
std::unique_ptr<SpmmOp> make_spmm(const Config& c, const Sprocket::HostCsr& A, double alpha,
                                  const std::vector<double>& B, int64_t k) {
  init(c.threads);
  return std::make_unique<Spmm>(c, A, alpha, B, k);
}
std::unique_ptr<SddmmOp> make_sddmm(const Config& c, const Sprocket::HostCsr& S, double alpha,
                                    const std::vector<double>& A, const std::vector<double>& B, int64_t k) {
  init(c.threads);
  return std::make_unique<Sddmm>(c, S, alpha, A, B, k);
}
std::unique_ptr<SpgemmOp> make_spgemm(const Config& c, const Sprocket::HostCsr& A, const Sprocket::HostCsr* B) {
  init(c.threads);
  return std::make_unique<Spgemm>(c, A, B);
}

}  // namespace SPROCKET_GRAPHBLAS_FLAVOR_NS
}  // namespace graphblas
}  // namespace sprocket_bench
