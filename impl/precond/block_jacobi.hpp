#pragma once
/// \file block_jacobi.hpp
/// Block-Jacobi preconditioner: Y = blockdiag(A)^{-1} X. The diagonal blocks are gathered on the
/// device, copied to the host and inverted there by LU with partial pivoting in double
/// (dense_blocks.cpp, LAPACK); the explicit inverses go back to the device, so an apply is one
/// small dense product per row: b multiply-adds per entry, no triangular solves to serialize.
#include <Kokkos_Core.hpp>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "impl/precond/dense_blocks.hpp"
#include "impl/precond/precond_common.hpp"

namespace Sprocket {

namespace Impl {
namespace precond {

/// Host inversion of blocks gathered on the device; returns the inverses on the device.
template <class Scalar, class Device>
Kokkos::View<Scalar*, Device> invert_blocks(const Kokkos::View<Scalar*, Device>& blocks, int64_t n, int b,
                                            const std::string& who) {
  const int64_t num_blocks = (n + b - 1) / b;
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), blocks);
  std::vector<double> values(host.extent(0));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(host(i));
  const int last = static_cast<int>(n - (num_blocks - 1) * b);
  if (num_blocks > 0)
    invert_diagonal_blocks(values, num_blocks, b, last, std::numeric_limits<Scalar>::epsilon() / 2, who);
  for (size_t i = 0; i < values.size(); ++i) host(i) = static_cast<Scalar>(values[i]);
  Kokkos::deep_copy(blocks, host);
  return blocks;
}

}  // namespace precond
}  // namespace Impl

template <class Scalar, class Device>
class BlockJacobiPreconditioner final : public Preconditioner<Scalar, Device> {
  using base = Preconditioner<Scalar, Device>;

 public:
  /// inverse_blocks: ceil(n / b) row-major b x b blocks; block k covers rows [k b, min(n, (k+1) b)).
  BlockJacobiPreconditioner(int64_t n, int block_size, Kokkos::View<Scalar*, Device> inverse_blocks, std::string source)
      : n_(n), block_size_(block_size), inverse_blocks_(inverse_blocks), source_(std::move(source)) {}
  int64_t num_rows() const override { return n_; }
  int64_t num_cols() const override { return n_; }
  using base::apply;  // the execution-space overload
  void apply(const typename base::const_multivector& X, const typename base::multivector& Y) const override {
    Impl::precond::check_apply("BlockJacobiPreconditioner::apply", n_, X, Y);
    Impl::precond::apply_block_diagonal(inverse_blocks_, block_size_, X, Y);
  }
  std::string describe() const override {
    std::ostringstream os;
    const int64_t b = block_size_, blocks = (n_ + b - 1) / b, last = n_ - (blocks - 1) * b;
    os << "block-Jacobi preconditioner<" << (std::is_same_v<Scalar, float> ? "float" : "double") << "> on "
       << Device::execution_space::name() << ": " << blocks << " diagonal blocks of " << b << " x " << b;
    if (blocks > 0 && last != b) os << " (the last " << last << " x " << last << ")";
    os << " of " << source_ << ", inverted by LU with partial pivoting, " << n_ << " rows";
    return os.str();
  }
  int block_size() const { return block_size_; }
  /// The inverse blocks on the device (row-major b x b each).
  const Kokkos::View<Scalar*, Device>& inverse_blocks() const { return inverse_blocks_; }

