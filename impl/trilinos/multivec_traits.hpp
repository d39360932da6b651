#pragma once
/// \file multivec_traits.hpp
/// What Belos' and Anasazi's MultiVecTraits have in common for Sprocket::MultiVector (the two
/// packages declare the same static functions in their own namespaces): written once here,
/// inherited by both specializations (src/Sprocket_Belos.hpp, src/Sprocket_Anasazi.hpp).
#include <Teuchos_RCP.hpp>
#include <Teuchos_Range1D.hpp>
#include <Teuchos_SerialDenseMatrix.hpp>
#include <memory>
#include <vector>

#include "Sprocket_MultiVector.hpp"
#include "Sprocket_MultiVectorOperator.hpp"

namespace Sprocket {

/// A Teuchos::RCP sharing ownership with a std::shared_ptr (the operator lives while either does).
template <class T>
Teuchos::RCP<T> as_rcp(const std::shared_ptr<T>& p) {
  return Teuchos::rcpWithEmbeddedObj(p.get(), p, false);
}

namespace Impl {
inline std::vector<int> range_columns(const Teuchos::Range1D& range) {
  std::vector<int> index;
  for (Teuchos::Ordinal j = range.lbound(); j <= range.ubound(); ++j) index.push_back(static_cast<int>(j));
  return index;
}

/// Y = op(X) for a Sprocket multivector pair, through contiguous Views.
template <class Scalar, class Device>
void apply_operator(const MultiVectorOperator<Scalar, Device>& op, const MultiVector<Scalar, Device>& X,
                    const MultiVector<Scalar, Device>& Y) {
  SPROCKET_REQUIRE(X.num_vectors() == Y.num_vectors() && X.num_rows() == op.num_cols() && Y.num_rows() == op.num_rows(),
                   "Sprocket operator (", op.num_rows(), " x ", op.num_cols(), ") applied to X ", X.num_rows(), " x ",
                   X.num_vectors(), " into Y ", Y.num_rows(), " x ", Y.num_vectors());
  const auto y = Y.write_view(false);
  op.apply(X.read_view(), y);
  Y.commit(y);
}

/// The static functions both packages' MultiVecTraits require, with their shared signatures.
template <class Scalar, class Device>
class TeuchosMultiVecTraits {
 protected:
  using MV = Sprocket::MultiVector<Scalar, Device>;
  using Dense = Teuchos::SerialDenseMatrix<int, Scalar>;
  using Magnitude = typename Teuchos::ScalarTraits<Scalar>::magnitudeType;

 public:
  static Teuchos::RCP<MV> Clone(const MV& mv, const int numvecs) { return Teuchos::rcp(new MV(mv.num_rows(), numvecs)); }
  static Teuchos::RCP<MV> CloneCopy(const MV& mv) { return Teuchos::rcp(new MV(Sprocket::Impl::multivector::copy(mv))); }
  static Teuchos::RCP<MV> CloneCopy(const MV& mv, const std::vector<int>& index) {
    return Teuchos::rcp(new MV(Sprocket::Impl::multivector::copy(mv.columns(index))));
  }
  static Teuchos::RCP<MV> CloneCopy(const MV& mv, const Teuchos::Range1D& index) {
    return CloneCopy(mv, Sprocket::Impl::range_columns(index));
  }
  static Teuchos::RCP<MV> CloneViewNonConst(MV& mv, const std::vector<int>& index) {
    return Teuchos::rcp(new MV(mv.columns(index)));
  }
  static Teuchos::RCP<MV> CloneViewNonConst(MV& mv, const Teuchos::Range1D& index) {
    return CloneViewNonConst(mv, Sprocket::Impl::range_columns(index));
  }
  static Teuchos::RCP<const MV> CloneView(const MV& mv, const std::vector<int>& index) {
    return Teuchos::rcp(new MV(mv.columns(index)));
  }
  static Teuchos::RCP<const MV> CloneView(const MV& mv, const Teuchos::Range1D& index) {
    return CloneView(mv, Sprocket::Impl::range_columns(index));
  }
  static ptrdiff_t GetGlobalLength(const MV& mv) { return static_cast<ptrdiff_t>(mv.num_rows()); }
  static int GetNumberVecs(const MV& mv) { return mv.num_vectors(); }
  static bool HasConstantStride(const MV& mv) { return mv.contiguous(); }

  static void MvTimesMatAddMv(const Scalar alpha, const MV& A, const Dense& B, const Scalar beta, MV& mv) {
    Sprocket::Impl::multivector::times_dense_add(alpha, A, B.values(), B.stride(), B.numRows(), B.numCols(), beta, mv);
  }
  static void MvAddMv(const Scalar alpha, const MV& A, const Scalar beta, const MV& B, MV& mv) {
    Sprocket::Impl::multivector::add(alpha, A, beta, B, mv);
  }
  static void MvScale(MV& mv, const Scalar alpha) {
    Sprocket::Impl::multivector::scale_columns(mv, std::vector<Scalar>(mv.num_vectors(), alpha));
  }
  static void MvScale(MV& mv, const std::vector<Scalar>& alpha) { Sprocket::Impl::multivector::scale_columns(mv, alpha); }
  static void MvTransMv(const Scalar alpha, const MV& A, const MV& mv, Dense& B) {
    SPROCKET_REQUIRE(B.numRows() == A.num_vectors() && B.numCols() == mv.num_vectors(), "Belos::MvTransMv: B is ",
                     B.numRows(), " x ", B.numCols(), " for A^T mv of ", A.num_vectors(), " x ", mv.num_vectors());
    Sprocket::Impl::multivector::gram(alpha, A, mv, B.values(), B.stride());
  }
  static void MvDot(const MV& mv, const MV& A, std::vector<Scalar>& b) {
    const std::vector<double> d = Sprocket::Impl::multivector::column_dots(mv, A);
    b.assign(d.begin(), d.end());
  }
  static void SetBlock(const MV& A, const std::vector<int>& index, MV& mv) {
    SPROCKET_REQUIRE(static_cast<int>(index.size()) <= A.num_vectors(), "Belos::SetBlock: ", index.size(),
                     " target columns but A has ", A.num_vectors());
    Sprocket::Impl::multivector::assign(A.columns(0, static_cast<int>(index.size())), mv.columns(index));
  }
  static void SetBlock(const MV& A, const Teuchos::Range1D& index, MV& mv) {
    SetBlock(A, Sprocket::Impl::range_columns(index), mv);
  }
  static void Assign(const MV& A, MV& mv) { Sprocket::Impl::multivector::assign(A, mv); }
  static void MvRandom(MV& mv) { Sprocket::Impl::multivector::randomize(mv); }
  static void MvInit(MV& mv, const Scalar alpha = Teuchos::ScalarTraits<Scalar>::zero()) {
    for (int j = 0; j < mv.num_vectors(); ++j) Kokkos::deep_copy(mv.column(j), alpha);
  }
  static void MvPrint(const MV& mv, std::ostream& os) { Sprocket::Impl::multivector::print(mv, os); }

};
}  // namespace Impl
}  // namespace Sprocket

