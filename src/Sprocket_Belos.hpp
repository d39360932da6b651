#pragma once
/// \file Sprocket_Belos.hpp
/// Belos drives Sprocket operators on Sprocket multivectors (SPROCKET_ENABLE_TRILINOS builds):
///
///   using MV = Sprocket::MultiVector<double>;
///   using OP = Sprocket::MultiVectorOperator<double, MV::device_type>;
///   auto A = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(crs));     // any Sprocket operator
///   auto problem = Teuchos::rcp(new Belos::LinearProblem<double, MV, OP>(
///       Sprocket::as_rcp(A), Teuchos::rcp(new MV(X)), Teuchos::rcp(new MV(B))));
///   problem->setRightPrec(Sprocket::as_rcp(Sprocket::make_jacobi(crs)));  // any preconditioner
///   problem->setProblem();
///   Belos::BlockGmresSolMgr<double, MV, OP> solver(problem, params);
///
/// Belos::MultiVecTraits for Sprocket::MultiVector (column subsets are views, no copies) and
/// Belos::OperatorTraits for every Sprocket::MultiVectorOperator (SpMV, BSR SpMV and SpMM plans,
/// every preconditioner). Sprocket operators apply op(X) only: a transposed apply throws
/// Sprocket::InvalidArgument, and HasApplyTranspose says false, so Belos picks solvers without it.
#include <BelosMultiVecTraits.hpp>
#include <BelosOperatorTraits.hpp>
#include <BelosTypes.hpp>
#include <vector>

#include "impl/trilinos/multivec_traits.hpp"

namespace Belos {
/// Adapts Sprocket::MultiVector to Belos's multivector interface (column subsets are views, no copies).
template <class Scalar, class Device>
class MultiVecTraits<Scalar, Sprocket::MultiVector<Scalar, Device>>
    : public Sprocket::Impl::TeuchosMultiVecTraits<Scalar, Device> {
  using common = Sprocket::Impl::TeuchosMultiVecTraits<Scalar, Device>;
  using typename common::Magnitude;
  using typename common::MV;

 public:
  /// Norms of the columns of `mv` into `normvec`: one-, two- or infinity-norm by `type`
  static void MvNorm(const MV& mv, std::vector<Magnitude>& normvec, NormType type = TwoNorm) {
    using Sprocket::Impl::multivector::Norm;
    const Norm norm = type == OneNorm ? Norm::one : type == InfNorm ? Norm::infinity : Norm::two;
    const std::vector<double> n = Sprocket::Impl::multivector::column_norms(mv, norm);
    normvec.assign(n.begin(), n.end());
  }
#ifdef HAVE_BELOS_TSQR
  typedef Belos::details::StubTsqrAdapter<MV> tsqr_adaptor_type;
#endif
};
/// Adapts every Sprocket::MultiVectorOperator on Sprocket::MultiVector to Belos's operator interface.
template <class Scalar, class Device>
class OperatorTraits<Scalar, Sprocket::MultiVector<Scalar, Device>, Sprocket::MultiVectorOperator<Scalar, Device>> {
 public:
  /// Y = op(x), y overwritten; a transposed `trans` throws Sprocket::InvalidArgument
  static void Apply(const Sprocket::MultiVectorOperator<Scalar, Device>& op, const Sprocket::MultiVector<Scalar, Device>& x,
                    Sprocket::MultiVector<Scalar, Device>& y, ETrans trans = NOTRANS) {
    SPROCKET_REQUIRE(trans == NOTRANS, "Belos: Sprocket operators apply op(X) only, not its (conjugate) transpose (",
                     op.describe(), ")");
    Sprocket::Impl::apply_operator(op, x, y);
  }
  /// False: Sprocket operators have no transposed apply
  static bool HasApplyTranspose(const Sprocket::MultiVectorOperator<Scalar, Device>&) { return false; }
};

}  // namespace Belos
