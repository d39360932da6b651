// The CUDA SDDMM kernels (impl/sddmm/cuda/sddmm_cuda_kernels.cuh: sddmm_tiles_kernel for every
// lane group L in {1, 2, 4, 8, 16, 32}, and sddmm_aspt_kernel) run on the CPU through the
// test-only emulation (unit_tests/cuda_emulation/: every thread a fiber, CUDA's barriers and
// shuffles, poisoned shared memory, diagnostics of what CUDA leaves undefined), launched by the
// real launcher (impl/sddmm/cuda/sddmm_cuda.hpp, Impl::cuda::sddmm_apply) on the emulated device.
//
// The analysis is built in host memory as an SddmmPlan on Kokkos::Cuda builds it: tiles of Ts
// consecutive nonzeros with their first rows (CSR), COO row indices as given, and for aspt the
// SpMM analysis for SpmmTarget::cuda (the tiling capped by spmm_plan_tiling, conflict-free slots
// c % W). Every case runs under the schedules of standard_schedules (in order, reverse, random,
// laggard warp; the largest K under fewer), with the grid clamped to 1..3 blocks so the
// grid-stride loops take several turns, against the double reference (test::sddmm_matches).
//
// Inputs: power-law rows (R-MAT, a row longer than two warps), runs of empty rows longer than a
// tile, single-entry rows, unsorted rows with duplicate columns and explicit zeros, nnz not a
// multiple of 4 (the residue quad), CSR and COO (shuffled order; index arrays aligned and not);
// K in {1, 7, 32, 33, 64, 256, 1000}; Ts in {4, 16, 20} (and 256 for several rounds per block);
// A and B LayoutRight, LayoutLeft, mixed, LayoutRight subviews from column 1 (misaligned rows:
// the scalar fallback) and rows padded past K (vector rows whose last chunk crosses K); scaled and
// pattern forms; beta == 0 with out poisoned (NaN) and beta != 0. Unused columns of the operand
// allocations hold NaN, so a read outside A's or B's K columns fails the comparison.
//
// Each test asserts the launch shapes and layout properties it exists for (IIR lane groups,
// WMT with several slices, vector and scalar rows, the K residue, the residue quad, heavy
// tiles, several K-slices through the workspace, ...), computed by the launcher's own functions
// and checked against the launch the emulation recorded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "Sprocket_Generators.hpp"
#include "Sprocket_Sddmm.hpp"
#include "impl/sddmm/cuda/sddmm_cuda.hpp"
#include "sprocket_cuda_emulation.hpp"
#include "sprocket_test_types.hpp"
#include "sddmm_test_utils.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;
namespace emu = Sprocket::cuda_emulation;
namespace icuda = Sprocket::Impl::cuda;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ------------------------------------------------------------------------------------------------
// Matrices (built row by row, so rows stay unsorted and duplicates stay separate entries)

using Row = std::vector<std::pair<int, double>>;

HostCsr from_rows(int64_t cols, const std::vector<Row>& rows) {
  HostCsr S;
  S.num_rows = static_cast<int64_t>(rows.size());
  S.num_cols = cols;
  S.row_map.assign(rows.size() + 1, 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const auto& e : rows[i]) {
      S.entries.push_back(e.first);
      S.values.push_back(e.second);
    }
    S.row_map[i + 1] = S.nnz();
  }
  S.validate();
  return S;
}

std::vector<Row> rows_of(const HostCsr& S) {
  std::vector<Row> rows(S.num_rows);
  for (int64_t i = 0; i < S.num_rows; ++i)
    for (int64_t k = S.row_map[i]; k < S.row_map[i + 1]; ++k) rows[i].push_back({S.entries[k], S.values[k]});
  return rows;
}

/// One more entry in row `row` when nnz is a multiple of 4, so the last quad is partial.
void make_nnz_ragged(std::vector<Row>& rows, int64_t cols, int64_t row) {
  int64_t nnz = 0;
  for (const Row& r : rows) nnz += static_cast<int64_t>(r.size());
  if (nnz % 4 == 0) rows[row].push_back({static_cast<int>(nnz % cols), 0.25});
}

/// R-MAT scale 6 (power-law rows, empty rows), row 21 also holding 70 columns in descending order
/// (longer than two warps, unsorted), nnz not a multiple of 4.
HostCsr power_law(uint64_t salt) {
  std::vector<Row> rows = rows_of(gen::rmat(6, 6, test::seed_for(salt)));
  for (int c = 63; c >= 0; --c) rows[21].push_back({c, 0.5 - c / 128.0});
  for (int c = 0; c < 6; ++c) rows[21].push_back({c, -0.75});
  make_nnz_ragged(rows, 64, 1);
  return from_rows(64, rows);
}

