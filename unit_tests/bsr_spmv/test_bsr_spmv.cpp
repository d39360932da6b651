// BSR SpMV operator (Sprocket_BsrSpmv.hpp): every kernel the execution space runs (forced, the
// automatic choice, Backend::native and Backend::portable) for block sizes 1..8, 11, 16, 17 and 32, modes N and T,
// rank-1 and rank-2 (both layouts), float and double, int and size_t offsets, beta == 0 with y
// poisoned, alpha == 0 with x poisoned, against reference::spmv on the equivalent CSR
// (host_bsr_to_csr, explicit in-block zeros included) with the scaled error bound of
// test::spmv_matches; plus padded's value snapshot, argument errors, kernel names,
// matrices declared symmetric (BsrSpmvOptions::symmetric: every kernel with the declaration, the
// symmetric kernel with 1 to 64 parts so its spills cross parts, duplicate blocks, lower
// blocks of zeros without a mirror; and the promise's check),
// describe(), empty and 1 x 1 block matrices, and the shared stiffness matrices through block-size
// detection.
//
// Matrices break kernels with: empty block rows (the first, the last, runs of them), non-square
// block shapes (13 x 9, 5 x 20), random block patterns whose blocks are partially filled (the
// conversion zero-fills them; the random values include zeros too), one heavy block row among
// short ones. Every plan's kernel() is checked against what the configuration asks, so a test
// cannot pass by silently running another kernel.
//
// No device code here: everything goes through the plan, deep_copy and mirrors (nvcc refuses
// extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_BsrSpmv.hpp"
#include "Sprocket_Generators.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using test::rounded;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ------------------------------------------------------------------------------------------------
// Types: every (Scalar, Offset) on every enabled execution space, as test::CrsTypes.

template <class Scalar, class Offset, class Space>
using Bsr = BsrMatrix<Scalar, int, test::DeviceOf<Space>, Offset>;

#define SPROCKET_BSR_TYPES_FOR_SPACE(Space) \
  Bsr<double, int, Space>, Bsr<float, int, Space>, Bsr<double, size_t, Space>, Bsr<float, size_t, Space>

#if defined(KOKKOS_ENABLE_CUDA)  // the host spaces are the host build's (sprocket_test_types.hpp)
using BsrTypes = ::testing::Types<SPROCKET_BSR_TYPES_FOR_SPACE(Kokkos::Cuda)>;
#elif defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
using BsrTypes = ::testing::Types<SPROCKET_BSR_TYPES_FOR_SPACE(Kokkos::OpenMP),
                                  SPROCKET_BSR_TYPES_FOR_SPACE(Kokkos::Serial)>;
#else
using BsrTypes = ::testing::Types<SPROCKET_BSR_TYPES_FOR_SPACE(Kokkos::DefaultExecutionSpace)>;
#endif

const std::vector<int> kBlockSizes = {1, 2, 3, 4, 5, 6, 7, 8, 11, 16, 17, 32};

// ------------------------------------------------------------------------------------------------
// Matrices


/// Empties the block rows for which keep(I) is false.
template <class Keep>
HostBsr empty_block_rows_unless(const HostBsr& A, Keep keep) {
  HostBsr B;
  B.block_size = A.block_size;
  B.num_block_rows = A.num_block_rows;
  B.num_block_cols = A.num_block_cols;
  B.row_map.assign(A.num_block_rows + 1, 0);
  const int64_t bb = int64_t{A.block_size} * A.block_size;
  for (int64_t I = 0; I < A.num_block_rows; ++I) {
    if (keep(I))
      for (int64_t k = A.row_map[I]; k < A.row_map[I + 1]; ++k) {
        B.entries.push_back(A.entries[k]);
        B.values.insert(B.values.end(), A.values.begin() + k * bb, A.values.begin() + (k + 1) * bb);
      }
    B.row_map[I + 1] = B.num_blocks();
  }
  return B;
}

/// Random BSR with partially filled blocks (density 0.5) through csr_to_host_bsr.
HostBsr random_bsr(int64_t block_rows, int64_t block_cols, int b, double blocks_per_row, uint64_t salt) {
  return csr_to_host_bsr(test::random_blocked(block_rows, block_cols, b, blocks_per_row, 0.5, salt), b);
}

/// No stored block at all (every block row empty).
HostBsr empty_bsr(int64_t block_rows, int64_t block_cols, int b) {
  HostBsr A;
  A.block_size = b;
  A.num_block_rows = block_rows;
  A.num_block_cols = block_cols;
  A.row_map.assign(block_rows + 1, 0);
  return A;
}

/// A 1 x 1 block matrix: one dense b x b block, values in [-1, 1].
HostBsr one_block(int b, uint64_t salt) {
  HostBsr A = empty_bsr(1, 1, b);
  A.entries = {0};
  A.values = test::random_vector(int64_t{b} * b, salt);
  A.row_map = {0, 1};
  return A;
}

/// Block row 0 holds every block column; the others one or two blocks; runs of empty block rows.
HostBsr one_heavy_block_row(int64_t block_rows, int64_t block_cols, int b, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  HostBsr A = empty_bsr(block_rows, block_cols, b);
  for (int64_t I = 0; I < block_rows; ++I) {
    const bool empty = (I >= block_rows / 2 && I < block_rows / 2 + 17) || I == block_rows - 1;
    std::vector<int> cols;
    if (I == 0)
      for (int64_t J = 0; J < block_cols; ++J) cols.push_back(static_cast<int>(J));
    else if (!empty)
      cols = {static_cast<int>(I % block_cols)};
    for (int J : cols) {
      A.entries.push_back(J);
      for (int64_t v = 0; v < int64_t{b} * b; ++v)
        A.values.push_back(static_cast<double>(static_cast<int>(rng() % 9) - 4));
    }
    A.row_map[I + 1] = A.num_blocks();
  }
  return A;
}

/// S = B + B^T for a random square blocked B (integer values, so S is exactly symmetric), with
/// the block rows and block columns I for which keep(I) is false emptied (an empty block row of a
/// symmetric matrix is an empty block column too).
template <class Keep>
HostBsr random_symmetric_bsr(int64_t block_rows, int b, double blocks_per_row, uint64_t salt, Keep keep) {
  const HostCsr B = test::random_blocked(block_rows, block_rows, b, blocks_per_row / 2, 0.5, salt);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < B.num_rows; ++i)
    for (int64_t k = B.row_map[i]; k < B.row_map[i + 1]; ++k) {
      const int64_t j = B.entries[k];
      if (!keep(i / b) || !keep(j / b)) continue;
      t.push_back({i, j, B.values[k]});
      t.push_back({j, i, B.values[k]});
    }
  return csr_to_host_bsr(HostCsr::from_triplets(B.num_rows, B.num_cols, std::move(t)), b);
}

/// A symmetric "arrow": block row 0 and block column 0 full, a diagonal, and a few symmetric
/// pairs near the diagonal, so block row 0's transposed products land in every later block row
/// (every host part spills into every later one).
HostBsr symmetric_arrow(int64_t block_rows, int b, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  std::vector<Triplet> t;
  auto pair = [&](int64_t I, int64_t J) {
    for (int r = 0; r < b; ++r)
      for (int c = 0; c < b; ++c) {
        const double v = static_cast<double>(static_cast<int>(rng() % 9) - 4);
        t.push_back({I * b + r, J * b + c, v});
        t.push_back({J * b + c, I * b + r, v});
      }
  };
  for (int64_t J = 0; J < block_rows; ++J) pair(0, J);
  for (int64_t I = 1; I < block_rows; ++I) {
    pair(I, I);
    if (I + 3 < block_rows && I % 2 == 0) pair(I, I + 3);
  }
  return csr_to_host_bsr(HostCsr::from_triplets(block_rows * b, block_rows * b, std::move(t)), b);
}

