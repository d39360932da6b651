// sprocket-bench --kernel spmm: C = alpha A B + beta C with A sparse (CSR) and B, C dense with K
// columns. Sprocket::SpmmPlan (one line per variant) against, measured interleaved in the same
// run on the same A, B and C:
//   kk        KokkosSparse::spmv with rank-2 Views (B and C in the same layout as ours)
//   spmv      our SpmvPlan on the rank-2 Views: the operator's generic path applies it column by
//             column (what a user gets without an SpMM kernel)
//   mkl       Intel MKL's mkl_sparse_?_mm on A's arrays and B, C in place, in their layout: a plain
//             handle or one hinted for the layout and K and optimised, the faster kept
//             (bench_mkl.hpp); host builds with MKL
//   graphblas SuiteSparse:GraphBLAS GrB_mxm with B full in the same layout, on its own copies of A
//             and B (bench_graphblas.hpp), where found at build time
//   cusparse  cusparseSpMM on A's own arrays and B, C in place, the fastest of the CSR algorithms
//             that accept the layout (chosen at set-up), CUDA builds only
// Default --compare: kk,spmv (and cusparse where the default space is Kokkos::Cuda).
//
// One section per (matrix, K, layout). Our plans are built once per matrix (the analysis looks at
// A's pattern only) and serve every K and layout; their construction time is preprocess_seconds,
// and preprocess_applies = preprocess_seconds / seconds (the analysis as a multiple of one apply
// at that K and layout, the paper's Fig. 11 / Table 3 metric).
//
// Bytes per apply (each input read once, each output written once):
//   (rows + 1) * sizeof(Offset) + nnz * (sizeof(int) + sizeof(Scalar))   A
//   cols * K * sizeof(Scalar)                                            B
//   rows * K * sizeof(Scalar)                                            C written (and read when beta != 0)
// Flops per apply: 2 * nnz * K.

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include <memory>
#include <type_traits>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Spmm.hpp"
#include "Sprocket_Spmv.hpp"
#include "bench_common.hpp"
#include "bench_cusparse.hpp"
#include "bench_graphblas.hpp"
#include "bench_kk_peers.hpp"
#include "bench_mkl.hpp"
#include "bench_matrix_loop.hpp"

namespace sprocket_bench {
namespace spmm {

/// Every --variant name: auto, each forced SpmmKernel (csr_rows, aspt), portable (the portable
/// backend).
inline std::vector<std::string> variant_names() {
  std::vector<std::string> v{"auto"};
  for (int k = 0; k < Sprocket::num_spmm_kernels; ++k)
    v.push_back(Sprocket::to_string(static_cast<Sprocket::SpmmKernel>(k)));
  v.push_back("portable");
  return v;
}

inline Sprocket::SpmmOptions options_for(const std::string& variant) {
  Sprocket::SpmmOptions o;
  if (variant == "portable") o.backend = Sprocket::Backend::portable;
  else o.kernel = Sprocket::spmm_kernel_from_string(variant);  // "auto": automatic
  return o;
}

/// Without --compare: kk and spmv, plus cusparse where it can run.
inline std::vector<std::string> default_peers() {
  std::vector<std::string> p{"kk", "spmv"};
  if (cusparse_peer().available) p.push_back("cusparse");
  return p;
}

#ifdef KOKKOS_ENABLE_CUDA
/// cusparseSpMM on A's own arrays and on B and C in place (row-major for LayoutRight, column-major
/// for LayoutLeft, leading dimension from the View's stride). Set-up tries CUSPARSE_SPMM_ALG_DEFAULT,
/// CSR_ALG1, CSR_ALG2 and CSR_ALG3: each one that accepts the problem gets its buffer and
/// cusparseSpMM_preprocess, one untimed call and a few timed ones; the fastest is kept (note() lists
/// all of them). 64-bit offsets go with 32-bit columns; should cuSPARSE refuse that pairing, the
/// columns are widened to a 64-bit copy.
template <class Crs, class Mat>
class CusparseSpmm {
 public:
  using Scalar = typename Crs::non_const_value_type;
  static constexpr cudaDataType data_type = cusparse_data_type<Scalar>;
  static constexpr bool row_major = std::is_same_v<typename Mat::array_layout, Kokkos::LayoutRight>;

