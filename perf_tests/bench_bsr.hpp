#pragma once
// sprocket-bench --kernel bsr: Sprocket::BsrSpmvPlan on the BSR form of a matrix (one line per
// variant) against, measured interleaved in the same run on the same x and y:
//   kk        KokkosSparse::spmv on the original CSR (not the zero-filled one)
//   csr       our own adaptive CSR SpMV (Sprocket::SpmvPlan, automatic) on the same CSR
//   cusparse  cusparse<S|D>bsrmv (legacy BSR API, CUSPARSE_DIRECTION_ROW) on our BSR arrays,
//             CUDA builds only
// Default --compare: kk,csr.
//
// The matrix is loaded as CSR (HostCsr); the block size is detect_block_size's choice
// (--block-size auto, the default) or the given b, which must divide the rows and columns; the
// CSR is converted with csr_to_host_bsr (zero fill inside stored blocks).
//
// Variant host_symmetric declares the matrix symmetric (BsrSpmvOptions::symmetric; the plan
// checks it): a matrix that is not is skipped for that variant with the plan's message.
//
// Bytes per apply, per implementation (each input read once, each output written once):
//   BSR (ours, cusparse): stored scalars (zero fill included) * sizeof(Scalar)
//                         + blocks * sizeof(int) + (block rows + 1) * sizeof(Offset)
//   host_symmetric:       its packed copy of the diagonal and upper blocks: their scalars
//                         * sizeof(Scalar) + their count * sizeof(int) + (block rows + 1) * 8
//                         (int64 row map), + x and y; y's read-modify-writes of the transposed
//                         products stay in cache for banded matrices and are not counted
//   CSR (kk, csr):        nnz * (sizeof(Scalar) + sizeof(int)) + (rows + 1) * sizeof(Offset)
//   both:                 + cols * sizeof(Scalar) (x) + rows * sizeof(Scalar) (y; twice when beta != 0)
// Flops per apply: 2 * CSR nnz (the useful flops) for everyone.

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include <climits>
#include <memory>
#include <type_traits>

#ifdef KOKKOS_ENABLE_CUDA
#include <cusparse.h>
#endif

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_BsrSpmv.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Spmv.hpp"
#include "bench_common.hpp"
#include "bench_matrix_loop.hpp"
#include "bench_spmv.hpp"  // scalar_name, offset_name; CUDA: cusparse_check, mutable_ptr, WidenColumns
#include "bench_stream.hpp"