/// rows x cols: rows [20, 45) empty (a run longer than any tile), row 50 holding every column
/// twice in random order (duplicates), the other rows by i % 6: empty, one entry, or 1..6 random
/// columns (repeats possible); every 11th entry an explicit zero; nnz not a multiple of 4.
HostCsr mixed_rows(int64_t num_rows, int64_t cols, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  const auto value = [&] { return 2.0 * (static_cast<double>(rng() >> 11) * 0x1.0p-53) - 1.0; };
  std::vector<Row> rows(num_rows);
  int64_t count = 0;
  const auto add = [&](int64_t i, int c) { rows[i].push_back({c, ++count % 11 == 0 ? 0.0 : value()}); };
  for (int64_t i = 0; i < num_rows; ++i) {
    if (i >= 20 && i < 45) continue;
    if (i == 50) {
      std::vector<int> all;
      for (int c = 0; c < cols; ++c) all.insert(all.end(), {c, c});
      std::shuffle(all.begin(), all.end(), rng);
      for (int c : all) add(i, c);
      continue;
    }
    const int64_t kind = i % 6;
    const int64_t len = kind == 0 ? 0 : kind == 1 ? 1 : 1 + static_cast<int64_t>(rng() % 6);
    for (int64_t k = 0; k < len; ++k) add(i, static_cast<int>(rng() % cols));
  }
  make_nnz_ragged(rows, cols, 1);
  return from_rows(cols, rows);
}

