#pragma once
/// \file Sprocket_TpetraOperator.hpp
/// Sprocket operators over MPI through Tpetra (SPROCKET_ENABLE_TRILINOS builds).
///
///   auto A = ...;                                            // a fill-complete Tpetra::CrsMatrix
///   auto op = Teuchos::rcp(new Sprocket::TpetraOperator<>(A));  // analysis once, here
///   op->apply(X, Y);                                         // Y = A X: halo exchange by Tpetra,
///                                                            // the local product by Sprocket
///   auto M = Teuchos::rcp(new Sprocket::TpetraLocalPreconditioner<>(A,
///       [](const auto& block) { return Sprocket::make_incomplete_lu(block); }));
///   // both are Tpetra::Operators: Belos / Anasazi take them through their Tpetra adapters.
///
/// TpetraOperator imports X into A's column map with Tpetra's own Import (the halo exchange, as
/// Tpetra::CrsMatrix::apply does) and applies the rank's local matrix with a Sprocket plan: an
/// SpmvPlan for one vector, an SpmmPlan for several. Tpetra's local matrix,
/// KokkosSparse::CrsMatrix<double, int, Node::device_type, void, size_t>, is what the plans take:
/// no copy. After resumeFill / fillComplete with the same pattern, call update_values().
///
/// TpetraLocalPreconditioner applies a Sprocket preconditioner built on the rank's diagonal block
/// (owned rows x owned columns): additive Schwarz with zero overlap, i.e. block Jacobi over
/// ranks. Point Jacobi built this way equals global Jacobi, independent of the rank count.
///
/// Arguments: X and Y may alias (X is read whole before Y is written) and may lack constant
/// stride (column subsets); their maps must be the operator's domain and range maps, and one with
/// the same lengths but another distribution of the global indices is refused (InvalidArgument
/// on every rank; redistribute it with a Tpetra::Import first).
///
/// Thread safety: apply() of one TpetraOperator is not re-entrant (it imports X into a column-map
/// scratch multivector the operator keeps); MPI calls follow Tpetra's rules (the process's thread
/// level). Two operators may apply concurrently where MPI allows it.
///
/// Limits: double, local ordinal int, global ordinal long long (what our Trilinos build
/// instantiates); host nodes (Tpetra 13.2 on CUDA needs UVM spaces, not supported here); op(A)
/// only (no transpose); A's range map must be its row map (no Export after the product).
#include <Teuchos_RCP.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Trilinos_version.h>
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_Operator.hpp>
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_MultiVectorOperator.hpp"
#include "Sprocket_Spmm.hpp"
#include "Sprocket_Spmv.hpp"