namespace sprocket_bench {
namespace bsr {

/// --block-size: 0 = auto (detect_block_size), else b in [1, max_bsr_block_size]. Set by the
/// parser in sprocket_bench.cpp through set_block_size_option (Args has no kernel-specific slot).
inline int& block_size_option() {
  static int b = 0;
  return b;
}

inline void set_block_size_option(const std::string& value) {
  if (value == "auto") {
    block_size_option() = 0;
    return;
  }
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || v < 1 || v > Sprocket::max_bsr_block_size)
    throw UsageError("--block-size needs auto or an integer in [1, " + std::to_string(Sprocket::max_bsr_block_size) +
                     "], not \"" + value + "\"");
  block_size_option() = static_cast<int>(v);
}

/// Largest block size --block-size auto considers (detect_block_size's default).
inline constexpr int auto_max_block_size = 16;

/// Whether a kernel can run on the default execution space at all (any block size): host
/// kernels on host spaces, CUDA kernels on Kokkos::Cuda, portable everywhere.
inline bool kernel_runs_here(Sprocket::BsrKernel k) {
  using Space = Kokkos::DefaultExecutionSpace;
  switch (k) {
    case Sprocket::BsrKernel::host_block_row:
    case Sprocket::BsrKernel::host_padded:
    case Sprocket::BsrKernel::host_symmetric: return Sprocket::Impl::is_host_space_v<Space>;
    case Sprocket::BsrKernel::cuda_by_block:
    case Sprocket::BsrKernel::cuda_by_column:
    case Sprocket::BsrKernel::cuda_row_per_thread: return Sprocket::Impl::is_cuda_space_v<Space>;
    case Sprocket::BsrKernel::portable: return true;
    default: return false;
  }
}

/// Every --variant name valid in this build: auto and each kernel the default space can run.
inline std::vector<std::string> variant_names() {
  std::vector<std::string> v{"auto"};
  for (int k = 0; k < Sprocket::num_bsr_kernels; ++k)
    if (kernel_runs_here(static_cast<Sprocket::BsrKernel>(k)))
      v.push_back(Sprocket::to_string(static_cast<Sprocket::BsrKernel>(k)));
  return v;
}

/// The requested variants for one matrix: "all" (kept literally by the parser, since it depends
/// on the block size) becomes auto and every kernel of this space that supports b. Forced
/// kernels that cannot run b are left out with a message on stderr.
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
        if (kernel_runs_here(kernel) && Sprocket::bsr_kernel_supports(kernel, b)) add(Sprocket::to_string(kernel));
      }
    } else if (v != "auto" && !Sprocket::bsr_kernel_supports(Sprocket::bsr_kernel_from_string(v), b)) {
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
                           spmv::WidenColumns<decltype(row_map_), typename Bsr::row_map_type>{row_map_, A.row_map});
      Kokkos::fence();
      note_ = "cusparse<t>bsrmv takes 32-bit block row offsets: row map narrowed to an int copy";
    }
    SPROCKET_BENCH_CUSPARSE(cusparseCreate(&handle_));
    SPROCKET_BENCH_CUSPARSE(cusparseSetStream(handle_, Kokkos::Cuda().cuda_stream()));
    SPROCKET_BENCH_CUSPARSE(cusparseCreateMatDescr(&descr_));
    SPROCKET_BENCH_CUSPARSE(cusparseSetMatType(descr_, CUSPARSE_MATRIX_TYPE_GENERAL));
    SPROCKET_BENCH_CUSPARSE(cusparseSetMatIndexBase(descr_, CUSPARSE_INDEX_BASE_ZERO));
  }
  CusparseBsrmv(const CusparseBsrmv&) = delete;
  CusparseBsrmv& operator=(const CusparseBsrmv&) = delete;
  ~CusparseBsrmv() {
    if (descr_) cusparseDestroyMatDescr(descr_);
    if (handle_) cusparseDestroy(handle_);
  }

  void apply() const {
    const int mb = A_.num_block_rows(), nb = A_.num_block_cols(), nnzb = static_cast<int>(A_.num_blocks());
    if constexpr (std::is_same_v<Scalar, float>)
      SPROCKET_BENCH_CUSPARSE(cusparseSbsrmv(handle_, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb,
                                             nnzb, &alpha_, descr_, A_.values.data(), row_map_.data(),
                                             A_.entries.data(), A_.block_size(), x_.data(), &beta_, y_.data()));
    else
      SPROCKET_BENCH_CUSPARSE(cusparseDbsrmv(handle_, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb,
                                             nnzb, &alpha_, descr_, A_.values.data(), row_map_.data(),
                                             A_.entries.data(), A_.block_size(), x_.data(), &beta_, y_.data()));
  }
  const std::string& note() const { return note_; }

 private:
  Bsr A_;
  Vec x_, y_;
  Scalar alpha_, beta_;
  Kokkos::View<int*, Kokkos::CudaSpace> row_map_;
  cusparseHandle_t handle_ = nullptr;
  cusparseMatDescr_t descr_ = nullptr;
  std::string note_;
};
#endif  // KOKKOS_ENABLE_CUDA

/// One measured implementation: ours (one per variant) or a peer.
struct Candidate {
  std::string impl;     ///< "sprocket", "kk", "csr", "cusparse"
  std::string variant;  ///< our variant; "default" for peers
  std::string chosen;   ///< ours: the kernel the plan runs
  std::function<void()> apply;
  double bytes = 0;           ///< counted per apply for this implementation
  double setup_seconds = -1;  ///< analysis / descriptor set-up, < 0 when not measured
  std::string note;
};

