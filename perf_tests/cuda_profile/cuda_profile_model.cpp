// The counts, the occupancy and the H100 time model of sprocket-cuda-profile
// (cuda_profile_model.hpp).
#include "cuda_profile_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <stdexcept>

namespace Sprocket {
namespace cuda_profile {

Card h100_card() { return Card{"H100", 132, 64, 32, 228 * 1024, 1024, 65536, 50.0e6}; }
Card h200_card() { return Card{"H200", 132, 64, 32, 228 * 1024, 1024, 65536, 60.0e6}; }

ModelConstants h100_constants() {
  // Fitted by sprocket-cuda-profile --validate on perf_tests/results/gpu-h100-2026-11-26.jsonl and
  // gpu-h100-2026-11-26-variants.jsonl (29 cases in the fit, 11 held out; the run and its errors:
  // perf_tests/results/cuda-profile-h100-2026-11-27.md). The fit leaves DRAM unbounded: on these
  // cases the sectors through L2 always bound before the footprint does, and the per-warp cost
  // takes in the launch's (launch_us near 0).
  ModelConstants c;
  c.launch_us = 0.00034;
  c.dram_gbps = 3.317e11;
  c.l2_gbps = 4138.0;
  c.request_us = 0.0262;
  c.sector_us = 0.01554;
  c.overlap = 1.0;
  c.warp_us = 1.788;
  c.shared_us = 0.2941;
  c.sync_us = 0.0355;
  return c;
}

std::string kernel_base_name(const std::string& expression) {
  std::string s = expression.substr(0, expression.find('<'));
  s = s.substr(0, s.find('('));
  const size_t colon = s.rfind("::");
  if (colon != std::string::npos) s = s.substr(colon + 2);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}


std::map<std::string, KernelResources> read_resource_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the resource log " + path);
  std::map<std::string, KernelResources> out;
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  // cuobjdump -res-usage: "Function <mangled>:" then "REG:32 STACK:0 SHARED:0 LOCAL:0 ...".
  static const std::regex function(R"(^\s*Function ([^:\s]+):)");
  static const std::regex usage(R"(REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+))");
  std::string line, current;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, props) ||
        std::regex_search(line, m, function)) {
      current = cuda_emulation::unqualified_name(m[1].str());
      continue;
    }
    if (current.empty()) continue;
    KernelResources& r = out[current];
    if (std::regex_search(line, m, usage)) {
      r.known = true;
      r.registers = std::max(r.registers, std::stoi(m[1].str()));
      r.stack_frame_bytes = std::max(r.stack_frame_bytes, std::stoi(m[2].str()));
      r.static_shared_bytes = std::max(r.static_shared_bytes, std::stoi(m[3].str()));
      r.spill_store_bytes = std::max(r.spill_store_bytes, std::stoi(m[4].str()));  // local memory: spills
      continue;
    }
    if (std::regex_search(line, m, frame)) {
      r.stack_frame_bytes = std::max(r.stack_frame_bytes, std::stoi(m[1].str()));
      r.spill_store_bytes = std::max(r.spill_store_bytes, std::stoi(m[2].str()));
      r.spill_load_bytes = std::max(r.spill_load_bytes, std::stoi(m[3].str()));
    }
    if (std::regex_search(line, m, used)) {
      r.known = true;
      r.registers = std::max(r.registers, std::stoi(m[1].str()));
      if (std::regex_search(line, m, smem)) r.static_shared_bytes = std::max(r.static_shared_bytes, std::stoi(m[1].str()));
    }
  }
  return out;
}

const KernelResources& resources_for(const std::map<std::string, KernelResources>& resources,
                                     const std::string& kernel, const std::string& launched_at) {
  static const KernelResources unknown;
  const std::string base = kernel_base_name(kernel);
  auto it = resources.find(base);
  if (it != resources.end()) return it->second;
  // A launcher's local name ("aspt_kernel" for spmm_aspt_kernel): the kernel family's own, named by
  // the launcher's file (spmm_cuda.hpp -> spmm_), else any name that ends the same way.
  const std::string family = launched_at.substr(0, launched_at.find("_cuda"));
  it = resources.find(family + "_" + base);
  if (!family.empty() && it != resources.end()) return it->second;
  for (const auto& [name, r] : resources)
    if (name.size() > base.size() && name.compare(name.size() - base.size(), base.size(), base) == 0) return r;
  return unknown;
}

