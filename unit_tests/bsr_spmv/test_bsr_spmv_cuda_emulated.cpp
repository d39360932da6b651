// The CUDA BSR SpMV kernels (impl/bsr_spmv/cuda/bsr_spmv_cuda_kernels.cuh) run on the CPU through
// the test-only emulation (unit_tests/cuda_emulation/): the real launcher (cuda::bsr_spmv_apply
// with its launch decisions) with an emulated device as the execution space, every CUDA thread a
// fiber, under the four standard schedules (in order, reverse, seeded random, laggard warp), with
// small forced grids (max_grid_blocks 1..3) so every grid-stride loop takes several turns.
//
// Every kernel forced through the analysis the CUDA target builds (bsr_spmv_choose for a CUDA
// target on Backend::native, make_bsr_spmv_analysis on host memory): by_block for b = 1..8,
// by_column and row_per_thread for b = 1..8, 11, 16, 17, 32; plus the automatic CUDA choice. On:
//   - random partially filled blocks (explicit zeros), non-square, empty block rows (the first,
//     the last, every fourth), sized so each warp (row group) takes 2 or 3 grid-stride turns;
//   - unsorted block columns with duplicate blocks, a wide matrix, every seventh block row empty;
//   - one heavy block row (every block column: more than a by_block step of 32 blocks and several
//     row_per_thread chunks of 8, the last one partial) among short ones, a run of empty rows;
//   - no stored block at all (every scalar row is beta * y);
//   - a matrix declared symmetric in mode T (what the CUDA dispatch does: the mode N kernel).
// Each with beta == 0 over a NaN-poisoned y, beta != 0, and x / y as contiguous rank-1 Views,
// LayoutLeft columns and LayoutRight columns (stride 3: the columns not written must stay as they
// were), as the plan hands rank-2 operands to the kernels one column at a time. Results against
// reference::spmv on the equivalent CSR (explicit zeros kept) with test::spmv_matches's bound.
// Types: float and double with int offsets, double with size_t offsets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_BsrSpmv.hpp"
#include "impl/bsr_spmv/bsr_spmv_analysis.hpp"
#include "impl/bsr_spmv/cuda/bsr_spmv_cuda.hpp"
#include "sprocket_cuda_emulation.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using test::rounded;

namespace emu = Sprocket::cuda_emulation;
using Impl::cuda::bsr_block_rows_per_block;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class Scalar, class Offset>
using EmuBsr = BsrMatrix<Scalar, int, emu::Device::device_type, Offset>;

using EmulatedBsrTypes = ::testing::Types<EmuBsr<float, int>, EmuBsr<double, int>, EmuBsr<double, size_t>>;

const std::vector<int> kBlockSizes = {1, 2, 3, 4, 5, 6, 7, 8, 11, 16, 17, 32};

// ------------------------------------------------------------------------------------------------
// Matrices (HostBsr, values small integers so duplicates and symmetric sums are exact)

HostBsr no_blocks(int64_t block_rows, int64_t block_cols, int b) {
  HostBsr A;
  A.block_size = b;
  A.num_block_rows = block_rows;
  A.num_block_cols = block_cols;
  A.row_map.assign(block_rows + 1, 0);
  return A;
}

/// Appends one block of random integers in [-8, 8] (zeros included) with block column J.
void push_block(HostBsr& A, int J, std::mt19937_64& rng) {
  A.entries.push_back(J);
  for (int64_t v = 0; v < int64_t{A.block_size} * A.block_size; ++v)
    A.values.push_back(static_cast<double>(static_cast<int>(rng() % 17) - 8));
}

