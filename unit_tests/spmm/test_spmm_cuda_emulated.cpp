// The CUDA SpMM kernels (impl/spmm/cuda/spmm_cuda_kernels.cuh: spmm_aspt_kernel,
// spmm_csr_rows_kernel, spmm_scale_kernel, spmm_scale_rows_kernel, spmm_transpose_kernel) run on
// the CPU through the test-only emulation (unit_tests/cuda_emulation/: every thread a fiber,
// CUDA's barriers and shuffles, poisoned shared memory, diagnostics of what CUDA leaves
// undefined), launched by the real launcher
// (impl/spmm/cuda/spmm_cuda.hpp, Impl::cuda::spmm_apply) on the emulated device.
//
// The analysis is the one an SpmmPlan on Kokkos::Cuda builds (target cuda: the tiling capped by
// spmm_plan_tiling, conflict-free slots col % tile_cols, thin tiles moved to light), built here
// in host memory, with each kernel forced: aspt, csr_rows, and the scale kernel through
// alpha == 0 (B poisoned: it must not be read). Every case runs under every schedule of
// standard_schedules (in order, reverse, random, laggard warp), with the grid clamped to 1..3
// blocks so the grid-stride loops of csr_rows and scale take many turns, and with 1 or 2
// multiprocessors so the launcher picks every coarsening (csr_rows CF 1, 2, 4; aspt CF 1, 2).
//
// Inputs (those of test_spmm.cpp, smaller): empty rows and empty panels, a panel with one dense
// column, power-law rows (R-MAT, rows longer than a warp), non-square shapes, unsorted columns
// with duplicates, one row, no entries; heavy tiles whose columns collide in the shared-memory
// slots (even columns heavy, W = 3 and 4: the layout must spread them over several tiles); the
// calibrated CUDA tiling (W = 256, P = 256 / 160: for K > 32 the shared memory (double) or the
// pass length (float) keeps CF at 1); panels of 300 rows (two passes of the row loop, several
// rows per lane group). K in {1, 3, 32, 33, 128} (plus 2, 7, 16 for the other lane-group sizes),
// B and C LayoutRight, LayoutLeft, mixed, and one column of a multivector as the dispatch passes
// rank 1 (rank-2 LayoutStride); beta == 0 with C poisoned (NaN) and beta != 0. Results against
// the double reference with the host tests' bound (test::spmm_matches). Mode T is not here: the
// CUDA route for T is SpmvPlan's transpose (spmm_dispatch.hpp), not an SpMM kernel. Each test
// asserts the launch shapes it is there for, as the launches that ran show them (the kernel
// instances the emulation recorded), and the layout property it needs.
//
// As a check that the tests see slot collisions at all, a layout built for the host (tiles of
// consecutive heavy columns, whose slots collide) must give a wrong product (SlotCollisions).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "Sprocket_Generators.hpp"
#include "Sprocket_Spmm.hpp"
#include "impl/spmm/cuda/spmm_cuda.hpp"
#include "sprocket_cuda_emulation.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;
namespace emu = Sprocket::cuda_emulation;

namespace {

using test::empty_rows_unless;
using test::no_entries;
using test::rounded;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ------------------------------------------------------------------------------------------------
// Matrices

/// rows x cols with about 2 random entries per row, plus: rows [0, dense_rows) all hold column
/// `col` (dense_rows > 0), and every row holds each even column below heavy_cols with
/// probability 1/2 (so the even columns are heavy in every panel and collide modulo even W).
HostCsr with_heavy_columns(int64_t rows, int64_t cols, int64_t dense_rows, int col, int64_t heavy_cols,
                           uint64_t salt) {
  const HostCsr R = test::random_csr(rows, cols, 2, salt);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) t.push_back({i, R.entries[k], R.values[k]});
  std::mt19937_64 rng(test::seed_for(salt + 1));
  const auto value = [&] { return static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4.0; };
  for (int64_t i = 0; i < dense_rows; ++i) t.push_back({i, col, value()});
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < heavy_cols; c += 2)
      if (rng() % 2) t.push_back({i, c, value()});
  return HostCsr::from_triplets(rows, cols, std::move(t));
}

