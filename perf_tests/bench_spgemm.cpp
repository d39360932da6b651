// sprocket-bench --kernel spgemm: sparse times sparse, C = A * A for a square A and C = A * A^T
// otherwise (A^T built once with Sprocket::transpose, outside every timing, as the spECK paper
// does). Sprocket::SpgemmPlan (one line per variant) against, measured interleaved in the same run
// on the same A and B:
//   kk           Kokkos Kernels 3.4, View-level spgemm_symbolic / spgemm_numeric with the fastest on
//                this product of its own algorithms SPGEMM_KK (the one its enum marks as the default;
//                a handle created with SPGEMM_DEFAULT resolves to SPGEMM_SERIAL on OpenMP and to the
//                cuSPARSE TPL on CUDA, so they are named explicitly), KK_DENSE, KK_MEMORY and KK_LP
//                (peer_algorithm, peer_trials; bench_kk_peers_impl.hpp); its output (unsorted in 3.4) sorted afterwards with
//                KokkosKernels::Impl::sort_crs_matrix, the sort inside the time
//   kk_unsorted  the same without the sort
//   mkl          Intel MKL 2020.4 (bench_mkl.hpp, mkl_peer.cpp): the faster on this product of
//                mkl_sparse_spmm and mkl_sparse_sp2m (SPARSE_STAGE_FULL_MULT), then mkl_sparse_order
//                (sorted output, as ours), the sort inside the time; host builds with MKL
//   mkl_unsorted the same without the sort
//   graphblas    SuiteSparse:GraphBLAS GrB_mxm (PLUS_TIMES; bench_graphblas.hpp, graphblas_peer.cpp):
//                Debian's 7.4 where found at build time; graphblas9: 9.3.1 with its JIT where
//                `make bench` built it. Each tries its default, Gustavson and hash methods at set-up
//                and keeps the fastest (peer_algorithm)
//   cusparse     cusparseSpGEMM, CUSPARSE_SPGEMM_ALG1, or ALG3 when ALG1 runs out of memory; CUDA
//                builds only
// Default --compare: kk, kk_unsorted, graphblas and graphblas9 (where built), cusparse (where the default space is
// Kokkos::Cuda).
//
// `seconds` is a FULL product from A and B, everything included but freeing C:
//   sprocket     SpgemmPlan(A, B, options) + plan.numeric(A, B) (analysis, symbolic pass, C's
//                allocation, numeric pass) and the plan's destruction
//   kk, kk_unsorted  handle, spgemm_symbolic, C's allocation, spgemm_numeric, (kk) sort_crs_matrix,
//                the handle's destruction
//   graphblas    GrB_Matrix_new(C) + GrB_mxm + GrB_Matrix_wait(C, GrB_MATERIALIZE) (graphblas9 too)
//   mkl, mkl_unsorted  handles of A and B made at set-up (on the bench's arrays, no copy); the product
//                into a new C handle (its arrays MKL's own), (mkl) mkl_sparse_order
//   cusparse     SpGEMM descriptor, workEstimation, (ALG3: estimateMemory) compute, C's allocation,
//                copy, every buffer allocated and freed
// Each candidate's C is freed after each run, untimed (Candidate::release), so the interleaved runs
// hold one C at a time. glibc's allocator is pinned for this kernel's run (mmap threshold 32 MiB,
// trim threshold 256 MiB, both fixed): an allocation of 32 MiB or more always comes fresh from the
// kernel (its page faults paid by the product that touches it) and smaller ones reuse the heap, as
// in an application that has been running a while. Left to itself glibc moves the mmap threshold
// as large blocks are freed and trims the heap's top at 128 KiB, so whichever candidate ran right
// after another's large free reused already-touched pages while the next paid the faults: the
// order of the interleaving, not the implementation, decided up to 3x on the largest products and
// 2x on the smallest.
//
// `numeric_seconds`: the numeric-only re-run on an existing structure, the median of a second
// interleaved list (same --warmup / --repeat):
//   sprocket     plan.numeric(A, B, C) with the plan and C of an earlier plan.numeric(A, B)
//   kk           spgemm_numeric again on a handle that ran spgemm_symbolic, into C's arrays, + the
//                sort (kk_unsorted: without)
//   mkl          mkl_sparse_sp2m SPARSE_STAGE_FINALIZE_MULT on the structure of one
//                SPARSE_STAGE_FULL_MULT_NO_VAL, then (mkl) an ordered copy, mkl_sparse_copy +
//                mkl_sparse_order: MKL 2020.4 writes FINALIZE_MULT's values where its unsorted
//                structure had them even after mkl_sparse_order sorted that structure, so the
//                structure itself is never ordered (mkl_unsorted: FINALIZE_MULT alone)
//   graphblas    C<C, struct> = A B on the C of an earlier product: GraphBLAS's way of recomputing
//                the values on a known pattern (it has no separate numeric phase)
//   cusparse     cusparseSpGEMMreuse_compute after the reuse API's workEstimation / nnz / copy
//                (CUSPARSE_SPGEMM_DEFAULT: the reuse API does not take ALG1-3)
// Those states (one C each) are alive together while that list runs; when their estimated sum
// (each one's peak_bytes) exceeds 80% of the memory the plan found available, they are timed one
// implementation at a time instead and the lines say so (numeric_interleaved false).
//
// Memory (one full product each, outside the timings):
//   peak_bytes      sprocket: the plan's own accounting (SpgemmPlan::memory().peak_bytes, C included);
//                   host peers: peak_rss_bytes; CUDA: kk the high-water mark of its Kokkos device
//                   allocations, cusparse that of its buffers and C's arrays. peak_source says which.
//   peak_rss_bytes  host spaces (and the graphblas peers everywhere): resident memory, VmHWM after the product
//                   minus VmRSS before it, with the high-water mark reset first ("5" into
//                   /proc/self/clear_refs) and freed heap memory returned (malloc_trim): what the
//                   product made resident, C included; pages allocated but never touched do not count
//   peak_alloc_bytes  CUDA, sprocket and kk: high-water mark of Kokkos' device allocations (its
//                   allocation callbacks; absent while a Kokkos tool is loaded)
//
// Bytes per product, the same count on every line (the problem's compulsory traffic, not each
// implementation's own; B counted even when it is A; the symbolic pass's second reading of A and B
// and the re-reads of B's rows are not counted, so GB/s is a lower bound):
//   (rows(A) + 1) * sizeof(Offset) + nnz(A) * (sizeof(int) + sizeof(Scalar))   A read
//   (rows(B) + 1) * sizeof(Offset) + nnz(B) * (sizeof(int) + sizeof(Scalar))   B read
//   (rows(C) + 1) * sizeof(Offset) + nnz(C) * (sizeof(int) + sizeof(Scalar))   C written
// Flops per product: 2 * products (one multiplication and one addition per product).
//
// --check: every candidate's C from a full product and from two numeric re-runs, one candidate at a
// time, against Sprocket::reference::spgemm on the values the matrices hold (rounded to Scalar):
// identical row map and columns (the rows of the candidates that do not promise sorted output are
// sorted first; c_sorted says whether they came out sorted), values within
// 64 eps(Scalar) (|A| |B|)_ij (|A| |B| by reference::spgemm on absolute values). The re-runs'
// state is built on A's values; A's values are then changed (other deterministic values, same
// pattern; B = A^T changed with it) and the re-runs' C set to NaN before each re-run, so that a
// re-run that leaves C as it was, or reads values from before, fails; both are checked (on CUDA our
// first re-run records each product's position in C, the later ones, the timed ones, read them).

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "Sprocket_Crs.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Spgemm.hpp"
#include "bench_common.hpp"
#include "bench_cusparse.hpp"
#include "bench_graphblas.hpp"
#include "bench_mkl.hpp"
#include "bench_kk_peers.hpp"
#include "bench_matrix_loop.hpp"

