// spmm-calibrate: measures where adaptive sparse tiling (ASpT) starts to pay on a target and
// writes the calibrated defaults (impl/spmm/spmm_defaults_generated.hpp). Paper: aspt-spmm-sddmm,
// section 3 (Fig. 5) and section 4.4: synthetic matrices with uniformly random nonzeros of
// increasing column-segment density nnz_colseg = P * nnz / (M * N) (P = panel rows), timed with
// the untiled CSR kernel and with everything tiled; the heavy threshold is the crossover density.
//
//   spmm-calibrate [--target host|cuda|portable] [--output FILE] [--quick] [--repeat N] [--warmup N]
//
// Every time is the fastest of --repeat interleaved applies (after --warmup untimed ones).
//
// Pass 1 (crossover, tile sizes): for every density and K in {32, 128} (B and C LayoutRight),
//   the forced csr_rows kernel and the forced aspt kernel with heavy_threshold = 1 (every nonzero
//   in a heavy tile) for each (panel_rows, tile_cols) of a small grid, timed interleaved. The
//   speedup of a configuration at a density is t_csr / t_aspt, combined over K by the geometric
//   mean. The winning configuration has the largest geometric-mean speedup over the densities
//   where tiling won at all (over every density when it never won). The crossover is the lowest
//   density from which the winner's speedup stays >= 1.02 (a win beyond timing noise),
//   interpolated in log density between the two sweep points around it; heavy_threshold =
//   ceil(crossover, counted in the winner's panel), at least 2 (a segment with one nonzero has
//   nothing to reuse).
// Pass 2 (min_heavy_fraction): the winner with that heavy_threshold against csr_rows again on
//   every density. Low densities leave few nonzeros in heavy tiles, high densities almost all:
//   the sweep maps heavy fraction -> speedup. min_heavy_fraction is the heavy fraction where that
//   curve crosses 1.02 for good (linear interpolation in the fraction), i.e. the fraction above
//   which the aspt plan beat csr_rows over the whole matrix; 0 when it always won, 1 when it
//   never did.
//
// Targets: host (forced csr_rows / aspt on Kokkos::DefaultHostExecutionSpace), cuda (the same on
// Kokkos::Cuda; CUDA builds only), portable (the portable kernel on the default execution space,
// untiled = a heavy threshold no column segment reaches, tiled = heavy_threshold 1). The values
// of the targets not calibrated in a run are kept: the compiled-in constants, or the values and
// comment block of the existing --output file when it has them (it is newer when the file was
// regenerated after this binary was built).
//
// Without --output the file goes to stdout; progress and tables go to stderr. --quick: small
// sizes and a reduced grid, a smoke run (seconds), not defaults worth checking in.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

#include "Sprocket_Crs.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Spmm.hpp"
#include "bench_common.hpp"
#include "impl/spmm/spmm_defaults_generated.hpp"

