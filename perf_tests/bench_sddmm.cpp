// sprocket-bench --kernel sddmm: sampled dense-dense matrix multiplication on the entries of a
// sparse S (CSR, rows x cols): out_k = alpha <A(i, :), B(j, :)> + beta out_k for every stored
// entry k = (i, j) of S, with A dense rows x K, B dense cols x K and out one value per entry of S
// in S's order, i.e. out = alpha (A B^T) o spy(S) + beta out. Sprocket::SddmmPlan (one line per
// variant) against, measured interleaved in the same run on the same S, A, B and out:
//   graphblas    SuiteSparse:GraphBLAS, GrB_mxm with S as a structural mask, B transposed by the
//                descriptor and the dot-product method (bench_graphblas.hpp), where found at build
//   kokkos_team  the kernel a Kokkos user writes first: one team per row of S (TeamPolicy league =
//                rows), the team's threads over the row's entries (TeamThreadRange), the dot product
//                a vector-lane reduction along K (ThreadVectorRange)
//   cusparse     cusparseSDDMM (CUSPARSE_SDDMM_ALG_DEFAULT) on S's arrays and A, B in place, CUDA
//                builds only
// Default --compare: graphblas (where built), kokkos_team, cusparse (where the default space is
// Kokkos::Cuda).
//
// Every implementation computes the pattern form (S's values are not read): GraphBLAS with a
// structural mask and cuSPARSE compute exactly that, so every line does the same work. Ours is
// plan.apply(alpha, A, B, beta, out), SddmmForm::pattern.
//
// One section per (matrix, K, layout of A and B; --layout, default right). Our plans are built once
// per matrix (the analysis reads S's pattern only) and serve every K and layout; the kernel an
// apply runs depends on K (SddmmPlan::kernel_for), so chosen_kernel / decided_by are per section.
// preprocess_seconds is the plan's construction, preprocess_applies = preprocess_seconds / seconds.
//
// Bytes per apply (each input read once, each output written once):
//   (rows + 1) * sizeof(Offset) + nnz * sizeof(int)   S's pattern
//   rows * K * sizeof(Scalar)                          A
//   cols * K * sizeof(Scalar)                          B
//   nnz * sizeof(Scalar)                               out written (and read when beta != 0)
// Flops per apply: 2 * nnz * K.

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include <memory>
#include <type_traits>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Sddmm.hpp"
#include "Sprocket_Spmm.hpp"
#include "bench_common.hpp"
#include "bench_cusparse.hpp"
#include "bench_graphblas.hpp"
#include "bench_kk_peers.hpp"
#include "bench_matrix_loop.hpp"

namespace sprocket_bench {
namespace sddmm {

/// Every --variant name: auto (SddmmPlan(S) as constructed by default), each forced SddmmKernel,
/// build_tiles (automatic with the plan's own ASpT analysis), from_spmm (automatic on an SpmmPlan's
/// analysis), portable (the portable backend).
inline std::vector<std::string> variant_names() {
  std::vector<std::string> v{"auto"};
  for (int k = 0; k < Sprocket::num_sddmm_kernels; ++k)
    v.push_back(Sprocket::to_string(static_cast<Sprocket::SddmmKernel>(k)));
  v.push_back("build_tiles");
  v.push_back("from_spmm");
  v.push_back("portable");
  return v;
}

inline Sprocket::SddmmOptions options_for(const std::string& variant) {
  Sprocket::SddmmOptions o;
  if (variant == "portable") o.backend = Sprocket::Backend::portable;
  else if (variant == "build_tiles") o.build_tiles = true;
  else if (variant != "from_spmm") o.kernel = Sprocket::sddmm_kernel_from_string(variant);  // "auto": automatic
  return o;
}

/// Without --compare: graphblas where built, kokkos_team, cusparse where it can run.
inline std::vector<std::string> default_peers() {
  std::vector<std::string> p;
  add_default_graphblas_peers(p);
  p.push_back("kokkos_team");
  if (cusparse_peer().available) p.push_back("cusparse");
  return p;
}

#ifdef KOKKOS_ENABLE_CUDA
/// cusparseSDDMM on S's arrays (its values replaced by out) and on A and B in place. cuSPARSE
/// computes alpha (op(A) op(B)) o spy(C) + beta C with op(B) K x N: B (N x K) is described as B^T
/// by reading its memory in the other order (row-major N x K = column-major K x N), so both
/// operations are NON_TRANSPOSE and nothing is copied. Buffer and cusparseSDDMM_preprocess at
/// set-up. 64-bit offsets go with 32-bit columns; should cuSPARSE refuse that pairing, the columns
/// are widened to a 64-bit copy (note()).
template <class Crs, class Mat, class Out>
class CusparseSddmm {
 public:
  using Scalar = typename Crs::non_const_value_type;
  static constexpr cudaDataType data_type = cusparse_data_type<Scalar>;
  static constexpr bool row_major = std::is_same_v<typename Mat::array_layout, Kokkos::LayoutRight>;