/// Benchmarks one matrix with Scalar / Offset; returns 0, or 1 after a failed check.
template <class Scalar, class Offset>
int run_matrix(const Args& args, const std::string& name, const Sprocket::HostCsr& host, double stream_gbps) {
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
  const bool auto_b = block_size_option() == 0;
  std::vector<Sprocket::BlockSizeEstimate> estimates;
  const int b = auto_b ? Sprocket::detect_block_size(host, auto_max_block_size, sizeof(Scalar), sizeof(int),
                                                     sizeof(Offset), &estimates)
                       : block_size_option();
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
  int64_t upper_blocks = 0;  // blocks on or right of the diagonal: what host_symmetric reads
  for (int64_t I = 0; I < converted.num_block_rows; ++I)
    for (int64_t k = converted.row_map[I]; k < converted.row_map[I + 1]; ++k) upper_blocks += converted.entries[k] >= I;
  converted = Sprocket::HostBsr();
  const Crs C = Sprocket::to_crs<Crs>(host, "sprocket-bench::A");
  const int64_t blocks = info.num_blocks, stored = info.stored_nnz;

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

  const double vector_bytes = static_cast<double>(cols) * sizeof(Scalar) +
                              static_cast<double>(rows) * sizeof(Scalar) * (beta != Scalar(0) ? 2.0 : 1.0);
  auto bsr_bytes = [&](size_t offset_size) {
    return static_cast<double>(stored) * sizeof(Scalar) + static_cast<double>(blocks) * sizeof(int) +
           static_cast<double>(A.num_block_rows() + 1) * offset_size + vector_bytes;
  };
  const double symmetric_bytes = static_cast<double>(upper_blocks) * b * b * sizeof(Scalar) +
                                 static_cast<double>(upper_blocks) * sizeof(int) +
                                 static_cast<double>(A.num_block_rows() + 1) * sizeof(int64_t) + vector_bytes;
  const double csr_bytes = static_cast<double>(nnz) * (sizeof(Scalar) + sizeof(int)) +
                           static_cast<double>(rows + 1) * sizeof(Offset) + vector_bytes;

  std::vector<Candidate> candidates;
  for (const std::string& variant : expand_variants(args.variants, b, name)) {
    Sprocket::BsrSpmvOptions options;
    options.kernel = Sprocket::bsr_kernel_from_string(variant);
    options.symmetric = options.kernel == Sprocket::BsrKernel::host_symmetric;
    std::shared_ptr<Plan> plan;
    Kokkos::fence();
    double setup = 0;
    try {
      setup = seconds_of([&] {
        plan = std::make_shared<Plan>(A, options);
        Kokkos::fence();
      });
    } catch (const Sprocket::InvalidArgument& e) {
      if (!options.symmetric) throw;
      std::cerr << "sprocket-bench: " << name << ": variant " << variant << " skipped: " << e.what() << "\n";
      continue;
    }
    candidates.push_back({"sprocket", variant, Sprocket::to_string(plan->kernel()),
                          [plan, alpha, x, beta, y] { plan->apply("N", alpha, x, beta, y); },
                          options.symmetric ? symmetric_bytes : bsr_bytes(sizeof(Offset)), setup, ""});
    if (args.describe)
      info_stream(args) << "describe " << name << " variant " << variant << ":\n" << plan->describe() << "\n";
  }
  const std::vector<std::string> peers =
      args.peers.empty() ? std::vector<std::string>{"kk", "csr"} : args.peers;
  for (const std::string& peer : peers) {
    if (peer == "kk") {
      candidates.push_back(
          {"kk", "default", "", [C, alpha, x, beta, y] { KokkosSparse::spmv("N", alpha, C, x, beta, y); }, csr_bytes, -1,
           ""});
    } else if (peer == "csr") {
      std::shared_ptr<CsrPlan> plan;
      Kokkos::fence();
      const double setup = seconds_of([&] {
        plan = std::make_shared<CsrPlan>(C);
        Kokkos::fence();
      });
      candidates.push_back({"csr", "default", "", [plan, alpha, x, beta, y] { plan->apply("N", alpha, x, beta, y); },
                            csr_bytes, setup, ""});
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
        std::shared_ptr<CusparseBsrmv<Bsr, Vec>> cs;
        Kokkos::fence();
        const double setup = seconds_of([&] {
          cs = std::make_shared<CusparseBsrmv<Bsr, Vec>>(A, x, y, alpha, beta);
          Kokkos::fence();
        });
        candidates.push_back({"cusparse", "default", "", [cs] { cs->apply(); }, bsr_bytes(sizeof(int)), setup,
                              cs->note()});
        continue;
      }
#endif
      throw std::runtime_error("cusparse needs Kokkos::Cuda as the default execution space (it is " +
                               std::string(Space::name()) + ")");
    }
  }

  // --check: every candidate once on a poisoned y (NaN; beta != 0: y0), against the reference
  // on the CSR.
  std::vector<Record> checks(candidates.size());
  bool all_ok = true;
  if (args.check) all_ok = check_candidates<Scalar>(name, host, x_ref, y0_ref, alpha, beta, y, y0, candidates, checks);

  std::vector<std::function<void()>> fns;
  for (const Candidate& c : candidates) fns.push_back(c.apply);
  const std::vector<Timing> t = time_interleaved(fns, args.warmup, args.repeat);

  const double flops = 2.0 * static_cast<double>(nnz);
  auto peer_seconds = [&](const std::string& peer) {
    for (size_t c = 0; c < candidates.size(); ++c)
      if (candidates[c].impl == peer) return t[c].median;
    return std::nan("");
  };

  std::vector<Record> records;
  for (size_t c = 0; c < candidates.size(); ++c) {
    const double s = t[c].median, bytes = candidates[c].bytes;
    Record r;
    r.set("kernel", "bsr").set("matrix", name).set("impl", candidates[c].impl).set("variant", candidates[c].variant);
    if (!candidates[c].chosen.empty()) r.set("chosen_kernel", candidates[c].chosen);
    r.set("seconds", s).set("gbps", bytes / s * 1e-9).set("gflops", flops / s * 1e-9);
    if (candidates[c].impl == "sprocket")
      for (const std::string& peer : peers)
        if (!std::isnan(peer_seconds(peer))) r.set("ratio_vs_" + peer, peer_seconds(peer) / s);
    r.set("rows", rows)
        .set("cols", cols)
        .set("nnz", nnz)
        .set("bytes", static_cast<int64_t>(bytes))
        .set("repeat", args.repeat)
        .set("block_size", b)
        .set("block_size_auto", auto_b)
        .set("fill_ratio", info.fill_ratio)
        .set("blocks", blocks)
        .set("stored_nnz", stored)
        .set("warmup", args.warmup)
        .set("seconds_min", t[c].min)
        .set("seconds_max", t[c].max)
        .set("scalar", spmv::scalar_name<Scalar>())
        .set("offset", spmv::offset_name<Offset>())
        .set("space", Space::name())
        .set("alpha", static_cast<double>(alpha))
        .set("beta", static_cast<double>(beta));
    if (candidates[c].setup_seconds >= 0) r.set("setup_seconds", candidates[c].setup_seconds);
    if (candidates[c].impl == "sprocket") r.set("convert_seconds", convert_seconds);
    if (stream_gbps > 0) r.set("stream_fraction", bytes / s * 1e-9 / stream_gbps);
    for (const auto& f : checks[c].fields()) {
      if (f.kind == Record::Kind::boolean) r.set(f.key, f.number != 0);
      else r.set(f.key, f.number);
    }
    if (!candidates[c].note.empty()) r.set("note", candidates[c].note);
    records.push_back(r);
  }

  std::ostringstream title;
  title << "bsr  " << name << "  " << rows << " x " << cols << ", nnz " << nnz << ", block " << b << "x" << b
        << (auto_b ? " (auto)" : " (given)") << ", " << blocks << " blocks, fill " << format_number(info.fill_ratio, "%.3f")
        << "; per apply BSR " << human_bytes(bsr_bytes(sizeof(Offset))) << ", CSR " << human_bytes(csr_bytes) << ", "
        << spmv::scalar_name<Scalar>() << "/" << spmv::offset_name<Offset>() << " on " << Space::name() << ", beta "
        << static_cast<double>(beta) << ", median of " << args.repeat << " (warm-up " << args.warmup << ")";
  std::vector<Column> columns{{"impl", "impl"},
                              {"variant", "variant"},
                              {"chosen_kernel", "kernel"},
                              {"seconds", "seconds", "%.4e"},
                              {"gbps", "GB/s", "%.2f"},
                              {"gflops", "GFLOP/s", "%.2f"}};
  for (const std::string& peer : peers) columns.push_back({"ratio_vs_" + peer, "ratio_vs_" + peer, "%.3f"});
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

}  // namespace bsr

inline KernelEntry bsr_entry() {
  KernelEntry e;
  e.name = "bsr";
  e.summary =
      "block-CSR y = alpha A x + beta y: BsrSpmvPlan variants vs kk (KokkosSparse::spmv on the CSR), csr "
      "(SpmvPlan), cusparse (bsrmv, CUDA); --block-size auto|b; default --compare kk,csr";
  e.variants = bsr::variant_names();
  e.all_variants = {"all"};  // expanded per matrix: the kernels that support its block size
  e.default_variant = "auto";
  e.peers = {{"kk", true, ""},
             {"csr", true, ""},
#ifdef KOKKOS_ENABLE_CUDA
             {"cusparse", std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>,
              "cusparse needs Kokkos::Cuda as the default execution space"}};
#else
             {"cusparse", false, "cusparse is only available in CUDA builds (this build runs on " +
                                     std::string(Kokkos::DefaultExecutionSpace::name()) + ")"}};
#endif
  e.uses_matrices = true;
  e.example = "sprocket-bench --kernel bsr --matrix gen:elasticity:n=40,dof=3 --compare kk,csr --check";
  e.run = bsr::run;
  return e;
}

}  // namespace sprocket_bench