namespace sprocket_bench {
namespace spgemm {

/// Every --variant name (and what `all` means): auto, each forced accumulator, each forced load
/// balancing (both passes), unsorted output, the portable backend.
inline std::vector<std::string> variant_names() {
  std::vector<std::string> v{"auto"};
  for (int a = 0; a < Sprocket::num_spgemm_accumulators; ++a)
    v.push_back(Sprocket::to_string(static_cast<Sprocket::SpgemmAccumulator>(a)));
  v.push_back(Sprocket::to_string(Sprocket::SpgemmBalance::uniform));
  v.push_back(Sprocket::to_string(Sprocket::SpgemmBalance::binned));
  v.push_back("unsorted");
  v.push_back("portable");
  return v;
}

inline Sprocket::SpgemmOptions options_for(const std::string& variant) {
  Sprocket::SpgemmOptions o;
  if (variant == "unsorted") o.sorted = false;
  else if (variant == "portable") o.backend = Sprocket::Backend::portable;
  else if (variant == "uniform" || variant == "binned")
    o.symbolic_balance = o.numeric_balance = Sprocket::spgemm_balance_from_string(variant);
  else if (variant != "auto") o.accumulator = Sprocket::spgemm_accumulator_from_string(variant);
  return o;
}

/// Why Kokkos Kernels' SpGEMM is not run on this device, or empty. Kokkos 3.4 knows no Hopper
/// architecture, and its Kokkos Kernels' SpGEMM fails there: on an H100 (2026-11-26) two of
/// three products failed --check, on an H200 (2026-11-28) compute-sanitizer found out-of-bounds
/// writes in KokkosSPGEMM::PortableNumericCHASH, after which every later CUDA call of the process
/// failed (perf_tests/results/gpu-h200-2026-11-28.md).
inline std::string kk_spgemm_skip_reason() {
#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
  int device = 0, major = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 9)
    return "Kokkos Kernels " + std::to_string(KOKKOS_VERSION / 10000) + "." +
           std::to_string(KOKKOS_VERSION / 100 % 100) +
           "'s SpGEMM writes out of bounds on compute capability " + std::to_string(major) +
           ".x (Kokkos 3.4 knows no Hopper architecture): not run";
#endif
  return "";
}

inline Peer kk_peer() { return {"kk", true, ""}; }
inline Peer kk_unsorted_peer() { return {"kk_unsorted", true, ""}; }

/// Without --compare: kk, kk_unsorted, graphblas where built, cusparse where it can run.
inline std::vector<std::string> default_peers() {
  std::vector<std::string> p{"kk", "kk_unsorted"};
  add_default_graphblas_peers(p);
  if (cusparse_peer().available) p.push_back("cusparse");
  return p;
}

// ------------------------------------------------------------------------------------------------
// Memory measurements

/// VmRSS and VmHWM of this process in bytes (/proc/self/status); false where unreadable.
inline bool read_resident(int64_t* rss, int64_t* hwm) {
  std::ifstream status("/proc/self/status");
  std::string line;
  int found = 0;
  while (std::getline(status, line)) {
    const auto value = [&] { return std::strtoll(line.c_str() + line.find(':') + 1, nullptr, 10) * 1024; };
    if (line.rfind("VmRSS:", 0) == 0) *rss = value(), ++found;
    else if (line.rfind("VmHWM:", 0) == 0) *hwm = value(), ++found;
  }
  return found == 2;
}

/// Bytes the resident set grew to while f ran, above where it started: VmHWM after f minus VmRSS
/// before it, with freed heap memory handed back first (so f's allocations need fresh pages) and the
/// high-water mark reset to the current RSS ("5" into /proc/self/clear_refs). -1 where Linux refuses.
template <class F>
int64_t resident_peak_of(F&& f) {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.close();
    if (clear.fail()) return -1;
  }
  int64_t rss0 = 0, hwm0 = 0, rss1 = 0, hwm1 = 0;
  if (!read_resident(&rss0, &hwm0)) return -1;
  f();
  Kokkos::fence();
  if (!read_resident(&rss1, &hwm1)) return -1;
  return std::max<int64_t>(0, hwm1 - rss0);
}

/// Kokkos' allocation callbacks, counting one memory space's bytes while installed.
struct KokkosAllocationCount {
  static inline char space[64] = {0};
  static inline int64_t current = 0, peak = 0;
  static void on_allocate(const Kokkos::Profiling::SpaceHandle h, const char*, const void*, const uint64_t size) {
    if (std::strncmp(h.name, space, sizeof space) != 0) return;
    current += static_cast<int64_t>(size);
    peak = std::max(peak, current);
  }
  static void on_deallocate(const Kokkos::Profiling::SpaceHandle h, const char*, const void*, const uint64_t size) {
    if (std::strncmp(h.name, space, sizeof space) == 0) current -= static_cast<int64_t>(size);
  }
};

/// High-water mark of the bytes Kokkos allocates in MemorySpace while f runs (above what was
/// allocated before); -1 while a Kokkos tool is loaded (its callbacks are not ours to replace).
template <class MemorySpace, class F>
int64_t kokkos_allocation_peak_of(F&& f) {
  if (Kokkos::Profiling::profileLibraryLoaded()) return -1;
  using Count = KokkosAllocationCount;
  std::strncpy(Count::space, MemorySpace::name(), sizeof Count::space - 1);
  Count::current = Count::peak = 0;
  Kokkos::fence();
  Kokkos::Tools::Experimental::set_allocate_data_callback(&Count::on_allocate);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(&Count::on_deallocate);
  try {
    f();
    Kokkos::fence();
  } catch (...) {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
    throw;
  }
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  return Count::peak;
}

// ------------------------------------------------------------------------------------------------
// The implementations

/// One measured implementation: its full product, its numeric-only re-run and their results.
class Implementation {
 public:
  virtual ~Implementation() = default;
  /// The whole product from A and B; its C is kept until release().
  virtual void full() = 0;
  virtual void release() = 0;
  /// Host copy of the C the last full() made (--check).
  virtual Sprocket::HostCsr result() const = 0;
  /// Builds what numeric() re-runs on (structure computed, C allocated, one numeric pass done).
  virtual void prepare_numeric() = 0;
  virtual void numeric() = 0;
  /// Runs untimed after every numeric() (nothing so far).
  virtual void after_numeric() {}
  /// Host copy of the C the numeric re-runs write.
  virtual Sprocket::HostCsr numeric_result() const = 0;
  virtual void release_numeric() = 0;
  /// Whether C's rows come out sorted (--check then requires it; otherwise it sorts them first).
  virtual bool sorted() const = 0;
  /// Sets every value of a C to `value`, its pattern kept: the C of the last full() (numeric_c
  /// false) or the one the numeric re-runs write (true). --check poisons the latter (NaN) before
  /// each re-run it checks, so that a value a re-run leaves unwritten fails; SPROCKET_BENCH_CORRUPT
  /// zeroes both after each run (Corrupted).
  virtual void fill_c_values(bool numeric_c, double value) = 0;
  /// A's values (and B's, unless B is A) were changed to these, rounded to Scalar, the patterns
  /// kept; B null: B is A. --check re-runs the numeric pass on changed values. Implementations on
  /// the bench's own A and B (ours, kk, cusparse) find the new values there; those on copies of
  /// their own (graphblas) update the copies.
  virtual void use_operand_values(const Sprocket::HostCsr& /*A*/, const Sprocket::HostCsr* /*B*/) {}
};

/// Ours: a plan per product (full), a kept plan and C (numeric).
template <class Crs>
class OursSpgemm final : public Implementation {
 public:
  using Plan = Sprocket::SpgemmPlan<Crs>;
  OursSpgemm(const Crs& A, const Crs& B, const Sprocket::SpgemmOptions& options)
      : A_(A), B_(B), options_(options) {}

  void full() override {
    const auto start = std::chrono::steady_clock::now();
    Plan plan(A_, B_, options_);  // (the constructor fences: this is the plan's whole time)
    plan_seconds_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    C_ = plan.numeric(A_, B_);
  }
  /// Median time of the plan constructions inside full(), the first left out (it pays one-time
  /// costs: on a GPU the kernels' module loading, the first allocations); NaN with fewer than two.
  double warm_plan_seconds() const {
    if (plan_seconds_.size() < 2) return std::nan("");
    std::vector<double> warm(plan_seconds_.begin() + 1, plan_seconds_.end());
    std::nth_element(warm.begin(), warm.begin() + warm.size() / 2, warm.end());
    return warm[warm.size() / 2];
  }
  void release() override { C_ = Crs(); }
  Sprocket::HostCsr result() const override { return Sprocket::to_host_csr(C_); }
  void prepare_numeric() override {
    plan_ = std::make_unique<Plan>(A_, B_, options_);
    numeric_C_ = plan_->numeric(A_, B_);
  }
  void numeric() override { plan_->numeric(A_, B_, numeric_C_); }
  Sprocket::HostCsr numeric_result() const override { return Sprocket::to_host_csr(numeric_C_); }
  void release_numeric() override {
    numeric_C_ = Crs();
    plan_.reset();
  }
  bool sorted() const override { return options_.sorted; }
  void fill_c_values(bool numeric_c, double value) override {
    Kokkos::deep_copy((numeric_c ? numeric_C_ : C_).values, static_cast<typename Crs::non_const_value_type>(value));
  }

