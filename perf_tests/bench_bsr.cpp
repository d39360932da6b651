// sprocket-bench --kernel bsr: Sprocket::BsrSpmvPlan on the BSR form of a matrix (one line per
// variant) against, measured interleaved in the same run on the same x and y:
//   kk        KokkosSparse::spmv on the original CSR (not the zero-filled one)
//   csr       our own adaptive CSR SpMV (Sprocket::SpmvPlan, automatic) on the same CSR
//   mkl       Intel MKL's inspector-executor mkl_sparse_?_mv on the CSR (plain and optimised) and on
//             a BSR handle of our blocks (mkl_sparse_?_create_bsr, the same block size, optimised),
//             the fastest kept (bench_mkl.hpp); host builds with MKL
//   cusparse  cusparse<S|D>bsrmv (legacy BSR API, CUSPARSE_DIRECTION_ROW) on our BSR arrays,
//             CUDA builds only
// Default --compare: kk,csr.
//
// The matrix is loaded as CSR (HostCsr); the block size is detect_block_size's choice
// (--block-size auto, the default) or the given b, which must divide the rows and columns; the
// CSR is converted with csr_to_host_bsr (zero fill inside stored blocks).
//
// Variant symmetric declares the matrix symmetric (BsrSpmvOptions::symmetric; the plan checks
// it): a matrix that is not is skipped for that variant with the plan's message.
//
// Bytes per apply, per implementation (each input read once, each output written once):
//   BSR (ours, cusparse): stored scalars (zero fill included) * sizeof(Scalar)
//                         + blocks * sizeof(int) + (block rows + 1) * sizeof(Offset)
//   symmetric:            its packed copy of the diagonal and upper blocks: their scalars
//                         * sizeof(Scalar) + their count * sizeof(int) + (block rows + 1) * 8
//                         (int64 row map), + x and y; y's read-modify-writes of the transposed
//                         products stay in cache for banded matrices and are not counted
//   mkl:                  as BSR with int offsets (bsr_ie) or as CSR (csr_plain, csr_ie)
//   CSR (kk, csr):        nnz * (sizeof(Scalar) + sizeof(int)) + (rows + 1) * sizeof(Offset)
//   both:                 + cols * sizeof(Scalar) (x) + rows * sizeof(Scalar) (y; twice when beta != 0)
// Flops per apply: 2 * CSR nnz (the useful flops) for everyone.

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include <climits>
#include <memory>
#include <type_traits>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_BsrSpmv.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Spmv.hpp"
#include "bench_common.hpp"
#include "bench_cusparse.hpp"
#include "bench_kk_peers.hpp"
#include "bench_mkl.hpp"
#include "bench_matrix_loop.hpp"

