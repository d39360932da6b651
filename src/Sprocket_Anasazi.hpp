#pragma once
/// \file Sprocket_Anasazi.hpp
/// Anasazi drives Sprocket operators on Sprocket multivectors (SPROCKET_ENABLE_TRILINOS builds):
///
///   using MV = Sprocket::MultiVector<double>;
///   using OP = Sprocket::MultiVectorOperator<double, MV::device_type>;
///   auto problem = Teuchos::rcp(new Anasazi::BasicEigenproblem<double, MV, OP>(
///       Sprocket::as_rcp(Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(crs))), Teuchos::rcp(new MV(n, block))));
///   problem->setHermitian(true);  problem->setNEV(nev);  problem->setProblem();
///   Anasazi::LOBPCGSolMgr<double, MV, OP> solver(problem, params);
///
/// Anasazi::MultiVecTraits for Sprocket::MultiVector (column subsets are views, no copies; the
/// functions shared with Belos are in impl/trilinos/multivec_traits.hpp) and
/// Anasazi::OperatorTraits for every Sprocket::MultiVectorOperator (plans and preconditioners).
#include <AnasaziMultiVecTraits.hpp>
#include <AnasaziOperatorTraits.hpp>
#include <vector>

#include "impl/trilinos/multivec_traits.hpp"

namespace Anasazi {
/// Adapts Sprocket::MultiVector to Anasazi's multivector interface (column subsets are views, no copies).
template <class Scalar, class Device>
class MultiVecTraits<Scalar, Sprocket::MultiVector<Scalar, Device>>
    : public Sprocket::Impl::TeuchosMultiVecTraits<Scalar, Device> {
  using common = Sprocket::Impl::TeuchosMultiVecTraits<Scalar, Device>;
  using typename common::Magnitude;
  using typename common::MV;

 public:
  /// Two-norms of the columns of `mv` into `normvec`, one per column
  static void MvNorm(const MV& mv, std::vector<Magnitude>& normvec) {
    const std::vector<double> n = Sprocket::Impl::multivector::column_norms(mv, Sprocket::Impl::multivector::Norm::two);
    normvec.assign(n.begin(), n.end());
  }
#ifdef HAVE_ANASAZI_TSQR
  typedef Anasazi::details::StubTsqrAdapter<MV> tsqr_adaptor_type;
#endif
};
/// Adapts every Sprocket::MultiVectorOperator on Sprocket::MultiVector to Anasazi's operator interface.
template <class Scalar, class Device>
class OperatorTraits<Scalar, Sprocket::MultiVector<Scalar, Device>, Sprocket::MultiVectorOperator<Scalar, Device>> {
 public:
  /// Y = op(x), y overwritten; throws Sprocket::InvalidArgument when the shapes do not match
  static void Apply(const Sprocket::MultiVectorOperator<Scalar, Device>& op, const Sprocket::MultiVector<Scalar, Device>& x,
                    Sprocket::MultiVector<Scalar, Device>& y) {
    Sprocket::Impl::apply_operator(op, x, y);
  }
};

}  // namespace Anasazi
