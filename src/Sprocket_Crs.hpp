#pragma once
/// \file Sprocket_Crs.hpp
/// Sprocket's CSR type is KokkosSparse::CrsMatrix<Scalar, Ordinal, Device, void, Offset>, the type
/// users of Kokkos Kernels already have. Supported: Scalar float/double, Ordinal int, Offset int
/// or size_t. This header converts between it and the host-side HostCsr used by I/O, generators
/// and reference kernels.

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "Sprocket_Error.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Memory.hpp"
#include "impl/common/host_analysis.hpp"
#include "impl/common/host_folds.hpp"
#include "impl/common/structure_check.hpp"
#include "impl/common/workspace_memory.hpp"

namespace Sprocket {

/// True for KokkosSparse::CrsMatrix instantiations.
template <class T>
struct is_crs_matrix : std::false_type {};
template <class S, class O, class D, class M, class Z>
struct is_crs_matrix<KokkosSparse::CrsMatrix<S, O, D, M, Z>> : std::true_type {};
template <class T>
/// Is_crs_matrix of T without references and cv-qualifiers
inline constexpr bool is_crs_matrix_v = is_crs_matrix<std::decay_t<T>>::value;

/// Copies a HostCsr into a new CrsMatrix (on CrsType's device, values cast to its Scalar).
/// Throws InvalidArgument when a dimension or nnz does not fit CrsType's Ordinal or Offset.
template <class CrsType>
CrsType to_crs(const HostCsr& host, const std::string& label = "Sprocket::A") {
  static_assert(is_crs_matrix_v<CrsType>, "to_crs: CrsType must be a KokkosSparse::CrsMatrix");
  using Scalar = typename CrsType::non_const_value_type;
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  host.validate();
  SPROCKET_REQUIRE(host.num_rows <= static_cast<int64_t>(std::numeric_limits<Ordinal>::max()) &&
                       host.num_cols <= static_cast<int64_t>(std::numeric_limits<Ordinal>::max()),
                   "to_crs: ", host.num_rows, " x ", host.num_cols,
                   " does not fit the matrix's ordinal type");
  SPROCKET_REQUIRE(static_cast<uint64_t>(host.nnz()) <=
                       static_cast<uint64_t>(std::numeric_limits<Offset>::max()),
                   "to_crs: ", host.nnz(), " entries do not fit the matrix's offset type");
  using Device = typename CrsType::device_type;
  // The copy is checked before it is allocated, as the reader checked the host matrix it copies:
  // a matrix that fits the host once may not fit beside itself, or on the GPU (where each array
  // is staged through a host mirror first).
  const int64_t rows_bytes = (host.num_rows + 1) * int64_t{sizeof(Offset)};
  const int64_t entry_bytes = host.nnz() * int64_t{sizeof(Ordinal) + sizeof(Scalar)};
  Impl::require_space_memory<typename Device::execution_space>(
      rows_bytes + entry_bytes, "to_crs: the device copy of a " + std::to_string(host.num_rows) + " x " +
                                    std::to_string(host.num_cols) + " matrix with " + std::to_string(host.nnz()) +
                                    " entries");
  if constexpr (!Kokkos::SpaceAccessibility<typename Device::memory_space, Kokkos::HostSpace>::accessible)
    require_host_memory(std::max(rows_bytes, host.nnz() * int64_t{sizeof(Scalar)}),
                        "to_crs: the host staging copy of the largest array");
  const auto row_map = Impl::to_device_view<Offset, Device>(host.row_map, label + "::row_map");
  const auto entries = Impl::to_device_view<Ordinal, Device>(host.entries, label + "::entries");
  const auto values = Impl::to_device_view<Scalar, Device>(host.values, label + "::values");
  return CrsType(label, static_cast<Ordinal>(host.num_rows), static_cast<Ordinal>(host.num_cols),
                 static_cast<Offset>(host.nnz()), values, row_map, entries);
}

namespace Impl {
/// check_compressed_rows over host Views of a compressed-row structure (a CrsMatrix's, or a
/// BsrMatrix's over blocks when block_size > 0): contiguous copies (the usual case) folded on the
/// host threads in the arrays' own types (impl/common/host_folds.hpp), others serially.
template <class RowMapHost, class EntriesHost>
void check_host_compressed_rows(const char* who, int64_t rows, int64_t cols, const RowMapHost& row_map,
                                const EntriesHost& entries, int64_t n_values, int block_size) {
  const int64_t n_entries = static_cast<int64_t>(entries.extent(0));
  const auto row_map_at = [&](int64_t i) { return static_cast<int64_t>(row_map(i)); };
  const auto entry_at = [&](int64_t k) { return static_cast<int64_t>(entries(k)); };
  if (!row_map.span_is_contiguous() || !entries.span_is_contiguous()) {
    check_compressed_rows(who, rows, cols, static_cast<int64_t>(row_map.extent(0)), row_map_at, n_entries, entry_at,
                          n_values, block_size);
    return;
  }
  check_compressed_rows_folded(
      who, rows, cols, static_cast<int64_t>(row_map.extent(0)), row_map_at, n_entries, entry_at, n_values, block_size,
      [&] { return host_nondecreasing(row_map.data(), rows + 1); },
      [&] { return host_value_range(entries.data(), n_entries); });
}

/// The structural check behind Sprocket::validate(A) and to_host_csr(A), on host copies of A's
/// row map and column indices (impl/common/structure_check.hpp; an empty row map is the 0 x 0
/// matrix of a default-constructed CrsMatrix).
template <class RowMapHost, class EntriesHost>
void check_crs_structure(const char* who, int64_t rows, int64_t cols, const RowMapHost& row_map,
                         const EntriesHost& entries, int64_t n_values) {
  const int64_t n_entries = static_cast<int64_t>(entries.extent(0));
  if (row_map.extent(0) == 0) {
    SPROCKET_REQUIRE(rows == 0 && cols >= 0 && n_entries == 0 && n_values == 0, who, ": the row map is empty but A is ",
                     rows, " x ", cols, " with ", n_entries, " column indices and ", n_values, " values");
    return;
  }
  check_host_compressed_rows(who, rows, cols, row_map, entries, n_values, 0);
}
}  // namespace Impl

/// Copies a CrsMatrix (any device) into a HostCsr (values widened to double). Checks A's structure
/// first, as Sprocket::validate does (row map from 0, non-decreasing, ending at the extents of
/// entries and values; columns in [0, cols)), and throws InvalidArgument naming the first
/// violation with its sizes, `who` starting the message (the converters built on it pass theirs).
template <class CrsType>
HostCsr to_host_csr(const CrsType& A, const char* who = "to_host_csr") {
  static_assert(is_crs_matrix_v<CrsType>, "to_host_csr: argument must be a KokkosSparse::CrsMatrix");
  HostCsr host;
  host.num_rows = A.numRows();
  host.num_cols = A.numCols();
  auto row_map_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  auto entries_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  auto values_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  Impl::check_crs_structure(who, host.num_rows, host.num_cols, row_map_h, entries_h,
                            static_cast<int64_t>(values_h.extent(0)));
  // A default-constructed CrsMatrix has an empty row map: it is the 0 x 0 matrix.
  if (row_map_h.extent(0) == 0) return host;
  const int64_t nnz = static_cast<int64_t>(entries_h.extent(0));
  host.row_map.resize(host.num_rows + 1);
  for (int64_t i = 0; i <= host.num_rows; ++i) host.row_map[i] = static_cast<int64_t>(row_map_h(i));
  host.entries.resize(nnz);
  host.values.resize(nnz);
  for (int64_t k = 0; k < nnz; ++k) {
    host.entries[k] = static_cast<int>(entries_h(k));
    host.values[k] = static_cast<double>(values_h(k));
  }
  return host;
}

}  // namespace Sprocket