/// Splits every third stored block into two duplicate blocks holding half its values each (exact:
/// the halves of integers sum back exactly), keeping block columns ascending; and adds a block of
/// zeros right of the diagonal in every fifth block row whose mirror block is not stored.
HostBsr with_duplicates_and_unmirrored_zero_blocks(const HostBsr& A) {
  HostBsr B = empty_bsr(A.num_block_rows, A.num_block_cols, A.block_size);
  const int64_t bb = int64_t{A.block_size} * A.block_size;
  std::vector<std::pair<int64_t, int64_t>> stored;
  for (int64_t I = 0; I < A.num_block_rows; ++I)
    for (int64_t k = A.row_map[I]; k < A.row_map[I + 1]; ++k) stored.push_back({I, A.entries[k]});
  auto is_stored = [&](int64_t I, int64_t J) {
    return std::binary_search(stored.begin(), stored.end(), std::pair<int64_t, int64_t>{I, J});
  };
  for (int64_t I = 0; I < A.num_block_rows; ++I) {
    std::vector<std::pair<int, std::vector<double>>> blocks;
    for (int64_t k = A.row_map[I]; k < A.row_map[I + 1]; ++k) {
      std::vector<double> v(A.values.begin() + k * bb, A.values.begin() + (k + 1) * bb);
      if (k % 3 == 0) {
        for (double& a : v) a *= 0.5;
        blocks.push_back({A.entries[k], v});
      }
      blocks.push_back({A.entries[k], v});
    }
    if (I % 5 == 1)
      for (int64_t J = I + 1; J < A.num_block_cols; ++J)
        if (!is_stored(I, J) && !is_stored(J, I)) {
          blocks.push_back({static_cast<int>(J), std::vector<double>(bb, 0.0)});
          break;
        }
    std::stable_sort(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [J, v] : blocks) {
      B.entries.push_back(J);
      B.values.insert(B.values.end(), v.begin(), v.end());
    }
    B.row_map[I + 1] = B.num_blocks();
  }
  return B;
}

int64_t block_row_length(const HostBsr& A, int64_t I) { return A.row_map[I + 1] - A.row_map[I]; }

int64_t explicit_zeros(const HostBsr& A) {
  return std::count(A.values.begin(), A.values.end(), 0.0);
}

template <class Scalar>
HostBsr rounded(HostBsr A) {
  A.values = rounded<Scalar>(std::move(A.values));
  return A;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// Calls f and checks it throws InvalidArgument whose message contains every needle.
template <class F>
::testing::AssertionResult throws_invalid_argument(F&& f, const std::vector<std::string>& needles) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    for (const std::string& n : needles)
      if (!contains(e.what(), n))
        return ::testing::AssertionFailure() << "message \"" << e.what() << "\" lacks \"" << n << "\"";
    return ::testing::AssertionSuccess() << e.what();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception type: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

// ------------------------------------------------------------------------------------------------
// Applying and checking, for one BsrMatrix type

struct Config {
  std::string name;
  BsrSpmvOptions options;
};

template <class BsrType>
struct Kit {
  using Scalar = typename BsrType::value_type;
  using Device = typename BsrType::device_type;
  using ExecSpace = typename BsrType::execution_space;
  using Vec = Kokkos::View<Scalar*, Device>;
  using MatL = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using MatR = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
  using Plan = BsrSpmvPlan<BsrType>;
  static constexpr bool host = Impl::is_host_space_v<ExecSpace>;
  static constexpr bool cuda = Impl::is_cuda_space_v<ExecSpace>;

  /// Every kernel the space runs for block size b, forced, plus automatic, Backend::native (where
  /// the space has native kernels) and Backend::portable (automatic and its kernel forced).
  static std::vector<Config> configs(int b) {
    std::vector<BsrKernel> kernels = {BsrKernel::automatic};
    if (host) kernels.insert(kernels.end(), {BsrKernel::block_row, BsrKernel::padded});
    if (cuda) {
      if (bsr_kernel_supports(BsrKernel::by_block, b)) kernels.push_back(BsrKernel::by_block);
      kernels.insert(kernels.end(), {BsrKernel::by_column, BsrKernel::row_per_thread});
    }
    std::vector<Config> out;
    for (BsrKernel k : kernels) {
      BsrSpmvOptions o;
      o.kernel = k;
      out.push_back({to_string(k), o});
    }
    if (host || cuda) {
      BsrSpmvOptions native_backend;
      native_backend.backend = Backend::native;
      out.push_back({"Backend::native", native_backend});
    }
    BsrSpmvOptions portable_backend;
    portable_backend.backend = Backend::portable;
    out.push_back({"Backend::portable", portable_backend});
    portable_backend.kernel = BsrKernel::row_per_thread;
    out.push_back({"row_per_thread, Backend::portable", portable_backend});
    // The host kernels take their parts dynamically: more parts than threads, and one per block row.
    if (host)
      for (int parts : {7, 64}) {
        BsrSpmvOptions o;
        o.host_parts = parts;
        out.push_back({"default kernel, " + std::to_string(parts) + " parts", o});
      }
    return out;
  }

  /// configs(b) with the matrix declared symmetric, plus the symmetric kernel forced with 1, 3, 7 and
  /// 64 parts (host spaces).
  static std::vector<Config> symmetric_configs(int b) {
    std::vector<Config> out = configs(b);
    for (Config& c : out) {
      c.name += ", declared symmetric";
      c.options.symmetric = true;
    }
    if (host)
      for (int parts : {0, 1, 3, 7, 64}) {
        BsrSpmvOptions o;
        o.kernel = BsrKernel::symmetric;
        o.symmetric = true;
        o.host_parts = parts;
        out.push_back({"symmetric, " + std::to_string(parts) + " parts", o});
      }
    return out;
  }

  /// The kernel a plan must run for these options and block size.
  static BsrKernel expected_kernel(const BsrSpmvOptions& o, int b) {
    if (o.backend == Backend::portable) return BsrKernel::row_per_thread;
    // The test matrices are far below bsr_symmetric_min_bytes: a symmetric declaration keeps the
    // default kernel (SymmetricAutomaticChoiceFollowsSize covers the large case).
    if (o.kernel == BsrKernel::automatic) return bsr_default_kernel(cuda, host, b);
    return o.kernel;
  }

  /// y = alpha op(A) x + beta y through the plan, against the reference on A (the CSR holding the
  /// plan's matrix, rounded to Scalar). beta == 0 poisons y with NaN first; alpha == 0 poisons x
  /// (neither may be read).
  static ::testing::AssertionResult check(const Plan& plan, const HostCsr& A, const std::string& mode,
                                          double alpha, double beta, uint64_t salt) {
    const int64_t in = mode == "N" ? A.num_cols : A.num_rows, out = mode == "N" ? A.num_rows : A.num_cols;
    const std::vector<double> x =
        alpha == 0 ? std::vector<double>(in, kNaN) : rounded<Scalar>(test::random_vector(in, salt));
    const std::vector<double> y0 =
        beta == 0 ? std::vector<double>(out, kNaN) : rounded<Scalar>(test::random_vector(out, salt + 1));
    const Vec xv = test::to_view<Vec>(x, "x"), yv = test::to_view<Vec>(y0, "y");
    plan.apply(mode.c_str(), static_cast<Scalar>(alpha), xv, static_cast<Scalar>(beta), yv);
    return test::spmv_matches<Scalar>(mode, alpha, A, x, beta, y0, test::to_host_vector(yv));
  }

  /// The same with k columns in a rank-2 View of type Mat.
  template <class Mat>
  static ::testing::AssertionResult check_multi(const Plan& plan, const HostCsr& A, const std::string& mode,
                                                int64_t k, double alpha, double beta, uint64_t salt) {
    const int64_t in = mode == "N" ? A.num_cols : A.num_rows, out = mode == "N" ? A.num_rows : A.num_cols;
    const HostDense X = alpha == 0 ? HostDense(in, k, kNaN) : rounded<Scalar>(test::random_dense(in, k, salt));
    const HostDense Y0 = beta == 0 ? HostDense(out, k, kNaN) : rounded<Scalar>(test::random_dense(out, k, salt + 1));
    const Mat xv = test::to_view<Mat>(X, "X"), yv = test::to_view<Mat>(Y0, "Y");
    plan.apply(mode.c_str(), static_cast<Scalar>(alpha), xv, static_cast<Scalar>(beta), yv);
    return test::spmm_matches<Scalar>(mode, alpha, A, X, beta, Y0, test::to_host_dense(yv));
  }

  /// Every configuration of configs(b), modes N and T, (alpha, beta) = (1.5, 0) with y poisoned
  /// and (-0.5, 0.75) with y random, rank 1 and rank 2 (LayoutLeft and LayoutRight, 3 columns).
  static void run_configs(const HostBsr& A0, const std::string& what, uint64_t salt) {
    run_configs(A0, configs(A0.block_size), what, salt);
  }
  static void run_configs(const HostBsr& A0, const std::vector<Config>& list, const std::string& what, uint64_t salt) {
    const HostBsr A = rounded<Scalar>(A0);
    const HostCsr csr = host_bsr_to_csr(A);  // explicit zeros kept: the same products
    const BsrType a = to_bsr<BsrType>(A);
    ASSERT_EQ(int64_t{a.numRows()}, csr.num_rows);
    ASSERT_EQ(int64_t{a.numCols()}, csr.num_cols);
    for (const Config& c : list) {
      const Plan plan(a, c.options);
      EXPECT_EQ(plan.kernel(), expected_kernel(c.options, A.block_size)) << c.name << ", " << what;
      for (const char* mode : {"N", "T"})
        for (const auto& [alpha_, beta_] : {std::pair{1.5, 0.0}, std::pair{-0.5, 0.75}}) {
          const double alpha = alpha_, beta = beta_;  // lambdas capturing structured bindings are C++20
          const auto context = [&] {
            return c.name + ", mode " + mode + ", alpha " + std::to_string(alpha) + ", beta " +
                   std::to_string(beta) + ", " + what + ", b = " + std::to_string(A.block_size) + "\n" +
                   plan.describe();
          };
          EXPECT_TRUE(check(plan, csr, mode, alpha, beta, salt += 2)) << context();
          EXPECT_TRUE(check_multi<MatL>(plan, csr, mode, 3, alpha, beta, salt += 2)) << "LayoutLeft, " << context();
          EXPECT_TRUE(check_multi<MatR>(plan, csr, mode, 3, alpha, beta, salt += 2)) << "LayoutRight, " << context();
        }
    }
  }
};

/// The shared matrices, loaded once per process.
const HostCsr& shared_matrix(const std::string& name) {
  static std::map<std::string, HostCsr> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, load_matrix(std::string(SPROCKET_SHARED_MATRICES) + "/" + name + ".mtx.gz")).first;
  return it->second;
}

}  // namespace