/// A with row `row` also holding columns [0, len) (value 0.5 each), so it is longer than a warp
/// whatever the seed.
HostCsr with_long_row(const HostCsr& A, int64_t row, int64_t len) {
  std::vector<Triplet> t;
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) t.push_back({i, A.entries[k], A.values[k]});
  for (int64_t c = 0; c < len; ++c) t.push_back({row, c, 0.5});
  return HostCsr::from_triplets(A.num_rows, A.num_cols, std::move(t));
}

SpmmTiling tiling(int64_t panel_rows, int64_t tile_cols, int64_t heavy_threshold = 2) {
  SpmmTiling t;
  t.panel_rows = panel_rows;
  t.tile_cols = tile_cols;
  t.heavy_threshold = heavy_threshold;
  return t;
}

// ------------------------------------------------------------------------------------------------
// One apply

/// How B and C are passed: both LayoutRight, both LayoutLeft, B LayoutLeft with C LayoutRight, or
/// column 1 of 3-column LayoutRight multivectors as rank-2 LayoutStride Views (what the dispatch
/// makes of rank-1 x and y; K must be 1).
enum class Operands { right, left, left_right, strided_column };

struct Run {
  int64_t k;
  Operands operands;
  double alpha, beta;
  int64_t max_grid_blocks;  // the emulated device's grid clamp (grid-stride kernels)
  int multiprocessors;      // what multiprocessor_count answers (the launchers' coarsening)
};

std::string describe(const Run& r) {
  static const char* names[] = {"B R / C R", "B L / C L", "B L / C R", "strided column"};
  return "K = " + std::to_string(r.k) + ", " + names[static_cast<int>(r.operands)] + ", alpha " +
         std::to_string(r.alpha) + ", beta " + std::to_string(r.beta) + ", grid <= " +
         std::to_string(r.max_grid_blocks) + ", " + std::to_string(r.multiprocessors) + " SMs";
}

/// K in {1, 3, 32, 33, 128}: LayoutRight with beta == 0 (C poisoned) and LayoutLeft with
/// beta != 0, mixed layouts for K = 33 (the K >= 32 runs cost the most emulated thread
/// switches, so K = 32 and 33 have two of the four each); the strided column; alpha == 0 (scale
/// kernel) with beta 0 and not. `all_wide`: K = 32 and 33 in every layout too.
std::vector<Run> standard_runs(bool all_wide = false) {
  std::vector<Run> runs = {
      {1, Operands::right, 1.5, 0.0, 1, 1},          {1, Operands::left, -0.5, 0.75, 2, 2},
      {3, Operands::right, 1.5, 0.0, 3, 1},          {3, Operands::left, -0.5, 0.75, 1, 2},
      {32, Operands::left, -0.5, 0.75, 2, 2},        {33, Operands::right, 1.5, 0.0, 3, 1},
      {33, Operands::left_right, 1.25, 0.75, 1, 1},  {128, Operands::right, 1.5, 0.0, 2, 1},
      {128, Operands::left, -0.5, 0.75, 3, 2},       {1, Operands::strided_column, -0.5, 0.75, 3, 1},
      {33, Operands::right, 0.0, 0.0, 2, 1},         {5, Operands::left, 0.0, 0.75, 1, 1}};
  if (all_wide) {
    runs.push_back({32, Operands::right, 1.5, 0.0, 1, 1});
    runs.push_back({33, Operands::left, -0.5, 0.75, 2, 2});
    runs.push_back({33, Operands::left_right, 1.25, 0.0, 2, 1});
  }
  return runs;
}

template <class CrsType>
struct Kit {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  using Analysis = Impl::SpmmAnalysis<Scalar, typename CrsType::non_const_ordinal_type,
                                      typename CrsType::non_const_size_type, Device>;
  using MatL = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using MatR = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using StridedB = Kokkos::View<const Scalar**, Kokkos::LayoutStride, Device, Unmanaged>;
  using StridedC = Kokkos::View<Scalar**, Kokkos::LayoutStride, Device, Unmanaged>;
  static constexpr int scalar_bytes = static_cast<int>(sizeof(Scalar));