 private:
  Crs A_, B_;
  Sprocket::SpgemmOptions options_;
  Crs C_, numeric_C_;
  std::unique_ptr<Plan> plan_;
  std::vector<double> plan_seconds_;  ///< each full()'s plan construction
};

/// Kokkos Kernels' SpGEMM (bench_kk_peers_impl.hpp) with one of its algorithms.
class KkImplementation final : public Implementation {
 public:
  KkImplementation(std::unique_ptr<kk::Spgemm> op, bool sort) : op_(std::move(op)), sort_(sort) {}
  void full() override { op_->full(); }
  void release() override { op_->release(); }
  Sprocket::HostCsr result() const override { return op_->result(); }
  void prepare_numeric() override { op_->prepare_numeric(); }
  void numeric() override { op_->numeric(); }
  Sprocket::HostCsr numeric_result() const override { return op_->numeric_result(); }
  void release_numeric() override { op_->release_numeric(); }
  bool sorted() const override { return sort_; }
  void fill_c_values(bool numeric_c, double value) override { op_->fill_c_values(numeric_c, value); }

 private:
  std::unique_ptr<kk::Spgemm> op_;
  bool sort_;
};

/// GraphBLAS (graphblas, graphblas9): the full product a new C per call; the numeric re-run
/// C<C, struct> = A B on a kept C (graphblas_peer.cpp).
class GraphblasImplementation final : public Implementation {
 public:
  explicit GraphblasImplementation(std::shared_ptr<graphblas::SpgemmOp> op) : op_(std::move(op)) {}
  void full() override { op_->apply(); }
  void release() override { op_->release(); }
  Sprocket::HostCsr result() const override { return op_->result(); }
  void prepare_numeric() override { op_->prepare_numeric(); }
  void numeric() override { op_->numeric(); }
  Sprocket::HostCsr numeric_result() const override { return op_->numeric_result(); }
  void release_numeric() override { op_->release_numeric(); }
  bool sorted() const override { return true; }
  void fill_c_values(bool numeric_c, double value) override { op_->fill_c_values(numeric_c, value); }
  void use_operand_values(const Sprocket::HostCsr& A, const Sprocket::HostCsr* B) override {
    op_->set_operands(A, B);
  }

 private:
  std::shared_ptr<graphblas::SpgemmOp> op_;
};

#if defined(SPROCKET_BENCH_HAVE_MKL)
/// Intel MKL (mkl, mkl_unsorted): a full product into a new C per call on the bench's A and B
/// (mkl_sparse_spmm or mkl_sparse_sp2m, the faster kept; mkl: then mkl_sparse_order); the numeric
/// re-run sp2m FINALIZE_MULT on a kept structure (mkl_peer.hpp). MKL reads the bench's value
/// arrays, so --check's changed values need no copy.
class MklImplementation final : public Implementation {
 public:
  MklImplementation(std::shared_ptr<mkl::SpgemmOp> op, bool sorted, std::shared_ptr<void> arrays)
      : op_(std::move(op)), sorted_(sorted), arrays_(std::move(arrays)) {}
  void full() override { op_->apply(); }
  void release() override { op_->release(); }
  Sprocket::HostCsr result() const override { return op_->result(); }
  void prepare_numeric() override { op_->prepare_numeric(); }
  void numeric() override { op_->numeric(); }
  void after_numeric() override { op_->after_numeric(); }
  Sprocket::HostCsr numeric_result() const override { return op_->numeric_result(); }
  void release_numeric() override { op_->release_numeric(); }
  bool sorted() const override { return sorted_; }
  void fill_c_values(bool numeric_c, double value) override { op_->fill_c_values(numeric_c, value); }

 private:
  std::shared_ptr<mkl::SpgemmOp> op_;
  bool sorted_;
  std::shared_ptr<void> arrays_;  ///< the int row maps MKL reads (size_t offsets), kept alive
};
#endif

/// SPROCKET_BENCH_CORRUPT: an implementation whose every C, full product and numeric re-run alike,
/// has its values zeroed after the run, as a numeric pass that never ran would leave a C allocated
/// with zeros.
class Corrupted final : public Implementation {
 public:
  explicit Corrupted(std::shared_ptr<Implementation> impl) : impl_(std::move(impl)) {}
  void full() override {
    impl_->full();
    impl_->fill_c_values(false, 0.0);
  }
  void release() override { impl_->release(); }
  Sprocket::HostCsr result() const override { return impl_->result(); }
  void prepare_numeric() override { impl_->prepare_numeric(); }
  void numeric() override {
    impl_->numeric();
    impl_->fill_c_values(true, 0.0);
  }
  void after_numeric() override { impl_->after_numeric(); }
  Sprocket::HostCsr numeric_result() const override { return impl_->numeric_result(); }
  void release_numeric() override { impl_->release_numeric(); }
  bool sorted() const override { return impl_->sorted(); }
  void fill_c_values(bool numeric_c, double value) override { impl_->fill_c_values(numeric_c, value); }
  void use_operand_values(const Sprocket::HostCsr& A, const Sprocket::HostCsr* B) override {
    impl_->use_operand_values(A, B);
  }

 private:
  std::shared_ptr<Implementation> impl_;
};

#ifdef KOKKOS_ENABLE_CUDA
/// Device memory from cudaMalloc, freed on destruction (or release()), its bytes added to a running
/// count and high-water mark (the cusparse peer's peak_bytes).
class CudaBytes {
 public:
  struct Count {
    int64_t current = 0, peak = 0;
  };
  CudaBytes() = default;
  CudaBytes(const CudaBytes&) = delete;
  CudaBytes& operator=(const CudaBytes&) = delete;
  ~CudaBytes() { release(); }

  /// false when the device is out of memory (the error cleared); any other failure throws. A zero
  /// size still gets a small allocation: cuSPARSE reads a null buffer as a size query.
  bool allocate(size_t bytes, Count* count) {
    release();
    const size_t size = std::max<size_t>(bytes, 256);
    void* p = nullptr;
    const cudaError_t e = cudaMallocAsync(&p, size, stream());
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return false;
    }
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaMalloc: ") + cudaGetErrorString(e));
    ptr_ = p;
    size_ = static_cast<int64_t>(size);
    count_ = count;
    count_->current += size_;
    count_->peak = std::max(count_->peak, count_->current);
    return true;
  }
  void release() {
    if (!ptr_) return;
    cudaFreeAsync(ptr_, stream());
    count_->current -= size_;
    ptr_ = nullptr;
  }
  void* get() const { return ptr_; }

 private:
  /// Kokkos' stream, whose work the cuSPARSE handle queues too; its device's default memory pool
  /// keeps what is freed (release threshold: all of it) so that later products reuse it, as an
  /// application with a pooled allocator does.
  static cudaStream_t stream() {
    static const cudaStream_t s = [] {
      int device = 0;
      cudaMemPool_t pool;
      uint64_t keep = UINT64_MAX;
      if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
          cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
        throw std::runtime_error("cusparse peer: cannot configure the device's default memory pool");
      return Kokkos::Cuda().cuda_stream();
    }();
    return s;
  }
  void* ptr_ = nullptr;
  int64_t size_ = 0;
  Count* count_ = nullptr;
};

/// Owns a cuSPARSE sparse-matrix descriptor and an SpGEMM descriptor.
class CusparseSpMat {
 public:
  CusparseSpMat() = default;
  CusparseSpMat(const CusparseSpMat&) = delete;
  CusparseSpMat& operator=(const CusparseSpMat&) = delete;
  ~CusparseSpMat() {
    if (descr_) cusparseDestroySpMat(descr_);
  }
  cusparseSpMatDescr_t get() const { return descr_; }
  cusparseSpMatDescr_t* out() { return &descr_; }