Occupancy theoretical_occupancy(const Card& card, unsigned block, size_t shared_bytes, const KernelResources& r) {
  Occupancy o;
  const int warps_per_block = static_cast<int>((block + 31) / 32);
  int blocks = card.max_warps_per_multiprocessor / std::max(1, warps_per_block);
  o.limited_by = "warps";
  if (card.max_blocks_per_multiprocessor < blocks) {
    blocks = card.max_blocks_per_multiprocessor;
    o.limited_by = "blocks";
  }
  const int64_t shared = static_cast<int64_t>(shared_bytes) + r.static_shared_bytes;
  if (shared > 0) {
    const int64_t by_shared = card.shared_bytes_per_multiprocessor / (shared + card.shared_bytes_reserved_per_block);
    if (by_shared < blocks) {
      blocks = static_cast<int>(by_shared);
      o.limited_by = "shared memory";
    }
  }
  if (r.known && r.registers > 0) {
    // Registers are allocated per warp in units of 256 (8 per thread, rounded up).
    const int64_t per_warp = ((r.registers * 32 + 255) / 256) * 256;
    const int64_t by_registers = card.registers_per_multiprocessor / (per_warp * warps_per_block);
    if (by_registers < blocks) {
      blocks = static_cast<int>(by_registers);
      o.limited_by = "registers";
    }
  }
  o.resident_warps = std::max(0, blocks) * warps_per_block;
  o.fraction = double(o.resident_warps) / card.max_warps_per_multiprocessor;
  return o;
}

namespace {
/// What a launch's counts stand for: the grid over the blocks recorded (1 without sampling).
double grid_scale(const cuda_emulation::LaunchProfile& l) {
  return l.blocks_recorded ? double(l.grid) / double(l.blocks_recorded) : 1.0;
}
}  // namespace

std::vector<LaunchFeatures> features_of(const ApplyProfile& profile, const Card& card,
                                        const std::map<std::string, KernelResources>& resources) {
  std::vector<LaunchFeatures> out;
  for (const auto& l : profile.launches) {
    LaunchFeatures f;
    f.kernel = l.kernel;
    f.launched_at = l.launched_at;
    f.grid = l.grid;
    f.block = l.block;
    f.shared_bytes = l.shared_bytes;
    const double scale = grid_scale(l);
    f.requests = scale * double(l.requests());
    f.sectors = scale * double(l.sectors());
    f.footprint_sectors = scale * double(l.footprint_sectors);
    f.warps = scale * double(l.warps);
    f.warp_requests_max = double(l.warp_requests_max);
    f.warp_sectors_max = double(l.warp_sectors_max);
    f.shared_wavefronts = scale * double(l.shared_wavefronts);
    f.warp_syncs = scale * double(l.warp_syncs);
    f.barriers = scale * double(l.barriers);
    f.resident_warps = theoretical_occupancy(card, l.block, l.shared_bytes, resources_for(resources, l.kernel, l.launched_at))
                           .resident_warps;
    out.push_back(f);
  }
  return out;
}