  /// The analysis a plan on `target` builds with `requested` tiling (cuda: capped to what the
  /// CUDA kernel stages), kernel forced, in host memory.
  static Analysis analyse(const CrsType& a, SpmmKernel kernel, const SpmmTiling& requested,
                          SpmmTarget target = SpmmTarget::cuda) {
    Impl::SpmmAnalysisReport report;
    const SpmmTiling t = Impl::spmm_plan_tiling(requested, target, scalar_bytes);
    return Impl::spmm_analyse(a, Backend::native, kernel, target, t, &report);
  }

  /// What a recorded launch ran, told by its kernel instance: the ASpT or csr_rows kernel and its
  /// shape (lanes per group G, columns per lane CF), the scale kernel, the split rows' scale
  /// kernel, the transposes into and out of row-major. Instances of other types than this kit's
  /// are unknown.
  struct Launched {
    enum Kind { unknown, aspt, csr_rows, scale, scale_split_rows, transpose_b, transpose_c } kind = unknown;
    int lanes = 0, coarsening = 0;
  };
  static Launched launched(const emu::LaunchRecord& l) {
    using namespace Impl::cuda;
    using Ordinal = typename CrsType::non_const_ordinal_type;
    using Offset = typename CrsType::non_const_size_type;
    static const std::map<std::string, Launched> instances = [] {
      std::map<std::string, Launched> m;
      const auto shape = [&](auto lanes, auto coarsening) {
        constexpr int G = decltype(lanes)::value, CF = decltype(coarsening)::value;
        if constexpr (CF <= spmm_aspt_max_coarsening)
          m[emu::kernel_instance<spmm_aspt_kernel<G, CF, Scalar, Ordinal, Offset>>()] = {Launched::aspt, G, CF};
        m[emu::kernel_instance<spmm_csr_rows_kernel<G, CF, Scalar, Ordinal, Offset>>()] = {Launched::csr_rows, G, CF};
      };
      for (const int G : {1, 2, 4, 8, 16, 32})
        for (const int CF : {1, 2, 4})
          if (CF == 1 || G == spmm_warp_size) spmm_with_shape(SpmmCudaShape{G, CF, 1}, shape);
      m[emu::kernel_instance<spmm_scale_kernel<Scalar>>()] = {Launched::scale};
      m[emu::kernel_instance<spmm_scale_rows_kernel<Scalar, Ordinal>>()] = {Launched::scale_split_rows};
      m[emu::kernel_instance<spmm_transpose_kernel<true, Scalar>>()] = {Launched::transpose_b};
      m[emu::kernel_instance<spmm_transpose_kernel<false, Scalar>>()] = {Launched::transpose_c};
      return m;
    }();
    const auto it = instances.find(l.instance);
    return it == instances.end() ? Launched{} : it->second;
  }

  /// What the launches that ran on S did: "aspt 32x2", "csr_rows 4x1" (G x CF of the instance),
  /// "scale", "split rows scaled", "B to row-major", "C from row-major"; "csr_rows split rows"
  /// for a csr_rows launch on rows in several chunks; for an ASpT launch "aspt passes > 1" /
  /// "aspt rows per group > 1" (from its block and the panel length); "unknown <instance>" for
  /// anything else.
  static std::set<std::string> launch_features(const Analysis& S, const std::vector<emu::LaunchRecord>& launches) {
    std::set<std::string> out;
    for (const emu::LaunchRecord& l : launches) {
      const Launched k = launched(l);
      const std::string shape = std::to_string(k.lanes) + "x" + std::to_string(k.coarsening);
      switch (k.kind) {
        case Launched::unknown: out.insert("unknown " + l.instance); break;
        case Launched::scale: out.insert("scale"); break;
        case Launched::scale_split_rows: out.insert("split rows scaled"); break;
        case Launched::transpose_b: out.insert("B to row-major"); break;
        case Launched::transpose_c: out.insert("C from row-major"); break;
        case Launched::csr_rows:
          out.insert("csr_rows " + shape);
          if (S.num_chunks > S.num_split_rows && S.num_split_rows > 0) out.insert("csr_rows split rows");
          break;
        case Launched::aspt: {
          out.insert("aspt " + shape);
          const int64_t groups = l.block / k.lanes;
          const int64_t pass = groups * Impl::cuda::spmm_rows_per_group(k.lanes, k.coarsening, scalar_bytes);
          const int64_t longest_panel = std::min(S.panel_rows, S.num_rows);
          if (longest_panel > pass) out.insert("aspt passes > 1");
          if (std::min(pass, longest_panel) > groups) out.insert("aspt rows per group > 1");
          break;
        }
      }
    }
    return out;
  }

