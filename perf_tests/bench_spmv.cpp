// sprocket-bench --kernel spmv: Sprocket::SpmvPlan (one line per variant) against Kokkos Kernels'
// KokkosSparse::spmv ("kk"), Intel MKL's mkl_sparse_?_mv ("mkl", plain handle or inspector-executor,
// the faster kept; bench_mkl.hpp), SuiteSparse:GraphBLAS's GrB_mxv ("graphblas", where found at build
// time; on its own copies of A and x, bench_graphblas.hpp) and, in CUDA builds, cusparseSpMV
// ("cusparse"), on the same KokkosSparse::CrsMatrix, x and y, measured interleaved in one run.
//
// Bytes per apply (each input read once, each output written once):
//   nnz * (sizeof(Scalar) + sizeof(int))      values + column indices
//   (rows + 1) * sizeof(Offset)                row map
//   cols * sizeof(Scalar)                      x
//   rows * sizeof(Scalar)                      y written (and read too when beta != 0)
// Flops per apply: 2 * nnz.

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include <algorithm>
#include <memory>
#include <type_traits>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Spmv.hpp"
#include "bench_common.hpp"
#include "bench_cusparse.hpp"
#include "bench_graphblas.hpp"
#include "bench_kk_peers.hpp"
#include "bench_mkl.hpp"
#include "bench_matrix_loop.hpp"

namespace sprocket_bench {
namespace spmv {

/// Every --variant name: auto, each forced kernel, binned, the automatic schedule with each
/// SpmvOptions::compress_indices (indices_off, indices_offsets16, indices_row_patterns), row_blocks
/// and row_blocks_merge (SpmvBinning::binned, ::row_blocks, ::row_blocks_merge: the last two CUDA
/// only), portable, autotune.
inline std::vector<std::string> variant_names() {
  std::vector<std::string> v{"auto"};
  for (int k = 0; k < Sprocket::num_spmv_kernels; ++k)
    v.push_back(Sprocket::to_string(static_cast<Sprocket::SpmvKernel>(k)));
  v.push_back("binned");
  v.push_back("indices_off");
  v.push_back("indices_offsets16");
  v.push_back("indices_row_patterns");
  v.push_back("row_blocks");
  v.push_back("row_blocks_merge");
  v.push_back("portable");
  v.push_back("autotune");
  return v;
}

/// --variant all: auto, every forced kernel, binned, the three compress_indices variants, row_blocks
/// and row_blocks_merge where the default space is Cuda, portable
/// (autotune is left out: it is slow to set up and ends up as one of the others).
inline std::vector<std::string> all_variant_names() {
  std::vector<std::string> v = variant_names();
  v.pop_back();
#ifndef KOKKOS_ENABLE_CUDA
  v.erase(std::find(v.begin(), v.end(), "row_blocks"));
  v.erase(std::find(v.begin(), v.end(), "row_blocks_merge"));
#endif
  return v;
}

inline Sprocket::SpmvOptions options_for(const std::string& variant) {
  Sprocket::SpmvOptions o;
  if (variant == "auto") return o;
  if (variant == "portable") {
    o.backend = Sprocket::Backend::portable;
  } else if (variant == "binned") {
    o.binning = Sprocket::SpmvBinning::binned;
  } else if (variant == "indices_off") {
    o.compress_indices = Sprocket::SpmvOptions::IndexCompression::off;
  } else if (variant == "indices_offsets16") {
    o.compress_indices = Sprocket::SpmvOptions::IndexCompression::offsets16;
  } else if (variant == "indices_row_patterns") {
    o.compress_indices = Sprocket::SpmvOptions::IndexCompression::row_patterns;
  } else if (variant == "row_blocks") {
    o.binning = Sprocket::SpmvBinning::row_blocks;
  } else if (variant == "row_blocks_merge") {
    o.binning = Sprocket::SpmvBinning::row_blocks_merge;
  } else if (variant == "autotune") {
    o.autotune = true;
  } else {
    o.kernel = Sprocket::spmv_kernel_from_string(variant);
  }
  return o;
}

#ifdef KOKKOS_ENABLE_CUDA
/// cusparseSpMV on A's own arrays (CSR) with one algorithm (CUSPARSE_SPMV_ALG_DEFAULT,
/// CSR_ALG1 or CSR_ALG2: the bench tries each and keeps the fastest). Handle, descriptors, the
/// external buffer and (cuSPARSE >= 12.3) cusparseSpMV_preprocess are set up here, outside the
/// timed applies. (SELL-slice ELL, cuSPARSE's third SpMV format, needs a conversion cuSPARSE
/// offers only from dense storage: a CSR user does not get it.) 64-bit offsets go with 32-bit
/// columns; should cuSPARSE refuse that pairing, the columns are widened to a 64-bit copy (note()
/// says so).
template <class Crs, class Vec>
class CusparseSpmv {
 public:
  using Scalar = typename Crs::non_const_value_type;
  static constexpr cudaDataType data_type = cusparse_data_type<Scalar>;

