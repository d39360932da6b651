// sprocket-cuda-profile: what a GPU would see of one apply of Sprocket's CUDA kernels, without a
// GPU. The plan's CUDA kernels run in the CPU emulation with every memory access recorded
// (perf_tests/cuda_profile/); the tool prints the counts a GPU profiler reports (requests,
// sectors, load efficiency, bank conflicts, active lanes, per-warp work, occupancy) and an H100
// time estimate, or re-predicts recorded GPU runs (--validate). docs/cuda-profile.md.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_profile.hpp"
#include "cuda_profile_model.hpp"

namespace cp = Sprocket::cuda_profile;
namespace emu = Sprocket::cuda_emulation;

namespace {

const char* usage =
    "usage: sprocket-cuda-profile --kernel spmv|bsr|spmm|sddmm|spgemm --matrix SPEC [--k K] [--layout left|right]\n"
    "                             [--variant NAME] [--phase numeric] [--sample N] [--resources LOG] [--json]\n"
    "       sprocket-cuda-profile --validate FILE.jsonl... [--cache FILE] [--sample N] [--resources LOG] [--json]\n"
    "       sprocket-cuda-profile --help\n"
    "\n"
    "Runs one apply of the kernels the plan launches on Kokkos::Cuda (or the forced --variant, a\n"
    "sprocket-bench variant name) in the CPU emulation, every memory access recorded, and prints\n"
    "per launch and per call site: requests, 32-byte sectors, sectors per request, load efficiency\n"
    "(useful / fetched bytes of global loads), shared-memory bank-conflict ways, active lanes, atomics,\n"
    "the busiest warp's requests and the mean, theoretical occupancy on H100 / H200, and an H100 time\n"
    "estimate. SPEC: a Matrix Market file or a gen: spec (docs/generators.md). Double values, int\n"
    "indices, as the recorded GPU runs. An apply that launches no kernel the emulation records (SpMM\n"
    "with row-major B and C of K = 17..32 on a matrix without split rows runs the portable Kokkos\n"
    "kernel) names what it runs and says in the note that it is not profiled; its counts are null.\n"
    "  --k K          dense columns of spmm / sddmm (default 32)\n"
    "  --layout L     dense operands' layout for spmm / sddmm: right (default) or left\n"
    "  --phase numeric  spgemm: only the numeric re-run on the plan's structure (numeric_seconds); by\n"
    "                 default the plan and the first numeric pass (what sprocket-bench's seconds covers)\n"
    "  --sample N     record every N-th block of grids above 528 blocks (counts scaled; default 1: all)\n"
    "  --resources LOG  registers, spills and static shared memory per kernel: the CUDA build's\n"
    "                 -Xptxas -v output or `cuobjdump -res-usage` of its sprocket-bench (a GPU run's\n"
    "                 cuda-resources.txt); occupancy then counts registers\n"
    "  --json         one JSON line per apply (per case with --validate, then a summary line)\n"
    "  --validate F.. re-predict every recorded GPU case of ours in sprocket-bench JSON lines (rows with\n"
    "                 impl sprocket and a passed check; rows without a check are counted and left out),\n"
    "                 fit the model's constants on the cases of about three quarters of the matrices and\n"
    "                 report predicted vs measured for all, the held-out matrices' cases separately (a\n"
    "                 hash of the matrix holds out every kernel, variant, K and layout recorded on it)\n"
    "  --cache FILE   --validate: reuse / store the recorded counts per case in FILE\n"
    "  --help, -h     this text\n";

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "sprocket-cuda-profile: %s\n\n%s", message.c_str(), usage);
  std::exit(2);
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.7g", v);
  return b;
}

const char* kind_name(emu::AccessKind k) {
  switch (k) {
    case emu::AccessKind::load: return "load";
    case emu::AccessKind::store: return "store";
    case emu::AccessKind::atomic: return "atomic";
  }
  return "?";
}

// ---- one profile ------------------------------------------------------------------------------

struct Options {
  cp::ProfileRequest request;
  bool json = false;
  std::vector<std::string> validate;
  std::string cache, resources;
};

