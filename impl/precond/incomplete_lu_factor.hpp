#pragma once
/// \file incomplete_lu_factor.hpp
/// Host factorization and triangular solves behind IncompleteLuPreconditioner, in double,
/// compiled once into the library (incomplete_lu_factor.cpp). ILU(k) in two phases, as the
/// solvers use it: the pattern by levels of fill once (iluk_pattern), then the values of L and U
/// on that pattern (iluk_numeric) as often as A's values change.
#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"
#include "impl/precond/incomplete_cholesky_factor.hpp"

namespace Sprocket {
namespace Impl {
namespace precond {

/// The pattern of L + U of ILU(k) by rows: each row's columns sorted, its diagonal always
/// present (at diagonal[i]), L the columns left of it, U the columns right of it. level_of_fill
/// of every entry: 0 for A's own entries (and a missing diagonal), lev(i,k) + lev(k,j) + 1 for
/// the fill entry (i, j) through pivot k, kept when <= level.
struct IlukPattern {
  int64_t n = 0;
  int level = 0;
  std::vector<int64_t> ptr;
  std::vector<int64_t> cols;
  std::vector<int64_t> diagonal;
  std::vector<int> level_of_fill;
  int64_t nnz() const { return static_cast<int64_t>(cols.size()); }
};

/// Symbolic ILU(k) of a square matrix whose rows are sorted and duplicate-free (rows may miss
/// their diagonal entry: it is added). Row by row, pivots in increasing column order through a
/// sorted linked list of the row's columns, so fill that appears left of the diagonal is itself
/// used as a pivot. level >= 0.
IlukPattern iluk_pattern(const HostCsr& A, int level);

/// A ~= L U on an IlukPattern: L unit lower triangular (its strict part in values at the L
/// positions of the pattern), U upper triangular (diagonal and strict part at the others).
struct LuFactor {
  const IlukPattern* pattern = nullptr;  ///< not owned: the preconditioner keeps both
  std::vector<double> values;            ///< aligned with pattern->cols
  double shift = 0;                      ///< alpha of the factored A + alpha S (S in iluk_numeric)
  int attempts = 0;                      ///< factorizations tried (1: no shift was needed)
};

/// Numeric ILU on the pattern (IKJ order): for each row i, every pivot k < i of the pattern in
/// increasing order gives l_ik = w_k / u_kk and w_j -= l_ik u_kj for the pattern's j > k; entries
/// outside the pattern are dropped. A must have the pattern's rows sorted and duplicate-free (the
/// values are matched by column). A pivot |u_ii| <= 1e-12 max_j |a_ij| (or not finite) is a
/// breakdown: the factorization restarts on A + alpha S, S = diag(sign(a_ii) max_j |a_ij|) (sign
/// + where a_ii = 0), alpha = initial_shift, then 10 alpha, ..., at most max_attempts
/// factorizations in all; after that InvalidArgument naming `who`, the row and the pivot.
LuFactor iluk_numeric(const IlukPattern& pattern, const HostCsr& A, double initial_shift, int max_attempts,
                      const std::string& who);

/// ILUT with column pivoting (Saad's ILUTP) of a square matrix whose rows are sorted and
/// duplicate-free: B Q = L U with Q a column permutation chosen during the factorization. Row by
/// row: the row's entries are eliminated by the earlier rows in increasing pivot order; an L
/// entry l_ik with |l_ik| ||row k of U||_2 below drop_tolerance x ||row i of B||_2 is dropped
/// before it is used, then U's entries below that threshold too, and L's and U's parts keep
/// their largest fill_factor x nnz(row i of B) entries each (at least one; L's by that same
/// weight |l_ik| ||row k of U||_2). The pivot is the row's diagonal column unless its modulus is
/// below pivot_threshold x the largest in U's part (then that one's column is swapped in; 0: never). A
/// zero pivot (|u_ii| <= 1e-12 ||row i||_2) becomes +-||row i||_2 and is counted in
/// zero_pivots_replaced; a row of B without nonzero entries throws InvalidArgument naming it.
struct IlutFactor {
  IlukPattern pattern;                  ///< columns in pivot order (level_of_fill empty)
  std::vector<double> values;           ///< aligned with pattern.cols
  std::vector<int64_t> column_of;       ///< Q: column column_of[j] of B is at pivot position j
  int64_t zero_pivots_replaced = 0;
};
IlutFactor ilut_factor(const HostCsr& B, double drop_tolerance, double fill_factor, double pivot_threshold,
                       const std::string& who);

/// y = (L U)^{-1} y in place, serial; callers run one column of a block per thread.
void lu_solve_in_place(const LuFactor& factor, double* y);

/// Level schedules of the two triangular solves (the device path): L z = y by the rows of L's
/// strict part (unit diagonal: inverse diagonal 1), levels in increasing row order; U x = z by
/// the rows of U's strict part, levels from the last row up, with upper_inverse_diagonal (1 / u_ii).
LevelSchedule lower_schedule(const LuFactor& factor);
LevelSchedule upper_schedule(const LuFactor& factor);
std::vector<double> upper_inverse_diagonal(const LuFactor& factor);

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