 private:
  cusparseSpMatDescr_t descr_ = nullptr;
};

class CusparseSpgemmDescr {
 public:
  CusparseSpgemmDescr() { SPROCKET_BENCH_CUSPARSE(cusparseSpGEMM_createDescr(&descr_)); }
  CusparseSpgemmDescr(const CusparseSpgemmDescr&) = delete;
  CusparseSpgemmDescr& operator=(const CusparseSpgemmDescr&) = delete;
  ~CusparseSpgemmDescr() {
    if (descr_) cusparseSpGEMM_destroyDescr(descr_);
  }
  cusparseSpGEMMDescr_t get() const { return descr_; }

 private:
  cusparseSpGEMMDescr_t descr_ = nullptr;
};

/// cusparseSpGEMM on A's and B's own arrays (32-bit offsets and columns: the only indices its SpGEMM
/// takes). full(): the whole sequence with every buffer and C's arrays allocated from the device's
/// memory pool (cudaMallocAsync on Kokkos' stream, the pool keeping freed memory) and the buffers
/// freed, with the algorithm given (ALG1, ALG2 or ALG3; the bench tries each and keeps the fastest);
/// when ALG1 or ALG2 runs out of memory (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES or a failed
/// allocation) ALG3 (chunked, estimateMemory with chunk_fraction 0.2) from then on, variant() says
/// which. Numeric re-run: the reuse API (CUSPARSE_SPGEMM_DEFAULT), cusparseSpGEMMreuse_compute.
template <class Crs>
class CusparseSpgemm final : public Implementation {
 public:
  using Scalar = typename Crs::non_const_value_type;
  static constexpr cudaDataType data_type = cusparse_data_type<Scalar>;
  static_assert(sizeof(typename Crs::non_const_size_type) == 4 && sizeof(typename Crs::non_const_ordinal_type) == 4,
                "the cusparse spgemm peer takes 32-bit offsets and columns");

  CusparseSpgemm(const Crs& A, const Crs& B, cusparseSpGEMMAlg_t algorithm)
      : A_(A), B_(B), rows_(A.numRows()), cols_(B.numCols()),
        matA_(A_, [](cusparseSpMatDescr_t) { return CUSPARSE_STATUS_SUCCESS; }),
        matB_(B_, [](cusparseSpMatDescr_t) { return CUSPARSE_STATUS_SUCCESS; }), algorithm_(algorithm) {}

  void full() override {
    release();
    if (product(algorithm_, C_)) return;
    if (algorithm_ != CUSPARSE_SPGEMM_ALG3) {
      algorithm_ = CUSPARSE_SPGEMM_ALG3;
      fell_back_ = true;
      if (product(algorithm_, C_)) return;
    }
    throw std::runtime_error("cusparse: cusparseSpGEMM ran out of device memory (ALG3 included)");
  }
  void release() override { C_.reset(); }
  Sprocket::HostCsr result() const override {
    if (!C_) throw std::logic_error("cusparse: no product to read");
    return host(*C_);
  }

  void prepare_numeric() override {
    numeric_ = std::make_unique<Result>();
    Result& r = *numeric_;
    const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
    const auto need = [](bool ok) {
      if (!ok) throw std::runtime_error("cusparse: out of device memory for the reuse API's buffers");
    };
    need(r.row_map.allocate(sizeof(int) * (rows_ + 1), &r.count));
    SPROCKET_BENCH_CUSPARSE(cusparseCreateCsr(r.C.out(), rows_, cols_, 0, r.row_map.get(), nullptr, nullptr,
                                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                              data_type));
    CudaBytes b1, b2, b3;
    size_t s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
    SPROCKET_BENCH_CUSPARSE(cusparseSpGEMMreuse_workEstimation(handle_.get(), op, op, matA_.get(), matB_.get(),
                                                               r.C.get(), alg, r.spgemm.get(), &s1, nullptr));
    need(b1.allocate(s1, &r.count));
    SPROCKET_BENCH_CUSPARSE(cusparseSpGEMMreuse_workEstimation(handle_.get(), op, op, matA_.get(), matB_.get(),
                                                               r.C.get(), alg, r.spgemm.get(), &s1, b1.get()));
    SPROCKET_BENCH_CUSPARSE(cusparseSpGEMMreuse_nnz(handle_.get(), op, op, matA_.get(), matB_.get(), r.C.get(), alg,
                                                    r.spgemm.get(), &s2, nullptr, &s3, nullptr, &s4, nullptr));
    need(b2.allocate(s2, &r.count));
    need(b3.allocate(s3, &r.count));
    need(r.buffer4.allocate(s4, &r.count));
    SPROCKET_BENCH_CUSPARSE(cusparseSpGEMMreuse_nnz(handle_.get(), op, op, matA_.get(), matB_.get(), r.C.get(), alg,
                                                    r.spgemm.get(), &s2, b2.get(), &s3, b3.get(), &s4,
                                                    r.buffer4.get()));
    b1.release();
    b2.release();
    allocate_c(r, need);
    SPROCKET_BENCH_CUSPARSE(cusparseSpGEMMreuse_copy(handle_.get(), op, op, matA_.get(), matB_.get(), r.C.get(), alg,
                                                     r.spgemm.get(), &s5, nullptr));
    need(r.buffer5.allocate(s5, &r.count));
    SPROCKET_BENCH_CUSPARSE(cusparseSpGEMMreuse_copy(handle_.get(), op, op, matA_.get(), matB_.get(), r.C.get(), alg,
                                                     r.spgemm.get(), &s5, r.buffer5.get()));
    b3.release();
    numeric();
  }
  void numeric() override {
    SPROCKET_BENCH_CUSPARSE(cusparseSpGEMMreuse_compute(handle_.get(), op, op, &one_, matA_.get(), matB_.get(),
                                                        &zero_, numeric_->C.get(), data_type, CUSPARSE_SPGEMM_DEFAULT,
                                                        numeric_->spgemm.get()));
  }
  Sprocket::HostCsr numeric_result() const override { return host(*numeric_); }
  void release_numeric() override { numeric_.reset(); }
  bool sorted() const override { return false; }  // not promised; --check reports c_sorted
  void fill_c_values(bool numeric_c, double value) override {
    const Result& r = numeric_c ? *numeric_ : *C_;
    const Kokkos::View<Scalar*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> values(
        static_cast<Scalar*>(r.values.get()), r.nnz);
    Kokkos::deep_copy(values, static_cast<Scalar>(value));
  }

  /// The peak of the last full(): its buffers and C's arrays at the most held at once.
  int64_t peak_bytes() const { return C_ ? C_->count.peak : -1; }
  std::string variant() const {
    return algorithm_ == CUSPARSE_SPGEMM_ALG1 ? "alg1" : algorithm_ == CUSPARSE_SPGEMM_ALG2 ? "alg2" : "alg3";
  }
  std::string note() const {
    return "cusparseSpGEMM " + variant() + (algorithm_ == CUSPARSE_SPGEMM_ALG3 ? " (chunk_fraction 0.2)" : "") +
           (fell_back_ ? " after the algorithm asked for ran out of memory" : "") +
           " on A's and B's own arrays, every buffer and C allocated from the pooled device allocator and the buffers "
           "freed inside the time; numeric re-run: cusparseSpGEMMreuse_compute (CUSPARSE_SPGEMM_DEFAULT)";
  }

 private:
  static constexpr cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  struct Result {
    CudaBytes::Count count;  // declared first: destroyed after the arrays that count into it
    CudaBytes row_map, columns, values, buffer4, buffer5;
    CusparseSpMat C;
    CusparseSpgemmDescr spgemm;
    int64_t nnz = 0;
  };

  template <class Need>
  void allocate_c(Result& r, const Need& need) {
    int64_t rows = 0, cols = 0;
    SPROCKET_BENCH_CUSPARSE(cusparseSpMatGetSize(r.C.get(), &rows, &cols, &r.nnz));
    need(r.columns.allocate(sizeof(int) * r.nnz, &r.count));
    need(r.values.allocate(sizeof(Scalar) * r.nnz, &r.count));
    SPROCKET_BENCH_CUSPARSE(cusparseCsrSetPointers(r.C.get(), r.row_map.get(), r.columns.get(), r.values.get()));
  }

