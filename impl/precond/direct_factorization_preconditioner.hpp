#pragma once
/// \file direct_factorization_preconditioner.hpp
/// Direct preconditioners: Y = (A - sigma I)^{-1} X exactly (to rounding), from a complete
/// sparse factorization on the host in double (direct_factorization.hpp: CHOLMOD's Cholesky for
/// symmetric positive definite A - sigma I, UMFPACK's LU with pivoting for any nonsingular one).
/// apply copies X into a double block on the host (for float, and for a device whose memory the
/// host cannot read: a mirror), solves the whole block, and copies the result into Y.
///
/// Why it is here: for the hardest spectra (bcsstk13's condition 1e10, clusters at the cut of
/// LOBPCG's block) no incomplete factorization is close enough to A^{-1}; the factor itself is,
/// and with sigma inside the spectrum it is the shift-invert operator of ARPACK's (and SciPy
/// eigsh's) sigma mode: LOBPCG on (A - sigma I)^{-1} for its largest eigenvalues mu finds the
/// eigenvalues sigma + 1 / mu of A nearest sigma.
///
/// Not re-entrant: apply fills work blocks the object keeps (and CHOLMOD's workspace).
#include <Kokkos_Core.hpp>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Sprocket_CsrUtils.hpp"
#include "impl/precond/direct_factorization.hpp"
#include "impl/precond/precond_common.hpp"

namespace Sprocket {

template <class Scalar, class Device>
class DirectFactorizationPreconditioner final : public Preconditioner<Scalar, Device> {
  using base = Preconditioner<Scalar, Device>;
  using Factorization = Impl::precond::DirectFactorization;

 public:
  using Method = Factorization::Method;

  /// Built by make_cholesky and make_lu: A on the host with rows sorted and duplicates summed.
  DirectFactorizationPreconditioner(Method method, const HostCsr& A, const DirectFactorizationOptions& options,
                                    const std::string& who)
      : factorization_(std::make_unique<Factorization>(method, A, options.shift, symmetry_tolerance(), who)),
        options_(options),
        nnz_a_(A.nnz()) {}

  int64_t num_rows() const override { return factorization_->n(); }
  int64_t num_cols() const override { return num_rows(); }

  /// New values of A with the pattern of the setup (duplicates summed; an entry outside it
  /// throws): the numeric factorization of A - sigma I again, the ordering and the symbolic
  /// analysis kept. After a failure (not positive definite, singular) apply throws until an
  /// update_values succeeds.
  template <class CrsType>
  void update_values(const CrsType& A) {
    factorization_->refactor(
        Impl::precond::summed_host_copy_of_size(A, num_rows(), "DirectFactorizationPreconditioner"), who());
  }
  /// The same, ordered after the work queued on `space` (the factorization runs on the host).
  template <class CrsType>
  void update_values(const typename Device::execution_space& space, const CrsType& A) {
    space.fence();
    update_values(A);
  }

  using base::apply;  // the execution-space overload
  void apply(const typename base::const_multivector& X, const typename base::multivector& Y) const override {
    Impl::precond::check_apply("DirectFactorizationPreconditioner::apply", num_rows(), X, Y);
    const int64_t n = num_rows(), s = static_cast<int64_t>(X.extent(1));
    if (n == 0 || s == 0) return;
    const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X);
    const auto y = Kokkos::create_mirror_view(Kokkos::HostSpace(), Y);
    // Contiguous double blocks for the libraries (X may be float, or a strided subview).
    if (static_cast<int64_t>(b_.size()) < n * s) b_.resize(n * s), x_.resize(n * s);
    factorization_->reserve(s);
    solve_columns(*factorization_, x, y, b_.data(), x_.data());
    Kokkos::deep_copy(Y, y);  // no copy when Y is host memory already
  }

  std::string describe() const override {
    const Impl::precond::DirectFactorizationInfo& info = factorization_->info();
    std::ostringstream os;
    const bool cholesky = factorization_->method() == Method::cholesky;
    os << (cholesky ? "Cholesky" : "LU") << " preconditioner<" << (std::is_same_v<Scalar, float> ? "float" : "double")
       << "> on " << Device::execution_space::name() << ": ";
    if (options_.shift == 0)
      os << (cholesky ? "A = L L^T" : "A = P^T L U Q^T");
    else
      os << (cholesky ? "A - sigma I = L L^T" : "A - sigma I = P^T L U Q^T") << ", sigma = " << options_.shift;
    os << " by " << info.library;
    if (num_rows() > 0) {
      os << " (" << info.method << ", ordering " << info.ordering << ")";
      os << ", nnz(L) = " << static_cast<long long>(info.nnz_l);
      if (!cholesky) os << ", nnz(U) = " << static_cast<long long>(info.nnz_u);
      os << " (" << std::fixed;
      os.precision(2);
      os << fill_ratio() << " x nnz(A))";
      os.unsetf(std::ios::fixed);
      os.precision(3);
      if (info.flops >= 0) os << ", " << info.flops << " flops";
      if (info.rcond >= 0) os << ", reciprocal condition estimate " << info.rcond;
    }
    os << ", " << num_rows() << " rows; solves on the host in double, the block at once";
    return os.str();
  }