  /// C = alpha A B + beta C0 on the emulated device, against the reference on A (rounded to
  /// Scalar). beta == 0 poisons C with NaN first; alpha == 0 poisons B.
  template <class BMat, class CMat>
  static ::testing::AssertionResult check_dense(const Analysis& S, const HostCsr& A, const Run& r,
                                                const emu::Schedule& schedule, uint64_t salt,
                                                std::vector<emu::LaunchRecord>& launches) {
    const HostDense B = r.alpha == 0 ? HostDense(A.num_cols, r.k, kNaN)
                                     : rounded<Scalar>(test::random_dense(A.num_cols, r.k, salt));
    const HostDense C0 = r.beta == 0 ? HostDense(A.num_rows, r.k, kNaN)
                                     : rounded<Scalar>(test::random_dense(A.num_rows, r.k, salt + 1));
    const BMat bv = test::to_view<BMat>(B, "B");
    const CMat cv = test::to_view<CMat>(C0, "C");
    const emu::Device device(schedule, r.multiprocessors, r.max_grid_blocks);
    Impl::cuda::spmm_apply(device, S, static_cast<Scalar>(r.alpha), bv, static_cast<Scalar>(r.beta), cv);
    launches = device.stream.history;
    return test::spmm_matches<Scalar>("N", r.alpha, A, B, r.beta, C0, test::to_host_dense(cv));
  }

  /// Column 1 of 3-column LayoutRight B and C as rank-2 LayoutStride Views; columns 0 and 2 of C
  /// must stay as they were.
  static ::testing::AssertionResult check_strided_column(const Analysis& S, const HostCsr& A, const Run& r,
                                                         const emu::Schedule& schedule, uint64_t salt,
                                                         std::vector<emu::LaunchRecord>& launches) {
    HostDense B = rounded<Scalar>(test::random_dense(A.num_cols, 3, salt));
    HostDense C0 = rounded<Scalar>(test::random_dense(A.num_rows, 3, salt + 1));
    for (int64_t i = 0; i < A.num_cols && r.alpha == 0; ++i) B(i, 1) = kNaN;
    for (int64_t i = 0; i < A.num_rows && r.beta == 0; ++i) C0(i, 1) = kNaN;
    const MatR bv = test::to_view<MatR>(B, "B"), cv = test::to_view<MatR>(C0, "C");
    const StridedB b1(bv.data() + 1, Kokkos::LayoutStride(A.num_cols, 3, 1, 1));
    const StridedC c1(cv.data() + 1, Kokkos::LayoutStride(A.num_rows, 3, 1, 1));
    const emu::Device device(schedule, r.multiprocessors, r.max_grid_blocks);
    Impl::cuda::spmm_apply(device, S, static_cast<Scalar>(r.alpha), b1, static_cast<Scalar>(r.beta), c1);
    launches = device.stream.history;
    const HostDense C = test::to_host_dense(cv);
    for (int64_t i = 0; i < A.num_rows; ++i)
      for (int64_t j : {0, 2})
        if (C(i, j) != C0(i, j))
          return ::testing::AssertionFailure() << "column " << j << " of C changed at row " << i;
    const auto column = [](const HostDense& d) {
      HostDense out(d.num_rows, 1);
      for (int64_t i = 0; i < d.num_rows; ++i) out(i, 0) = d(i, 1);
      return out;
    };
    return test::spmm_matches<Scalar>("N", r.alpha, A, column(B), r.beta, column(C0), column(C));
  }