  /// One full product with `alg` into out (a fresh Result); false when out of device memory.
  bool product(cusparseSpGEMMAlg_t alg, std::unique_ptr<Result>& out) {
    out = std::make_unique<Result>();
    Result& r = *out;
    bool ok = true;
    const auto call = [&](cusparseStatus_t s, const char* what) {
      if (s == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES) return ok = false;
      cusparse_check(s, what);
      return true;
    };
    if (!r.row_map.allocate(sizeof(int) * (rows_ + 1), &r.count)) return false;
    SPROCKET_BENCH_CUSPARSE(cusparseCreateCsr(r.C.out(), rows_, cols_, 0, r.row_map.get(), nullptr, nullptr,
                                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                              data_type));
    const cusparseSpGEMMDescr_t d = r.spgemm.get();
    cusparseHandle_t h = handle_.get();
    CudaBytes b1, b2, b3;
    size_t s1 = 0, s2 = 0, s3 = 0;
    if (!call(cusparseSpGEMM_workEstimation(h, op, op, &one_, matA_.get(), matB_.get(), &zero_, r.C.get(), data_type,
                                            alg, d, &s1, nullptr),
              "cusparseSpGEMM_workEstimation") ||
        !b1.allocate(s1, &r.count) ||
        !call(cusparseSpGEMM_workEstimation(h, op, op, &one_, matA_.get(), matB_.get(), &zero_, r.C.get(), data_type,
                                            alg, d, &s1, b1.get()),
              "cusparseSpGEMM_workEstimation"))
      return false;
    if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
      const float chunk_fraction = 0.2f;  // read by ALG3 only
      if (!call(cusparseSpGEMM_estimateMemory(h, op, op, &one_, matA_.get(), matB_.get(), &zero_, r.C.get(), data_type,
                                              alg, d, chunk_fraction, &s3, nullptr, nullptr),
                "cusparseSpGEMM_estimateMemory") ||
          !b3.allocate(s3, &r.count) ||
          !call(cusparseSpGEMM_estimateMemory(h, op, op, &one_, matA_.get(), matB_.get(), &zero_, r.C.get(), data_type,
                                              alg, d, chunk_fraction, &s3, b3.get(), &s2),
                "cusparseSpGEMM_estimateMemory"))
        return false;
      b3.release();
    } else if (!call(cusparseSpGEMM_compute(h, op, op, &one_, matA_.get(), matB_.get(), &zero_, r.C.get(), data_type,
                                            alg, d, &s2, nullptr),
                     "cusparseSpGEMM_compute")) {
      return false;
    }
    if (!b2.allocate(s2, &r.count) ||
        !call(cusparseSpGEMM_compute(h, op, op, &one_, matA_.get(), matB_.get(), &zero_, r.C.get(), data_type, alg, d,
                                     &s2, b2.get()),
              "cusparseSpGEMM_compute"))
      return false;
    const auto need = [&](bool allocated) {
      if (!allocated) ok = false;
    };
    allocate_c(r, need);
    if (!ok) return false;
    SPROCKET_BENCH_CUSPARSE(
        cusparseSpGEMM_copy(h, op, op, &one_, matA_.get(), matB_.get(), &zero_, r.C.get(), data_type, alg, d));
    return true;
  }

  Sprocket::HostCsr host(const Result& r) const {
    Kokkos::fence();
    Sprocket::HostCsr C;
    C.num_rows = rows_;
    C.num_cols = cols_;
    std::vector<int> row_map(rows_ + 1);
    C.entries.resize(r.nnz);
    std::vector<Scalar> values(r.nnz);
    const auto copy = [](void* to, const void* from, size_t bytes) {
      if (bytes == 0) return;
      const cudaError_t e = cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost);
      if (e != cudaSuccess) throw std::runtime_error(std::string("cudaMemcpy: ") + cudaGetErrorString(e));
    };
    copy(row_map.data(), r.row_map.get(), sizeof(int) * (rows_ + 1));
    copy(C.entries.data(), r.columns.get(), sizeof(int) * r.nnz);
    copy(values.data(), r.values.get(), sizeof(Scalar) * r.nnz);
    C.row_map.assign(row_map.begin(), row_map.end());
    C.values.assign(values.begin(), values.end());
    return C;
  }

  Crs A_, B_;
  int64_t rows_, cols_;
  Scalar one_ = 1, zero_ = 0;
  CusparseHandle handle_;
  CusparseCsr<Crs> matA_, matB_;
  cusparseSpGEMMAlg_t algorithm_ = CUSPARSE_SPGEMM_ALG1;
  bool fell_back_ = false;
  std::unique_ptr<Result> C_, numeric_;
};
#endif  // KOKKOS_ENABLE_CUDA

// ------------------------------------------------------------------------------------------------
// --check

/// The reference C and the tolerance of each of its entries, 64 eps(Scalar) (|A| |B|)_ij.
struct Oracle {
  Sprocket::HostCsr ref;
  std::vector<double> tol;
};

/// B null: B is A.
template <class Scalar>
Oracle make_oracle(const Sprocket::HostCsr& A_host, const Sprocket::HostCsr* B_host) {
  Sprocket::HostCsr a_storage, b_storage;
  const Sprocket::HostCsr& a = rounded_to<Scalar>(A_host, a_storage);
  const Sprocket::HostCsr& b = B_host ? rounded_to<Scalar>(*B_host, b_storage) : a;
  Oracle o;
  o.ref = Sprocket::reference::spgemm(a, b);
  Sprocket::HostCsr abs_a = a;
  for (double& v : abs_a.values) v = std::abs(v);
  Sprocket::HostCsr abs_b;
  if (B_host) {
    abs_b = b;
    for (double& v : abs_b.values) v = std::abs(v);
  }
  const Sprocket::HostCsr abs_c = Sprocket::reference::spgemm(abs_a, B_host ? abs_b : abs_a);
  const double eps = std::numeric_limits<Scalar>::epsilon();
  o.tol.resize(abs_c.values.size());
  for (size_t k = 0; k < o.tol.size(); ++k) o.tol[k] = 64.0 * eps * abs_c.values[k];
  return o;
}

/// host's values (same pattern as the matrix), rounded to the View's scalar type, into values.
template <class Values>
void store_values(const Sprocket::HostCsr& host, const Values& values) {
  using Scalar = typename Values::non_const_value_type;
  auto h = Kokkos::create_mirror_view(values);
  for (size_t k = 0; k < host.values.size(); ++k) h(k) = static_cast<Scalar>(host.values[k]);
  Kokkos::deep_copy(values, h);
}

/// Whether every row's columns strictly increase.
inline bool rows_sorted(const Sprocket::HostCsr& C) {
  for (int64_t i = 0; i < C.num_rows; ++i)
    for (int64_t k = C.row_map[i] + 1; k < C.row_map[i + 1]; ++k)
      if (C.entries[k - 1] >= C.entries[k]) return false;
  return true;
}

