#pragma once
// sprocket-bench --kernel spmv: Sprocket::SpmvPlan (one line per variant) against Kokkos Kernels'
// KokkosSparse::spmv ("kk") and, in CUDA builds, cusparseSpMV ("cusparse"), on the same
// KokkosSparse::CrsMatrix, x and y, measured interleaved in one run.
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
#include <KokkosSparse_spmv.hpp>

#include <memory>
#include <type_traits>

#ifdef KOKKOS_ENABLE_CUDA
#include <cusparse.h>
#endif

#include "Sprocket_Crs.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Spmv.hpp"
#include "bench_common.hpp"
#include "bench_matrix_loop.hpp"
#include "bench_stream.hpp"

namespace sprocket_bench {
namespace spmv {

/// Every --variant name: auto, each forced kernel, portable, autotune.
inline std::vector<std::string> variant_names() {
  std::vector<std::string> v{"auto"};
  for (int k = 0; k < Sprocket::num_spmv_kernels; ++k)
    v.push_back(Sprocket::to_string(static_cast<Sprocket::SpmvKernel>(k)));
  v.push_back("portable");
  v.push_back("autotune");
  return v;
}

/// --variant all: auto, every forced kernel, portable (autotune is left out: it is slow to set up
/// and ends up as one of the others).
inline std::vector<std::string> all_variant_names() {
  std::vector<std::string> v = variant_names();
  v.pop_back();
  return v;
}

inline Sprocket::SpmvOptions options_for(const std::string& variant) {
  Sprocket::SpmvOptions o;
  if (variant == "auto") return o;
  if (variant == "portable") {
    o.backend = Sprocket::Backend::portable;
  } else if (variant == "autotune") {
    o.autotune = true;
  } else {
    o.kernel = Sprocket::spmv_kernel_from_string(variant);
  }
  return o;
}

#ifdef KOKKOS_ENABLE_CUDA
inline void cusparse_check(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuSPARSE: ") + call + ": " + cusparseGetErrorString(status));
}
#define SPROCKET_BENCH_CUSPARSE(call) ::sprocket_bench::spmv::cusparse_check((call), #call)

template <class T>
void* mutable_ptr(const T* p) {
  return const_cast<void*>(static_cast<const void*>(p));
}

/// out(k) = in(k), widening column indices (a namespace-scope functor: nvcc rejects private
/// class members as kernel template arguments).
template <class Out, class In>
struct WidenColumns {
  Out out;
  In in;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t k) const { out(k) = in(k); }
};

/// cusparseSpMV on A's own arrays (CSR, CUSPARSE_SPMV_ALG_DEFAULT). Handle, descriptors, the
/// external buffer and (cuSPARSE >= 12.3) cusparseSpMV_preprocess are set up here, outside the
/// timed applies. 64-bit offsets go with 32-bit columns; should cuSPARSE refuse that pairing,
/// the columns are widened to a 64-bit copy (note() says so).
template <class Crs, class Vec>
class CusparseSpmv {
 public:
  using Scalar = typename Crs::non_const_value_type;
  using Offset = typename Crs::non_const_size_type;
  static constexpr cudaDataType data_type = std::is_same_v<Scalar, float> ? CUDA_R_32F : CUDA_R_64F;

