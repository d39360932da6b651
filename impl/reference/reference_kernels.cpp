// Reference kernels: the test oracles. Each is a plain serial loop over the host containers,
// written for obviousness rather than speed. Products are first accumulated into a zeroed
// scratch vector and only then combined with y, so that (a) beta == 0 never reads y, (b) the
// transpose can be a scatter over the CSR without building A^T, and (c) x and y may alias.
#include "Sprocket_Reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"

namespace Sprocket {
namespace reference {
namespace {

/// Returns true for "T" and false for "N"; anything else (including lower case) is rejected so
/// that a typo in a test never silently runs the other operation.
bool parse_transpose(const std::string& mode, const char* kernel) {
  SPROCKET_REQUIRE(mode == "N" || mode == "T", "reference::", kernel, ": mode \"", mode,
                   "\" is neither \"N\" nor \"T\"");
  return mode == "T";
}

void validate_dense(const HostDense& M, const char* kernel, const char* name) {
  SPROCKET_REQUIRE(M.num_rows >= 0 && M.num_cols >= 0, "reference::", kernel, ": ", name,
                   " has negative dimensions ", M.num_rows, " x ", M.num_cols);
  SPROCKET_REQUIRE(static_cast<int64_t>(M.data.size()) == M.num_rows * M.num_cols, "reference::",
                   kernel, ": ", name, " is ", M.num_rows, " x ", M.num_cols, " but holds ",
                   M.data.size(), " values");
}

/// HostBsr::validate (the invariants of HostCsr::validate at block granularity, b*b values per
/// block), the message naming the reference kernel.
void validate_bsr(const HostBsr& A, const char* kernel) {
  A.validate((std::string("reference::") + kernel).c_str());
}

/// Checks op(A) (rows x cols) against the operand extents of an SpMV or SpMM.
void require_operand_shapes(const char* kernel, const std::string& mode, int64_t op_rows,
                            int64_t op_cols, int64_t x_rows, int64_t y_rows, int64_t x_cols,
                            int64_t y_cols) {
  SPROCKET_REQUIRE(x_rows == op_cols, "reference::", kernel, ": op(A) is ", op_rows, " x ",
                   op_cols, " (mode ", mode, ") but x has ", x_rows, " rows, expected ", op_cols);
  SPROCKET_REQUIRE(y_rows == op_rows, "reference::", kernel, ": op(A) is ", op_rows, " x ",
                   op_cols, " (mode ", mode, ") but y has ", y_rows, " rows, expected ", op_rows);
  SPROCKET_REQUIRE(x_cols == y_cols, "reference::", kernel, ": x has ", x_cols,
                   " columns but y has ", y_cols);
}

/// product += op(A) * x for one vector. product has op(A)'s row count and starts at zero.
void accumulate_csr(bool transpose, const HostCsr& A, const double* x, double* product) {
  for (int64_t i = 0; i < A.num_rows; ++i) {
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t j = A.entries[k];
      if (transpose)
        product[j] += A.values[k] * x[i];  // A^T: entry (i, j) of A is entry (j, i)
      else
        product[i] += A.values[k] * x[j];
    }
  }
}

/// product += op(A) * x for one vector of a block-CSR matrix (scalar indices).
void accumulate_bsr(bool transpose, const HostBsr& A, const double* x, double* product) {
  const int64_t b = A.block_size;
  for (int64_t block_row = 0; block_row < A.num_block_rows; ++block_row) {
    for (int64_t k = A.row_map[block_row]; k < A.row_map[block_row + 1]; ++k) {
      const int64_t block_col = A.entries[k];
      for (int r = 0; r < b; ++r) {
        for (int c = 0; c < b; ++c) {
          const int64_t row = block_row * b + r, col = block_col * b + c;
          if (transpose)
            product[col] += A.value(k, r, c) * x[row];
          else
            product[row] += A.value(k, r, c) * x[col];
        }
      }
    }
  }
}

/// y = alpha * product + beta * y over n values. With beta == 0, y is assigned, never read.
void combine(int64_t n, double alpha, const double* product, double beta, double* y) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = (beta == 0.0 ? 0.0 : beta * y[i]) + alpha * product[i];
}

/// Shared body of the four SpMV/SpMM entry points: one column at a time, each accumulated into
/// a fresh zero vector. alpha == 0 skips the product (as BLAS does), so A and x are not read
/// and a NaN or Inf in x cannot turn into NaN in y.
template <class Accumulate>
void apply_columns(Accumulate accumulate, int64_t x_rows, int64_t y_rows, int64_t num_vectors,
                   double alpha, const double* x, double beta, double* y) {
  std::vector<double> product(static_cast<std::size_t>(y_rows));
  for (int64_t v = 0; v < num_vectors; ++v) {
    std::fill(product.begin(), product.end(), 0.0);
    if (alpha != 0.0) accumulate(x + v * x_rows, product.data());
    combine(y_rows, alpha, product.data(), beta, y + v * y_rows);
  }
}

}  // namespace

