#pragma once
// SpmvOptions::autotune: measures the model's decision against nearby alternatives at analysis
// time and keeps the fastest. A free function over the plan's analysis inputs; SpmvPlan calls it
// after its model schedule when autotune is on and no kernel is forced.
//
// Candidates: the model's decision; the model's with U / 4, U * 4, U / 16, U * 16; a single bin
// of each of thread_per_row, subvector2, subvector4, subvector8, subvector32; on the CUDA target
// with float or double, the row blocks (what the automatic CUDA schedule runs on irregular rows)
// and the row blocks summed along the merge path, and the model's decision reading A's own column
// indices (the others read the compressed copy where the options and the schedule allow one).
// Each runs once to warm up, then
// SpmvOptions::autotune_repeats times (y = A x on x = 1); the median decides.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "impl/spmv/spmv_analysis.hpp"
#include "impl/spmv/spmv_dispatch.hpp"

namespace Sprocket {
namespace Impl {

template <class CrsType>
struct SpmvAutotuneResult {
  SpmvSchedule schedule;          ///< the fastest candidate's (decided_by autotune, its name in detail)
  SpmvAnalysis<CrsType> analysis;
  std::string report;             ///< every candidate's median, for describe()
};

/// One autotune candidate: an explicit decision (binned or single-bin schedules), or, without
/// one, a row-block binning (the CUDA target's schedules, which no decision describes).
struct SpmvAutotuneCandidate {
  std::string name;
  std::optional<SpmvDecision> decision;
  SpmvBinning row_blocks = SpmvBinning::row_blocks;  ///< row_blocks or row_blocks_merge, without a decision
  std::optional<SpmvOptions::IndexCompression> compress_indices;  ///< instead of the options' (empty: theirs)
};

/// The candidates around `base` (the model's decision) on `target`. `row_block_kernels`: the
/// plan's types run the CUDA row-block kernels (float or double; the dispatch refuses row blocks
/// for other types).
inline std::vector<SpmvAutotuneCandidate> spmv_autotune_candidates(const SpmvDecision& base, SpmvTarget target,
                                                                   bool row_block_kernels) {
  std::vector<SpmvAutotuneCandidate> candidates{{"model", base}};
  for (int factor : {4, 16}) {
    SpmvDecision d = base;
    d.virtual_row_size = std::max(1, base.virtual_row_size / factor);
    candidates.push_back({"model, U/" + std::to_string(factor), d});
    d.virtual_row_size = std::min(1 << 20, base.virtual_row_size * factor);
    candidates.push_back({"model, U*" + std::to_string(factor), d});
  }
  for (SpmvKernel k : {SpmvKernel::thread_per_row, SpmvKernel::subvector2, SpmvKernel::subvector4,
                       SpmvKernel::subvector8, SpmvKernel::subvector32}) {
    SpmvDecision d = base;
    d.single_bin = true;
    d.single_bin_kernel = k;
    candidates.push_back({std::string("single bin, ") + to_string(k), d});
  }
  if (target == SpmvTarget::cuda && row_block_kernels) {
    candidates.push_back({"row blocks", std::nullopt, SpmvBinning::row_blocks});
    candidates.push_back({"row blocks, merge path", std::nullopt, SpmvBinning::row_blocks_merge});
    candidates.push_back({"model, the matrix's own column indices", base, SpmvBinning::row_blocks,
                          SpmvOptions::IndexCompression::off});
  }
  return candidates;
}

template <class CrsType>
SpmvAutotuneResult<CrsType> spmv_autotune(const CrsType& A, const std::vector<int64_t>& row_map,
                                          const SpmvOptions& options, SpmvTarget target,
                                          SpmvColumnIndexCopies<typename CrsType::device_type>& copies) {
  using scalar_type = typename CrsType::non_const_value_type;
  using execution_space = typename CrsType::execution_space;
  const SpmvDecision base = spmv_model_decide(spmv_features(row_map, A.numCols()), target);
  constexpr bool row_block_kernels = std::is_same_v<scalar_type, float> || std::is_same_v<scalar_type, double>;
  const std::vector<SpmvAutotuneCandidate> candidates = spmv_autotune_candidates(base, target, row_block_kernels);
  using Vector = Kokkos::View<scalar_type*, typename CrsType::device_type>;
  Vector x("Sprocket::spmv::autotune_x", A.numCols()), y("Sprocket::spmv::autotune_y", A.numRows());
  Kokkos::deep_copy(x, scalar_type(1));
  const execution_space space;
  const auto no_transpose = []() -> const SpmvTransposeAnalysis<CrsType>& {
    throw InvalidArgument("Sprocket::spmv autotune: mode N only");
  };
  auto run = [&](const SpmvAnalysis<CrsType>& a) {
    spmv_dispatch(space, Mode::N, options.transpose, a, no_transpose, scalar_type(1), x, scalar_type(0), y);
  };
  SpmvAutotuneResult<CrsType> result;
  std::ostringstream report;
  report << "autotune (median of " << options.autotune_repeats << " applies):\n";
  double best = 1e300;
  for (const SpmvAutotuneCandidate& c : candidates) {
    SpmvSchedule s;
    if (c.decision) {
      SpmvOptions candidate_options = options;
      if (c.compress_indices) candidate_options.compress_indices = *c.compress_indices;
      s = analyze_spmv(A, row_map, candidate_options, target, copies, &*c.decision, SpmvDecidedBy::autotune, c.name);
    } else {
      SpmvOptions row_block_options = options;
      row_block_options.binning = c.row_blocks;
      s = analyze_spmv(A, row_map, row_block_options, target, copies);
      s.decided_by = SpmvDecidedBy::autotune;
      s.decision_detail = c.name;
    }
    SpmvAnalysis<CrsType> a = make_spmv_analysis(A, s, row_map, copies);
    run(a);  // warm-up
    std::vector<double> t;
    for (int r = 0; r < std::max(1, options.autotune_repeats); ++r) {
      space.fence();
      const auto t0 = std::chrono::steady_clock::now();
      run(a);
      space.fence();
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    const double median = t[t.size() / 2];
    report << "  " << c.name << ": " << median * 1e3 << " ms\n";
    if (median < best) {
      best = median;
      result.schedule = std::move(s);
      result.analysis = std::move(a);
    }
  }
  result.report = report.str();
  return result;
}

}  // namespace Impl
}  // namespace Sprocket
