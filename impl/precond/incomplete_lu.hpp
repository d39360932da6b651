#pragma once
/// \file incomplete_lu.hpp
/// Incomplete LU preconditioner: Y = A^{-1}-ish X through ILU(k) of a permuted and scaled copy
/// of A, B = P Dr A Dc Q^T (B(i, j) = r_i A(row_perm[i], col_perm[j]) c_j), so that
/// A^{-1} x = Dc Q^T (L U)^{-1} P Dr x: gather and scale the rows of X, the two triangular
/// solves, scale and scatter into Y. P, Dr and Dc come from the row matching (when asked for or
/// when A has zero diagonal entries), Q from the reordering (orderings.hpp); the pattern by
/// levels of fill and the factor from incomplete_lu_factor.hpp, in double on the host.
/// Triangular solves as for incomplete Cholesky: one column per host thread, or level-scheduled
/// kernels on the device (the rows gathered and scattered there too).
///
/// Why it is here: block GMRES on the nonsymmetric shared matrices (west0479, rajat01 with zero
/// diagonals; sherman5, orsirr_1, hor_131, watt_2) stagnates or crawls with Jacobi; ILU after a
/// matching is what SciPy's spilu + gmres gives its users.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_CsrUtils.hpp"
#include "impl/common/host_analysis.hpp"
#include "impl/precond/incomplete_cholesky.hpp"
#include "impl/precond/incomplete_lu_factor.hpp"
#include "impl/precond/orderings.hpp"
#include "impl/precond/precond_common.hpp"

namespace Sprocket {

namespace Impl {
namespace precond {

/// The orderings of an ILU and the permuted, scaled copy they give (host, double).
struct LuOrdering {
  std::vector<int64_t> row_perm, col_perm;  ///< row i of B is row row_perm[i] of A; column j is col_perm[j]
  std::vector<double> row_scale, col_scale;  ///< r_i, c_j of B (indexed like B: new positions)
  bool matched = false;
};

/// B(i, j) = r_i A(row_perm[i], col_perm[j]) c_j, rows sorted (A: rows sorted, duplicates summed).
inline HostCsr permuted_scaled_copy(const HostCsr& A, const LuOrdering& o) {
  return permuted_scaled_copy(A, o.row_perm, o.col_perm, o.row_scale, o.col_scale);
}

}  // namespace precond
}  // namespace Impl

template <class Scalar, class Device>
class IncompleteLuPreconditioner final : public Preconditioner<Scalar, Device> {
  using base = Preconditioner<Scalar, Device>;
  using Solve = IncompleteCholeskyOptions::TriangularSolve;

 public:
  /// Built by make_incomplete_lu: the ordering, B = the permuted and scaled A, the options.
  IncompleteLuPreconditioner(Impl::precond::LuOrdering ordering, const HostCsr& B, const IncompleteLuOptions& options,
                             int64_t nnz_a)
      : base_ordering_(std::move(ordering)), options_(options), nnz_a_(nnz_a) {
    constexpr bool host_readable = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Device::memory_space>::accessible;
    by_levels_ = options.solve == Solve::levels || (options.solve == Solve::automatic && !host_readable);
    pattern_ = std::make_unique<Impl::precond::IlukPattern>(
        threshold() ? Impl::precond::IlukPattern{} : Impl::precond::iluk_pattern(B, options.level));
    if (by_levels_) {
      // The row side of the ordering is fixed at setup; the column side moves with ILUT's pivoting.
      row_perm_ = Impl::to_device_view<int64_t, Device>(base_ordering_.row_perm, "Sprocket::ilu::row_perm");
      row_scale_ = Impl::to_device_view<Scalar, Device>(base_ordering_.row_scale, "Sprocket::ilu::row_scale");
      ones_ = Kokkos::View<Scalar*, Device>("Sprocket::ilu::ones", B.num_rows);
      Kokkos::deep_copy(ones_, Scalar(1));
    }
    refactor(B);
  }

  int64_t num_rows() const override { return static_cast<int64_t>(base_ordering_.row_perm.size()); }
  int64_t num_cols() const override { return num_rows(); }

