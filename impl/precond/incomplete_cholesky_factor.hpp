#pragma once
/// \file incomplete_cholesky_factor.hpp
/// Host factorization and triangular solves behind IncompleteCholeskyPreconditioner, in double,
/// compiled once into the library (incomplete_cholesky_factor.cpp).
#include <cstdint>
#include <string>
#include <vector>

namespace Sprocket {
namespace Impl {
namespace precond {

/// A symmetric matrix by its upper triangle: row j holds the entries (j, c), c >= j, columns
/// sorted and distinct (duplicates already summed). By symmetry row j is also column j of the
/// lower triangle, which is what the left-looking factorization consumes.
struct UpperTriangle {
  int64_t n = 0;
  std::vector<int64_t> row_ptr;
  std::vector<int64_t> cols;
  std::vector<double> values;
};

/// A ~= L L^T: L's strictly lower part by columns (rows sorted within a column) and its diagonal.
struct CholeskyFactor {
  int64_t n = 0;
  std::vector<int64_t> col_ptr;
  std::vector<int64_t> rows;
  std::vector<double> values;
  std::vector<double> diagonal;
  double shift = 0;          ///< alpha of the factored A + alpha diag(A)
  int attempts = 0;          ///< factorizations tried (1: no shift was needed)
  int64_t dropped = 0;       ///< entries dropped by the threshold in the successful attempt
  int64_t nnz() const { return static_cast<int64_t>(rows.size()) + n; }
};

/// Left-looking incomplete Cholesky with threshold dropping (ICT): column j of L is
/// A(j:n, j) - sum_k L(j:n, k) L(j, k) over the earlier columns k with L(j, k) != 0 (found by
/// one linked list per row, so each column k is walked once from its next row on); entries with
/// |value| < drop_tolerance * ||A(j:n, j)||_1 are dropped before the division by L(j, j) (the
/// MATLAB ichol 'ict' rule), drop_tolerance = 0 drops nothing: the complete factorization in the
/// given ordering. A pivot that is not positive (or below 1e-14 of the shifted diagonal, or not
/// finite) restarts the factorization on A + alpha diag(A) (Manteuffel's shift), alpha =
/// initial_shift, then 10 alpha, ... for at most max_attempts factorizations in all; after that,
/// InvalidArgument naming `who` and the row. A diagonal entry that is not positive throws at
/// once (A is not positive definite).
CholeskyFactor incomplete_cholesky(const UpperTriangle& A, double drop_tolerance, double initial_shift,
                                   int max_attempts, const std::string& who);

/// A triangular factor by rows, each row's off-diagonal entries (ptr, cols, values) and its rows
/// grouped into levels: every row depends only on rows of earlier levels, so one level's rows
/// can be solved at the same time (level_rows[level_ptr[l] .. level_ptr[l + 1]) is level l).
struct LevelSchedule {
  std::vector<int64_t> ptr;
  std::vector<int64_t> cols;
  std::vector<double> values;
  std::vector<int64_t> level_ptr;
  std::vector<int64_t> level_rows;
  int64_t num_levels() const { return static_cast<int64_t>(level_ptr.size()) - 1; }
};

/// The schedule of a triangular solve whose factor is given by rows (ptr, cols, values: each
/// row's entries off the diagonal): lower (row i reads rows < i; levels in increasing row order)
/// or upper (row i reads rows > i; levels from the last row up).
LevelSchedule schedule_by_rows(std::vector<int64_t> ptr, std::vector<int64_t> cols, std::vector<double> values,
                               bool lower);

/// L z = y by rows of L (entries left of the diagonal), levels in increasing row order.
LevelSchedule forward_schedule(const CholeskyFactor& factor);
/// L^T x = z by rows of L^T (L's columns, entries right of the diagonal), levels from the last
/// row up.
LevelSchedule backward_schedule(const CholeskyFactor& factor);

/// y = (L L^T)^{-1} y in place: forward by columns of L, backward by the same columns (rows of
/// L^T). Serial; callers run one column of a block per thread.
void cholesky_solve_in_place(const CholeskyFactor& factor, double* y);

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
