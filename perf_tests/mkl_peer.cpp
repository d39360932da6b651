// sprocket-bench's Intel MKL peers (mkl_peer.hpp): the inspector-executor sparse BLAS of MKL 2020.4
// (LP64, GNU threading layer) on the caller's arrays. Kokkos-free; the only file that includes MKL.
#include "mkl_peer.hpp"

#include <dlfcn.h>
#include <mkl.h>
#include <mkl_spblas.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace sprocket_bench {
namespace mkl {
namespace {

const char* status_name(sparse_status_t s) {
  switch (s) {
    case SPARSE_STATUS_SUCCESS: return "SPARSE_STATUS_SUCCESS";
    case SPARSE_STATUS_NOT_INITIALIZED: return "SPARSE_STATUS_NOT_INITIALIZED";
    case SPARSE_STATUS_ALLOC_FAILED: return "SPARSE_STATUS_ALLOC_FAILED";
    case SPARSE_STATUS_INVALID_VALUE: return "SPARSE_STATUS_INVALID_VALUE";
    case SPARSE_STATUS_EXECUTION_FAILED: return "SPARSE_STATUS_EXECUTION_FAILED";
    case SPARSE_STATUS_INTERNAL_ERROR: return "SPARSE_STATUS_INTERNAL_ERROR";
    case SPARSE_STATUS_NOT_SUPPORTED: return "SPARSE_STATUS_NOT_SUPPORTED";
  }
  return "an unknown sparse_status_t";
}

void require(sparse_status_t s, const char* call) {
  if (s != SPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string("mkl: ") + call + " returned " + status_name(s));
}
#define SPROCKET_MKL(call) require(call, #call)

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

MKL_INT checked_int(int64_t v, const char* what) {
  if (v < 0 || v > static_cast<int64_t>(std::numeric_limits<MKL_INT>::max()))
    throw std::runtime_error(std::string("mkl: ") + what + " = " + std::to_string(v) +
                             " does not fit MKL's 32-bit LP64 integers");
  return static_cast<MKL_INT>(v);
}

matrix_descr general() {
  matrix_descr d{};
  d.type = SPARSE_MATRIX_TYPE_GENERAL;
  return d;
}

/// An MKL handle, destroyed with the object.
struct Handle {
  sparse_matrix_t h = nullptr;
  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  void reset() {
    if (h) mkl_sparse_destroy(h);
    h = nullptr;
  }
};

/// A handle on the caller's CSR arrays (MKL's create calls take non-const pointers; it reads them).
void create_csr(Handle& out, const Csr& A) {
  const MKL_INT rows = checked_int(A.rows, "rows"), cols = checked_int(A.cols, "columns");
  MKL_INT* row_map = const_cast<MKL_INT*>(A.row_map);
  MKL_INT* entries = const_cast<MKL_INT*>(A.entries);
  if (A.single)
    SPROCKET_MKL(mkl_sparse_s_create_csr(&out.h, SPARSE_INDEX_BASE_ZERO, rows, cols, row_map, row_map + 1, entries,
                                         static_cast<float*>(const_cast<void*>(A.values))));
  else
    SPROCKET_MKL(mkl_sparse_d_create_csr(&out.h, SPARSE_INDEX_BASE_ZERO, rows, cols, row_map, row_map + 1, entries,
                                         static_cast<double*>(const_cast<void*>(A.values))));
}

void create_bsr(Handle& out, const Bsr& A) {
  const MKL_INT rows = checked_int(A.block_rows, "block rows"), cols = checked_int(A.block_cols, "block columns");
  MKL_INT* row_map = const_cast<MKL_INT*>(A.row_map);
  MKL_INT* entries = const_cast<MKL_INT*>(A.entries);
  if (A.single)
    SPROCKET_MKL(mkl_sparse_s_create_bsr(&out.h, SPARSE_INDEX_BASE_ZERO, SPARSE_LAYOUT_ROW_MAJOR, rows, cols,
                                         A.block_size, row_map, row_map + 1, entries,
                                         static_cast<float*>(const_cast<void*>(A.values))));
  else
    SPROCKET_MKL(mkl_sparse_d_create_bsr(&out.h, SPARSE_INDEX_BASE_ZERO, SPARSE_LAYOUT_ROW_MAJOR, rows, cols,
                                         A.block_size, row_map, row_map + 1, entries,
                                         static_cast<double*>(const_cast<void*>(A.values))));
}

/// The inspector's work: the hint of how the handle will be used, aggressive memory use, optimize.
template <class Hint>
void optimize(Handle& A, Hint&& hint) {
  SPROCKET_MKL(hint());
  SPROCKET_MKL(mkl_sparse_set_memory_hint(A.h, SPARSE_MEMORY_AGGRESSIVE));
  SPROCKET_MKL(mkl_sparse_optimize(A.h));
}

/// y = alpha A x + beta y on a handle (CSR or BSR).
class MvOp final : public Op {
 public:
  MvOp(bool single, double alpha, const void* x, double beta, void* y)
      : single_(single), alpha_(alpha), beta_(beta), x_(x), y_(y) {}
  Handle A;
  double setup = 0;
  void apply() override {
    if (single_)
      SPROCKET_MKL(mkl_sparse_s_mv(SPARSE_OPERATION_NON_TRANSPOSE, static_cast<float>(alpha_), A.h, general(),
                                   static_cast<const float*>(x_), static_cast<float>(beta_), static_cast<float*>(y_)));
    else
      SPROCKET_MKL(mkl_sparse_d_mv(SPARSE_OPERATION_NON_TRANSPOSE, alpha_, A.h, general(),
                                   static_cast<const double*>(x_), beta_, static_cast<double*>(y_)));
  }
  double setup_seconds() const override { return setup; }

