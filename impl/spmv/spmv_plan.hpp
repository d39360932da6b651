#pragma once
// SpmvPlan: analysis at construction (features, binning, kernel choice, optional autotune),
// apply() dispatches to the execution space's implementation. Declared in Sprocket_Spmv.hpp.
//
// Device code lives in free functions (impl/spmv/spmv_kokkos.hpp, host/, cuda/): nvcc refuses
// extended lambdas inside private member functions.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "Sprocket_CsrUtils.hpp"
#include "impl/spmv/spmv_device_schedule.hpp"
#include "impl/spmv/spmv_dispatch.hpp"

namespace Sprocket {
namespace Impl {

/// dst(k) = src(source(k)): refreshes the cached transpose's values from A's current values.
template <class ExecSpace, class Dst, class Src, class Source>
void gather_values(const ExecSpace& space, const Dst& dst, const Src& src, const Source& source) {
  Kokkos::parallel_for(
      "Sprocket::spmv::transpose_gather", Kokkos::RangePolicy<ExecSpace>(space, 0, dst.extent(0)),
      KOKKOS_LAMBDA(const int64_t k) { dst(k) = src(source(k)); });
}

/// A^T with the same CrsMatrix type, and for every entry of A^T the index of its entry in A.
template <class CrsType>
std::pair<CrsType, Kokkos::View<typename CrsType::non_const_size_type*, typename CrsType::device_type>>
transpose_with_source(const CrsType& A) {
  // Transposing a copy whose values are the entry indices (exact in double up to 2^53) yields
  // the permutation for free.
  HostCsr host = to_host_csr(A);
  for (size_t k = 0; k < host.values.size(); ++k) host.values[k] = static_cast<double>(k);
  const HostCsr t = transpose(host);
  using Offset = typename CrsType::non_const_size_type;
  const auto source =
      to_device_view<Offset, typename CrsType::device_type>(t.values, "Sprocket::spmv::transpose_source");
  CrsType At = to_crs<CrsType>(t, "Sprocket::spmv::transpose");
  return {At, source};
}

/// col - row for every entry of A as int16, or an empty View when some |col - row| > 32767.
/// Also returns the bandwidth max |col - row|.
template <class CrsType>
std::pair<Kokkos::View<int16_t*, typename CrsType::device_type>, int64_t> compress_columns(
    const CrsType& A, const std::vector<int64_t>& row_map) {
  auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  int64_t bandwidth = 0;
  for (int64_t r = 0; r + 1 < static_cast<int64_t>(row_map.size()); ++r)
    for (int64_t k = row_map[r]; k < row_map[r + 1]; ++k)
      bandwidth = std::max<int64_t>(bandwidth, std::abs(static_cast<int64_t>(entries(k)) - r));
  if (bandwidth > 32767) return {{}, bandwidth};
  std::vector<int16_t> offsets(entries.extent(0));
  for (int64_t r = 0; r + 1 < static_cast<int64_t>(row_map.size()); ++r)
    for (int64_t k = row_map[r]; k < row_map[r + 1]; ++k)
      offsets[k] = static_cast<int16_t>(static_cast<int64_t>(entries(k)) - r);
  return {to_device_view<int16_t, typename CrsType::device_type>(offsets, "Sprocket::spmv::col_offsets"), bandwidth};
}

/// The row-pattern dictionary of A (SpmvOptions::IndexCompression::row_patterns): the pattern of
/// every row, and for pattern p its offsets col - row, in stored order, at
/// offsets[begin(p), begin(p + 1)). `usable` is false (and the Views empty) when A has more
/// patterns or offsets than the limits; counting then stops where the first limit was passed.
template <class Device>
struct RowPatterns {
  static constexpr int64_t max_patterns = SpmvSchedule::max_row_patterns;
  static constexpr int64_t max_offsets = SpmvSchedule::max_row_pattern_offsets;
  Kokkos::View<uint16_t*, Device> row_pattern;
  Kokkos::View<int32_t*, Device> begin;
  Kokkos::View<int32_t*, Device> offsets;
  int64_t count = 0, total_offsets = 0;
  bool usable = false;
};

template <class CrsType>
RowPatterns<typename CrsType::device_type> find_row_patterns(const CrsType& A, const std::vector<int64_t>& row_map) {
  using Device = typename CrsType::device_type;
  using Result = RowPatterns<Device>;
  auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  const int64_t n = static_cast<int64_t>(row_map.size()) - 1;
  std::vector<int32_t> begin{0}, offsets;
  std::vector<uint16_t> row_pattern(std::max<int64_t>(n, 0));
  std::unordered_multimap<uint64_t, int32_t> by_hash;  // hash of the offsets -> pattern ids
  Result result;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t k0 = row_map[r], len = row_map[r + 1] - k0;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(len);
    for (int64_t j = 0; j < len; ++j)
      h = (h ^ static_cast<uint64_t>(static_cast<int64_t>(entries(k0 + j)) - r)) * 0x100000001B3ull;
    int32_t id = -1;
    for (auto [it, end] = by_hash.equal_range(h); it != end && id < 0; ++it) {
      const int32_t p = it->second;
      if (begin[p + 1] - begin[p] != len) continue;
      bool same = true;
      for (int64_t j = 0; j < len && same; ++j)
        same = offsets[begin[p] + j] == static_cast<int64_t>(entries(k0 + j)) - r;
      if (same) id = p;
    }
    if (id < 0) {
      id = static_cast<int32_t>(begin.size()) - 1;
      if (id + 1 > Result::max_patterns || static_cast<int64_t>(offsets.size()) + len > Result::max_offsets) {
        result.count = id + 1;
        result.total_offsets = static_cast<int64_t>(offsets.size()) + len;
        return result;
      }
      for (int64_t j = 0; j < len; ++j) offsets.push_back(static_cast<int32_t>(static_cast<int64_t>(entries(k0 + j)) - r));
      begin.push_back(static_cast<int32_t>(offsets.size()));
      by_hash.emplace(h, id);
    }
    row_pattern[r] = static_cast<uint16_t>(id);
  }
  result.count = static_cast<int64_t>(begin.size()) - 1;
  result.total_offsets = static_cast<int64_t>(offsets.size());
  result.usable = true;
  result.row_pattern = to_device_view<uint16_t, Device>(row_pattern, "Sprocket::spmv::row_pattern");
  result.begin = to_device_view<int32_t, Device>(begin, "Sprocket::spmv::pattern_begin");
  result.offsets = to_device_view<int32_t, Device>(offsets, "Sprocket::spmv::pattern_offsets");
  return result;
}

template <class CrsType>
std::vector<int64_t> host_row_map(const CrsType& A) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  std::vector<int64_t> row_map(A.numRows() + 1, 0);
  if (h.extent(0) > 0)
    for (size_t i = 0; i < row_map.size(); ++i) row_map[i] = static_cast<int64_t>(h(i));
  return row_map;
}

}  // namespace Impl

