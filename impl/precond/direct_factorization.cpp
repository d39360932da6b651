// Cholesky (CHOLMOD) and LU (UMFPACK) of A - sigma I on the host (see direct_factorization.hpp).
#include "impl/precond/direct_factorization.hpp"

// SuiteSparse (Debian libsuitesparse-dev); both headers declare C linkage themselves.
#include <cholmod.h>
#include <umfpack.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "Sprocket_Error.hpp"

namespace Sprocket {
namespace Impl {
namespace precond {

struct DirectFactorization::Cholmod {
  cholmod_common common;
  cholmod_sparse* A = nullptr;  // upper triangle, compressed columns (stype 1), owned by CHOLMOD
  cholmod_factor* L = nullptr;
  // solve2's solution and workspaces, kept between applies (allocated on first use, resized
  // by CHOLMOD when the block width changes).
  cholmod_dense* X = nullptr;
  cholmod_dense* Y = nullptr;
  cholmod_dense* E = nullptr;

  Cholmod() {
    cholmod_l_start(&common);
    // Sprocket reports every failure itself, with the column; CHOLMOD would print its own.
    common.print = 0;
    // A simplicial factorization computes LL' directly, which stops at the first pivot that is
    // not positive; the default LDL' would carry on through an indefinite A.
    common.final_ll = 1;
  }
  ~Cholmod() {
    cholmod_l_free_dense(&X, &common);
    cholmod_l_free_dense(&Y, &common);
    cholmod_l_free_dense(&E, &common);
    cholmod_l_free_factor(&L, &common);
    cholmod_l_free_sparse(&A, &common);
    cholmod_l_finish(&common);
  }
  Cholmod(const Cholmod&) = delete;
  Cholmod& operator=(const Cholmod&) = delete;
};

struct DirectFactorization::Umfpack {
  // Compressed columns of A^T (Sprocket's CSR of A, diagonal always stored).
  std::vector<SuiteSparse_long> ptr, index;
  std::vector<double> values;
  double control[UMFPACK_CONTROL];
  double info[UMFPACK_INFO];
  void* symbolic = nullptr;
  void* numeric = nullptr;
  // wsolve's workspaces, one pair per column of a block (columns are solved concurrently).
  std::vector<SuiteSparse_long> wi;
  std::vector<double> w;