  CusparseSpmv(const Crs& A, const Vec& x, const Vec& y, Scalar alpha, Scalar beta, cusparseSpMVAlg_t algorithm)
      : alpha_(alpha), beta_(beta), algorithm_(algorithm) {
    SPROCKET_BENCH_CUSPARSE(cusparseCreateDnVec(&x_, static_cast<int64_t>(x.extent(0)), mutable_ptr(x.data()), data_type));
    SPROCKET_BENCH_CUSPARSE(cusparseCreateDnVec(&y_, static_cast<int64_t>(y.extent(0)), mutable_ptr(y.data()), data_type));
    A_ = std::make_unique<CusparseCsr<Crs>>(A, [this](cusparseSpMatDescr_t a) { return prepare(a); });
  }
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;
  ~CusparseSpmv() {
    A_.reset();
    if (x_) cusparseDestroyDnVec(x_);
    if (y_) cusparseDestroyDnVec(y_);
  }

  void apply() const {
    SPROCKET_BENCH_CUSPARSE(cusparseSpMV(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, A_->get(), x_,
                                         &beta_, y_, data_type, algorithm_, buffer_.data()));
  }
  const std::string& note() const { return A_->note(); }

 private:
  /// The buffer and (cuSPARSE >= 12.3) cusparseSpMV_preprocess for the descriptor `a`.
  cusparseStatus_t prepare(cusparseSpMatDescr_t a) {
    size_t size = 0;
    cusparseStatus_t s = cusparseSpMV_bufferSize(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, a, x_,
                                                 &beta_, y_, data_type, algorithm_, &size);
    if (s != CUSPARSE_STATUS_SUCCESS) return s;
    buffer_ = Kokkos::View<char*, Kokkos::CudaSpace>(
        Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::cusparse::buffer"), std::max<size_t>(size, 16));
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12300
    s = cusparseSpMV_preprocess(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, a, x_, &beta_, y_, data_type,
                                algorithm_, buffer_.data());
#endif
    return s;
  }

  Scalar alpha_, beta_;
  cusparseSpMVAlg_t algorithm_;
  CusparseHandle handle_;
  cusparseDnVecDescr_t x_ = nullptr;
  cusparseDnVecDescr_t y_ = nullptr;
  std::unique_ptr<CusparseCsr<Crs>> A_;
  Kokkos::View<char*, Kokkos::CudaSpace> buffer_;
};
#endif  // KOKKOS_ENABLE_CUDA

/// What the plan runs, for the chosen_kernel key: the kernel of every bin when they agree, else
/// "binned: " and the bins' kernels in bin order ("binned: thread_per_row+subvector8").
inline std::string chosen_kernel(const Sprocket::SpmvSchedule& schedule) {
  if (schedule.row_blocks) {
    const std::string name = schedule.row_block_merge ? "row_blocks_merge" : "row_blocks";
    return schedule.bins.empty() ? name : name + "+split_row";
  }
  std::vector<std::string> kernels;
  for (const auto& bin : schedule.bins) {
    const std::string k = Sprocket::to_string(bin.kernel);
    if (std::find(kernels.begin(), kernels.end(), k) == kernels.end()) kernels.push_back(k);
  }
  if (kernels.empty()) return "none";  // no rows
  if (kernels.size() == 1) return kernels.front();
  std::string s = "binned: ";
  for (size_t i = 0; i < kernels.size(); ++i) s += (i ? "+" : "") + kernels[i];
  return s;
}

/// Benchmarks one matrix with Scalar / Offset; returns 0, or 1 after a failed check.
template <class Scalar, class Offset>
int run_matrix(type_tag<Scalar>, type_tag<Offset>, const Args& args, const std::string& name,
               const Sprocket::HostCsr& host, double stream_gbps) {
  using Space = Kokkos::DefaultExecutionSpace;
  using Device = Kokkos::Device<Space, Space::memory_space>;
  using Crs = KokkosSparse::CrsMatrix<Scalar, int, Device, void, Offset>;
  using Vec = Kokkos::View<Scalar*, Device>;
  using Plan = Sprocket::SpmvPlan<Crs>;

  const Crs A = Sprocket::to_crs<Crs>(host, "sprocket-bench::A");
  const int64_t rows = A.numRows(), cols = A.numCols(), nnz = static_cast<int64_t>(A.nnz());
  const Scalar alpha = static_cast<Scalar>(args.alpha), beta = static_cast<Scalar>(args.beta);
  const VectorInputs<Vec> in = make_vector_inputs<Vec>(rows, cols);
  const Vec x = in.x, y = in.y;

  std::vector<Candidate> candidates;
  for (const std::string& variant : args.variants) {
    const Timed<Plan> ours = construct_timed<Plan>(A, options_for(variant));
    const std::shared_ptr<Plan> plan = ours.object;
    Candidate c = candidate(
        "sprocket", variant, [plan, alpha, x, beta, y] { plan->apply("N", alpha, x, beta, y); }, ours.seconds);
    c.plan_keys.set("chosen_kernel", chosen_kernel(plan->schedule()))
        .set("decided_by", Sprocket::to_string(plan->schedule().decided_by));
    // The analysis phase by phase (SpmvAnalysisSeconds), beside setup_seconds and setup_applies.
    const Sprocket::SpmvAnalysisSeconds& phases = plan->analysis_seconds();
    c.plan_keys.set("analysis_validate_seconds", phases.validate)
        .set("analysis_row_map_seconds", phases.row_map)
        .set("analysis_row_patterns_seconds", phases.row_patterns)
        .set("analysis_offsets16_seconds", phases.offsets16)
        .set("analysis_schedule_seconds", phases.schedule)
        .set("analysis_device_schedule_seconds", phases.device_schedule)
        .set("analysis_autotune_seconds", phases.autotune);
    candidates.push_back(std::move(c));
    if (args.describe)
      info_stream(args) << "describe " << name << " variant " << variant << ":\n" << plan->describe() << "\n";
  }
  for (const std::string& peer : args.peers) {
    if (peer == "kk") {
      Candidate c = fastest_candidate("kk", [&] { return kk::spmv_ways<Scalar, Offset>(A, alpha, x, beta, y); }, -1,
                                      "KokkosSparse::spmv, the fastest of the ways Kokkos Kernels offers (peer_trials)");
      c.details.set("peer_march", kk::peers_march());
      candidates.push_back(std::move(c));
    } else if (peer == "mkl") {
#if defined(SPROCKET_BENCH_HAVE_MKL)
      candidates.push_back(mkl::spmv_candidate(args, A, x, y));
#else
      mkl_not_built(peer);
#endif
    } else if (is_graphblas_peer(peer)) {
      if (auto c = graphblas::spmv_candidate(peer, name, host, x, y, static_cast<double>(alpha), args.beta))
        candidates.push_back(std::move(*c));
    } else if (peer == "cusparse") {
#ifdef KOKKOS_ENABLE_CUDA
      if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
        // Each of cuSPARSE's CSR algorithms set up (the default's set-up time is setup_seconds),
        // tried, and the fastest kept.
        std::vector<Way> ways;
        double setup = -1;
        std::string note;
        const std::pair<const char*, cusparseSpMVAlg_t> algorithms[] = {
            {"alg_default", CUSPARSE_SPMV_ALG_DEFAULT}, {"csr_alg1", CUSPARSE_SPMV_CSR_ALG1}, {"csr_alg2", CUSPARSE_SPMV_CSR_ALG2}};
        for (const auto& [label, algorithm] : algorithms) {
          const Timed<CusparseSpmv<Crs, Vec>> cs = construct_timed<CusparseSpmv<Crs, Vec>>(A, x, y, alpha, beta, algorithm);
          const auto op = cs.object;
          if (setup < 0) setup = cs.seconds;
          if (note.empty()) note = op->note();
          ways.push_back({label, [op] { op->apply(); }});
        }
        candidates.push_back(fastest_candidate("cusparse", ways, setup, note));
        continue;
      }
#endif
      throw cusparse_needs_cuda<Space>();
    }
  }