namespace sprocket_bench {
namespace bsr {

/// Largest block size --block-size auto considers (detect_block_size's default).
inline constexpr int auto_max_block_size = 16;

/// Whether the default execution space's native backend has a kernel (block_row, padded,
/// symmetric on host spaces; by_block, by_column, row_per_thread on Kokkos::Cuda).
inline bool native_kernel_here(Sprocket::BsrKernel k) {
  using Space = Kokkos::DefaultExecutionSpace;
  return Sprocket::bsr_backend_has_kernel(Sprocket::Backend::native, Sprocket::Impl::is_cuda_space_v<Space>,
                                          Sprocket::Impl::is_host_space_v<Space>, k);
}

/// Every --variant name valid in this build: auto, each kernel of the space's native backend,
/// portable (the portable backend, any space).
inline std::vector<std::string> variant_names() {
  std::vector<std::string> v{"auto"};
  for (int k = 0; k < Sprocket::num_bsr_kernels; ++k)
    if (native_kernel_here(static_cast<Sprocket::BsrKernel>(k)))
      v.push_back(Sprocket::to_string(static_cast<Sprocket::BsrKernel>(k)));
  v.push_back("portable");
  return v;
}

/// The names the kernels had when they carried their backend ("host_block_row", "cuda_by_block",
/// ...), still accepted by --variant so that older command lines (perf_tests/results) run: old
/// name -> kernel name, for the native kernels of this build.
inline std::vector<std::pair<std::string, std::string>> variant_aliases() {
  using Space = Kokkos::DefaultExecutionSpace;
  const char* prefix = Sprocket::Impl::is_cuda_space_v<Space> ? "cuda_" : "host_";
  std::vector<std::pair<std::string, std::string>> aliases;
  for (int k = 0; k < Sprocket::num_bsr_kernels; ++k)
    if (native_kernel_here(static_cast<Sprocket::BsrKernel>(k))) {
      const std::string name = Sprocket::to_string(static_cast<Sprocket::BsrKernel>(k));
      aliases.emplace_back(prefix + name, name);
    }
  return aliases;
}

/// The plan options of a --variant name: auto, a native kernel, or portable.
inline Sprocket::BsrSpmvOptions options_for(const std::string& variant) {
  Sprocket::BsrSpmvOptions options;
  if (variant == "portable") options.backend = Sprocket::Backend::portable;
  else options.kernel = Sprocket::bsr_kernel_from_string(variant);
  options.symmetric = options.kernel == Sprocket::BsrKernel::symmetric;
  return options;
}

/// The requested variants for one matrix: "all" (kept literally by the parser, since it depends
/// on the block size) becomes auto, every native kernel of this space that supports b, and
/// portable. Forced kernels that cannot run b are left out with a message on stderr.
inline std::vector<std::string> expand_variants(const std::vector<std::string>& requested, int b,
                                                const std::string& matrix) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (const std::string& v : requested) {
    if (v == "all") {
      add("auto");
      for (int k = 0; k < Sprocket::num_bsr_kernels; ++k) {
        const auto kernel = static_cast<Sprocket::BsrKernel>(k);
        if (native_kernel_here(kernel) && Sprocket::bsr_kernel_supports(kernel, b)) add(Sprocket::to_string(kernel));
      }
      add("portable");
    } else if (v != "auto" && v != "portable" && !Sprocket::bsr_kernel_supports(options_for(v).kernel, b)) {
      std::cerr << "sprocket-bench: " << matrix << ": variant " << v << " does not support block size " << b
                << "; skipped\n";
    } else {
      add(v);
    }
  }
  return out;
}

#ifdef KOKKOS_ENABLE_CUDA
/// cusparse<S|D>bsrmv (legacy BSR API) on the BsrMatrix's own arrays: our blocks are row-major,
/// i.e. CUSPARSE_DIRECTION_ROW. Handle and matrix descriptor are set up here, outside the timed
/// applies. The API takes 32-bit block row offsets: with --offset size_t the row map is narrowed
/// to an int copy (note() says so). bsrmv supports block size > 1 only.
template <class Bsr, class Vec>
class CusparseBsrmv {
 public:
  using Scalar = typename Bsr::value_type;
  using Offset = typename Bsr::size_type;