/// Random partially filled blocks (density 0.5: the conversion zero-fills), block rows 0, the
/// last and every fourth empty.
HostBsr random_with_empty_block_rows(int64_t block_rows, int64_t block_cols, int b, uint64_t salt) {
  const HostBsr R = csr_to_host_bsr(test::random_blocked(block_rows, block_cols, b, 3.0, 0.5, salt), b);
  HostBsr A = no_blocks(block_rows, block_cols, b);
  const int64_t bb = int64_t{b} * b;
  for (int64_t I = 0; I < block_rows; ++I) {
    if (I != 0 && I != block_rows - 1 && I % 4 != 2)
      for (int64_t k = R.row_map[I]; k < R.row_map[I + 1]; ++k) {
        A.entries.push_back(R.entries[k]);
        A.values.insert(A.values.end(), R.values.begin() + k * bb, R.values.begin() + (k + 1) * bb);
      }
    A.row_map[I + 1] = A.num_blocks();
  }
  return A;
}

/// The block pattern of test::unsorted_with_duplicates (random unsorted block columns, about a
/// third repeating an earlier one of the row, every seventh block row empty), random blocks.
HostBsr unsorted_with_duplicate_blocks(int64_t block_rows, int64_t block_cols, int b, uint64_t salt) {
  const HostCsr pattern = test::unsorted_with_duplicates(block_rows, block_cols, 12, salt);
  std::mt19937_64 rng(test::seed_for(salt + 1));
  HostBsr A = no_blocks(block_rows, block_cols, b);
  for (int64_t I = 0; I < block_rows; ++I) {
    for (int64_t k = pattern.row_map[I]; k < pattern.row_map[I + 1]; ++k) push_block(A, pattern.entries[k], rng);
    A.row_map[I + 1] = A.num_blocks();
  }
  return A;
}

/// Block row 0 holds every block column (in descending order); the others one or two blocks; a
/// run of 11 empty block rows in the middle and the last block row empty.
HostBsr one_heavy_block_row(int64_t block_rows, int64_t block_cols, int b, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  HostBsr A = no_blocks(block_rows, block_cols, b);
  for (int64_t I = 0; I < block_rows; ++I) {
    const bool empty = (I >= block_rows / 2 && I < block_rows / 2 + 11) || I == block_rows - 1;
    if (I == 0) {
      for (int64_t J = block_cols - 1; J >= 0; --J) push_block(A, static_cast<int>(J), rng);
    } else if (!empty) {
      push_block(A, static_cast<int>(I % block_cols), rng);
      if (I % 3 == 0) push_block(A, static_cast<int>((I * 7 + 1) % block_cols), rng);
    }
    A.row_map[I + 1] = A.num_blocks();
  }
  return A;
}

/// S = B + B^T for a random square blocked B (integer values: exactly symmetric).
HostBsr random_symmetric(int64_t block_rows, int b, uint64_t salt) {
  const HostCsr B = test::random_blocked(block_rows, block_rows, b, 1.5, 0.5, salt);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < B.num_rows; ++i)
    for (int64_t k = B.row_map[i]; k < B.row_map[i + 1]; ++k) {
      t.push_back({i, int64_t{B.entries[k]}, B.values[k]});
      t.push_back({int64_t{B.entries[k]}, i, B.values[k]});
    }
  return csr_to_host_bsr(HostCsr::from_triplets(B.num_rows, B.num_cols, std::move(t)), b);
}

// ------------------------------------------------------------------------------------------------
// The CUDA target's analysis and the emulated applies

/// What BsrSpmvPlan<BsrMatrix on Kokkos::Cuda> builds: the options checked, the backend resolved
/// (bsr_spmv_resolve_backend: native on Kokkos::Cuda unless portable is asked), the choice for a
/// CUDA target, the analysis; here on host memory.
template <class BsrType>
Impl::BsrSpmvAnalysis<BsrType> cuda_analysis(const BsrType& A, const BsrSpmvOptions& options) {
  Impl::check_bsr_spmv_options(options);
  const Backend backend = options.backend == Backend::portable ? Backend::portable : Backend::native;
  Impl::BsrSpmvTarget target;
  target.cuda = true;
  target.space_name = "Cuda";
  target.block_size = A.block_size();
  target.value_bytes = int64_t(A.values.extent(0)) * int64_t(sizeof(typename BsrType::value_type));
  return Impl::make_bsr_spmv_analysis(A, Impl::bsr_spmv_choose(options, backend, target), options);
}