/// rows x cols with about 2 random entries per row, every row holding each even column below
/// heavy_cols with probability 1/2 (heavy in every panel, colliding modulo even W), and row
/// `long_row` holding every column.
HostCsr heavy_columns(int64_t num_rows, int64_t cols, int64_t heavy_cols, int64_t long_row, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  const auto value = [&] { return static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4.0; };
  std::vector<Row> rows(num_rows);
  for (int64_t i = 0; i < num_rows; ++i) {
    if (i == long_row) {
      for (int c = 0; c < cols; ++c) rows[i].push_back({c, value()});
      continue;
    }
    for (int k = 0; k < 2; ++k) rows[i].push_back({static_cast<int>(rng() % cols), value()});
    for (int c = 0; c < heavy_cols; c += 2)
      if (rng() % 2) rows[i].push_back({c, value()});
  }
  make_nnz_ragged(rows, cols, 0);
  return from_rows(cols, rows);
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

/// How A and B are passed: both LayoutRight, both LayoutLeft, A LayoutLeft with B LayoutRight;
/// columns [1, K + 1) of LayoutRight allocations (rows start 4 or 8 bytes off 16-byte alignment:
/// the scalar fallback); columns [0, K) of LayoutRight allocations whose rows are padded to a
/// multiple of 16 bytes past K (vector rows; when K is not a multiple of the vector width the
/// last chunk crosses K: the K residue). The unused columns hold NaN.
enum class Operands { right, left, left_right, misaligned, padded };

struct Run {
  int64_t k;
  Operands operands;
  SddmmForm form;
  double alpha, beta;
  int64_t max_grid_blocks;
  int schedules = 4;  // the first this many of standard_schedules
};

std::string describe(const Run& r) {
  static const char* names[] = {"A R / B R", "A L / B L", "A L / B R", "misaligned rows", "padded rows"};
  return "K = " + std::to_string(r.k) + ", " + names[static_cast<int>(r.operands)] + ", " + to_string(r.form) +
         ", alpha " + std::to_string(r.alpha) + ", beta " + std::to_string(r.beta) + ", grid <= " +
         std::to_string(r.max_grid_blocks);
}

/// K = 1, 7, 32, 33, 64 in every operand layout between them, both forms, beta 0 and not; with
/// `wide`, K = 256 and 1000 too (under one or two schedules: they cost the most emulated work).
std::vector<Run> standard_runs(bool wide) {
  using O = Operands;
  const SddmmForm S = SddmmForm::scaled, P = SddmmForm::pattern;
  std::vector<Run> runs = {
      {1, O::right, S, 1.5, 0.0, 3},       {1, O::left, P, -0.5, 0.75, 1},     {7, O::padded, P, -0.5, 0.75, 1},
      {7, O::misaligned, S, 1.0, 0.0, 2},  {32, O::right, P, 1.25, 0.0, 2},    {32, O::misaligned, S, -0.5, 0.75, 3},
      {33, O::left_right, S, 1.5, 0.0, 1}, {33, O::padded, P, 0.5, -1.0, 2},   {64, O::right, S, -1.5, 0.25, 3},
      {64, O::left, P, 1.0, 0.0, 1}};
  if (wide) {
    runs.push_back({256, O::right, P, 1.0, 0.0, 2, 2});
    runs.push_back({1000, O::padded, S, 0.75, 0.5, 1, 1});
    runs.push_back({1000, O::left, P, -1.0, 0.0, 3, 1});
  }
  return runs;
}

/// The standard runs plus K = 256 and 1000 for aspt, one schedule each (8 and 32 K-slices, each a
/// full emulated pass over the panels).
std::vector<Run> aspt_wide_runs() {
  std::vector<Run> runs = standard_runs(false);
  runs.push_back({256, Operands::right, SddmmForm::pattern, 1.0, 0.0, 2, 1});
  runs.push_back({1000, Operands::padded, SddmmForm::scaled, 0.75, 0.5, 1, 1});
  return runs;
}

/// The runs whose K is one of `ks`.
std::vector<Run> subset(const std::vector<Run>& runs, std::initializer_list<int64_t> ks) {
  std::vector<Run> out;
  for (const Run& r : runs)
    if (std::find(ks.begin(), ks.end(), r.k) != ks.end()) out.push_back(r);
  return out;
}

::testing::AssertionResult has_all(const std::set<std::string>& seen, const std::vector<std::string>& wanted) {
  for (const std::string& w : wanted)
    if (!seen.count(w)) {
      std::string all;
      for (const std::string& s : seen) all += " [" + s + "]";
      return ::testing::AssertionFailure() << "no run with \"" << w << "\"; seen:" << all;
    }
  return ::testing::AssertionSuccess();
}

template <class Scalar_, class Offset_>
struct Kit {
  using Scalar = Scalar_;
  using Offset = Offset_;
  using Host = Kokkos::DefaultHostExecutionSpace;
  using Crs = test::Crs<Scalar, Offset, Host>;
  using Device = typename Crs::device_type;
  using Analysis = Impl::SddmmAnalysis<Scalar, int, Offset, Device>;
  using Index = Kokkos::View<int*, Device>;
  using Values = Kokkos::View<Scalar*, Device>;
  using MatR = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
  using MatL = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  static constexpr int scalar_bytes = static_cast<int>(sizeof(Scalar));
  static constexpr int64_t V = icuda::sddmm_vector_width<Scalar>;

  /// What an SddmmPlan on Kokkos::Cuda builds for a CSR S, in host memory: tiles of Ts nonzeros
  /// and, with `requested`, the SpMM analysis for `target` (cuda: GPU slots).
  static Analysis csr_analysis(const Crs& S, int64_t Ts, const SpmmTiling* requested = nullptr,
                               SpmmTarget target = SpmmTarget::cuda, int64_t* heavy_tiles = nullptr) {
    Analysis an;
    an.backend = Backend::native;
    an.requested = requested ? SddmmKernel::aspt : SddmmKernel::nonzero_tiles;
    an.num_rows = S.numRows();
    an.num_cols = S.numCols();
    an.nnz = S.nnz();
    an.row_map = S.graph.row_map;
    an.entries = S.graph.entries;
    an.values = S.values;
    if (requested) {
      const SpmmTiling t = Impl::spmm_plan_tiling(*requested, target, scalar_bytes);
      Impl::SpmmAnalysisReport report;
      const auto tiles = Impl::spmm_analyse(S, Backend::native, SpmmKernel::automatic, target, t, &report);
      Impl::sddmm_adopt_tiles<Host>(an, tiles, t, report.stats.heavy_nnz, false);
      if (heavy_tiles) *heavy_tiles = report.stats.num_heavy_tiles;
    }
    SddmmOptions o;
    o.tile_nonzeros = Ts;
    Impl::sddmm_analyse_nonzeros<Host>(an, o);
    return an;
  }

  /// The COO analysis of the plan's COO constructor.
  template <class Rows, class Cols>
  static Analysis coo_analysis(int64_t num_rows, int64_t num_cols, const Rows& rows, const Cols& cols,
                               const Values& values, int64_t Ts) {
    Analysis an;
    an.backend = Backend::native;
    an.requested = SddmmKernel::nonzero_tiles;
    an.coo = true;
    an.num_rows = num_rows;
    an.num_cols = num_cols;
    an.nnz = static_cast<int64_t>(cols.extent(0));
    an.row_indices = rows;
    an.entries = cols;
    an.values = values;
    SddmmOptions o;
    o.tile_nonzeros = Ts;
    Impl::sddmm_analyse_nonzeros<Host>(an, o);
    return an;
  }

  /// f(A, B) with A and B as Views of the types and layouts `operands` names.
  template <class F>
  static void with_operands(Operands operands, const HostDense& A, const HostDense& B, F&& f) {
    const auto in_columns = [](const HostDense& d, int64_t first, int64_t width) {
      HostDense wide(d.num_rows, width, kNaN);
      for (int64_t j = 0; j < d.num_cols; ++j)
        for (int64_t i = 0; i < d.num_rows; ++i) wide(i, first + j) = d(i, j);
      const MatR v = test::to_view<MatR>(wide, "wide");
      return Kokkos::subview(v, Kokkos::ALL, std::make_pair(first, first + d.num_cols));
    };
    const int64_t K = A.num_cols;
    switch (operands) {
      case Operands::right: return f(test::to_view<MatR>(A, "A"), test::to_view<MatR>(B, "B"));
      case Operands::left: return f(test::to_view<MatL>(A, "A"), test::to_view<MatL>(B, "B"));
      case Operands::left_right: return f(test::to_view<MatL>(A, "A"), test::to_view<MatR>(B, "B"));
      case Operands::misaligned: return f(in_columns(A, 1, K + 1), in_columns(B, 1, K + 1));
      case Operands::padded: {
        const int64_t width = (K + V - 1) / V * V + V;
        return f(in_columns(A, 0, width), in_columns(B, 0, width));
      }
    }
  }

  /// out = alpha w o (A B^T)[S] + beta out0 on the emulated device with `kernel`, against the
  /// reference. S is in CSR order (values rounded to Scalar); entry p of the analysis is S's
  /// entry order[p]. The launch the emulation ran must be the one the launcher's shape function
  /// gives, of the kernel instance it names. `features` collects what this run exercises.
  static ::testing::AssertionResult check(const Analysis& an, const HostCsr& S, const std::vector<int64_t>& order,
                                          SddmmKernel kernel, const Run& r, const emu::Schedule& schedule,
                                          uint64_t salt, std::set<std::string>* features) {
    const HostDense A = test::rounded<Scalar>(test::random_dense(S.num_rows, r.k, salt));
    const HostDense B = test::rounded<Scalar>(test::random_dense(S.num_cols, r.k, salt + 1));
    const std::vector<double> out0 = r.beta == 0 ? std::vector<double>(S.nnz(), kNaN)
                                                 : test::rounded<Scalar>(test::random_vector(S.nnz(), salt + 2));
    const Values out("out", S.nnz());
    for (int64_t p = 0; p < S.nnz(); ++p) out(p) = static_cast<Scalar>(out0[order[p]]);
    const emu::Device device(schedule, 2, r.max_grid_blocks);
    icuda::KernelLaunch expected;
    std::string instance;
    try {
      with_operands(r.operands, A, B, [&](const auto& a, const auto& b) {
        expected = expected_launch(an, kernel, r, a, b, features, instance);
        Impl::cuda::sddmm_apply(device, an, kernel, r.form, static_cast<Scalar>(r.alpha), a, b,
                                static_cast<Scalar>(r.beta), out);
      });
    } catch (const std::exception& e) {  // EmulationError: the emulation diagnosed the kernel
      return ::testing::AssertionFailure() << "threw: " << e.what();
    }
    const auto& history = device.stream.history;
    if (history.size() != 1)
      return ::testing::AssertionFailure() << history.size() << " launches, expected 1";
    const emu::LaunchRecord& ran = history.front();
    if (ran.instance != instance)
      return ::testing::AssertionFailure() << "ran " << ran.instance << ", expected " << instance;
    if (ran.grid != expected.grid || ran.block != expected.block || ran.shared_bytes != expected.shared_bytes)
      return ::testing::AssertionFailure() << "ran " << ran.kernel << " as " << ran.grid << " x " << ran.block
                                           << " with " << ran.shared_bytes << " shared bytes; expected "
                                           << expected.grid << " x " << expected.block << ", "
                                           << expected.shared_bytes;
    std::vector<double> got(S.nnz());
    for (int64_t p = 0; p < S.nnz(); ++p) got[order[p]] = static_cast<double>(out(p));
    return test::sddmm_matches<Scalar>(r.form == SddmmForm::scaled, r.alpha, S, A, B, r.beta, out0, got);
  }

  /// The launch the launcher must make and its kernel instance, and the features of this run.
  template <class AV, class BV>
  static icuda::KernelLaunch expected_launch(const Analysis& an, SddmmKernel kernel, const Run& r, const AV& a,
                                             const BV& b, std::set<std::string>* f, std::string& instance) {
    const bool vec_a = icuda::sddmm_vector_rows(a.data(), a.stride(0), a.stride(1), scalar_bytes);
    const bool vec_b = icuda::sddmm_vector_rows(b.data(), b.stride(0), b.stride(1), scalar_bytes);
    if (kernel == SddmmKernel::aspt) {
      const auto& L = an.tiles;
      const bool has_tiles = L.tile_col_ptr.extent(0) > 1;
      const auto s = icuda::sddmm_aspt_launch(r.k, L.panel_rows, L.tile_cols_max, L.num_panels, has_tiles,
                                              scalar_bytes, r.max_grid_blocks);
      instance = emu::kernel_instance<icuda::sddmm_aspt_kernel<Scalar, int, Offset>>();
      f->insert("aspt");
      if (has_tiles) f->insert("aspt heavy tiles");
      if (s.num_slices > 1) f->insert("aspt slices > 1");
      if (std::min(L.panel_rows, an.num_rows) > s.warps) f->insert("aspt rows per warp > 1");
      if (L.num_panels > static_cast<int64_t>(s.launch.grid)) f->insert("aspt grid-stride");
      if (s.launch.shared_bytes > 48 * 1024) f->insert("aspt shared > 48 KiB");
      return s.launch;
    }
    const auto s = icuda::sddmm_tiles_launch(r.k, an.tile_nonzeros, an.nnz, scalar_bytes, r.max_grid_blocks);
    icuda::sddmm_with_lanes(s.lanes, [&](auto lanes) {
      instance = emu::kernel_instance<icuda::sddmm_tiles_kernel<decltype(lanes)::value, Scalar, int, Offset>>();
    });
    f->insert(s.merged ? "wmt" : "iir " + std::to_string(s.lanes));
    if (s.merged && s.num_slices > 1) f->insert("wmt slices > 1");
    if (vec_a && vec_b && r.k >= V) f->insert("vector rows");
    if (vec_a && vec_b && r.k % V != 0) f->insert("vector rows, K residue");
    if (!vec_a && !vec_b && r.operands != Operands::left) f->insert("scalar rows");
    const bool quads = icuda::sddmm_vector_indices(an.entries.data(), sizeof(int)) &&
                       (!an.coo || icuda::sddmm_vector_indices(an.row_indices.data(), sizeof(int)));
    f->insert(quads ? "vector quads" : "scalar quads");
    if (an.nnz % icuda::sddmm_quad != 0) f->insert("residue quad");
    if (an.nnz % an.tile_nonzeros != 0) f->insert("partial last tile");
    if (s.tiles_per_block > 1) f->insert("tiles per block > 1");
    if (s.rounds > 1) f->insert("rounds > 1");
    if (s.num_ranges > static_cast<int64_t>(s.launch.grid)) f->insert("grid-stride");
    return s.launch;
  }

  /// Every run under its schedules; returns the features seen.
  static std::set<std::string> run_all(const Analysis& an, const HostCsr& S, const std::vector<int64_t>& order,
                                       SddmmKernel kernel, const std::string& what, const std::vector<Run>& runs,
                                       uint64_t salt) {
    std::set<std::string> features;
    const std::vector<emu::Schedule> schedules = emu::standard_schedules(test::seed_for(salt));
    for (int i = 0; i < static_cast<int>(schedules.size()); ++i) {
      SCOPED_TRACE("schedule " + schedules[i].name());
      uint64_t s = salt;
      for (const Run& r : runs) {
        s += 3;
        if (i >= r.schedules) continue;
        EXPECT_TRUE(check(an, S, order, kernel, r, schedules[i], s, &features))
            << to_string(kernel) << ", " << describe(r) << ", " << what << " (Ts " << an.tile_nonzeros << ")";
      }
    }
    return features;
  }

  static std::vector<int64_t> identity(int64_t n) {
    std::vector<int64_t> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = i;
    return v;
  }

  /// nonzero_tiles on S (CSR) with tile size Ts.
  static std::set<std::string> run_csr(const HostCsr& S0, int64_t Ts, const std::string& what,
                                       const std::vector<Run>& runs, uint64_t salt) {
    const HostCsr S = test::rounded<Scalar>(S0);
    const Crs s = to_crs<Crs>(S);
    const Analysis an = csr_analysis(s, Ts);
    EXPECT_EQ(an.tile_nonzeros, Ts);
    return run_all(an, S, identity(S.nnz()), SddmmKernel::nonzero_tiles, what, runs, salt);
  }

  /// aspt on S with the CUDA analysis of tiling `requested`.
  static std::set<std::string> run_aspt(const HostCsr& S0, const SpmmTiling& requested, const std::string& what,
                                        const std::vector<Run>& runs, uint64_t salt, int64_t min_heavy_tiles) {
    const HostCsr S = test::rounded<Scalar>(S0);
    const Crs s = to_crs<Crs>(S);
    int64_t heavy_tiles = 0;
    const Analysis an = csr_analysis(s, 16, &requested, SpmmTarget::cuda, &heavy_tiles);
    EXPECT_GE(heavy_tiles, min_heavy_tiles) << what;
    EXPECT_FALSE(slots_collide(an)) << what;
    return run_all(an, S, identity(S.nnz()), SddmmKernel::aspt, what, runs, salt);
  }

  /// True when some heavy tile holds two columns with the same slot c % W.
  static bool slots_collide(const Analysis& an) {
    const auto& L = an.tiles;
    for (size_t t = 0; t + 1 < L.tile_col_ptr.extent(0); ++t) {
      std::set<int64_t> slots;
      for (int64_t k = L.tile_col_ptr(t); k < L.tile_col_ptr(t + 1); ++k)
        if (!slots.insert(static_cast<int64_t>(L.tile_cols(k)) % L.tile_cols_max).second) return true;
    }
    return false;
  }
};

}  // namespace