  /// New values: the diagonal blocks of A (a CRS matrix, or a BsrMatrix of the preconditioner's
  /// block size, as at setup) inverted again. Reads only those blocks: any pattern of the same
  /// size (InvalidArgument for another size, block size or kind of matrix, or a singular block).
  template <class Matrix>
  void update_values(const Matrix& A) {
    update_values(typename Device::execution_space(), A);
  }
  template <class Matrix>
  void update_values(const typename Device::execution_space& space, const Matrix& A) {
    const char* who = "BlockJacobiPreconditioner::update_values";
    SPROCKET_REQUIRE(A.numRows() == n_ && A.numCols() == n_, who, ": A is ", A.numRows(), " x ", A.numCols(),
                     ", the preconditioner ", n_, " x ", n_);
    Sprocket::validate(A, who);
    Kokkos::View<Scalar*, Device> blocks("Sprocket::precond::block_jacobi::blocks", inverse_blocks_.extent(0));
    if constexpr (is_bsr_matrix_v<Matrix>) {
      SPROCKET_REQUIRE(source_ == bsr_source && A.block_size() == block_size_, who, ": built from ", source_,
                       " with blocks of ", block_size_, ", given a BSR matrix with blocks of ", A.block_size());
      if (n_ > 0) Impl::precond::extract_bsr_diagonal_blocks(A, blocks);
    } else {
      SPROCKET_REQUIRE(source_ == crs_source, who, ": built from ", source_, ", given a CRS matrix");
      if (n_ > 0) Impl::precond::extract_diagonal_blocks(A, block_size_, blocks);
    }
    Impl::precond::invert_blocks(blocks, n_, block_size_, who);
    Kokkos::deep_copy(space, inverse_blocks_, blocks);
    space.fence();
  }

  /// What the blocks were taken from (describe(), update_values).
  static constexpr const char* crs_source = "a CRS matrix";
  static constexpr const char* bsr_source = "a BSR matrix";

 private:
  int64_t n_;
  int block_size_;
  Kokkos::View<Scalar*, Device> inverse_blocks_;
  std::string source_;
};


template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int>>
std::shared_ptr<BlockJacobiPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_block_jacobi(const CrsType& A, int block_size) {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  const int64_t n = A.numRows();
  SPROCKET_REQUIRE(A.numCols() == n, "make_block_jacobi: A must be square, it is ", n, " x ", A.numCols());
  SPROCKET_REQUIRE(block_size >= 1, "make_block_jacobi: block_size = ", block_size, " (must be >= 1)");
  Sprocket::validate(A, "make_block_jacobi");  // the blocks are read through A's row map and columns
  const int b = static_cast<int>(std::min<int64_t>(block_size, std::max<int64_t>(n, 1)));
  const int64_t num_blocks = (n + b - 1) / b;
  Kokkos::View<Scalar*, Device> blocks("Sprocket::precond::block_jacobi::blocks", num_blocks * b * b);
  if (n > 0) Impl::precond::extract_diagonal_blocks(A, b, blocks);
  Impl::precond::invert_blocks(blocks, n, b, "make_block_jacobi");
  return std::make_shared<BlockJacobiPreconditioner<Scalar, Device>>(n, b, blocks,
                                                                      BlockJacobiPreconditioner<Scalar, Device>::crs_source);
}

template <class BsrType, std::enable_if_t<is_bsr_matrix_v<BsrType>, int>>
std::shared_ptr<BlockJacobiPreconditioner<typename BsrType::value_type, typename BsrType::device_type>>
make_block_jacobi(const BsrType& A) {
  using Scalar = typename BsrType::value_type;
  using Device = typename BsrType::device_type;
  SPROCKET_REQUIRE(A.num_block_rows() == A.num_block_cols(), "make_block_jacobi: the BSR matrix must be square, it has ",
                   A.num_block_rows(), " x ", A.num_block_cols(), " blocks");
  Sprocket::validate(A, "make_block_jacobi");
  const int b = A.block_size();
  const int64_t n = A.numRows();
  Kokkos::View<Scalar*, Device> blocks("Sprocket::precond::block_jacobi::blocks",
                                       static_cast<int64_t>(A.num_block_rows()) * b * b);
  if (n > 0) Impl::precond::extract_bsr_diagonal_blocks(A, blocks);
  Impl::precond::invert_blocks(blocks, n, b, "make_block_jacobi (BSR; a missing diagonal block is singular)");
  return std::make_shared<BlockJacobiPreconditioner<Scalar, Device>>(n, b, blocks,
                                                                      BlockJacobiPreconditioner<Scalar, Device>::bsr_source);
}

}  // namespace Sprocket
