#pragma once
/// \file incomplete_cholesky.hpp
/// Incomplete Cholesky preconditioner: Y = (L L^T)^{-1} X with L from a threshold incomplete
/// factorization of a symmetric positive definite A (incomplete_cholesky_factor.hpp), in double
/// on the host. Two ways to run the triangular solves (IncompleteCholeskyOptions::solve):
///  - columns: on the host, one column of the block per host thread, sequential along the rows
///    in double; the blocks the solvers pass (LOBPCG's W, block GMRES's s columns) give the
///    parallelism. The default where the host can read the Device's memory.
///  - levels: on the Device, level-scheduled: rows whose dependencies are all solved form a
///    level, and a level's (row, column) pairs run in one parallel kernel, one kernel per level
///    and triangle. The default on a GPU (no copies over the bus); on the host it is the portable
///    path the tests compare with the other.
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

#include "Sprocket_CsrUtils.hpp"
#include "impl/common/host_analysis.hpp"
#include "impl/precond/incomplete_cholesky_factor.hpp"
#include "impl/precond/orderings.hpp"
#include "impl/precond/precond_common.hpp"

namespace Sprocket {

namespace Impl {
namespace precond {

/// A LevelSchedule on the device (level boundaries stay on the host: they drive the launches).
template <class Scalar, class Device>
struct DeviceLevelSchedule {
  Kokkos::View<int64_t*, Device> ptr, cols, level_rows;
  Kokkos::View<Scalar*, Device> values;
  std::vector<int64_t> level_ptr;

  DeviceLevelSchedule() = default;
  explicit DeviceLevelSchedule(const LevelSchedule& s)
      : ptr(to_device_view<int64_t, Device>(s.ptr, "Sprocket::ic::ptr")),
        cols(to_device_view<int64_t, Device>(s.cols, "Sprocket::ic::cols")),
        level_rows(to_device_view<int64_t, Device>(s.level_rows, "Sprocket::ic::level_rows")),
        values(to_device_view<Scalar, Device>(s.values, "Sprocket::ic::values")),
        level_ptr(s.level_ptr) {}
};

/// Y(i, q) = (Y(i, q) - sum_k values(k) Y(cols(k), q)) * inverse_diagonal(i) for the rows of each
/// level in turn, every (row, column) pair of a level in parallel (double accumulation).
template <class ExecSpace, class Scalar, class Device, class YView>
void solve_by_levels(const DeviceLevelSchedule<Scalar, Device>& s,
                     const Kokkos::View<Scalar*, Device>& inverse_diagonal, const YView& Y) {
  const auto ptr = s.ptr;
  const auto cols = s.cols;
  const auto values = s.values;
  const auto rows = s.level_rows;
  const auto inv = inverse_diagonal;
  const int64_t columns = static_cast<int64_t>(Y.extent(1));
  for (size_t l = 0; l + 1 < s.level_ptr.size(); ++l) {
    const int64_t begin = s.level_ptr[l], count = s.level_ptr[l + 1] - begin;
    Kokkos::parallel_for(
        "Sprocket::precond::triangular_level", Kokkos::RangePolicy<ExecSpace>(0, count * columns),
        KOKKOS_LAMBDA(const int64_t t) {
          const int64_t q = t / count;
          const int64_t i = rows(begin + t % count);
          double sum = static_cast<double>(Y(i, q));
          for (int64_t k = ptr(i); k < ptr(i + 1); ++k)
            sum -= static_cast<double>(values(k)) * static_cast<double>(Y(cols(k), q));
          Y(i, q) = static_cast<Scalar>(sum * static_cast<double>(inv(i)));
        });
  }
}

/// The device path of a factorization of B = Dr P A Q^T Dc (both preconditioners): Z = rows
/// row_perm of X scaled by r, the first then the second level-scheduled triangle on Z, Y's rows
/// col_perm = Z scaled by c. work (n x columns) grows to X's columns.
template <class ExecSpace, class Scalar, class Device, class XView, class YView, class IndexView>
void solve_permuted_by_levels(const XView& X, const YView& Y, Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>& work,
                              const IndexView& row_perm, const Kokkos::View<Scalar*, Device>& r,
                              const DeviceLevelSchedule<Scalar, Device>& first,
                              const Kokkos::View<Scalar*, Device>& first_inverse_diagonal,
                              const DeviceLevelSchedule<Scalar, Device>& second,
                              const Kokkos::View<Scalar*, Device>& second_inverse_diagonal, const IndexView& col_perm,
                              const Kokkos::View<Scalar*, Device>& c) {
  const int64_t n = static_cast<int64_t>(X.extent(0)), s = static_cast<int64_t>(X.extent(1));
  if (static_cast<int64_t>(work.extent(1)) < s)
    work = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::precond::triangular_work"), n, s);
  const auto Z = Kokkos::subview(work, Kokkos::ALL, std::pair<int64_t, int64_t>(0, s));
  gather_scaled_rows<ExecSpace>(X, Z, row_perm, r);
  solve_by_levels<ExecSpace>(first, first_inverse_diagonal, Z);
  solve_by_levels<ExecSpace>(second, second_inverse_diagonal, Z);
  scatter_scaled_rows<ExecSpace>(Z, Y, col_perm, c);
}

}  // namespace precond
}  // namespace Impl

template <class Scalar, class Device>
class IncompleteCholeskyPreconditioner final : public Preconditioner<Scalar, Device> {
  using base = Preconditioner<Scalar, Device>;

