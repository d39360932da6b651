#pragma once
/// \file block_gmres_dense.hpp
/// The small dense half of block GMRES, on the host in double.
///
/// BlockHessenbergLeastSquares: the least-squares problem
///   min_Y || [C; 0] - H Y ||_F
/// of one restart cycle, where H is the block upper Hessenberg matrix built by block Arnoldi
/// (block column j has nonzeros in rows [0, N_{j+1}), N_{j+1} the basis size after step j) and
/// C the coefficients of the initial residual block in the first basis block. Every right-hand
/// side is a column of C and Y; they share H, so one QR of H serves all of them.
///
/// H is factored by Householder reflections as its columns arrive (one block column per Arnoldi
/// step): a new column first receives every earlier reflector, then gets its own, which acts on
/// rows [c, N_{j+1}) only (the column is zero below). Each reflector is applied to the
/// right-hand sides at once, so after every step the residual norm of right-hand side q is the
/// norm of the transformed right-hand side below the last accepted column, with no solve.
///
/// A column whose R diagonal is tiny against the largest column of H seen in the cycle
/// (|R_cc| <= rank_tol * max_c ||H(:, c)||) is numerically dependent on the earlier ones: the
/// operator is singular on the Krylov space (a nonsingular A M^{-1} never does this, whatever
/// directions the Arnoldi block dropped). It is refused, together with every later column, and
/// the cycle is solved with the columns before it: rank_deficient() then says so.
#include <vector>

namespace Sprocket {
namespace Impl {

class BlockHessenbergLeastSquares {
 public:
  /// Capacity: at most max_rows rows and max_cols columns of H, at most max_rhs right-hand sides.
  BlockHessenbergLeastSquares(int max_rows, int max_cols, int max_rhs);

  /// Starts a cycle: the right-hand sides are [C; 0], C is `rows` x `num_rhs` (column-major).
  void reset(const std::vector<double>& C, int rows, int num_rhs, double rank_tol);

  /// Appends `count` columns of H, column-major with leading dimension `rows_after`: their rows
  /// [0, rows_after) (rows below are zero). rows_after may not decrease between calls. Returns
  /// how many were accepted; fewer than `count` when a column was numerically dependent, after
  /// which the problem is closed to further columns.
  int append_columns(const double* h, int count, int rows_after);

  int num_columns() const { return num_columns_; }
  int num_rows() const { return num_rows_; }
  int num_rhs() const { return num_rhs_; }
  bool rank_deficient() const { return rank_deficient_; }

  /// || [C; 0] - H Y_q || for right-hand side q at the minimizer over the accepted columns.
  double residual_norm(int q) const;

  /// The minimizer Y: num_columns() x num_rhs(), column-major.
  std::vector<double> solve() const;

 private:
  void apply_reflector(int reflector, double* x) const;

  int max_rows_, max_cols_, max_rhs_;
  int num_rows_ = 0, num_columns_ = 0, num_rhs_ = 0;
  double rank_tol_ = 0, max_column_norm_ = 0;
  bool rank_deficient_ = false;
  std::vector<double> qr_;                // max_rows x max_cols: R on and above the diagonal,
                                          // reflector vectors below it
  std::vector<double> tau_;               // per column
  std::vector<int> reflector_end_;        // reflector c acts on rows [c, reflector_end_[c])
  std::vector<double> rhs_;               // max_rows x max_rhs, transformed by the reflectors
};

}  // namespace Impl
}  // namespace Sprocket