  Umfpack() { umfpack_dl_defaults(control); }
  ~Umfpack() {
    if (numeric) umfpack_dl_free_numeric(&numeric);
    if (symbolic) umfpack_dl_free_symbolic(&symbolic);
  }
  Umfpack(const Umfpack&) = delete;
  Umfpack& operator=(const Umfpack&) = delete;
};

namespace {

const char* cholmod_ordering_name(int ordering) {
  switch (ordering) {
    case CHOLMOD_NATURAL: return "natural";
    case CHOLMOD_GIVEN: return "given";
    case CHOLMOD_AMD: return "AMD";
    case CHOLMOD_METIS: return "METIS";
    case CHOLMOD_NESDIS: return "nested dissection (CHOLMOD's NESDIS)";
    case CHOLMOD_COLAMD: return "COLAMD";
    case CHOLMOD_POSTORDERED: return "natural, postordered";
    default: return "unknown";
  }
}

std::string umfpack_status_name(int status) {
  switch (status) {
    case UMFPACK_OK: return "UMFPACK_OK";
    case UMFPACK_WARNING_singular_matrix: return "UMFPACK_WARNING_singular_matrix";
    case UMFPACK_WARNING_determinant_underflow: return "UMFPACK_WARNING_determinant_underflow";
    case UMFPACK_WARNING_determinant_overflow: return "UMFPACK_WARNING_determinant_overflow";
    case UMFPACK_ERROR_out_of_memory: return "UMFPACK_ERROR_out_of_memory";
    case UMFPACK_ERROR_invalid_Numeric_object: return "UMFPACK_ERROR_invalid_Numeric_object";
    case UMFPACK_ERROR_invalid_Symbolic_object: return "UMFPACK_ERROR_invalid_Symbolic_object";
    case UMFPACK_ERROR_argument_missing: return "UMFPACK_ERROR_argument_missing";
    case UMFPACK_ERROR_n_nonpositive: return "UMFPACK_ERROR_n_nonpositive";
    case UMFPACK_ERROR_invalid_matrix: return "UMFPACK_ERROR_invalid_matrix";
    case UMFPACK_ERROR_different_pattern: return "UMFPACK_ERROR_different_pattern";
    case UMFPACK_ERROR_invalid_system: return "UMFPACK_ERROR_invalid_system";
    case UMFPACK_ERROR_invalid_permutation: return "UMFPACK_ERROR_invalid_permutation";
    case UMFPACK_ERROR_ordering_failed: return "UMFPACK_ERROR_ordering_failed";
    default: return "UMFPACK status " + std::to_string(status);
  }
}

/// "A" or "A - sigma I", for messages.
std::string shifted_name(double shift) { return shift == 0 ? std::string("A") : concat("A - ", shift, " I"); }

[[noreturn]] void cholmod_failure(const cholmod_common& c, const std::string& who, const std::string& step,
                                  int64_t n, int64_t nnz) {
  if (c.status == CHOLMOD_OUT_OF_MEMORY || c.status == CHOLMOD_TOO_LARGE)
    throw ResourceError(concat(who, ": CHOLMOD ran out of memory in the ", step, " of a ", n, " x ", n,
                               " matrix with ", nnz, " stored entries (status ", c.status, ", peak ",
                               c.memory_usage, " bytes)"),
                        static_cast<long long>(c.memory_usage), 0);
  throw InvalidArgument(concat(who, ": CHOLMOD failed in the ", step, " of a ", n, " x ", n, " matrix (status ",
                               c.status, ")"));
}

}  // namespace

DirectFactorization::DirectFactorization(Method method, const HostCsr& A, double shift, double symmetry_tolerance,
                                         const std::string& who)
    : method_(method), n_(A.num_rows), shift_(shift), symmetry_tolerance_(symmetry_tolerance) {
  SPROCKET_REQUIRE(A.num_cols == A.num_rows, who, ": A must be square, it is ", A.num_rows, " x ", A.num_cols);
  SPROCKET_REQUIRE(std::isfinite(shift), who, ": shift = ", shift, " (must be finite)");
  A.validate();
  SPROCKET_REQUIRE(A.is_sorted_and_unique(), who, ": A's rows must be sorted and free of duplicates");
  const int64_t n = n_;
  row_map_ = A.row_map;
  entries_ = A.entries;
  position_.assign(A.entries.size(), -1);
  diagonal_position_.assign(n, -1);
  // The compressed-column pattern handed to the library: column i is row i of the CSR (its part
  // left of and on the diagonal for Cholesky), the diagonal inserted where A has none.
  std::vector<SuiteSparse_long> ptr(n + 1, 0), index;
  index.reserve(A.entries.size() + n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t j = A.entries[k];
      if (j > i && diagonal_position_[i] < 0) {
        diagonal_position_[i] = static_cast<int64_t>(index.size());
        index.push_back(i);
      }
      if (j > i && method == Method::cholesky) break;
      if (j == i) diagonal_position_[i] = static_cast<int64_t>(index.size());
      position_[k] = static_cast<int64_t>(index.size());
      index.push_back(j);
    }
    if (diagonal_position_[i] < 0) {
      diagonal_position_[i] = static_cast<int64_t>(index.size());
      index.push_back(i);
    }
    ptr[i + 1] = static_cast<SuiteSparse_long>(index.size());
  }
  const int64_t stored = static_cast<int64_t>(index.size());