namespace {

using sprocket_bench::UsageError;

struct Settings {
  std::string target = "host";
  std::string output;
  bool quick = false;
  int repeat = 5;
  int warmup = 1;
  std::string command;  ///< the command line, for the file's header
  std::string load_at_start;
};

/// Sizes of the sweep. Matrix at density d (nonzeros per column segment of reference_panel rows):
/// cols columns, avg_row = d * cols / reference_panel, rows chosen for about target_nnz nonzeros
/// but at least min_rows (enough panels for every thread).
struct Sweep {
  int64_t cols = 0;
  int64_t target_nnz = 0;
  int64_t min_rows = 0;
  int64_t reference_panel = 256;
  std::vector<double> densities;
  std::vector<int64_t> ks;
  std::vector<int64_t> panel_rows;
  std::vector<int64_t> tile_cols;
};

Sweep sweep_for(const std::string& target, bool quick) {
  Sweep s;
  s.ks = {32, 128};
  if (quick) {
    s.cols = 4096;
    s.target_nnz = 200000;
    s.min_rows = 1024;
    s.densities = {1, 4, 16};
    s.panel_rows = {256};
    s.tile_cols = target == "cuda" ? std::vector<int64_t>{128, 256} : std::vector<int64_t>{256, 1024};
    return s;
  }
  s.densities = {0.5, 1, 2, 4, 8, 16, 32, 64};
  if (target == "cuda") {
    // B beyond the 50-60 MB L2 at K = 128; tiles limited by the kernel's shared-memory staging
    // (impl/spmm/cuda/spmm_cuda_limits.hpp: <= 256 slots for double, panels of <= 256 rows).
    s.cols = 65536;
    s.target_nnz = 32 << 20;
    s.min_rows = 16384;
    s.panel_rows = {64, 128, 256};
    s.tile_cols = {64, 128, 256};
  } else {
    // Host: B = cols * K * 8 bytes is 4 MB (K = 32) / 16 MB (K = 128), far beyond a core's L2, so
    // untiled CSR reads it from L3 or memory; tile footprints (tile_cols * K * 8) from 64 KB to
    // 1 MB bracket the L2 (4096-column tiles lost everywhere in a first full sweep on the CI
    // machine and are left out). About 1M nonzeros per matrix (up to 4M at the densest, where
    // min_rows binds) keeps a full run within about 5 minutes on 2 threads.
    s.cols = 16384;
    s.target_nnz = 1 << 20;
    s.panel_rows = {128, 256, 512};
    s.tile_cols = {256, 1024};
  }
  // At least one of the largest panels per thread (and 1024 rows), so that every thread has work.
  const int64_t threads = target == "host" ? Kokkos::DefaultHostExecutionSpace().concurrency()
                                           : Kokkos::DefaultExecutionSpace().concurrency();
  if (target != "cuda")
    s.min_rows = std::max<int64_t>(1024, s.panel_rows.back() * std::max<int64_t>(1, threads));
  return s;
}

struct Config {
  int64_t panel_rows = 0, tile_cols = 0;
  std::string label() const { return std::to_string(panel_rows) + "x" + std::to_string(tile_cols); }
};

/// One sweep point (density, K).
struct Point {
  double density = 0;  ///< measured nnz_colseg at the reference panel
  int64_t rows = 0, nnz = 0, k = 0;
  double csr_seconds = 0;
  std::vector<double> aspt_seconds;  ///< pass 1, per config (NaN: config refused)
  // pass 2
  double csr2_seconds = 0, aspt_h_seconds = 0, heavy_fraction = 0;
};

double now_seconds() {
  using namespace std::chrono;
  static const auto t0 = steady_clock::now();
  return duration<double>(steady_clock::now() - t0).count();
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (double x : v)
    if (x > 0 && std::isfinite(x)) {
      s += std::log(x);
      ++n;
    }
  return n ? std::exp(s / n) : std::nan("");
}

/// Synthetic matrix of the paper's Fig. 5: uniformly random nonzeros, `density` nonzeros per
/// column segment of the reference panel on average.
Sprocket::HostCsr synthetic(const Sweep& s, double density, uint64_t seed) {
  const double avg_row = std::min<double>(static_cast<double>(s.cols), density * s.cols / s.reference_panel);
  const int64_t rows = std::max<int64_t>(s.min_rows, std::llround(s.target_nnz / avg_row));
  return Sprocket::gen::uniform_random(rows, s.cols, avg_row, seed);
}

template <class Device>
struct Runner {
  using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
  using Plan = Sprocket::SpmmPlan<Crs>;
  using Mat = Kokkos::View<double**, Kokkos::LayoutRight, Device>;

  const Settings& settings;
  const Sweep& sweep;
  bool portable = false;

  /// The untiled reference: forced csr_rows, or (portable) a heavy threshold above any segment.
  Sprocket::SpmmOptions untiled_options() const {
    Sprocket::SpmmOptions o;
    if (portable) {
      o.backend = Sprocket::Backend::portable;  // its kernel: the portable backend's choice
      o.tiling.panel_rows = sweep.reference_panel;
      o.tiling.heavy_threshold = sweep.reference_panel + 1;
      o.tiling.min_heavy_fraction = 1.0;
    } else {
      o.kernel = Sprocket::SpmmKernel::csr_rows;
    }
    return o;
  }
  Sprocket::SpmmOptions tiled_options(const Config& c, int64_t heavy_threshold) const {
    Sprocket::SpmmOptions o;
    if (portable) {
      o.backend = Sprocket::Backend::portable;  // its kernel: the portable backend's choice
    } else {
      o.kernel = Sprocket::SpmmKernel::aspt;
    }
    o.tiling.panel_rows = c.panel_rows;
    o.tiling.tile_cols = c.tile_cols;
    o.tiling.heavy_threshold = heavy_threshold;
    o.tiling.min_heavy_fraction = 0.0;
    return o;
  }

