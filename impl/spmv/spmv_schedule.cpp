// SpMV analysis on the host: features, virtual rows, bins (paper: autotuned-spmv, Algorithm 2).
//
// Virtual rows: U adjacent rows form one virtual row, except that a row longer than the split
// threshold always forms a virtual row of its own and goes to the split-row kernel; the paper
// puts over-long rows in its last bin, but one thread block per 10^5-entry row leaves the rest of
// a GPU idle. Binning: the paper's bin id is workload / U; we bin by log2 of the virtual row's
// average row length (class 0: < 1, class c: [2^(c-1), 2^c)), i.e. the paper's bins merged
// geometrically, so that 32 classes cover every length. Classes that map to the same kernel are
// merged into one bin, so a GPU launches one kernel per distinct kernel, not per class.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "Sprocket_MatrixStats.hpp"
#include "Sprocket_Spmv.hpp"

namespace Sprocket {

namespace {
constexpr const char* kernel_names[num_spmv_kernels] = {
    "thread_per_row", "subvector2", "subvector4", "subvector8",
    "subvector16",    "subvector32", "team_per_row", "split_row"};

int length_class(double avg) {
  if (avg < 1) return 0;
  int c = 1;
  while (c < num_spmv_classes - 1 && avg >= std::ldexp(1.0, c)) ++c;
  return c;
}

std::string class_range(int lo, int hi) {
  std::ostringstream os;
  auto low = [](int c) { return c == 0 ? 0.0 : std::ldexp(1.0, c - 1); };
  os << "[" << low(lo) << ", " << std::ldexp(1.0, hi) << ")";
  return os.str();
}
}  // namespace

const char* to_string(SpmvKernel kernel) {
  const int k = static_cast<int>(kernel);
  if (kernel == SpmvKernel::automatic) return "automatic";
  return k >= 0 && k < num_spmv_kernels ? kernel_names[k] : "invalid";
}

SpmvKernel spmv_kernel_from_string(const std::string& name) {
  if (name == "automatic" || name == "auto") return SpmvKernel::automatic;
  std::string valid = "auto";
  for (int k = 0; k < num_spmv_kernels; ++k) {
    if (name == kernel_names[k]) return static_cast<SpmvKernel>(k);
    valid += std::string(", ") + kernel_names[k];
  }
  throw InvalidArgument("unknown SpMV kernel \"" + name + "\" (valid: " + valid + ")");
}

int spmv_kernel_lanes(SpmvKernel kernel) {
  switch (kernel) {
    case SpmvKernel::thread_per_row: return 1;
    case SpmvKernel::subvector2: return 2;
    case SpmvKernel::subvector4: return 4;
    case SpmvKernel::subvector8: return 8;
    case SpmvKernel::subvector16: return 16;
    case SpmvKernel::subvector32: return 32;
    default: return 0;
  }
}

const char* to_string(SpmvTarget target) {
  switch (target) {
    case SpmvTarget::host: return "host";
    case SpmvTarget::cuda: return "cuda";
    case SpmvTarget::portable_cpu: return "portable (cpu)";
    case SpmvTarget::portable_gpu: return "portable (gpu)";
  }
  return "?";
}

SpmvFeatures spmv_features(const std::vector<int64_t>& row_map, int64_t num_cols) {
  const RowLengthStats r = row_length_stats(row_map);
  SpmvFeatures f;
  f.rows = r.rows;
  f.cols = num_cols;
  f.nnz = r.nnz;
  f.min_row = r.min_row;
  f.max_row = r.max_row;
  f.avg_row = r.avg_row;
  f.var_row = r.var_row;
  f.histogram = r.histogram;
  return f;
}

// The schedule proper, from features computed once by the caller.
namespace {

SpmvSchedule build_schedule(const std::vector<int64_t>& row_map, const SpmvFeatures& features,
                            const SpmvOptions& options, SpmvTarget target, const SpmvDecision& decision,
                            const std::string& decided_by) {
  SPROCKET_REQUIRE(options.virtual_row_size >= 0 && options.virtual_row_size <= (1 << 20),
                   "SpmvOptions::virtual_row_size = ", options.virtual_row_size,
                   " outside [0, 2^20] (0 lets the model choose)");
  SPROCKET_REQUIRE(options.split_row_threshold >= 0, "SpmvOptions::split_row_threshold = ",
                   options.split_row_threshold, " is negative");
  SPROCKET_REQUIRE(options.split_chunk >= 0, "SpmvOptions::split_chunk = ", options.split_chunk,
                   " is negative");
  SPROCKET_REQUIRE(!options.autotune || options.autotune_repeats >= 1,
                   "SpmvOptions::autotune_repeats = ", options.autotune_repeats, " must be >= 1");
  SPROCKET_REQUIRE(decision.virtual_row_size >= 1, "SpMV decision with U = ", decision.virtual_row_size);

  SpmvSchedule s;
  s.target = target;
  s.features = features;
  s.decided_by = decided_by;
  s.single_bin = decision.single_bin;
  const bool cpu = target == SpmvTarget::host || target == SpmvTarget::portable_cpu;
  // Defaults, see the file comment of impl/spmv/host/spmv_host.hpp and spmv_kokkos.hpp: on a CPU
  // a row is worth splitting when it is a noticeable share of one thread's work; on a GPU when a
  // 256-thread block would loop over it more than 64 times.
  s.split_row_threshold = options.split_row_threshold > 0
                              ? options.split_row_threshold
                              : (cpu ? std::max<int64_t>(8192, s.features.nnz / 32) : (int64_t{1} << 14));
  s.split_chunk = options.split_chunk > 0 ? options.split_chunk : (cpu ? 8192 : 4096);
  const int64_t rows = s.features.rows;
  const SpmvKernel single_kernel = decision.single_bin_kernel;
  // A forced split_row kernel splits every row: one row per virtual row.
  s.virtual_row_size = (decision.single_bin && single_kernel == SpmvKernel::split_row) ? 1 : decision.virtual_row_size;
  const int64_t U = s.virtual_row_size;

  // Virtual rows; in binned mode over-long rows are isolated.
  s.vrow_bounds.assign(1, 0);
  std::vector<uint8_t> is_split;
  int64_t start = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len = row_map[r + 1] - row_map[r];
    if (!decision.single_bin && len > s.split_row_threshold) {
      if (r > start) {
        s.vrow_bounds.push_back(r);
        is_split.push_back(0);
      }
      s.vrow_bounds.push_back(r + 1);
      is_split.push_back(1);
      start = r + 1;
    } else if (r + 1 - start == U) {
      s.vrow_bounds.push_back(r + 1);
      is_split.push_back(0);
      start = r + 1;
    }
  }
  if (rows > start) {
    s.vrow_bounds.push_back(rows);
    is_split.push_back(0);
  }

