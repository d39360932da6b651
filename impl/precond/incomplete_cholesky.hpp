#pragma once
/// \file incomplete_cholesky.hpp
/// Incomplete Cholesky preconditioner: Y = (L L^T)^{-1} X with L from a threshold incomplete
/// factorization of a symmetric positive definite A (incomplete_cholesky_factor.hpp), in double
/// on the host. The triangular solves run on the host, one column of the block per host thread:
/// they are sequential along the rows, and the blocks the solvers pass (LOBPCG's W, block
/// GMRES's s columns) give the parallelism. On a device whose memory the host cannot read, each
/// apply copies X to the host and Y back (a level-scheduled device solve is not written yet).
///
/// Why it is here: for the smallest eigenpairs of a badly conditioned A (bcsstk13, condition
/// 1e10) LOBPCG needs a preconditioner close to A^{-1}; Jacobi and low-degree polynomials leave
/// the condition number at 1e6 or more and thousands of iterations.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "impl/precond/incomplete_cholesky_factor.hpp"
#include "impl/precond/precond_common.hpp"

namespace Sprocket {

template <class Scalar, class Device>
class IncompleteCholeskyPreconditioner final : public Preconditioner<Scalar, Device> {
  using base = Preconditioner<Scalar, Device>;

 public:
  IncompleteCholeskyPreconditioner(Impl::precond::CholeskyFactor factor, double drop_tolerance, int64_t nnz_lower_a)
      : factor_(std::move(factor)), drop_tolerance_(drop_tolerance), nnz_lower_a_(nnz_lower_a) {}

  int64_t num_rows() const override { return factor_.n; }
  int64_t num_cols() const override { return factor_.n; }

  void apply(const typename base::const_multivector& X, const typename base::multivector& Y) const override {
    Impl::precond::check_apply("IncompleteCholeskyPreconditioner::apply", num_rows(), X, Y);
    const int64_t n = num_rows(), s = static_cast<int64_t>(X.extent(1));
    if (n == 0 || s == 0) return;
    const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X);
    const auto y = Kokkos::create_mirror_view(Kokkos::HostSpace(), Y);
    if (static_cast<int64_t>(work_.size()) < n * s) work_.resize(n * s);
    solve_columns(factor_, x, y, work_.data());
    Kokkos::deep_copy(Y, y);  // no copy when Y is host memory already
  }

  std::string describe() const override {
    std::ostringstream os;
    os << "incomplete Cholesky preconditioner<" << (std::is_same_v<Scalar, float> ? "float" : "double") << "> on "
       << Device::execution_space::name() << ": A ~= L L^T, ";
    if (drop_tolerance_ > 0) os << "entries below " << drop_tolerance_ << " x ||A(j:n, j)||_1 dropped";
    else os << "nothing dropped (complete factorization, natural ordering)";
    os << ", nnz(L) = " << factor_.nnz() << " (" << std::fixed;
    os.precision(2);
    os << fill_ratio() << " x the lower triangle of A)";
    if (factor_.attempts > 1) {
      os.unsetf(std::ios::fixed);
      os.precision(3);
      os << ", diagonal shifted by " << factor_.shift << " x diag(A) after " << factor_.attempts - 1
         << " breakdown(s)";
    }
    os << ", " << num_rows() << " rows; triangular solves on the host, one column per thread";
    return os.str();
  }

  /// nnz(L) including its diagonal.
  int64_t nnz() const { return factor_.nnz(); }
  /// nnz(L) / nnz(lower triangle of A).
  double fill_ratio() const {
    return nnz_lower_a_ > 0 ? static_cast<double>(factor_.nnz()) / static_cast<double>(nnz_lower_a_) : 1.0;
  }
  /// alpha of the factored A + alpha diag(A) (0: A itself).
  double shift() const { return factor_.shift; }
  /// The factor (host, double).
  const Impl::precond::CholeskyFactor& factor() const { return factor_; }