namespace Sprocket {

namespace Impl {
/// The rank's element count of a Tpetra::Map (a CrsMatrix's local rows: its row map's):
/// getNodeNumElements in Trilinos 13.2, getLocalNumElements from 13.4 on (getNode* removed before
/// 14.0).
template <class Map>
size_t tpetra_local_elements(const Map& map) {
#if TRILINOS_MAJOR_MINOR_VERSION >= 130400
  return map.getLocalNumElements();
#else
  return map.getNodeNumElements();
#endif
}

/// The checks both Tpetra operators make on apply's arguments, sizes in the message: the mode,
/// the column counts, and each argument's map.
///  - Lengths, local and global, first (cheap, and what the local product needs to be safe).
///  - Then the map itself: the same lengths may still be another distribution of the global
///    indices (a foreign map), whose entries the local product would silently read as the
///    domain map's. An argument on the operator's own map object passes at once; another map
///    object is compared by Map::isSameAs, which for maps that are not both contiguous and
///    uniform is an all-reduce, so the last map object found equal is kept (its RCP: the address
///    cannot be reused by another map) and passes at once afterwards: Belos creates its work
///    multivectors once, on one map, and they pay the comparison once, not per apply.
///    isSameAs is collective; the ranks take the same branch because they hold the same map
///    objects in the same calls (Tpetra's maps are created collectively).
template <class Map>
class TpetraArgumentCheck {
 public:
  template <class MV>
  void operator()(const char* who, Teuchos::ETransp mode, const MV& X, const MV& Y, const Teuchos::RCP<const Map>& domain,
                  const Teuchos::RCP<const Map>& range) const {
    SPROCKET_REQUIRE(mode == Teuchos::NO_TRANS, who, ": only mode NO_TRANS is supported (no transposed apply)");
    SPROCKET_REQUIRE(Y.getNumVectors() == X.getNumVectors(), who, ": X has ", X.getNumVectors(),
                     " columns but Y has ", Y.getNumVectors());
    SPROCKET_REQUIRE(X.getLocalLength() == Impl::tpetra_local_elements(*domain) &&
                         X.getGlobalLength() == domain->getGlobalNumElements() &&
                         Y.getLocalLength() == Impl::tpetra_local_elements(*range) &&
                         Y.getGlobalLength() == range->getGlobalNumElements(),
                     who, ": X must be on the domain map and Y on the range map (lengths on this rank / global: X ",
                     X.getLocalLength(), " / ", X.getGlobalLength(), ", Y ", Y.getLocalLength(), " / ",
                     Y.getGlobalLength(), ", domain ", Impl::tpetra_local_elements(*domain), " / ",
                     domain->getGlobalNumElements(), ", range ", Impl::tpetra_local_elements(*range), " / ",
                     range->getGlobalNumElements(), ")");
    require_same_map(who, "X", "domain", X.getMap(), domain, verified_x_);
    require_same_map(who, "Y", "range", Y.getMap(), range, verified_y_);
  }

 private:
  static void require_same_map(const char* who, const char* argument, const char* kind,
                               const Teuchos::RCP<const Map>& given, const Teuchos::RCP<const Map>& expected,
                               Teuchos::RCP<const Map>& verified) {
    if (given.get() == expected.get() || given.get() == verified.get()) return;
    SPROCKET_REQUIRE(given->isSameAs(*expected), who, ": ", argument, " has the lengths of the ", kind,
                     " map but another distribution of the global indices (this rank's first and last: ", argument,
                     " ", given->getMinGlobalIndex(), " .. ", given->getMaxGlobalIndex(), ", ", kind, " map ",
                     expected->getMinGlobalIndex(), " .. ", expected->getMaxGlobalIndex(),
                     "): redistribute it to the ", kind, " map (Tpetra::Import) first");
    verified = given;
  }

  mutable Teuchos::RCP<const Map> verified_x_, verified_y_;
};
}  // namespace Impl

/// A square HostCsr, the same on every rank of comm, as a fill-complete Tpetra::CrsMatrix
/// distributed by contiguous blocks of rows (Tpetra's uniform map): what the tests and
/// benchmarks build. Throws InvalidArgument for a matrix that is not square.
template <class Node = Tpetra::Map<>::node_type>
Teuchos::RCP<Tpetra::CrsMatrix<double, int, long long, Node>> to_tpetra_crs(
    const HostCsr& A, const Teuchos::RCP<const Teuchos::Comm<int>>& comm) {
  SPROCKET_REQUIRE(A.num_rows == A.num_cols, "to_tpetra_crs: A is ", A.num_rows, " x ", A.num_cols,
                   ", not square");
  const auto map = Teuchos::rcp(
      new Tpetra::Map<int, long long, Node>(static_cast<Tpetra::global_size_t>(A.num_rows), 0, comm));
  size_t longest = 0;
  for (int64_t i = 0; i < A.num_rows; ++i)
    longest = std::max<size_t>(longest, static_cast<size_t>(A.row_map[i + 1] - A.row_map[i]));
  auto M = Teuchos::rcp(new Tpetra::CrsMatrix<double, int, long long, Node>(map, longest));
  std::vector<long long> cols;
  std::vector<double> vals;
  for (size_t l = 0; l < Impl::tpetra_local_elements(*map); ++l) {
    const long long row = map->getGlobalElement(static_cast<int>(l));
    cols.assign(A.entries.begin() + A.row_map[row], A.entries.begin() + A.row_map[row + 1]);
    vals.assign(A.values.begin() + A.row_map[row], A.values.begin() + A.row_map[row + 1]);
    M->insertGlobalValues(row, Teuchos::ArrayView<const long long>(cols), Teuchos::ArrayView<const double>(vals));
  }
  M->fillComplete();
  return M;
}
/// A Tpetra::Operator whose rank-local product is a Sprocket SpMV or SpMM plan (see the file comment).
template <class Node = Tpetra::Map<>::node_type>
class TpetraOperator : public Tpetra::Operator<double, int, long long, Node> {
 public:
  using crs_matrix_type = Tpetra::CrsMatrix<double, int, long long, Node>;  ///< the Tpetra matrix type
  /// The Tpetra multivector type of X and Y
  using multivector_type = Tpetra::MultiVector<double, int, long long, Node>;
  using map_type = Tpetra::Map<int, long long, Node>;  ///< the Tpetra map type
  /// The rank's local matrix, a KokkosSparse::CrsMatrix: what the plans take
  using local_matrix_type = typename crs_matrix_type::local_matrix_device_type;

