#pragma once
// Kokkos Kernels' SpGEMM as a sprocket-bench peer (bench_kk_peers.hpp declares make_spgemm),
// instantiated by files generated from bench_kk_instance.cpp.in (SPROCKET_BENCH_KK_SPGEMM), one per
// (Scalar, Offset) pair; CUDA builds run SpGEMM with int offsets only (bench_spgemm.cpp) and
// generate none for size_t. Apart from the other peers (bench_kk_peers_impl.hpp) for the same
// reason as they are apart from each other: a few minutes of nvcc per object at most.
#include "bench_kk_peers.hpp"

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>
#if KOKKOS_VERSION >= 40000
#include <KokkosSparse_SortCrs.hpp>  // Kokkos Kernels 4 moved the sort out of SparseUtils (4.2)
#else
#include <KokkosKernels_SparseUtils.hpp>
#endif
#include <KokkosSparse_spgemm.hpp>

#include <memory>
#include <stdexcept>
#include <string>

#include "Sprocket_Crs.hpp"

namespace sprocket_bench {
namespace kk {

// The View-level SpGEMM: KokkosSparse::Experimental in 3.4, promoted to KokkosSparse in 4.
#if KOKKOS_VERSION >= 40000
namespace kk_spgemm = KokkosSparse;
#else
namespace kk_spgemm = KokkosSparse::Experimental;
#endif

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
  void fill_c_values(bool numeric_c, double value) override {
    Kokkos::deep_copy((numeric_c ? numeric_C_ : C_).values, static_cast<Scalar>(value));
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

#define SPROCKET_BENCH_KK_SPGEMM(S, O)                                                                             \
  template std::unique_ptr<Spgemm> make_spgemm<S, O>(const Crs<S, O>&, const Crs<S, O>&, bool, const std::string&);

}  // namespace kk
}  // namespace sprocket_bench