 public:
  /// order: P of the factored P A P^T as new_to_old (empty: A's own order); ordering names it.
  IncompleteCholeskyPreconditioner(Impl::precond::CholeskyFactor factor, double drop_tolerance, int64_t nnz_lower_a,
                                   IncompleteCholeskyOptions::TriangularSolve solve,
                                   std::vector<int64_t> order = {},
                                   IncompleteCholeskyOptions::Ordering ordering = IncompleteCholeskyOptions::Ordering::natural)
      : factor_(std::move(factor)),
        drop_tolerance_(drop_tolerance),
        nnz_lower_a_(nnz_lower_a),
        order_(std::move(order)),
        ordering_(ordering) {
    using Solve = IncompleteCholeskyOptions::TriangularSolve;
    constexpr bool host_readable = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Device::memory_space>::accessible;
    by_levels_ = solve == Solve::levels || (solve == Solve::automatic && !host_readable);
    if (by_levels_) {
      forward_ = Impl::precond::DeviceLevelSchedule<Scalar, Device>(Impl::precond::forward_schedule(factor_));
      backward_ = Impl::precond::DeviceLevelSchedule<Scalar, Device>(Impl::precond::backward_schedule(factor_));
      std::vector<double> inverse(factor_.n);
      for (int64_t i = 0; i < factor_.n; ++i) inverse[i] = 1.0 / factor_.diagonal[i];
      inverse_diagonal_ = Impl::to_device_view<Scalar, Device>(inverse, "Sprocket::ic::inverse_diagonal");
      if (!order_.empty()) {
        order_device_ = Impl::to_device_view<int64_t, Device>(order_, "Sprocket::ic::order");
        ones_ = Kokkos::View<Scalar*, Device>("Sprocket::ic::ones", factor_.n);
        Kokkos::deep_copy(ones_, Scalar(1));
      }
    }
  }

  int64_t num_rows() const override { return factor_.n; }
  int64_t num_cols() const override { return factor_.n; }

  /// New values of A with the setup's pattern (InvalidArgument otherwise, or when A is no longer
  /// symmetric or breaks down at every shift): the factorization again with the setup's options.
  template <class CrsType>
  void update_values(const CrsType& A) {
    update_values(typename Device::execution_space(), A);
  }
  template <class CrsType>
  void update_values(const typename Device::execution_space& space, const CrsType& A);

  /// The options and A's upper-triangle pattern of the setup, for update_values. Set by the
  /// factory.
  void keep_setup(const IncompleteCholeskyOptions& options, std::vector<int64_t> row_ptr, std::vector<int64_t> cols) {
    options_ = options;
    pattern_row_ptr_ = std::move(row_ptr);
    pattern_cols_ = std::move(cols);
  }

  using base::apply;  // the execution-space overload
  void apply(const typename base::const_multivector& X, const typename base::multivector& Y) const override {
    Impl::precond::check_apply("IncompleteCholeskyPreconditioner::apply", num_rows(), X, Y);
    const int64_t n = num_rows(), s = static_cast<int64_t>(X.extent(1));
    if (n == 0 || s == 0) return;
    if (by_levels_) {
      using ExecSpace = typename Device::execution_space;
      if (order_.empty()) {
        Kokkos::deep_copy(Y, X);
        Impl::precond::solve_by_levels<ExecSpace>(forward_, inverse_diagonal_, Y);
        Impl::precond::solve_by_levels<ExecSpace>(backward_, inverse_diagonal_, Y);
        return;
      }
      Impl::precond::solve_permuted_by_levels<ExecSpace>(X, Y, work_device_, order_device_, ones_, forward_,
                                                         inverse_diagonal_, backward_, inverse_diagonal_,
                                                         order_device_, ones_);
      return;
    }
    const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X);
    const auto y = Kokkos::create_mirror_view(Kokkos::HostSpace(), Y);
    if (static_cast<int64_t>(work_.size()) < n * s) work_.resize(n * s);
    solve_columns(factor_, order_, x, y, work_.data());
    Kokkos::deep_copy(Y, y);  // no copy when Y is host memory already
  }

