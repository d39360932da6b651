#pragma once
/// \file Sprocket_BsrMatrix.hpp
/// Sprocket::BsrMatrix: block CSR with square b x b blocks, 1 <= b <= 32 (Kokkos Kernels 3.4 has
/// no BSR type).
///
/// Storage, all Views on Device:
///   row_map  (num_block_rows + 1) offsets into the block arrays;
///   entries  block column of each stored block;
///   values   num_blocks * b * b scalars, block by block; inside a block ROW-MAJOR:
///            value (r, c) of block k is values(k*b*b + r*b + c).
/// Row-major blocks let a thread (or a lane group) that owns one block row of a block read its
/// b values contiguously while the matching b entries of x are one contiguous segment too; it is
/// also cuSPARSE's CUSPARSE_DIRECTION_ROW layout, so the vendor baseline can share the arrays.
///
/// Scalar rows = num_block_rows * b, columns = num_block_cols * b: conversion from CSR requires
/// the CSR dimensions to be multiples of b (it throws otherwise; detect_block_size only proposes
/// divisors).

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_BsrConversion.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {
/// Block CSR matrix with square b x b blocks on Device; storage and layout in the file comment.
template <class Scalar, class Ordinal, class Device,
          class Offset = typename Kokkos::ViewTraits<Ordinal*, Device, void, void>::size_type>
class BsrMatrix {
 public:
  using value_type = Scalar;  ///< scalar type of the values
  using ordinal_type = Ordinal;  ///< type of block column indices and block dimensions
  using size_type = Offset;  ///< type of the row_map offsets
  using device_type = Device;  ///< Kokkos device holding the arrays
  using execution_space = typename Device::execution_space;  ///< execution space of Device
  using memory_space = typename Device::memory_space;  ///< memory space of Device
  using row_map_type = Kokkos::View<Offset*, Device>;  ///< View type of row_map
  using entries_type = Kokkos::View<Ordinal*, Device>;  ///< View type of entries
  using values_type = Kokkos::View<Scalar*, Device>;  ///< View type of values

  row_map_type row_map;  ///< num_block_rows + 1 offsets into the block arrays
  entries_type entries;  ///< block column of each stored block
  values_type values;  ///< b * b scalars per stored block, block by block, row-major inside a block

  BsrMatrix() = default;

  /// Wraps existing arrays (no copy). Checks the array extents against the dimensions and b;
  /// the contents (monotone row_map, columns in range) are checked by validate().
  BsrMatrix(Ordinal num_block_rows, Ordinal num_block_cols, int block_size, row_map_type row_map_,
            entries_type entries_, values_type values_)
      : row_map(row_map_),
        entries(entries_),
        values(values_),
        num_block_rows_(num_block_rows),
        num_block_cols_(num_block_cols),
        block_size_(block_size) {
    SPROCKET_REQUIRE(block_size >= 1 && block_size <= max_bsr_block_size, "BsrMatrix: block size ",
                     block_size, " outside [1, ", max_bsr_block_size, "]");
    SPROCKET_REQUIRE(num_block_rows >= 0 && num_block_cols >= 0, "BsrMatrix: negative dimensions ",
                     num_block_rows, " x ", num_block_cols, " blocks");
    SPROCKET_REQUIRE(row_map.extent(0) == static_cast<size_t>(num_block_rows) + 1,
                     "BsrMatrix: row_map has ", row_map.extent(0), " entries, expected ",
                     num_block_rows + 1);
    SPROCKET_REQUIRE(values.extent(0) == entries.extent(0) * block_size * block_size,
                     "BsrMatrix: ", values.extent(0), " values for ", entries.extent(0),
                     " blocks of ", block_size, "x", block_size);
  }

  KOKKOS_INLINE_FUNCTION int block_size() const { return block_size_; }  ///< block size b
  KOKKOS_INLINE_FUNCTION Ordinal num_block_rows() const { return num_block_rows_; }  ///< block rows
  KOKKOS_INLINE_FUNCTION Ordinal num_block_cols() const { return num_block_cols_; }  ///< block columns
  /// Scalar rows: num_block_rows() * b.
  KOKKOS_INLINE_FUNCTION Ordinal numRows() const { return num_block_rows_ * block_size_; }
  /// Scalar columns: num_block_cols() * b
  KOKKOS_INLINE_FUNCTION Ordinal numCols() const { return num_block_cols_ * block_size_; }
  /// Stored blocks.
  KOKKOS_INLINE_FUNCTION Offset num_blocks() const { return static_cast<Offset>(entries.extent(0)); }
  /// Stored scalars, including explicit zeros inside blocks.
  KOKKOS_INLINE_FUNCTION Offset nnz() const { return static_cast<Offset>(values.extent(0)); }

 private:
  Ordinal num_block_rows_ = 0;
  Ordinal num_block_cols_ = 0;
  int block_size_ = 1;
};
/// True for Sprocket::BsrMatrix instantiations.
template <class T>
struct is_bsr_matrix : std::false_type {};
template <class S, class O, class D, class Z>
struct is_bsr_matrix<BsrMatrix<S, O, D, Z>> : std::true_type {};
template <class T>
/// Is_bsr_matrix of T without references and cv-qualifiers
inline constexpr bool is_bsr_matrix_v = is_bsr_matrix<std::decay_t<T>>::value;

/// BsrMatrix <-> HostBsr copies. Both check the structure (HostBsr::validate: row map, block
/// columns in range, b*b values per block) and throw InvalidArgument naming the first violation.
template <class BsrType>
BsrType to_bsr(const HostBsr& host) {
  static_assert(is_bsr_matrix_v<BsrType>, "to_bsr: BsrType must be a Sprocket::BsrMatrix");
  using Scalar = typename BsrType::value_type;
  using Ordinal = typename BsrType::ordinal_type;
  using Offset = typename BsrType::size_type;
  host.validate("to_bsr");
  SPROCKET_REQUIRE(static_cast<uint64_t>(host.values.size()) <=
                       static_cast<uint64_t>(std::numeric_limits<Offset>::max()),
                   "to_bsr: ", host.values.size(), " stored values do not fit the offset type");
  using Device = typename BsrType::device_type;
  const auto row_map = Impl::to_device_view<Offset, Device>(host.row_map, "Sprocket::Bsr::row_map");
  const auto entries = Impl::to_device_view<Ordinal, Device>(host.entries, "Sprocket::Bsr::entries");
  const auto values = Impl::to_device_view<Scalar, Device>(host.values, "Sprocket::Bsr::values");
  return BsrType(static_cast<Ordinal>(host.num_block_rows), static_cast<Ordinal>(host.num_block_cols),
                 host.block_size, row_map, entries, values);
}
/// The BsrMatrix -> HostBsr copy (values widened to double); `who` starts the error message.
template <class BsrType>
HostBsr to_host_bsr(const BsrType& A, const char* who = "to_host_bsr") {
  static_assert(is_bsr_matrix_v<BsrType>, "to_host_bsr: argument must be a Sprocket::BsrMatrix");
  HostBsr host;
  host.block_size = A.block_size();
  host.num_block_rows = A.num_block_rows();
  host.num_block_cols = A.num_block_cols();
  // A default-constructed BsrMatrix has an empty row map: it is the 0 x 0 matrix.
  if (A.row_map.extent(0) > 0) {
    auto row_map_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map);
    host.row_map.resize(row_map_h.extent(0));
    for (size_t i = 0; i < row_map_h.extent(0); ++i) host.row_map[i] = static_cast<int64_t>(row_map_h(i));
  }
  auto entries_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.entries);
  auto values_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  host.entries.assign(entries_h.data(), entries_h.data() + entries_h.extent(0));
  host.values.resize(values_h.extent(0));
  for (size_t k = 0; k < values_h.extent(0); ++k) host.values[k] = static_cast<double>(values_h(k));
  host.validate(who);
  return host;
}

/// CSR (CrsMatrix) -> BsrMatrix with block size b, on the BSR type's device.
template <class BsrType, class CrsType>
BsrType csr_to_bsr(const CrsType& A, int block_size, BsrConversionInfo* info = nullptr) {
  static_assert(is_crs_matrix_v<CrsType>, "csr_to_bsr: A must be a KokkosSparse::CrsMatrix");
  return to_bsr<BsrType>(csr_to_host_bsr(to_host_csr(A, "csr_to_bsr"), block_size, info));
}

/// BsrMatrix -> CSR (CrsMatrix), every stored block scalar becomes an entry unless drop_zeros.
template <class CrsType, class BsrType>
CrsType bsr_to_csr(const BsrType& A, bool drop_zeros = false) {
  static_assert(is_crs_matrix_v<CrsType>, "bsr_to_csr: CrsType must be a KokkosSparse::CrsMatrix");
  return to_crs<CrsType>(host_bsr_to_csr(to_host_bsr(A, "bsr_to_csr"), drop_zeros));
}

}  // namespace Sprocket
