#pragma once
/// \file dense_blocks.hpp
/// Host-side inversion of the small diagonal blocks of block-Jacobi (LAPACK dgetrf/dgetri in
/// double), compiled once into the library.
#include <cstdint>
#include <string>
#include <vector>

namespace Sprocket {
namespace Impl {

/// Inverts in place `num_blocks` row-major b x b blocks stored one after another; the last block
/// is last_size x last_size (its leading part of the b x b slot; 1 <= last_size <= b), the rest of
/// its slot is ignored and left zero. LU with partial pivoting; a block is singular when a pivot
/// is exactly zero, when |pivot| <= size * unit_roundoff * max |entry| (numerically singular for
/// the precision the preconditioner applies in), or when it holds NaN/Inf: then InvalidArgument
/// names `who`, the block and its rows (first_row(block) = block * b).
void invert_diagonal_blocks(std::vector<double>& blocks, int64_t num_blocks, int b, int last_size,
                            double unit_roundoff, const std::string& who);

}  // namespace Impl
}  // namespace Sprocket