  static Mat make_b(int64_t cols, int64_t K) {
    Mat B(Kokkos::ViewAllocateWithoutInitializing("spmm-calibrate::B"), cols, K);
    auto Bh = Kokkos::create_mirror_view(B);
    for (int64_t i = 0; i < cols; ++i)
      for (int64_t j = 0; j < K; ++j) Bh(i, j) = sprocket_bench::input_value(i * K + j, 7);
    Kokkos::deep_copy(B, Bh);
    return B;
  }

  /// ||C - C_ref||_F / ||C_ref||_F for the sanity check (a kernel that computes something else
  /// must not be calibrated).
  static double relative_difference(const Mat& C, const Mat& C_ref) {
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
    auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C_ref);
    double d2 = 0, r2 = 0;
    for (size_t i = 0; i < a.extent(0); ++i)
      for (size_t j = 0; j < a.extent(1); ++j) {
        const double d = a(i, j) - b(i, j);
        d2 += d * d;
        r2 += b(i, j) * b(i, j);
      }
    return std::sqrt(d2 / std::max(r2, 1e-300));
  }

  /// Times plans[0] (untiled) and every other plan (nullptr: skipped, NaN) on the same A, B, C,
  /// after checking each result against the untiled one. Returns seconds per plan.
  std::vector<double> time_plans(const std::vector<std::shared_ptr<Plan>>& plans, int64_t cols, int64_t rows,
                                 int64_t K) const {
    const Mat B = make_b(cols, K);
    Mat C(Kokkos::ViewAllocateWithoutInitializing("spmm-calibrate::C"), rows, K);
    Mat C_ref(Kokkos::ViewAllocateWithoutInitializing("spmm-calibrate::C_ref"), rows, K);
    plans[0]->apply("N", 1.0, B, 0.0, C_ref);
    Kokkos::fence();
    std::vector<std::function<void()>> fns;
    std::vector<size_t> index;
    for (size_t p = 0; p < plans.size(); ++p) {
      if (!plans[p]) continue;
      const auto plan = plans[p];
      if (p > 0) {
        Kokkos::deep_copy(C, std::numeric_limits<double>::quiet_NaN());
        plan->apply("N", 1.0, B, 0.0, C);
        Kokkos::fence();
        const double diff = relative_difference(C, C_ref);
        if (!(diff <= 1e-10))
          throw std::runtime_error("spmm-calibrate: the tiled kernel (" + std::string(Sprocket::to_string(plan->kernel())) +
                                   ", panel_rows " + std::to_string(plan->tiling().panel_rows) + ", tile_cols " +
                                   std::to_string(plan->tiling().tile_cols) +
                                   ") disagrees with the untiled one: relative difference " + fmt("%.3e", diff));
      }
      fns.push_back([plan, B, C] { plan->apply("N", 1.0, B, 0.0, C); });
      index.push_back(p);
    }
    const std::vector<sprocket_bench::Timing> t =
        sprocket_bench::time_interleaved(fns, settings.warmup, settings.repeat);
    std::vector<double> seconds(plans.size(), std::nan(""));
    // The fastest repeat, not the median: on a shared machine interference only ever adds time,
    // and the calibration compares kernels, not the machine's load.
    for (size_t i = 0; i < index.size(); ++i) seconds[index[i]] = t[i].min;
    return seconds;
  }

  std::shared_ptr<Plan> make_plan(const Crs& A, const Sprocket::SpmmOptions& o, std::string* refusal) const {
    try {
      auto plan = std::make_shared<Plan>(A, o);
      return plan;
    } catch (const Sprocket::InvalidArgument& e) {
      if (refusal) *refusal = e.what();
      return nullptr;
    }
  }

  Crs load(double density, size_t index, Sprocket::HostCsr* host_out) const {
    Sprocket::HostCsr host = synthetic(sweep, density, 1000 + index);
    Crs A = Sprocket::to_crs<Crs>(host, "spmm-calibrate::A");
    *host_out = std::move(host);
    return A;
  }
};

/// A speedup counts as a win from this value on: timings on a shared machine scatter by a few
/// percent, and a kernel that is only as fast as the other is no reason to switch.
constexpr double win_margin = 1.02;

