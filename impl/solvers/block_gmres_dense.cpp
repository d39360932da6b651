// Block GMRES host-side dense work (see the header): the Hessenberg least squares, updated per
// block column by Householder reflections, and the Cholesky QR helpers.
#include "impl/solvers/block_gmres_dense.hpp"

#include <algorithm>
#include <cmath>

#include "Sprocket_Error.hpp"
#include "impl/blocks/lapack.hpp"

namespace Sprocket {
namespace Impl {

BlockHessenbergLeastSquares::BlockHessenbergLeastSquares(int max_rows, int max_cols, int max_rhs)
    : max_rows_(max_rows),
      max_cols_(max_cols),
      max_rhs_(max_rhs),
      qr_(static_cast<size_t>(max_rows) * max_cols),
      tau_(max_cols),
      reflector_end_(max_cols),
      rhs_(static_cast<size_t>(max_rows) * max_rhs) {
  SPROCKET_REQUIRE(max_rows >= 0 && max_cols >= 0 && max_rhs >= 0,
                   "BlockHessenbergLeastSquares: negative capacity");
}

void BlockHessenbergLeastSquares::reset(const std::vector<double>& C, int rows, int num_rhs,
                                        double rank_tol) {
  SPROCKET_REQUIRE(rows >= 0 && rows <= max_rows_ && num_rhs >= 0 && num_rhs <= max_rhs_ &&
                       C.size() >= static_cast<size_t>(rows) * num_rhs,
                   "BlockHessenbergLeastSquares::reset: ", rows, " x ", num_rhs,
                   " right-hand sides exceed the capacity ", max_rows_, " x ", max_rhs_);
  num_rows_ = rows;
  num_rhs_ = num_rhs;
  num_columns_ = 0;
  rank_tol_ = rank_tol;
  max_column_norm_ = 0;
  rank_deficient_ = false;
  std::fill(rhs_.begin(), rhs_.end(), 0.0);
  for (int q = 0; q < num_rhs; ++q)
    for (int i = 0; i < rows; ++i) rhs_[static_cast<size_t>(q) * max_rows_ + i] = C[static_cast<size_t>(q) * rows + i];
}

void BlockHessenbergLeastSquares::apply_reflector(int c, double* x) const {
  // H_c = I - tau v v^T with v = [1; qr_(c+1 : end, c)].
  const double* v = &qr_[static_cast<size_t>(c) * max_rows_];
  const int end = reflector_end_[c];
  double w = x[c];
  for (int i = c + 1; i < end; ++i) w += v[i] * x[i];
  w *= tau_[c];
  x[c] -= w;
  for (int i = c + 1; i < end; ++i) x[i] -= w * v[i];
}

int BlockHessenbergLeastSquares::append_columns(const double* h, int count, int rows_after) {
  SPROCKET_REQUIRE(!rank_deficient_, "BlockHessenbergLeastSquares: the problem is closed after a dependent column");
  SPROCKET_REQUIRE(rows_after >= num_rows_ && rows_after <= max_rows_ && count >= 0 &&
                       num_columns_ + count <= max_cols_,
                   "BlockHessenbergLeastSquares::append_columns: ", count, " columns of ", rows_after,
                   " rows do not fit (", num_columns_, " columns, ", num_rows_, " rows, capacity ",
                   max_rows_, " x ", max_cols_, ")");
  num_rows_ = rows_after;
  for (int t = 0; t < count; ++t) {
    const int c = num_columns_;
    double* col = &qr_[static_cast<size_t>(c) * max_rows_];
    std::fill(col, col + max_rows_, 0.0);
    double norm2 = 0;
    for (int i = 0; i < rows_after; ++i) {
      col[i] = h[static_cast<size_t>(t) * rows_after + i];
      norm2 += col[i] * col[i];
    }
    max_column_norm_ = std::max(max_column_norm_, std::sqrt(norm2));
    for (int r = 0; r < c; ++r) apply_reflector(r, col);
    // Householder for rows [c, rows_after): maps that part of the column onto e_c.
    if (c >= rows_after) {  // no row left for a diagonal: H is wider than tall (cannot happen
      rank_deficient_ = true;  // with nonincreasing Arnoldi blocks, but refuse rather than read junk)
      return t;
    }
    const int length = rows_after - c;
    const int one = 1;
    double tau = 0;
    double alpha = col[c];
    dlarfg_(&length, &alpha, col + c + 1, &one, &tau);
    if (!(std::fabs(alpha) > rank_tol_ * max_column_norm_)) {  // also refuses NaN
      rank_deficient_ = true;
      return t;
    }
    col[c] = alpha;  // R(c, c)
    tau_[c] = tau;
    reflector_end_[c] = rows_after;
    for (int q = 0; q < num_rhs_; ++q) apply_reflector(c, &rhs_[static_cast<size_t>(q) * max_rows_]);
    ++num_columns_;
  }
  return count;
}

double BlockHessenbergLeastSquares::residual_norm(int q) const {
  SPROCKET_REQUIRE(q >= 0 && q < num_rhs_, "BlockHessenbergLeastSquares::residual_norm: right-hand side ", q,
                   " of ", num_rhs_);
  const double* g = &rhs_[static_cast<size_t>(q) * max_rows_];
  double sum = 0;
  for (int i = num_columns_; i < num_rows_; ++i) sum += g[i] * g[i];
  return std::sqrt(sum);
}

std::vector<double> BlockHessenbergLeastSquares::solve() const {
  const int n = num_columns_;
  std::vector<double> y(static_cast<size_t>(n) * num_rhs_);
  if (n == 0 || num_rhs_ == 0) return y;
  for (int q = 0; q < num_rhs_; ++q)
    for (int i = 0; i < n; ++i) y[static_cast<size_t>(q) * n + i] = rhs_[static_cast<size_t>(q) * max_rows_ + i];
  int info = 0;
  const int nrhs = num_rhs_;
  dtrtrs_("U", "N", "N", &n, &nrhs, qr_.data(), &max_rows_, y.data(), &n, &info, 1, 1, 1);
  SPROCKET_REQUIRE(info == 0, "BlockHessenbergLeastSquares::solve: dtrtrs returned info ", info);
  return y;
}

}  // namespace Impl
}  // namespace Sprocket