  /// sigma of the factored A - sigma I.
  double shift() const { return options_.shift; }
  /// nnz(L) (+ nnz(U) for the LU), diagonals included, over the entries of A.
  double fill_ratio() const {
    const auto& info = factorization_->info();
    return nnz_a_ > 0 ? (info.nnz_l + info.nnz_u) / static_cast<double>(nnz_a_) : 1.0;
  }
  /// What the library chose (ordering, supernodal or simplicial, strategy) and counted.
  const Impl::precond::DirectFactorizationInfo& info() const { return factorization_->info(); }
  Method method() const { return factorization_->method(); }

 private:
  static double symmetry_tolerance() { return 100 * std::numeric_limits<Scalar>::epsilon(); }
  const char* who() const { return factorization_->method() == Method::cholesky ? "make_cholesky" : "make_lu"; }

  // A static member, not a lambda in a member function: nvcc refuses extended lambdas there, and
  // this one runs on the host only anyway.
  template <class XHost, class YHost>
  static void solve_columns(Factorization& f, const XHost& x, const YHost& y, double* b, double* out) {
    const int64_t n = f.n(), s = static_cast<int64_t>(x.extent(1));
    using Host = Kokkos::DefaultHostExecutionSpace;
    // The copies into and out of the double blocks are as parallel as the columns.
    Kokkos::parallel_for(
        "Sprocket::precond::direct_gather", Kokkos::RangePolicy<Host>(0, s), [=](const int64_t q) {
          for (int64_t i = 0; i < n; ++i) b[q * n + i] = static_cast<double>(x(i, q));
        });
    Host().fence();
    if (f.independent_columns()) {
      // UMFPACK solves one column per call and only reads its factorization: one column per
      // host thread, as the incomplete factorizations' solves.
      // Nothing may throw inside the parallel region: the worst status is checked after it.
      const Factorization& shared = f;
      int worst = 0;
      Kokkos::parallel_reduce(
          "Sprocket::precond::direct_solve", Kokkos::RangePolicy<Host>(0, s),
          [=, &shared](const int64_t q, int& status) {
            const int column_status = shared.solve_column(q, b + q * n, out + q * n);
            if (column_status < status) status = column_status;
          },
          Kokkos::Min<int>(worst));
      Factorization::check_solve_status(worst);
    } else {
      // CHOLMOD solves the whole block in one call (supernodal: BLAS 3 on the block).
      f.solve(s, b, out);
    }
    Kokkos::parallel_for(
        "Sprocket::precond::direct_scatter", Kokkos::RangePolicy<Host>(0, s), [=](const int64_t q) {
          for (int64_t i = 0; i < n; ++i) y(i, q) = static_cast<Scalar>(out[q * n + i]);
        });
    Host().fence();
  }

  std::unique_ptr<Factorization> factorization_;  // SuiteSparse's objects: neither copied nor moved
  DirectFactorizationOptions options_;
  int64_t nnz_a_;
  mutable std::vector<double> b_, x_;
};

namespace Impl {
namespace precond {

/// make_cholesky and make_lu: A on the host (rows sorted, duplicates summed) factored by `method`.
template <class CrsType>
std::shared_ptr<DirectFactorizationPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_direct_factorization(DirectFactorization::Method method, const CrsType& A, const DirectFactorizationOptions& options,
                          const char* who) {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  SPROCKET_REQUIRE(A.numRows() == A.numCols(), who, ": A must be square, it is ", A.numRows(), " x ", A.numCols());
  return std::make_shared<DirectFactorizationPreconditioner<Scalar, Device>>(method, summed_host_copy(A, who), options, who);
}

}  // namespace precond
}  // namespace Impl

template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int>>
std::shared_ptr<DirectFactorizationPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_cholesky(const CrsType& A, const DirectFactorizationOptions& options) {
  return Impl::precond::make_direct_factorization(Impl::precond::DirectFactorization::Method::cholesky, A, options,
                                                  "make_cholesky");
}

template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int>>
std::shared_ptr<DirectFactorizationPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_lu(const CrsType& A, const DirectFactorizationOptions& options) {
  return Impl::precond::make_direct_factorization(Impl::precond::DirectFactorization::Method::lu, A, options, "make_lu");
}

}  // namespace Sprocket