  CusparseSddmm(const Crs& S, const Mat& A, const Mat& B, const Out& out, Scalar alpha, Scalar beta)
      : alpha_(alpha), beta_(beta), C_("sprocket-bench::sddmm::cusparse_C", S.numCols(), out, S.graph) {
    const int64_t M = A.extent(0), K = A.extent(1), N = B.extent(0);
    const int64_t lda = row_major ? static_cast<int64_t>(A.stride(0)) : static_cast<int64_t>(A.stride(1));
    const int64_t ldb = row_major ? static_cast<int64_t>(B.stride(0)) : static_cast<int64_t>(B.stride(1));
    SPROCKET_BENCH_CUSPARSE(cusparseCreateDnMat(&A_, M, K, std::max<int64_t>(lda, 1), mutable_ptr(A.data()), data_type,
                                                row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL));
    SPROCKET_BENCH_CUSPARSE(cusparseCreateDnMat(&Bt_, K, N, std::max<int64_t>(ldb, 1), mutable_ptr(B.data()),
                                                data_type, row_major ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW));
    descriptor_ = std::make_unique<CusparseCsr<Crs>>(C_, [this](cusparseSpMatDescr_t c) { return prepare(c); });
  }
  CusparseSddmm(const CusparseSddmm&) = delete;
  CusparseSddmm& operator=(const CusparseSddmm&) = delete;
  ~CusparseSddmm() {
    descriptor_.reset();
    if (A_) cusparseDestroyDnMat(A_);
    if (Bt_) cusparseDestroyDnMat(Bt_);
  }

  void apply() const {
    SPROCKET_BENCH_CUSPARSE(cusparseSDDMM(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                          CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, A_, Bt_, &beta_,
                                          descriptor_->get(), data_type, CUSPARSE_SDDMM_ALG_DEFAULT, buffer_.data()));
  }
  const std::string& note() const { return descriptor_->note(); }