  /// New values of A with the pattern of the setup (duplicates summed; an entry outside it
  /// throws): the numeric factorization again, orderings and pattern kept.
  template <class CrsType>
  void update_values(const CrsType& A) {
    const HostCsr S = Impl::precond::summed_host_copy_of_size(A, num_rows(), "IncompleteLuPreconditioner");
    refactor(Impl::precond::permuted_scaled_copy(S, base_ordering_));
  }
  /// The same, ordered after the work queued on `space` (the factorization runs on the host).
  template <class CrsType>
  void update_values(const typename Device::execution_space& space, const CrsType& A) {
    space.fence();
    update_values(A);
  }

  using base::apply;  // the execution-space overload
  void apply(const typename base::const_multivector& X, const typename base::multivector& Y) const override {
    Impl::precond::check_apply("IncompleteLuPreconditioner::apply", num_rows(), X, Y);
    const int64_t n = num_rows(), s = static_cast<int64_t>(X.extent(1));
    if (n == 0 || s == 0) return;
    if (by_levels_) {
      using ExecSpace = typename Device::execution_space;
      Impl::precond::solve_permuted_by_levels<ExecSpace>(X, Y, work_device_, row_perm_, row_scale_, lower_, ones_,
                                                         upper_, upper_inverse_diagonal_, col_perm_, col_scale_);
      return;
    }
    const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X);
    const auto y = Kokkos::create_mirror_view(Kokkos::HostSpace(), Y);
    if (static_cast<int64_t>(work_.size()) < n * s) work_.resize(n * s);
    solve_columns(factor_, ordering_, x, y, work_.data());
    Kokkos::deep_copy(Y, y);  // no copy when Y is host memory already
  }

  std::string describe() const override {
    std::ostringstream os;
    os << "incomplete LU preconditioner<" << (std::is_same_v<Scalar, float> ? "float" : "double") << "> on "
       << Device::execution_space::name() << ": ";
    if (threshold()) {
      os << "ILUT (drop " << options_.drop_tolerance << " x ||row||_2, fill " << options_.fill_factor
         << " x nnz(row), pivoting below " << options_.pivot_threshold << " x the row's largest: " << pivoted_columns()
         << " columns swapped";
      if (zero_pivots_replaced_ > 0) os << ", " << zero_pivots_replaced_ << " zero pivots replaced";
      os << "), ";
    } else {
      os << "ILU(" << options_.level << "), ";
    }
    if (ordering_.matched) os << "rows matched for a large diagonal (maximum product) and scaled, ";
    if (options_.reorder == IncompleteLuOptions::Reorder::rcm) os << "reverse Cuthill-McKee ordering, ";
    if (options_.reorder == IncompleteLuOptions::Reorder::amd) os << "approximate minimum degree ordering, ";
    os << "nnz(L + U) = " << nnz() << " (" << std::fixed;
    os.precision(2);
    os << fill_ratio() << " x nnz(A))";
    if (factor_.attempts > 1) {
      os.unsetf(std::ios::fixed);
      os.precision(3);
      os << ", diagonal shifted by " << factor_.shift << " x the rows' largest entries after " << factor_.attempts - 1
         << " breakdown(s)";
    }
    os << ", " << num_rows() << " rows; triangular solves ";
    if (by_levels_)
      os << "level-scheduled on " << Device::execution_space::name() << " (" << lower_.level_ptr.size() - 1 << " + "
         << upper_.level_ptr.size() - 1 << " levels)";
    else
      os << "on the host, one column per thread";
    return os.str();
  }