 private:
  // A static member, not a lambda in a member function: nvcc refuses extended lambdas there, and
  // this one runs on the host only anyway.
  template <class XHost, class YHost>
  static void solve_columns(const Impl::precond::CholeskyFactor& factor, const XHost& x, const YHost& y,
                            double* work) {
    const int64_t n = factor.n, s = static_cast<int64_t>(x.extent(1));
    Kokkos::parallel_for(
        "Sprocket::precond::incomplete_cholesky_solve", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, s),
        [=, &factor](const int64_t q) {
          double* column = work + q * n;
          for (int64_t i = 0; i < n; ++i) column[i] = static_cast<double>(x(i, q));
          Impl::precond::cholesky_solve_in_place(factor, column);
          for (int64_t i = 0; i < n; ++i) y(i, q) = static_cast<Scalar>(column[i]);
        });
    Kokkos::DefaultHostExecutionSpace().fence();
  }

  Impl::precond::CholeskyFactor factor_;
  double drop_tolerance_;
  int64_t nnz_lower_a_;
  mutable std::vector<double> work_;
};

namespace Impl {
namespace precond {

/// The upper triangle of a CRS matrix (rows sorted, duplicates summed) after checking that A is
/// square and symmetric: every (i, j) must have a (j, i) equal to it within 100 unit roundoffs of
/// the Scalar (relative to the larger of the two); InvalidArgument names the first pair that is not.
template <class CrsType>
UpperTriangle symmetric_upper_triangle(const CrsType& A, const std::string& who) {
  using Scalar = typename CrsType::non_const_value_type;
  const int64_t n = A.numRows();
  SPROCKET_REQUIRE(A.numCols() == n, who, ": A must be square, it is ", n, " x ", A.numCols());
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  // Full matrix, rows sorted, duplicates summed.
  std::vector<int64_t> ptr(n + 1, 0), cols;
  std::vector<double> vals;
  std::vector<std::pair<int64_t, double>> row;
  for (int64_t i = 0; i < n; ++i) {
    row.clear();
    for (int64_t k = row_map(i); k < static_cast<int64_t>(row_map(i + 1)); ++k) {
      const int64_t j = static_cast<int64_t>(entries(k));
      SPROCKET_REQUIRE(j >= 0 && j < n, who, ": row ", i, " has column index ", j, " outside [0, ", n, ")");
      row.emplace_back(j, static_cast<double>(values(k)));
    }
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == row[k - 1].first) vals.back() += row[k].second;
      else cols.push_back(row[k].first), vals.push_back(row[k].second);
    }
    ptr[i + 1] = static_cast<int64_t>(cols.size());
  }
  const double tolerance = 100 * std::numeric_limits<Scalar>::epsilon();
  UpperTriangle U;
  U.n = n;
  U.row_ptr.assign(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k) {
      const int64_t j = cols[k];
      const double v = vals[k];
      if (j != i) {
        const auto first = cols.begin() + ptr[j], last = cols.begin() + ptr[j + 1];
        const auto at = std::lower_bound(first, last, i);
        const double w = at != last && *at == i ? vals[at - cols.begin()] : 0.0;
        SPROCKET_REQUIRE(std::fabs(v - w) <= tolerance * std::max(std::fabs(v), std::fabs(w)), who,
                         ": A is not symmetric: A(", i, ", ", j, ") = ", v, " but A(", j, ", ", i, ") = ", w);
      }
      if (j >= i) U.cols.push_back(j), U.values.push_back(v);
    }
    U.row_ptr[i + 1] = static_cast<int64_t>(U.cols.size());
  }
  return U;
}

}  // namespace precond
}  // namespace Impl

template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int>>
std::shared_ptr<Preconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_incomplete_cholesky(const CrsType& A, const IncompleteCholeskyOptions& options) {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  const char* who = "make_incomplete_cholesky";
  const Impl::precond::UpperTriangle U = Impl::precond::symmetric_upper_triangle(A, who);
  auto factor = Impl::precond::incomplete_cholesky(U, options.drop_tolerance, options.initial_shift,
                                                   options.max_attempts, who);
  return std::make_shared<IncompleteCholeskyPreconditioner<Scalar, Device>>(
      std::move(factor), options.drop_tolerance, static_cast<int64_t>(U.cols.size()));
}

}  // namespace Sprocket