/// Crossover of a speedup curve: the lowest x from which y stays >= win_margin, interpolated in
/// log x (log_x) or linearly between the two sweep points around it. Returns -1 when y does not
/// end >= win_margin (tiling never won at the high end), x[0] when it won everywhere.
double crossover(const std::vector<double>& x, const std::vector<double>& y, bool log_x) {
  const size_t n = x.size();
  if (n == 0 || !(y[n - 1] >= win_margin)) return -1;
  size_t i = n - 1;
  while (i > 0 && y[i - 1] >= win_margin) --i;
  if (i == 0) return x[0];
  const double y0 = std::log(y[i - 1]), y1 = std::log(y[i]);
  const double f = y1 > y0 ? (std::log(win_margin) - y0) / (y1 - y0) : 1.0;
  if (log_x) return std::exp(std::log(x[i - 1]) + f * (std::log(x[i]) - std::log(x[i - 1])));
  return x[i - 1] + f * (x[i] - x[i - 1]);
}

struct Result {
  Sprocket::Impl::SpmmCalibratedDefaults defaults{};
  std::string table;  ///< the header comment's body for this target
};

template <class Device>
Result calibrate(const Settings& settings, const Sweep& sweep, bool portable) {
  using R = Runner<Device>;
  using Plan = typename R::Plan;
  R runner{settings, sweep, portable};
  std::vector<Config> configs;
  for (int64_t P : sweep.panel_rows)
    for (int64_t T : sweep.tile_cols) configs.push_back({P, T});
  std::ostream& log = std::cerr;
  std::ostringstream notes;

  // ---- pass 1: untiled vs everything tiled, per configuration
  std::vector<Point> points;
  std::vector<std::string> refused(configs.size());
  for (size_t di = 0; di < sweep.densities.size(); ++di) {
    Sprocket::HostCsr host;
    const auto A = runner.load(sweep.densities[di], di, &host);
    const double density = static_cast<double>(sweep.reference_panel) * static_cast<double>(host.nnz()) /
                           (static_cast<double>(host.num_rows) * static_cast<double>(host.num_cols));
    std::vector<std::shared_ptr<Plan>> plans{runner.make_plan(A, runner.untiled_options(), nullptr)};
    if (!plans[0]) throw std::runtime_error("spmm-calibrate: the untiled plan was refused");
    for (size_t c = 0; c < configs.size(); ++c) {
      std::string why;
      plans.push_back(runner.make_plan(A, runner.tiled_options(configs[c], 1), &why));
      if (!plans.back() && refused[c].empty()) refused[c] = why;
    }
    for (int64_t K : sweep.ks) {
      const std::vector<double> t = runner.time_plans(plans, host.num_cols, host.num_rows, K);
      Point p;
      p.density = density;
      p.rows = host.num_rows;
      p.nnz = host.nnz();
      p.k = K;
      p.csr_seconds = t[0];
      p.aspt_seconds.assign(t.begin() + 1, t.end());
      points.push_back(p);
      std::string best = "-";
      double best_s = std::numeric_limits<double>::infinity();
      for (size_t c = 0; c < configs.size(); ++c)
        if (p.aspt_seconds[c] < best_s) {
          best_s = p.aspt_seconds[c];
          best = configs[c].label();
        }
      log << "[" << fmt("%6.1f", now_seconds()) << " s] density " << fmt("%6.2f", density) << "  rows " << p.rows
          << "  nnz " << p.nnz << "  K " << K << ": csr_rows " << fmt("%.3e", p.csr_seconds) << " s, best aspt "
          << best << " " << fmt("%.3e", best_s) << " s (x" << fmt("%.2f", p.csr_seconds / best_s) << ")\n";
    }
  }
  for (size_t c = 0; c < configs.size(); ++c)
    if (!refused[c].empty()) notes << "  config " << configs[c].label() << " refused by the plan: " << refused[c] << "\n";

  // Speedup per (density, config), geometric mean over K.
  const size_t nd = sweep.densities.size(), nk = sweep.ks.size();
  std::vector<double> density(nd);
  std::vector<std::vector<double>> speedup(configs.size(), std::vector<double>(nd));
  for (size_t d = 0; d < nd; ++d) {
    density[d] = points[d * nk].density;
    for (size_t c = 0; c < configs.size(); ++c) {
      std::vector<double> r;
      for (size_t k = 0; k < nk; ++k) r.push_back(points[d * nk + k].csr_seconds / points[d * nk + k].aspt_seconds[c]);
      speedup[c][d] = geomean(r);
    }
  }
  // Where tiling won at all: densities at which some configuration beat csr_rows.
  std::vector<bool> won(nd, false);
  for (size_t d = 0; d < nd; ++d)
    for (size_t c = 0; c < configs.size(); ++c) won[d] = won[d] || speedup[c][d] >= win_margin;
  const bool any_won = std::find(won.begin(), won.end(), true) != won.end();
  size_t winner = 0;
  double winner_score = -1;
  for (size_t c = 0; c < configs.size(); ++c) {
    std::vector<double> r;
    for (size_t d = 0; d < nd; ++d)
      if (!any_won || won[d]) r.push_back(speedup[c][d]);
    const double g = geomean(r);
    if (g > winner_score) {
      winner_score = g;
      winner = c;
    }
  }
  const Config best = configs[winner];
  const double panel_scale = static_cast<double>(best.panel_rows) / static_cast<double>(sweep.reference_panel);
  const double cross = crossover(density, speedup[winner], true);
  int64_t heavy_threshold;
  if (cross < 0) {
    // Tiling never won: a threshold beyond the densest sweep point keeps almost every segment light.
    heavy_threshold = std::max<int64_t>(2, static_cast<int64_t>(std::ceil(2 * density.back() * panel_scale)));
  } else {
    heavy_threshold = std::max<int64_t>(2, static_cast<int64_t>(std::ceil(cross * panel_scale - 1e-9)));
  }

  // ---- pass 2: the winner with the calibrated threshold, heavy fraction -> speedup
  std::vector<double> fraction(nd), speedup2(nd);
  for (size_t di = 0; di < nd; ++di) {
    Sprocket::HostCsr host;
    const auto A = runner.load(sweep.densities[di], di, &host);
    std::string why;
    std::vector<std::shared_ptr<Plan>> plans{runner.make_plan(A, runner.untiled_options(), nullptr),
                                             runner.make_plan(A, runner.tiled_options(best, heavy_threshold), &why)};
    if (!plans[1]) throw std::runtime_error("spmm-calibrate: pass 2 plan refused: " + why);
    fraction[di] = plans[1]->heavy_fraction();
    std::vector<double> r;
    for (size_t k = 0; k < nk; ++k) {
      const std::vector<double> t = runner.time_plans(plans, host.num_cols, host.num_rows, sweep.ks[k]);
      Point& p = points[di * nk + k];
      p.csr2_seconds = t[0];
      p.aspt_h_seconds = t[1];
      p.heavy_fraction = fraction[di];
      r.push_back(t[0] / t[1]);
    }
    speedup2[di] = geomean(r);
    log << "[" << fmt("%6.1f", now_seconds()) << " s] pass 2 density " << fmt("%6.2f", density[di])
        << ": heavy fraction " << fmt("%.3f", fraction[di]) << ", speedup x" << fmt("%.2f", speedup2[di]) << "\n";
  }
  // The heavy fraction grows with the density; the fraction -> speedup curve's crossing.
  std::vector<size_t> order(nd);
  for (size_t i = 0; i < nd; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fraction[a] < fraction[b]; });
  std::vector<double> fx, fy;
  for (size_t i : order) {
    fx.push_back(fraction[i]);
    fy.push_back(speedup2[i]);
  }
  double min_heavy_fraction;
  const double fcross = crossover(fx, fy, false);
  if (fcross < 0) min_heavy_fraction = 1.0;
  else if (fcross == fx[0] && fy[0] >= win_margin) min_heavy_fraction = 0.0;
  else min_heavy_fraction = std::min(1.0, std::max(0.0, fcross));
  min_heavy_fraction = std::round(min_heavy_fraction * 1000) / 1000;

  Result res;
  res.defaults = {best.panel_rows, best.tile_cols, heavy_threshold, min_heavy_fraction};

  // ---- the table for the header comment
  std::ostringstream os;
  os << "  sweep: uniform random, " << sweep.cols << " columns, ~" << sweep.target_nnz << " nonzeros (rows >= "
     << sweep.min_rows << "), density = nonzeros per column segment of " << sweep.reference_panel
     << " rows; B, C LayoutRight double; fastest of " << settings.repeat << " (warm-up " << settings.warmup << ")\n";
  os << "  untiled: " << (portable ? "portable kernel, no heavy segment" : "csr_rows") << "; tiled: "
     << (portable ? "portable kernel" : "aspt") << ", heavy_threshold 1, P x T_N = panel_rows x tile_cols\n";
  os << "  pass 1, speedup t_untiled / t_tiled (geomean over K " ;
  for (size_t k = 0; k < nk; ++k) os << (k ? "," : "") << sweep.ks[k];
  os << "):\n    density    rows      nnz  untiled ms (K=" << sweep.ks.front() << ")";
  for (const Config& c : configs) os << " " << std::string(c.label().size() < 9 ? 9 - c.label().size() : 0, ' ') << c.label();
  os << "\n";
  for (size_t d = 0; d < nd; ++d) {
    os << fmt("    %7.2f", density[d]) << fmt(" %7.0f", static_cast<double>(points[d * nk].rows))
       << fmt(" %8.0f", static_cast<double>(points[d * nk].nnz)) << fmt("  %16.3f", points[d * nk].csr_seconds * 1e3);
    for (size_t c = 0; c < configs.size(); ++c) os << fmt(" %9.2f", speedup[c][d]);
    os << "\n";
  }
  os << "  per K (untiled ms / best tiled ms, config):\n";
  for (const Point& p : points) {
    size_t b = 0;
    for (size_t c = 1; c < configs.size(); ++c)
      if (p.aspt_seconds[c] < p.aspt_seconds[b] || std::isnan(p.aspt_seconds[b])) b = c;
    os << fmt("    density %6.2f", p.density) << fmt("  K %4.0f", static_cast<double>(p.k))
       << fmt(": %9.3f /", p.csr_seconds * 1e3) << fmt(" %9.3f", p.aspt_seconds[b] * 1e3) << "  " << configs[b].label()
       << "\n";
  }
  os << notes.str();
  os << "  winner " << best.label() << ": geomean speedup " << fmt("%.2f", winner_score) << " over "
     << (any_won ? "the densities where tiling won" : "all densities (tiling never won)") << "\n";
  if (cross < 0)
    os << "  crossover: none (the tiled kernel never ended ahead) -> heavy_threshold " << heavy_threshold
       << " (beyond the sweep)\n";
  else
    os << "  crossover density " << fmt("%.2f", cross) << " per " << sweep.reference_panel << "-row segment = "
       << fmt("%.2f", cross * panel_scale) << " per " << best.panel_rows << "-row panel -> heavy_threshold "
       << heavy_threshold << "\n";
  os << "  pass 2 (" << best.label() << ", heavy_threshold " << heavy_threshold
     << "): heavy fraction -> speedup t_untiled / t_aspt (geomean over K)\n";
  for (size_t i : order)
    os << fmt("    density %6.2f", density[i]) << fmt("  heavy fraction %.3f", fraction[i])
       << fmt("  speedup %.2f", speedup2[i]) << "\n";
  os << "  min_heavy_fraction " << fmt("%.3f", min_heavy_fraction)
     << (fcross < 0 ? " (aspt never won: only fully heavy matrices)"
                    : " (the heavy fraction at the speedup-1 crossing, linear interpolation)")
     << "\n";
  res.table = os.str();
  return res;
}