/// Compares got with the oracle; fills rec (check, err_norm, max_err_over_tol, c_sorted) and
/// prints the first difference on a mismatch. Rows are sorted first unless the implementation
/// promises sorted rows (which then must come out so: the columns are compared as they are).
inline bool compare(Sprocket::HostCsr got, bool promised_sorted, const Oracle& o, Record& rec, const std::string& what) {
  const bool sorted = rows_sorted(got);
  rec.set("c_sorted", sorted);
  const Sprocket::HostCsr& ref = o.ref;
  std::ostringstream problem;
  if (got.num_rows != ref.num_rows || got.num_cols != ref.num_cols) {
    problem << "C is " << got.num_rows << " x " << got.num_cols << ", the reference " << ref.num_rows << " x "
            << ref.num_cols;
  } else if (got.row_map != ref.row_map) {
    int64_t i = 0;
    while (i + 1 < ref.num_rows && got.row_map[i + 1] - got.row_map[i] == ref.row_map[i + 1] - ref.row_map[i]) ++i;
    problem << "row " << i << " holds " << got.row_map[i + 1] - got.row_map[i] << " entries, the reference's "
            << ref.row_map[i + 1] - ref.row_map[i] << " (nnz(C) " << got.nnz() << ", the reference's " << ref.nnz()
            << ")";
  } else {
    if (!promised_sorted && !sorted) Sprocket::sort_rows(got);
    for (int64_t i = 0; i < ref.num_rows && problem.str().empty(); ++i)
      for (int64_t k = ref.row_map[i]; k < ref.row_map[i + 1]; ++k)
        if (got.entries[k] != ref.entries[k]) {
          problem << "row " << i << ", entry " << k - ref.row_map[i] << ": column " << got.entries[k]
                  << ", the reference's " << ref.entries[k]
                  << (promised_sorted && !sorted ? " (the implementation promises sorted rows; they are not)" : "");
          break;
        }
  }
  if (!problem.str().empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    rec.set("check", false).set("err_norm", nan).set("max_err_over_tol", nan);
    std::cerr << "sprocket-bench: check FAILED for " << what << ": " << problem.str() << "\n";
    return false;
  }
  const CheckResult c = check_against(got.values, ref.values, o.tol);
  return report_check(rec, c, got.values, ref.values, o.tol, what);
}

// ------------------------------------------------------------------------------------------------
// The section

/// One line of the section: a Candidate (what measure_section times) and its implementation.
struct Entry {
  std::shared_ptr<Implementation> impl;
  Candidate candidate;
  Timing numeric;
  bool has_numeric = false;
  bool interleaved = true;
  int64_t peak_bytes = -1, peak_rss_bytes = -1, peak_alloc_bytes = -1;
  std::string peak_source;
};

inline std::string row_counts(const Sprocket::SpgemmRowCounts& r) {
  return "empty " + std::to_string(r.empty) + ", direct " + std::to_string(r.direct) + ", hash " +
         std::to_string(r.hash) + ", dense " + std::to_string(r.dense) + ", global_hash " + std::to_string(r.global_hash);
}