// ================================================================================================
// Typed tests: every (Scalar, Offset) on every enabled execution space

template <class BsrType>
class BsrSpmv : public ::testing::Test {};
TYPED_TEST_SUITE(BsrSpmv, BsrTypes);

TYPED_TEST(BsrSpmv, EveryKernelEveryBlockSize) {
  using K = Kit<TypeParam>;
  uint64_t salt = 100;
  for (int b : kBlockSizes) {
    // 13 x 9 blocks, empty block rows 0, 2, 6, 10 and 12 (the first and the last).
    const HostBsr A = empty_block_rows_unless(random_bsr(13, 9, b, 3.0, 10 + b),
                                              [](int64_t I) { return I % 4 != 2 && I != 0 && I != 12; });
    // 5 x 20 blocks, empty block rows 0 and 4 (the first and the last).
    const HostBsr W = empty_block_rows_unless(random_bsr(5, 20, b, 6.0, 50 + b),
                                              [](int64_t I) { return I != 0 && I != 4; });
    for (const HostBsr* M : {&A, &W}) {
      ASSERT_EQ(block_row_length(*M, 0), 0);
      ASSERT_EQ(block_row_length(*M, M->num_block_rows - 1), 0);
      ASSERT_GT(M->num_blocks(), 2);
      if (b > 1) {  // partially filled blocks: the conversion zero-filled them
        ASSERT_GT(explicit_zeros(*M), 0);
      }
    }
    K::run_configs(A, "13 x 9 blocks with empty block rows", salt += 1000);
    K::run_configs(W, "5 x 20 blocks with empty first and last block rows", salt += 1000);
  }
}

// Larger matrices for the host partition (block rows balanced by stored blocks): one heavy block
// row among short ones with a run of 17 empty block rows, and a denser random pattern.
TYPED_TEST(BsrSpmv, ManyBlockRowsAndOneHeavyBlockRow) {
  using K = Kit<TypeParam>;
  uint64_t salt = 20000;
  for (int b : {1, 3, 8, 9}) {
    const HostBsr H = one_heavy_block_row(120, 90, b, 200 + b);
    ASSERT_EQ(block_row_length(H, 0), 90);
    K::run_configs(H, "120 x 90 blocks, one heavy block row", salt += 1000);
    const HostBsr R = empty_block_rows_unless(random_bsr(150, 110, b, 7.0, 300 + b),
                                              [](int64_t I) { return I % 7 != 0 && (I < 60 || I > 75); });
    K::run_configs(R, "150 x 110 blocks with runs of empty block rows", salt += 1000);
  }
}

TYPED_TEST(BsrSpmv, AlphaZeroOnlyScalesY) {
  using K = Kit<TypeParam>;
  uint64_t salt = 30000;
  for (int b : {2, 11}) {
    const HostBsr A = rounded<typename K::Scalar>(random_bsr(9, 7, b, 3.0, 400 + b));
    const HostCsr csr = host_bsr_to_csr(A);
    const TypeParam a = to_bsr<TypeParam>(A);
    for (const Config& c : K::configs(b)) {
      const typename K::Plan plan(a, c.options);
      for (const char* mode : {"N", "T"})
        for (double beta : {0.0, 0.75, 1.0}) {  // x is NaN: must not be read; beta == 0: y NaN too
          EXPECT_TRUE(K::check(plan, csr, mode, 0.0, beta, salt += 2))
              << c.name << ", b = " << b << ", mode " << mode << ", beta " << beta;
          EXPECT_TRUE(K::template check_multi<typename K::MatR>(plan, csr, mode, 3, 0.0, beta, salt += 2))
              << c.name << ", b = " << b << ", rank 2, mode " << mode << ", beta " << beta;
        }
    }
  }
}