  /// Analyses A's local matrix (SpMV and SpMM plans). A must be fill complete.
  explicit TpetraOperator(Teuchos::RCP<const crs_matrix_type> A, const SpmvOptions& spmv_options = {},
                          const SpmmOptions& spmm_options = {})
      : A_(std::move(A)), spmv_options_(spmv_options), spmm_options_(spmm_options) {
    SPROCKET_REQUIRE(!A_.is_null(), "TpetraOperator: A is null");
    SPROCKET_REQUIRE(A_->isFillComplete(), "TpetraOperator: A is not fill complete (call fillComplete first)");
    SPROCKET_REQUIRE(A_->getGraph()->getExporter().is_null(),
                     "TpetraOperator: A's range map differs from its row map (an Export after the product), "
                     "which is not supported");
    analyse();
  }

  Teuchos::RCP<const map_type> getDomainMap() const override { return A_->getDomainMap(); }  ///< A's domain map
  Teuchos::RCP<const map_type> getRangeMap() const override { return A_->getRangeMap(); }  ///< A's range map
  bool hasTransposeApply() const override { return false; }  ///< false: only mode NO_TRANS

  /// Y = alpha A X + beta Y (beta == 0: Y is not read). mode must be Teuchos::NO_TRANS.
  void apply(const multivector_type& X, multivector_type& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS,
             double alpha = 1.0, double beta = 0.0) const override {
    check_arguments_("TpetraOperator::apply", mode, X, Y, getDomainMap(), getRangeMap());
    const size_t k = X.getNumVectors();
    if (k == 0) return;
    // X in the column map: imported (the halo exchange), or X itself when nothing is remote; a
    // copy when X shares Y's memory or has no constant stride (the plans read one View).
    Teuchos::RCP<const multivector_type> x_col;
    const auto importer = A_->getGraph()->getImporter();
    if (!importer.is_null()) {
      if (x_col_.is_null() || x_col_->getNumVectors() != k)
        x_col_ = Teuchos::rcp(new multivector_type(A_->getColMap(), k, false));
      x_col_->doImport(X, *importer, Tpetra::INSERT);
      x_col = x_col_;
    } else if (!X.isConstantStride() || shares_memory(X, Y)) {
      x_col = Teuchos::rcp(new multivector_type(X, Teuchos::Copy));
    } else {
      x_col = Teuchos::rcpFromRef(X);
    }
    if (!Y.isConstantStride()) {
      multivector_type y(Y, Teuchos::Copy);
      apply_local(*x_col, y, alpha, beta);
      Tpetra::deep_copy(Y, y);
      return;
    }
    apply_local(*x_col, Y, alpha, beta);
  }

  /// New values of A on the same pattern (after resumeFill / fillComplete): the plans take the
  /// rank's local matrix again through their update_values (Tpetra may have moved its arrays).
  /// Throws InvalidArgument when the local pattern changed (build a new operator then).
  void update_values() {
    const local_matrix_type local = A_->getLocalMatrixDevice();
    spmv_->update_values(local);
    spmm_->update_values(local);
    local_ = local;
  }