/// Benchmarks one matrix with Scalar / Offset; returns 0, or 1 after a failed check.
template <class Scalar, class Offset>
int run_matrix(type_tag<Scalar>, type_tag<Offset>, const Args& args, const std::string& name,
               const Sprocket::HostCsr& host, double stream_gbps) {
  using Space = Kokkos::DefaultExecutionSpace;
  using MemorySpace = Space::memory_space;
  using Device = Kokkos::Device<Space, MemorySpace>;
  using Crs = KokkosSparse::CrsMatrix<Scalar, int, Device, void, Offset>;
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

#ifdef KOKKOS_ENABLE_CUDA
  // nvcc time: every (Scalar, Offset) instantiates the plan's CUDA kernels (and cuSPARSE's SpGEMM
  // takes 32-bit offsets only), so CUDA builds carry the int offsets only.
  if constexpr (!std::is_same_v<Offset, int>) {
    throw std::runtime_error("--kernel spgemm runs --offset int only in CUDA builds");
  } else
#endif
  {
    const bool square = host.num_rows == host.num_cols;
    // A^T for a rectangular A, once, untimed (as the spECK paper measures A * A^T); B is A otherwise.
    std::unique_ptr<Sprocket::HostCsr> host_b;
    if (!square) host_b = std::make_unique<Sprocket::HostCsr>(Sprocket::transpose(host));
    const Crs A = Sprocket::to_crs<Crs>(host, "sprocket-bench::A");
    const Crs B = square ? A : Sprocket::to_crs<Crs>(*host_b, "sprocket-bench::B");
    const std::vector<std::string> peers = args.peers.empty() ? default_peers() : args.peers;
    const int64_t nnz_a = host.nnz(), nnz_b = square ? nnz_a : host_b->nnz();

    // Products: sum over A's entries of the length of the row of B they reference.
    int64_t products = 0;
    {
      const Sprocket::HostCsr& b = square ? host : *host_b;
      for (int64_t k = 0; k < nnz_a; ++k) products += b.row_length(host.entries[k]);
    }

    std::vector<Entry> entries;
    int64_t nnz_c = -1, available = 0;
    for (const std::string& variant : args.variants) {
      const Sprocket::SpgemmOptions options = options_for(variant);
      // A plan built once for what it chose and its memory accounting (not kept: the timed runs
      // build their own).
      const Timed<Sprocket::SpgemmPlan<Crs>> timed = construct_timed<Sprocket::SpgemmPlan<Crs>>(A, B, options);
      const Sprocket::SpgemmPlan<Crs>& plan = *timed.object;
      if (args.describe)
        info_stream(args) << "describe " << name << " variant " << variant << ":\n" << plan.describe() << "\n";
      nnz_c = plan.nnz();
      available = plan.memory().limit_bytes;
      Entry e;
      const auto ours = std::make_shared<OursSpgemm<Crs>>(A, B, options);
      e.impl = ours;
      e.candidate = candidate("sprocket", variant, {});
      e.candidate.measured_details = [ours] {
        Record r;
        const double warm = ours->warm_plan_seconds();
        if (!std::isnan(warm)) r.set("plan_seconds_warm", warm);
        return r;
      };
      std::string symbolic_why, numeric_why;
      e.candidate.plan_keys.set("symbolic_balance", Sprocket::to_string(plan.symbolic_balance(&symbolic_why)))
          .set("numeric_balance", Sprocket::to_string(plan.numeric_balance(&numeric_why)));
      e.candidate.details.set("plan_seconds", timed.seconds)
          .set("backend", Sprocket::to_string(plan.backend()))
          .set("sorted", plan.resolved_options().sorted)
          .set("symbolic_rows", row_counts(plan.symbolic_rows()))
          .set("numeric_rows", row_counts(plan.numeric_rows()))
          .set("symbolic_balance_reason", symbolic_why)
          .set("numeric_balance_reason", numeric_why);
      e.peak_bytes = plan.memory().peak_bytes;
      e.peak_source = "plan";
      entries.push_back(std::move(e));
    }

    for (const std::string& peer : peers) {
      try {
        if (peer == "kk" || peer == "kk_unsorted") {
          if (const std::string skip = kk_spgemm_skip_reason(); !skip.empty()) throw std::runtime_error(skip);
          // Kokkos Kernels' own algorithms, each tried on this product (full products, released
          // after each); the fastest kept.
          const bool sort = peer == "kk";
          std::vector<Way> ways;
          Kokkos::fence();
          const auto trial_start = std::chrono::steady_clock::now();
          for (const std::string& algorithm : kk::spgemm_algorithms()) {
            std::shared_ptr<kk::Spgemm> op = kk::make_spgemm<Scalar, Offset>(A, B, sort, algorithm);
            ways.push_back({algorithm, [op] {
                              op->full();
                              op->release();
                            }});
          }
          std::string trials;
          const size_t best = fastest_way(ways, &trials);
          Entry e;
          e.impl = std::make_shared<KkImplementation>(kk::make_spgemm<Scalar, Offset>(A, B, sort, ways[best].name), sort);
          Kokkos::fence();
          const double trial_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - trial_start).count();
          e.candidate = candidate(peer, "default", {}, -1,
                                  "Kokkos Kernels, View-level spgemm_symbolic + spgemm_numeric with " + ways[best].name +
                                      ", the fastest of " + join(kk::spgemm_algorithms()) +
                                      (sort ? ", then KokkosKernels::Impl::sort_crs_matrix (timed)"
                                            : ", output left unsorted"));
          e.candidate.peer_algorithm = ways[best].name;
          e.candidate.details.set("peer_trials", trials).set("peer_march", kk::peers_march());
          count_trial_as_setup(e.candidate, -1, trial_seconds);
          entries.push_back(std::move(e));
        } else if (is_mkl_peer(peer)) {
#if defined(SPROCKET_BENCH_HAVE_MKL)
          // MKL's two products, each tried on this one (full products, released after each), the
          // faster kept; mkl sorts its output inside the time, mkl_unsorted leaves it as it comes.
          const bool sort = peer == "mkl";
          mkl::prepare_threads();
          const auto [a_csr, a_arrays] = mkl::csr_of(A);
          const auto [b_csr, b_arrays] = mkl::csr_of(B);
          const auto arrays = std::make_shared<std::pair<mkl::Arrays, mkl::Arrays>>(a_arrays, b_arrays);
          const auto trial_start = std::chrono::steady_clock::now();  // the handles, the trial, the kept one
          std::vector<Way> ways;
          for (const std::string& algorithm : mkl::spgemm_algorithms()) {
            std::shared_ptr<mkl::SpgemmOp> op = mkl::make_spgemm(a_csr, square ? nullptr : &b_csr, sort, algorithm);
            ways.push_back({algorithm, [op] {
                              op->apply();
                              op->release();
                            }});
          }
          std::string trials;
          const size_t best = fastest_way(ways, &trials);
          std::shared_ptr<mkl::SpgemmOp> op =
              mkl::make_spgemm(a_csr, square ? nullptr : &b_csr, sort, ways[best].name);
          const double trial_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - trial_start).count();
          Entry e;
          e.impl = std::make_shared<MklImplementation>(op, sort, arrays);
          e.candidate = candidate(peer, "default", {}, -1, op->note());
          e.candidate.peer_algorithm = ways[best].name;
          e.candidate.details.set("peer_trials", trials);
          count_trial_as_setup(e.candidate, -1, trial_seconds);
          mkl::describe(e.candidate, a_arrays.copy_seconds + (square ? 0.0 : b_arrays.copy_seconds));
          entries.push_back(std::move(e));
#else
          mkl_not_built(peer);
#endif
        } else if (is_graphblas_peer(peer)) {
          std::string skip = graphblas_skip_reason(host, 0.0);
          if (skip.empty() && host_b) skip = graphblas_skip_reason(*host_b, 0.0);
          if (graphblas::skipped(peer, name, skip)) continue;
          const Sprocket::HostCsr a_rounded = graphblas::rounded<Scalar>(host);
          const Sprocket::HostCsr b_rounded = host_b ? graphblas::rounded<Scalar>(*host_b) : Sprocket::HostCsr();
          std::shared_ptr<graphblas::SpgemmOp> op = graphblas::spgemm(
              graphblas::flavor_of(peer), graphblas::config<Scalar>(), a_rounded, square ? nullptr : &b_rounded);
          Entry e;
          e.impl = std::make_shared<GraphblasImplementation>(op);
          e.candidate = graphblas::candidate_of(peer, op);
          e.candidate.apply = {};
          entries.push_back(std::move(e));
        } else if (peer == "cusparse") {
#ifdef KOKKOS_ENABLE_CUDA
          if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
            // ALG1, ALG2 and ALG3 each set up and tried (full products, released after each; one
            // that cannot run the product is left out), the fastest kept.
            std::vector<std::shared_ptr<CusparseSpgemm<Crs>>> ops;
            std::vector<Way> ways;
            double setup = -1;
            std::string failures;
            for (const cusparseSpGEMMAlg_t algorithm : {CUSPARSE_SPGEMM_ALG1, CUSPARSE_SPGEMM_ALG2, CUSPARSE_SPGEMM_ALG3}) {
              try {
                const Timed<CusparseSpgemm<Crs>> cs = construct_timed<CusparseSpgemm<Crs>>(A, B, algorithm);
                cs.object->full();  // untimed: falls back to ALG3 where the algorithm runs out of memory
                Kokkos::fence();
                cs.object->release();
                if (setup < 0) setup = cs.seconds;
                const auto op = cs.object;
                ops.push_back(op);
                ways.push_back({op->variant(), [op] {
                                  op->full();
                                  op->release();
                                }});
              } catch (const std::exception& failure) {
                failures += std::string(failures.empty() ? "" : "; ") + failure.what();
              }
            }
            if (ways.empty()) throw std::runtime_error("cusparse: no SpGEMM algorithm ran: " + failures);
            std::string trials;
            size_t best = 0;
            const double trial_seconds = seconds_of([&] {
              best = fastest_way(ways, &trials);
              Kokkos::fence();
            });
            const auto op = ops[best];
            op->full();
            Kokkos::fence();
            Entry e;
            e.impl = op;
            e.peak_bytes = op->peak_bytes();
            e.peak_source = "buffers";
            op->release();
            e.candidate = candidate("cusparse", "default", {}, setup, op->note());
            e.candidate.peer_algorithm = op->variant();
            e.candidate.details.set("peer_trials", trials);
            count_trial_as_setup(e.candidate, setup, trial_seconds);
            if (!failures.empty()) e.candidate.details.set("peer_failures", failures);
            entries.push_back(std::move(e));
            continue;
          }
#endif
          throw cusparse_needs_cuda<Space>();
        }
      } catch (const std::exception& e) {
        // A peer that cannot run this product (out of memory, ...) leaves the others running.
        std::cerr << "sprocket-bench: " << peer << " skipped on " << name << ": " << e.what() << "\n";
      }
    }
    for (Entry& e : entries) {
      if (corrupts(e.candidate.impl)) e.impl = std::make_shared<Corrupted>(e.impl);
      const std::shared_ptr<Implementation> impl = e.impl;
      e.candidate.apply = [impl] { impl->full(); };
      e.candidate.release = [impl] { impl->release(); };
    }
    const auto what = [&](const Entry& e) { return e.candidate.impl + " " + e.candidate.variant + " on " + name; };
    // Builds an implementation's numeric state; a peer that cannot (out of memory, ...) is reported
    // and goes without numeric_seconds, ours throws.
    const auto prepare_numeric = [&](Entry& e) {
      try {
        e.impl->prepare_numeric();
        return true;
      } catch (const std::exception& ex) {
        if (e.candidate.impl == "sprocket") throw;
        e.impl->release_numeric();
        std::cerr << "sprocket-bench: no numeric re-run for " << what(e) << ": " << ex.what() << "\n";
        return false;
      }
    };

    // --check: one implementation at a time, its full product, then two numeric re-runs on changed
    // values of A (and of B = A^T): a re-run that leaves C as it was, or computes it from values
    // read before, fails. Each re-run writes a poisoned C (NaN), and both are checked: the timed
    // re-runs are later ones, and on CUDA our plan's first re-run records where each product lands
    // in C while the later ones read those positions. A's and B's values are restored afterwards;
    // the oracles are dropped before the timings.
    std::vector<Record> checks(entries.size());
    bool all_ok = true;
    if (args.check) {
      const Oracle oracle = make_oracle<Scalar>(host, host_b.get());
      Sprocket::HostCsr changed = host;
      for (size_t k = 0; k < changed.values.size(); ++k) changed.values[k] = input_value(k, 11);
      std::unique_ptr<Sprocket::HostCsr> changed_b;
      if (!square) changed_b = std::make_unique<Sprocket::HostCsr>(Sprocket::transpose(changed));
      const Oracle changed_oracle = make_oracle<Scalar>(changed, changed_b.get());
      // A's (and B's) values from a (and b), into the bench's matrices and impl's own copies.
      const auto use_values = [&](Implementation& impl, const Sprocket::HostCsr& a, const Sprocket::HostCsr* b) {
        Sprocket::HostCsr a_storage, b_storage;
        const Sprocket::HostCsr& a_rounded = rounded_to<Scalar>(a, a_storage);
        const Sprocket::HostCsr* b_rounded = b ? &rounded_to<Scalar>(*b, b_storage) : nullptr;
        store_values(a_rounded, A.values);
        if (b_rounded) store_values(*b_rounded, B.values);
        impl.use_operand_values(a_rounded, b_rounded);
      };
      for (size_t c = 0; c < entries.size(); ++c) {
        Implementation& impl = *entries[c].impl;
        impl.full();
        Kokkos::fence();
        bool ok = compare(impl.result(), impl.sorted(), oracle, checks[c], what(entries[c]));
        impl.release();
        if (prepare_numeric(entries[c])) {
          use_values(impl, changed, changed_b.get());
          for (const char* rerun : {"first", "second"}) {
            impl.fill_c_values(true, std::numeric_limits<double>::quiet_NaN());
            impl.numeric();
            Kokkos::fence();
            Record numeric_check;
            if (!compare(impl.numeric_result(), impl.sorted(), changed_oracle, numeric_check,
                         what(entries[c]) + " (" + rerun + " numeric re-run, on changed values)")) {
              checks[c].merge(numeric_check);
              ok = false;
            }
            impl.after_numeric();
          }
          use_values(impl, host, host_b.get());
          impl.release_numeric();
        }
        all_ok &= ok;
      }
    }

    // Memory of one full product each (after a warm-up run, or the check's).
    for (Entry& e : entries) {
      Implementation& impl = *e.impl;
      if (!args.check) {
        impl.full();
        impl.release();
        Kokkos::fence();
      }
      if (on_host || is_graphblas_peer(e.candidate.impl)) {
        e.peak_rss_bytes = resident_peak_of([&] { impl.full(); });
        impl.release();
        if (e.peak_source.empty()) {
          e.peak_bytes = e.peak_rss_bytes;
          e.peak_source = "rss";
        }
      } else if (e.candidate.impl == "sprocket" || e.candidate.impl.rfind("kk", 0) == 0) {
        e.peak_alloc_bytes = kokkos_allocation_peak_of<MemorySpace>([&] { impl.full(); });
        impl.release();
        if (e.peak_source.empty()) {
          e.peak_bytes = e.peak_alloc_bytes;
          e.peak_source = "kokkos_allocations";
        }
      }
    }

    // Numeric re-runs: interleaved when every state fits at once, else one implementation at a time.
    {
      // Each state holds about what one full product needs at its peak (C included); C alone where
      // no peak was measured.
      double held = 0;
      for (const Entry& e : entries)
        held += std::max(static_cast<double>(e.peak_bytes), static_cast<double>(nnz_c) * (sizeof(int) + sizeof(Scalar)));
      const bool together = available <= 0 || held <= 0.8 * static_cast<double>(available);
      const auto time_numeric = [&](const std::vector<size_t>& which) {
        std::vector<size_t> ready;
        for (size_t c : which)
          if (prepare_numeric(entries[c])) ready.push_back(c);
        std::vector<std::function<void()>> fns, after;
        for (size_t c : ready) {
          const std::shared_ptr<Implementation> impl = entries[c].impl;
          fns.push_back([impl] { impl->numeric(); });
          after.push_back([impl] { impl->after_numeric(); });
        }
        const std::vector<Timing> t = time_interleaved(fns, args.warmup, args.repeat, after, args.consecutive);
        for (size_t r = 0; r < ready.size(); ++r) {
          Entry& e = entries[ready[r]];
          e.numeric = t[r];
          e.has_numeric = true;
          e.interleaved = together;
          e.impl->release_numeric();
        }
      };
      std::vector<size_t> all(entries.size());
      for (size_t c = 0; c < entries.size(); ++c) all[c] = c;
      if (together) {
        time_numeric(all);
      } else {
        info_stream(args) << "sprocket-bench: " << name << ": numeric re-runs timed one implementation at a time ("
                          << human_bytes(held) << " of states would not fit in " << human_bytes(available) << ")\n";
        for (size_t c : all) time_numeric({c});
      }
    }

    // The section's lines.
    Section section("spgemm", name, host.num_rows, host.num_cols, nnz_a);
    const double row_bytes = sizeof(Offset), entry_bytes = sizeof(int) + sizeof(Scalar);
    section.bytes = (static_cast<double>(host.num_rows + 1) * row_bytes + static_cast<double>(nnz_a) * entry_bytes) +
                    (static_cast<double>((square ? host.num_rows : host.num_cols) + 1) * row_bytes +
                     static_cast<double>(nnz_b) * entry_bytes) +
                    (static_cast<double>(host.num_rows + 1) * row_bytes + static_cast<double>(nnz_c) * entry_bytes);
    section.flops = 2.0 * static_cast<double>(products);
    for (const std::string& peer : peers)
      for (const Entry& e : entries)
        if (e.candidate.impl == peer) {
          section.peers.push_back(peer);
          break;
        }
    section.keys.set("form", square ? "A*A" : "A*A^T");
    section.problem_keys.set("products", products).set("nnz_c", nnz_c);
    std::ostringstream middle;
    middle << "C = " << (square ? "A*A" : "A*A^T") << ", products " << products << ", nnz(C) " << nnz_c << ", "
           << human_bytes(section.bytes) << " per product, ";
    section.title_middle = middle.str();
    section.extra_columns = {{"symbolic_balance", "symbolic"},
                             {"numeric_balance", "numeric"},
                             {"numeric_seconds", "numeric_s", "%.4e"}};
    for (const std::string& peer : section.peers)
      section.extra_columns.push_back({"numeric_ratio_vs_" + peer, "numeric_vs_" + peer, "%.3f"});
    section.extra_columns.push_back({"peak_bytes", "peak_bytes", "%.3g"});
    section.extra_columns.push_back({"peak_rss_bytes", "rss_bytes", "%.3g"});

    // Numeric and memory keys, after the line's own details (plan_keys / details of the candidate).
    const auto numeric_of = [&](const std::string& impl) {
      for (const Entry& e : entries)
        if (e.candidate.impl == impl && e.has_numeric) return e.numeric.median;
      return std::nan("");
    };
    std::vector<Candidate> candidates;
    for (Entry& e : entries) {
      Record keys;
      if (e.has_numeric) {
        keys.set("numeric_seconds", e.numeric.median)
            .set("numeric_gflops", section.flops / e.numeric.median * 1e-9);
        if (e.candidate.impl == "sprocket")
          for (const std::string& peer : section.peers)
            if (!std::isnan(numeric_of(peer))) keys.set("numeric_ratio_vs_" + peer, numeric_of(peer) / e.numeric.median);
        keys.set("numeric_seconds_min", e.numeric.min)
            .set("numeric_seconds_max", e.numeric.max)
            .set("numeric_interleaved", e.interleaved);
      }
      if (e.peak_bytes >= 0) keys.set("peak_bytes", e.peak_bytes).set("peak_source", e.peak_source);
      if (e.peak_rss_bytes >= 0) keys.set("peak_rss_bytes", e.peak_rss_bytes);
      if (e.peak_alloc_bytes >= 0) keys.set("peak_alloc_bytes", e.peak_alloc_bytes);
      e.candidate.details = keys.merge(e.candidate.details);
      candidates.push_back(e.candidate);
    }
    host_b.reset();

    std::function<bool(std::vector<Record>&)> check;
    if (args.check)
      check = [&](std::vector<Record>& out) {
        out = checks;
        return all_ok;
      };
    return measure_section<Scalar, Offset, Space>(args, section, candidates, check, stream_gbps);
  }
}

}  // namespace spgemm