  corrupt_named_candidates(candidates, [y] { add_one_to_first_entry(y); });

  Section section("spmv", name, rows, cols, nnz);
  section.bytes = static_cast<double>(nnz) * (sizeof(Scalar) + sizeof(int)) +
                  static_cast<double>(rows + 1) * sizeof(Offset) + vector_bytes(rows, cols, beta);
  section.flops = 2.0 * static_cast<double>(nnz);
  section.peers = args.peers;
  section.title_middle = human_bytes(section.bytes) + " per apply, ";
  return measure_spmv_section<Scalar, Offset, Space>(args, section, candidates, host, in, stream_gbps);
}

}  // namespace spmv

KernelEntry spmv_entry() {
  return matrix_kernel_entry(
      "spmv", "y = alpha A x + beta y: SpmvPlan variants vs kk (KokkosSparse::spmv), mkl (mkl_sparse_?_mv, plain or "
      "inspector-executor), graphblas (GrB_mxv), cusparse (CUDA)",
      spmv::variant_names(), spmv::all_variant_names(), {{"kk", true, ""}, mkl_peer(), graphblas_peer(), graphblas9_peer(), cusparse_peer()},
      "sprocket-bench --kernel spmv --matrix gen:poisson3d:n=100 --compare kk --check",
      [](auto... a) { return spmv::run_matrix(a...); });
}

}  // namespace sprocket_bench