  /// nnz(L + U), the unit diagonal of L not counted.
  int64_t nnz() const { return pattern_->nnz(); }
  /// nnz(L + U) / nnz(A).
  double fill_ratio() const { return nnz_a_ > 0 ? static_cast<double>(nnz()) / static_cast<double>(nnz_a_) : 1.0; }
  /// alpha of the last factorization's shift (0: none was needed).
  double shift() const { return factor_.shift; }
  /// Whether the rows were permuted by the matching.
  bool matched() const { return ordering_.matched; }
  /// ILUT: pivot positions whose column is not the diagonal's; zero pivots replaced.
  int64_t pivoted_columns() const {
    int64_t moved = 0;
    for (size_t j = 0; j < ordering_.col_perm.size(); ++j) moved += ordering_.col_perm[j] != base_ordering_.col_perm[j];
    return moved;
  }
  int64_t zero_pivots_replaced() const { return zero_pivots_replaced_; }
  /// The ordering (with ILUT's column pivoting composed in), the pattern and the factor (host,
  /// double).
  const Impl::precond::LuOrdering& ordering() const { return ordering_; }
  const Impl::precond::IlukPattern& pattern() const { return *pattern_; }
  const Impl::precond::LuFactor& factor() const { return factor_; }
  /// Whether the triangular solves run level-scheduled on the Device.
  bool by_levels() const { return by_levels_; }

 private:
  bool threshold() const { return options_.method == IncompleteLuOptions::Method::threshold; }

  void refactor(const HostCsr& B) {
    ordering_ = base_ordering_;
    if (threshold()) {
      Impl::precond::IlutFactor f = Impl::precond::ilut_factor(B, options_.drop_tolerance, options_.fill_factor,
                                                               options_.pivot_threshold, "make_incomplete_lu");
      *pattern_ = std::move(f.pattern);
      factor_.pattern = pattern_.get();
      factor_.values = std::move(f.values);
      factor_.shift = 0;
      factor_.attempts = 1;
      zero_pivots_replaced_ = f.zero_pivots_replaced;
      // B Q = L U: B's column column_of[j] sits at pivot position j.
      for (size_t j = 0; j < f.column_of.size(); ++j) {
        ordering_.col_perm[j] = base_ordering_.col_perm[f.column_of[j]];
        ordering_.col_scale[j] = base_ordering_.col_scale[f.column_of[j]];
      }
    } else {
      factor_ = Impl::precond::iluk_numeric(*pattern_, B, options_.initial_shift, options_.max_attempts,
                                            "make_incomplete_lu");
    }
    if (by_levels_) {
      col_perm_ = Impl::to_device_view<int64_t, Device>(ordering_.col_perm, "Sprocket::ilu::col_perm");
      col_scale_ = Impl::to_device_view<Scalar, Device>(ordering_.col_scale, "Sprocket::ilu::col_scale");
      lower_ = Impl::precond::DeviceLevelSchedule<Scalar, Device>(Impl::precond::lower_schedule(factor_));
      upper_ = Impl::precond::DeviceLevelSchedule<Scalar, Device>(Impl::precond::upper_schedule(factor_));
      upper_inverse_diagonal_ = Impl::to_device_view<Scalar, Device>(
          Impl::precond::upper_inverse_diagonal(factor_), "Sprocket::ilu::upper_inverse_diagonal");
    }
  }

  // A static member, not a lambda in a member function: nvcc refuses extended lambdas there, and
  // this one runs on the host only anyway.
  template <class XHost, class YHost>
  static void solve_columns(const Impl::precond::LuFactor& factor, const Impl::precond::LuOrdering& o, const XHost& x,
                            const YHost& y, double* work) {
    const int64_t n = factor.pattern->n, s = static_cast<int64_t>(x.extent(1));
    Kokkos::parallel_for(
        "Sprocket::precond::incomplete_lu_solve", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, s),
        [=, &factor, &o](const int64_t q) {
          double* column = work + q * n;
          for (int64_t i = 0; i < n; ++i) column[i] = o.row_scale[i] * static_cast<double>(x(o.row_perm[i], q));
          Impl::precond::lu_solve_in_place(factor, column);
          for (int64_t j = 0; j < n; ++j) y(o.col_perm[j], q) = static_cast<Scalar>(o.col_scale[j] * column[j]);
        });
    Kokkos::DefaultHostExecutionSpace().fence();
  }

  Impl::precond::LuOrdering base_ordering_;  // the matching and reordering of the setup
  Impl::precond::LuOrdering ordering_;       // applied: ILUT's column pivoting composed in
  IncompleteLuOptions options_;
  int64_t zero_pivots_replaced_ = 0;
  int64_t nnz_a_;
  std::unique_ptr<Impl::precond::IlukPattern> pattern_;  // LuFactor points at it: a stable address
  Impl::precond::LuFactor factor_;
  mutable std::vector<double> work_;
  bool by_levels_ = false;
  Kokkos::View<int64_t*, Device> row_perm_, col_perm_;
  Kokkos::View<Scalar*, Device> row_scale_, col_scale_, ones_, upper_inverse_diagonal_;
  Impl::precond::DeviceLevelSchedule<Scalar, Device> lower_, upper_;
  mutable typename base::multivector work_device_;
};