  // Bins: one per distinct kernel, in order of first class.
  std::vector<int> bin_of_kernel(num_spmv_kernels, -1);
  for (int64_t v = 0; v < s.num_vrows(); ++v) {
    const int64_t r0 = s.vrow_bounds[v], r1 = s.vrow_bounds[v + 1];
    const int64_t nnz = row_map[r1] - row_map[r0];
    const int cls = length_class(static_cast<double>(nnz) / static_cast<double>(r1 - r0));
    SpmvKernel kernel = decision.single_bin ? single_kernel
                        : is_split[v]      ? SpmvKernel::split_row
                                           : decision.kernel_for_class[cls];
    SPROCKET_REQUIRE(static_cast<int>(kernel) >= 0 && static_cast<int>(kernel) < num_spmv_kernels,
                     "SpMV decision has no kernel for class ", cls);
    int& b = bin_of_kernel[static_cast<int>(kernel)];
    if (b < 0) {
      b = static_cast<int>(s.bins.size());
      s.bins.emplace_back();
      s.bins.back().kernel = kernel;
      s.bins.back().class_lo = s.bins.back().class_hi = cls;
    }
    SpmvSchedule::Bin& bin = s.bins[b];
    bin.class_lo = std::min(bin.class_lo, cls);
    bin.class_hi = std::max(bin.class_hi, cls);
    bin.vrows.push_back(v);
    bin.rows += r1 - r0;
    bin.nnz += nnz;
    for (int64_t r = r0; r < r1; ++r) bin.max_row = std::max(bin.max_row, row_map[r + 1] - row_map[r]);
  }
  std::sort(s.bins.begin(), s.bins.end(),
            [](const SpmvSchedule::Bin& a, const SpmvSchedule::Bin& b) { return a.class_lo < b.class_lo; });
  return s;
}

}  // namespace