  CusparseSpmm(const Crs& A, const Mat& B, const Mat& C, Scalar alpha, Scalar beta) : alpha_(alpha), beta_(beta) {
    SPROCKET_BENCH_CUSPARSE(create_dense(&B_, B));
    SPROCKET_BENCH_CUSPARSE(create_dense(&C_, C));
    A_ = std::make_unique<CusparseCsr<Crs>>(A, [this](cusparseSpMatDescr_t a) { return pick_algorithm(a); });
    if (!A_->note().empty()) note_ = A_->note() + "; " + note_;
  }
  CusparseSpmm(const CusparseSpmm&) = delete;
  CusparseSpmm& operator=(const CusparseSpmm&) = delete;
  ~CusparseSpmm() {
    A_.reset();
    if (B_) cusparseDestroyDnMat(B_);
    if (C_) cusparseDestroyDnMat(C_);
  }

  void apply() const { SPROCKET_BENCH_CUSPARSE(run(A_->get(), algorithm_, buffer_.data())); }
  const std::string& note() const { return note_; }
  const std::string& algorithm_name() const { return algorithm_name_; }

 private:
  using Buffer = Kokkos::View<char*, Kokkos::CudaSpace>;

  cusparseStatus_t create_dense(cusparseDnMatDescr_t* d, const Mat& M) {
    const int64_t ld = row_major ? static_cast<int64_t>(M.stride(0)) : static_cast<int64_t>(M.stride(1));
    return cusparseCreateDnMat(d, static_cast<int64_t>(M.extent(0)), static_cast<int64_t>(M.extent(1)),
                               std::max<int64_t>(ld, 1), mutable_ptr(M.data()), data_type,
                               row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL);
  }

  cusparseStatus_t run(cusparseSpMatDescr_t a, cusparseSpMMAlg_t alg, void* buffer) const {
    return cusparseSpMM(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, a,
                        B_, &beta_, C_, data_type, alg, buffer);
  }

  // Each algorithm that accepts the problem with the descriptor `a`: buffer, preprocess, one
  // untimed call, the median of five timed ones. Keeps the fastest; NOT_SUPPORTED when none
  // accepted it.
  cusparseStatus_t pick_algorithm(cusparseSpMatDescr_t a) {
    const std::pair<cusparseSpMMAlg_t, const char*> algorithms[] = {{CUSPARSE_SPMM_ALG_DEFAULT, "alg_default"},
                                                                    {CUSPARSE_SPMM_CSR_ALG1, "csr_alg1"},
                                                                    {CUSPARSE_SPMM_CSR_ALG2, "csr_alg2"},
                                                                    {CUSPARSE_SPMM_CSR_ALG3, "csr_alg3"}};
    double best = std::numeric_limits<double>::infinity();
    std::string tried;
    cusparseStatus_t first_failure = CUSPARSE_STATUS_NOT_SUPPORTED;
    for (const auto& entry : algorithms) {
      const cusparseSpMMAlg_t alg = entry.first;  // a plain variable: lambdas may not capture bindings in C++17
      const char* alg_name = entry.second;
      size_t size = 0;
      cusparseStatus_t s = cusparseSpMM_bufferSize(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                   CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, a, B_, &beta_, C_,
                                                   data_type, alg, &size);
      Buffer buffer;
      if (s == CUSPARSE_STATUS_SUCCESS) {
        buffer = Buffer(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::cusparse::spmm_buffer"),
                        std::max<size_t>(size, 16));
        s = cusparseSpMM_preprocess(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    &alpha_, a, B_, &beta_, C_, data_type, alg, buffer.data());
      }
      if (s == CUSPARSE_STATUS_SUCCESS) s = run(a, alg, buffer.data());
      Kokkos::fence();
      if (s != CUSPARSE_STATUS_SUCCESS) {
        tried += std::string(alg_name) + " refused (" + cusparseGetErrorString(s) + "); ";
        if (first_failure == CUSPARSE_STATUS_NOT_SUPPORTED) first_failure = s;
        continue;
      }
      std::vector<double> t;
      for (int r = 0; r < 5; ++r) t.push_back(seconds_of([&] {
        run(a, alg, buffer.data());
        Kokkos::fence();
      }));
      const double median = summarize(t).median;
      tried += std::string(alg_name) + " " + format_number(median, "%.3e") + " s; ";
      if (median < best) {
        best = median;
        algorithm_ = alg;
        algorithm_name_ = alg_name;
        buffer_ = buffer;
      }
    }
    if (algorithm_name_.empty()) return first_failure;
    note_ += "best of cusparseSpMM algorithms at set-up: " + tried;
    return CUSPARSE_STATUS_SUCCESS;
  }