// ================================================================================================
// Launch shapes (host functions only)

TEST(SddmmCudaLaunch, NonzeroTilesShapes) {
  // IIR: the smallest lane group covering K with 16-byte chunks; WMT above 32.
  for (auto [K, bytes, lanes] : std::vector<std::tuple<int64_t, int, int>>{
           {1, 4, 1}, {4, 4, 1}, {5, 4, 2}, {7, 4, 2}, {7, 8, 4}, {32, 4, 8}, {32, 8, 16}, {33, 4, 32}, {33, 8, 32}}) {
    const auto s = icuda::sddmm_tiles_launch(K, 16, 1000, bytes, 3);
    EXPECT_EQ(s.lanes, lanes) << "K = " << K << ", " << bytes << "-byte scalars";
    EXPECT_EQ(s.merged, K > 32);
    EXPECT_EQ(s.num_slices, 1);
  }
  EXPECT_EQ(icuda::sddmm_tiles_launch(1000, 16, 1000, 4, 3).num_slices, 8);
  EXPECT_EQ(icuda::sddmm_tiles_launch(1000, 16, 1000, 8, 3).num_slices, 16);
  // K = 32 float, Ts = 16: a warp per tile as in Algorithm 1, four tiles per 128-thread block.
  auto s = icuda::sddmm_tiles_launch(32, 16, 1000, 4, 1000);
  EXPECT_EQ(s.launch.block, 128u);
  EXPECT_EQ(s.tiles_per_block, 4);
  EXPECT_EQ(s.rounds, 1);
  EXPECT_EQ(s.num_ranges, 16);  // ceil(1000 / 64)
  EXPECT_EQ(s.launch.grid, 16u);
  // WMT, Ts = 20: five warps, one round; Ts = 256: eight warps, eight rounds.
  s = icuda::sddmm_tiles_launch(64, 20, 1000, 4, 3);
  EXPECT_EQ(s.launch.block, 160u);
  EXPECT_EQ(s.rounds, 1);
  s = icuda::sddmm_tiles_launch(64, 256, 1000, 8, 3);
  EXPECT_EQ(s.launch.block, 256u);
  EXPECT_EQ(s.rounds, 8);
  EXPECT_EQ(s.launch.grid, 3u);
  EXPECT_THROW(icuda::sddmm_tiles_launch(8, 18, 100, 4, 3), InvalidArgument);
}

