#pragma once
/// \file Sprocket_CsrUtils.hpp
/// CSR utilities: sort columns within rows, sum duplicate entries, transpose. They are
/// analysis-time tools (run once per pattern), implemented serially on the host: the CrsMatrix
/// overloads copy to the host, work there, and return a new matrix on the input's device.

#include "Sprocket_Crs.hpp"
#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {

/// Sorts the columns of every row in place (values follow their columns; the relative order of
/// duplicates is kept). Stable, so the result is deterministic.
void sort_rows(HostCsr& A);

/// Sorts every row and merges duplicate columns by summing their values. Explicit zeros are kept.
void sum_duplicates(HostCsr& A);

/// Returns A^T, rows sorted (duplicates of A stay duplicates of A^T).
HostCsr transpose(const HostCsr& A);

/// CrsMatrix versions: a new matrix of the same type, on the same device. A's structure is checked
/// on the way to the host (to_host_csr), the message naming the function.
template <class CrsType>
CrsType sort_rows(const CrsType& A) {
  HostCsr host = to_host_csr(A, "sort_rows");
  sort_rows(host);
  return to_crs<CrsType>(host);
}
/// Sorts the rows of a CrsMatrix and sums its duplicates: a new matrix of the same type, on the same device.
template <class CrsType>
CrsType sum_duplicates(const CrsType& A) {
  HostCsr host = to_host_csr(A, "sum_duplicates");
  sum_duplicates(host);
  return to_crs<CrsType>(host);
}
/// Transposes a CrsMatrix: A^T as a new matrix of the same type, on the same device.
template <class CrsType>
CrsType transpose(const CrsType& A) {
  return to_crs<CrsType>(transpose(to_host_csr(A, "transpose")));
}

}  // namespace Sprocket
