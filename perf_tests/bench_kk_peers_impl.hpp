#pragma once
// The Kokkos peers' definitions (bench_kk_peers.hpp declares them), instantiated for one (Scalar,
// Offset) pair per translation unit: bench_kk_peers.cpp (double / int, and the peers' untemplated
// functions), bench_kk_peers_double_size_t.cpp, bench_kk_peers_float_int.cpp and
// bench_kk_peers_float_size_t.cpp (SPROCKET_BENCH_TYPES=all). Kokkos Kernels' kernels for the four
// pairs in one file were the slowest object of the CUDA build by far
// (perf_tests/results/build-times-bench-peers-2026-11-28.md); a pair per file compiles on both
// cores at once. Host builds compile these files for this machine's -march (perf_tests/CMakeLists.txt).
#include "bench_kk_peers.hpp"

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosKernels_Controls.hpp>
#include <KokkosKernels_Handle.hpp>
#if KOKKOS_VERSION >= 40000
#include <KokkosSparse_SortCrs.hpp>  // Kokkos Kernels 4 moved the sort out of SparseUtils (4.2)
#else
#include <KokkosKernels_SparseUtils.hpp>
#endif
#include <KokkosSparse_spgemm.hpp>
#include <KokkosSparse_spmv.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <type_traits>

#ifdef KOKKOS_ENABLE_OPENMP
#include <omp.h>
#endif

#include "Sprocket_Crs.hpp"

namespace sprocket_bench {
namespace kk {

// The View-level SpGEMM: KokkosSparse::Experimental in 3.4, promoted to KokkosSparse in 4.
#if KOKKOS_VERSION >= 40000
namespace kk_spgemm = KokkosSparse;
#else
namespace kk_spgemm = KokkosSparse::Experimental;
#endif

template <class Scalar, class Offset>
std::vector<Way> spmv_ways(const Crs<Scalar, Offset>& A, Scalar alpha, const Vec<Scalar>& x, Scalar beta,
                           const Vec<Scalar>& y) {
  std::vector<Way> ways;
  ways.push_back({"default", [A, alpha, x, beta, y] { KokkosSparse::spmv("N", alpha, A, x, beta, y); }});
#if KOKKOS_VERSION >= 40000
  // Kokkos Kernels 4: the handle, kept across applies as its users keep it, with its native
  // kernels and its own merge path (the Controls of 3.4 are deprecated there).
  using Handle = KokkosSparse::SPMVHandle<Space, Crs<Scalar, Offset>, Vec<Scalar>, Vec<Scalar>>;
  for (const auto& [name, algorithm] :
       {std::pair<const char*, KokkosSparse::SPMVAlgorithm>{"native", KokkosSparse::SPMV_NATIVE},
        std::pair<const char*, KokkosSparse::SPMVAlgorithm>{"merge_path", KokkosSparse::SPMV_NATIVE_MERGE_PATH}}) {
    const auto handle = std::make_shared<Handle>(algorithm);
    ways.push_back({std::string("handle_") + name,
                    [handle, A, alpha, x, beta, y] { KokkosSparse::spmv(handle.get(), "N", alpha, A, x, beta, y); }});
  }
#else
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible) {
    for (const char* schedule : {"static", "dynamic"}) {
      KokkosKernels::Experimental::Controls controls;
      controls.setParameter("schedule", schedule);
      ways.push_back({std::string("schedule_") + schedule,
                      [controls, A, alpha, x, beta, y] { KokkosSparse::spmv(controls, "N", alpha, A, x, beta, y); }});
    }
  }
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  // The raw OpenMP kernel runs only for doubles, on a graph partitioned into one block per OpenMP
  // thread, with x and y 64-byte aligned; Kokkos Kernels falls back silently otherwise, so the way
  // is offered only where every condition holds.
  if constexpr (std::is_same_v<Space, Kokkos::OpenMP> && std::is_same_v<Scalar, double>) {
    const bool aligned = reinterpret_cast<uintptr_t>(x.data()) % 64 == 0 && reinterpret_cast<uintptr_t>(y.data()) % 64 == 0;
    if (aligned && A.numRows() >= omp_get_max_threads()) {
      Crs<Scalar, Offset> partitioned = A;
      partitioned.graph.create_block_partitioning(omp_get_max_threads());
      ways.push_back({"raw_openmp_partitioned", [partitioned, alpha, x, beta, y] {
                        KokkosSparse::spmv("N", alpha, partitioned, x, beta, y);
                      }});
    }
  }
#endif
  return ways;
}

template <class Scalar, class Offset, class Layout>
void spmm(const Crs<Scalar, Offset>& A, Scalar alpha, const Mat<Scalar, Layout>& B, Scalar beta,
          const Mat<Scalar, Layout>& C) {
  KokkosSparse::spmv("N", alpha, A, B, beta, C);
}

template <class Scalar, class Offset, class Layout>
void kokkos_team_sddmm(const Crs<Scalar, Offset>& S, const Mat<Scalar, Layout>& A, const Mat<Scalar, Layout>& B,
                       Scalar alpha, Scalar beta, const typename Crs<Scalar, Offset>::values_type& out) {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const auto row_map = S.graph.row_map;
  const auto entries = S.graph.entries;
  const int64_t K = A.extent(1);
  int vector_length = 1;
  while (vector_length < K && vector_length < 32) vector_length *= 2;
  vector_length = std::min(vector_length, Policy::vector_length_max());
  Kokkos::parallel_for(
      "sprocket-bench::sddmm::kokkos_team", Policy(S.numRows(), Kokkos::AUTO, vector_length),
      KOKKOS_LAMBDA(const Member& team) {
        const int64_t i = team.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, row_map(i), row_map(i + 1)), [&](const Offset k) {
          const int64_t j = entries(k);
          Scalar dot = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, K), [&](const int64_t p, Scalar& sum) { sum += A(i, p) * B(j, p); },
              dot);
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            out(k) = beta == Scalar(0) ? alpha * dot : alpha * dot + beta * out(k);
          });
        });
      });
}