TEST(SddmmCudaLaunch, AsptShapesAndVectorRows) {
  auto s = icuda::sddmm_aspt_launch(33, 16, 8, 5, true, 8, 3);
  EXPECT_EQ(s.num_slices, 2);
  EXPECT_EQ(s.launch.block, 16u * 32u);
  EXPECT_EQ(s.launch.shared_bytes, 8u * 32u * 8u);
  EXPECT_EQ(s.launch.grid, 3u);
  s = icuda::sddmm_aspt_launch(32, 4, 8, 5, false, 4, 100);
  EXPECT_EQ(s.num_slices, 1);
  EXPECT_EQ(s.launch.block, 4u * 32u);
  EXPECT_EQ(s.launch.shared_bytes, 0u);
  EXPECT_NO_THROW(icuda::sddmm_aspt_launch(64, 256, 512, 4, true, 4, 3));
  EXPECT_THROW(icuda::sddmm_aspt_launch(64, 256, 512, 4, true, 8, 3), InvalidArgument);
  alignas(16) static double d[8];
  EXPECT_TRUE(icuda::sddmm_vector_rows(d, 32, 1, 8));
  EXPECT_FALSE(icuda::sddmm_vector_rows(d + 1, 32, 1, 8));
  EXPECT_FALSE(icuda::sddmm_vector_rows(d, 33, 1, 8));
  EXPECT_FALSE(icuda::sddmm_vector_rows(d, 1, 40, 8));
  EXPECT_TRUE(icuda::sddmm_vector_indices(d, 4));
  EXPECT_FALSE(icuda::sddmm_vector_indices(d + 1, 4));
  EXPECT_FALSE(icuda::sddmm_vector_indices(d, 2));
}