std::string json_line(const cp::ApplyProfile& p, const std::map<std::string, cp::KernelResources>& resources) {
  const cp::Card h100 = cp::h100_card(), h200 = cp::h200_card();
  const cp::ModelConstants c = cp::h100_constants();
  const cp::ApplySummary s = cp::summarize(p);
  const auto features = cp::features_of(p, h100, resources);
  std::ostringstream o;
  o << "{\"kernel\":\"" << p.kernel << "\",\"matrix\":\"" << json_escape(p.matrix) << "\",\"variant\":\""
    << json_escape(p.variant) << "\",\"chosen\":\"" << json_escape(p.chosen) << "\"";
  if (p.kernel == "spmm" || p.kernel == "sddmm") o << ",\"k\":" << p.k << ",\"layout\":\"" << p.layout << "\"";
  o << ",\"rows\":" << p.rows << ",\"cols\":" << p.cols << ",\"nnz\":" << p.nnz;
  if (!p.not_profiled.empty()) {
    // Nothing was recorded: every count and the estimate are unknown, not zero.
    o << ",\"profiled\":false";
    for (const char* key : {"launches", "requests", "sectors", "sectors_per_request", "load_efficiency",
                            "bank_conflict_ways", "active_lane_fraction", "warp_requests_max", "warp_requests_mean",
                            "atomics", "shared_requests", "footprint_bytes", "warp_syncs", "barriers",
                            "predicted_ms_h100"})
      o << ",\"" << key << "\":null";
    o << ",\"sample_every\":" << p.sample_every << ",\"sampled\":false,\"registers_known\":"
      << (resources.empty() ? "false" : "true") << ",\"note\":\"" << json_escape(p.note)
      << "\",\"launch_list\":[],\"sites\":[]}";
    return o.str();
  }
  o << ",\"profiled\":true,\"launches\":" << s.launches
    << ",\"requests\":" << num(s.requests) << ",\"sectors\":" << num(s.sectors)
    << ",\"sectors_per_request\":" << num(s.sectors_per_request) << ",\"load_efficiency\":" << num(s.load_efficiency)
    << ",\"bank_conflict_ways\":" << num(s.bank_conflict_ways)
    << ",\"active_lane_fraction\":" << num(s.active_lane_fraction)
    << ",\"warp_requests_max\":" << num(s.warp_requests_max) << ",\"warp_requests_mean\":" << num(s.warp_requests_mean)
    << ",\"atomics\":" << num(s.atomics) << ",\"shared_requests\":" << num(s.shared_requests)
    << ",\"footprint_bytes\":" << num(s.footprint_bytes) << ",\"warp_syncs\":" << num(s.warp_syncs)
    << ",\"barriers\":" << num(s.barriers)
    << ",\"predicted_ms_h100\":" << num(cp::predict_ms(features, c, h100)) << ",\"sample_every\":" << p.sample_every
    << ",\"sampled\":" << (p.sample_every > 1 ? "true" : "false") << ",\"registers_known\":"
    << (resources.empty() ? "false" : "true") << ",\"note\":\"" << json_escape(p.note) << "\"";
  o << ",\"launch_list\":[";
  for (size_t i = 0; i < p.launches.size(); ++i) {
    const auto& l = p.launches[i];
    const auto e = cp::estimate(features[i], c, h100);
    const cp::KernelResources& r = cp::resources_for(resources, l.kernel, l.launched_at);
    const auto occ100 = cp::theoretical_occupancy(h100, l.block, l.shared_bytes, r);
    const auto occ200 = cp::theoretical_occupancy(h200, l.block, l.shared_bytes, r);
    o << (i ? "," : "") << "{\"kernel\":\"" << json_escape(l.kernel) << "\",\"launched_at\":\""
      << json_escape(l.launched_at) << "\",\"grid\":" << l.grid
      << ",\"block\":" << l.block << ",\"shared_bytes\":" << l.shared_bytes
      << ",\"blocks_recorded\":" << l.blocks_recorded << ",\"requests\":" << num(features[i].requests)
      << ",\"sectors\":" << num(features[i].sectors)
      << ",\"sectors_per_request\":" << num(l.requests() ? double(l.sectors()) / double(l.requests()) : 0.0)
      << ",\"footprint_bytes\":" << num(32.0 * features[i].footprint_sectors)
      << ",\"warp_requests_max\":" << l.warp_requests_max << ",\"warp_requests_mean\":" << num(l.warp_requests_mean)
      << ",\"warp_sectors_max\":" << l.warp_sectors_max
      << ",\"atomics\":" << l.atomic_requests << ",\"shared_requests\":" << l.shared_requests
      << ",\"warp_syncs\":" << l.warp_syncs << ",\"barriers\":" << l.barriers
      << ",\"bank_conflict_ways\":"
      << num(l.shared_ideal_wavefronts ? double(l.shared_wavefronts) / double(l.shared_ideal_wavefronts) : 1.0)
      << ",\"occupancy_h100\":" << num(occ100.fraction) << ",\"occupancy_h200\":" << num(occ200.fraction)
      << ",\"occupancy_limited_by\":\"" << occ100.limited_by << "\"";
    if (r.known)
      o << ",\"registers\":" << r.registers << ",\"spill_bytes\":" << (r.spill_store_bytes + r.spill_load_bytes)
        << ",\"static_shared_bytes\":" << r.static_shared_bytes;
    o << ",\"predicted_ms\":" << num(e.total_ms) << ",\"bound\":\"" << e.bound << "\"}";
  }
  o << "],\"sites\":[";
  bool first = true;
  for (size_t i = 0; i < p.launches.size(); ++i)
    for (const auto& site : p.launches[i].sites) {
      o << (first ? "" : ",") << "{\"launch\":" << i << ",\"where\":\"" << json_escape(site.where) << "\",\"space\":\""
        << (site.space == emu::AccessSpace::global ? "global" : "shared") << "\",\"kind\":\"" << kind_name(site.kind)
        << "\",\"bytes\":" << site.bytes_per_lane << ",\"instructions\":" << site.instructions
        << ",\"active_lane_fraction\":"
        << num(site.instructions ? double(site.active_lanes) / (32.0 * double(site.instructions)) : 0.0);
      if (site.space == emu::AccessSpace::global)
        o << ",\"sectors\":" << site.sectors << ",\"sectors_per_request\":"
          << num(site.instructions ? double(site.sectors) / double(site.instructions) : 0.0)
          << ",\"efficiency\":" << num(site.sectors ? double(site.useful_bytes) / (32.0 * double(site.sectors)) : 0.0);
      else
        o << ",\"wavefronts\":" << site.wavefronts << ",\"bank_conflict_ways\":"
          << num(site.ideal_wavefronts ? double(site.wavefronts) / double(site.ideal_wavefronts) : 1.0);
      o << "}";
      first = false;
    }
  o << "]}";
  return o.str();
}