/// Runs f (one emulated launch at most), turning any exception (EmulationError included) into a
/// failure that names it.
template <class F>
::testing::AssertionResult no_throw(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw: " << e.what();
  }
  return ::testing::AssertionSuccess();
}

template <class BsrType>
struct Kit {
  using Scalar = typename BsrType::value_type;
  using Device = typename BsrType::device_type;
  using Vec = Kokkos::View<Scalar*, Device>;
  using MatL = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using MatR = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
  using Analysis = Impl::BsrSpmvAnalysis<BsrType>;

  /// The kernel instance the launcher must run for `kernel` on blocks of b x b, x of XValue and y of
  /// YValue: by_block<b>, by_column<bsr_by_column_capacity(b)>, row_per_thread.
  template <class XValue, class YValue>
  static std::string kernel_instance(BsrKernel kernel, int b) {
    using namespace Impl::cuda;
    using Offset = typename BsrType::row_map_type::non_const_value_type;
    using Ordinal = typename BsrType::entries_type::non_const_value_type;
    using Value = typename BsrType::values_type::non_const_value_type;
    const auto by_block = [](auto B) {
      constexpr int b = decltype(B)::value;
      return emu::kernel_instance<bsr_by_block_kernel<b, Offset, Ordinal, Value, XValue, YValue, Scalar>>();
    };
    const auto by_column = [](auto NR) {
      constexpr int nr = decltype(NR)::value;
      return emu::kernel_instance<bsr_by_column_kernel<nr, Offset, Ordinal, Value, XValue, YValue, Scalar>>();
    };
    const std::string none = std::string("no instance of ") + to_string(kernel) + " for b = " + std::to_string(b);
    switch (kernel) {
      case BsrKernel::by_block:
        switch (b) {
          case 1: return by_block(std::integral_constant<int, 1>());
          case 2: return by_block(std::integral_constant<int, 2>());
          case 3: return by_block(std::integral_constant<int, 3>());
          case 4: return by_block(std::integral_constant<int, 4>());
          case 5: return by_block(std::integral_constant<int, 5>());
          case 6: return by_block(std::integral_constant<int, 6>());
          case 7: return by_block(std::integral_constant<int, 7>());
          case 8: return by_block(std::integral_constant<int, 8>());
          default: return none;
        }
      case BsrKernel::by_column:
        switch (bsr_by_column_capacity(b)) {
          case 4: return by_column(std::integral_constant<int, 4>());
          case 8: return by_column(std::integral_constant<int, 8>());
          case 16: return by_column(std::integral_constant<int, 16>());
          case 32: return by_column(std::integral_constant<int, 32>());
          default: return none;
        }
      case BsrKernel::row_per_thread:
        return emu::kernel_instance<bsr_row_per_thread_kernel<Offset, Ordinal, Value, XValue, YValue, Scalar>>();
      default: return none;
    }
  }

  /// One apply on the emulated device: exactly one launch, of the analysis's kernel instance for
  /// its block size (none without block rows), blocks of 256 threads, a grid within the device's
  /// clamp.
  template <class XView, class YView>
  static ::testing::AssertionResult apply(const emu::Device& device, const Analysis& an, double alpha,
                                          const XView& x, double beta, const YView& y) {
    const size_t before = device.stream.history.size();
    auto r = no_throw([&] {
      Impl::cuda::bsr_spmv_apply(device, an, static_cast<Scalar>(alpha), x, static_cast<Scalar>(beta), y);
    });
    if (!r) return r;
    const size_t launches = device.stream.history.size() - before;
    if (an.A.num_block_rows() == 0)
      return launches == 0 ? ::testing::AssertionSuccess()
                           : ::testing::AssertionFailure() << launches << " launches without block rows";
    if (launches != 1) return ::testing::AssertionFailure() << launches << " launches, expected 1";
    const emu::LaunchRecord& l = device.stream.history.back();
    const std::string expected =
        kernel_instance<typename XView::non_const_value_type, typename YView::non_const_value_type>(
            an.kernel, an.A.block_size());
    if (l.instance != expected)
      return ::testing::AssertionFailure() << "launched " << l.instance << ", expected " << expected;
    if (l.block != 256 || l.grid < 1 || int64_t{l.grid} > grid_limit(device) || l.shared_bytes != 0)
      return ::testing::AssertionFailure() << "launch " << l.grid << " x " << l.block << ", " << l.shared_bytes
                                           << " shared bytes";
    return ::testing::AssertionSuccess();
  }