namespace {

inline KokkosSparse::SPGEMMAlgorithm spgemm_algorithm(const std::string& name) {
  if (name == "kk") return KokkosSparse::SPGEMM_KK;
  if (name == "kk_dense") return KokkosSparse::SPGEMM_KK_DENSE;
  if (name == "kk_memory") return KokkosSparse::SPGEMM_KK_MEMORY;
  if (name == "kk_lp") return KokkosSparse::SPGEMM_KK_LP;
  throw std::invalid_argument("unknown Kokkos Kernels SpGEMM algorithm \"" + name + "\"");
}

template <class Scalar, class Offset>
class KkSpgemm final : public Spgemm {
 public:
  using Matrix = Crs<Scalar, Offset>;
  using MemorySpace = Space::memory_space;
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, int, Scalar, Space, MemorySpace, MemorySpace>;
  using RowMap = typename Matrix::row_map_type::non_const_type;
  using Entries = typename Matrix::index_type::non_const_type;
  using Values = typename Matrix::values_type::non_const_type;

  KkSpgemm(const Matrix& A, const Matrix& B, bool sort, const std::string& algorithm)
      : A_(A), B_(B), sort_(sort), algorithm_(spgemm_algorithm(algorithm)) {}

  void full() override {
    Handle handle;
    C_ = Product();
    symbolic(handle, C_);
    numeric_pass(handle, C_);
    handle.destroy_spgemm_handle();
  }
  void release() override { C_ = Product(); }
  Sprocket::HostCsr result() const override { return host(C_); }
  void prepare_numeric() override {
    handle_ = std::make_unique<Handle>();
    numeric_C_ = Product();
    symbolic(*handle_, numeric_C_);
    numeric_pass(*handle_, numeric_C_);
  }
  void numeric() override { numeric_pass(*handle_, numeric_C_); }
  Sprocket::HostCsr numeric_result() const override { return host(numeric_C_); }
  void release_numeric() override {
    numeric_C_ = Product();
    handle_.reset();
  }