namespace Impl {
namespace precond {

/// The row matching (when asked for, or automatic with a zero or missing diagonal entry) and the
/// reordering of make_incomplete_lu, for A with rows sorted and duplicates summed.
inline LuOrdering incomplete_lu_ordering(const HostCsr& A, const IncompleteLuOptions& options, const std::string& who) {
  const int64_t n = A.num_rows;
  LuOrdering o;
  o.row_perm.resize(n);
  std::iota(o.row_perm.begin(), o.row_perm.end(), int64_t(0));
  o.col_perm = o.row_perm;
  o.row_scale.assign(n, 1.0);
  o.col_scale.assign(n, 1.0);
  bool match = options.matching == IncompleteLuOptions::Matching::on;
  if (options.matching == IncompleteLuOptions::Matching::automatic) {
    for (int64_t i = 0; i < n && !match; ++i) {
      const auto first = A.entries.begin() + A.row_map[i], last = A.entries.begin() + A.row_map[i + 1];
      const auto at = std::lower_bound(first, last, static_cast<int>(i));
      match = at == last || *at != i || A.values[at - A.entries.begin()] == 0.0;
    }
  }
  if (match) {
    Matching m = maximum_product_matching(A, who);
    o.row_perm = std::move(m.row_of);
    // Scales indexed by B's rows and columns (before the reordering, B's rows are the matched
    // rows and its columns A's own).
    for (int64_t i = 0; i < n; ++i) o.row_scale[i] = m.row_scale[o.row_perm[i]];
    o.col_scale = std::move(m.col_scale);
    o.matched = true;
  }
  if (options.reorder != IncompleteLuOptions::Reorder::none) {
    const HostCsr B = permuted_scaled_copy(A, o);
    const std::vector<int64_t> q = options.reorder == IncompleteLuOptions::Reorder::rcm
                                       ? reverse_cuthill_mckee(B, who)
                                       : approximate_minimum_degree(B, who);
    LuOrdering r = o;
    for (int64_t i = 0; i < n; ++i) {
      r.row_perm[i] = o.row_perm[q[i]];
      r.row_scale[i] = o.row_scale[q[i]];
      r.col_perm[i] = o.col_perm[q[i]];
      r.col_scale[i] = o.col_scale[q[i]];
    }
    o = std::move(r);
  }
  return o;
}

}  // namespace precond
}  // namespace Impl

template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int>>
std::shared_ptr<IncompleteLuPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_incomplete_lu(const CrsType& A, const IncompleteLuOptions& options) {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  const char* who = "make_incomplete_lu";
  SPROCKET_REQUIRE(A.numRows() == A.numCols(), who, ": A must be square, it is ", A.numRows(), " x ", A.numCols());
  SPROCKET_REQUIRE(options.level >= 0, who, ": level = ", options.level, " (must be >= 0)");
  const HostCsr S = Impl::precond::summed_host_copy(A, who);
  Impl::precond::LuOrdering ordering = Impl::precond::incomplete_lu_ordering(S, options, who);
  const HostCsr B = Impl::precond::permuted_scaled_copy(S, ordering);
  return std::make_shared<IncompleteLuPreconditioner<Scalar, Device>>(std::move(ordering), B, options, S.nnz());
}

}  // namespace Sprocket