  /// mode "N" or "T" (T: the matrix is declared symmetric and the dispatch runs the mode N kernel).
  /// Three applies: rank 1 with beta == 0 over NaN; column 2 of LayoutLeft 3-column X and Y with
  /// beta != 0; column 1 of LayoutRight ones (stride 3) with beta == 0 over NaN, the other columns
  /// holding values that must survive.
  static void run(const emu::Device& device, const Analysis& an, const HostCsr& A, const std::string& mode,
                  uint64_t salt) {
    const int64_t in = mode == "N" ? A.num_cols : A.num_rows, out = mode == "N" ? A.num_rows : A.num_cols;
    {
      const std::vector<double> x = rounded<Scalar>(test::random_vector(in, salt));
      const std::vector<double> y0(out, kNaN);
      const Vec xv = test::to_view<Vec>(x, "x"), yv = test::to_view<Vec>(y0, "y");
      EXPECT_TRUE(apply(device, an, 1.5, xv, 0.0, yv)) << "rank 1, beta 0";
      EXPECT_TRUE(test::spmv_matches<Scalar>(mode, 1.5, A, x, 0.0, y0, test::to_host_vector(yv))) << "rank 1, beta 0";
    }
    {
      const HostDense X = rounded<Scalar>(test::random_dense(in, 3, salt + 1));
      const HostDense Y0 = rounded<Scalar>(test::random_dense(out, 3, salt + 2));
      const MatL xv = test::to_view<MatL>(X, "X"), yv = test::to_view<MatL>(Y0, "Y");
      const auto xc = Kokkos::subview(xv, Kokkos::ALL, 2);
      const auto yc = Kokkos::subview(yv, Kokkos::ALL, 2);
      EXPECT_TRUE(apply(device, an, -0.5, xc, 0.75, yc)) << "LayoutLeft column 2, beta 0.75";
      const HostDense Y = test::to_host_dense(yv);
      const std::vector<double> x(X.data.begin() + 2 * in, X.data.end());
      const std::vector<double> y0(Y0.data.begin() + 2 * out, Y0.data.end());
      const std::vector<double> y(Y.data.begin() + 2 * out, Y.data.end());
      EXPECT_TRUE(test::spmv_matches<Scalar>(mode, -0.5, A, x, 0.75, y0, y)) << "LayoutLeft column 2, beta 0.75";
      EXPECT_TRUE(std::equal(Y.data.begin(), Y.data.begin() + 2 * out, Y0.data.begin()))
          << "LayoutLeft: columns 0 and 1 changed";
    }
    {
      const HostDense X = rounded<Scalar>(test::random_dense(in, 3, salt + 3));
      HostDense Y0 = rounded<Scalar>(test::random_dense(out, 3, salt + 4));
      for (int64_t i = 0; i < out; ++i) Y0(i, 1) = kNaN;
      const MatR xv = test::to_view<MatR>(X, "X"), yv = test::to_view<MatR>(Y0, "Y");
      const auto xc = Kokkos::subview(xv, Kokkos::ALL, 1);
      const auto yc = Kokkos::subview(yv, Kokkos::ALL, 1);
      EXPECT_TRUE(apply(device, an, 2.0, xc, 0.0, yc)) << "LayoutRight column 1, beta 0";
      const HostDense Y = test::to_host_dense(yv);
      const std::vector<double> x(X.data.begin() + in, X.data.begin() + 2 * in);
      const std::vector<double> y0(Y0.data.begin() + out, Y0.data.begin() + 2 * out);
      const std::vector<double> y(Y.data.begin() + out, Y.data.begin() + 2 * out);
      EXPECT_TRUE(test::spmv_matches<Scalar>(mode, 2.0, A, x, 0.0, y0, y)) << "LayoutRight column 1, beta 0";
      for (int64_t i = 0; i < out; ++i)
        if (!(Y(i, 0) == Y0(i, 0) && Y(i, 2) == Y0(i, 2))) {
          ADD_FAILURE() << "LayoutRight: row " << i << " of columns 0 or 2 changed";
          break;
        }
    }
  }