void spmv(const std::string& mode, double alpha, const HostCsr& A, const std::vector<double>& x,
          double beta, std::vector<double>& y) {
  const bool transpose = parse_transpose(mode, "spmv");
  A.validate();
  const int64_t op_rows = transpose ? A.num_cols : A.num_rows;
  const int64_t op_cols = transpose ? A.num_rows : A.num_cols;
  require_operand_shapes("spmv", mode, op_rows, op_cols, static_cast<int64_t>(x.size()),
                         static_cast<int64_t>(y.size()), 1, 1);
  apply_columns(
      [&](const double* xv, double* product) { accumulate_csr(transpose, A, xv, product); },
      op_cols, op_rows, 1, alpha, x.data(), beta, y.data());
}

void spmm(const std::string& mode, double alpha, const HostCsr& A, const HostDense& X,
          double beta, HostDense& Y) {
  const bool transpose = parse_transpose(mode, "spmm");
  A.validate();
  validate_dense(X, "spmm", "X");
  validate_dense(Y, "spmm", "Y");
  const int64_t op_rows = transpose ? A.num_cols : A.num_rows;
  const int64_t op_cols = transpose ? A.num_rows : A.num_cols;
  require_operand_shapes("spmm", mode, op_rows, op_cols, X.num_rows, Y.num_rows, X.num_cols,
                         Y.num_cols);
  // Column-major storage: column v of X starts at X.data[v * X.num_rows].
  apply_columns(
      [&](const double* xv, double* product) { accumulate_csr(transpose, A, xv, product); },
      X.num_rows, Y.num_rows, X.num_cols, alpha, X.data.data(), beta, Y.data.data());
}

void bsr_spmv(const std::string& mode, double alpha, const HostBsr& A,
              const std::vector<double>& x, double beta, std::vector<double>& y) {
  const bool transpose = parse_transpose(mode, "bsr_spmv");
  validate_bsr(A, "bsr_spmv");
  const int64_t rows = A.num_block_rows * A.block_size, cols = A.num_block_cols * A.block_size;
  const int64_t op_rows = transpose ? cols : rows, op_cols = transpose ? rows : cols;
  require_operand_shapes("bsr_spmv", mode, op_rows, op_cols, static_cast<int64_t>(x.size()),
                         static_cast<int64_t>(y.size()), 1, 1);
  apply_columns(
      [&](const double* xv, double* product) { accumulate_bsr(transpose, A, xv, product); },
      op_cols, op_rows, 1, alpha, x.data(), beta, y.data());
}

void bsr_spmm(const std::string& mode, double alpha, const HostBsr& A, const HostDense& X,
              double beta, HostDense& Y) {
  const bool transpose = parse_transpose(mode, "bsr_spmm");
  validate_bsr(A, "bsr_spmm");
  validate_dense(X, "bsr_spmm", "X");
  validate_dense(Y, "bsr_spmm", "Y");
  const int64_t rows = A.num_block_rows * A.block_size, cols = A.num_block_cols * A.block_size;
  const int64_t op_rows = transpose ? cols : rows, op_cols = transpose ? rows : cols;
  require_operand_shapes("bsr_spmm", mode, op_rows, op_cols, X.num_rows, Y.num_rows, X.num_cols,
                         Y.num_cols);
  apply_columns(
      [&](const double* xv, double* product) { accumulate_bsr(transpose, A, xv, product); },
      X.num_rows, Y.num_rows, X.num_cols, alpha, X.data.data(), beta, Y.data.data());
}