LaunchEstimate estimate(const LaunchFeatures& f, const ModelConstants& c, const Card& card) {
  LaunchEstimate e;
  const double footprint_bytes = 32.0 * f.footprint_sectors;
  const double rereference_bytes = std::max(0.0, 32.0 * f.sectors - footprint_bytes);
  const double l2_hit = footprint_bytes > 0 ? std::min(1.0, card.l2_bytes / footprint_bytes) : 1.0;
  const double dram_bytes = footprint_bytes + rereference_bytes * (1.0 - l2_hit);
  e.dram_ms = dram_bytes / (c.dram_gbps * 1e9) * 1e3;
  e.l2_ms = 32.0 * f.sectors / (c.l2_gbps * 1e9) * 1e3;
  const double slots = double(card.multiprocessors) * std::max(1, f.resident_warps);
  // A barrier holds every warp of its block.
  const double synchronizations = f.warp_syncs + f.barriers * std::ceil(f.block / 32.0);
  e.throughput_ms = 1e-3 *
                    (c.request_us * f.requests + c.sector_us * f.sectors + c.warp_us * f.warps +
                     c.shared_us * f.shared_wavefronts + c.sync_us * synchronizations) /
                    slots;
  e.critical_ms = 1e-3 * (c.request_us * f.warp_requests_max + c.sector_us * f.warp_sectors_max);
  e.launch_ms = c.launch_us * 1e-3;
  const double streaming = std::max({e.dram_ms, e.l2_ms, e.throughput_ms});
  const double body =
      std::pow(std::pow(streaming, c.overlap) + std::pow(e.critical_ms, c.overlap), 1.0 / c.overlap);
  e.total_ms = e.launch_ms + body;
  e.bound = body <= e.launch_ms               ? "launch"
            : e.critical_ms >= streaming      ? "critical path"
            : streaming == e.dram_ms          ? "dram"
            : streaming == e.l2_ms            ? "l2"
                                              : "throughput";
  return e;
}

double predict_ms(const std::vector<LaunchFeatures>& launches, const ModelConstants& c, const Card& card) {
  double t = 0;
  for (const auto& f : launches) t += estimate(f, c, card).total_ms;
  return t;
}

ApplySummary summarize(const ApplyProfile& p) {
  ApplySummary s;
  s.launches = p.launches.size();
  double load_useful = 0, load_sectors = 0, wavefronts = 0, ideal = 0, lanes = 0, instructions = 0, warps = 0,
         warp_requests = 0;
  for (const auto& l : p.launches) {
    const double scale = grid_scale(l);
    s.requests += scale * double(l.requests());
    s.sectors += scale * double(l.sectors());
    load_useful += scale * double(l.global_load_useful_bytes);
    load_sectors += scale * double(l.global_load_sectors);
    wavefronts += scale * double(l.shared_wavefronts);
    ideal += scale * double(l.shared_ideal_wavefronts);
    lanes += scale * double(l.active_lanes);
    instructions += scale * double(l.instructions);
    s.atomics += scale * double(l.atomic_requests);
    s.shared_requests += scale * double(l.shared_requests);
    s.warp_syncs += scale * double(l.warp_syncs);
    s.barriers += scale * double(l.barriers);
    s.warp_requests_max = std::max(s.warp_requests_max, double(l.warp_requests_max));
    warps += scale * double(l.warps);
    warp_requests += scale * l.warp_requests_mean * double(l.warps);
  }
  s.sectors_per_request = s.requests > 0 ? s.sectors / s.requests : 0;
  s.load_efficiency = load_sectors > 0 ? load_useful / (32.0 * load_sectors) : 0;
  s.bank_conflict_ways = ideal > 0 ? wavefronts / ideal : 1.0;
  s.active_lane_fraction = instructions > 0 ? lanes / (32.0 * instructions) : 0;
  s.warp_requests_mean = warps > 0 ? warp_requests / warps : 0;
  s.footprint_bytes = 32.0 * double(p.footprint_sectors);
  if (p.sample_every > 1 && !p.launches.empty()) {
    double recorded = 0, total = 0;
    for (const auto& l : p.launches) {
      recorded += double(l.blocks_recorded);
      total += double(l.grid);
    }
    if (recorded > 0) s.footprint_bytes *= total / recorded;
  }
  return s;
}

namespace {
double fit_error(const std::vector<FitCase>& cases, const Card& card, const ModelConstants& c) {
  double sum = 0;
  int n = 0;
  for (const auto& k : cases) {
    if (k.held_out) continue;
    const double r = std::log(predict_ms(k.launches, c, card) / k.measured_ms);
    sum += r * r;
    ++n;
  }
  return n ? sum / n : 0;
}
constexpr int dims = 9;
using Point = std::array<double, dims>;
ModelConstants from_log(const Point& x) {
  ModelConstants c;
  c.launch_us = std::exp(x[0]);
  c.dram_gbps = std::exp(x[1]);
  c.l2_gbps = std::exp(x[2]);
  c.request_us = std::exp(x[3]);
  c.sector_us = std::exp(x[4]);
  c.overlap = 1.0 + std::exp(x[5]);  // >= 1: from a sum (1) towards the larger of the two
  c.warp_us = std::exp(x[6]);
  c.shared_us = std::exp(x[7]);
  c.sync_us = std::exp(x[8]);
  return c;
}
}  // namespace

