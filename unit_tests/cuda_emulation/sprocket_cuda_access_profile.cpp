// The access recorder of the CUDA emulation (see sprocket_cuda_access_profile.hpp). This file is
// compiled without the access instrumentation: it defines the functions the instrumented code
// calls.
#include "sprocket_cuda_access_profile.hpp"

#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bitset>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "sprocket_cuda_emulation.hpp"

namespace Sprocket {
namespace cuda_emulation {

namespace {

constexpr int warp_size = 32;

struct Access {
  uintptr_t pc;  // the site: an interned call chain (AccessRecorder::Impl::site_id)
  uintptr_t address;
  uint32_t size;
  uint8_t kind;   // AccessKind
  uint8_t space;  // AccessSpace
};

/// Sectors seen, as one bit per 32-byte sector in 4 KiB pages.
class SectorSet {
 public:
  /// True when the sector was new.
  bool insert(uint64_t sector) {
    std::bitset<128>& page = pages_[sector >> 7];
    const size_t bit = sector & 127;
    if (page.test(bit)) return false;
    page.set(bit);
    ++count_;
    return true;
  }
  uint64_t size() const { return count_; }
  void clear() {
    pages_.clear();
    count_ = 0;
  }

 private:
  std::unordered_map<uint64_t, std::bitset<128>> pages_;
  uint64_t count_ = 0;
};

/// What addr2line says of a call site.
struct SiteName {
  std::string where;
  bool atomic = false;  // inside the emulation's read-modify-write helpers
};

uintptr_t executable_base() {
  uintptr_t base = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        *static_cast<uintptr_t*>(data) = info->dlpi_addr;
        return 1;  // the first object is the executable
      },
      &base);
  return base;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string unqualified_name(const std::string& f) {
  if (f.rfind("_Z", 0) == 0) {  // left mangled (the demangler refused it): its last plain identifier
    size_t i = f.size() > 2 && f[2] == 'N' ? 3 : 2;
    std::string last = f;
    while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) {
      size_t length = 0;
      while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) length = length * 10 + (f[i++] - '0');
      if (i + length > f.size()) break;
      last = f.substr(i, length);
      i += length;
    }
    return last;
  }
  std::string s = f.substr(0, f.find('('));
  int depth = 0;
  std::string out;
  for (char c : s) {
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (depth == 0) out += c;
  }
  const size_t colon = out.rfind("::");
  return colon == std::string::npos ? out : out.substr(colon + 2);
}