TYPED_TEST(BsrSpmv, EmptyAndOneBlockMatrices) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  uint64_t salt = 40000;
  // No stored blocks: 0 x 0, 0 x 5, 5 x 0 and 5 x 7 blocks of 3 x 3. y = beta y (zeros for beta
  // == 0 over a NaN-poisoned y).
  for (const auto& [rows, cols] : {std::pair{0, 0}, std::pair{0, 5}, std::pair{5, 0}, std::pair{5, 7}})
    K::run_configs(empty_bsr(rows, cols, 3), std::to_string(rows) + " x " + std::to_string(cols) + " empty",
                   salt += 1000);
  // A default-constructed BsrMatrix is the 0 x 0 matrix (its row map is empty, not {0}).
  for (const Config& c : K::configs(1)) {
    const typename K::Plan plan{TypeParam(), c.options};
    typename K::Vec x("x", 0), y("y", 0);
    EXPECT_NO_THROW(plan.apply("N", Scalar(1), x, Scalar(0), y)) << c.name;
    EXPECT_NO_THROW(plan.apply("T", Scalar(1), x, Scalar(0), y)) << c.name;
  }
  // 1 x 1 block matrices: a single dense block.
  for (int b : {1, 2, 5, 8, 9, 16, 32}) K::run_configs(one_block(b, 500 + b), "1 x 1 block", salt += 1000);
}

// padded multiplies by a private padded copy of A's values, documented as a snapshot
// (Sprocket_BsrSpmv.hpp: "after changing A's values call update_values(A)"). This test checks that
// documented behaviour: after new values are deep_copy'd into A.values, both modes of a padded
// plan still multiply by the old values until update_values(A), and by the new ones after it;
// every other kernel reads A's values and sees the new ones at once (update_values(A) then only
// checks the pattern).
TYPED_TEST(BsrSpmv, ValueUpdatesAndHostPaddedSnapshot) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  uint64_t salt = 50000;
  for (int b : {1, 3, 8, 11}) {
    const HostBsr A = rounded<Scalar>(random_bsr(17, 15, b, 3.0, 600 + b));
    HostBsr B = A;
    B.values = rounded<Scalar>(test::random_vector(static_cast<int64_t>(A.values.size()), 700 + b));
    const HostCsr csr_a = host_bsr_to_csr(A), csr_b = host_bsr_to_csr(B);
    for (const Config& c : K::configs(b)) {
      TypeParam a = to_bsr<TypeParam>(A);
      typename K::Plan plan(a, c.options);
      const std::string what = c.name + ", b = " + std::to_string(b);
      EXPECT_TRUE(K::check(plan, csr_a, "N", 1.5, 0.0, salt += 2)) << what;
      Kokkos::deep_copy(a.values, test::to_view<typename TypeParam::values_type>(B.values));
      if (plan.kernel() == BsrKernel::padded) {
        // The padded copy is a snapshot, in both modes, until update_values(A).
        EXPECT_TRUE(K::check(plan, csr_a, "N", 1.5, 0.0, salt += 2)) << what << ": the padded copy is a snapshot";
        EXPECT_TRUE(K::check(plan, csr_a, "N", -0.5, 0.75, salt += 2)) << what << ": the padded copy is a snapshot";
        EXPECT_TRUE(K::check(plan, csr_a, "T", -0.5, 0.75, salt += 2)) << what << ": mode T reads the same snapshot";
        plan.update_values(a);
      }
      EXPECT_TRUE(K::check(plan, csr_b, "N", 1.5, 0.0, salt += 2)) << what << ", after a value update";
      EXPECT_TRUE(K::check(plan, csr_b, "N", -0.5, 0.75, salt += 2)) << what << ", after a value update";
      EXPECT_TRUE(K::template check_multi<typename K::MatR>(plan, csr_b, "N", 3, 1.5, 0.0, salt += 2))
          << what << ", after a value update";
      EXPECT_TRUE(K::check(plan, csr_b, "T", -0.5, 0.75, salt += 2)) << what << ", after a value update";
      plan.update_values(a);  // a check only for the other kernels; a refresh for padded
      EXPECT_TRUE(K::check(plan, csr_b, "N", 1.5, 0.0, salt += 2)) << what << ", after update_values(A)";
    }
  }
}

TYPED_TEST(BsrSpmv, KernelTheSpaceCannotRunOrBlockSizeItCannotTakeThrows) {
  using K = Kit<TypeParam>;
  const std::string space = K::ExecSpace::name();
  for (int b : {2, 11}) {
    const TypeParam a = to_bsr<TypeParam>(random_bsr(6, 5, b, 2.0, 800 + b));
    BsrSpmvOptions o;
    // The CUDA kernels: Backend::native (automatic) on Kokkos::Cuda; elsewhere the resolved
    // backend lacks them and the message names kernel, backend and space. row_per_thread is also
    // the portable backend's kernel, covered below.
    for (BsrKernel k : {BsrKernel::by_block, BsrKernel::by_column, BsrKernel::row_per_thread}) {
      o.kernel = k;
      if (K::cuda) {
        if (bsr_kernel_supports(k, b)) {
          EXPECT_NO_THROW(typename K::Plan(a, o)) << to_string(k) << ", b = " << b;
        } else {
          EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); },
                                              {to_string(k), "does not support block size " + std::to_string(b)}));
        }
      } else {
        const std::string backend = K::host ? "backend native" : "backend portable";
        if (!K::host && k == BsrKernel::row_per_thread) {
          EXPECT_EQ(typename K::Plan(a, o).kernel(), k) << "b = " << b;
        } else {
          EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); },
                                              {std::string("kernel ") + to_string(k), backend, space}))
              << "b = " << b;
        }
      }
    }
    // The host kernels: Backend::native (automatic) on host spaces only.
    for (BsrKernel k : {BsrKernel::block_row, BsrKernel::padded}) {
      o.kernel = k;
      if (K::host) {
        EXPECT_NO_THROW(typename K::Plan(a, o)) << to_string(k) << ", b = " << b;
        o.backend = Backend::native;
        EXPECT_EQ(typename K::Plan(a, o).kernel(), k) << to_string(k) << ", b = " << b;
        EXPECT_EQ(typename K::Plan(a, o).backend(), Backend::native);
        o.backend = Backend::automatic;
      } else {
        EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); },
                                            {std::string("kernel ") + to_string(k), "backend ", space}))
            << "b = " << b;
      }
    }
    // Backend::portable has row_per_thread only; forcing another kernel with it throws naming
    // kernel, backend and space.
    o.backend = Backend::portable;
    o.kernel = BsrKernel::block_row;
    EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); },
                                        {"kernel block_row is not a kernel of backend portable", space,
                                         "its kernels: row_per_thread"}));
    o.kernel = BsrKernel::row_per_thread;
    EXPECT_EQ(typename K::Plan(a, o).kernel(), BsrKernel::row_per_thread);
    EXPECT_EQ(typename K::Plan(a, o).backend(), Backend::portable);
    // Backend::native: works where the space has native kernels, throws elsewhere.
    o.backend = Backend::native;
    o.kernel = BsrKernel::automatic;
    if (K::host || K::cuda) {
      EXPECT_EQ(typename K::Plan(a, o).backend(), Backend::native);
      EXPECT_EQ(typename K::Plan(a, o).kernel(), bsr_default_kernel(K::cuda, K::host, b));
      // The other family's kernel under Backend::native throws too.
      o.kernel = K::host ? BsrKernel::by_column : BsrKernel::block_row;
      EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); },
                                          {std::string("kernel ") + to_string(o.kernel),
                                           "is not a kernel of backend native", space}));
    } else {
      EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); },
                                          {"Backend::native", space, "has no native BSR SpMV kernels"}));
    }
  }
  // by_block's lane mapping limit: b <= 8 only (checked on CUDA; elsewhere the backend check
  // comes first).
  if (K::cuda) {
    BsrSpmvOptions o;
    o.kernel = BsrKernel::by_block;
    EXPECT_NO_THROW(typename K::Plan(to_bsr<TypeParam>(one_block(8, 900)), o));
    for (int b : {9, 16, 17, 32})
      EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(to_bsr<TypeParam>(one_block(b, 900)), o); },
                                          {"by_block", "does not support block size " + std::to_string(b)}));
  }
}

