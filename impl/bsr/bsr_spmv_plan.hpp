#pragma once
// BsrSpmvPlan: analysis (kernel choice and checks, host partition, padded copy) at construction;
// apply() dispatches. Declared in Sprocket_BsrSpmv.hpp. Device code lives in free functions
// (nvcc refuses extended lambdas in private member functions).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <sstream>

#include "impl/bsr/bsr_spmv_dispatch.hpp"
#include "impl/common/host_analysis.hpp"

namespace Sprocket {

/// Whether a kernel can run a block size at all (CUDA kernels have lane-mapping limits).
bool bsr_kernel_supports(BsrKernel kernel, int block_size);

namespace Impl {

/// Copies A's values into blocks whose rows are padded to a multiple of 8 scalars (zeros).
template <class ExecSpace, class Padded, class Values>
void bsr_pad_values(const ExecSpace& space, const Padded& padded, const Values& values, int64_t b) {
  const int64_t row_stride = (b + 7) / 8 * 8;
  Kokkos::parallel_for(
      "Sprocket::bsr_spmv::pad_values", Kokkos::RangePolicy<ExecSpace>(space, 0, padded.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) {
        const int64_t row = i / row_stride, c = i % row_stride;  // row = block * b + r
        padded(i) = c < b ? values(row * b + c) : typename Padded::non_const_value_type(0);
      });
}

}  // namespace Impl

template <class BsrType>
class BsrSpmvPlan : public Impl::LinearOperator<BsrSpmvPlan<BsrType>, typename BsrType::execution_space,
                                                typename BsrType::value_type> {
  static_assert(is_bsr_matrix_v<BsrType>, "BsrSpmvPlan: the matrix must be a Sprocket::BsrMatrix");
  friend class Impl::LinearOperator<BsrSpmvPlan<BsrType>, typename BsrType::execution_space,
                                    typename BsrType::value_type>;

 public:
  static constexpr const char* operator_name = "BsrSpmvPlan::apply";
  using matrix_type = BsrType;
  using scalar_type = typename BsrType::value_type;
  using execution_space = typename BsrType::execution_space;
  using device_type = typename BsrType::device_type;

  explicit BsrSpmvPlan(const BsrType& A, const BsrSpmvOptions& options = {}) : A_(A), options_(options) {
    constexpr bool host = Impl::is_host_space_v<execution_space>;
    constexpr bool cuda = Impl::is_cuda_space_v<execution_space>;
    const int b = A.block_size();
    SPROCKET_REQUIRE(options.kernel == BsrKernel::automatic ||
                         (static_cast<int>(options.kernel) >= 0 && static_cast<int>(options.kernel) < num_bsr_kernels),
                     "BsrSpmvPlan: BsrSpmvOptions::kernel = ", static_cast<int>(options.kernel),
                     " is not a BsrKernel");
    if (options.backend == Backend::portable) {
      SPROCKET_REQUIRE(options.kernel == BsrKernel::automatic || options.kernel == BsrKernel::portable,
                       "BsrSpmvPlan: Backend::portable conflicts with forced kernel ", to_string(options.kernel));
      kernel_ = BsrKernel::portable;
    } else if (options.kernel == BsrKernel::automatic) {
      kernel_ = bsr_default_kernel(cuda, host, b);
    } else {
      kernel_ = options.kernel;
    }
    const bool host_kernel = kernel_ == BsrKernel::host_block_row || kernel_ == BsrKernel::host_padded;
    const bool cuda_kernel = kernel_ == BsrKernel::cuda_by_block || kernel_ == BsrKernel::cuda_by_column ||
                             kernel_ == BsrKernel::cuda_row_per_thread;
    SPROCKET_REQUIRE(!host_kernel || host, "BsrSpmvPlan: kernel ", to_string(kernel_),
                     " runs on host execution spaces (OpenMP, Serial), not on ", execution_space::name());
    SPROCKET_REQUIRE(!cuda_kernel || cuda, "BsrSpmvPlan: kernel ", to_string(kernel_),
                     " needs a Kokkos::Cuda matrix, not ", execution_space::name());
    SPROCKET_REQUIRE(bsr_kernel_supports(kernel_, b), "BsrSpmvPlan: kernel ", to_string(kernel_),
                     " does not support block size ", b);
    if (host_kernel) build_parts();
    if (kernel_ == BsrKernel::host_padded) update_values();
  }

  /// Refreshes the padded copy of the values (host_padded only; a no-op otherwise).
  void update_values() {
    if (kernel_ != BsrKernel::host_padded) return;
    const int64_t b = A_.block_size();
    const int64_t size = static_cast<int64_t>(A_.num_blocks()) * b * ((b + 7) / 8 * 8);
    if (static_cast<int64_t>(padded_.extent(0)) != size)
      padded_ = Kokkos::View<scalar_type*, device_type>(
          Kokkos::ViewAllocateWithoutInitializing("Sprocket::bsr_spmv::padded_values"), size);
    Impl::bsr_pad_values(execution_space(), padded_, A_.values, b);
    execution_space().fence();
  }

  int64_t num_rows() const { return A_.numRows(); }
  int64_t num_cols() const { return A_.numCols(); }

  BsrKernel kernel() const { return kernel_; }
  const BsrType& matrix() const { return A_; }

  std::string describe() const {
    std::ostringstream os;
    os << "BsrSpmvPlan<" << (std::is_same_v<scalar_type, float> ? "float" : "double") << "> on "
       << execution_space::name() << "\n  " << A_.num_block_rows() << " x " << A_.num_block_cols()
       << " blocks of " << A_.block_size() << "x" << A_.block_size() << ", " << A_.num_blocks()
       << " stored blocks (" << A_.nnz() << " scalars)\n  kernel " << to_string(kernel_)
       << (options_.kernel == BsrKernel::automatic && options_.backend == Backend::automatic ? " (automatic)" : " (forced)");
    if (num_parts_ > 0) os << ", " << num_parts_ << " host parts";
    if (kernel_ == BsrKernel::host_padded) os << ", block rows padded to " << (A_.block_size() + 7) / 8 * 8 << " scalars";
    os << "\n  mode T: atomic scatter (portable kernel)\n";
    return os.str();
  }

 private:
  // Contiguous block-row ranges with about equal stored blocks (+ 1 per block row), one per host
  // thread.
  void build_parts() {
    auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A_.row_map);
    const int64_t n = A_.num_block_rows();
    std::vector<int64_t> cost(n + 1, 0);
    for (int64_t I = 0; I < n; ++I) cost[I + 1] = cost[I] + int64_t(row_map(I + 1) - row_map(I)) + 1;
    num_parts_ = std::max(1, execution_space().concurrency());
    parts_ = Impl::to_device_view<int64_t, device_type>(Impl::balanced_parts(cost, num_parts_),
                                                        "Sprocket::bsr_spmv::parts");
  }

  template <class XView, class YView>
  void apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x, scalar_type beta,
                    const YView& y) const {
    if (y.extent(0) == 0) return;
    if (alpha == scalar_type(0) || x.extent(0) == 0) {
      Impl::scale_only(space, beta, y);
      return;
    }
    if (mode == Mode::T)
      Impl::kokkos::bsr_spmv_transpose(space, A_, alpha, x, beta, y);
    else
      Impl::bsr_spmv_dispatch(space, kernel_, A_, parts_, padded_, alpha, x, beta, y);
  }

  BsrType A_;
  BsrSpmvOptions options_;
  BsrKernel kernel_ = BsrKernel::portable;
  int num_parts_ = 0;  ///< host kernels: parts_ holds num_parts_ + 1 block-row boundaries
  Kokkos::View<int64_t*, device_type> parts_;
  Kokkos::View<scalar_type*, device_type> padded_;
};

}  // namespace Sprocket