// ================================================================================================
// The kernels: float with int offsets, double with size_t offsets (the vector width is 4 or 2
// scalars, the lane groups of a K differ; row maps and permutations of both widths).

using EmulatedKits = ::testing::Types<Kit<float, int>, Kit<double, size_t>>;

template <class K>
class SddmmCudaEmulated : public ::testing::Test {};
TYPED_TEST_SUITE(SddmmCudaEmulated, EmulatedKits);

// Power-law rows (R-MAT scale 6, a row of 70 entries): every K, every operand layout; Ts = 16
// with every run, Ts = 4 and 20 with K up to 64 (tiles of one quad; tiles of five quads that a
// block's groups do not divide), Ts = 256 for WMT with several rounds per block.
TYPED_TEST(SddmmCudaEmulated, NonzeroTilesPowerLaw) {
  using K = TypeParam;
  const HostCsr S = power_law(1);
  ASSERT_GT(test::longest_row(S), 64);
  ASSERT_NE(S.nnz() % 4, 0);
  const std::vector<Run> all = standard_runs(true);
  std::set<std::string> seen = K::run_csr(S, 16, "R-MAT scale 6", all, 100);
  for (int64_t Ts : {4, 20}) {
    const auto more = K::run_csr(S, Ts, "R-MAT scale 6", subset(all, {1, 7, 32, 33, 64}), 100 + Ts);
    seen.insert(more.begin(), more.end());
  }
  const auto rounds = K::run_csr(S, 256, "R-MAT scale 6", {{64, Operands::right, SddmmForm::scaled, 1.0, 0.5, 2}}, 90);
  seen.insert(rounds.begin(), rounds.end());
  const std::string iir32 = K::V == 4 ? "iir 8" : "iir 16";
  EXPECT_TRUE(has_all(seen, {"iir 1", K::V == 4 ? "iir 2" : "iir 4", iir32, "wmt", "wmt slices > 1", "vector rows",
                             "vector rows, K residue", "scalar rows", "vector quads", "residue quad",
                             "partial last tile", "tiles per block > 1", "rounds > 1", "grid-stride"}));
}