  /// One run against the reference; `launches` gets what the emulated device ran.
  static ::testing::AssertionResult check(const Analysis& S, const HostCsr& A, const Run& r,
                                          const emu::Schedule& schedule, uint64_t salt,
                                          std::vector<emu::LaunchRecord>& launches) {
    try {
      switch (r.operands) {
        case Operands::right: return check_dense<MatR, MatR>(S, A, r, schedule, salt, launches);
        case Operands::left: return check_dense<MatL, MatL>(S, A, r, schedule, salt, launches);
        case Operands::left_right: return check_dense<MatL, MatR>(S, A, r, schedule, salt, launches);
        case Operands::strided_column: return check_strided_column(S, A, r, schedule, salt, launches);
      }
    } catch (const std::exception& e) {  // EmulationError: the emulation diagnosed the kernel
      return ::testing::AssertionFailure() << "threw: " << e.what();
    }
    return ::testing::AssertionFailure() << "unknown operands";
  }

  static ::testing::AssertionResult check(const Analysis& S, const HostCsr& A, const Run& r,
                                          const emu::Schedule& schedule, uint64_t salt) {
    std::vector<emu::LaunchRecord> launches;
    return check(S, A, r, schedule, salt, launches);
  }

  /// Every run, with aspt and with csr_rows forced on the CUDA analysis of A0 (tiling
  /// `requested`), under every standard schedule. Returns the launch features of the launches
  /// that ran.
  static std::set<std::string> run_all(const HostCsr& A0, const std::string& what, const SpmmTiling& requested,
                                       const std::vector<Run>& runs, uint64_t salt) {
    const HostCsr A = rounded<Scalar>(A0);
    const CrsType a = to_crs<CrsType>(A);
    std::set<std::string> features;
    for (SpmmKernel kernel : {SpmmKernel::aspt, SpmmKernel::csr_rows}) {
      const Analysis S = analyse(a, kernel, requested);
      EXPECT_EQ(S.kernel, kernel);
      for (const emu::Schedule& schedule : emu::standard_schedules(test::seed_for(salt))) {
        SCOPED_TRACE("schedule " + schedule.name());
        uint64_t s = salt;
        for (const Run& r : runs) {
          std::vector<emu::LaunchRecord> launches;
          EXPECT_TRUE(check(S, A, r, schedule, s += 2, launches))
              << to_string(kernel) << ", " << describe(r) << ", " << what << " (P " << S.panel_rows << ", W "
              << S.tile_cols_max << ", " << S.tile_col_ptr.extent(0) - 1 << " heavy tiles)";
          for (const std::string& f : launch_features(S, launches)) features.insert(f);
        }
      }
    }
    for (const std::string& f : features)
      EXPECT_NE(f.compare(0, 8, "unknown "), 0) << "a launch of a kernel instance this test does not know: " << f;
    return features;
  }
};

::testing::AssertionResult has_all(const std::set<std::string>& seen, const std::vector<std::string>& wanted) {
  for (const std::string& w : wanted)
    if (!seen.count(w)) {
      std::string all;
      for (const std::string& s : seen) all += " [" + s + "]";
      return ::testing::AssertionFailure() << "no launch with \"" << w << "\"; seen:" << all;
    }
  return ::testing::AssertionSuccess();
}

/// True when some heavy tile of the analysis holds two columns with the same slot c % W.
template <class Analysis>
bool slots_collide(const Analysis& S) {
  const auto col_ptr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.tile_col_ptr);
  const auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.tile_cols);
  for (size_t t = 0; t + 1 < col_ptr.extent(0); ++t) {
    std::set<int64_t> slots;
    for (int64_t k = col_ptr(t); k < col_ptr(t + 1); ++k)
      if (!slots.insert(static_cast<int64_t>(cols(k)) % S.tile_cols_max).second) return true;
  }
  return false;
}

template <class Analysis>
int64_t heavy_tiles(const Analysis& S) {
  return static_cast<int64_t>(S.tile_col_ptr.extent(0)) - 1;
}

}  // namespace