 private:
  bool single_;
  double alpha_, beta_;
  const void* x_;
  void* y_;
};

using Ways = std::vector<std::pair<std::string, std::unique_ptr<Op>>>;

/// A CSR mv way: plain (the handle alone) or ie (hinted and optimised).
std::unique_ptr<Op> csr_mv(const Csr& A, bool ie, double alpha, const void* x, double beta, void* y, int calls) {
  auto op = std::make_unique<MvOp>(A.single, alpha, x, beta, y);
  const double t0 = now();
  create_csr(op->A, A);
  if (ie)
    optimize(op->A, [&] {
      return mkl_sparse_set_mv_hint(op->A.h, SPARSE_OPERATION_NON_TRANSPOSE, general(), std::max(1, calls));
    });
  op->setup = now() - t0;
  return op;
}

/// C = alpha A B + beta C in B's and C's layout.
class MmOp final : public Op {
 public:
  MmOp(bool single, double alpha, const Dense& B, double beta, const Dense& C)
      : single_(single), alpha_(alpha), beta_(beta), B_(B), C_(C) {}
  Handle A;
  double setup = 0;
  sparse_layout_t layout() const { return B_.row_major ? SPARSE_LAYOUT_ROW_MAJOR : SPARSE_LAYOUT_COLUMN_MAJOR; }
  void apply() override {
    const MKL_INT k = static_cast<MKL_INT>(B_.cols), ldb = static_cast<MKL_INT>(B_.ld), ldc = static_cast<MKL_INT>(C_.ld);
    if (single_)
      SPROCKET_MKL(mkl_sparse_s_mm(SPARSE_OPERATION_NON_TRANSPOSE, static_cast<float>(alpha_), A.h, general(), layout(),
                                   static_cast<const float*>(B_.data), k, ldb, static_cast<float>(beta_),
                                   static_cast<float*>(C_.data), ldc));
    else
      SPROCKET_MKL(mkl_sparse_d_mm(SPARSE_OPERATION_NON_TRANSPOSE, alpha_, A.h, general(), layout(),
                                   static_cast<const double*>(B_.data), k, ldb, beta_, static_cast<double*>(C_.data),
                                   ldc));
  }
  double setup_seconds() const override { return setup; }