// Runs of empty rows longer than a tile (the row search skips them), single-entry rows, a row of
// every column twice in random order, explicit zeros.
TYPED_TEST(SddmmCudaEmulated, NonzeroTilesMixedRows) {
  using K = TypeParam;
  const HostCsr S = mixed_rows(96, 70, 2);
  ASSERT_FALSE(S.is_sorted_and_unique());
  ASSERT_NE(S.nnz() % 4, 0);
  const std::vector<Run> runs = standard_runs(false);
  std::set<std::string> seen;
  for (int64_t Ts : {4, 16, 20}) {
    const auto f = K::run_csr(S, Ts, "mixed rows", Ts == 16 ? runs : subset(runs, {7, 32, 33}), 200 + Ts);
    seen.insert(f.begin(), f.end());
  }
  EXPECT_TRUE(has_all(seen, {"iir 1", "wmt", "vector rows", "scalar rows", "residue quad", "partial last tile"}));
}

// COO in shuffled order (rows not monotone), with the index arrays as allocated (16-byte aligned:
// quads of indices as vectors) and one index into larger allocations (the residue handler's
// scalar loads for every quad).
TYPED_TEST(SddmmCudaEmulated, NonzeroTilesCoo) {
  using K = TypeParam;
  using Scalar = typename K::Scalar;
  const HostCsr S = test::rounded<Scalar>(mixed_rows(80, 50, 3));
  std::vector<int64_t> order = K::identity(S.nnz());
  std::mt19937_64 rng(test::seed_for(3));
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int64_t> row_of(S.nnz());
  for (int64_t i = 0; i < S.num_rows; ++i)
    for (int64_t k = S.row_map[i]; k < S.row_map[i + 1]; ++k) row_of[k] = i;
  const int64_t nnz = S.nnz();
  typename K::Values values("values", nnz);
  for (int64_t p = 0; p < nnz; ++p) values(p) = static_cast<Scalar>(S.values[order[p]]);
  std::set<std::string> seen;
  const std::vector<Run> runs = standard_runs(false);
  for (int64_t first : {0, 1}) {
    typename K::Index rows_all("rows", first + nnz), cols_all("cols", first + nnz);
    for (int64_t p = 0; p < nnz; ++p) {
      rows_all(first + p) = static_cast<int>(row_of[order[p]]);
      cols_all(first + p) = S.entries[order[p]];
    }
    const auto rows = Kokkos::subview(rows_all, std::make_pair(first, first + nnz));
    const auto cols = Kokkos::subview(cols_all, std::make_pair(first, first + nnz));
    for (int64_t Ts : {16, 20}) {
      const auto an = K::coo_analysis(S.num_rows, S.num_cols, rows, cols, values, Ts);
      const auto f = K::run_all(an, S, order, SddmmKernel::nonzero_tiles,
                                first ? "COO, misaligned indices" : "COO", Ts == 16 ? runs : subset(runs, {1, 33}),
                                300 + 10 * first + Ts);
      seen.insert(f.begin(), f.end());
    }
  }
  EXPECT_TRUE(has_all(seen, {"vector quads", "scalar quads", "residue quad", "iir 1", "wmt"}));
}