void print_table(const cp::ApplyProfile& p, const std::map<std::string, cp::KernelResources>& resources) {
  const cp::Card h100 = cp::h100_card();
  const cp::ModelConstants c = cp::h100_constants();
  const cp::ApplySummary s = cp::summarize(p);
  const auto features = cp::features_of(p, h100, resources);
  std::printf("%s on %s: %lld x %lld, %lld nonzeros", p.kernel.c_str(), p.matrix.c_str(), (long long)p.rows,
              (long long)p.cols, (long long)p.nnz);
  if (p.kernel == "spmm" || p.kernel == "sddmm") std::printf(", K = %d, layout %s", p.k, p.layout.c_str());
  std::printf("\nvariant %s: %s\n", p.variant.c_str(), p.chosen.c_str());
  if (!p.note.empty()) std::printf("note: %s\n", p.note.c_str());
  if (!p.not_profiled.empty()) {
    std::printf("\nnothing recorded: no launch, request, sector or time of this apply is measured (the note says "
                "why)\n");
    return;
  }
  std::printf("\n%-3s %-44s %8s %5s %7s %6s %11s %12s %7s %8s %9s %9s %7s %10s %s\n", "#", "kernel", "grid", "block",
              "smem", "occ", "requests", "sectors", "sec/req", "ld_eff", "warp_max", "warp_mean", "lanes",
              "pred_ms", "bound");
  for (size_t i = 0; i < p.launches.size(); ++i) {
    const auto& l = p.launches[i];
    const auto e = cp::estimate(features[i], c, h100);
    const auto occ = cp::theoretical_occupancy(h100, l.block, l.shared_bytes, cp::resources_for(resources, l.kernel, l.launched_at));
    const double ld_eff = l.global_load_sectors ? double(l.global_load_useful_bytes) / (32.0 * l.global_load_sectors) : 0;
    std::printf("%-3zu %-44.44s %8u %5u %7zu %5.0f%% %11.0f %12.0f %7.2f %7.0f%% %9llu %9.1f %6.0f%% %10.4f %s\n", i,
                l.kernel.c_str(), l.grid, l.block, l.shared_bytes, 100 * occ.fraction, features[i].requests,
                features[i].sectors, l.requests() ? double(l.sectors()) / l.requests() : 0.0, 100 * ld_eff,
                (unsigned long long)l.warp_requests_max, l.warp_requests_mean,
                l.instructions ? 100.0 * l.active_lanes / (32.0 * l.instructions) : 0.0, e.total_ms, e.bound.c_str());
  }
  std::printf("\nsites (per launch #; global: sectors per request and efficiency; shared: bank-conflict ways)\n");
  std::printf("%-3s %-60s %-6s %-6s %5s %11s %9s %9s %7s\n", "#", "where", "space", "kind", "bytes", "instructions",
              "sec/req", "eff|ways", "lanes");
  for (size_t i = 0; i < p.launches.size(); ++i)
    for (const auto& site : p.launches[i].sites) {
      const bool global = site.space == emu::AccessSpace::global;
      const double per = global ? (site.instructions ? double(site.sectors) / site.instructions : 0.0) : 0.0;
      const double eff = global ? (site.sectors ? double(site.useful_bytes) / (32.0 * site.sectors) : 0.0)
                                : (site.ideal_wavefronts ? double(site.wavefronts) / site.ideal_wavefronts : 1.0);
      std::printf("%-3zu %-60.60s %-6s %-6s %5d %11llu %9.2f %9.2f %6.0f%%\n", i, site.where.c_str(),
                  global ? "global" : "shared", kind_name(site.kind), site.bytes_per_lane,
                  (unsigned long long)site.instructions, per, eff,
                  site.instructions ? 100.0 * site.active_lanes / (32.0 * site.instructions) : 0.0);
    }
  std::printf(
      "\napply: %llu launches, %.0f requests, %.0f sectors (%.2f per request), load efficiency %.0f%%, bank-conflict "
      "ways %.2f, active lanes %.0f%%, busiest warp %.0f requests (mean %.1f), %.0f atomics, %.0f warp-level "
      "synchronizations (shuffles), %.0f barriers, footprint %.2f MB\n",
      (unsigned long long)s.launches, s.requests, s.sectors, s.sectors_per_request, 100 * s.load_efficiency,
      s.bank_conflict_ways, 100 * s.active_lane_fraction, s.warp_requests_max, s.warp_requests_mean, s.atomics,
      s.warp_syncs, s.barriers, s.footprint_bytes / 1e6);
  std::printf("predicted on an H100: %.4f ms (model: docs/cuda-profile.md)%s\n", cp::predict_ms(features, c, h100),
              resources.empty() ? "; registers unknown (no --resources log): occupancy from block size and shared memory" : "");
}