  /// The analysis for `options` on A0 (rounded to Scalar), checked to run `expected`, applied under
  /// every standard schedule on a device whose grids are clamped to grid_limit blocks.
  static void run_case(const HostBsr& A0, const BsrSpmvOptions& options, BsrKernel expected, int64_t grid_limit,
                       const std::string& mode, const std::string& what, uint64_t salt) {
    HostBsr Ah = A0;
    Ah.values = rounded<Scalar>(std::move(Ah.values));
    const HostCsr csr = host_bsr_to_csr(Ah);  // explicit zeros and duplicates kept: the same products
    const BsrType A = to_bsr<BsrType>(Ah);
    const Analysis an = cuda_analysis(A, options);
    const std::string context = what + ", b = " + std::to_string(Ah.block_size) + ", " +
                                std::to_string(Ah.num_block_rows) + " x " + std::to_string(Ah.num_block_cols) +
                                " blocks, " + std::to_string(Ah.num_blocks()) + " stored, grid limit " +
                                std::to_string(grid_limit) + ", mode " + mode;
    SCOPED_TRACE(context);
    ASSERT_EQ(an.kernel, expected);
    ASSERT_EQ(an.backend, Backend::native);
    ASSERT_EQ(an.symmetric, mode == "T") << "mode T goes to the CUDA kernel only for a declared-symmetric matrix";
    for (const emu::Schedule& schedule : emu::standard_schedules(test::seed_for(salt))) {
      SCOPED_TRACE("schedule " + schedule.name());
      const emu::Device device(schedule, 2, grid_limit);
      run(device, an, csr, mode, salt += 8);
    }
  }

  /// Every input of the header comment for one forced kernel and block size.
  static void run_kernel(BsrKernel kernel, int b, uint64_t salt) {
    BsrSpmvOptions o;
    o.kernel = kernel;
    const std::string name = to_string(kernel);
    const int64_t per_block = bsr_block_rows_per_block(kernel, b);  // block rows of one grid-stride turn
    // Grid limit 1: every warp (row group) takes 2 or 3 turns.
    run_case(random_with_empty_block_rows(2 * per_block + 3, 9, b, salt + 1), o, kernel, 1, "N",
             name + ", random blocks with empty block rows", salt + 100);
    // Grid limit 2, wide.
    run_case(unsorted_with_duplicate_blocks(2 * per_block + 5, 2 * per_block + 25, b, salt + 2), o, kernel, 2, "N",
             name + ", unsorted block columns with duplicate blocks", salt + 200);
    // Grid limit 3.
    run_case(one_heavy_block_row(3 * per_block + 7, 45, b, salt + 3), o, kernel, 3, "N",
             name + ", one heavy block row", salt + 300);
    run_case(no_blocks(per_block + 2, 4, b), o, kernel, 1, "N", name + ", no stored block", salt + 400);
    BsrSpmvOptions symmetric = o;
    symmetric.symmetric = true;
    run_case(random_symmetric(per_block + 3, b, salt + 5), symmetric, kernel, 2, "T",
             name + ", declared symmetric", salt + 500);
  }
};

template <class BsrType>
class BsrSpmvCudaEmulated : public ::testing::Test {};
TYPED_TEST_SUITE(BsrSpmvCudaEmulated, EmulatedBsrTypes);

TYPED_TEST(BsrSpmvCudaEmulated, ByBlock) {
  for (int b = 1; b <= 8; ++b) Kit<TypeParam>::run_kernel(BsrKernel::by_block, b, 1000 + 1000 * b);
}