  std::string describe() const override {
    std::ostringstream os;
    os << "incomplete Cholesky preconditioner<" << (std::is_same_v<Scalar, float> ? "float" : "double") << "> on "
       << Device::execution_space::name() << ": A ~= L L^T, ";
    if (drop_tolerance_ > 0) os << "entries below " << drop_tolerance_ << " x ||A(j:n, j)||_1 dropped";
    else os << "nothing dropped (complete factorization, " << ordering_name() << " ordering)";
    if (drop_tolerance_ > 0 && !order_.empty()) os << ", " << ordering_name() << " ordering";
    os << ", nnz(L) = " << factor_.nnz() << " (" << std::fixed;
    os.precision(2);
    os << fill_ratio() << " x the lower triangle of A)";
    if (factor_.attempts > 1) {
      os.unsetf(std::ios::fixed);
      os.precision(3);
      os << ", diagonal shifted by " << factor_.shift << " x diag(A) after " << factor_.attempts - 1
         << " breakdown(s)";
    }
    os << ", " << num_rows() << " rows; triangular solves ";
    if (by_levels_)
      os << "level-scheduled on " << Device::execution_space::name() << " (" << forward_.level_ptr.size() - 1
         << " + " << backward_.level_ptr.size() - 1 << " levels)";
    else
      os << "on the host, one column per thread";
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
  /// Whether the triangular solves run level-scheduled on the Device.
  bool by_levels() const { return by_levels_; }

 private:
  // A static member, not a lambda in a member function: nvcc refuses extended lambdas there, and
  // this one runs on the host only anyway.
  template <class XHost, class YHost>
  static void solve_columns(const Impl::precond::CholeskyFactor& factor, const std::vector<int64_t>& order,
                            const XHost& x, const YHost& y, double* work) {
    const int64_t n = factor.n, s = static_cast<int64_t>(x.extent(1));
    const int64_t* p = order.empty() ? nullptr : order.data();
    Kokkos::parallel_for(
        "Sprocket::precond::incomplete_cholesky_solve", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, s),
        [=, &factor](const int64_t q) {
          double* column = work + q * n;
          for (int64_t i = 0; i < n; ++i) column[i] = static_cast<double>(x(p ? p[i] : i, q));
          Impl::precond::cholesky_solve_in_place(factor, column);
          for (int64_t i = 0; i < n; ++i) y(p ? p[i] : i, q) = static_cast<Scalar>(column[i]);
        });
    Kokkos::DefaultHostExecutionSpace().fence();
  }

  const char* ordering_name() const {
    switch (ordering_) {
      case IncompleteCholeskyOptions::Ordering::amd: return "approximate minimum degree";
      case IncompleteCholeskyOptions::Ordering::rcm: return "reverse Cuthill-McKee";
      default: return "natural";
    }
  }

  Impl::precond::CholeskyFactor factor_;
  IncompleteCholeskyOptions options_;
  std::vector<int64_t> pattern_row_ptr_, pattern_cols_;  // A's upper triangle at setup
  double drop_tolerance_;
  int64_t nnz_lower_a_;
  std::vector<int64_t> order_;  // P as new_to_old: the factor is of P A P^T (empty: A's order)
  IncompleteCholeskyOptions::Ordering ordering_;
  Kokkos::View<int64_t*, Device> order_device_;
  Kokkos::View<Scalar*, Device> ones_;
  mutable typename base::multivector work_device_;
  mutable std::vector<double> work_;
  bool by_levels_ = false;
  Impl::precond::DeviceLevelSchedule<Scalar, Device> forward_, backward_;
  Kokkos::View<Scalar*, Device> inverse_diagonal_;
};