namespace {

/// The inline frames of each of `pcs` (return addresses in this executable), through
/// llvm-symbolizer (GNU output style), or addr2line where it is missing (it misnames the function
/// of some inlined frames).
using Frames = std::vector<std::pair<std::string, std::string>>;  // (function, file:line), innermost first

std::unordered_map<uintptr_t, Frames> symbolize(const std::vector<uintptr_t>& pcs) {
  std::unordered_map<uintptr_t, Frames> names;
  if (pcs.empty()) return names;
  static const uintptr_t base = executable_base();
  // /proc/<pid>/exe rather than the executable's path: it still opens when the file was replaced
  // or deleted while the program runs.
  static const bool have_llvm_symbolizer = std::system("command -v llvm-symbolizer > /dev/null 2>&1") == 0;
  const std::string exe = "/proc/" + std::to_string(getpid()) + "/exe";
  std::string command = have_llvm_symbolizer ? "llvm-symbolizer --output-style=GNU -f -i -C -a -e " + exe
                                             : "addr2line -f -i -C -a -e " + exe;
  for (uintptr_t pc : pcs) {
    char hexpc[32];
    std::snprintf(hexpc, sizeof hexpc, " 0x%lx", static_cast<unsigned long>(pc - 1 - base));
    command += hexpc;
  }
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return names;
  std::vector<std::vector<std::pair<std::string, std::string>>> frames;  // per pc: (function, location)
  char line[8192];
  std::string pending_function;
  bool have_function = false;
  while (std::fgets(line, sizeof line, pipe)) {
    std::string l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    if (l.empty()) continue;  // llvm-symbolizer ends each address's frames with a blank line
    if (l.rfind("0x", 0) == 0 && !have_function && l.find(':') == std::string::npos) {
      frames.emplace_back();
      continue;
    }
    if (frames.empty()) continue;
    if (!have_function) {
      pending_function = l;
      have_function = true;
    } else {
      frames.back().emplace_back(pending_function, l);
      have_function = false;
    }
  }
  pclose(pipe);
  for (size_t i = 0; i < pcs.size() && i < frames.size(); ++i) names.emplace(pcs[i], frames[i]);
  return names;
}

/// Names a call chain (the access's return address, then its caller's and the next): the frames
/// of all three, innermost first; the first frame in the project's impl/ or unit_tests/ sources
/// that is neither the emulation's own header nor the device helpers every kernel calls (ldg)
/// names the site, and the frame that called it (when also ours) tells apart the calls of one
/// helper. An access inside the emulation's read-modify-write helpers is an atomic.
SiteName name_chain(const std::array<uintptr_t, 3>& chain, const std::unordered_map<uintptr_t, Frames>& frames_of) {
  Frames fr;
  for (uintptr_t pc : chain) {
    auto it = frames_of.find(pc);
    if (pc && it != frames_of.end()) fr.insert(fr.end(), it->second.begin(), it->second.end());
  }
  SiteName name;
  if (fr.empty()) {
    name.where = "?";
    return name;
  }
  const std::string& innermost_file = fr.front().second;
  const std::string innermost_function = unqualified_name(fr.front().first);
  name.atomic = innermost_file.find("sprocket_cuda_emulation.hpp") != std::string::npos &&
                innermost_function.find("atomic") != std::string::npos;
  const auto ours = [](const std::string& loc) {
    return loc.find("/impl/") != std::string::npos || loc.find("/unit_tests/") != std::string::npos;
  };
  size_t pick = 0;
  for (size_t k = 0; k < fr.size(); ++k) {
    const std::string& loc = fr[k].second;
    if (loc.find("sprocket_cuda_emulation") != std::string::npos || loc.find("cuda_device.cuh") != std::string::npos)
      continue;
    if (ours(loc)) {
      pick = k;
      break;
    }
  }
  const auto location = [](const std::string& l) {
    std::string b = base_name(l);
    const size_t paren = b.find(" (");
    return paren == std::string::npos ? b : b.substr(0, paren);  // "(discriminator n)"
  };
  name.where = location(fr[pick].second) + " " + unqualified_name(fr[pick].first);
  if (pick + 1 < fr.size() && ours(fr[pick + 1].second)) name.where += " < " + location(fr[pick + 1].second);
  return name;
}

}  // namespace

/// Set by the first instrumented access (host code of the instrumented files runs on Kokkos'
/// OpenMP threads too: atomics).
std::atomic<bool> instrumentation_called{false};

struct AccessRecorder::Impl final : detail::EmulationObserver {
  AccessRecorder* owner = nullptr;
  bool in_launch = false;
  unsigned sample_every = 1, sample_min_grid = 0;
  std::vector<std::vector<Access>> threads;
  unsigned block_threads = 0;
  LaunchProfile launch;
  std::unordered_map<uintptr_t, size_t> site_index;  // site id -> launch.sites index
  /// Call chains, interned: an access's site id indexes `chains` (and `names` once named).
  struct ChainHash {
    size_t operator()(const std::array<uintptr_t, 3>& c) const {
      return std::hash<uint64_t>()(c[0] * 0x9E3779B97F4A7C15ull ^ c[1] * 0xC2B2AE3D27D4EB4Full ^ c[2]);
    }
  };
  std::unordered_map<std::array<uintptr_t, 3>, uintptr_t, ChainHash> chain_ids;
  std::vector<std::array<uintptr_t, 3>> chains;
  std::vector<SiteName> names;  // by site id: every site named so far (ids are dense, in order)
  std::unordered_map<uintptr_t, Frames> frames_of;  // return address -> its inline frames