template <class CrsType>
class SpmvPlan : public Impl::LinearOperator<SpmvPlan<CrsType>, typename CrsType::execution_space,
                                             typename CrsType::non_const_value_type> {
  static_assert(is_crs_matrix_v<CrsType>, "SpmvPlan: the matrix must be a KokkosSparse::CrsMatrix");
  friend class Impl::LinearOperator<SpmvPlan<CrsType>, typename CrsType::execution_space,
                                    typename CrsType::non_const_value_type>;

 public:
  static constexpr const char* operator_name = "SpmvPlan::apply";
  using matrix_type = CrsType;
  using scalar_type = typename CrsType::non_const_value_type;
  using ordinal_type = typename CrsType::non_const_ordinal_type;
  using execution_space = typename CrsType::execution_space;
  using memory_space = typename CrsType::memory_space;
  using device_type = typename CrsType::device_type;
  using device_schedule = Impl::SpmvDeviceSchedule<ordinal_type, device_type>;

  explicit SpmvPlan(const CrsType& A, const SpmvOptions& options = {})
      : A_(A), options_(options), target_(pick_target(options.backend)) {
    row_map_ = Impl::host_row_map(A_);
    schedule_ = build_spmv_schedule(row_map_, A_.numCols(), options_, target_);
    device_ = make_device(schedule_);
    if (options_.autotune && options_.kernel == SpmvKernel::automatic) autotune();
  }

  /// With an explicit decision (SpmvTuningOptions::decision), for tuning tools.
  explicit SpmvPlan(const CrsType& A, const SpmvTuningOptions& options)
      : A_(A), options_(options), target_(pick_target(options.backend)) {
    row_map_ = Impl::host_row_map(A_);
    schedule_ = options.decision
                    ? build_spmv_schedule(row_map_, A_.numCols(), options_, target_, *options.decision, "options")
                    : build_spmv_schedule(row_map_, A_.numCols(), options_, target_);
    device_ = make_device(schedule_);
  }

  int64_t num_rows() const { return A_.numRows(); }
  int64_t num_cols() const { return A_.numCols(); }

  /// What the analysis chose: target, features, U, bins and their kernels.
  std::string describe() const {
    std::ostringstream os;
    os << "SpmvPlan<" << (std::is_same_v<scalar_type, float> ? "float" : "double") << "> on "
       << execution_space::name() << "\n"
       << schedule_.describe();
    if (!autotune_report_.empty()) os << autotune_report_;
    return os.str();
  }

  const SpmvSchedule& schedule() const { return schedule_; }
  const SpmvOptions& options() const { return options_; }
  SpmvTarget target() const { return target_; }
  const CrsType& matrix() const { return A_; }

 private:
  static SpmvTarget pick_target(Backend backend) {
    constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    if (backend == Backend::portable) return gpu ? SpmvTarget::portable_gpu : SpmvTarget::portable_cpu;
    if constexpr (Impl::is_cuda_space_v<execution_space>) return SpmvTarget::cuda;
    if constexpr (Impl::is_host_space_v<execution_space>) return SpmvTarget::host;
    return gpu ? SpmvTarget::portable_gpu : SpmvTarget::portable_cpu;
  }

  device_schedule make_device(SpmvSchedule& s) {
    const int parts = target_ == SpmvTarget::host ? std::max(1, execution_space().concurrency()) : 0;
    device_schedule d = Impl::make_device_schedule<ordinal_type, device_type>(s, row_map_, parts);
    choose_column_source(s, d);
    // x prefetch only where the kernels read the matrix's own indices: row patterns and 16-bit
    // offsets (|col - row| <= 32767) mean x is read near the diagonal, which the hardware
    // prefetcher already follows.
    using XPrefetch = SpmvOptions::XPrefetch;
    const bool own_indices = target_ == SpmvTarget::host && !s.row_patterns && !s.compressed_indices;
    const bool large_x = static_cast<int64_t>(sizeof(scalar_type)) * A_.numCols() > SpmvSchedule::x_prefetch_min_bytes;
    if (own_indices && (options_.prefetch_x == XPrefetch::on || (options_.prefetch_x == XPrefetch::automatic && large_x)))
      s.x_prefetch_distance = d.x_prefetch_distance = SpmvSchedule::x_prefetch_default_distance;
    return d;
  }

  /// Where the host kernels read column indices from (SpmvOptions::IndexCompression).
  void choose_column_source(SpmvSchedule& s, device_schedule& d) {
    using Compression = SpmvOptions::IndexCompression;
    if (target_ != SpmvTarget::host || options_.compress_indices == Compression::off) return;
    // Row patterns first: on the 2-core CI machine they ran the 7-point Poisson operator 1.3x
    // faster than the plain loop (8 rows at a time, x read as vectors, no column index read).
    if (options_.compress_indices == Compression::automatic || options_.compress_indices == Compression::row_patterns) {
      if (!patterns_computed_) {
        patterns_ = Impl::find_row_patterns(A_, row_map_);
        patterns_computed_ = true;
      }
      s.num_row_patterns = patterns_.count;
      s.row_pattern_offsets = patterns_.total_offsets;
      // automatic: only when the dictionary is small next to the indices it replaces (a small
      // matrix whose rows are all different would only add an indirection).
      const bool pays = options_.compress_indices == Compression::row_patterns ||
                        patterns_.total_offsets * 4 <= s.features.nnz;
      if (patterns_.usable && pays) {
        d.row_pattern = patterns_.row_pattern;
        d.pattern_begin = patterns_.begin;
        d.pattern_offsets = patterns_.offsets;
        s.row_patterns = true;
        return;
      }
    }
    // 16-bit offsets: automatic only for rows long enough to be bandwidth-bound. Measured on the
    // 2-core CI machine: elasticity (81-162 entries per row) 1.14-1.16x KK instead of
    // 1.07-1.10x; Poisson (7 per row, latency-bound) 0.98x instead of 1.05x, the extra add per
    // entry costs more than the 2 bytes it saves.
    const bool want = options_.compress_indices == Compression::offsets16 ||
                      (options_.compress_indices == Compression::automatic && s.features.avg_row >= 16);
    if (want) {
      if (!compressed_computed_) {
        std::tie(col_offsets_, bandwidth_) = Impl::compress_columns(A_, row_map_);
        compressed_computed_ = true;
      }
      d.col_offsets = col_offsets_;
      s.compressed_indices = col_offsets_.extent(0) > 0;
      s.bandwidth = bandwidth_;
    }
  }

  template <class XView, class YView>
  void apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x,
                    scalar_type beta, const YView& y) const {
    if (y.extent(0) == 0) return;
    if (alpha == scalar_type(0) || x.extent(0) == 0) {
      Impl::scale_only(space, beta, y);
      return;
    }
    if (mode == Mode::N) {
      Impl::spmv_dispatch(space, target_, A_, device_, alpha, x, beta, y);
    } else if (options_.transpose == SpmvTranspose::scatter) {
      Impl::kokkos::spmv_transpose_scatter(space, A_, alpha, x, beta, y);
    } else {
      if (!transpose_) {
        // Built on the first transposed apply (allocates); A's values may change afterwards, so
        // every transposed apply first copies the current values into A^T (one O(nnz) gather).
        auto [At, source] = Impl::transpose_with_source(A_);
        SpmvOptions transposed_options = options_;
        transposed_options.autotune = false;
        auto cache = std::make_shared<TransposeCache>();
        cache->source = source;
        cache->plan = std::make_shared<SpmvPlan>(At, transposed_options);
        transpose_ = cache;
      }
      Impl::gather_values(space, transpose_->plan->A_.values, A_.values, transpose_->source);
      transpose_->plan->apply_vector(space, Mode::N, alpha, x, beta, y);
    }
  }

  // Measures the model's decision against nearby alternatives and keeps the fastest.
  void autotune() {
    SpmvDecision base = spmv_model_decide(schedule_.features, target_);
    std::vector<std::pair<SpmvDecision, std::string>> candidates{{base, "model"}};
    for (int factor : {4, 16}) {
      SpmvDecision d = base;
      d.virtual_row_size = std::max(1, base.virtual_row_size / factor);
      candidates.push_back({d, "model, U/" + std::to_string(factor)});
      d.virtual_row_size = std::min(1 << 20, base.virtual_row_size * factor);
      candidates.push_back({d, "model, U*" + std::to_string(factor)});
    }
    for (SpmvKernel k : {SpmvKernel::thread_per_row, SpmvKernel::subvector2, SpmvKernel::subvector4,
                         SpmvKernel::subvector8, SpmvKernel::subvector32}) {
      SpmvDecision d = base;
      d.single_bin = true;
      d.single_bin_kernel = k;
      candidates.push_back({d, std::string("single bin, ") + to_string(k)});
    }
    using XV = Kokkos::View<scalar_type*, device_type>;
    XV x("Sprocket::spmv::autotune_x", A_.numCols()), y("Sprocket::spmv::autotune_y", A_.numRows());
    Kokkos::deep_copy(x, scalar_type(1));
    const execution_space space;
    std::ostringstream report;
    report << "autotune (median of " << options_.autotune_repeats << " applies):\n";
    double best = 1e300;
    for (auto& [decision, name] : candidates) {
      SpmvSchedule s = build_spmv_schedule(row_map_, A_.numCols(), options_, target_, decision, "autotune: " + name);
      device_schedule d = make_device(s);
      Impl::spmv_dispatch(space, target_, A_, d, scalar_type(1), x, scalar_type(0), y);  // warm-up
      std::vector<double> t;
      for (int r = 0; r < std::max(1, options_.autotune_repeats); ++r) {
        space.fence();
        const auto t0 = std::chrono::steady_clock::now();
        Impl::spmv_dispatch(space, target_, A_, d, scalar_type(1), x, scalar_type(0), y);
        space.fence();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
      const double median = t[t.size() / 2];
      report << "  " << name << ": " << median * 1e3 << " ms\n";
      if (median < best) {
        best = median;
        schedule_ = std::move(s);
        device_ = std::move(d);
      }
    }
    autotune_report_ = report.str();
  }

  CrsType A_;
  SpmvOptions options_;
  SpmvTarget target_;
  std::vector<int64_t> row_map_;
  SpmvSchedule schedule_;
  device_schedule device_;
  std::string autotune_report_;
  struct TransposeCache {
    Kokkos::View<typename CrsType::non_const_size_type*, device_type> source;
    std::shared_ptr<SpmvPlan> plan;
  };
  mutable std::shared_ptr<TransposeCache> transpose_;
  Kokkos::View<int16_t*, device_type> col_offsets_;
  int64_t bandwidth_ = 0;
  bool compressed_computed_ = false;
  Impl::RowPatterns<device_type> patterns_;
  bool patterns_computed_ = false;
};

}  // namespace Sprocket