 private:
  bool single_;
  double alpha_, beta_;
  Dense B_, C_;
};

/// A handle's CSR arrays copied out (mkl_sparse_?_export_csr), values as doubles.
Sprocket::HostCsr export_csr(sparse_matrix_t C, bool single) {
  sparse_index_base_t base;
  MKL_INT rows = 0, cols = 0, *starts = nullptr, *ends = nullptr, *entries = nullptr;
  void* values = nullptr;
  if (single) {
    float* v = nullptr;
    SPROCKET_MKL(mkl_sparse_s_export_csr(C, &base, &rows, &cols, &starts, &ends, &entries, &v));
    values = v;
  } else {
    double* v = nullptr;
    SPROCKET_MKL(mkl_sparse_d_export_csr(C, &base, &rows, &cols, &starts, &ends, &entries, &v));
    values = v;
  }
  if (base != SPARSE_INDEX_BASE_ZERO) throw std::runtime_error("mkl: a product came back one-based");
  Sprocket::HostCsr out;
  out.num_rows = rows;
  out.num_cols = cols;
  out.row_map.assign(1, 0);
  for (MKL_INT i = 0; i < rows; ++i) {
    for (MKL_INT k = starts[i]; k < ends[i]; ++k) {
      out.entries.push_back(entries[k]);
      out.values.push_back(single ? static_cast<const float*>(values)[k] : static_cast<const double*>(values)[k]);
    }
    out.row_map.push_back(static_cast<int64_t>(out.entries.size()));
  }
  return out;
}

/// Sets every value of a handle's CSR arrays (export_csr's pointers are MKL's own storage).
void fill_values(sparse_matrix_t C, bool single, double value) {
  if (!C) return;
  sparse_index_base_t base;
  MKL_INT rows = 0, cols = 0, *starts = nullptr, *ends = nullptr, *entries = nullptr;
  if (single) {
    float* v = nullptr;
    SPROCKET_MKL(mkl_sparse_s_export_csr(C, &base, &rows, &cols, &starts, &ends, &entries, &v));
    for (MKL_INT i = 0; i < rows; ++i) std::fill(v + starts[i], v + ends[i], static_cast<float>(value));
  } else {
    double* v = nullptr;
    SPROCKET_MKL(mkl_sparse_d_export_csr(C, &base, &rows, &cols, &starts, &ends, &entries, &v));
    for (MKL_INT i = 0; i < rows; ++i) std::fill(v + starts[i], v + ends[i], value);
  }
}

class Spgemm final : public SpgemmOp {
 public:
  Spgemm(const Csr& A, const Csr* B, bool sorted, std::string algorithm)
      : single_(A.single), sorted_(sorted), algorithm_(std::move(algorithm)) {
    if (algorithm_ != "spmm" && algorithm_ != "sp2m")
      throw std::runtime_error("mkl: no SpGEMM algorithm \"" + algorithm_ + "\" (valid: spmm, sp2m)");
    create_csr(A_, A);
    if (B) create_csr(B_, *B);
  }
  void apply() override {
    C_.reset();
    if (algorithm_ == "spmm")
      SPROCKET_MKL(mkl_sparse_spmm(SPARSE_OPERATION_NON_TRANSPOSE, A_.h, b(), &C_.h));
    else
      SPROCKET_MKL(mkl_sparse_sp2m(SPARSE_OPERATION_NON_TRANSPOSE, general(), A_.h, SPARSE_OPERATION_NON_TRANSPOSE,
                                   general(), b(), SPARSE_STAGE_FULL_MULT, &C_.h));
    if (sorted_) SPROCKET_MKL(mkl_sparse_order(C_.h));
  }
  void release() override { C_.reset(); }
  Sprocket::HostCsr result() const override { return export_csr(C_.h, single_); }
  void prepare_numeric() override {
    release_numeric();
    SPROCKET_MKL(mkl_sparse_sp2m(SPARSE_OPERATION_NON_TRANSPOSE, general(), A_.h, SPARSE_OPERATION_NON_TRANSPOSE,
                                 general(), b(), SPARSE_STAGE_FULL_MULT_NO_VAL, &structure_.h));
    numeric();
    after_numeric();
  }
  void numeric() override {
    SPROCKET_MKL(mkl_sparse_sp2m(SPARSE_OPERATION_NON_TRANSPOSE, general(), A_.h, SPARSE_OPERATION_NON_TRANSPOSE,
                                 general(), b(), SPARSE_STAGE_FINALIZE_MULT, &structure_.h));
    if (sorted_) {
      sorted_copy_.reset();
      SPROCKET_MKL(mkl_sparse_copy(structure_.h, general(), &sorted_copy_.h));
      SPROCKET_MKL(mkl_sparse_order(sorted_copy_.h));
    }
  }
  void after_numeric() override { sorted_copy_.reset(); }
  Sprocket::HostCsr numeric_result() const override {
    return export_csr(sorted_ ? sorted_copy_.h : structure_.h, single_);
  }
  void release_numeric() override {
    sorted_copy_.reset();
    structure_.reset();
  }
  void fill_c_values(bool numeric_c, double value) override {
    fill_values(numeric_c ? structure_.h : C_.h, single_, value);
  }
  std::string algorithm() const override { return algorithm_; }
  std::string note() const override {
    return std::string("Intel MKL ") + (algorithm_ == "spmm" ? "mkl_sparse_spmm" : "mkl_sparse_sp2m (FULL_MULT)") +
           (sorted_ ? " + mkl_sparse_order (timed)" : ", output left unsorted") +
           "; numeric re-run: sp2m FINALIZE_MULT on a kept structure" +
           (sorted_ ? ", then a sorted copy (mkl_sparse_copy + mkl_sparse_order)" : "");
  }