  CusparseBsrmv(const Bsr& A, const Vec& x, const Vec& y, Scalar alpha, Scalar beta)
      : A_(A), x_(x), y_(y), alpha_(alpha), beta_(beta) {
    if (A.block_size() < 2)
      throw std::runtime_error("cusparse<t>bsrmv supports block size > 1 only (this matrix: b = 1)");
    if (static_cast<uint64_t>(A.num_blocks()) > static_cast<uint64_t>(INT_MAX))
      throw std::runtime_error("cusparse<t>bsrmv: " + std::to_string(A.num_blocks()) +
                               " blocks do not fit its 32-bit offsets");
    if constexpr (std::is_same_v<Offset, int>) {
      row_map_ = A.row_map;
    } else {
      row_map_ = Kokkos::View<int*, Kokkos::CudaSpace>(
          Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::cusparse::bsr_row_map32"), A.row_map.extent(0));
      Kokkos::parallel_for("sprocket-bench::cusparse::narrow",
                           Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, A.row_map.extent(0)),
                           WidenColumns<decltype(row_map_), typename Bsr::row_map_type>{row_map_, A.row_map});
      Kokkos::fence();
      note_ = "cusparse<t>bsrmv takes 32-bit block row offsets: row map narrowed to an int copy";
    }
    SPROCKET_BENCH_CUSPARSE(cusparseCreateMatDescr(&descr_));
    SPROCKET_BENCH_CUSPARSE(cusparseSetMatType(descr_, CUSPARSE_MATRIX_TYPE_GENERAL));
    SPROCKET_BENCH_CUSPARSE(cusparseSetMatIndexBase(descr_, CUSPARSE_INDEX_BASE_ZERO));
  }
  CusparseBsrmv(const CusparseBsrmv&) = delete;
  CusparseBsrmv& operator=(const CusparseBsrmv&) = delete;
  ~CusparseBsrmv() {
    if (descr_) cusparseDestroyMatDescr(descr_);
  }

  void apply() const {
    const int mb = A_.num_block_rows(), nb = A_.num_block_cols(), nnzb = static_cast<int>(A_.num_blocks());
    if constexpr (std::is_same_v<Scalar, float>)
      SPROCKET_BENCH_CUSPARSE(cusparseSbsrmv(handle_.get(), CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                             mb, nb, nnzb, &alpha_, descr_, A_.values.data(), row_map_.data(),
                                             A_.entries.data(), A_.block_size(), x_.data(), &beta_, y_.data()));
    else
      SPROCKET_BENCH_CUSPARSE(cusparseDbsrmv(handle_.get(), CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                             mb, nb, nnzb, &alpha_, descr_, A_.values.data(), row_map_.data(),
                                             A_.entries.data(), A_.block_size(), x_.data(), &beta_, y_.data()));
  }
  const std::string& note() const { return note_; }

 private:
  Bsr A_;
  Vec x_, y_;
  Scalar alpha_, beta_;
  Kokkos::View<int*, Kokkos::CudaSpace> row_map_;
  CusparseHandle handle_;
  cusparseMatDescr_t descr_ = nullptr;
  std::string note_;
};

/// cusparseSpMV on a BSR descriptor (cusparseCreateBsr, blocks row-major: CUSPARSE_ORDER_ROW;
/// CUSPARSE_SPMV_BSR_ALG1) on the BsrMatrix's own arrays: the generic API's BSR path. Buffer and
/// (cuSPARSE >= 12.3) cusparseSpMV_preprocess at set-up. Offsets of the Offset type, 32-bit block
/// columns.
template <class Bsr, class Vec>
class CusparseBsrSpmv {
 public:
  using Scalar = typename Bsr::value_type;
  using Offset = typename Bsr::size_type;
  static constexpr cudaDataType data_type = cusparse_data_type<Scalar>;