  /// A direct-mapped cache in front of chain_ids: every access asks, and a kernel has few sites.
  struct CachedChain {
    std::array<uintptr_t, 3> chain{};
    uintptr_t id = ~uintptr_t{0};
  };
  std::array<CachedChain, 1024> chain_cache;
  uintptr_t site_id(const std::array<uintptr_t, 3>& chain) {
    CachedChain& slot = chain_cache[(chain[0] ^ (chain[1] >> 3) ^ (chain[2] >> 6)) & 1023];
    if (slot.id != ~uintptr_t{0} && slot.chain == chain) return slot.id;
    auto [it, inserted] = chain_ids.emplace(chain, chains.size());
    if (inserted) chains.push_back(chain);
    slot.chain = chain;
    slot.id = it->second;
    return it->second;
  }
  SectorSet launch_sectors, all_sectors;
  uint64_t warp_requests_sum = 0;

  void launch_begin(const LaunchInfo& info) override {
    launch = LaunchProfile{};
    launch.kernel = info.kernel;
    launch.launched_at = base_name(info.file) + ":" + std::to_string(info.line);
    launch.grid = info.grid;
    launch.block = info.block;
    launch.shared_bytes = info.shared_bytes;
    site_index.clear();
    launch_sectors.clear();
    warp_requests_sum = 0;
    in_launch = true;
  }
  bool block_begin(unsigned block, unsigned count) override {
    if (sample_every > 1 && launch.grid > sample_min_grid && block % sample_every != sample_every / 2) return false;
    if (threads.size() < count) threads.resize(count);
    for (unsigned t = 0; t < count; ++t) threads[t].clear();
    syncs.assign(count, 0);
    block_barriers = 0;
    block_threads = count;
    ++launch.blocks_recorded;
    return true;
  }
  void block_end() override;
  /// Per thread of the running block: warp-level synchronization points reached; the block's
  /// __syncthreads count (thread 0's).
  std::vector<uint64_t> syncs;
  uint64_t block_barriers = 0;
  void synchronization(unsigned thread, bool block_wide) override {
    if (!in_launch || thread >= syncs.size()) return;
    if (block_wide) {
      if (thread == 0) ++block_barriers;
    } else {
      ++syncs[thread];
    }
  }
  void launch_end() override {
    if (!in_launch) return;
    in_launch = false;
    launch.footprint_sectors = launch_sectors.size();
    launch.warp_requests_mean = launch.warps ? double(warp_requests_sum) / double(launch.warps) : 0.0;
    owner->launches_.push_back(std::move(launch));
  }

  /// Names the sites seen since the last call (site ids are handed out in order).
  void name_new_sites() {
    if (names.size() == chains.size()) return;
    std::vector<uintptr_t> pcs;
    std::unordered_set<uintptr_t> seen;
    for (size_t id = names.size(); id < chains.size(); ++id)
      for (uintptr_t pc : chains[id])
        if (pc && !frames_of.count(pc) && seen.insert(pc).second) pcs.push_back(pc);
    for (auto& [pc, frames] : symbolize(pcs)) frames_of[pc] = std::move(frames);
    for (size_t id = names.size(); id < chains.size(); ++id) names.push_back(name_chain(chains[id], frames_of));
  }

  // block_end's buffers, kept between blocks.
  struct Entry {
    uint32_t instruction;
    uint32_t lane;
    uintptr_t address;
    uint32_t size;
  };
  struct Instruction {
    uintptr_t site;
    uint8_t kind, space;
    uint32_t first, count;  // its entries in `grouped`
  };
  std::vector<Entry> entries, grouped;
  std::vector<Instruction> instructions;
  std::vector<uint32_t> occurrence;                     // by site id, for the current lane
  std::vector<std::vector<uint32_t>> instruction_of;  // by site id and occurrence, for the current warp
  std::vector<uintptr_t> touched;                       // site ids with state to reset
  std::vector<uintptr_t> warp_sites;                    // site ids with instructions in this warp
  std::vector<uint64_t> sectors;                        // of one instruction
  std::vector<std::pair<uintptr_t, uintptr_t>> spans;  // of one instruction: [address, end)
  std::vector<uint64_t> bank_words[warp_size];          // of one shared-memory phase, by bank