// ---- --validate -------------------------------------------------------------------------------

/// A flat JSON object's scalar members as text (strings unquoted); nested values are skipped.
std::map<std::string, std::string> read_flat_json(const std::string& line) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  const auto skip_ws = [&] {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  };
  const auto read_string = [&] {
    std::string s;
    ++i;  // opening quote
    while (i < line.size() && line[i] != '"') {
      if (line[i] == '\\' && i + 1 < line.size()) ++i;
      s += line[i++];
    }
    ++i;
    return s;
  };
  skip_ws();
  if (i >= line.size() || line[i] != '{') return out;
  ++i;
  while (i < line.size()) {
    skip_ws();
    if (line[i] == '}') break;
    if (line[i] == ',') {
      ++i;
      continue;
    }
    if (line[i] != '"') break;
    const std::string key = read_string();
    skip_ws();
    if (i >= line.size() || line[i] != ':') break;
    ++i;
    skip_ws();
    if (line[i] == '"') {
      out[key] = read_string();
    } else if (line[i] == '{' || line[i] == '[') {
      int depth = 0;
      bool in_string = false;
      for (; i < line.size(); ++i) {
        const char c = line[i];
        if (in_string) {
          if (c == '\\') ++i;
          else if (c == '"') in_string = false;
        } else if (c == '"') in_string = true;
        else if (c == '{' || c == '[') ++depth;
        else if ((c == '}' || c == ']') && --depth == 0) {
          ++i;
          break;
        }
      }
    } else {
      size_t j = i;
      while (j < line.size() && line[j] != ',' && line[j] != '}') ++j;
      std::string v = line.substr(i, j - i);
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
      out[key] = v;
      i = j;
    }
  }
  return out;
}

struct RecordedCase {
  cp::ProfileRequest request;
  std::string key;
  std::vector<double> seconds;
  std::vector<cp::LaunchFeatures> launches;
  std::string skipped;  // why no prediction
  /// Why the time measured is more than the recorded launches (not fitted, not in the summary's
  /// counts, reported apart); empty when the launches are the measured time.
  std::string unmodeled;
  bool held_out = false;
  double predicted_ms = 0;
  /// The mean of the recorded times, in ms.
  double measured_ms() const {
    double sum = 0;
    for (double t : seconds) sum += t;
    return 1e3 * sum / double(seconds.size());
  }
};

/// One matrix in four, by a hash of its spec, is left out of the fit with every case recorded on
/// it (each kernel, variant, K, layout and phase): a held-out case's matrix must be one the fit
/// never saw, or its row lengths and footprint reach the constants through the matrix's other
/// cases. FNV-1a, its high bits mixed down (the low bits of FNV-1a depend on the low bits of the
/// characters only).
bool held_out_matrix(const std::string& matrix) {
  uint64_t h = 1469598103934665603ull;
  for (char c : matrix) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h % 4 == 0;
}

