#pragma once
/// \file chebyshev.hpp
/// Chebyshev polynomial preconditioner (Saad, "Iterative Methods for Sparse Linear Systems",
/// 2nd ed., Algorithm 12.1, Chebyshev acceleration, with D^{-1} as its preconditioner): from
/// y_0 = 0, r_0 = x,
///   d_0 = D^{-1} r_0 / theta,  y_{k+1} = y_k + d_k,  r_{k+1} = r_k - A d_k,
///   rho_{k+1} = 1 / (2 sigma - rho_k),  d_{k+1} = rho_{k+1} rho_k d_k + (2 rho_{k+1} / delta) D^{-1} r_{k+1},
/// with theta = (lambda_max + lambda_min) / 2, delta = (lambda_max - lambda_min) / 2,
/// sigma = theta / delta, rho_0 = 1 / sigma; y_degree is returned. Every vector operation runs
/// on the whole block of columns; A is applied through a MultiVectorOperator (an SpMM plan of A,
/// or whatever operator the caller gives).
///
/// The upper bound comes from the power method on D^{-1} A (||D^{-1} A x|| for a unit x after
/// `power_iterations` steps, which approaches |lambda|_max from below for the symmetric-like
/// D^{-1} A this preconditioner targets) times 1.1: a bound below the true lambda_max lets the
/// polynomial grow on the top of the spectrum, one above only costs a little damping.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>

#include "Sprocket_Spmm.hpp"
#include "impl/precond/precond_common.hpp"
#include "impl/blocks/block_ops.hpp"

namespace Sprocket {

template <class Scalar, class Device>
class ChebyshevPreconditioner final : public Preconditioner<Scalar, Device> {
  using base = Preconditioner<Scalar, Device>;

 public:
  using operator_type = MultiVectorOperator<Scalar, Device>;

  /// inverse_diagonal: D^{-1} (extent 0: no scaling). Bounds must satisfy
  /// 0 < lambda_min < lambda_max; `bounds_origin` says where they came from (describe()).
  ChebyshevPreconditioner(std::shared_ptr<const operator_type> A, Kokkos::View<Scalar*, Device> inverse_diagonal,
                          int degree, double lambda_min, double lambda_max, std::string bounds_origin)
      : A_(std::move(A)),
        inverse_diagonal_(inverse_diagonal),
        degree_(degree),
        lambda_min_(lambda_min),
        lambda_max_(lambda_max),
        bounds_origin_(std::move(bounds_origin)) {
    SPROCKET_REQUIRE(A_ && A_->num_rows() == A_->num_cols(), "ChebyshevPreconditioner: A must be a square operator");
    SPROCKET_REQUIRE(degree >= 1, "ChebyshevPreconditioner: degree = ", degree, " (must be >= 1)");
    SPROCKET_REQUIRE(lambda_min > 0 && lambda_max > lambda_min && std::isfinite(lambda_max),
                     "ChebyshevPreconditioner: eigenvalue bounds [", lambda_min, ", ", lambda_max,
                     "] must satisfy 0 < lambda_min < lambda_max");
    SPROCKET_REQUIRE(inverse_diagonal.extent(0) == 0 || static_cast<int64_t>(inverse_diagonal.extent(0)) == A_->num_rows(),
                     "ChebyshevPreconditioner: the inverse diagonal has ", inverse_diagonal.extent(0),
                     " entries for ", A_->num_rows(), " rows");
  }

  int64_t num_rows() const override { return A_->num_rows(); }
  int64_t num_cols() const override { return A_->num_rows(); }