  SiteProfile& site(uintptr_t id, uint8_t kind, uint8_t space) {
    auto [it, inserted] = site_index.emplace(id, launch.sites.size());
    if (inserted) {
      SiteProfile sp;
      sp.pc = chains[id][0];
      sp.where = id < names.size() ? names[id].where : "?";
      sp.kind = static_cast<AccessKind>(kind);
      sp.space = static_cast<AccessSpace>(space);
      launch.sites.push_back(sp);
    }
    return launch.sites[it->second];
  }
};

namespace {
std::atomic<AccessRecorder::Impl*> active{nullptr};

/// Inlined into each entry point, so that __builtin_return_address(n) counts from the entry
/// point's frame: 0 is the access, 1 and 2 its callers. The callers are read only for accesses of
/// an emulated kernel thread, whose frames up to the launch all come from the instrumented
/// translation units (compiled with frame pointers: -O0).
__attribute__((always_inline)) inline void record(uintptr_t address, uint32_t size, AccessKind kind) {
  if (!instrumentation_called.load(std::memory_order_relaxed)) instrumentation_called.store(true, std::memory_order_relaxed);
  AccessRecorder::Impl* const recorder = active.load(std::memory_order_relaxed);
  // Kernels run on the launching thread only; classify_access answers outside_kernel elsewhere.
  if (!recorder) return;
  int thread = -1;
  const detail::AddressClass c = detail::classify_access(address, &thread);
  if (c != detail::AddressClass::global && c != detail::AddressClass::shared) return;
  if (!recorder->in_launch) return;
  const std::array<uintptr_t, 3> chain{reinterpret_cast<uintptr_t>(__builtin_return_address(0)),
                                       reinterpret_cast<uintptr_t>(__builtin_return_address(1)),
                                       reinterpret_cast<uintptr_t>(__builtin_return_address(2))};
  recorder->threads[static_cast<unsigned>(thread)].push_back(
      Access{recorder->site_id(chain), address, size, static_cast<uint8_t>(kind),
             static_cast<uint8_t>(c == detail::AddressClass::shared ? AccessSpace::shared : AccessSpace::global)});
}
}  // namespace