 private:
  cusparseStatus_t prepare(cusparseSpMatDescr_t c) {
    size_t size = 0;
    cusparseStatus_t s = cusparseSDDMM_bufferSize(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                  CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, A_, Bt_, &beta_, c,
                                                  data_type, CUSPARSE_SDDMM_ALG_DEFAULT, &size);
    if (s != CUSPARSE_STATUS_SUCCESS) return s;
    buffer_ = Kokkos::View<char*, Kokkos::CudaSpace>(
        Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::cusparse::sddmm_buffer"), std::max<size_t>(size, 16));
    return cusparseSDDMM_preprocess(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    &alpha_, A_, Bt_, &beta_, c, data_type, CUSPARSE_SDDMM_ALG_DEFAULT,
                                    buffer_.data());
  }

  Scalar alpha_, beta_;
  CusparseHandle handle_;
  Crs C_;  ///< S's row map and columns with out as its values: the output cuSPARSE writes
  cusparseDnMatDescr_t A_ = nullptr;
  cusparseDnMatDescr_t Bt_ = nullptr;
  std::unique_ptr<CusparseCsr<Crs>> descriptor_;
  Kokkos::View<char*, Kokkos::CudaSpace> buffer_;
};
#endif  // KOKKOS_ENABLE_CUDA

/// A (rows x K), B (cols x K) and the initial out (nnz) entries: deterministic values in [-1, 1),
/// never zero; the same for every layout.
inline double a_value(int64_t i, int64_t p, int64_t rows) { return input_value(i + p * rows, 3); }
inline double b_value(int64_t j, int64_t p, int64_t cols) { return input_value(j + p * cols, 4); }
inline double out0_value(int64_t k) { return input_value(k, 5); }

/// The reference result of one K (independent of the layout) and the per-entry tolerance
/// 64 eps(Scalar) max(1, K) (|alpha| sum_p |A(i, p)| |B(j, p)| + |beta out0_k|): the SpMM rule with
/// the K terms of the dot product in place of the row's entries.
struct Oracle {
  std::vector<double> ref, tol;
};

template <class Scalar>
Oracle make_oracle(const Sprocket::HostCsr& host, int64_t K, double alpha, double beta) {
  const int64_t rows = host.num_rows, cols = host.num_cols, nnz = host.nnz();
  Sprocket::HostDense A(rows, K), B(cols, K);
  for (int64_t p = 0; p < K; ++p) {
    for (int64_t i = 0; i < rows; ++i) A(i, p) = static_cast<double>(static_cast<Scalar>(a_value(i, p, rows)));
    for (int64_t j = 0; j < cols; ++j) B(j, p) = static_cast<double>(static_cast<Scalar>(b_value(j, p, cols)));
  }
  // The pattern form: the reference's scaled form with every value of S 1.
  Sprocket::HostCsr pattern = host;
  std::fill(pattern.values.begin(), pattern.values.end(), 1.0);
  const Sprocket::HostCsr dots = Sprocket::reference::sddmm(pattern, A, B);
  pattern = Sprocket::HostCsr();

  // sum_p |A(i, p)| |B(j, p)|, one column p at a time: A and B are column-major, so each pass
  // streams a column of A and reads one column of B (which stays in cache) at S's columns.
  std::vector<double> abs_dot(static_cast<size_t>(nnz), 0.0);
  for (int64_t p = 0; p < K; ++p)
    for (int64_t i = 0; i < rows; ++i) {
      const double a = std::abs(A(i, p));
      for (int64_t k = host.row_map[i]; k < host.row_map[i + 1]; ++k) abs_dot[k] += a * std::abs(B(host.entries[k], p));
    }
  const double eps = std::numeric_limits<Scalar>::epsilon(), terms = static_cast<double>(std::max<int64_t>(1, K));
  Oracle o;
  o.ref.resize(nnz);
  o.tol.resize(nnz);
  for (int64_t k = 0; k < nnz; ++k) {
    const double out0 = beta != 0 ? static_cast<double>(static_cast<Scalar>(out0_value(k))) : 0.0;
    o.ref[k] = alpha * dots.values[k] + beta * out0;
    o.tol[k] = 64.0 * eps * terms * (std::abs(alpha) * abs_dot[k] + std::abs(beta * out0));
  }
  return o;
}

/// One of our plans, built once per matrix.
template <class Crs>
struct OurPlan {
  std::string variant;
  std::shared_ptr<Sprocket::SddmmPlan<Crs>> plan;
  double construct_seconds = 0;   ///< the SddmmPlan's construction (from_spmm: plus the SpmmPlan's)
  double spmm_plan_seconds = -1;  ///< from_spmm: the SpmmPlan's construction alone
};

template <class Crs>
OurPlan<Crs> build_plan(const Crs& S, const std::string& variant) {
  using Plan = Sprocket::SddmmPlan<Crs>;
  OurPlan<Crs> ours;
  ours.variant = variant;
  if (variant == "from_spmm") {
    // The SpmmPlan may go once the SddmmPlan has taken its analysis.
    const Timed<Sprocket::SpmmPlan<Crs>> spmm = construct_timed<Sprocket::SpmmPlan<Crs>>(S);
    const Timed<Plan> plan = construct_timed<Plan>(*spmm.object);
    ours.plan = plan.object;
    ours.spmm_plan_seconds = spmm.seconds;
    ours.construct_seconds = spmm.seconds + plan.seconds;
  } else {
    const Timed<Plan> plan = construct_timed<Plan>(S, options_for(variant));
    ours.plan = plan.object;
    ours.construct_seconds = plan.seconds;
  }
  return ours;
}

template <class Layout>
const char* layout_name() {
  return std::is_same_v<Layout, Kokkos::LayoutRight> ? "right" : "left";
}

/// One section: K columns of A and B in Layout. Returns 0, or 1 after a failed check.
template <class Scalar, class Offset, class Layout, class Crs>
int run_section(const Args& args, const std::string& name, const Sprocket::HostCsr& host, const Crs& S,
                const std::vector<OurPlan<Crs>>& plans, const std::vector<std::string>& peers, int64_t K,
                const Oracle* oracle, double stream_gbps) {
  using Space = typename Crs::execution_space;
  using Device = typename Crs::device_type;
  using Mat = Kokkos::View<Scalar**, Layout, Device>;
  using Out = typename Crs::values_type;

  const int64_t rows = S.numRows(), cols = S.numCols(), nnz = static_cast<int64_t>(S.nnz());
  const Scalar alpha = static_cast<Scalar>(args.alpha), beta = static_cast<Scalar>(args.beta);
  const char* layout = layout_name<Layout>();

  Mat A(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::A"), rows, K);
  Mat B(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::B"), cols, K);
  Out out(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::out"), nnz);
  Out out0;  // the out that beta scales (only when beta != 0)
  {
    auto Ah = Kokkos::create_mirror_view(A);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t p = 0; p < K; ++p) Ah(i, p) = static_cast<Scalar>(a_value(i, p, rows));
    Kokkos::deep_copy(A, Ah);
    auto Bh = Kokkos::create_mirror_view(B);
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t p = 0; p < K; ++p) Bh(j, p) = static_cast<Scalar>(b_value(j, p, cols));
    Kokkos::deep_copy(B, Bh);
    if (beta != Scalar(0)) {
      out0 = Out(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::out0"), nnz);
      auto oh = Kokkos::create_mirror_view(out0);
      for (int64_t k = 0; k < nnz; ++k) oh(k) = static_cast<Scalar>(out0_value(k));
      Kokkos::deep_copy(out0, oh);
      Kokkos::deep_copy(out, out0);
    } else {
      Kokkos::deep_copy(out, Scalar(0));
    }
  }

  std::vector<Candidate> candidates;
  for (const OurPlan<Crs>& ours : plans) {
    const auto plan = ours.plan;
    Candidate c = candidate("sprocket", ours.variant,
                            [plan, alpha, A, B, beta, out] { plan->apply(Sprocket::SddmmForm::pattern, alpha, A, B, beta, out); });
    std::string why;
    const Sprocket::SddmmKernel kernel = plan->kernel_for(K, &why);
    c.plan_keys.set("chosen_kernel",
                    plan->backend() == Sprocket::Backend::portable ? "portable" : Sprocket::to_string(kernel))
        .set("decided_by", why);
    c.details.set("backend", Sprocket::to_string(plan->backend())).set("has_tiles", plan->has_tiles());
    if (plan->has_tiles())
      c.details.set("tiles_shared", plan->analysis().tiles_shared).set("heavy_fraction", plan->analysis().heavy_fraction);
    if (ours.spmm_plan_seconds >= 0) c.details.set("spmm_plan_seconds", ours.spmm_plan_seconds);
    c.preprocess_seconds = ours.construct_seconds;
    candidates.push_back(std::move(c));
  }
  for (const std::string& peer : peers) {
    if (peer == "kokkos_team") {
      Candidate c = candidate("kokkos_team", "default", [S, A, B, alpha, beta, out] {
        kk::kokkos_team_sddmm<Scalar, Offset, Layout>(S, A, B, alpha, beta, out);
      });
      c.details.set("peer_march", kk::peers_march());
      candidates.push_back(std::move(c));
    } else if (is_graphblas_peer(peer)) {
      if (auto c = graphblas::sddmm_candidate(peer, name, host, A, B, out, static_cast<double>(alpha), args.beta))
        candidates.push_back(std::move(*c));
    } else if (peer == "cusparse") {
#ifdef KOKKOS_ENABLE_CUDA
      if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
        using Op = CusparseSddmm<Crs, Mat, Out>;
        const Timed<Op> cs = construct_timed<Op>(S, A, B, out, alpha, beta);
        const auto op = cs.object;
        candidates.push_back(candidate("cusparse", "default", [op] { op->apply(); }, cs.seconds, op->note()));
        continue;
      }
#endif
      throw cusparse_needs_cuda<Space>();
    }
  }

  corrupt_named_candidates(candidates, [out] { add_one_to_first_entry(out); });

  const double Kd = static_cast<double>(K);
  Section section("sddmm", name, rows, cols, nnz);
  section.bytes = static_cast<double>(rows + 1) * sizeof(Offset) + static_cast<double>(nnz) * sizeof(int) +
                  static_cast<double>(rows + cols) * Kd * sizeof(Scalar) +
                  static_cast<double>(nnz) * sizeof(Scalar) * (beta != Scalar(0) ? 2.0 : 1.0);
  section.flops = 2.0 * static_cast<double>(nnz) * Kd;
  for (const std::string& peer : peers)
    for (const Candidate& c : candidates)
      if (c.impl == peer) {
        section.peers.push_back(peer);
        break;
      }
  section.keys.set("k", K).set("layout", layout).set("form", "pattern");
  section.title_middle = "K " + std::to_string(K) + ", layout " + layout + ", pattern form, " +
                         human_bytes(section.bytes) + " per apply, ";
  section.extra_columns = {{"heavy_fraction", "heavy", "%.3f"},
                           {"preprocess_seconds", "preproc_s", "%.3g"},
                           {"preprocess_applies", "preproc_x", "%.2f"}};

  // --check: every candidate once on a poisoned out (NaN; beta != 0: out0), against the reference.
  std::function<bool(std::vector<Record>&)> check;
  if (oracle)
    check = [&](std::vector<Record>& checks) {
      bool all_ok = true;
      auto oh = Kokkos::create_mirror_view(out);
      std::vector<double> got(static_cast<size_t>(nnz));
      for (size_t c = 0; c < candidates.size(); ++c) {
        if (beta != Scalar(0)) Kokkos::deep_copy(out, out0);
        else Kokkos::deep_copy(out, std::numeric_limits<Scalar>::quiet_NaN());
        candidates[c].apply();
        if (candidates[c].fetch_result) candidates[c].fetch_result();
        Kokkos::fence();
        Kokkos::deep_copy(oh, out);
        for (int64_t k = 0; k < nnz; ++k) got[k] = static_cast<double>(oh(k));
        const CheckResult result = check_against(got, oracle->ref, oracle->tol);
        all_ok &= report_check(checks[c], result, got, oracle->ref, oracle->tol,
                               candidates[c].impl + " " + candidates[c].variant + " on " + name + " (K " +
                                   std::to_string(K) + ", layout " + layout + ")");
      }
      if (beta != Scalar(0)) Kokkos::deep_copy(out, out0);
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

#ifdef KOKKOS_ENABLE_CUDA
  // nvcc time: every (Scalar, Offset, layout) instantiates the plan's CUDA kernels, so CUDA builds
  // carry the int offsets only.
  if constexpr (!std::is_same_v<Offset, int>) {
    throw std::runtime_error("--kernel sddmm runs --offset int only in CUDA builds");
  } else
#endif
  {
    const Crs S = Sprocket::to_crs<Crs>(host, "sprocket-bench::S");
    const std::vector<std::string> peers = args.peers.empty() ? default_peers() : args.peers;

    std::vector<OurPlan<Crs>> plans;
    for (const std::string& variant : args.variants) {
      plans.push_back(build_plan(S, variant));
      if (args.describe)
        info_stream(args) << "describe " << name << " variant " << variant << ":\n"
                          << plans.back().plan->describe() << "\n";
    }

    int status = 0;
    const std::string layouts = args.layout.empty() ? "right" : args.layout;
    for (const int64_t K : args.ks) {
      Oracle oracle;
      if (args.check) oracle = make_oracle<Scalar>(host, K, args.alpha, args.beta);
      const Oracle* o = args.check ? &oracle : nullptr;
      if (layouts != "left")
        status = std::max(status, run_section<Scalar, Offset, Kokkos::LayoutRight>(args, name, host, S, plans, peers,
                                                                                   K, o, stream_gbps));
      if (layouts != "right")
        status = std::max(status, run_section<Scalar, Offset, Kokkos::LayoutLeft>(args, name, host, S, plans, peers,
                                                                                  K, o, stream_gbps));
    }
    return status;
  }
}

}  // namespace sddmm

KernelEntry sddmm_entry() {
  KernelEntry e = matrix_kernel_entry(
      "sddmm",
      "out = alpha (A B^T) o spy(S) + beta out on S's entries, A and B dense with --k columns (--layout, default "
      "right): SddmmPlan variants vs graphblas (GrB_mxm, structural mask, dot method), kokkos_team (a team per row), "
      "cusparse (cusparseSDDMM, CUDA); default --compare graphblas (where built), kokkos_team (+cusparse on CUDA)",
      sddmm::variant_names(), sddmm::variant_names(), {graphblas_peer(), graphblas9_peer(), {"kokkos_team", true, ""}, cusparse_peer()},
      "sprocket-bench --kernel sddmm --matrix gen:rmat:scale=16 --k 32,128 --compare graphblas,kokkos_team --check",
      [](auto... a) { return sddmm::run_matrix(a...); });
  const auto run = e.run;
  e.run = [run](const Args& args) {
    if (args.peers.empty() && !graphblas_peer().available) info_stream(args) << graphblas_absent_note() << "\n";
    return run(args);
  };
  return e;
}

}  // namespace sprocket_bench