  const crs_matrix_type& matrix() const { return *A_; }  ///< the Tpetra matrix A
  /// What the local plans chose (this rank).
  std::string plan_description() const { return "SpMV: " + spmv_->describe() + "\nSpMM: " + spmm_->describe(); }

 private:
  using device_type = typename local_matrix_type::device_type;

  void analyse() {
    local_ = A_->getLocalMatrixDevice();
    spmv_.emplace(local_, spmv_options_);
    spmm_.emplace(local_, spmm_options_);
  }

  static bool shares_memory(const multivector_type& X, const multivector_type& Y) {
    const auto x = X.getLocalViewDevice(Tpetra::Access::ReadOnly);
    const auto y = Y.getLocalViewDevice(Tpetra::Access::ReadOnly);
    const char* xb = reinterpret_cast<const char*>(x.data());
    const char* yb = reinterpret_cast<const char*>(y.data());
    return xb < yb + y.span() * sizeof(double) && yb < xb + x.span() * sizeof(double);
  }

  void apply_local(const multivector_type& X, multivector_type& Y, double alpha, double beta) const {
    const auto x = X.getLocalViewDevice(Tpetra::Access::ReadOnly);
    const auto y = beta == 0.0 ? Y.getLocalViewDevice(Tpetra::Access::OverwriteAll)
                               : Y.getLocalViewDevice(Tpetra::Access::ReadWrite);
    if (X.getNumVectors() == 1)
      spmv_->apply("N", alpha, Kokkos::subview(x, Kokkos::ALL(), 0), beta, Kokkos::subview(y, Kokkos::ALL(), 0));
    else
      spmm_->apply("N", alpha, x, beta, y);
  }

  Teuchos::RCP<const crs_matrix_type> A_;
  SpmvOptions spmv_options_;
  SpmmOptions spmm_options_;
  local_matrix_type local_;
  std::optional<SpmvPlan<local_matrix_type>> spmv_;
  std::optional<SpmmPlan<local_matrix_type>> spmm_;
  mutable Teuchos::RCP<multivector_type> x_col_;  // column-map scratch of the import
  Impl::TpetraArgumentCheck<map_type> check_arguments_;
};

/// The rank's diagonal block of A (owned rows x owned columns, local numbering of the row map) as
/// a Sprocket CSR on A's device.
template <class Node>
typename TpetraOperator<Node>::local_matrix_type local_diagonal_block(
    const Tpetra::CrsMatrix<double, int, long long, Node>& A) {
  using local_matrix_type = typename TpetraOperator<Node>::local_matrix_type;
  SPROCKET_REQUIRE(A.isFillComplete(), "local_diagonal_block: A is not fill complete");
  const auto row_map = A.getRowMap();
  const auto col_map = A.getColMap();
  const local_matrix_type local = A.getLocalMatrixDevice();
  const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.graph.row_map);
  const auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.graph.entries);
  const auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.values);
  const int64_t n = static_cast<int64_t>(Impl::tpetra_local_elements(*row_map));
  // Column-map index -> row-map index of the same global index, -1 for remote columns.
  std::vector<int> owned(Impl::tpetra_local_elements(*col_map), -1);
  for (size_t c = 0; c < owned.size(); ++c) {
    const int r = row_map->getLocalElement(col_map->getGlobalElement(static_cast<int>(c)));
    if (r != Teuchos::OrdinalTraits<int>::invalid()) owned[c] = r;
  }
  std::vector<Triplet> entries;
  entries.reserve(static_cast<size_t>(local.nnz()));
  for (int64_t i = 0; i < n; ++i)
    for (size_t k = rows(i); k < rows(i + 1); ++k)
      if (owned[cols(k)] >= 0) entries.push_back({i, static_cast<int64_t>(owned[cols(k)]), vals(k)});
  return to_crs<local_matrix_type>(HostCsr::from_triplets(n, n, std::move(entries)), "Sprocket::local_diagonal_block");
}
/// A Tpetra::Operator applying a Sprocket preconditioner of each rank's diagonal block (see the file comment).
template <class Node = Tpetra::Map<>::node_type>
class TpetraLocalPreconditioner : public Tpetra::Operator<double, int, long long, Node> {
 public:
  using crs_matrix_type = Tpetra::CrsMatrix<double, int, long long, Node>;  ///< the Tpetra matrix type
  /// The Tpetra multivector type of X and Y
  using multivector_type = Tpetra::MultiVector<double, int, long long, Node>;
  using map_type = Tpetra::Map<int, long long, Node>;  ///< the Tpetra map type
  /// The diagonal block's type, a KokkosSparse::CrsMatrix
  using local_matrix_type = typename TpetraOperator<Node>::local_matrix_type;
  using device_type = typename local_matrix_type::device_type;  ///< Kokkos device of the diagonal block
  /// The Sprocket preconditioner applied on each rank
  using preconditioner_type = Preconditioner<double, device_type>;
  /// Builds the preconditioner from the diagonal block
  using factory_type = std::function<std::shared_ptr<preconditioner_type>(const local_matrix_type&)>;