std::string sanitize(std::string s) {
  for (char& c : s)
    if (c == '|' || c == '\t' || c == '\n') c = ' ';
  return s;
}

/// --cache lines: key TAB then one
/// "kernel|grid|block|shared|requests|sectors|footprint|warps|warp requests max|warp sectors max|launched at|
/// warp syncs|barriers|shared wavefronts" per launch, TAB-separated (the last three absent from older
/// caches: 0).
std::map<std::string, std::vector<cp::LaunchFeatures>> read_cache(const std::string& path) {
  std::map<std::string, std::vector<cp::LaunchFeatures>> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key, launch;
    if (!std::getline(fields, key, '\t')) continue;
    std::vector<cp::LaunchFeatures> launches;
    while (std::getline(fields, launch, '\t')) {
      std::istringstream parts(launch);
      std::string v[14];
      for (auto& x : v) std::getline(parts, x, '|');
      cp::LaunchFeatures f;
      f.kernel = v[0];
      f.grid = static_cast<unsigned>(std::stoul(v[1]));
      f.block = static_cast<unsigned>(std::stoul(v[2]));
      f.shared_bytes = std::stoull(v[3]);
      f.requests = std::stod(v[4]);
      f.sectors = std::stod(v[5]);
      f.footprint_sectors = std::stod(v[6]);
      f.warps = std::stod(v[7]);
      f.warp_requests_max = std::stod(v[8]);
      f.warp_sectors_max = std::stod(v[9]);
      f.launched_at = v[10];
      f.warp_syncs = v[11].empty() ? 0.0 : std::stod(v[11]);
      f.barriers = v[12].empty() ? 0.0 : std::stod(v[12]);
      f.shared_wavefronts = v[13].empty() ? 0.0 : std::stod(v[13]);
      launches.push_back(f);
    }
    out[key] = launches;
  }
  return out;
}

void append_cache(const std::string& path, const std::string& key, const std::vector<cp::LaunchFeatures>& launches) {
  std::ofstream out(path, std::ios::app);
  out << key;
  for (const auto& f : launches)
    out << '\t' << sanitize(f.kernel) << '|' << f.grid << '|' << f.block << '|' << f.shared_bytes << '|'
        << num(f.requests) << '|' << num(f.sectors) << '|' << num(f.footprint_sectors) << '|' << num(f.warps) << '|'
        << num(f.warp_requests_max) << '|' << num(f.warp_sectors_max) << '|' << sanitize(f.launched_at) << '|'
        << num(f.warp_syncs) << '|' << num(f.barriers) << '|' << num(f.shared_wavefronts);
  out << '\n';
}