KernelEntry spgemm_entry() {
  KernelEntry e = matrix_kernel_entry(
      "spgemm",
      "C = A*A (square A) or A*A^T: SpgemmPlan variants vs kk (Kokkos Kernels SPGEMM_KK, output sorted afterwards), "
      "kk_unsorted, mkl (mkl_sparse_spmm or sp2m, + mkl_sparse_order), mkl_unsorted, graphblas (GrB_mxm), cusparse "
      "(cusparseSpGEMM, CUDA); every line a full product plus "
      "numeric_seconds (the numeric-only re-run) and peak_bytes; default --compare kk,kk_unsorted (+graphblas where "
      "built, +cusparse on CUDA)",
      spgemm::variant_names(), spgemm::variant_names(),
      {spgemm::kk_peer(), spgemm::kk_unsorted_peer(), mkl_peer("mkl"), mkl_peer("mkl_unsorted"), graphblas_peer(),
       graphblas9_peer(), cusparse_peer()},
      "sprocket-bench --kernel spgemm --matrix gen:rmat:scale=16 --compare kk,graphblas --check",
      [](auto... a) { return spgemm::run_matrix(a...); });
  const auto run = e.run;
  e.run = [run](const Args& args) {
    if (args.alpha != 1.0 || args.beta != 0.0) {
      std::cerr << "sprocket-bench: --alpha and --beta do not apply to --kernel spgemm (C = A*B)\n"
                   "(sprocket-bench --help for usage)\n";
      return 2;
    }
    if (args.peers.empty() && !graphblas_peer().available) info_stream(args) << graphblas_absent_note() << "\n";
#ifdef __GLIBC__
    // Fixed, for every implementation alike: see "Each candidate's C is freed" at the top.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
    return run(args);
  };
  return e;
}

}  // namespace sprocket_bench