 private:
  struct Product {
    RowMap row_map;
    Entries entries;
    Values values;
  };

  /// Handle, symbolic pass and C's allocation, as KokkosSparse::spgemm_symbolic (matrix level) does.
  void symbolic(Handle& handle, Product& C) const {
    handle.create_spgemm_handle(algorithm_);
    C.row_map = RowMap(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::kk::C::row_map"), A_.numRows() + 1);
    kk_spgemm::spgemm_symbolic(&handle, A_.numRows(), B_.numRows(), B_.numCols(), A_.graph.row_map,
                                                A_.graph.entries, false, B_.graph.row_map, B_.graph.entries, false,
                                                C.row_map);
    const size_t nnz = handle.get_spgemm_handle()->get_c_nnz();
    C.entries = Entries(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::kk::C::entries"), nnz);
    C.values = Values(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::kk::C::values"), nnz);
  }
  void numeric_pass(Handle& handle, Product& C) const {
    kk_spgemm::spgemm_numeric(&handle, A_.numRows(), B_.numRows(), B_.numCols(), A_.graph.row_map,
                                               A_.graph.entries, A_.values, false, B_.graph.row_map, B_.graph.entries,
                                               B_.values, false, C.row_map, C.entries, C.values);
    if (sort_) {
#if KOKKOS_VERSION >= 40000
      // Kokkos Kernels 4's public sort; the column count lets it choose its bucket sort.
      KokkosSparse::sort_crs_matrix(Space(), C.row_map, C.entries, C.values, static_cast<int>(B_.numCols()));
#else
      KokkosKernels::Impl::sort_crs_matrix<Space>(C.row_map, C.entries, C.values);
#endif
    }
  }
  Sprocket::HostCsr host(const Product& C) const {
    const Matrix M("sprocket-bench::kk::C", A_.numRows(), B_.numCols(), static_cast<Offset>(C.entries.extent(0)),
                   C.values, C.row_map, C.entries);
    return Sprocket::to_host_csr(M);
  }

  Matrix A_, B_;
  bool sort_;
  KokkosSparse::SPGEMMAlgorithm algorithm_;
  Product C_, numeric_C_;
  std::unique_ptr<Handle> handle_;
};

}  // namespace

template <class Scalar, class Offset>
std::unique_ptr<Spgemm> make_spgemm(const Crs<Scalar, Offset>& A, const Crs<Scalar, Offset>& B, bool sort,
                                    const std::string& algorithm) {
  return std::make_unique<KkSpgemm<Scalar, Offset>>(A, B, sort, algorithm);
}

#define SPROCKET_BENCH_KK_PEERS_LAYOUT(S, O, L)                                                                     \
  template void spmm<S, O, Kokkos::L>(const Crs<S, O>&, S, const Mat<S, Kokkos::L>&, S, const Mat<S, Kokkos::L>&); \
  template void kokkos_team_sddmm<S, O, Kokkos::L>(const Crs<S, O>&, const Mat<S, Kokkos::L>&,                     \
                                                   const Mat<S, Kokkos::L>&, S, S,                                 \
                                                   const typename Crs<S, O>::values_type&);
#define SPROCKET_BENCH_KK_PEERS(S, O)                                                                              \
  template std::vector<Way> spmv_ways<S, O>(const Crs<S, O>&, S, const Vec<S>&, S, const Vec<S>&);              \
  SPROCKET_BENCH_KK_PEERS_LAYOUT(S, O, LayoutLeft)                                                                 \
  SPROCKET_BENCH_KK_PEERS_LAYOUT(S, O, LayoutRight)
#define SPROCKET_BENCH_KK_SPGEMM(S, O)                                                                             \
  template std::unique_ptr<Spgemm> make_spgemm<S, O>(const Crs<S, O>&, const Crs<S, O>&, bool, const std::string&);

}  // namespace kk
}  // namespace sprocket_bench