  CusparseBsrSpmv(const Bsr& A, const Vec& x, const Vec& y, Scalar alpha, Scalar beta) : alpha_(alpha), beta_(beta) {
    constexpr cusparseIndexType_t offset_type = sizeof(Offset) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
    SPROCKET_BENCH_CUSPARSE(cusparseCreateBsr(&A_, A.num_block_rows(), A.num_block_cols(), A.num_blocks(),
                                              A.block_size(), A.block_size(), mutable_ptr(A.row_map.data()),
                                              mutable_ptr(A.entries.data()), mutable_ptr(A.values.data()), offset_type,
                                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, data_type,
                                              CUSPARSE_ORDER_ROW));
    SPROCKET_BENCH_CUSPARSE(cusparseCreateDnVec(&x_, static_cast<int64_t>(x.extent(0)), mutable_ptr(x.data()), data_type));
    SPROCKET_BENCH_CUSPARSE(cusparseCreateDnVec(&y_, static_cast<int64_t>(y.extent(0)), mutable_ptr(y.data()), data_type));
    size_t size = 0;
    SPROCKET_BENCH_CUSPARSE(cusparseSpMV_bufferSize(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, A_, x_,
                                                    &beta_, y_, data_type, CUSPARSE_SPMV_BSR_ALG1, &size));
    buffer_ = Kokkos::View<char*, Kokkos::CudaSpace>(
        Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::cusparse::bsr_buffer"), std::max<size_t>(size, 16));
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12300
    SPROCKET_BENCH_CUSPARSE(cusparseSpMV_preprocess(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, A_, x_,
                                                    &beta_, y_, data_type, CUSPARSE_SPMV_BSR_ALG1, buffer_.data()));
#endif
  }
  CusparseBsrSpmv(const CusparseBsrSpmv&) = delete;
  CusparseBsrSpmv& operator=(const CusparseBsrSpmv&) = delete;
  ~CusparseBsrSpmv() {
    if (A_) cusparseDestroySpMat(A_);
    if (x_) cusparseDestroyDnVec(x_);
    if (y_) cusparseDestroyDnVec(y_);
  }

  void apply() const {
    SPROCKET_BENCH_CUSPARSE(cusparseSpMV(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, A_, x_, &beta_, y_,
                                         data_type, CUSPARSE_SPMV_BSR_ALG1, buffer_.data()));
  }

 private:
  Scalar alpha_, beta_;
  CusparseHandle handle_;
  cusparseSpMatDescr_t A_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr;
  cusparseDnVecDescr_t y_ = nullptr;
  Kokkos::View<char*, Kokkos::CudaSpace> buffer_;
};
#endif  // KOKKOS_ENABLE_CUDA

/// Benchmarks one matrix with Scalar / Offset; returns 0, or 1 after a failed check.
template <class Scalar, class Offset>
int run_matrix(type_tag<Scalar>, type_tag<Offset>, const Args& args, const std::string& name,
               const Sprocket::HostCsr& host, double stream_gbps) {
  using Space = Kokkos::DefaultExecutionSpace;
  using Device = Kokkos::Device<Space, Space::memory_space>;
  using Crs = KokkosSparse::CrsMatrix<Scalar, int, Device, void, Offset>;
  using Bsr = Sprocket::BsrMatrix<Scalar, int, Device, Offset>;
  using Vec = Kokkos::View<Scalar*, Device>;
  using Plan = Sprocket::BsrSpmvPlan<Bsr>;
  using CsrPlan = Sprocket::SpmvPlan<Crs>;

  const int64_t rows = host.num_rows, cols = host.num_cols, nnz = host.nnz();
  const Scalar alpha = static_cast<Scalar>(args.alpha), beta = static_cast<Scalar>(args.beta);

  // Block size: detected (bytes per SpMV with this Scalar and Offset) or given.
  const bool auto_b = args.block_size == 0;
  std::vector<Sprocket::BlockSizeEstimate> estimates;
  const int b = auto_b ? Sprocket::detect_block_size(host, auto_max_block_size, sizeof(Scalar), sizeof(int),
                                                     sizeof(Offset), &estimates)
                       : args.block_size;
  if (args.describe && auto_b) {
    std::ostringstream os;
    os << "describe " << name << " block sizes (detect_block_size, estimated bytes per apply):\n";
    for (const auto& e : estimates)
      os << "  b " << e.block_size << ": " << e.num_blocks << " blocks, fill " << format_number(e.fill_ratio, "%.3f")
         << ", " << human_bytes(e.bytes) << (e.block_size == b ? "  <- chosen" : "") << "\n";
    info_stream(args) << os.str();
  }
  Sprocket::BsrConversionInfo info;
  Bsr A;
  Sprocket::HostBsr converted;
  Kokkos::fence();
  const double convert_seconds = seconds_of([&] {
    converted = Sprocket::csr_to_host_bsr(host, b, &info);
    A = Sprocket::to_bsr<Bsr>(converted);
    Kokkos::fence();
  });
  int64_t upper_blocks = 0;  // blocks on or right of the diagonal: what the symmetric kernel reads
  for (int64_t I = 0; I < converted.num_block_rows; ++I)
    for (int64_t k = converted.row_map[I]; k < converted.row_map[I + 1]; ++k) upper_blocks += converted.entries[k] >= I;
  converted = Sprocket::HostBsr();
  const Crs C = Sprocket::to_crs<Crs>(host, "sprocket-bench::A");
  const int64_t blocks = info.num_blocks, stored = info.stored_nnz;
  const VectorInputs<Vec> in = make_vector_inputs<Vec>(rows, cols);
  const Vec x = in.x, y = in.y;

  const double xy_bytes = vector_bytes(rows, cols, beta);
  auto bsr_bytes = [&](size_t offset_size) {
    return static_cast<double>(stored) * sizeof(Scalar) + static_cast<double>(blocks) * sizeof(int) +
           static_cast<double>(A.num_block_rows() + 1) * offset_size + xy_bytes;
  };
  const double symmetric_bytes = static_cast<double>(upper_blocks) * b * b * sizeof(Scalar) +
                                 static_cast<double>(upper_blocks) * sizeof(int) +
                                 static_cast<double>(A.num_block_rows() + 1) * sizeof(int64_t) + xy_bytes;
  const double csr_bytes = static_cast<double>(nnz) * (sizeof(Scalar) + sizeof(int)) +
                           static_cast<double>(rows + 1) * sizeof(Offset) + xy_bytes;

  std::vector<Candidate> candidates;
  for (const std::string& variant : expand_variants(args.variants, b, name)) {
    const Sprocket::BsrSpmvOptions options = options_for(variant);
    Timed<Plan> ours;
    try {
      ours = construct_timed<Plan>(A, options);
    } catch (const Sprocket::InvalidArgument& e) {
      if (!options.symmetric) throw;
      std::cerr << "sprocket-bench: " << name << ": variant " << variant << " skipped: " << e.what() << "\n";
      continue;
    }
    const std::shared_ptr<Plan> plan = ours.object;
    Candidate c = candidate(
        "sprocket", variant, [plan, alpha, x, beta, y] { plan->apply("N", alpha, x, beta, y); }, ours.seconds);
    c.plan_keys.set("chosen_kernel", plan_kernel_name(*plan));
    c.details.set("convert_seconds", convert_seconds);
    c.bytes = options.symmetric ? symmetric_bytes : bsr_bytes(sizeof(Offset));
    candidates.push_back(std::move(c));
    if (args.describe)
      info_stream(args) << "describe " << name << " variant " << variant << ":\n" << plan->describe() << "\n";
  }
  const std::vector<std::string> peers =
      args.peers.empty() ? std::vector<std::string>{"kk", "csr"} : args.peers;
  for (const std::string& peer : peers) {
    if (peer == "kk") {
      Candidate c = fastest_candidate("kk", [&] { return kk::spmv_ways<Scalar, Offset>(C, alpha, x, beta, y); }, -1,
                                      "KokkosSparse::spmv on the CSR, the fastest of the ways Kokkos Kernels offers");
      c.details.set("peer_march", kk::peers_march());
      c.bytes = csr_bytes;
      candidates.push_back(std::move(c));
    } else if (peer == "mkl") {
#if defined(SPROCKET_BENCH_HAVE_MKL)
      // MKL's BSR handle on our block arrays (32-bit row map: the bytes count int offsets).
      candidates.push_back(mkl::bsr_candidate(args, C, A, x, y, csr_bytes, bsr_bytes(sizeof(int))));
#else
      mkl_not_built(peer);
#endif
    } else if (peer == "csr") {
      const Timed<CsrPlan> csr = construct_timed<CsrPlan>(C);
      const std::shared_ptr<CsrPlan> plan = csr.object;
      candidates.push_back(candidate(
          "csr", "default", [plan, alpha, x, beta, y] { plan->apply("N", alpha, x, beta, y); }, csr.seconds));
      candidates.back().bytes = csr_bytes;
      if (args.describe)
        info_stream(args) << "describe " << name << " peer csr:\n" << plan->describe() << "\n";
    } else if (peer == "cusparse") {
#ifdef KOKKOS_ENABLE_CUDA
      if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
        if (b < 2) {
          std::cerr << "sprocket-bench: " << name
                    << ": cusparse<t>bsrmv supports block size > 1 only (this matrix: b = 1); peer cusparse skipped\n";
          continue;
        }
        // The generic API's BSR SpMV and the legacy bsrmv, both set up, tried, the fastest kept.
        const Timed<CusparseBsrSpmv<Bsr, Vec>> generic =
            construct_timed<CusparseBsrSpmv<Bsr, Vec>>(A, x, y, alpha, beta);
        const Timed<CusparseBsrmv<Bsr, Vec>> legacy = construct_timed<CusparseBsrmv<Bsr, Vec>>(A, x, y, alpha, beta);
        const auto g = generic.object;
        const auto l = legacy.object;
        const std::vector<Way> ways{{"spmv_bsr_alg1", [g] { g->apply(); }}, {"bsrmv", [l] { l->apply(); }}};
        Candidate c = fastest_candidate("cusparse", ways, generic.seconds, l->note());
        c.bytes = c.peer_algorithm == "bsrmv" ? bsr_bytes(sizeof(int)) : bsr_bytes(sizeof(Offset));
        candidates.push_back(std::move(c));
        continue;
      }
#endif
      throw cusparse_needs_cuda<Space>();
    }
  }