int validate(const Options& opt, const std::map<std::string, cp::KernelResources>& resources) {
  const std::set<std::string> kernels{"spmv", "bsr", "spmm", "sddmm", "spgemm"};
  std::vector<RecordedCase> cases;
  std::map<std::string, size_t> index;
  int failed_checks = 0, unchecked = 0;
  for (const std::string& file : opt.validate) {
    std::ifstream in(file);
    if (!in) usage_error("cannot read " + file);
    std::string line;
    while (std::getline(in, line)) {
      auto j = read_flat_json(line);
      if (j["impl"] != "sprocket" || !kernels.count(j["kernel"]) || j["seconds"].empty() || j["matrix"].empty())
        continue;
      // Only a passed check counts: a row without one (or with anything but true) may be a run
      // whose result was never compared.
      if (j["check"] != "true") {
        ++(j["check"] == "false" ? failed_checks : unchecked);
        continue;
      }
      cp::ProfileRequest r;
      r.kernel = j["kernel"];
      r.matrix = j["matrix"];
      r.variant = j["variant"].empty() ? "auto" : j["variant"];
      if (!j["k"].empty()) r.k = std::stoi(j["k"]);
      if (!j["layout"].empty()) r.layout = j["layout"];
      r.sample_every = opt.request.sample_every;
      const bool dense = r.kernel == "spmm" || r.kernel == "sddmm";
      const auto add = [&](const cp::ProfileRequest& request, double seconds, const std::string& unmodeled) {
        const std::string key = request.kernel + " " + request.matrix + " " + request.variant +
                                (dense ? " k=" + std::to_string(request.k) + " " + request.layout : std::string()) +
                                (request.phase.empty() ? std::string() : " " + request.phase);
        auto [it, inserted] = index.emplace(key, cases.size());
        if (inserted) {
          RecordedCase c;
          c.request = request;
          c.key = key;
          c.held_out = held_out_matrix(request.matrix);
          c.unmodeled = unmodeled;
          cases.push_back(c);
        }
        cases[it->second].seconds.push_back(seconds);
      };
      if (r.kernel == "spgemm") {
        // seconds: the plan and the first numeric pass, with host work between the launches
        // (allocations, Kokkos' reductions and prefix sums, read-backs) that no launch records;
        // numeric_seconds: the numeric re-run, launches only.
        add(r, std::stod(j["seconds"]),
            "spgemm's seconds include host work between the launches (allocations, Kokkos' reductions and prefix "
            "sums, read-backs) that the profile does not record");
        if (!j["numeric_seconds"].empty()) {
          cp::ProfileRequest numeric = r;
          numeric.phase = "numeric";
          add(numeric, std::stod(j["numeric_seconds"]), "");
        }
      } else {
        add(r, std::stod(j["seconds"]), "");
      }
    }
  }
  if (cases.empty()) usage_error("no recorded case of ours (impl sprocket, a passed check) in the files given");

  const cp::Card h100 = cp::h100_card();
  std::map<std::string, std::vector<cp::LaunchFeatures>> cache;
  if (!opt.cache.empty()) cache = read_cache(opt.cache);
  for (auto& c : cases) {
    auto hit = cache.find(c.key);
    if (hit != cache.end()) {
      c.launches = hit->second;
    } else {
      std::fprintf(stderr, "profiling %s ...\n", c.key.c_str());
      try {
        const cp::ApplyProfile p = cp::profile(c.request);
        // An apply that recorded no launch (the portable kernel on SpMM's warp-rows route) has
        // nothing to predict from: a prediction of 0 ms is no prediction. Not cached, so that the
        // reason is said again.
        if (p.launches.empty()) {
          c.skipped = "not profiled: " + p.not_profiled;
          continue;
        }
        c.launches = cp::features_of(p, h100, resources);
        if (!opt.cache.empty()) append_cache(opt.cache, c.key, c.launches);
      } catch (const cp::NotProfilable& e) {
        c.skipped = e.what();
        continue;
      } catch (const std::exception& e) {
        c.skipped = std::string("profiling failed: ") + e.what();
        continue;
      }
    }
    if (c.launches.empty()) {
      c.skipped = "the cache has no launch for this case";
      continue;
    }
    for (auto& f : c.launches)
      f.resident_warps =
          cp::theoretical_occupancy(h100, f.block, f.shared_bytes, cp::resources_for(resources, f.kernel, f.launched_at))
              .resident_warps;
  }

  std::vector<cp::FitCase> fit;
  for (const auto& c : cases) {
    if (!c.skipped.empty() || !c.unmodeled.empty()) continue;
    fit.push_back(cp::FitCase{c.launches, c.measured_ms(), c.held_out});
  }
  const cp::ModelConstants constants = cp::fit_constants(fit, h100, cp::h100_constants());

  struct Tally {
    int n = 0, within2 = 0;
  } all, held, trained;
  std::set<std::string> held_matrices, fit_matrices;  // of the cases counted
  int unmodeled = 0;
  for (const auto& c : cases) unmodeled += c.skipped.empty() && !c.unmodeled.empty();
  std::map<std::string, std::vector<const RecordedCase*>> groups;  // kernel, matrix, k, layout
  for (auto& c : cases) {
    if (!c.skipped.empty()) continue;
    c.predicted_ms = cp::predict_ms(c.launches, constants, h100);
    const double ratio = c.predicted_ms / c.measured_ms();
    const bool ok = ratio <= 2.0 && ratio >= 0.5;
    if (!c.unmodeled.empty()) continue;
    for (Tally* t : {&all, c.held_out ? &held : &trained}) {
      ++t->n;
      t->within2 += ok;
    }
    (c.held_out ? held_matrices : fit_matrices).insert(c.request.matrix);
    const bool dense = c.request.kernel == "spmm" || c.request.kernel == "sddmm";
    groups[c.request.kernel + " " + c.request.matrix +
           (dense ? " k=" + std::to_string(c.request.k) + " " + c.request.layout : std::string())]
        .push_back(&c);
  }
  if (held.n == 0)
    std::fprintf(stderr, "sprocket-cuda-profile: no modeled case is held out (no matrix of the %zu hashed out of the "
                         "fit): the held-out figures test nothing\n", fit_matrices.size());
  else if (trained.n == 0)
    std::fprintf(stderr, "sprocket-cuda-profile: every modeled case is held out: the constants are the start's, not "
                         "fitted\n");
  // For every matrix with several variants: the variant predicted fastest, measured against the
  // fastest measured.
  struct Pick {
    std::string group, predicted_variant, fastest_variant;
    double slowdown;
    bool any_held_out;
  };
  std::vector<Pick> picks;
  for (const auto& [group, members] : groups) {
    if (members.size() < 2) continue;
    const RecordedCase* by_prediction = *std::min_element(
        members.begin(), members.end(), [](auto a, auto b) { return a->predicted_ms < b->predicted_ms; });
    const RecordedCase* by_measurement = *std::min_element(
        members.begin(), members.end(), [&](auto a, auto b) { return a->measured_ms() < b->measured_ms(); });
    bool any_held = false;
    for (auto m : members) any_held = any_held || m->held_out;
    picks.push_back(Pick{group, by_prediction->request.variant, by_measurement->request.variant,
                         by_prediction->measured_ms() / by_measurement->measured_ms(), any_held});
  }

  if (opt.json) {
    for (const auto& c : cases) {
      std::ostringstream o;
      o << "{\"kernel\":\"" << c.request.kernel << "\",\"matrix\":\"" << json_escape(c.request.matrix)
        << "\",\"variant\":\"" << json_escape(c.request.variant) << "\"";
      if (c.request.kernel == "spmm" || c.request.kernel == "sddmm")
        o << ",\"k\":" << c.request.k << ",\"layout\":\"" << c.request.layout << "\"";
      if (c.skipped.empty())
        o << ",\"predicted_ms\":" << num(c.predicted_ms) << ",\"measured_ms\":" << num(c.measured_ms())
          << ",\"ratio\":" << num(c.predicted_ms / c.measured_ms()) << ",\"launches\":" << c.launches.size();
      else
        o << ",\"predicted_ms\":null,\"measured_ms\":" << num(c.measured_ms()) << ",\"skipped\":\""
          << json_escape(c.skipped) << "\"";
      if (!c.request.phase.empty()) o << ",\"phase\":\"" << c.request.phase << "\"";
      o << ",\"modeled\":" << (c.unmodeled.empty() ? "true" : "false");
      if (!c.unmodeled.empty()) o << ",\"why_not_modeled\":\"" << json_escape(c.unmodeled) << "\"";
      o << ",\"held_out\":" << (c.held_out ? "true" : "false") << "}";
      std::cout << o.str() << "\n";
    }
    for (const auto& p : picks)
      std::cout << "{\"fastest_variant\":true,\"group\":\"" << json_escape(p.group) << "\",\"predicted\":\""
                << p.predicted_variant << "\",\"measured\":\"" << p.fastest_variant
                << "\",\"slowdown\":" << num(p.slowdown) << ",\"held_out_members\":" << (p.any_held_out ? "true" : "false")
                << "}\n";
    int picks_ok = 0;
    for (const auto& p : picks) picks_ok += p.slowdown <= 1.25;
    std::cout << "{\"summary\":true,\"cases\":" << all.n << ",\"within_2x\":" << all.within2
              << ",\"held_out_cases\":" << held.n << ",\"held_out_within_2x\":" << held.within2
              << ",\"fit_cases\":" << trained.n << ",\"fit_within_2x\":" << trained.within2
              << ",\"variant_groups\":" << picks.size() << ",\"fastest_within_1_25x\":" << picks_ok
              << ",\"held_out_matrices\":" << held_matrices.size() << ",\"fit_matrices\":" << fit_matrices.size()
              << ",\"failed_checks_skipped\":" << failed_checks << ",\"unchecked_skipped\":" << unchecked
              << ",\"unmodeled_cases\":" << unmodeled << ",\"launch_us\":" << num(constants.launch_us)
              << ",\"dram_gbps\":" << num(constants.dram_gbps) << ",\"l2_gbps\":" << num(constants.l2_gbps)
              << ",\"request_us\":" << num(constants.request_us) << ",\"sector_us\":" << num(constants.sector_us)
              << ",\"overlap\":" << num(constants.overlap) << ",\"warp_us\":" << num(constants.warp_us)
              << ",\"shared_us\":" << num(constants.shared_us) << ",\"sync_us\":" << num(constants.sync_us) << "}\n";
    return 0;
  }
  std::printf("%-70s %10s %10s %7s %s\n", "case", "measured", "predicted", "ratio", "");
  for (const auto& c : cases) {
    if (!c.skipped.empty()) {
      std::printf("%-70.70s %10.4f %10s %7s skipped: %s\n", c.key.c_str(), c.measured_ms(), "-", "-", c.skipped.c_str());
      continue;
    }
    const double r = c.predicted_ms / c.measured_ms();
    std::printf("%-70.70s %10.4f %10.4f %7.2f %s%s%s\n", c.key.c_str(), c.measured_ms(), c.predicted_ms, r,
                c.held_out ? "held out" : "", (r > 2 || r < 0.5) ? " (outside 2x)" : "",
                c.unmodeled.empty() ? "" : " not modeled: host work between launches");
  }
  std::printf("\nfastest variant per matrix (predicted fastest, measured against the measured fastest):\n");
  int picks_ok = 0;
  for (const auto& p : picks) {
    picks_ok += p.slowdown <= 1.25;
    std::printf("  %-60s predicted %-16s fastest %-16s %.2fx%s\n", p.group.c_str(), p.predicted_variant.c_str(),
                p.fastest_variant.c_str(), p.slowdown, p.any_held_out ? " (held-out members)" : "");
  }
  std::printf(
      "\nwithin 2x of measured: %d of %d cases (fit: %d of %d, held out: %d of %d); predicted fastest variant within "
      "1.25x of the fastest: %d of %d matrices; %d rows with a failed check and %d without a check left out; %d "
      "cases not modeled\n",
      all.within2, all.n, trained.within2, trained.n, held.within2, held.n, picks_ok, (int)picks.size(), failed_checks,
      unchecked, unmodeled);
  const auto list = [](const std::set<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? std::string("none") : out;
  };
  std::printf("held out of the fit, every case of: %s\nin the fit: %s\n", list(held_matrices).c_str(),
              list(fit_matrices).c_str());
  std::printf(
      "fitted constants: launch %.4g us, DRAM %.4g GB/s, L2 %.4g GB/s, request %.4g us, sector %.4g us, overlap %.3g, "
      "warp %.4g us, shared wavefront %.4g us, synchronization %.4g us\n",
      constants.launch_us, constants.dram_gbps, constants.l2_gbps, constants.request_us, constants.sector_us,
      constants.overlap, constants.warp_us, constants.shared_us, constants.sync_us);
  return 0;
}