// ------------------------------------------------------------------------------------------
// The generated file

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  int threads = 0;
  while (std::getline(in, line)) {
    if (line.rfind("processor", 0) == 0) ++threads;
    if (line.rfind("model name", 0) == 0 && model == "unknown CPU") {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return model + ", " + std::to_string(threads) + " hardware threads";
}

std::string machine_line(const std::string& target) {
  std::ostringstream os;
  os << cpu_model();
  if (target == "cuda") {
#ifdef KOKKOS_ENABLE_CUDA
    int dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
      os << "; GPU " << prop.name << " (sm_" << prop.major << prop.minor << ")";
#endif
  } else {
    os << "; " << Kokkos::DefaultHostExecutionSpace::name() << " concurrency "
       << Kokkos::DefaultHostExecutionSpace().concurrency();
    for (const char* v : {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES"})
      if (const char* e = std::getenv(v)) os << ", " << v << "=" << e;
  }
  return os.str();
}

/// The 1-minute load average (/proc/loadavg), to judge how far the timings can be trusted on a
/// shared machine; "unknown" elsewhere.
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one;
  return in >> one ? one : std::string("unknown");
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

/// The comment block of `target` in an existing generated file ("// [target X]" ... "// [end
/// target X]"), or "" when there is none.
std::string existing_block(const std::string& path, const std::string& target) {
  std::ifstream in(path);
  if (!in) return "";
  std::string line, block;
  bool inside = false;
  const std::string begin = "// [target " + target + "]", end = "// [end target " + target + "]";
  while (std::getline(in, line)) {
    if (line.rfind(begin, 0) == 0) inside = true;
    if (inside) block += line + "\n";
    if (inside && line.rfind(end, 0) == 0) return block;
  }
  return "";
}

/// The values of `name` (e.g. "spmm_defaults_cuda") in an existing generated file; false when the
/// file or the line is missing or malformed.
bool existing_values(const std::string& path, const std::string& name, Sprocket::Impl::SpmmCalibratedDefaults* out) {
  std::ifstream in(path);
  std::string line;
  const std::string prefix = "inline constexpr SpmmCalibratedDefaults " + name + "{";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    long long p = 0, t = 0, h = 0;
    double f = 0;
    if (std::sscanf(line.c_str() + prefix.size(), "%lld , %lld , %lld , %lf", &p, &t, &h, &f) != 4) return false;
    *out = {p, t, h, f};
    return true;
  }
  return false;
}

std::string defaults_line(const char* name, const Sprocket::Impl::SpmmCalibratedDefaults& d) {
  std::ostringstream os;
  os << "inline constexpr SpmmCalibratedDefaults " << name << "{" << d.panel_rows << ", " << d.tile_cols << ", "
     << d.heavy_threshold << ", " << fmt("%.3f", d.min_heavy_fraction) << "};\n";
  return os.str();
}

std::string generate(const Settings& s, const Result& r) {
  const std::string targets[] = {"host", "cuda", "portable"};
  const Sprocket::Impl::SpmmCalibratedDefaults current[] = {
      Sprocket::Impl::spmm_defaults_host, Sprocket::Impl::spmm_defaults_cuda, Sprocket::Impl::spmm_defaults_portable};
  std::ostringstream os;
  os << "#pragma once\n"
        "// ASpT defaults per target, written by perf_tests/spmm_calibrate.cpp (the paper's Fig. 5\n"
        "// experiment: synthetic matrices of varying column-segment density; the heavy threshold is the\n"
        "// density where the tiled kernel overtakes the untiled one). Regenerate one target with\n"
        "//   build/host/bin/spmm-calibrate --target host --output impl/spmm/spmm_defaults_generated.hpp\n"
        "// (cuda: build/cuda/bin/spmm-calibrate --target cuda ...); the other targets' values are kept.\n"
        "//\n";
  for (const std::string& t : targets) {
    if (t == s.target) {
      os << "// [target " << t << "] calibrated " << utc_now() << "\n";
      os << "//   command: " << s.command << "\n";
      os << "//   machine: " << machine_line(t) << "\n";
      os << "//   load average (1 min) at the start " << s.load_at_start << ", at the end " << load_average() << "\n";
      std::istringstream lines(r.table);
      std::string line;
      while (std::getline(lines, line)) os << "// " << line << "\n";
      os << "// [end target " << t << "]\n";
    } else {
      const std::string kept = s.output.empty() ? "" : existing_block(s.output, t);
      if (!kept.empty()) os << kept;
      else os << "// [target " << t << "] not calibrated: prior values\n// [end target " << t << "]\n";
    }
  }
  os << "#include <cstdint>\n\n"
        "namespace Sprocket {\n"
        "namespace Impl {\n\n"
        "struct SpmmCalibratedDefaults {\n"
        "  int64_t panel_rows;\n"
        "  int64_t tile_cols;\n"
        "  int64_t heavy_threshold;\n"
        "  double min_heavy_fraction;\n"
        "};\n\n";
  const char* names[] = {"spmm_defaults_host", "spmm_defaults_cuda", "spmm_defaults_portable"};
  for (int i = 0; i < 3; ++i) {
    Sprocket::Impl::SpmmCalibratedDefaults kept = current[i];
    // The file being replaced is the more recent truth when this binary was compiled before its
    // last regeneration; its values go with the comment block kept above.
    Sprocket::Impl::SpmmCalibratedDefaults in_file{};
    if (targets[i] != s.target && !s.output.empty() && existing_values(s.output, names[i], &in_file)) {
      if (in_file.panel_rows != kept.panel_rows || in_file.tile_cols != kept.tile_cols ||
          in_file.heavy_threshold != kept.heavy_threshold ||
          std::abs(in_file.min_heavy_fraction - kept.min_heavy_fraction) > 5e-4)
        std::cerr << "spmm-calibrate: " << names[i] << " in " << s.output
                  << " differs from the values compiled into this binary (built before the file changed); keeping "
                     "the file's\n";
      kept = in_file;
    }
    os << defaults_line(names[i], targets[i] == s.target ? r.defaults : kept);
  }
  os << "\n}  // namespace Impl\n}  // namespace Sprocket\n";
  return os.str();
}

void usage(std::ostream& os) {
  os << "usage: spmm-calibrate [--target host|cuda|portable] [--output FILE] [--quick] [--repeat N] [--warmup N]\n"
        "  --target T   host (default): csr_rows vs aspt on the host space; cuda (CUDA builds): on\n"
        "               Kokkos::Cuda; portable: the portable kernel on the default space\n"
        "  --output F   write the generated defaults header to F (default: stdout), e.g.\n"
        "               impl/spmm/spmm_defaults_generated.hpp\n"
        "  --quick      small sizes and grid: a smoke run, not defaults to check in\n"
        "  --repeat N   timed applies per kernel and point, the fastest used (default 5)\n"
        "  --warmup N   untimed applies first (default 1)\n";
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    auto integer = [&](int min) {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < min) throw UsageError(a + " needs an integer >= " + std::to_string(min));
      return static_cast<int>(n);
    };
    if (a == "--target") s.target = value();
    else if (a == "--output") s.output = value();
    else if (a == "--quick") s.quick = true;
    else if (a == "--repeat") s.repeat = integer(1);
    else if (a == "--warmup") s.warmup = integer(0);
    else if (a.rfind("--kokkos-", 0) == 0) continue;
    else throw UsageError("unknown argument \"" + a + "\"");
  }
  if (s.target != "host" && s.target != "cuda" && s.target != "portable")
    throw UsageError("--target must be host, cuda or portable, not \"" + s.target + "\"");
#ifndef KOKKOS_ENABLE_CUDA
  if (s.target == "cuda") throw UsageError("--target cuda needs a CUDA build (this one has no Kokkos::Cuda)");
#endif
  return s;
}