  using base::apply;  // the execution-space overload
  void apply(const typename base::const_multivector& X, const typename base::multivector& Y) const override {
    Impl::precond::check_apply("ChebyshevPreconditioner::apply", num_rows(), X, Y);
    const int64_t n = num_rows(), s = static_cast<int64_t>(X.extent(1));
    if (static_cast<int64_t>(R_.extent(1)) != s || static_cast<int64_t>(R_.extent(0)) != n) {
      R_ = typename base::multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::chebyshev::R"), n, s);
      D_ = typename base::multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::chebyshev::D"), n, s);
      AD_ = typename base::multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::chebyshev::AD"), n, s);
    }
    const double theta = (lambda_max_ + lambda_min_) / 2, delta = (lambda_max_ - lambda_min_) / 2;
    const double sigma = theta / delta;
    double rho = 1 / sigma;
    Impl::precond::chebyshev_first(inverse_diagonal_, X, 1 / theta, R_, D_, Y);
    for (int k = 1; k < degree_; ++k) {
      A_->apply(D_, AD_);
      const double rho_next = 1 / (2 * sigma - rho);
      Impl::precond::chebyshev_step(inverse_diagonal_, AD_, rho_next * rho, 2 * rho_next / delta, R_, D_, Y);
      rho = rho_next;
    }
  }

  std::string describe() const override {
    std::ostringstream os;
    os << "Chebyshev preconditioner<" << (std::is_same_v<Scalar, float> ? "float" : "double") << "> on "
       << Device::execution_space::name() << ": degree " << degree_ << " (" << degree_ - 1
       << " operator applies per apply), polynomial in "
       << (inverse_diagonal_.extent(0) > 0 ? "D^-1 A (Jacobi scaling)" : "A (no scaling)") << ", eigenvalue bounds ["
       << lambda_min_ << ", " << lambda_max_ << "] (" << bounds_origin_ << "), " << num_rows() << " rows; A: ";
    const std::string a = A_->describe();  // its first line: what the operator is
    os << a.substr(0, a.find('\n'));
    return os.str();
  }

  double lambda_min() const { return lambda_min_; }
  double lambda_max() const { return lambda_max_; }
  int degree() const { return degree_; }

  /// New values of A, for a preconditioner make_chebyshev(A) built from a CRS matrix: the SpMM
  /// plan takes them (same pattern, checked), D^{-1} is recomputed, and bounds that were estimated
  /// are estimated again by the same rule (given bounds stay). A preconditioner built over an
  /// operator throws InvalidArgument: update that operator and build a new one.
  template <class CrsType>
  void update_values(const CrsType& A) {
    update_values(typename Device::execution_space(), A);
  }
  template <class CrsType>
  void update_values(const typename Device::execution_space& space, const CrsType& A);

  /// How the bounds were found (make_chebyshev's options), for update_values. Set by the factory.
  void keep_bounds_rule(const ChebyshevOptions& rule) { rule_ = rule; }