void AccessRecorder::Impl::block_end() {
  name_new_sites();
  launch.barriers += block_barriers;
  if (occurrence.size() < chains.size()) occurrence.resize(chains.size(), 0);
  if (instruction_of.size() < chains.size()) instruction_of.resize(chains.size());

  for (unsigned first = 0; first < block_threads; first += warp_size) {
    entries.clear();
    instructions.clear();
    const unsigned lanes = std::min<unsigned>(warp_size, block_threads - first);
    warp_sites.clear();
    for (unsigned lane = 0; lane < lanes; ++lane) {
      touched.clear();
      // An emulated read-modify-write is one atomic, recorded at its read half; its write half,
      // which follows that read, is dropped. A write half alone (a read whose value is unused
      // and not made, as atomicExch's may be) is the atomic.
      uintptr_t atomic_read = 0;  // address of the lane's previous access if an atomic's read half
      for (const Access& a : threads[first + lane]) {
        uint8_t kind = a.kind;
        const bool atomic = names[a.pc].atomic;
        const bool write_half =
            atomic && kind == static_cast<uint8_t>(AccessKind::store) && a.address == atomic_read;
        atomic_read = atomic && kind == static_cast<uint8_t>(AccessKind::load) ? a.address : 0;
        if (write_half) continue;
        if (atomic) kind = static_cast<uint8_t>(AccessKind::atomic);
        uint32_t& n = occurrence[a.pc];
        if (n == 0) touched.push_back(a.pc);
        std::vector<uint32_t>& of_site = instruction_of[a.pc];
        if (of_site.empty()) warp_sites.push_back(a.pc);
        if (n == of_site.size()) {
          of_site.push_back(static_cast<uint32_t>(instructions.size()));
          instructions.push_back(Instruction{a.pc, kind, a.space, 0, 0});
        }
        const uint32_t ins = of_site[n++];
        ++instructions[ins].count;
        entries.push_back(Entry{ins, lane, a.address, a.size});
      }
      for (uintptr_t id : touched) occurrence[id] = 0;
    }
    for (uintptr_t id : warp_sites) instruction_of[id].clear();
    // Group the entries by instruction (counting sort; lanes stay in order within one).
    uint32_t offset = 0;
    for (Instruction& ins : instructions) {
      ins.first = offset;
      offset += ins.count;
      ins.count = 0;
    }
    grouped.resize(entries.size());
    for (const Entry& e : entries) {
      Instruction& ins = instructions[e.instruction];
      grouped[ins.first + ins.count++] = e;
    }
    entries.swap(grouped);
    uint64_t warp_requests = 0, warp_sectors = 0;
    for (const Instruction& ins : instructions) {
      const size_t begin = ins.first, end = begin + ins.count;
      SiteProfile& sp = site(ins.site, ins.kind, ins.space);
      const uint64_t active_lanes = end - begin;
      sp.instructions += 1;
      sp.active_lanes += active_lanes;
      launch.instructions += 1;
      launch.active_lanes += active_lanes;
      uint32_t widest = 0;
      for (size_t e = begin; e < end; ++e) widest = std::max(widest, entries[e].size);
      sp.bytes_per_lane = std::max<int>(sp.bytes_per_lane, static_cast<int>(widest));
      if (ins.space == static_cast<uint8_t>(AccessSpace::global)) {
        sectors.clear();
        spans.clear();
        for (size_t e = begin; e < end; ++e) {
          const uintptr_t a = entries[e].address, z = a + entries[e].size;
          for (uintptr_t s = a >> 5; s <= (z - 1) >> 5; ++s) sectors.push_back(s);
          spans.emplace_back(a, z);
        }
        std::sort(sectors.begin(), sectors.end());
        sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
        std::sort(spans.begin(), spans.end());
        uint64_t useful = 0;
        uintptr_t covered = 0;
        for (const auto& span : spans) {
          const uintptr_t from = std::max(span.first, covered);
          if (span.second > from) useful += span.second - from;
          covered = std::max(covered, span.second);
        }
        for (uint64_t s : sectors) {
          launch_sectors.insert(s);
          all_sectors.insert(s);
        }
        sp.sectors += sectors.size();
        sp.useful_bytes += useful;
        ++warp_requests;
        warp_sectors += sectors.size();
        switch (static_cast<AccessKind>(ins.kind)) {
          case AccessKind::load:
            ++launch.global_load_requests;
            launch.global_load_sectors += sectors.size();
            launch.global_load_useful_bytes += useful;
            break;
          case AccessKind::store:
            ++launch.global_store_requests;
            launch.global_store_sectors += sectors.size();
            launch.global_store_useful_bytes += useful;
            break;
          case AccessKind::atomic:
            ++launch.atomic_requests;
            launch.atomic_sectors += sectors.size();
            break;
        }
      } else {
        // Shared memory: phases of 32 / 16 / 8 lanes for accesses of <= 4 / 8 / 16 bytes; per
        // phase the busiest bank's distinct 4-byte words are its wavefronts.
        const unsigned phase_lanes = widest <= 4 ? 32u : widest <= 8 ? 16u : 8u;
        uint64_t wavefronts = 0, ideal = 0;
        for (unsigned phase = 0; phase < warp_size / phase_lanes; ++phase) {
          bool any = false;
          for (auto& b : bank_words) b.clear();
          for (size_t e = begin; e < end; ++e) {
            if (entries[e].lane / phase_lanes != phase) continue;
            any = true;
            const uintptr_t a = entries[e].address, z = a + entries[e].size;
            for (uintptr_t w = a >> 2; w <= (z - 1) >> 2; ++w) bank_words[w % 32].push_back(w);
          }
          if (!any) continue;
          uint64_t worst = 1;
          for (auto& b : bank_words) {
            std::sort(b.begin(), b.end());
            worst = std::max<uint64_t>(worst, std::unique(b.begin(), b.end()) - b.begin());
          }
          wavefronts += worst;
          ++ideal;
        }
        sp.wavefronts += wavefronts;
        sp.ideal_wavefronts += ideal;
        ++launch.shared_requests;
        launch.shared_wavefronts += wavefronts;
        launch.shared_ideal_wavefronts += ideal;
      }
    }
    ++launch.warps;
    uint64_t warp_syncs = 0;
    for (unsigned lane = 0; lane < lanes; ++lane) warp_syncs = std::max(warp_syncs, syncs[first + lane]);
    launch.warp_syncs += warp_syncs;
    warp_requests_sum += warp_requests;
    launch.warp_sectors_max = std::max(launch.warp_sectors_max, warp_sectors);
    launch.warp_requests_max = std::max(launch.warp_requests_max, warp_requests);
  }
}

