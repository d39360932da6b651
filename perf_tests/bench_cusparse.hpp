#pragma once
// sprocket-bench: what the cuSPARSE peers of the matrix kernels share (--compare cusparse): the
// registry entry of the peer, the status check, and in CUDA builds the handle, the CSR descriptor
// on a matrix's own arrays and the helpers that feed cuSPARSE Kokkos' arrays (const pointers made
// mutable for its descriptors, index widening).
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#ifdef KOKKOS_ENABLE_CUDA
#include <cusparse.h>
#endif

#include "bench_common.hpp"

namespace sprocket_bench {

/// The cusparse entry of a kernel's peer list: available where the default execution space is
/// Kokkos::Cuda.
inline Peer cusparse_peer() {
#ifdef KOKKOS_ENABLE_CUDA
  return {"cusparse", std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>,
          "cusparse needs Kokkos::Cuda as the default execution space"};
#else
  return {"cusparse", false, "cusparse is only available in CUDA builds (this build runs on " +
                                 std::string(Kokkos::DefaultExecutionSpace::name()) + ")"};
#endif
}

/// What a kernel's run reports when --compare cusparse reaches a space other than Kokkos::Cuda.
template <class Space>
std::runtime_error cusparse_needs_cuda() {
  return std::runtime_error("cusparse needs Kokkos::Cuda as the default execution space (it is " +
                            std::string(Space::name()) + ")");
}

#ifdef KOKKOS_ENABLE_CUDA
inline void cusparse_check(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuSPARSE: ") + call + ": " + cusparseGetErrorString(status));
}
#define SPROCKET_BENCH_CUSPARSE(call) ::sprocket_bench::cusparse_check((call), #call)

template <class T>
void* mutable_ptr(const T* p) {
  return const_cast<void*>(static_cast<const void*>(p));
}

/// out(k) = in(k), widening (or narrowing) indices (a namespace-scope functor: nvcc rejects
/// private class members as kernel template arguments).
template <class Out, class In>
struct WidenColumns {
  Out out;
  In in;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t k) const { out(k) = in(k); }
};

/// A cuSPARSE handle whose work goes to the default Kokkos::Cuda instance's stream.
class CusparseHandle {
 public:
  CusparseHandle() {
    SPROCKET_BENCH_CUSPARSE(cusparseCreate(&handle_));
    SPROCKET_BENCH_CUSPARSE(cusparseSetStream(handle_, Kokkos::Cuda().cuda_stream()));
  }
  CusparseHandle(const CusparseHandle&) = delete;
  CusparseHandle& operator=(const CusparseHandle&) = delete;
  ~CusparseHandle() {
    if (handle_) cusparseDestroy(handle_);
  }
  cusparseHandle_t get() const { return handle_; }

 private:
  cusparseHandle_t handle_ = nullptr;
};

/// The cudaDataType of a scalar type (float or double).
template <class Scalar>
inline constexpr cudaDataType cusparse_data_type = std::is_same_v<Scalar, float> ? CUDA_R_32F : CUDA_R_64F;

/// A CSR matrix's generic-API descriptor on its own arrays, made ready by prepare(descriptor) (the
/// algorithm's buffer and preprocessing), which returns a cuSPARSE status. 64-bit offsets go with
/// 32-bit columns; should cuSPARSE refuse that pairing (NOT_SUPPORTED from the creation or from
/// prepare), the columns are widened to a 64-bit copy, prepare runs again and note() says so. Any
/// other failure throws.
template <class Crs>
class CusparseCsr {
 public:
  using Scalar = typename Crs::non_const_value_type;
  using Offset = typename Crs::non_const_size_type;

  template <class Prepare>
  CusparseCsr(const Crs& A, Prepare&& prepare) {
    constexpr cusparseIndexType_t offset_type = sizeof(Offset) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
    cusparseStatus_t status = create(A, offset_type, CUSPARSE_INDEX_32I, mutable_ptr(A.graph.entries.data()));
    if (status == CUSPARSE_STATUS_SUCCESS) status = prepare(descriptor_);
    if (status == CUSPARSE_STATUS_NOT_SUPPORTED && offset_type == CUSPARSE_INDEX_64I) {
      wide_entries_ = Kokkos::View<int64_t*, Kokkos::CudaSpace>("sprocket-bench::cusparse::entries64", A.nnz());
      Kokkos::parallel_for("sprocket-bench::cusparse::widen",
                           Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, A.nnz()),
                           WidenColumns<decltype(wide_entries_), typename Crs::index_type>{wide_entries_,
                                                                                           A.graph.entries});
      Kokkos::fence();
      note_ = "cuSPARSE refused 64-bit offsets with 32-bit columns: columns widened to 64 bits";
      status = create(A, offset_type, CUSPARSE_INDEX_64I, wide_entries_.data());
      if (status == CUSPARSE_STATUS_SUCCESS) status = prepare(descriptor_);
    }
    SPROCKET_BENCH_CUSPARSE(status);
  }
  CusparseCsr(const CusparseCsr&) = delete;
  CusparseCsr& operator=(const CusparseCsr&) = delete;
  ~CusparseCsr() {
    if (descriptor_) cusparseDestroySpMat(descriptor_);
  }
  cusparseSpMatDescr_t get() const { return descriptor_; }
  const std::string& note() const { return note_; }

 private:
  cusparseStatus_t create(const Crs& A, cusparseIndexType_t offset_type, cusparseIndexType_t column_type,
                          void* columns) {
    if (descriptor_) cusparseDestroySpMat(descriptor_);
    descriptor_ = nullptr;
    return cusparseCreateCsr(&descriptor_, A.numRows(), A.numCols(), A.nnz(), mutable_ptr(A.graph.row_map.data()),
                             columns, mutable_ptr(A.values.data()), offset_type, column_type,
                             CUSPARSE_INDEX_BASE_ZERO, cusparse_data_type<Scalar>);
  }

  cusparseSpMatDescr_t descriptor_ = nullptr;
  Kokkos::View<int64_t*, Kokkos::CudaSpace> wide_entries_;
  std::string note_;
};
#endif  // KOKKOS_ENABLE_CUDA

}  // namespace sprocket_bench