 private:
  std::shared_ptr<const operator_type> A_;
  Kokkos::View<Scalar*, Device> inverse_diagonal_;
  int degree_;
  double lambda_min_, lambda_max_;
  std::string bounds_origin_;
  ChebyshevOptions rule_;  // how the bounds were found (update_values estimates them again)
  // Work vectors, sized on the first apply with a given number of columns.
  mutable typename base::multivector R_, D_, AD_;
};

namespace Impl {
namespace precond {

/// ||D^{-1} A x|| for unit x after `iterations` power steps from a fixed pseudo-random x.
template <class Scalar, class Device>
double power_method(const MultiVectorOperator<Scalar, Device>& A, const Kokkos::View<Scalar*, Device>& inverse_diagonal,
                    int iterations) {
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  const int64_t n = A.num_rows();
  MV x("Sprocket::chebyshev::power_x", n, 1), y("Sprocket::chebyshev::power_y", n, 1);
  Impl::blocks::fill_random(typename Device::execution_space(), x, 0x43484542ull);  // fixed seed: the same bounds on every run
  const Kokkos::View<Scalar*, Device> no_scaling;
  double norm = scale_and_norm(no_scaling, x);
  if (!(norm > 0)) return 0;
  scale_copy(x, 1 / norm, x);
  double lambda = 0;
  for (int it = 0; it < iterations; ++it) {
    A.apply(x, y);
    lambda = scale_and_norm(inverse_diagonal, y);
    if (!(lambda > 0) || !std::isfinite(lambda)) return lambda;
    scale_copy(y, 1 / lambda, x);
  }
  return lambda;
}

struct ChebyshevBounds {
  double lambda_min = 0, lambda_max = 0;
  std::string origin;  ///< how they were found (describe())
};

/// The eigenvalue bounds by the options' rule: given, or lambda_max = 1.1 x the power method's
/// estimate and lambda_min = lambda_max / eig_ratio.
template <class Scalar, class Device>
ChebyshevBounds chebyshev_bounds(const MultiVectorOperator<Scalar, Device>& A,
                                 const Kokkos::View<Scalar*, Device>& inverse_diagonal, const ChebyshevOptions& options,
                                 const char* who) {
  ChebyshevBounds b;
  std::ostringstream origin;
  b.lambda_max = options.lambda_max;
  if (b.lambda_max == 0) {
    const double estimate = power_method(A, inverse_diagonal, options.power_iterations);
    SPROCKET_REQUIRE(estimate > 0 && std::isfinite(estimate), who, ": the power method found no positive ",
                     "largest eigenvalue (estimate ", estimate, "): A is zero or not finite");
    b.lambda_max = 1.1 * estimate;
    origin << "lambda_max = 1.1 x " << estimate << " from " << options.power_iterations << " power iterations";
  } else {
    origin << "lambda_max given";
  }
  b.lambda_min = options.lambda_min;
  if (b.lambda_min == 0) {
    b.lambda_min = b.lambda_max / options.eig_ratio;
    origin << ", lambda_min = lambda_max / " << options.eig_ratio;
  } else {
    origin << ", lambda_min given";
  }
  SPROCKET_REQUIRE(b.lambda_min < b.lambda_max, who, ": lambda_min = ", b.lambda_min, " is not below lambda_max = ",
                   b.lambda_max);
  b.origin = origin.str();
  return b;
}

template <class Scalar, class Device>
std::shared_ptr<ChebyshevPreconditioner<Scalar, Device>> make_chebyshev(
    std::shared_ptr<const MultiVectorOperator<Scalar, Device>> A, Kokkos::View<Scalar*, Device> inverse_diagonal,
    const ChebyshevOptions& options) {
  SPROCKET_REQUIRE(options.degree >= 1, "make_chebyshev: degree = ", options.degree, " (must be >= 1)");
  SPROCKET_REQUIRE(options.lambda_max >= 0 && options.lambda_min >= 0, "make_chebyshev: lambda_max = ",
                   options.lambda_max, ", lambda_min = ", options.lambda_min, " (0 = estimate, else positive)");
  SPROCKET_REQUIRE(options.lambda_min > 0 || options.eig_ratio > 1, "make_chebyshev: eig_ratio = ", options.eig_ratio,
                   " (must be > 1 when lambda_min is estimated)");
  SPROCKET_REQUIRE(options.lambda_max > 0 || options.power_iterations >= 1, "make_chebyshev: power_iterations = ",
                   options.power_iterations, " (must be >= 1 when lambda_max is estimated)");
  const ChebyshevBounds bounds = chebyshev_bounds(*A, inverse_diagonal, options, "make_chebyshev");
  auto M = std::make_shared<ChebyshevPreconditioner<Scalar, Device>>(std::move(A), inverse_diagonal, options.degree,
                                                                      bounds.lambda_min, bounds.lambda_max, bounds.origin);
  M->keep_bounds_rule(options);
  return M;
}

}  // namespace precond
}  // namespace Impl

template <class Scalar, class Device>
template <class CrsType>
void ChebyshevPreconditioner<Scalar, Device>::update_values(const typename Device::execution_space& space,
                                                            const CrsType& A) {
  const char* who = "ChebyshevPreconditioner::update_values";
  using Op = PlanOperator<SpmmPlan<CrsType>>;
  const Op* built = dynamic_cast<const Op*>(A_.get());
  SPROCKET_REQUIRE(built != nullptr, who, ": this preconditioner was built over an operator (or from another matrix ",
                   "type); update that operator's values and build a new one");
  // make_chebyshev(A) made this operator for this preconditioner alone (not const there).
  const_cast<Op*>(built)->update_values(space, A);
  if (inverse_diagonal_.extent(0) > 0) {
    const auto fresh = Impl::precond::inverse_diagonal(A, who);
    Kokkos::deep_copy(space, inverse_diagonal_, fresh);
    space.fence();
  }
  const Impl::precond::ChebyshevBounds b = Impl::precond::chebyshev_bounds(*A_, inverse_diagonal_, rule_, who);
  lambda_min_ = b.lambda_min;
  lambda_max_ = b.lambda_max;
  bounds_origin_ = b.origin;
}

template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int>>
std::shared_ptr<ChebyshevPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_chebyshev(const CrsType& A, const ChebyshevOptions& options) {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  SPROCKET_REQUIRE(A.numRows() == A.numCols(), "make_chebyshev: A must be square, it is ", A.numRows(), " x ",
                   A.numCols());
  Sprocket::validate(A, "make_chebyshev");  // before the diagonal is read through A's row map
  Kokkos::View<Scalar*, Device> inverse_diagonal;
  if (options.jacobi_scaling)
    inverse_diagonal = Impl::precond::inverse_diagonal(A, "make_chebyshev",
                                                       " (set ChebyshevOptions::jacobi_scaling = false to use A unscaled)");
  // SpMM: the solvers apply the preconditioner to whole blocks, and one pass over A for all
  // columns beats a pass per column.
  std::shared_ptr<const MultiVectorOperator<Scalar, Device>> op = make_operator(SpmmPlan<CrsType>(A));
  return Impl::precond::make_chebyshev(std::move(op), inverse_diagonal, options);
}

template <class Scalar, class Device, class DiagonalView>
std::shared_ptr<ChebyshevPreconditioner<Scalar, Device>> make_chebyshev(
    std::shared_ptr<MultiVectorOperator<Scalar, Device>> A, const DiagonalView& diagonal, const ChebyshevOptions& options) {
  static_assert(Kokkos::is_view<DiagonalView>::value && DiagonalView::rank == 1,
                "make_chebyshev: the diagonal must be a rank-1 Kokkos::View");
  SPROCKET_REQUIRE(A != nullptr, "make_chebyshev: the operator is null");
  SPROCKET_REQUIRE(A->num_rows() == A->num_cols(), "make_chebyshev: A must be square, it is ", A->num_rows(), " x ",
                   A->num_cols());
  const int64_t n = A->num_rows();
  Kokkos::View<Scalar*, Device> inverse_diagonal;
  if (options.jacobi_scaling && diagonal.extent(0) > 0) {
    SPROCKET_REQUIRE(static_cast<int64_t>(diagonal.extent(0)) == n, "make_chebyshev: the diagonal has ",
                     diagonal.extent(0), " entries for ", n, " rows");
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), diagonal);
    auto inverse_host = Kokkos::View<Scalar*, Kokkos::HostSpace>("Sprocket::chebyshev::inverse_diagonal", n);
    for (int64_t i = 0; i < n; ++i) {
      const double d = static_cast<double>(host(i));
      SPROCKET_REQUIRE(d != 0.0 && d - d == 0.0, "make_chebyshev: row ", i, " has a zero or non-finite diagonal entry (",
                       d, ")");
      inverse_host(i) = static_cast<Scalar>(1.0 / d);
    }
    inverse_diagonal = Kokkos::View<Scalar*, Device>("Sprocket::chebyshev::inverse_diagonal", n);
    Kokkos::deep_copy(inverse_diagonal, inverse_host);
  }
  return Impl::precond::make_chebyshev(std::shared_ptr<const MultiVectorOperator<Scalar, Device>>(std::move(A)),
                                       inverse_diagonal, options);
}

}  // namespace Sprocket