int run(const Settings& s) {
  const Sweep sweep = sweep_for(s.target, s.quick);
  Result r;
  if (s.target == "host") {
    using HostDevice = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>;
    r = calibrate<HostDevice>(s, sweep, false);
  } else if (s.target == "portable") {
    r = calibrate<Kokkos::DefaultExecutionSpace::device_type>(s, sweep, true);
  } else {
#ifdef KOKKOS_ENABLE_CUDA
    r = calibrate<Kokkos::Device<Kokkos::Cuda, Kokkos::CudaSpace>>(s, sweep, false);
#endif
  }
  std::cerr << "spmm-calibrate: target " << s.target << ": panel_rows " << r.defaults.panel_rows << ", tile_cols "
            << r.defaults.tile_cols << ", heavy_threshold " << r.defaults.heavy_threshold << ", min_heavy_fraction "
            << r.defaults.min_heavy_fraction << "\n"
            << r.table;
  const std::string text = generate(s, r);
  if (s.output.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(s.output);
    if (!(out << text)) throw std::runtime_error("spmm-calibrate: cannot write " + s.output);
    std::cerr << "spmm-calibrate: wrote " << s.output << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command = "spmm-calibrate";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      usage(std::cout);
      return 0;
    }
  Kokkos::initialize(argc, argv);
  int status = 0;
  try {
    Settings s = parse(argc, argv);
    s.command = command;
    s.load_at_start = load_average();
    status = run(s);
  } catch (const UsageError& e) {
    std::cerr << "spmm-calibrate: " << e.what() << "\n";
    usage(std::cerr);
    status = 2;
  } catch (const std::exception& e) {
    std::cerr << "spmm-calibrate: " << e.what() << "\n";
    status = 1;
  }
  Kokkos::finalize();
  return status;
}