TYPED_TEST(BsrSpmv, BadArgumentsThrowClearly) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  using Vec = typename K::Vec;
  using MatL = typename K::MatL;
  // 4 x 3 blocks of 2 x 2: 8 x 6 scalars.
  const TypeParam a = to_bsr<TypeParam>(random_bsr(4, 3, 2, 2.0, 1000));
  for (const Config& c : K::configs(2)) {
    const typename K::Plan plan(a, c.options);
    const Vec x6("x", 6), x7("x", 7), y8("y", 8), y9("y", 9);
    EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("N", Scalar(1), x7, Scalar(0), y8); },
                                        {"8 x 6", "x has 7 rows", "y has 8"}))
        << c.name;
    EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("N", Scalar(1), x6, Scalar(0), y9); },
                                        {"8 x 6", "x has 6 rows", "y has 9"}))
        << c.name;
    // Mode T wants x of 8 and y of 6.
    EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("T", Scalar(1), x6, Scalar(0), y8); },
                                        {"6 x 8", "mode T", "x has 6 rows", "y has 8"}))
        << c.name;
    EXPECT_NO_THROW(plan.apply("T", Scalar(1), y8, Scalar(0), x6)) << c.name;
    const MatL X3("X", 6, 3), Y2("Y", 8, 2), Y3("Y", 8, 3);
    EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("N", Scalar(1), X3, Scalar(0), Y2); },
                                        {"x has 3 columns but y has 2"}))
        << c.name;
    EXPECT_NO_THROW(plan.apply("N", Scalar(1), X3, Scalar(0), Y3)) << c.name;
    for (const char* mode : {"X", "", "NT", "C", "H"})
      EXPECT_TRUE(throws_invalid_argument([&] { plan.apply(mode, Scalar(1), x6, Scalar(0), y8); },
                                          {std::string("\"") + mode + "\"", "\"N\" or \"T\""}))
          << c.name << ", mode \"" << mode << "\"";
    EXPECT_NO_THROW(plan.apply("n", Scalar(1), x6, Scalar(0), y8)) << c.name;
  }
}

// Matrices declared symmetric: every kernel with the declaration (mode T then runs the mode N
// kernel), symmetric with 1 to 64 parts. The arrow's block row 0 reaches every block column,
// so with several parts every part spills into every later one; empty block rows/columns, duplicate
// blocks and an unmirrored zero block are in the others.
TYPED_TEST(BsrSpmv, SymmetricMatricesEveryKernel) {
  using K = Kit<TypeParam>;
  uint64_t salt = 70000;
  for (int b : kBlockSizes) {
    const HostBsr S = random_symmetric_bsr(29, b, 5.0, 70 + b, [](int64_t I) { return I % 6 != 2 && I != 0 && I != 28; });
    ASSERT_EQ(block_row_length(S, 0), 0);
    ASSERT_EQ(block_row_length(S, 28), 0);
    ASSERT_GT(S.num_blocks(), 29);
    K::run_configs(S, K::symmetric_configs(b), "29 x 29 symmetric blocks with empty block rows", salt += 1000);
    K::run_configs(symmetric_arrow(23, b, 90 + b), K::symmetric_configs(b), "23 x 23 symmetric arrow", salt += 1000);
    const HostBsr D = with_duplicates_and_unmirrored_zero_blocks(S);
    ASSERT_GT(D.num_blocks(), S.num_blocks());
    K::run_configs(D, K::symmetric_configs(b), "symmetric with duplicate blocks and unmirrored zero blocks",
                   salt += 1000);
  }
  // The empty, one-block and 0 x 0 matrices.
  K::run_configs(empty_bsr(5, 5, 3), K::symmetric_configs(3), "5 x 5 empty", salt += 1000);
  for (int b : {1, 4}) {
    HostBsr one = one_block(b, 95 + b);
    for (int r = 0; r < b; ++r)
      for (int c = 0; c < r; ++c) one.values[c * b + r] = one.values[r * b + c];
    K::run_configs(one, K::symmetric_configs(b), "1 x 1 symmetric block", salt += 1000);
  }
  for (const Config& c : K::symmetric_configs(1)) {
    const typename K::Plan plan{TypeParam(), c.options};
    typename K::Vec x("x", 0), y("y", 0);
    EXPECT_NO_THROW(plan.apply("N", typename K::Scalar(1), x, typename K::Scalar(0), y)) << c.name;
  }
}

// The automatic kernel for a matrix declared symmetric: symmetric on host spaces from
// bsr_symmetric_min_bytes of values (an elasticity matrix just above it), the default kernel
// below (a few blocks) and on CUDA; mode N and T on the large one against the reference.
TYPED_TEST(BsrSpmv, SymmetricAutomaticChoiceFollowsSize) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  BsrSpmvOptions sym;
  sym.symmetric = true;
  const HostBsr small = random_symmetric_bsr(12, 3, 4.0, 1500, [](int64_t) { return true; });
  const typename K::Plan small_plan(to_bsr<TypeParam>(small), sym);
  EXPECT_EQ(small_plan.kernel(), bsr_default_kernel(K::cuda, K::host, 3));
  if (K::host)  // the reason names the size and the threshold
    EXPECT_TRUE(contains(small_plan.describe(), "; declared symmetric but values ") &&
                contains(small_plan.describe(), " kB < 16 MiB: block_row"))
        << small_plan.describe();
  // elasticity3d(n, 3) stores 243 scalars per interior node: n = 22 (float: 28) passes 16 MiB.
  const int n = sizeof(Scalar) == 8 ? 22 : 28;
  const HostCsr E = rounded<Scalar>(gen::elasticity3d(n, 3, test::seed_for(1501)));
  const TypeParam a = to_bsr<TypeParam>(csr_to_host_bsr(E, 3));
  ASSERT_GE(int64_t(a.values.extent(0)) * int64_t(sizeof(Scalar)), bsr_symmetric_min_bytes);
  const typename K::Plan plan(a, sym);
  EXPECT_EQ(plan.kernel(), K::host ? BsrKernel::symmetric : bsr_default_kernel(K::cuda, K::host, 3))
      << plan.describe();
  EXPECT_TRUE(contains(plan.describe(), K::host ? "automatic for a host space; block size 3"
                                                : K::cuda ? "automatic for a CUDA space; block size 3"
                                                          : "automatic: the portable backend's one kernel"))
      << plan.describe();
  if (K::host)
    EXPECT_TRUE(contains(plan.describe(), " MB >= bsr_symmetric_min_bytes (16 MiB): symmetric")) << plan.describe();
  EXPECT_TRUE(K::check(plan, E, "N", 1.5, 0.0, 1502)) << plan.describe();
  EXPECT_TRUE(K::check(plan, E, "T", -0.5, 0.75, 1503)) << plan.describe();
}