// ================================================================================================
// float + int, double + int, double + size_t (the CUDA kernels' Pos is int32 for int offsets and
// int64 for size_t; float and double change R and the coarsening choices).

using HostSpace = Kokkos::DefaultHostExecutionSpace;
using EmulatedCrsTypes = ::testing::Types<test::Crs<float, int, HostSpace>, test::Crs<double, int, HostSpace>,
                                          test::Crs<double, size_t, HostSpace>>;

template <class CrsType>
class SpmmCudaEmulated : public ::testing::Test {};
TYPED_TEST_SUITE(SpmmCudaEmulated, EmulatedCrsTypes);

// R-MAT scale 6 (empty rows, and row 21 longer than a warp: csr_rows splits it into chunks that
// add atomically), panels of 16 rows, W = 8: several heavy
// tiles per panel; every lane-group size (K = 1, 2, 3, 7, 16, 32, 33, 128) and every coarsening
// (64 rows: csr_rows takes CF 4 for K = 128 on 1 SM, CF 2 on 2 SMs).
TYPED_TEST(SpmmCudaEmulated, PowerLaw) {
  using K = Kit<TypeParam>;
  const HostCsr A = with_long_row(gen::rmat(6, 8, test::seed_for(1)), 21, 50);
  ASSERT_GT(test::longest_dot("N", A), 32);
  const auto S = K::analyse(to_crs<TypeParam>(A), SpmmKernel::aspt, tiling(16, 8));
  ASSERT_GT(heavy_tiles(S), S.num_panels);
  ASSERT_FALSE(slots_collide(S));
  std::vector<Run> runs = standard_runs(true);
  for (int64_t k : {2, 7, 16}) runs.push_back({k, Operands::right, 1.5, 0.0, 2, 1});
  const auto seen = K::run_all(A, "R-MAT scale 6", tiling(16, 8), runs, 100);
  EXPECT_TRUE(has_all(seen, {"aspt 1x1", "aspt 2x1", "aspt 4x1", "aspt 8x1", "aspt 16x1", "aspt 32x1", "aspt 32x2",
                             "csr_rows 1x1", "csr_rows 2x1", "csr_rows 4x1", "csr_rows 8x1", "csr_rows 16x1",
                             "csr_rows 32x1", "csr_rows 32x2", "csr_rows 32x4", "csr_rows split rows",
                             "split rows scaled", "B to row-major", "C from row-major", "scale"}));
}

// The calibrated CUDA tiling (P = 256 float / 160 double, W = 256, thin tiles to light): staging
// 256 slots, several rows per lane group, and for K > 32 the shared memory (double) or the pass
// length halving CF.
TYPED_TEST(SpmmCudaEmulated, CalibratedTiling) {
  using K = Kit<TypeParam>;
  const HostCsr A = with_heavy_columns(64, 40, 24, 5, 16, 2);
  const auto S = K::analyse(to_crs<TypeParam>(A), SpmmKernel::aspt, SpmmTiling{});
  ASSERT_EQ(S.tile_cols_max, 256);
  ASSERT_GT(heavy_tiles(S), 0);
  const auto seen = K::run_all(A, "64 x 40, calibrated tiling", SpmmTiling{}, standard_runs(), 200);
  EXPECT_TRUE(has_all(seen, {"aspt 32x1", "aspt rows per group > 1"}));
  EXPECT_EQ(seen.count("aspt 32x2"), 0u);
}

// Panels of 300 rows: more than one pass of 16 groups x R rows for K = 32 (R = 16 float, 10
// double), partial groups in the last pass; the second panel is 20 rows.
TYPED_TEST(SpmmCudaEmulated, MultiPassPanels) {
  using K = Kit<TypeParam>;
  const HostCsr A = test::random_csr(320, 64, 2, 3);
  const auto S = K::analyse(to_crs<TypeParam>(A), SpmmKernel::aspt, tiling(300, 16));
  ASSERT_EQ(S.num_panels, 2);
  ASSERT_GT(heavy_tiles(S), 2);
  const std::vector<Run> runs = {{32, Operands::right, 1.5, 0.0, 1, 1},
                                 {32, Operands::left, -0.5, 0.75, 2, 1},
                                 {3, Operands::left, 1.5, 0.0, 2, 1}};
  const auto seen = K::run_all(A, "320 x 64, panels of 300 rows", tiling(300, 16), runs, 300);
  EXPECT_TRUE(has_all(seen, {"aspt passes > 1", "aspt rows per group > 1"}));
}

