// Fuzz target: sprocket-bench's argument parser (perf_tests/bench_args.hpp) against a registry
// shaped like the real one (kernels with and without matrices, variant aliases, an unavailable
// peer), arguments split at newlines. Accepted lists keep the documented invariants; everything
// else ends in UsageError.
#include <cstdint>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "fuzz_common.hpp"

namespace {

const std::vector<sprocket_bench::KernelEntry>& registry() {
  static const std::vector<sprocket_bench::KernelEntry> kernels = [] {
    sprocket_bench::KernelEntry spmv;
    spmv.name = "spmv";
    spmv.variants = {"auto", "thread_per_row", "portable"};
    spmv.all_variants = {"thread_per_row", "portable"};
    spmv.default_variant = "auto";
    spmv.peers = {{"kk", true, ""}, {"cusparse", false, "cusparse: not in this build"}};
    spmv.uses_matrices = true;
    sprocket_bench::KernelEntry bsr = spmv;
    bsr.name = "bsr";
    bsr.variant_aliases = {{"host_block_row", "thread_per_row"}};
    sprocket_bench::KernelEntry stream;
    stream.name = "stream";
    stream.variants = {"copy", "triad"};
    stream.all_variants = stream.variants;
    stream.default_variant = "copy";
    return std::vector<sprocket_bench::KernelEntry>{spmv, bsr, stream};
  }();
  return kernels;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = sprocket_fuzz::split_arguments(data, size);
  std::vector<char*> argv = sprocket_fuzz::make_argv("sprocket-bench", args);
  const sprocket_bench::KernelEntry* entry = nullptr;
  try {
    const sprocket_bench::Args a =
        sprocket_bench::parse_args(static_cast<int>(argv.size() - 1), argv.data(), registry(), &entry);
    if (!entry || entry->name != a.kernel || a.variants.empty() || a.repeat < 1 || a.warmup < 0 ||
        (entry->uses_matrices && a.matrices.empty()) || a.block_size < 0 || a.block_size > 32 || a.ks.empty())
      __builtin_trap();
    for (const std::string& v : a.variants)
      if (v == "all") __builtin_trap();
  } catch (const sprocket_bench::UsageError&) {
  }
  return 0;
}