HostCsr sddmm(const HostCsr& S, const HostDense& A, const HostDense& B) {
  S.validate();
  validate_dense(A, "sddmm", "A");
  validate_dense(B, "sddmm", "B");
  SPROCKET_REQUIRE(A.num_rows == S.num_rows, "reference::sddmm: S is ", S.num_rows, " x ",
                   S.num_cols, " but A has ", A.num_rows, " rows, expected ", S.num_rows);
  SPROCKET_REQUIRE(B.num_rows == S.num_cols, "reference::sddmm: S is ", S.num_rows, " x ",
                   S.num_cols, " but B has ", B.num_rows, " rows, expected ", S.num_cols);
  SPROCKET_REQUIRE(A.num_cols == B.num_cols, "reference::sddmm: A is ", A.num_rows, " x ",
                   A.num_cols, " and B is ", B.num_rows, " x ", B.num_cols,
                   ": inner dimensions differ");
  HostCsr out = S;  // same row_map, entries and order; only the values change
  const int64_t inner = A.num_cols;
  for (int64_t i = 0; i < S.num_rows; ++i) {
    for (int64_t k = S.row_map[i]; k < S.row_map[i + 1]; ++k) {
      const int64_t j = S.entries[k];
      double dot = 0.0;
      for (int64_t p = 0; p < inner; ++p) dot += A(i, p) * B(j, p);
      out.values[k] = S.values[k] * dot;
    }
  }
  return out;
}

HostCsr spgemm(const HostCsr& A, const HostCsr& B) {
  A.validate();
  B.validate();
  SPROCKET_REQUIRE(A.num_cols == B.num_rows, "reference::spgemm: A is ", A.num_rows, " x ",
                   A.num_cols, " and B is ", B.num_rows, " x ", B.num_cols,
                   ": inner dimensions differ");
  HostCsr C;
  C.num_rows = A.num_rows;
  C.num_cols = B.num_cols;
  C.row_map.assign(static_cast<std::size_t>(A.num_rows + 1), 0);
  // Dense accumulator over C's columns: touched[j] marks membership in the symbolic pattern, so
  // an entry whose contributions cancel to zero is still emitted.
  std::vector<double> row_sum(static_cast<std::size_t>(B.num_cols), 0.0);
  std::vector<char> touched(static_cast<std::size_t>(B.num_cols), 0);
  std::vector<int> row_columns;
  for (int64_t i = 0; i < A.num_rows; ++i) {
    row_columns.clear();
    for (int64_t ka = A.row_map[i]; ka < A.row_map[i + 1]; ++ka) {
      const int64_t p = A.entries[ka];
      for (int64_t kb = B.row_map[p]; kb < B.row_map[p + 1]; ++kb) {
        const int j = B.entries[kb];
        if (!touched[j]) {
          touched[j] = 1;
          row_columns.push_back(j);
        }
        row_sum[j] += A.values[ka] * B.values[kb];
      }
    }
    std::sort(row_columns.begin(), row_columns.end());
    for (int j : row_columns) {
      C.entries.push_back(j);
      C.values.push_back(row_sum[j]);
      row_sum[j] = 0.0;  // reset only what this row touched
      touched[j] = 0;
    }
    C.row_map[i + 1] = static_cast<int64_t>(C.entries.size());
  }
  return C;
}

double norm2_estimate(const HostCsr& A, int steps) {
  SPROCKET_REQUIRE(steps >= 1, "reference::norm2_estimate: steps = ", steps, " (must be >= 1)");
  A.validate();
  const auto norm = [](const std::vector<double>& v) {
    double s = 0;
    for (double e : v) s += e * e;
    return std::sqrt(s);
  };
  std::vector<double> v(A.num_cols), w(A.num_rows);
  for (int64_t i = 0; i < A.num_cols; ++i) v[i] = 1.0 + static_cast<double>(i % 7) / 7.0;
  double estimate = 0;
  for (int step = 0; step < steps; ++step) {
    const double nv = norm(v);
    if (!(nv > 0)) return 0;
    for (double& e : v) e /= nv;
    spmv("N", 1.0, A, v, 0.0, w);
    estimate = norm(w);
    spmv("T", 1.0, A, w, 0.0, v);
  }
  return estimate;
}

}  // namespace reference
}  // namespace Sprocket