Options parse(int argc, char** argv) {
  Options o;
  bool have_kernel = false, have_matrix = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::printf("%s", usage);
      std::exit(0);
    } else if (a == "--kernel") {
      o.request.kernel = value();
      have_kernel = true;
    } else if (a == "--matrix") {
      o.request.matrix = value();
      have_matrix = true;
    } else if (a == "--variant") {
      o.request.variant = value();
    } else if (a == "--k") {
      const std::string v = value();
      char* end = nullptr;
      const long k = std::strtol(v.c_str(), &end, 10);
      if (*end || k < 1 || k > 4096) usage_error("--k must be an integer in [1, 4096], not '" + v + "'");
      o.request.k = static_cast<int>(k);
    } else if (a == "--layout") {
      o.request.layout = value();
      if (o.request.layout != "left" && o.request.layout != "right")
        usage_error("--layout must be left or right, not '" + o.request.layout + "'");
    } else if (a == "--sample") {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n < 1 || n > 1 << 20) usage_error("--sample must be a positive integer, not '" + v + "'");
      o.request.sample_every = static_cast<unsigned>(n);
    } else if (a == "--phase") {
      o.request.phase = value();
      if (o.request.phase != "numeric") usage_error("--phase must be numeric, not '" + o.request.phase + "'");
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--cache") {
      o.cache = value();
    } else if (a == "--resources") {
      o.resources = value();
    } else if (a == "--validate") {
      while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) o.validate.push_back(argv[++i]);
      if (o.validate.empty()) usage_error("--validate needs at least one JSON-lines file");
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  if (o.validate.empty()) {
    if (!have_kernel) usage_error("--kernel is required (or --validate)");
    if (!have_matrix) usage_error("--matrix is required");
    static const std::set<std::string> kernels{"spmv", "bsr", "spmm", "sddmm", "spgemm"};
    if (!kernels.count(o.request.kernel))
      usage_error("--kernel must be spmv, bsr, spmm, sddmm or spgemm, not '" + o.request.kernel + "'");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  // The emulation runs one thread; Kokkos' host space serves the analyses.
  Kokkos::ScopeGuard guard(argc, argv);
  try {
    std::map<std::string, cp::KernelResources> resources;
    if (!opt.resources.empty()) resources = cp::read_resource_log(opt.resources);
    if (!opt.validate.empty()) return validate(opt, resources);
    const cp::ApplyProfile p = cp::profile(opt.request);
    if (!emu::access_instrumentation_seen())
      throw std::runtime_error("no memory access was seen: the drivers were compiled without the access "
                               "instrumentation (cmake/SprocketCudaEmulation.cmake)");
    if (opt.json)
      std::cout << json_line(p, resources) << "\n";
    else
      print_table(p, resources);
  } catch (const cp::NotProfilable& e) {
    std::fprintf(stderr, "sprocket-cuda-profile: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sprocket-cuda-profile: %s\n", e.what());
    return 1;
  }
  return 0;
}