// Even columns heavy in every panel: with W = 4 (and W = 3, which the slot divisor does not
// divide by a shift) near columns share slots, and the CUDA layout must give each its own tile.
TYPED_TEST(SpmmCudaEmulated, HeavyTilesWithCollidingColumns) {
  using K = Kit<TypeParam>;
  const HostCsr A = with_heavy_columns(32, 40, 0, 0, 24, 4);
  for (int64_t W : {4, 3}) {
    const auto S = K::analyse(to_crs<TypeParam>(A), SpmmKernel::aspt, tiling(16, W));
    ASSERT_GT(heavy_tiles(S), 3 * S.num_panels) << "W = " << W;
    ASSERT_FALSE(slots_collide(S)) << "W = " << W;
    // W = 4: the K x layout x beta runs; W = 3 (not a power of two for the slot divisor): K = 32, 33.
    const std::vector<Run> all = standard_runs();
    const std::vector<Run> runs(all.begin() + (W == 4 ? 0 : 4), all.begin() + (W == 4 ? 9 : 6));
    K::run_all(A, "32 x 40, even columns heavy, W = " + std::to_string(W), tiling(16, W), runs, 400 + W);
  }
}

// Mutation check of the tests themselves: a layout for the host (tiles of consecutive heavy
// columns, slots colliding) run by the CUDA kernel must give a wrong product, and the check used
// everywhere here must say so.
TYPED_TEST(SpmmCudaEmulated, SlotCollisions) {
  using K = Kit<TypeParam>;
  const HostCsr A = rounded<typename K::Scalar>(with_heavy_columns(32, 40, 0, 0, 24, 5));
  const auto S = K::analyse(to_crs<TypeParam>(A), SpmmKernel::aspt, tiling(16, 4), SpmmTarget::host);
  ASSERT_TRUE(slots_collide(S));
  const Run r{32, Operands::right, 1.5, 0.0, 3, 1};
  EXPECT_FALSE(K::check(S, A, r, emu::standard_schedules(test::seed_for(5)).front(), 500));
}

// Runs of empty rows longer than a panel (rows 16..63: three empty panels) and every 9th row
// empty; a panel whose column 7 is dense.
TYPED_TEST(SpmmCudaEmulated, EmptyPanelsAndDenseColumn) {
  using K = Kit<TypeParam>;
  const HostCsr A = empty_rows_unless(test::random_csr(90, 60, 4, 6),
                                      [](int64_t i) { return (i < 16 || i >= 64) && i % 9 != 4; });
  const auto S = K::analyse(to_crs<TypeParam>(A), SpmmKernel::aspt, tiling(16, 8));
  ASSERT_GT(heavy_tiles(S), 0);
  K::run_all(A, "90 x 60 with empty panels", tiling(16, 8), standard_runs(), 600);
  const HostCsr D = with_heavy_columns(32, 60, 16, 7, 0, 7);
  K::run_all(D, "32 x 60, a dense column in panel 0", tiling(16, 8), standard_runs(), 700);
}

TYPED_TEST(SpmmCudaEmulated, NonSquareAndUnsorted) {
  using K = Kit<TypeParam>;
  K::run_all(test::random_csr(18, 300, 12, 8), "18 x 300", tiling(16, 8), standard_runs(), 800);
  const HostCsr U = test::unsorted_with_duplicates(32, 30, 16, 9);
  ASSERT_FALSE(U.is_sorted_and_unique());
  K::run_all(U, "32 x 30 unsorted with duplicates", tiling(16, 8), standard_runs(), 900);
}

