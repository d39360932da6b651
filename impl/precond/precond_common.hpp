#pragma once
/// \file precond_common.hpp
/// What every preconditioner shares: the argument check of apply() and the diagonal of a CRS
/// matrix, checked and inverted on the host.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "Sprocket_Crs.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Validate.hpp"
#include "impl/precond/precond_kernels.hpp"

namespace Sprocket {
namespace Impl {
namespace precond {

template <class XView, class YView>
void check_apply(const char* who, int64_t n, const XView& X, const YView& Y) {
  SPROCKET_REQUIRE(static_cast<int64_t>(X.extent(0)) == n && static_cast<int64_t>(Y.extent(0)) == n, who,
                   ": the preconditioner is ", n, " x ", n, " but X has ", X.extent(0), " rows and Y has ",
                   Y.extent(0));
  SPROCKET_REQUIRE(X.extent(1) == Y.extent(1), who, ": X has ", X.extent(1), " columns but Y has ", Y.extent(1));
}

/// A on the host, checked (to_host_csr: row map, nnz, column range; `who` starts the message),
/// rows sorted and duplicates summed: what every host factorization and hierarchy setup starts from.
template <class CrsType>
HostCsr summed_host_copy(const CrsType& A, const std::string& who = "to_host_csr") {
  HostCsr S = to_host_csr(A, who.c_str());
  sum_duplicates(S);
  return S;
}

/// summed_host_copy for update_values: A must be n x n, the preconditioner's size (`who` names it).
template <class CrsType>
HostCsr summed_host_copy_of_size(const CrsType& A, int64_t n, const std::string& who) {
  SPROCKET_REQUIRE(A.numRows() == n && A.numCols() == n, who, "::update_values: A is ", A.numRows(), " x ",
                   A.numCols(), " but the preconditioner is ", n, " x ", n);
  return summed_host_copy(A, who + "::update_values");
}

/// D^{-1} of a square CRS matrix as a View on its device. Throws InvalidArgument naming the
/// first row whose diagonal is zero, missing or not finite (`who` and `hint` start and end the
/// message).
template <class CrsType>
Kokkos::View<typename CrsType::non_const_value_type*, typename CrsType::device_type> inverse_diagonal(
    const CrsType& A, const std::string& who, const std::string& hint = "") {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  const int64_t n = A.numRows();
  SPROCKET_REQUIRE(A.numCols() == n, who, ": A must be square, it is ", n, " x ", A.numCols());
  Kokkos::View<Scalar*, Device> diag(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::precond::inverse_diagonal"), n);
  if (n > 0) extract_diagonal(A, diag);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), diag);
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(host(i));
    SPROCKET_REQUIRE(d - d == 0.0, who, ": row ", i, " has a non-finite diagonal entry (", d, ")", hint);
    SPROCKET_REQUIRE(d != 0.0, who, ": row ", i, " has a zero (or missing) diagonal entry", hint);
    host(i) = static_cast<Scalar>(1.0 / d);
  }
  Kokkos::deep_copy(diag, host);
  return diag;
}

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