  CusparseSpmv(const Crs& A, const Vec& x, const Vec& y, Scalar alpha, Scalar beta) : alpha_(alpha), beta_(beta) {
    SPROCKET_BENCH_CUSPARSE(cusparseCreate(&handle_));
    SPROCKET_BENCH_CUSPARSE(cusparseSetStream(handle_, Kokkos::Cuda().cuda_stream()));
    SPROCKET_BENCH_CUSPARSE(cusparseCreateDnVec(&x_, static_cast<int64_t>(x.extent(0)), mutable_ptr(x.data()), data_type));
    SPROCKET_BENCH_CUSPARSE(cusparseCreateDnVec(&y_, static_cast<int64_t>(y.extent(0)), mutable_ptr(y.data()), data_type));
    constexpr cusparseIndexType_t offset_type = sizeof(Offset) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
    cusparseStatus_t status = setup(A, offset_type, CUSPARSE_INDEX_32I, mutable_ptr(A.graph.entries.data()));
    if (status == CUSPARSE_STATUS_NOT_SUPPORTED && offset_type == CUSPARSE_INDEX_64I) {
      wide_entries_ = Kokkos::View<int64_t*, Kokkos::CudaSpace>("sprocket-bench::cusparse::entries64", A.nnz());
      Kokkos::parallel_for("sprocket-bench::cusparse::widen",
                           Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, A.nnz()),
                           WidenColumns<decltype(wide_entries_), typename Crs::index_type>{wide_entries_,
                                                                                           A.graph.entries});
      Kokkos::fence();
      note_ = "cuSPARSE refused 64-bit offsets with 32-bit columns: columns widened to 64 bits";
      status = setup(A, offset_type, CUSPARSE_INDEX_64I, wide_entries_.data());
    }
    SPROCKET_BENCH_CUSPARSE(status);
  }
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;
  ~CusparseSpmv() {
    if (A_) cusparseDestroySpMat(A_);
    if (x_) cusparseDestroyDnVec(x_);
    if (y_) cusparseDestroyDnVec(y_);
    if (handle_) cusparseDestroy(handle_);
  }

  void apply() const {
    SPROCKET_BENCH_CUSPARSE(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, A_, x_, &beta_, y_,
                                         data_type, CUSPARSE_SPMV_ALG_DEFAULT, buffer_.data()));
  }
  const std::string& note() const { return note_; }

 private:
  cusparseStatus_t setup(const Crs& A, cusparseIndexType_t offset_type, cusparseIndexType_t column_type,
                         void* columns) {
    if (A_) cusparseDestroySpMat(A_);
    A_ = nullptr;
    cusparseStatus_t s = cusparseCreateCsr(&A_, A.numRows(), A.numCols(), A.nnz(), mutable_ptr(A.graph.row_map.data()),
                                           columns, mutable_ptr(A.values.data()), offset_type, column_type,
                                           CUSPARSE_INDEX_BASE_ZERO, data_type);
    if (s != CUSPARSE_STATUS_SUCCESS) return s;
    size_t size = 0;
    s = cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, A_, x_, &beta_, y_, data_type,
                                CUSPARSE_SPMV_ALG_DEFAULT, &size);
    if (s != CUSPARSE_STATUS_SUCCESS) return s;
    buffer_ = Kokkos::View<char*, Kokkos::CudaSpace>(
        Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::cusparse::buffer"), std::max<size_t>(size, 16));
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12300
    s = cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, A_, x_, &beta_, y_, data_type,
                                CUSPARSE_SPMV_ALG_DEFAULT, buffer_.data());
#endif
    return s;
  }

  Scalar alpha_, beta_;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t A_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr;
  cusparseDnVecDescr_t y_ = nullptr;
  Kokkos::View<char*, Kokkos::CudaSpace> buffer_;
  Kokkos::View<int64_t*, Kokkos::CudaSpace> wide_entries_;
  std::string note_;
};
#endif  // KOKKOS_ENABLE_CUDA

/// One measured implementation: ours (one per variant) or a peer.
struct Candidate {
  std::string impl;     ///< "sprocket", "kk", "cusparse"
  std::string variant;  ///< our variant; "default" for peers
  std::function<void()> apply;
  double setup_seconds = -1;  ///< analysis / descriptor set-up, < 0 when not measured
  std::string note;
};

template <class Scalar>
const char* scalar_name() {
  return std::is_same_v<Scalar, float> ? "float" : "double";
}
template <class Offset>
const char* offset_name() {
  return std::is_same_v<Offset, int> ? "int" : "size_t";
}