  if (method == Method::cholesky) {
    info_.library = concat("CHOLMOD ", CHOLMOD_MAIN_VERSION, ".", CHOLMOD_SUB_VERSION, ".", CHOLMOD_SUBSUB_VERSION);
    cholmod_ = std::make_unique<Cholmod>();
    factored_ = n == 0;
    if (n == 0) return;
    cholmod_common& c = cholmod_->common;
    cholmod_->A = cholmod_l_allocate_sparse(n, n, stored, /*sorted*/ 1, /*packed*/ 1, /*stype: upper*/ 1,
                                            CHOLMOD_REAL, &c);
    if (!cholmod_->A) cholmod_failure(c, who, "allocation", n, stored);
    std::copy(ptr.begin(), ptr.end(), static_cast<SuiteSparse_long*>(cholmod_->A->p));
    std::copy(index.begin(), index.end(), static_cast<SuiteSparse_long*>(cholmod_->A->i));
    fill_values(A, who);
    // The analysis reads only the pattern: the ordering (AMD, and METIS when AMD's fill is
    // poor) and the choice between supernodal and simplicial are CHOLMOD's.
    cholmod_->L = cholmod_l_analyze(cholmod_->A, &c);
    if (!cholmod_->L || c.status < CHOLMOD_OK) cholmod_failure(c, who, "analysis", n, stored);
    info_.ordering = cholmod_ordering_name(cholmod_->L->ordering);
    info_.nnz_l = c.lnz;
    info_.flops = c.fl;
  } else {
    info_.library = concat("UMFPACK ", UMFPACK_MAIN_VERSION, ".", UMFPACK_SUB_VERSION, ".", UMFPACK_SUBSUB_VERSION);
    umfpack_ = std::make_unique<Umfpack>();
    factored_ = n == 0;
    if (n == 0) return;
    umfpack_->ptr = std::move(ptr);
    umfpack_->index = std::move(index);
    umfpack_->values.assign(stored, 0.0);
    fill_values(A, who);
    Umfpack& u = *umfpack_;
    const int status = static_cast<int>(umfpack_dl_symbolic(n, n, u.ptr.data(), u.index.data(), u.values.data(),
                                                            &u.symbolic, u.control, u.info));
    if (status == UMFPACK_ERROR_out_of_memory)
      throw ResourceError(concat(who, ": UMFPACK ran out of memory in the symbolic analysis of a ", n, " x ", n,
                                 " matrix with ", stored, " stored entries"),
                          static_cast<long long>(u.info[UMFPACK_SYMBOLIC_PEAK_MEMORY] * u.info[UMFPACK_SIZE_OF_UNIT]),
                          0);
    SPROCKET_REQUIRE(status == UMFPACK_OK, who, ": UMFPACK's symbolic analysis of the ", n, " x ", n,
                     " matrix failed (", umfpack_status_name(status), ")");
  }
  factor_numeric(who);
}

DirectFactorization::~DirectFactorization() = default;

void DirectFactorization::fill_values(const HostCsr& A, const std::string& who) {
  const int64_t n = n_;
  double* values = method_ == Method::cholesky ? static_cast<double*>(cholmod_->A->x) : umfpack_->values.data();
  const int64_t stored = method_ == Method::cholesky ? static_cast<int64_t>(cholmod_->A->nzmax)
                                                     : static_cast<int64_t>(umfpack_->values.size());
  std::fill(values, values + stored, 0.0);
  const bool same_pattern = A.row_map == row_map_ && A.entries == entries_;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t j = A.entries[k];
      const double v = A.values[k];
      SPROCKET_REQUIRE(std::isfinite(v), who, ": A(", i, ", ", j, ") = ", v, " is not finite");
      int64_t at = k;
      if (!same_pattern) {
        // New values with fewer entries than the setup: find each in the setup's row.
        const auto first = entries_.begin() + row_map_[i], last = entries_.begin() + row_map_[i + 1];
        const auto found = std::lower_bound(first, last, static_cast<int>(j));
        SPROCKET_REQUIRE(found != last && *found == j, who, ": A(", i, ", ", j,
                         ") is not in the pattern of the setup (the values must keep the analysed pattern)");
        at = found - entries_.begin();
      }
      if (method_ == Method::cholesky && j != i) {
        // Symmetry: the mirror entry must match (a missing one counts as zero).
        const auto first = A.entries.begin() + A.row_map[j], last = A.entries.begin() + A.row_map[j + 1];
        const auto mirror = std::lower_bound(first, last, static_cast<int>(i));
        const double w = mirror != last && *mirror == i ? A.values[mirror - A.entries.begin()] : 0.0;
        SPROCKET_REQUIRE(std::fabs(v - w) <= symmetry_tolerance_ * std::max(std::fabs(v), std::fabs(w)), who,
                         ": A is not symmetric: A(", i, ", ", j, ") = ", v, " but A(", j, ", ", i, ") = ", w,
                         " (a Cholesky factorization needs a symmetric A; make_lu takes any square A)");
      }
      if (position_[at] >= 0) values[position_[at]] = v;
    }
  for (int64_t i = 0; i < n; ++i) values[diagonal_position_[i]] -= shift_;
}

void DirectFactorization::factor_numeric(const std::string& who) {
  const int64_t n = n_;
  factored_ = false;
  if (method_ == Method::cholesky) {
    cholmod_common& c = cholmod_->common;
    const int ok = cholmod_l_factorize(cholmod_->A, cholmod_->L, &c);
    if (c.status == CHOLMOD_NOT_POSDEF) {
      // L->minor is the failed pivot in CHOLMOD's ordering; Perm maps it back to A's column.
      const int64_t pivot = static_cast<int64_t>(cholmod_->L->minor);
      const SuiteSparse_long* perm = static_cast<const SuiteSparse_long*>(cholmod_->L->Perm);
      const int64_t column = perm && pivot < n ? static_cast<int64_t>(perm[pivot]) : pivot;
      throw InvalidArgument(concat(who, ": ", shifted_name(shift_),
                                   " is not positive definite: the Cholesky factorization stopped at column ", column,
                                   " of A (pivot ", pivot + 1, " of ", n, " in CHOLMOD's ", info_.ordering,
                                   " ordering); make_lu factors indefinite matrices"));
    }
    // CHOLMOD_DSMALL (a tiny diagonal entry of L) is a warning: the factor is still usable.
    if (!ok || c.status < CHOLMOD_OK) cholmod_failure(c, who, "numeric factorization", n, cholmod_->A->nzmax);
    info_.method = cholmod_->L->is_super ? "supernodal" : "simplicial";
    factored_ = true;
    return;
  }
  Umfpack& u = *umfpack_;
  if (u.numeric) umfpack_dl_free_numeric(&u.numeric);
  const int status = static_cast<int>(
      umfpack_dl_numeric(u.ptr.data(), u.index.data(), u.values.data(), u.symbolic, &u.numeric, u.control, u.info));
  if (status == UMFPACK_ERROR_out_of_memory) {
    if (u.numeric) umfpack_dl_free_numeric(&u.numeric);
    throw ResourceError(concat(who, ": UMFPACK ran out of memory in the numeric factorization of a ", n, " x ", n,
                               " matrix with ", u.values.size(), " stored entries"),
                        static_cast<long long>(u.info[UMFPACK_PEAK_MEMORY_ESTIMATE] * u.info[UMFPACK_SIZE_OF_UNIT]),
                        0);
  }
  if (status == UMFPACK_WARNING_singular_matrix) {
    // UMFPACK still returns a factorization, but its solves divide by the zero pivots.
    if (u.numeric) umfpack_dl_free_numeric(&u.numeric);
    throw InvalidArgument(concat(who, ": ", shifted_name(shift_), " (", n, " x ", n,
                                 ") is singular: UMFPACK's LU has a zero pivot (",
                                 umfpack_status_name(status), ", status ", status, ")"));
  }
  // The determinant's under- and overflow warnings leave the factorization intact.
  if (status != UMFPACK_OK && status != UMFPACK_WARNING_determinant_underflow &&
      status != UMFPACK_WARNING_determinant_overflow) {
    if (u.numeric) umfpack_dl_free_numeric(&u.numeric);
    throw InvalidArgument(concat(who, ": UMFPACK's numeric factorization of the ", n, " x ", n, " matrix failed (",
                                 umfpack_status_name(status), ")"));
  }
  // UMFPACK factored A^T = P^T L U Q^T (scaled), so A's lower factor is U^T and its upper L^T.
  info_.nnz_l = u.info[UMFPACK_UNZ];
  info_.nnz_u = u.info[UMFPACK_LNZ];
  info_.flops = u.info[UMFPACK_FLOPS];
  info_.rcond = u.info[UMFPACK_RCOND];
  const double strategy = u.info[UMFPACK_STRATEGY_USED];
  const double ordering = u.info[UMFPACK_ORDERING_USED];
  const bool symmetric = strategy == UMFPACK_STRATEGY_SYMMETRIC;
  info_.method = symmetric ? "symmetric strategy" : "unsymmetric strategy";
  if (ordering == UMFPACK_ORDERING_AMD) info_.ordering = symmetric ? "AMD on A + A^T" : "COLAMD";
  else if (ordering == UMFPACK_ORDERING_METIS) info_.ordering = "METIS";
  else if (ordering == UMFPACK_ORDERING_CHOLMOD) info_.ordering = "CHOLMOD's choice";
  else if (ordering == UMFPACK_ORDERING_NONE) info_.ordering = "natural";
  else info_.ordering = concat("UMFPACK ordering ", ordering);
  factored_ = true;
}

void DirectFactorization::refactor(const HostCsr& A, const std::string& who) {
  SPROCKET_REQUIRE(A.num_rows == n_ && A.num_cols == n_, who, ": A is ", A.num_rows, " x ", A.num_cols,
                   " but the factorization is ", n_, " x ", n_);
  A.validate();
  SPROCKET_REQUIRE(A.is_sorted_and_unique(), who, ": A's rows must be sorted and free of duplicates");
  if (n_ == 0) return;
  factored_ = false;
  if (method_ == Method::lu && umfpack_->numeric) umfpack_dl_free_numeric(&umfpack_->numeric);
  fill_values(A, who);
  factor_numeric(who);
}

void DirectFactorization::reserve(int64_t s) {
  SPROCKET_REQUIRE(factored_, "DirectFactorization: the last factorization failed; nothing to solve with");
  if (method_ != Method::lu) return;
  const size_t need = static_cast<size_t>(s * n_);
  if (umfpack_->wi.size() < need) umfpack_->wi.resize(need);
  if (umfpack_->w.size() < 5 * need) umfpack_->w.resize(5 * need);
}

int DirectFactorization::solve_column(int64_t q, const double* b, double* x) const noexcept {
  Umfpack& u = *umfpack_;
  // UMFPACK holds A^T: the transposed solve is the one with A. Info is left out (it would be
  // shared between the columns solved at once); the status says enough.
  const int status = static_cast<int>(umfpack_dl_wsolve(UMFPACK_At, u.ptr.data(), u.index.data(), u.values.data(), x,
                                                        b, u.numeric, u.control, nullptr, u.wi.data() + q * n_,
                                                        u.w.data() + 5 * q * n_));
  // Errors are negative; the only warning, a singular matrix, cannot come back here (factor_numeric
  // refused that factorization).
  return status < 0 ? status : 0;
}

void DirectFactorization::check_solve_status(int status) {
  SPROCKET_REQUIRE(status == 0, "DirectFactorization: UMFPACK's solve failed (", umfpack_status_name(status), ")");
}

void DirectFactorization::solve(int64_t s, const double* b, double* x) {
  if (n_ == 0 || s == 0) return;
  reserve(s);
  if (method_ == Method::lu) {
    for (int64_t q = 0; q < s; ++q) check_solve_status(solve_column(q, b + q * n_, x + q * n_));
    return;
  }
  Cholmod& ch = *cholmod_;
  cholmod_common& c = ch.common;
  // B wraps the caller's block (CHOLMOD only reads it); X, Y, E are CHOLMOD's and persist.
  cholmod_dense B;
  B.nrow = static_cast<size_t>(n_);
  B.ncol = static_cast<size_t>(s);
  B.nzmax = B.nrow * B.ncol;
  B.d = B.nrow;
  B.x = const_cast<double*>(b);
  B.z = nullptr;
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  const int ok = cholmod_l_solve2(CHOLMOD_A, ch.L, &B, nullptr, &ch.X, nullptr, &ch.Y, &ch.E, &c);
  if (!ok || c.status < CHOLMOD_OK) cholmod_failure(c, "DirectFactorization", "solve", n_, 0);
  const double* X = static_cast<const double*>(ch.X->x);
  const size_t ld = ch.X->d;
  for (int64_t q = 0; q < s; ++q) std::copy(X + q * ld, X + q * ld + n_, x + q * n_);
}

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