// The promise is checked: the first entry that differs from its mirror is named; non-square,
// unsorted block columns, an unmirrored non-zero block, symmetric without the declaration,
// symmetric on CUDA, a negative host_parts; update_values(A) checks again.
TYPED_TEST(BsrSpmv, SymmetricPromiseIsChecked) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const std::string space = K::ExecSpace::name();
  BsrSpmvOptions sym;
  sym.symmetric = true;
  // Non-square.
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(to_bsr<TypeParam>(random_bsr(6, 5, 2, 2.0, 1400)), sym); },
                                      {"symmetric", "square", "6 x 5 blocks"}));
  const HostBsr S = rounded<Scalar>(random_symmetric_bsr(12, 3, 4.0, 1410, [](int64_t) { return true; }));
  EXPECT_NO_THROW(typename K::Plan(to_bsr<TypeParam>(S), sym));
  // One entry off: block row I's first block right of the diagonal, entry (1, 2).
  int64_t k = -1, I = 0;
  for (; I < S.num_block_rows && k < 0; ++I)
    for (int64_t q = S.row_map[I]; q < S.row_map[I + 1]; ++q)
      if (S.entries[q] > I) {
        k = q;
        break;
      }
  ASSERT_GE(k, 0);
  --I;
  const int64_t J = S.entries[k];
  HostBsr P = S;
  P.values[k * 9 + 1 * 3 + 2] += 1;
  const std::string where = "A(" + std::to_string(I * 3 + 1) + ", " + std::to_string(J * 3 + 2) + ")";
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(to_bsr<TypeParam>(P), sym); },
                                      {"BsrSpmvOptions::symmetric promises A == A^T", where}));
  // A non-zero block without a mirror (the upper one dropped, the lower one kept).
  HostBsr M = empty_bsr(2, 2, 2);
  M.entries = {0, 0, 1};
  M.row_map = {0, 1, 3};
  M.values = {1, 0, 0, 1, /* (1, 0) */ 0, 0, 5, 0, /* (1, 1) */ 1, 0, 0, 1};
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(to_bsr<TypeParam>(M), sym); },
                                      {"A(3, 0) = 5", "block not stored"}));
  // Unsorted block columns.
  HostBsr U = empty_bsr(2, 2, 1);
  U.entries = {1, 0, 0};
  U.row_map = {0, 2, 3};
  U.values = {2, 1, 2};
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(to_bsr<TypeParam>(U), sym); },
                                      {"ascending block columns", "block row 0 has block column 0 after 1"}));
  // The symmetric kernel needs the declaration, and a host space.
  BsrSpmvOptions forced;
  forced.kernel = BsrKernel::symmetric;
  if (K::host)
    EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(to_bsr<TypeParam>(S), forced); },
                                        {"kernel symmetric needs BsrSpmvOptions::symmetric = true"}));
  forced.symmetric = true;
  if (K::host)
    EXPECT_EQ(typename K::Plan(to_bsr<TypeParam>(S), forced).kernel(), BsrKernel::symmetric);
  else
    EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(to_bsr<TypeParam>(S), forced); },
                                        {"kernel symmetric is not a kernel of backend", space}));
  BsrSpmvOptions negative;
  negative.host_parts = -1;
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(to_bsr<TypeParam>(S), negative); },
                                      {"host_parts = -1"}));
  // update_values(A) after an in-place change: a symmetric one is followed; an asymmetric one throws.
  for (const Config& c : K::symmetric_configs(3)) {
    TypeParam a = to_bsr<TypeParam>(S);
    typename K::Plan plan(a, c.options);
    HostBsr S2 = S;
    for (double& v : S2.values) v = -2 * v + (v == 0 ? 0 : 1);  // still symmetric, different values
    Kokkos::deep_copy(a.values, test::to_view<typename TypeParam::values_type>(rounded<Scalar>(S2).values));
    if (plan.kernel() == BsrKernel::symmetric)  // its packed copy is a snapshot
      EXPECT_TRUE(K::check(plan, host_bsr_to_csr(S), "N", 1.5, 0.0, 1419)) << c.name << ": the packed copy is a snapshot";
    EXPECT_NO_THROW(plan.update_values(a)) << c.name;
    EXPECT_TRUE(K::check(plan, host_bsr_to_csr(rounded<Scalar>(S2)), "N", 1.5, 0.0, 1420)) << c.name;
    EXPECT_TRUE(K::check(plan, host_bsr_to_csr(rounded<Scalar>(S2)), "T", -0.5, 0.75, 1421)) << c.name;
    Kokkos::deep_copy(a.values, test::to_view<typename TypeParam::values_type>(rounded<Scalar>(P).values));
    EXPECT_TRUE(throws_invalid_argument([&] { plan.update_values(a); }, {"BsrSpmvPlan::update_values", where}))
        << c.name;
  }
  // A refused update_values(A) leaves the plan as it was: A here is another matrix (asymmetric
  // values), so the plan's own still hold the symmetric ones, in both modes.
  for (const Config& c : K::symmetric_configs(3)) {
    const TypeParam a = to_bsr<TypeParam>(S);
    typename K::Plan plan(a, c.options);
    const TypeParam asymmetric = to_bsr<TypeParam>(P);
    EXPECT_TRUE(throws_invalid_argument([&] { plan.update_values(asymmetric); }, {"BsrSpmvPlan::update_values", where}))
        << c.name;
    EXPECT_TRUE(K::check(plan, host_bsr_to_csr(S), "N", 1.5, 0.0, 1422)) << c.name << ": unchanged after a refused update";
    EXPECT_TRUE(K::check(plan, host_bsr_to_csr(S), "T", -0.5, 0.75, 1423)) << c.name << ": unchanged after a refused update";
  }
}

TYPED_TEST(BsrSpmv, DescribeNamesTheKernel) {
  using K = Kit<TypeParam>;
  const TypeParam a = to_bsr<TypeParam>(random_bsr(6, 4, 3, 2.0, 1100));
  const std::string scalar = std::is_same_v<typename K::Scalar, float> ? "float" : "double";
  for (const Config& c : K::configs(3)) {
    const typename K::Plan plan(a, c.options);
    const std::string d = plan.describe();
    EXPECT_TRUE(contains(d, "BsrSpmvPlan<" + scalar + ">")) << d;
    EXPECT_TRUE(contains(d, K::ExecSpace::name())) << d;
    EXPECT_TRUE(contains(d, "6 x 4 blocks of 3x3")) << d;
    EXPECT_TRUE(contains(d, std::string("kernel ") + to_string(plan.kernel()))) << d;
    EXPECT_TRUE(contains(d, std::string(", backend ") + to_string(plan.backend()))) << d;
    // Why: forced or automatic (and for which space), and which backend option asked.
    const char* automatic_why = plan.backend() == Backend::portable ? "automatic: the portable backend's one kernel"
                                : K::host                           ? "automatic for a host space; block size 3"
                                                                    : "automatic for a CUDA space; block size 3";
    EXPECT_TRUE(contains(d, c.options.kernel == BsrKernel::automatic ? automatic_why : "forced by BsrSpmvOptions::kernel"))
        << c.name << "\n" << d;
    if (c.options.backend == Backend::portable) {
      EXPECT_EQ(plan.backend(), Backend::portable) << d;
      EXPECT_TRUE(contains(d, "kernel row_per_thread, backend portable: ")) << d;
      EXPECT_TRUE(contains(d, "; Backend::portable")) << d;
      if (c.options.kernel == BsrKernel::automatic)
        EXPECT_TRUE(contains(d, "automatic: the portable backend's one kernel; Backend::portable")) << d;
    }
    if (c.options.backend == Backend::native) EXPECT_TRUE(contains(d, "; Backend::native")) << d;
    if (plan.backend() == Backend::native)
      EXPECT_TRUE(contains(d, K::host ? "backend native (host): " : "backend native (CUDA): ")) << d;
    if (K::host && c.options.kernel == BsrKernel::automatic && c.options.backend != Backend::portable)
      EXPECT_TRUE(contains(d, "kernel block_row, backend native (host): automatic for a host space; block size 3"))
          << d;
    if (plan.kernel() == BsrKernel::padded) EXPECT_TRUE(contains(d, "padded to 8 scalars")) << d;
    EXPECT_TRUE(contains(d, "mode T: atomic scatter")) << d;
    EXPECT_EQ(plan.matrix().values.data(), a.values.data()) << "the plan must keep A's Views";
  }
  const HostBsr S = random_symmetric_bsr(8, 3, 4.0, 1110, [](int64_t) { return true; });
  int64_t upper_blocks = 0;
  for (int64_t I = 0; I < S.num_block_rows; ++I)
    for (int64_t k = S.row_map[I]; k < S.row_map[I + 1]; ++k) upper_blocks += S.entries[k] >= I;
  for (const Config& c : K::symmetric_configs(3)) {
    const typename K::Plan plan(to_bsr<TypeParam>(S), c.options);
    const std::string d = plan.describe();
    EXPECT_TRUE(contains(d, "declared symmetric (checked at analysis): mode T runs the mode N kernel")) << d;
    if (plan.kernel() == BsrKernel::symmetric)
      EXPECT_TRUE(contains(d, "reads a packed copy of the diagonal and upper blocks only: " + std::to_string(upper_blocks) + " of " +
                                  std::to_string(S.num_blocks()) + " stored blocks"))
          << d;
    if (c.options.host_parts > 0) EXPECT_TRUE(contains(d, std::to_string(c.options.host_parts) + " host parts")) << d;
  }
}