TYPED_TEST(BsrSpmvCudaEmulated, ByColumn) {
  for (int b : kBlockSizes) Kit<TypeParam>::run_kernel(BsrKernel::by_column, b, 100000 + 1000 * b);
}

TYPED_TEST(BsrSpmvCudaEmulated, RowPerThread) {
  for (int b : kBlockSizes) Kit<TypeParam>::run_kernel(BsrKernel::row_per_thread, b, 200000 + 1000 * b);
}

// The automatic choice of the CUDA target (by_block up to 4, by_column up to 15, row_per_thread
// from 16) runs too.
TYPED_TEST(BsrSpmvCudaEmulated, AutomaticChoice) {
  for (int b : kBlockSizes) {
    const BsrKernel expected = bsr_default_kernel(true, false, b);
    const int64_t per_block = bsr_block_rows_per_block(expected, b);
    Kit<TypeParam>::run_case(random_with_empty_block_rows(per_block + 5, 7, b, 300000 + 10 * b), BsrSpmvOptions(),
                             expected, 1, "N", "automatic", 300000 + 1000 * b);
  }
}

// ------------------------------------------------------------------------------------------------
// The launch decisions themselves (plain functions of the launcher)

TEST(BsrSpmvCudaLaunch, GridBlockAndCapacity) {
  using namespace Impl::cuda;
  for (int b = 1; b <= 32; ++b) {
    const int nr = bsr_by_column_capacity(b);
    EXPECT_GE(nr, b);
    EXPECT_GE(nr, 4);
    EXPECT_TRUE(nr == 4 || nr < 2 * b) << "b = " << b << ": the smallest power of two >= b (at least 4)";
    EXPECT_EQ(nr & (nr - 1), 0);
    for (BsrKernel k : {BsrKernel::by_block, BsrKernel::by_column, BsrKernel::row_per_thread}) {
      const int64_t per = k == BsrKernel::row_per_thread ? 8 * (32 / b) : 8;
      EXPECT_EQ(bsr_block_rows_per_block(k, b), per);
      for (int64_t rows : {int64_t{1}, per, per + 1, 5 * per, int64_t{1} << 40})
        for (int64_t limit : {int64_t{1}, int64_t{3}, max_grid_blocks}) {
          const KernelLaunch l = bsr_kernel_launch(k, b, rows, limit);
          EXPECT_EQ(l.block, unsigned(bsr_block_threads));
          EXPECT_EQ(l.launch_bound, unsigned(bsr_block_threads));
          EXPECT_EQ(l.shared_bytes, 0u);
          EXPECT_EQ(int64_t{l.grid}, std::min((rows + per - 1) / per, limit))
              << to_string(k) << ", b = " << b << ", " << rows << " block rows, limit " << limit;
        }
    }
  }
}

// No block row: no launch; an unsupported block size for by_block throws before launching.
TEST(BsrSpmvCudaLaunch, NoBlockRowsNoLaunchAndBadBlockSizeThrows) {
  using BsrType = EmuBsr<double, int>;
  using K = Kit<BsrType>;
  const emu::Device device;
  BsrSpmvOptions o;
  o.kernel = BsrKernel::by_column;
  const auto an = cuda_analysis(to_bsr<BsrType>(no_blocks(0, 3, 4)), o);
  K::Vec x("x", 12), y("y", 0);
  EXPECT_TRUE(K::apply(device, an, 1.0, x, 0.0, y));
  EXPECT_TRUE(device.stream.history.empty());
  auto bad = cuda_analysis(to_bsr<BsrType>(no_blocks(2, 2, 9)), o);
  bad.kernel = BsrKernel::by_block;  // the analysis refuses it; the launcher checks again
  K::Vec x9("x", 18), y9("y", 18);
  EXPECT_THROW(Impl::cuda::bsr_spmv_apply(device, bad, 1.0, x9, 0.0, y9), InvalidArgument);
  EXPECT_TRUE(device.stream.history.empty());
}

}  // namespace