ModelConstants fit_constants(const std::vector<FitCase>& cases, const Card& card, const ModelConstants& start) {
  const Point x0{std::log(start.launch_us), std::log(start.dram_gbps), std::log(start.l2_gbps),
                 std::log(start.request_us), std::log(start.sector_us), std::log(std::max(1e-3, start.overlap - 1.0)),
                 std::log(start.warp_us), std::log(start.shared_us), std::log(start.sync_us)};
  // Every constant stays within a factor e^10 of the start either way: a term the cases do not
  // need drifts towards zero, where the simplex cannot see it again.
  const auto f = [&](const Point& x) {
    Point y = x;
    for (int d = 0; d < dims; ++d) y[d] = std::min(std::max(x[d], x0[d] - 10.0), x0[d] + 10.0);
    return fit_error(cases, card, from_log(y));
  };
  // Nelder-Mead; the objective is piecewise smooth (the max of three terms), so restarts: from
  // the start and from the best point so far, with small and large first steps.
  Point best = x0;
  double best_value = f(x0);
  for (int restart = 0; restart < 6; ++restart) {
    std::array<Point, dims + 1> simplex;
    std::array<double, dims + 1> value;
    const Point& origin = restart % 2 == 0 ? best : x0;
    const double step = restart % 3 == 2 ? 2.5 : 0.7;
    for (int i = 0; i <= dims; ++i) {
      simplex[i] = origin;
      if (i > 0) simplex[i][i - 1] += step;
      value[i] = f(simplex[i]);
    }
    for (int iteration = 0; iteration < 800; ++iteration) {
      std::array<int, dims + 1> order;
      for (int i = 0; i <= dims; ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](int a, int b) { return value[a] < value[b]; });
      const int worst = order[dims], second = order[dims - 1], lowest = order[0];
      Point centroid{};
      for (int i = 0; i < dims; ++i)
        for (int d = 0; d < dims; ++d) centroid[d] += simplex[order[i]][d] / dims;
      const auto along = [&](double t) {
        Point p;
        for (int d = 0; d < dims; ++d) p[d] = centroid[d] + t * (simplex[worst][d] - centroid[d]);
        return p;
      };
      const Point reflected = along(-1.0);
      const double fr = f(reflected);
      if (fr < value[lowest]) {
        const Point expanded = along(-2.0);
        const double fe = f(expanded);
        if (fe < fr) simplex[worst] = expanded, value[worst] = fe;
        else simplex[worst] = reflected, value[worst] = fr;
      } else if (fr < value[second]) {
        simplex[worst] = reflected, value[worst] = fr;
      } else {
        const Point contracted = along(0.5);
        const double fc = f(contracted);
        if (fc < value[worst]) {
          simplex[worst] = contracted, value[worst] = fc;
        } else {
          for (int i = 0; i <= dims; ++i) {
            if (i == lowest) continue;
            for (int d = 0; d < dims; ++d) simplex[i][d] = simplex[lowest][d] + 0.5 * (simplex[i][d] - simplex[lowest][d]);
            value[i] = f(simplex[i]);
          }
        }
      }
    }
    int arg = 0;
    for (int i = 1; i <= dims; ++i)
      if (value[i] < value[arg]) arg = i;
    if (value[arg] < best_value) {
      best_value = value[arg];
      best = simplex[arg];
    }
  }
  for (int d = 0; d < dims; ++d) best[d] = std::min(std::max(best[d], x0[d] - 10.0), x0[d] + 10.0);
  return from_log(best);
}

}  // namespace cuda_profile
}  // namespace Sprocket
