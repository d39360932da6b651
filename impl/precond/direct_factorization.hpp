#pragma once
/// \file direct_factorization.hpp
/// Host factorizations of A - sigma I behind the direct preconditioners
/// (direct_factorization_preconditioner.hpp), in double, compiled once into the library
/// (direct_factorization.cpp): Cholesky by SuiteSparse CHOLMOD, LU by SuiteSparse UMFPACK (both
/// Debian libsuitesparse-dev, 64-bit indices). Only the cpp includes their headers, so this
/// header and everything that includes it compile without SuiteSparse.
///
/// Two phases, as the solvers use them: the constructor orders and analyses the pattern
/// (CHOLMOD picks AMD, METIS or nested dissection and supernodal or simplicial; UMFPACK its
/// strategy and ordering) and factors the values; refactor() factors new values on the same
/// pattern without the symbolic work.
///
/// How A reaches them: Sprocket's CSR arrays of A are the compressed-column arrays of A^T.
///  - CHOLMOD: row i's entries with columns <= i (and the diagonal, always stored) become column
///    i of the upper triangle of A^T, which is the upper triangle of A because A is symmetric
///    (checked first, within a tolerance; the message names the first pair that differs).
///  - UMFPACK: the whole CSR, diagonal always stored, is factored as the column-compressed A^T,
///    and every solve is the transposed one (UMFPACK_At: A^T's transpose is A).
/// Storing the diagonal even where A has none lets sigma land on it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {
namespace Impl {
namespace precond {

/// What the analysis and the factorization chose and cost, for describe().
struct DirectFactorizationInfo {
  std::string library;   ///< "CHOLMOD 3.0.14", "UMFPACK 5.7.9"
  std::string ordering;  ///< the fill-reducing ordering used ("AMD", "METIS", "COLAMD", ...)
  std::string method;    ///< CHOLMOD: "supernodal" / "simplicial"; UMFPACK: its strategy
  double nnz_l = 0;      ///< nonzeros of L (diagonal included)
  double nnz_u = 0;      ///< LU: nonzeros of U (diagonal included); Cholesky: 0 (U = L^T)
  double flops = -1;     ///< flops of the numeric factorization as the library counts them (< 0: unknown)
  double rcond = -1;     ///< LU: UMFPACK's estimate of the reciprocal condition number (< 0: none)
};

class DirectFactorization {
 public:
  enum class Method { cholesky, lu };

  /// Factors A - shift I. A: square, rows sorted and duplicate-free (validate + sum_duplicates),
  /// finite values. Cholesky: A symmetric within symmetry_tolerance relative to the larger
  /// entry of each pair. Throws InvalidArgument (message starting with `who`) for a non-square
  /// or non-symmetric A, a non-finite entry or shift, A - shift I not positive definite
  /// (Cholesky: names the column of A where the factorization stopped), singular (LU: with
  /// UMFPACK's status), or a status the library reports as invalid; ResourceError when the
  /// library runs out of memory.
  DirectFactorization(Method method, const HostCsr& A, double shift, double symmetry_tolerance, const std::string& who);
  ~DirectFactorization();
  DirectFactorization(const DirectFactorization&) = delete;
  DirectFactorization& operator=(const DirectFactorization&) = delete;

  /// The numeric factorization of new values of A - shift I on the analysed pattern: A's rows
  /// sorted and duplicate-free, its entries a subset of the setup's (one outside throws,
  /// naming it). The same checks and errors as the constructor; after an error the object
  /// has no factorization and its solves throw until a refactor succeeds.
  void refactor(const HostCsr& A, const std::string& who);

  /// Sizes the work buffers for blocks of s columns; throws InvalidArgument when the last
  /// factorization failed. Not thread safe; apply calls it first.
  void reserve(int64_t s);
  /// Whether solve_column may run on several columns at once (LU: UMFPACK only reads the
  /// factorization, each column has its own work buffer).
  bool independent_columns() const { return method_ == Method::lu; }
  /// x = (A - shift I)^{-1} b for column q < reserve()'s s of a block (LU only, after reserve).
  /// Throws nothing (it runs inside parallel regions): returns 0, or UMFPACK's (negative) error
  /// status, which check_solve_status turns into an exception afterwards.
  int solve_column(int64_t q, const double* b, double* x) const noexcept;
  static void check_solve_status(int status);
  /// X = (A - shift I)^{-1} B for the n x s column-major blocks b and x (leading dimension n),
  /// s <= reserve()'s s. Cholesky: one CHOLMOD call for the whole block; LU: column by column.
  void solve(int64_t s, const double* b, double* x);

  Method method() const { return method_; }
  int64_t n() const { return n_; }
  double shift() const { return shift_; }
  const DirectFactorizationInfo& info() const { return info_; }

 private:
  struct Cholmod;
  struct Umfpack;
  void fill_values(const HostCsr& A, const std::string& who);
  void factor_numeric(const std::string& who);

  Method method_;
  int64_t n_ = 0;
  double shift_ = 0;
  double symmetry_tolerance_ = 0;
  bool factored_ = false;
  // The setup's pattern (rows sorted): where each of its entries goes in the library's
  // compressed-column values (-1: not stored, the lower triangle for Cholesky), and where each
  // row's diagonal sits there.
  std::vector<int64_t> row_map_;
  std::vector<int> entries_;
  std::vector<int64_t> position_;
  std::vector<int64_t> diagonal_position_;
  std::unique_ptr<Cholmod> cholmod_;
  std::unique_ptr<Umfpack> umfpack_;
  DirectFactorizationInfo info_;
};

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