AccessRecorder::AccessRecorder() : impl_(new Impl) { impl_->owner = this; }
AccessRecorder::~AccessRecorder() {
  if (active == impl_) stop();
  delete impl_;
}

void AccessRecorder::start() {
  if (active && active != impl_) throw std::logic_error("CUDA emulation: another AccessRecorder is recording");
  launches_.clear();
  impl_->all_sectors.clear();
  active = impl_;
  detail::set_emulation_observer(impl_);
}

void AccessRecorder::stop() {
  if (active != impl_) return;
  active = nullptr;
  detail::set_emulation_observer(nullptr);
}

void AccessRecorder::set_block_sampling(unsigned every_nth, unsigned min_grid) {
  impl_->sample_every = std::max(1u, every_nth);
  impl_->sample_min_grid = min_grid;
}

uint64_t AccessRecorder::footprint_sectors() const { return impl_->all_sectors.size(); }

bool access_instrumentation_seen() { return instrumentation_called; }

}  // namespace cuda_emulation
}  // namespace Sprocket

// ---- the instrumentation's entry points --------------------------------------------------------
extern "C" {
#define SPROCKET_ACCESS_HOOKS(n)                                                                            \
  void __asan_load##n##_noabort(uintptr_t a) {                                                              \
    Sprocket::cuda_emulation::record(a, n, Sprocket::cuda_emulation::AccessKind::load);                   \
  }                                                                                                         \
  void __asan_store##n##_noabort(uintptr_t a) {                                                             \
    Sprocket::cuda_emulation::record(a, n, Sprocket::cuda_emulation::AccessKind::store);                  \
  }
SPROCKET_ACCESS_HOOKS(1)
SPROCKET_ACCESS_HOOKS(2)
SPROCKET_ACCESS_HOOKS(4)
SPROCKET_ACCESS_HOOKS(8)
SPROCKET_ACCESS_HOOKS(16)
#undef SPROCKET_ACCESS_HOOKS
void __asan_loadN_noabort(uintptr_t a, size_t n) {
  Sprocket::cuda_emulation::record(a, static_cast<uint32_t>(n), Sprocket::cuda_emulation::AccessKind::load);
}
void __asan_storeN_noabort(uintptr_t a, size_t n) {
  Sprocket::cuda_emulation::record(a, static_cast<uint32_t>(n), Sprocket::cuda_emulation::AccessKind::store);
}
// Emitted around the instrumented files' dynamic initializers (initialization-order checking,
// which needs no action here).
void __asan_handle_no_return() {}
void __asan_before_dynamic_init(const char*) {}
void __asan_after_dynamic_init() {}
}