  corrupt_named_candidates(candidates, [y] { add_one_to_first_entry(y); });

  Section section("bsr", name, rows, cols, nnz);
  section.flops = 2.0 * static_cast<double>(nnz);
  section.peers = peers;
  section.problem_keys.set("block_size", b)
      .set("block_size_auto", auto_b)
      .set("fill_ratio", info.fill_ratio)
      .set("blocks", blocks)
      .set("stored_nnz", stored);
  section.title_middle = "block " + std::to_string(b) + "x" + std::to_string(b) + (auto_b ? " (auto)" : " (given)") +
                         ", " + std::to_string(blocks) + " blocks, fill " + format_number(info.fill_ratio, "%.3f") +
                         "; per apply BSR " + human_bytes(bsr_bytes(sizeof(Offset))) + ", CSR " +
                         human_bytes(csr_bytes) + ", ";
  return measure_spmv_section<Scalar, Offset, Space>(args, section, candidates, host, in, stream_gbps);
}

}  // namespace bsr

KernelEntry bsr_entry() {
  KernelEntry e = matrix_kernel_entry(
      "bsr",
      "block-CSR y = alpha A x + beta y: BsrSpmvPlan variants vs kk (KokkosSparse::spmv on the CSR), csr "
      "(SpmvPlan), mkl (CSR or BSR inspector-executor), cusparse (bsrmv, CUDA); --block-size auto|b; default "
      "--compare kk,csr",
      bsr::variant_names(), {"all"},  // all: expanded per matrix, the kernels that support its block size
      {{"kk", true, ""}, {"csr", true, ""}, mkl_peer(), cusparse_peer()},
      "sprocket-bench --kernel bsr --matrix gen:elasticity:n=40,dof=3 --compare kk,csr --check",
      [](auto... a) { return bsr::run_matrix(a...); });
  e.variant_aliases = bsr::variant_aliases();
  return e;
}

}  // namespace sprocket_bench