/// Benchmarks one matrix with Scalar / Offset; returns 0, or 1 after a failed check.
template <class Scalar, class Offset>
int run_matrix(const Args& args, const std::string& name, const Sprocket::HostCsr& host, double stream_gbps) {
  using Space = Kokkos::DefaultExecutionSpace;
  using Device = Kokkos::Device<Space, Space::memory_space>;
  using Crs = KokkosSparse::CrsMatrix<Scalar, int, Device, void, Offset>;
  using Vec = Kokkos::View<Scalar*, Device>;
  using Plan = Sprocket::SpmvPlan<Crs>;

  const Crs A = Sprocket::to_crs<Crs>(host, "sprocket-bench::A");
  const int64_t rows = A.numRows(), cols = A.numCols(), nnz = static_cast<int64_t>(A.nnz());
  const Scalar alpha = static_cast<Scalar>(args.alpha), beta = static_cast<Scalar>(args.beta);

  // x: values in [-1, 1) (not zeros, not constant); y0: the y that beta scales.
  Vec x(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::x"), cols);
  Vec y(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::y"), rows);
  Vec y0(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::y0"), rows);
  std::vector<double> x_ref(cols), y0_ref(rows);
  {
    auto xh = Kokkos::create_mirror_view(x);
    for (int64_t j = 0; j < cols; ++j) {
      xh(j) = static_cast<Scalar>(input_value(j, 1));
      x_ref[j] = static_cast<double>(xh(j));
    }
    Kokkos::deep_copy(x, xh);
    auto yh = Kokkos::create_mirror_view(y0);
    for (int64_t i = 0; i < rows; ++i) {
      yh(i) = static_cast<Scalar>(input_value(i, 2));
      y0_ref[i] = static_cast<double>(yh(i));
    }
    Kokkos::deep_copy(y0, yh);
    Kokkos::deep_copy(y, y0);
  }

  std::vector<Candidate> candidates;
  std::vector<std::shared_ptr<Plan>> plans;
  for (const std::string& variant : args.variants) {
    const Sprocket::SpmvOptions options = options_for(variant);
    std::shared_ptr<Plan> plan;
    Kokkos::fence();
    const double setup = seconds_of([&] {
      plan = std::make_shared<Plan>(A, options);
      Kokkos::fence();
    });
    plans.push_back(plan);
    candidates.push_back({"sprocket", variant, [plan, alpha, x, beta, y] { plan->apply("N", alpha, x, beta, y); },
                          setup, ""});
    if (args.describe)
      info_stream(args) << "describe " << name << " variant " << variant << ":\n" << plan->describe() << "\n";
  }
  for (const std::string& peer : args.peers) {
    if (peer == "kk") {
      candidates.push_back(
          {"kk", "default", [A, alpha, x, beta, y] { KokkosSparse::spmv("N", alpha, A, x, beta, y); }, -1, ""});
    } else if (peer == "cusparse") {
#ifdef KOKKOS_ENABLE_CUDA
      if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
        std::shared_ptr<CusparseSpmv<Crs, Vec>> cs;
        Kokkos::fence();
        const double setup = seconds_of([&] {
          cs = std::make_shared<CusparseSpmv<Crs, Vec>>(A, x, y, alpha, beta);
          Kokkos::fence();
        });
        candidates.push_back({"cusparse", "default", [cs] { cs->apply(); }, setup, cs->note()});
        continue;
      }
#endif
      throw std::runtime_error("cusparse needs Kokkos::Cuda as the default execution space (it is " +
                               std::string(Space::name()) + ")");
    }
  }

  // --check: every candidate once on a poisoned y (NaN; beta != 0: y0), against the reference.
  std::vector<Record> checks(candidates.size());
  bool all_ok = true;
  if (args.check) all_ok = check_candidates<Scalar>(name, host, x_ref, y0_ref, alpha, beta, y, y0, candidates, checks);

  std::vector<std::function<void()>> fns;
  for (const Candidate& c : candidates) fns.push_back(c.apply);
  const std::vector<Timing> t = time_interleaved(fns, args.warmup, args.repeat);

  const double bytes = static_cast<double>(nnz) * (sizeof(Scalar) + sizeof(int)) +
                       static_cast<double>(rows + 1) * sizeof(Offset) + static_cast<double>(cols) * sizeof(Scalar) +
                       static_cast<double>(rows) * sizeof(Scalar) * (beta != Scalar(0) ? 2.0 : 1.0);
  const double flops = 2.0 * static_cast<double>(nnz);
  auto peer_seconds = [&](const std::string& peer) {
    for (size_t c = 0; c < candidates.size(); ++c)
      if (candidates[c].impl == peer) return t[c].median;
    return std::nan("");
  };

  std::vector<Record> records;
  for (size_t c = 0; c < candidates.size(); ++c) {
    const double s = t[c].median;
    Record r;
    r.set("kernel", "spmv")
        .set("matrix", name)
        .set("impl", candidates[c].impl)
        .set("variant", candidates[c].variant)
        .set("seconds", s)
        .set("gbps", bytes / s * 1e-9)
        .set("gflops", flops / s * 1e-9);
    if (candidates[c].impl == "sprocket")
      for (const std::string& peer : args.peers) r.set("ratio_vs_" + peer, peer_seconds(peer) / s);
    r.set("rows", rows)
        .set("cols", cols)
        .set("nnz", nnz)
        .set("bytes", static_cast<int64_t>(bytes))
        .set("repeat", args.repeat)
        .set("warmup", args.warmup)
        .set("seconds_min", t[c].min)
        .set("seconds_max", t[c].max)
        .set("scalar", scalar_name<Scalar>())
        .set("offset", offset_name<Offset>())
        .set("space", Space::name())
        .set("alpha", static_cast<double>(alpha))
        .set("beta", static_cast<double>(beta));
    if (candidates[c].setup_seconds >= 0) r.set("setup_seconds", candidates[c].setup_seconds);
    if (stream_gbps > 0) r.set("stream_fraction", bytes / s * 1e-9 / stream_gbps);
    for (const auto& f : checks[c].fields()) {
      if (f.kind == Record::Kind::boolean) r.set(f.key, f.number != 0);
      else r.set(f.key, f.number);
    }
    if (!candidates[c].note.empty()) r.set("note", candidates[c].note);
    records.push_back(r);
  }

  std::ostringstream title;
  title << "spmv  " << name << "  " << rows << " x " << cols << ", nnz " << nnz << ", " << human_bytes(bytes)
        << " per apply, " << scalar_name<Scalar>() << "/" << offset_name<Offset>() << " on " << Space::name()
        << ", beta " << static_cast<double>(beta) << ", median of " << args.repeat << " (warm-up " << args.warmup
        << ")";
  std::vector<Column> columns{{"impl", "impl"},
                              {"variant", "variant"},
                              {"seconds", "seconds", "%.4e"},
                              {"gbps", "GB/s", "%.2f"},
                              {"gflops", "GFLOP/s", "%.2f"}};
  for (const std::string& peer : args.peers) columns.push_back({"ratio_vs_" + peer, "ratio_vs_" + peer, "%.3f"});
  columns.push_back({"stream_fraction", "of_triad", "%.2f"});
  columns.push_back({"setup_seconds", "setup_s", "%.3g"});
  columns.push_back({"check", "check"});
  columns.push_back({"err_norm", "err_norm", "%.1e"});
  emit_section(args, title.str(), records, columns);
  return all_ok ? 0 : 1;
}

inline int run(const Args& args) {
  return run_matrices(args, [&](auto scalar, auto offset, const std::string& name, const Sprocket::HostCsr& host,
                                double stream_gbps) {
    return run_matrix<typename decltype(scalar)::type, typename decltype(offset)::type>(args, name, host, stream_gbps);
  });
}

}  // namespace spmv

inline KernelEntry spmv_entry() {
  KernelEntry e;
  e.name = "spmv";
  e.summary = "y = alpha A x + beta y: SpmvPlan variants vs kk (KokkosSparse::spmv), cusparse (CUDA)";
  e.variants = spmv::variant_names();
  e.all_variants = spmv::all_variant_names();
  e.default_variant = "auto";
  e.peers = {{"kk", true, ""},
#ifdef KOKKOS_ENABLE_CUDA
             {"cusparse", std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>,
              "cusparse needs Kokkos::Cuda as the default execution space"}};
#else
             {"cusparse", false, "cusparse is only available in CUDA builds (this build runs on " +
                                     std::string(Kokkos::DefaultExecutionSpace::name()) + ")"}};
#endif
  e.uses_matrices = true;
  e.example = "sprocket-bench --kernel spmv --matrix gen:poisson3d:n=100 --compare kk --check";
  e.run = spmv::run;
  return e;
}

}  // namespace sprocket_bench