TYPED_TEST(SpmmCudaEmulated, OneRowAndNoEntries) {
  using K = Kit<TypeParam>;
  K::run_all(test::random_csr(1, 50, 20, 10), "1 x 50", tiling(16, 8), standard_runs(), 1000);
  K::run_all(test::csr_from_dense(1, 1, {2.5}), "1 x 1", tiling(16, 8), standard_runs(), 1100);
  K::run_all(no_entries(7, 9), "7 x 9 without entries", tiling(16, 8), standard_runs(), 1200);
  K::run_all(no_entries(0, 5), "0 x 5", tiling(16, 8), {{3, Operands::right, 1.5, 0.0, 1, 1}}, 1300);
}

// The automatic CUDA choice on a matrix without split rows: row-major B and C of 17 to 32
// columns run the portable kernel (no CUDA launch, the product still right); fewer or more
// columns, column-major or mixed operands run csr_rows. A matrix with a split row, or csr_rows
// forced, keeps csr_rows for every shape.
TYPED_TEST(SpmmCudaEmulated, RegularRowMajorTakesThePortableKernelAutomatically) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const HostCsr A = rounded<Scalar>(gen::poisson2d(9));
  const auto S = K::analyse(to_crs<TypeParam>(A), SpmmKernel::automatic, SpmmTiling{});
  ASSERT_EQ(S.kernel, SpmmKernel::csr_rows);
  ASSERT_EQ(S.num_split_rows, 0);
  EXPECT_TRUE(S.warp_rows_for_row_major);
  const auto launches = [&](const auto& analysis, int64_t k, bool right, bool mixed, uint64_t salt) {
    const HostDense B = rounded<Scalar>(test::random_dense(A.num_cols, k, salt));
    const HostDense C0 = rounded<Scalar>(test::random_dense(A.num_rows, k, salt + 1));
    const emu::Device device(emu::standard_schedules(test::seed_for(salt)).front(), 2, 3);
    HostDense C;
    if (right && !mixed) {
      const auto b = test::to_view<typename K::MatR>(B, "B");
      const auto c = test::to_view<typename K::MatR>(C0, "C");
      Impl::cuda::spmm_apply(device, analysis, Scalar(1.5), b, Scalar(-0.5), c);
      C = test::to_host_dense(c);
    } else if (mixed) {
      const auto b = test::to_view<typename K::MatL>(B, "B");
      const auto c = test::to_view<typename K::MatR>(C0, "C");
      Impl::cuda::spmm_apply(device, analysis, Scalar(1.5), b, Scalar(-0.5), c);
      C = test::to_host_dense(c);
    } else {
      const auto b = test::to_view<typename K::MatL>(B, "B");
      const auto c = test::to_view<typename K::MatL>(C0, "C");
      Impl::cuda::spmm_apply(device, analysis, Scalar(1.5), b, Scalar(-0.5), c);
      C = test::to_host_dense(c);
    }
    EXPECT_TRUE(test::spmm_matches<Scalar>("N", 1.5, A, B, -0.5, C0, C)) << "K = " << k;
    return device.stream.history.size();
  };
  for (int64_t k : {17, 24, 32}) EXPECT_EQ(launches(S, k, true, false, 1400 + k), 0u) << "K = " << k;
  for (int64_t k : {16, 33}) EXPECT_GT(launches(S, k, true, false, 1500 + k), 0u) << "K = " << k;
  EXPECT_GT(launches(S, 32, false, false, 1600), 0u);
  EXPECT_GT(launches(S, 32, true, true, 1700), 0u);
  const auto forced = K::analyse(to_crs<TypeParam>(A), SpmmKernel::csr_rows, SpmmTiling{});
  EXPECT_FALSE(forced.warp_rows_for_row_major);
  EXPECT_GT(launches(forced, 32, true, false, 1800), 0u);
  // R-MAT with a row of 50 entries: split into chunks, so csr_rows.
  const HostCsr R = with_long_row(gen::rmat(6, 8, test::seed_for(19)), 21, 50);
  const auto split = K::analyse(to_crs<TypeParam>(R), SpmmKernel::automatic, SpmmTiling{});
  EXPECT_GT(split.num_split_rows, 0);
  EXPECT_FALSE(split.warp_rows_for_row_major);
}