SpmvSchedule build_spmv_schedule(const std::vector<int64_t>& row_map, int64_t num_cols,
                                 const SpmvOptions& options, SpmvTarget target) {
  SPROCKET_REQUIRE(!row_map.empty(), "build_spmv_schedule: empty row map");
  const SpmvFeatures features = spmv_features(row_map, num_cols);
  SpmvDecision decision = spmv_model_decide(features, target);
  std::string decided_by = "model";
  if (options.kernel != SpmvKernel::automatic) {
    decision.single_bin = true;
    decision.single_bin_kernel = options.kernel;
    decided_by = std::string("forced kernel ") + to_string(options.kernel);
  } else if (options.binning != SpmvBinning::automatic) {
    decision.single_bin = options.binning == SpmvBinning::single_bin;
    decided_by = "model, binning from options";
  }
  if (options.virtual_row_size > 0) {
    decision.virtual_row_size = options.virtual_row_size;
    decided_by += ", U from options";
  }
  return build_schedule(row_map, features, options, target, decision, decided_by);
}

SpmvSchedule build_spmv_schedule(const std::vector<int64_t>& row_map, int64_t num_cols,
                                 const SpmvOptions& options, SpmvTarget target,
                                 const SpmvDecision& decision, const std::string& decided_by) {
  SPROCKET_REQUIRE(!row_map.empty(), "build_spmv_schedule: empty row map");
  return build_schedule(row_map, spmv_features(row_map, num_cols), options, target, decision, decided_by);
}

std::string SpmvSchedule::describe() const {
  std::ostringstream os;
  os << "  target " << to_string(target) << ", decided by " << decided_by << "\n"
     << "  features: " << features.rows << " x " << features.cols << ", nnz " << features.nnz
     << ", row length min " << features.min_row << " avg " << std::setprecision(4) << features.avg_row
     << " max " << features.max_row << " variance " << features.var_row << "\n"
     << "  " << (single_bin ? "single bin" : "binned") << ", U = " << virtual_row_size << " rows per virtual row, "
     << num_vrows() << " virtual rows";
  if (single_bin)
    os << "; one kernel for every row\n";
  else
    os << "; rows longer than " << split_row_threshold << " split in chunks of " << split_chunk << "\n";
  if (row_patterns)
    os << "  column indices: row patterns, " << num_row_patterns << " distinct (" << row_pattern_offsets
       << " offsets), one 16-bit pattern id per row\n";
  else if (compressed_indices)
    os << "  column indices: 16-bit offsets from the row (bandwidth " << bandwidth << ")\n";
  else if (bandwidth >= 0)
    os << "  column indices: the matrix's own (bandwidth " << bandwidth << " > 32767)\n";
  else if (target == SpmvTarget::host)
    os << "  column indices: the matrix's own\n";
  if (x_prefetch_distance > 0)
    os << "  x prefetched " << x_prefetch_distance << " entries ahead (x of " << features.cols
       << " entries; automatic above " << (x_prefetch_min_bytes >> 20) << " MiB)\n";
  if (!row_patterns && num_row_patterns >= 0) {
    if (num_row_patterns > max_row_patterns || row_pattern_offsets > max_row_pattern_offsets)
      os << "  row patterns not used: " << num_row_patterns << " distinct with " << row_pattern_offsets
         << " offsets when counting stopped (limits " << max_row_patterns << " and " << max_row_pattern_offsets
         << ")\n";
    else
      os << "  row patterns not used: " << num_row_patterns << " distinct with " << row_pattern_offsets
         << " offsets, more than a quarter of the " << features.nnz << " column indices they would replace\n";
  }
  for (const Bin& b : bins) {
    os << "  bin " << std::left << std::setw(14) << to_string(b.kernel) << std::right
       << " avg row length " << std::setw(16) << std::left << class_range(b.class_lo, b.class_hi) << std::right
       << std::setw(9) << b.vrows.size() << " vrows" << std::setw(10) << b.rows << " rows" << std::setw(12)
       << b.nnz << " nnz (" << std::fixed << std::setprecision(1)
       << (features.nnz > 0 ? 100.0 * b.nnz / features.nnz : 0.0) << "%)" << std::defaultfloat
       << "  max row " << b.max_row << "\n";
  }
  return os.str();
}

}  // namespace Sprocket