  Scalar alpha_, beta_;
  CusparseHandle handle_;
  cusparseDnMatDescr_t B_ = nullptr;
  cusparseDnMatDescr_t C_ = nullptr;
  std::unique_ptr<CusparseCsr<Crs>> A_;
  cusparseSpMMAlg_t algorithm_ = CUSPARSE_SPMM_ALG_DEFAULT;
  std::string algorithm_name_;
  Buffer buffer_;
  std::string note_;
};
#endif  // KOKKOS_ENABLE_CUDA

/// The reference result of one K (independent of the layout) and the per-entry tolerance
/// 64 eps(Scalar) max(1, row length_i) (|alpha| (|A||B|)_ij + |beta C0_ij|), kept as float (a
/// tolerance needs no more) to halve the host memory of large runs.
struct Oracle {
  Sprocket::HostDense ref;  ///< rows x K, column-major
  std::vector<float> tol;   ///< same indexing as ref
};

/// B (cols x K) and C0 (rows x K) entries: deterministic values in [-1, 1), never zero; the same
/// for every layout.
inline double b_value(int64_t i, int64_t j, int64_t cols) { return input_value(i + j * cols, 1); }
inline double c0_value(int64_t i, int64_t j, int64_t rows) { return input_value(i + j * rows, 2); }

template <class Scalar>
Oracle make_oracle(const Sprocket::HostCsr& host, int64_t K, double alpha, double beta) {
  const int64_t rows = host.num_rows, cols = host.num_cols;
  Sprocket::HostCsr rounded;
  const Sprocket::HostCsr* A = &rounded_to<Scalar>(host, rounded);
  Oracle o;
  {
    Sprocket::HostDense B(cols, K);
    for (int64_t j = 0; j < K; ++j)
      for (int64_t i = 0; i < cols; ++i) B(i, j) = static_cast<double>(static_cast<Scalar>(b_value(i, j, cols)));
    o.ref = Sprocket::HostDense(rows, K);
    if (beta != 0)
      for (int64_t j = 0; j < K; ++j)
        for (int64_t i = 0; i < rows; ++i) o.ref(i, j) = static_cast<double>(static_cast<Scalar>(c0_value(i, j, rows)));
    Sprocket::reference::spmm("N", alpha, *A, B, beta, o.ref);
    const double eps = std::numeric_limits<Scalar>::epsilon();
    o.tol.assign(static_cast<size_t>(rows * K), 0.0f);
    std::vector<double> abs_ab(static_cast<size_t>(K));
    for (int64_t i = 0; i < rows; ++i) {
      std::fill(abs_ab.begin(), abs_ab.end(), 0.0);
      for (int64_t e = A->row_map[i]; e < A->row_map[i + 1]; ++e) {
        const double a = std::abs(A->values[e]);
        const int64_t c = A->entries[e];
        for (int64_t j = 0; j < K; ++j) abs_ab[j] += a * std::abs(B(c, j));
      }
      const double len = static_cast<double>(std::max<int64_t>(1, A->row_length(i)));
      for (int64_t j = 0; j < K; ++j) {
        const double c0 = beta != 0 ? static_cast<double>(static_cast<Scalar>(c0_value(i, j, rows))) : 0.0;
        o.tol[i + j * rows] =
            static_cast<float>(64.0 * eps * len * (std::abs(alpha) * abs_ab[j] + std::abs(beta * c0)));
      }
    }
  }
  return o;
}

/// Compares C (on the host) with the oracle entry by entry; NaN fails. Adds check, err_norm
/// (||C - ref||_F / ||ref||_F) and max_err_over_tol to rec and prints the details of a mismatch.
template <class HostMat>
bool check_result(Record& rec, const HostMat& C, const Oracle& o, const std::string& what) {
  const int64_t rows = o.ref.num_rows, K = o.ref.num_cols;
  int64_t bad = 0, worst_i = -1, worst_j = -1;
  double diff2 = 0, ref2 = 0, worst = 0;
  for (int64_t j = 0; j < K; ++j)
    for (int64_t i = 0; i < rows; ++i) {
      const double got = static_cast<double>(C(i, j)), ref = o.ref(i, j), tol = o.tol[i + j * rows];
      const double d = std::abs(got - ref);
      ref2 += ref * ref;
      diff2 += d * d;  // NaN propagates into the norm, as it should
      const double ratio = std::isnan(d) ? std::numeric_limits<double>::infinity()
                                         : (d == 0 ? 0.0 : (tol > 0 ? d / tol : std::numeric_limits<double>::infinity()));
      if (!(d <= tol)) ++bad;
      if (ratio > worst || (worst_i < 0 && ratio > 0)) {
        worst = ratio;
        worst_i = i;
        worst_j = j;
      }
    }
  const double norm = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  rec.set("check", bad == 0).set("err_norm", norm).set("max_err_over_tol", worst);
  if (bad) {
    std::ostringstream os;
    os.precision(17);
    os << "sprocket-bench: check FAILED for " << what << ": " << bad << " of " << rows * K
       << " entries outside tolerance, relative error norm ||C - ref||_F / ||ref||_F = " << norm;
    if (worst_i >= 0)
      os << "; worst entry (" << worst_i << ", " << worst_j << "): got " << static_cast<double>(C(worst_i, worst_j))
         << ", reference " << o.ref(worst_i, worst_j) << ", tolerance " << o.tol[worst_i + worst_j * rows];
    std::cerr << os.str() << "\n";
  }
  return bad == 0;
}

/// Our plans and the spmv peer's, built once per matrix.
template <class Crs>
struct Plans {
  struct Ours {
    std::string variant;
    std::shared_ptr<Sprocket::SpmmPlan<Crs>> plan;
    double construct_seconds = 0;
  };
  std::vector<Ours> ours;
  std::shared_ptr<Sprocket::SpmvPlan<Crs>> spmv;
  double spmv_setup_seconds = -1;
};

template <class Layout>
const char* layout_name() {
  return std::is_same_v<Layout, Kokkos::LayoutRight> ? "right" : "left";
}

/// One section: K columns in Layout. Returns 0, or 1 after a failed check.
template <class Scalar, class Offset, class Layout, class Crs>
int run_section(const Args& args, const std::string& name, const Sprocket::HostCsr& host, const Crs& A,
                const Plans<Crs>& plans, const std::vector<std::string>& peers, int64_t K, const Oracle* oracle,
                double stream_gbps) {
  using Space = typename Crs::execution_space;
  using Device = typename Crs::device_type;
  using Mat = Kokkos::View<Scalar**, Layout, Device>;

  const int64_t rows = A.numRows(), cols = A.numCols(), nnz = static_cast<int64_t>(A.nnz());
  const Scalar alpha = static_cast<Scalar>(args.alpha), beta = static_cast<Scalar>(args.beta);
  const char* layout = layout_name<Layout>();

  Mat B(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::B"), cols, K);
  Mat C(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::C"), rows, K);
  Mat C0;  // the C that beta scales (only when beta != 0)
  {
    auto Bh = Kokkos::create_mirror_view(B);
    for (int64_t i = 0; i < cols; ++i)
      for (int64_t j = 0; j < K; ++j) Bh(i, j) = static_cast<Scalar>(b_value(i, j, cols));
    Kokkos::deep_copy(B, Bh);
    if (beta != Scalar(0)) {
      C0 = Mat(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::C0"), rows, K);
      auto Ch = Kokkos::create_mirror_view(C0);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < K; ++j) Ch(i, j) = static_cast<Scalar>(c0_value(i, j, rows));
      Kokkos::deep_copy(C0, Ch);
      Kokkos::deep_copy(C, C0);
    } else {
      Kokkos::deep_copy(C, Scalar(0));
    }
  }

  std::vector<Candidate> candidates;
  for (const auto& ours : plans.ours) {
    const auto plan = ours.plan;
    Candidate c = candidate("sprocket", ours.variant, [plan, alpha, B, beta, C] { plan->apply("N", alpha, B, beta, C); });
    const Sprocket::SpmmTiling& tiling = plan->tiling();
    const Sprocket::SpmmTilingStats& stats = plan->stats();
    c.plan_keys.set("chosen_kernel", plan_kernel_name(*plan));
    c.details.set("panel_rows", tiling.panel_rows)
        .set("tile_cols", tiling.tile_cols)
        .set("heavy_threshold", tiling.heavy_threshold)
        .set("min_heavy_fraction", tiling.min_heavy_fraction)
        .set("num_heavy_tiles", stats.num_heavy_tiles)
        .set("heavy_fraction", nnz > 0 ? static_cast<double>(stats.heavy_nnz) / static_cast<double>(nnz) : 0.0)
        .set("moved_to_light", stats.moved_to_light)
        .set("analysis_seconds", stats.analysis_seconds);
    c.preprocess_seconds = ours.construct_seconds;
    candidates.push_back(std::move(c));
  }
  for (const std::string& peer : peers) {
    if (peer == "kk") {
      Candidate c = candidate("kk", "default", [A, alpha, B, beta, C] { kk::spmm<Scalar, Offset, Layout>(A, alpha, B, beta, C); },
                              -1, "KokkosSparse::spmv rank 2 (its one algorithm)");
      c.details.set("peer_march", kk::peers_march());
      candidates.push_back(std::move(c));
    } else if (peer == "mkl") {
#if defined(SPROCKET_BENCH_HAVE_MKL)
      candidates.push_back(mkl::spmm_candidate(args, A, B, C));
#else
      mkl_not_built(peer);
#endif
    } else if (peer == "spmv") {
      const auto plan = plans.spmv;
      candidates.push_back(candidate("spmv", "default",
                                     [plan, alpha, B, beta, C] { plan->apply("N", alpha, B, beta, C); },
                                     plans.spmv_setup_seconds, "SpmvPlan applied to each of the K columns"));
    } else if (is_graphblas_peer(peer)) {
      if (auto c = graphblas::spmm_candidate(peer, name, host, B, C, static_cast<double>(alpha), args.beta))
        candidates.push_back(std::move(*c));
    } else if (peer == "cusparse") {
#ifdef KOKKOS_ENABLE_CUDA
      if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
        const Timed<CusparseSpmm<Crs, Mat>> cs = construct_timed<CusparseSpmm<Crs, Mat>>(A, B, C, alpha, beta);
        const auto op = cs.object;
        Candidate c = candidate("cusparse", "default", [op] { op->apply(); }, cs.seconds, op->note());
        c.peer_algorithm = op->algorithm_name();
        candidates.push_back(std::move(c));
        continue;
      }
#endif
      throw cusparse_needs_cuda<Space>();
    }
  }

  corrupt_named_candidates(candidates, [C] { add_one_to_first_entry(C); });

  const double Kd = static_cast<double>(K);
  Section section("spmm", name, rows, cols, nnz);
  section.bytes = static_cast<double>(rows + 1) * sizeof(Offset) +
                  static_cast<double>(nnz) * (sizeof(int) + sizeof(Scalar)) +
                  static_cast<double>(cols) * Kd * sizeof(Scalar) +
                  static_cast<double>(rows) * Kd * sizeof(Scalar) * (beta != Scalar(0) ? 2.0 : 1.0);
  section.flops = 2.0 * static_cast<double>(nnz) * Kd;
  section.peers = peers;
  section.keys.set("k", K).set("layout", layout);
  section.title_middle = "K " + std::to_string(K) + ", layout " + layout + ", " + human_bytes(section.bytes) +
                         " per apply, ";
  section.extra_columns = {{"heavy_fraction", "heavy", "%.3f"},
                           {"preprocess_seconds", "preproc_s", "%.3g"},
                           {"preprocess_applies", "preproc_x", "%.2f"}};

  // --check: every candidate once on a poisoned C (NaN; beta != 0: C0), against the reference.
  std::function<bool(std::vector<Record>&)> check;
  if (oracle)
    check = [&](std::vector<Record>& checks) {
      bool all_ok = true;
      auto Ch = Kokkos::create_mirror_view(C);
      for (size_t c = 0; c < candidates.size(); ++c) {
        if (beta != Scalar(0)) Kokkos::deep_copy(C, C0);
        else Kokkos::deep_copy(C, std::numeric_limits<Scalar>::quiet_NaN());
        candidates[c].apply();
        if (candidates[c].fetch_result) candidates[c].fetch_result();
        Kokkos::fence();
        Kokkos::deep_copy(Ch, C);
        all_ok &= check_result(checks[c], Ch, *oracle,
                               candidates[c].impl + " " + candidates[c].variant + " on " + name + " (K " +
                                   std::to_string(K) + ", layout " + layout + ")");
      }
      if (beta != Scalar(0)) Kokkos::deep_copy(C, C0);
      return all_ok;
    };
  return measure_section<Scalar, Offset, Space>(args, section, candidates, check, stream_gbps);
}

/// Benchmarks one matrix with Scalar / Offset for every --k and --layout; returns 0, or 1 after a
/// failed check.
template <class Scalar, class Offset>
int run_matrix(type_tag<Scalar>, type_tag<Offset>, const Args& args, const std::string& name,
               const Sprocket::HostCsr& host, double stream_gbps) {
  using Space = Kokkos::DefaultExecutionSpace;
  using Device = Kokkos::Device<Space, Space::memory_space>;
  using Crs = KokkosSparse::CrsMatrix<Scalar, int, Device, void, Offset>;

  const Crs A = Sprocket::to_crs<Crs>(host, "sprocket-bench::A");
  const std::vector<std::string> peers = args.peers.empty() ? default_peers() : args.peers;

  // The analyses look at A's pattern only: one plan per variant serves every K and layout.
  Plans<Crs> plans;
  for (const std::string& variant : args.variants) {
    const Timed<Sprocket::SpmmPlan<Crs>> ours = construct_timed<Sprocket::SpmmPlan<Crs>>(A, options_for(variant));
    if (args.describe)
      info_stream(args) << "describe " << name << " variant " << variant << ":\n" << ours.object->describe() << "\n";
    plans.ours.push_back({variant, ours.object, ours.seconds});
  }
  if (std::find(peers.begin(), peers.end(), "spmv") != peers.end()) {
    const Timed<Sprocket::SpmvPlan<Crs>> spmv = construct_timed<Sprocket::SpmvPlan<Crs>>(A);
    plans.spmv = spmv.object;
    plans.spmv_setup_seconds = spmv.seconds;
    if (args.describe) info_stream(args) << "describe " << name << " peer spmv:\n" << plans.spmv->describe() << "\n";
  }

  int status = 0;
  for (const int64_t K : args.ks) {
    Oracle oracle;
    if (args.check) oracle = make_oracle<Scalar>(host, K, args.alpha, args.beta);
    const Oracle* o = args.check ? &oracle : nullptr;
    if (args.layout != "left")
      status = std::max(status, run_section<Scalar, Offset, Kokkos::LayoutRight>(args, name, host, A, plans, peers, K,
                                                                                 o, stream_gbps));
    if (args.layout != "right")
      status = std::max(status, run_section<Scalar, Offset, Kokkos::LayoutLeft>(args, name, host, A, plans, peers, K,
                                                                                o, stream_gbps));
  }
  return status;
}

}  // namespace spmm

KernelEntry spmm_entry() {
  return matrix_kernel_entry(
      "spmm",
      "C = alpha A B + beta C, B and C dense with --k columns (--layout right|left|both): SpmmPlan variants vs kk "
      "(KokkosSparse::spmv rank-2), spmv (SpmvPlan column by column), mkl (mkl_sparse_?_mm), graphblas (GrB_mxm), "
      "cusparse (cusparseSpMM, "
      "CUDA); default --compare kk,spmv (+cusparse on CUDA)",
      spmm::variant_names(), spmm::variant_names(),
      {{"kk", true, ""}, {"spmv", true, ""}, mkl_peer(), graphblas_peer(), graphblas9_peer(), cusparse_peer()},
      "sprocket-bench --kernel spmm --matrix gen:rmat:scale=16 --k 32,128 --layout both --check",
      [](auto... a) { return spmm::run_matrix(a...); });
}

}  // namespace sprocket_bench
