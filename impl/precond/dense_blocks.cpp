// Diagonal block inversion for block-Jacobi (see dense_blocks.hpp).
#include "impl/precond/dense_blocks.hpp"

#include <algorithm>
#include <cmath>

#include "Sprocket_Error.hpp"
#include "impl/blocks/lapack.hpp"

namespace Sprocket {
namespace Impl {

void invert_diagonal_blocks(std::vector<double>& blocks, int64_t num_blocks, int b, int last_size,
                            double unit_roundoff, const std::string& who) {
  SPROCKET_REQUIRE(b >= 1 && last_size >= 1 && last_size <= b, who, ": block size ", b, ", last block ", last_size);
  SPROCKET_REQUIRE(blocks.size() == static_cast<size_t>(num_blocks) * b * b, who, ": ", blocks.size(),
                   " values for ", num_blocks, " blocks of ", b, " x ", b);
  std::vector<double> a(static_cast<size_t>(b) * b), work(static_cast<size_t>(b) * 64);
  std::vector<int> pivots(b);
  for (int64_t k = 0; k < num_blocks; ++k) {
    const int size = k + 1 == num_blocks ? last_size : b;
    double* slot = &blocks[static_cast<size_t>(k) * b * b];
    const int64_t first_row = k * b, last_row = first_row + size - 1;
    // The row-major block read column-major is its transpose; inverting that gives the
    // transpose of the inverse, which written back row-major is the inverse itself.
    double largest = 0;
    bool finite = true;
    for (int r = 0; r < size; ++r)
      for (int c = 0; c < size; ++c) {
        const double v = slot[r * b + c];
        a[static_cast<size_t>(r) * size + c] = v;
        finite = finite && v - v == 0.0;
        largest = std::max(largest, std::fabs(v));
      }
    SPROCKET_REQUIRE(finite, who, ": diagonal block ", k, " (rows ", first_row, "-", last_row,
                     ") holds NaN or Inf");
    int info = 0;
    dgetrf_(&size, &size, a.data(), &size, pivots.data(), &info);
    double smallest_pivot = info > 0 ? 0.0 : std::fabs(a[0]);
    int where = info > 0 ? info - 1 : 0;
    for (int i = 0; info == 0 && i < size; ++i)
      if (std::fabs(a[static_cast<size_t>(i) * size + i]) < smallest_pivot)
        smallest_pivot = std::fabs(a[static_cast<size_t>(i) * size + i]), where = i;
    SPROCKET_REQUIRE(info >= 0, who, ": dgetrf returned info ", info);
    SPROCKET_REQUIRE(info == 0 && smallest_pivot > size * unit_roundoff * largest, who, ": diagonal block ", k,
                     " (rows ", first_row, "-", last_row, ") is singular (LU pivot ", smallest_pivot,
                     " in column ", where, ", largest entry ", largest, ")");
    const int lwork = static_cast<int>(work.size());
    dgetri_(&size, a.data(), &size, pivots.data(), work.data(), &lwork, &info);
    SPROCKET_REQUIRE(info == 0, who, ": dgetri returned info ", info, " for diagonal block ", k);
    std::fill(slot, slot + static_cast<size_t>(b) * b, 0.0);
    for (int r = 0; r < size; ++r)
      for (int c = 0; c < size; ++c) slot[r * b + c] = a[static_cast<size_t>(r) * size + c];
  }
}

}  // namespace Impl
}  // namespace Sprocket