// bcsstk12 and bcsstk16 (stiffness matrices with node blocks): block size detection (with the
// type's value and offset sizes), conversion, the automatic plan, against the reference on the
// matrix as read (not the converted one) and against reference::bsr_spmv.
TYPED_TEST(BsrSpmv, SharedStiffnessMatricesThroughDetection) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const std::filesystem::path folder = SPROCKET_SHARED_MATRICES;
  if (!std::filesystem::is_directory(folder)) {
    if (std::getenv("SPROCKET_ALLOW_MISSING_SHARED") != nullptr)
      GTEST_SKIP() << folder << " is missing (allowed by SPROCKET_ALLOW_MISSING_SHARED)";
    FAIL() << "shared matrix folder " << folder << " is missing";
  }
  uint64_t salt = 60000;
  for (const char* name : {"bcsstk12", "bcsstk16"}) {
    const HostCsr A = rounded<Scalar>(shared_matrix(name));
    const int b = detect_block_size(A, 16, sizeof(Scalar), sizeof(int), sizeof(typename TypeParam::size_type));
    EXPECT_GT(b, 1) << name << " is a stiffness matrix with node blocks";
    BsrConversionInfo info;
    const HostBsr bsr = csr_to_host_bsr(A, b, &info);
    EXPECT_EQ(info.csr_nnz, A.nnz());
    const TypeParam a = to_bsr<TypeParam>(bsr);
    const typename K::Plan plan(a);
    EXPECT_EQ(plan.kernel(), bsr_default_kernel(K::cuda, K::host, b)) << plan.describe();
    for (const char* mode : {"N", "T"})
      for (const auto& [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{-0.5, 0.75}}) {
        const std::string what = std::string(name) + ", b = " + std::to_string(b) + ", mode " + mode;
        EXPECT_TRUE(K::check(plan, A, mode, alpha, beta, salt += 2)) << what << "\n" << plan.describe();
        EXPECT_TRUE(K::template check_multi<typename K::MatL>(plan, A, mode, 3, alpha, beta, salt += 2)) << what;
      }
    // The BSR oracle agrees with the plan too.
    const std::vector<double> x = rounded<Scalar>(test::random_vector(A.num_cols, salt += 2));
    std::vector<double> y_ref(A.num_rows, kNaN);
    reference::bsr_spmv("N", 2.0, bsr, x, 0.0, y_ref);
    const typename K::Vec xv = test::to_view<typename K::Vec>(x), yv("y", A.num_rows);
    test::poison(yv);
    plan.apply("N", Scalar(2), xv, Scalar(0), yv);
    const std::vector<double> y = test::to_host_vector(yv);
    EXPECT_TRUE(test::spmv_matches<Scalar>("N", 2.0, A, x, 0.0, std::vector<double>(A.num_rows, kNaN), y_ref))
        << name << ": reference::bsr_spmv";
    EXPECT_TRUE(test::spmv_matches<Scalar>("N", 2.0, A, x, 0.0, std::vector<double>(A.num_rows, kNaN), y)) << name;
  }
}

// ================================================================================================
// Non-typed: names, defaults, limits, the execution-space-instance overload

TEST(BsrSpmvKernelNames, RoundTripAndUnknownNameListsValidOnes) {
  for (int k = 0; k < num_bsr_kernels; ++k) {
    const auto kernel = static_cast<BsrKernel>(k);
    EXPECT_EQ(bsr_kernel_from_string(to_string(kernel)), kernel);
  }
  EXPECT_EQ(bsr_kernel_from_string("auto"), BsrKernel::automatic);
  EXPECT_EQ(bsr_kernel_from_string("automatic"), BsrKernel::automatic);
  EXPECT_STREQ(to_string(BsrKernel::automatic), "automatic");
  std::vector<std::string> needles = {"\"nope\"", "auto"};
  for (int k = 0; k < num_bsr_kernels; ++k) needles.push_back(to_string(static_cast<BsrKernel>(k)));
  EXPECT_TRUE(throws_invalid_argument([] { bsr_kernel_from_string("nope"); }, needles));
  needles[0] = "\"\"";  // the empty name, quoted
  EXPECT_TRUE(throws_invalid_argument([] { bsr_kernel_from_string(""); }, needles));
}

// The names say what a kernel does, never the backend; the pre-issue-14 names are gone.
TEST(BsrSpmvKernelNames, NamesAndTheBackendsThatHaveThem) {
  const std::vector<std::string> names = {"block_row", "padded", "symmetric", "by_block", "by_column", "row_per_thread"};
  ASSERT_EQ(int(names.size()), num_bsr_kernels);
  for (int k = 0; k < num_bsr_kernels; ++k) EXPECT_EQ(to_string(static_cast<BsrKernel>(k)), names[k]);
  for (const char* old : {"host_block_row", "host_symmetric", "cuda_by_block", "portable"})
    EXPECT_TRUE(throws_invalid_argument([&] { bsr_kernel_from_string(old); }, {"block_row", "row_per_thread"})) << old;
  for (int k = 0; k < num_bsr_kernels; ++k) {
    const auto kernel = static_cast<BsrKernel>(k);
    const bool host_kernel = k <= 2, cuda_kernel = k >= 3;
    // (backend, cuda, host)
    EXPECT_EQ(bsr_backend_has_kernel(Backend::native, false, true, kernel), host_kernel) << names[k];
    EXPECT_EQ(bsr_backend_has_kernel(Backend::native, true, false, kernel), cuda_kernel) << names[k];
    EXPECT_FALSE(bsr_backend_has_kernel(Backend::native, false, false, kernel)) << names[k];
    for (auto [cuda, host] : {std::pair{false, true}, std::pair{true, false}, std::pair{false, false}})
      EXPECT_EQ(bsr_backend_has_kernel(Backend::portable, cuda, host, kernel), kernel == BsrKernel::row_per_thread)
          << names[k];
    EXPECT_EQ(bsr_backend_has_kernel(Backend::automatic, false, true, kernel), host_kernel) << names[k];
    EXPECT_EQ(bsr_backend_has_kernel(Backend::automatic, true, false, kernel), cuda_kernel) << names[k];
    EXPECT_EQ(bsr_backend_has_kernel(Backend::automatic, false, false, kernel), kernel == BsrKernel::row_per_thread)
        << names[k];
  }
}