namespace Impl {
namespace precond {

/// The upper triangle of a CRS matrix (rows sorted, duplicates summed) after checking that A is
/// square and symmetric: every (i, j) must have a (j, i) equal to it within 100 unit roundoffs of
/// the Scalar (relative to the larger of the two); InvalidArgument names the first pair that is not.
/// With an ordering other than natural, the triangle is of P A P^T and *order gets P (new_to_old).
template <class CrsType>
UpperTriangle symmetric_upper_triangle(const CrsType& A, const std::string& who,
                                       IncompleteCholeskyOptions::Ordering ordering = IncompleteCholeskyOptions::Ordering::natural,
                                       std::vector<int64_t>* order = nullptr) {
  using Scalar = typename CrsType::non_const_value_type;
  const int64_t n = A.numRows();
  SPROCKET_REQUIRE(A.numCols() == n, who, ": A must be square, it is ", n, " x ", A.numCols());
  // Full matrix on the host, rows sorted, duplicates summed.
  HostCsr S = summed_host_copy(A, who);
  if (ordering != IncompleteCholeskyOptions::Ordering::natural) {
    *order = ordering == IncompleteCholeskyOptions::Ordering::amd ? approximate_minimum_degree(S, who)
                                                                  : reverse_cuthill_mckee(S, who);
    S = permuted_scaled_copy(S, *order, *order);
  }
  const std::vector<int64_t>& ptr = S.row_map;
  const auto& cols = S.entries;
  const std::vector<double>& vals = S.values;
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
        const auto at = std::lower_bound(first, last, static_cast<int>(i));
        const double w = at != last && *at == i ? vals[at - cols.begin()] : 0.0;
        // The message names A's own rows and columns, not the reordered ones.
        const int64_t oi = order && !order->empty() ? (*order)[i] : i;
        const int64_t oj = order && !order->empty() ? (*order)[j] : j;
        SPROCKET_REQUIRE(std::fabs(v - w) <= tolerance * std::max(std::fabs(v), std::fabs(w)), who,
                         ": A is not symmetric: A(", oi, ", ", oj, ") = ", v, " but A(", oj, ", ", oi, ") = ", w);
      }
      if (j >= i) U.cols.push_back(j), U.values.push_back(v);
    }
    U.row_ptr[i + 1] = static_cast<int64_t>(U.cols.size());
  }
  return U;
}

}  // namespace precond
}  // namespace Impl

namespace Impl {
namespace precond {

/// The factorization of A with `options` (make_incomplete_cholesky and update_values share it).
template <class Scalar, class Device, class CrsType>
IncompleteCholeskyPreconditioner<Scalar, Device> incomplete_cholesky_of(const CrsType& A,
                                                                         const IncompleteCholeskyOptions& options,
                                                                         const char* who) {
  std::vector<int64_t> order;
  UpperTriangle U = symmetric_upper_triangle(A, who, options.ordering, &order);
  auto factor = incomplete_cholesky(U, options.drop_tolerance, options.initial_shift, options.max_attempts, who);
  IncompleteCholeskyPreconditioner<Scalar, Device> M(std::move(factor), options.drop_tolerance,
                                                     static_cast<int64_t>(U.cols.size()), options.solve,
                                                     std::move(order), options.ordering);
  M.keep_setup(options, std::move(U.row_ptr), std::move(U.cols));
  return M;
}

}  // namespace precond
}  // namespace Impl

template <class Scalar, class Device>
template <class CrsType>
void IncompleteCholeskyPreconditioner<Scalar, Device>::update_values(const typename Device::execution_space& space,
                                                                     const CrsType& A) {
  static_assert(std::is_same_v<typename CrsType::non_const_value_type, Scalar> &&
                    std::is_same_v<typename CrsType::device_type, Device>,
                "IncompleteCholeskyPreconditioner::update_values: A must have the preconditioner's scalar type and device");
  const char* who = "IncompleteCholeskyPreconditioner::update_values";
  SPROCKET_REQUIRE(A.numRows() == num_rows() && A.numCols() == num_rows(), who, ": A is ", A.numRows(), " x ",
                   A.numCols(), ", the preconditioner ", num_rows(), " x ", num_rows());
  IncompleteCholeskyPreconditioner fresh = Impl::precond::incomplete_cholesky_of<Scalar, Device>(A, options_, who);
  SPROCKET_REQUIRE(fresh.pattern_row_ptr_ == pattern_row_ptr_ && fresh.pattern_cols_ == pattern_cols_, who,
                   ": A's pattern differs from the setup's (", fresh.pattern_cols_.size(), " entries in the upper ",
                   "triangle, ", pattern_cols_.size(), " at setup): build a new preconditioner for a new pattern");
  *this = std::move(fresh);
  space.fence();
}

template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int>>
std::shared_ptr<IncompleteCholeskyPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_incomplete_cholesky(const CrsType& A, const IncompleteCholeskyOptions& options) {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  return std::make_shared<IncompleteCholeskyPreconditioner<Scalar, Device>>(
      Impl::precond::incomplete_cholesky_of<Scalar, Device>(A, options, "make_incomplete_cholesky"));
}

}  // namespace Sprocket