  /// `make` builds the Sprocket preconditioner of the rank's diagonal block, for example
  /// [](const auto& D) { return Sprocket::make_jacobi(D); }. A's row, domain and range maps
  /// must be the same (a square operator distributed by rows).
  TpetraLocalPreconditioner(const Teuchos::RCP<const crs_matrix_type>& A, const factory_type& make)
      : map_(A->getRowMap()) {
    SPROCKET_REQUIRE(A->getDomainMap()->isSameAs(*map_) && A->getRangeMap()->isSameAs(*map_),
                     "TpetraLocalPreconditioner: A's row, domain and range maps must be the same");
    block_ = local_diagonal_block(*A);
    M_ = make(block_);
    SPROCKET_REQUIRE(M_ != nullptr, "TpetraLocalPreconditioner: the factory returned no preconditioner");
  }

  Teuchos::RCP<const map_type> getDomainMap() const override { return map_; }  ///< A's row map
  Teuchos::RCP<const map_type> getRangeMap() const override { return map_; }  ///< A's row map
  bool hasTransposeApply() const override { return false; }  ///< false: only mode NO_TRANS

  /// Y = alpha M^{-1} X + beta Y, M^{-1} the local preconditioner on every rank's rows.
  void apply(const multivector_type& X, multivector_type& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS,
             double alpha = 1.0, double beta = 0.0) const override {
    check_arguments_("TpetraLocalPreconditioner::apply", mode, X, Y, map_, map_);
    const size_t k = X.getNumVectors();
    if (k == 0) return;
    // M^{-1} X into a scratch block kept between applies (the Sprocket preconditioner overwrites
    // its output and Y may need beta; X is read whole before Y is written, so they may alias),
    // then Y = alpha Z + beta Y by Tpetra. X is copied only when it has no constant stride.
    Teuchos::RCP<const multivector_type> x_in = Teuchos::rcpFromRef(X);
    if (!X.isConstantStride()) x_in = Teuchos::rcp(new multivector_type(X, Teuchos::Copy));
    if (z_.is_null() || z_->getNumVectors() != k) z_ = Teuchos::rcp(new multivector_type(map_, k, false));
    {
      const auto x = x_in->getLocalViewDevice(Tpetra::Access::ReadOnly);
      const auto z = z_->getLocalViewDevice(Tpetra::Access::OverwriteAll);
      M_->apply(typename preconditioner_type::const_multivector(x), typename preconditioner_type::multivector(z));
    }
    Y.update(alpha, *z_, beta);
  }

  /// The Sprocket preconditioner of this rank's block
  const preconditioner_type& local_preconditioner() const { return *M_; }
  const local_matrix_type& local_block() const { return block_; }  ///< this rank's diagonal block

 private:
  Teuchos::RCP<const map_type> map_;
  local_matrix_type block_;
  std::shared_ptr<preconditioner_type> M_;
  mutable Teuchos::RCP<multivector_type> z_;  // M^{-1} X scratch
  Impl::TpetraArgumentCheck<map_type> check_arguments_;
};

}  // namespace Sprocket