 private:
  sparse_matrix_t b() const { return B_.h ? B_.h : A_.h; }
  bool single_, sorted_;
  std::string algorithm_;
  Handle A_, B_, C_, structure_, sorted_copy_;
};

}  // namespace

std::string version() {
  char buf[256] = {};
  mkl_get_version_string(buf, sizeof buf);
  return buf;
}

std::string code_path() {
  MKLVersion v;
  mkl_get_version(&v);
  return v.Processor ? v.Processor : "";
}

std::string dgemm_library() {
  void* symbol = dlsym(RTLD_DEFAULT, "dgemm_");
  Dl_info info{};
  if (!symbol || !dladdr(symbol, &info) || !info.dli_fname) return "none";
  return info.dli_fname;
}

void set_threads(int threads) {
  mkl_set_num_threads(std::max(1, threads));
  // MKL initialises itself on its first sparse call (dispatch to this CPU's library, its memory
  // manager): a cost of the process, like Kokkos::initialize, paid here once, not by the first set-up.
  static const bool initialised = [] {
    MKL_INT row_map[2] = {0, 1}, entries[1] = {0};
    double value = 1, x = 1, y = 0;
    sparse_matrix_t A = nullptr;
    if (mkl_sparse_d_create_csr(&A, SPARSE_INDEX_BASE_ZERO, 1, 1, row_map, row_map + 1, entries, &value) ==
        SPARSE_STATUS_SUCCESS) {
      mkl_sparse_d_mv(SPARSE_OPERATION_NON_TRANSPOSE, 1.0, A, general(), &x, 0.0, &y);
      mkl_sparse_destroy(A);
    }
    return true;
  }();
  (void)initialised;
}

Ways spmv_ways(const Csr& A, double alpha, const void* x, double beta, void* y, int expected_calls) {
  Ways ways;
  ways.emplace_back("plain", csr_mv(A, false, alpha, x, beta, y, expected_calls));
  ways.emplace_back("ie", csr_mv(A, true, alpha, x, beta, y, expected_calls));
  return ways;
}

Ways bsr_ways(const Csr& A, const Bsr& Ab, double alpha, const void* x, double beta, void* y, int expected_calls) {
  Ways ways;
  ways.emplace_back("csr_plain", csr_mv(A, false, alpha, x, beta, y, expected_calls));
  ways.emplace_back("csr_ie", csr_mv(A, true, alpha, x, beta, y, expected_calls));
  auto op = std::make_unique<MvOp>(Ab.single, alpha, x, beta, y);
  const double t0 = now();
  create_bsr(op->A, Ab);
  optimize(op->A, [&] {
    return mkl_sparse_set_mv_hint(op->A.h, SPARSE_OPERATION_NON_TRANSPOSE, general(), std::max(1, expected_calls));
  });
  op->setup = now() - t0;
  ways.emplace_back("bsr_ie", std::move(op));
  return ways;
}

Ways spmm_ways(const Csr& A, double alpha, const Dense& B, double beta, const Dense& C, int expected_calls) {
  Ways ways;
  for (const bool ie : {false, true}) {
    auto op = std::make_unique<MmOp>(A.single, alpha, B, beta, C);
    const double t0 = now();
    create_csr(op->A, A);
    if (ie)
      optimize(op->A, [&] {
        return mkl_sparse_set_mm_hint(op->A.h, SPARSE_OPERATION_NON_TRANSPOSE, general(), op->layout(),
                                      checked_int(B.cols, "K"), std::max(1, expected_calls));
      });
    op->setup = now() - t0;
    ways.emplace_back(ie ? "ie" : "plain", std::move(op));
  }
  return ways;
}

std::unique_ptr<SpgemmOp> make_spgemm(const Csr& A, const Csr* B, bool sorted, const std::string& algorithm) {
  return std::make_unique<Spgemm>(A, B, sorted, algorithm);
}

std::vector<std::string> spgemm_algorithms() { return {"spmm", "sp2m"}; }

}  // namespace mkl
}  // namespace sprocket_bench