// Heavy tiles in every panel (even columns heavy, W = 8), a row of every column: panels of 16
// rows (a warp per row) and of 40 rows (up to three rows per warp, a panel cut short by the
// matrix end); every K, so K-slices of 1 to 32 columns through the workspace.
TYPED_TEST(SddmmCudaEmulated, AsptHeavyTiles) {
  using K = TypeParam;
  const HostCsr S = heavy_columns(48, 40, 24, 5, 4);
  std::set<std::string> seen = K::run_aspt(S, tiling(16, 8), "48 x 40, P 16, W 8", aspt_wide_runs(), 400, 6);
  const auto f = K::run_aspt(S, tiling(40, 8), "48 x 40, P 40, W 8", subset(standard_runs(false), {7, 33, 64}), 500, 4);
  seen.insert(f.begin(), f.end());
  EXPECT_TRUE(has_all(seen, {"aspt heavy tiles", "aspt slices > 1", "aspt rows per warp > 1", "aspt grid-stride"}));
}

// The calibrated CUDA tiling (W = 256 slots, P = 256 float / 160 double: one panel of 16 warps
// with many rows each; for double the staged tile takes 64 KiB, above the 48 KiB opt-in).
TYPED_TEST(SddmmCudaEmulated, AsptCalibratedTiling) {
  using K = TypeParam;
  const HostCsr S = heavy_columns(64, 40, 16, 9, 5);
  const auto seen = K::run_aspt(S, SpmmTiling{}, "64 x 40, calibrated tiling", subset(standard_runs(false), {7, 33}),
                                600, 1);
  EXPECT_TRUE(has_all(seen, {"aspt heavy tiles", "aspt rows per warp > 1"}));
  if (sizeof(typename K::Scalar) == 8) EXPECT_TRUE(has_all(seen, {"aspt shared > 48 KiB"}));
}

// Power-law rows with empty panels (rows 16..47 emptied), and a matrix without heavy tiles (no
// shared memory, light entries only).
TYPED_TEST(SddmmCudaEmulated, AsptLightAndEmptyPanels) {
  using K = TypeParam;
  const HostCsr S = test::empty_rows_unless(power_law(7), [](int64_t i) { return i < 16 || i >= 48 || i == 21; });
  std::set<std::string> seen =
      K::run_aspt(S, tiling(16, 8), "R-MAT with empty panels", subset(standard_runs(false), {1, 32, 33, 64}), 700, 1);
  const HostCsr L = test::random_csr(40, 300, 3, 8);
  const auto f = K::run_aspt(L, tiling(16, 8, 40), "40 x 300, no heavy column", subset(standard_runs(false), {7, 33}),
                             800, 0);
  seen.insert(f.begin(), f.end());
  EXPECT_TRUE(has_all(seen, {"aspt heavy tiles", "aspt slices > 1"}));
}

// The workspace of partial sums: grown by the launcher from too small, then reused.
TYPED_TEST(SddmmCudaEmulated, AsptWorkspace) {
  using K = TypeParam;
  using Scalar = typename K::Scalar;
  const HostCsr S = test::rounded<Scalar>(heavy_columns(32, 40, 24, 3, 9));
  const typename K::Crs s = to_crs<typename K::Crs>(S);
  const SpmmTiling t = tiling(16, 8);
  const auto an = K::csr_analysis(s, 16, &t);
  an.workspace.partial = typename K::Values("small", 3);
  const Run r{64, Operands::right, SddmmForm::scaled, 1.0, 0.0, 2};
  const auto schedule = emu::standard_schedules(test::seed_for(9)).front();
  std::set<std::string> f;
  EXPECT_TRUE(K::check(an, S, K::identity(S.nnz()), SddmmKernel::aspt, r, schedule, 900, &f));
  ASSERT_EQ(static_cast<int64_t>(an.workspace.partial.extent(0)), S.nnz());
  const Scalar* grown = an.workspace.partial.data();
  EXPECT_TRUE(K::check(an, S, K::identity(S.nnz()), SddmmKernel::aspt, r, schedule, 910, &f));
  EXPECT_EQ(an.workspace.partial.data(), grown);
  EXPECT_TRUE(has_all(f, {"aspt slices > 1"}));
}

// Mutation check of the tests themselves: a layout for the host (tiles of consecutive heavy
// columns, slots colliding modulo W) run by the CUDA kernel must give wrong results, and the
// check used everywhere here must say so.
TYPED_TEST(SddmmCudaEmulated, AsptSlotCollisionsAreSeen) {
  using K = TypeParam;
  using Scalar = typename K::Scalar;
  const HostCsr S = test::rounded<Scalar>(heavy_columns(32, 40, 24, 3, 10));
  const typename K::Crs s = to_crs<typename K::Crs>(S);
  const SpmmTiling t = tiling(16, 4);
  const auto an = K::csr_analysis(s, 16, &t, SpmmTarget::host);
  ASSERT_TRUE(K::slots_collide(an));
  const Run r{32, Operands::right, SddmmForm::pattern, 1.0, 0.0, 2};
  std::set<std::string> f;
  EXPECT_FALSE(K::check(an, S, K::identity(S.nnz()), SddmmKernel::aspt, r,
                        emu::standard_schedules(test::seed_for(10)).front(), 1000, &f));
}