// The reasons describe() prints, from the analysis's choice, for sizes the tests cannot allocate.
TEST(BsrSpmvKernelNames, ChoiceSaysWhy) {
  Impl::BsrSpmvTarget host;
  host.host = true;
  host.space_name = "OpenMP";
  host.block_size = 3;
  BsrSpmvOptions o;
  host.value_bytes = 118'000'000;
  Impl::BsrSpmvChoice c = Impl::bsr_spmv_choose(o, Backend::native, host);
  EXPECT_EQ(c.kernel, BsrKernel::block_row);
  EXPECT_EQ(c.why, "automatic for a host space; block size 3");
  o.symmetric = true;
  c = Impl::bsr_spmv_choose(o, Backend::native, host);
  EXPECT_EQ(c.kernel, BsrKernel::symmetric);
  EXPECT_EQ(c.why,
            "automatic for a host space; block size 3; declared symmetric, values 118 MB >= bsr_symmetric_min_bytes "
            "(16 MiB): symmetric");
  host.value_bytes = 2'600'000;
  c = Impl::bsr_spmv_choose(o, Backend::native, host);
  EXPECT_EQ(c.kernel, BsrKernel::block_row);
  EXPECT_EQ(c.why, "automatic for a host space; block size 3; declared symmetric but values 2.6 MB < 16 MiB: block_row");
  o.backend = Backend::native;
  EXPECT_EQ(Impl::bsr_spmv_choose(o, Backend::native, host).why,
            "automatic for a host space; block size 3; declared symmetric but values 2.6 MB < 16 MiB: block_row; "
            "Backend::native");
  o.kernel = BsrKernel::padded;
  c = Impl::bsr_spmv_choose(o, Backend::native, host);
  EXPECT_EQ(c.kernel, BsrKernel::padded);
  EXPECT_EQ(c.why, "forced by BsrSpmvOptions::kernel; Backend::native");
  o.backend = Backend::portable;
  o.kernel = BsrKernel::automatic;
  c = Impl::bsr_spmv_choose(o, Backend::portable, host);
  EXPECT_EQ(c.kernel, BsrKernel::row_per_thread);
  EXPECT_EQ(c.backend, Backend::portable);
  EXPECT_EQ(c.why, "automatic: the portable backend's one kernel; Backend::portable");
  Impl::BsrSpmvTarget cuda = host;
  cuda.host = false;
  cuda.cuda = true;
  cuda.space_name = "Cuda";
  cuda.block_size = 16;
  o = BsrSpmvOptions();
  o.symmetric = true;  // no size rule on CUDA
  c = Impl::bsr_spmv_choose(o, Backend::native, cuda);
  EXPECT_EQ(c.kernel, BsrKernel::row_per_thread);
  EXPECT_EQ(c.why, "automatic for a CUDA space; block size 16 (by_block up to 4, by_column up to 15, row_per_thread from 16)");
  Impl::BsrSpmvTarget other = host;
  other.host = false;
  other.space_name = "Threads";
  o = BsrSpmvOptions();
  c = Impl::bsr_spmv_choose(o, Backend::portable, other);
  EXPECT_EQ(c.kernel, BsrKernel::row_per_thread);
  EXPECT_EQ(c.why, "automatic: the portable backend's one kernel; Backend::automatic: Threads has no native BSR kernels");
  o.kernel = BsrKernel::block_row;
  EXPECT_TRUE(throws_invalid_argument([&] { Impl::bsr_spmv_choose(o, Backend::portable, other); },
                                      {"kernel block_row is not a kernel of backend portable on Threads",
                                       "(its kernels: row_per_thread)"}));
  o.kernel = BsrKernel::by_block;
  cuda.block_size = 9;
  EXPECT_TRUE(throws_invalid_argument([&] { Impl::bsr_spmv_choose(o, Backend::native, cuda); },
                                      {"kernel by_block does not support block size 9"}));
  o.kernel = BsrKernel::symmetric;
  EXPECT_TRUE(throws_invalid_argument([&] { Impl::bsr_spmv_choose(o, Backend::native, host); },
                                      {"kernel symmetric needs BsrSpmvOptions::symmetric = true"}));
}

TEST(BsrSpmvKernelNames, DefaultsAndBlockSizeLimits) {
  // The paper's crossovers on CUDA: by-block up to 4, by-column up to 15, row-per-thread from 16.
  for (int b = 1; b <= max_bsr_block_size; ++b) {
    const BsrKernel expected = b <= 4    ? BsrKernel::by_block
                               : b < 16 ? BsrKernel::by_column
                                        : BsrKernel::row_per_thread;
    EXPECT_EQ(bsr_default_kernel(true, false, b), expected) << "b = " << b;
    EXPECT_EQ(bsr_default_kernel(false, true, b), BsrKernel::block_row) << "b = " << b;
    EXPECT_EQ(bsr_default_kernel(false, false, b), BsrKernel::row_per_thread) << "b = " << b;
    // The automatic choice is always a kernel that supports the block size.
    EXPECT_TRUE(bsr_kernel_supports(bsr_default_kernel(true, false, b), b)) << "b = " << b;
    for (int k = 0; k < num_bsr_kernels; ++k) {
      const auto kernel = static_cast<BsrKernel>(k);
      EXPECT_EQ(bsr_kernel_supports(kernel, b), kernel != BsrKernel::by_block || b <= 8)
          << to_string(kernel) << ", b = " << b;
    }
  }
  for (int k = 0; k < num_bsr_kernels; ++k)
    for (int b : {0, -1, max_bsr_block_size + 1})
      EXPECT_FALSE(bsr_kernel_supports(static_cast<BsrKernel>(k), b)) << to_string(static_cast<BsrKernel>(k));
}

// Regression: a forced kernel value outside the enum (as a caller converting an integer option
// would produce) must be rejected with InvalidArgument, as SpmvPlan does, not run silently.
TEST(BsrSpmvErrors, OutOfRangeKernelThrows) {
  using Big = Bsr<double, int, Kokkos::DefaultExecutionSpace>;
  const Big a = to_bsr<Big>(random_bsr(4, 4, 2, 2.0, 1300));
  EXPECT_STREQ(to_string(static_cast<BsrKernel>(num_bsr_kernels)), "invalid");
  for (int k : {num_bsr_kernels, num_bsr_kernels + 3, -2}) {
    BsrSpmvOptions o;
    o.kernel = static_cast<BsrKernel>(k);
    EXPECT_TRUE(throws_invalid_argument([&] { BsrSpmvPlan<Big> p(a, o); }, {"kernel"})) << "kernel value " << k;
  }
}

TEST(BsrSpmvApi, ExecutionSpaceInstanceAndConstInput) {
  using Big = Bsr<double, int, Kokkos::DefaultExecutionSpace>;
  using K = Kit<Big>;
  const HostBsr A = random_bsr(40, 30, 4, 4.0, 1200);
  const HostCsr csr = host_bsr_to_csr(A);
  const Big a = to_bsr<Big>(A);
  const std::vector<double> x = test::random_vector(csr.num_cols, 1201), y0 = test::random_vector(csr.num_rows, 1202);
  for (const Config& c : K::configs(4)) {
    const K::Plan plan(a, c.options);
    Kokkos::View<const double*, K::Device> xv = test::to_view<K::Vec>(x);
    K::Vec yv = test::to_view<K::Vec>(y0);
    plan.apply(Kokkos::DefaultExecutionSpace(), "N", 2.0, xv, -1.0, yv);
    Kokkos::fence();
    EXPECT_TRUE(test::spmv_matches<double>("N", 2.0, csr, x, -1.0, y0, test::to_host_vector(yv))) << c.name;
  }
}
