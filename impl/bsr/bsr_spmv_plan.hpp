#pragma once
// BsrSpmvPlan: analysis (kernel choice and checks, symmetry check, host partition, padded copy,
// symmetric kernel's spill workspace) at construction;
// apply() dispatches. Declared in Sprocket_BsrSpmv.hpp. Device code lives in free functions
// (nvcc refuses extended lambdas in private member functions).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <sstream>

#include "impl/bsr/bsr_spmv_dispatch.hpp"
#include "impl/bsr/bsr_symmetry.hpp"
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
  using ordinal_type = typename BsrType::ordinal_type;
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
      const bool large = int64_t(A.values.extent(0)) * int64_t(sizeof(scalar_type)) >= bsr_symmetric_min_bytes;
      kernel_ = options.symmetric && host && large ? BsrKernel::host_symmetric : bsr_default_kernel(cuda, host, b);
    } else {
      kernel_ = options.kernel;
    }
    const bool host_kernel = kernel_ == BsrKernel::host_block_row || kernel_ == BsrKernel::host_padded ||
                             kernel_ == BsrKernel::host_symmetric;
    const bool cuda_kernel = kernel_ == BsrKernel::cuda_by_block || kernel_ == BsrKernel::cuda_by_column ||
                             kernel_ == BsrKernel::cuda_row_per_thread;
    SPROCKET_REQUIRE(!host_kernel || host, "BsrSpmvPlan: kernel ", to_string(kernel_),
                     " runs on host execution spaces (OpenMP, Serial), not on ", execution_space::name());
    SPROCKET_REQUIRE(!cuda_kernel || cuda, "BsrSpmvPlan: kernel ", to_string(kernel_),
                     " needs a Kokkos::Cuda matrix, not ", execution_space::name());
    SPROCKET_REQUIRE(bsr_kernel_supports(kernel_, b), "BsrSpmvPlan: kernel ", to_string(kernel_),
                     " does not support block size ", b);
    SPROCKET_REQUIRE(kernel_ != BsrKernel::host_symmetric || options.symmetric,
                     "BsrSpmvPlan: kernel host_symmetric needs BsrSpmvOptions::symmetric = true (the promise that "
                     "A == A^T, checked at analysis)");
    SPROCKET_REQUIRE(options.host_parts >= 0, "BsrSpmvPlan: BsrSpmvOptions::host_parts = ", options.host_parts,
                     " (0 for one part per thread, or a positive count)");
    if (options.symmetric) {
      const std::vector<int64_t> upper = Impl::bsr_check_symmetric(A_, "BsrSpmvPlan");
      if (kernel_ == BsrKernel::host_symmetric) refresh_upper_part(upper);
    }
    if (host_kernel) build_parts();
    if (kernel_ == BsrKernel::host_padded) refresh_padded();
  }

  /// After A's values changed (same pattern): checks a matrix declared symmetric again (throws
  /// InvalidArgument if it no longer is) and refreshes the copies host_padded and host_symmetric
  /// read. A no-op for the other plans, whose kernels read A's values directly.
  void update_values() {
    if (options_.symmetric) {
      const std::vector<int64_t> upper = Impl::bsr_check_symmetric(A_, "BsrSpmvPlan::update_values");
      if (kernel_ == BsrKernel::host_symmetric) refresh_upper_part(upper);
    }
    if (kernel_ == BsrKernel::host_padded) refresh_padded();
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
    if (kernel_ == BsrKernel::host_symmetric)
      os << "\n  reads a packed copy of the diagonal and upper blocks only: " << work_.upper_entries.extent(0) << " of "
         << A_.num_blocks() << " stored blocks (refreshed by update_values()); " << work_.spill.extent(0)
         << " scalars of spill workspace";
    if (options_.symmetric)
      os << "\n  declared symmetric (checked at analysis): mode T runs the mode N kernel\n";
    else
      os << "\n  mode T: atomic scatter (portable kernel)\n";
    return os.str();
  }

 private:
  // Contiguous block-row ranges with about equal stored blocks (+ 1 per block row), one per host
  // thread unless host_parts says otherwise. host_symmetric (whose packed copy is built first)
  // counts the blocks of its copy and sizes each part's spill: the block rows past the part that
  // its blocks reach.
  void build_parts() {
    const bool symmetric = kernel_ == BsrKernel::host_symmetric;
    const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A_.row_map);
    const auto upper_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), work_.upper_row_map);
    const int64_t n = A_.num_block_rows();
    std::vector<int64_t> cost(n + 1, 0);
    for (int64_t I = 0; I < n; ++I)
      cost[I + 1] = cost[I] + 1 +
                    (symmetric ? upper_row_map(I + 1) - upper_row_map(I) : int64_t(row_map(I + 1) - row_map(I)));
    num_parts_ = options_.host_parts > 0 ? options_.host_parts : std::max(1, execution_space().concurrency());
    const std::vector<int64_t> parts = Impl::balanced_parts(cost, num_parts_);
    work_.parts = Impl::to_device_view<int64_t, device_type>(parts, "Sprocket::bsr_spmv::parts");
    if (!symmetric) return;
    const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), work_.upper_entries);
    std::vector<int64_t> reach(num_parts_), spill_offset(num_parts_ + 1, 0);
    for (int p = 0; p < num_parts_; ++p) {
      reach[p] = parts[p + 1];
      for (int64_t I = parts[p]; I < parts[p + 1]; ++I)
        if (upper_row_map(I + 1) > upper_row_map(I))  // ascending columns: the last block reaches furthest
          reach[p] = std::max(reach[p], int64_t(entries(upper_row_map(I + 1) - 1)) + 1);
      spill_offset[p + 1] = spill_offset[p] + (reach[p] - parts[p + 1]) * A_.block_size();
    }
    work_.reach = Impl::to_device_view<int64_t, device_type>(reach, "Sprocket::bsr_spmv::reach");
    work_.spill_offset = Impl::to_device_view<int64_t, device_type>(spill_offset, "Sprocket::bsr_spmv::spill_offset");
    work_.spill = Kokkos::View<scalar_type*, device_type>(
        Kokkos::ViewAllocateWithoutInitializing("Sprocket::bsr_spmv::spill"), spill_offset[num_parts_]);
  }

  // host_symmetric's packed copy of the diagonal and upper blocks (upper: from the check).
  void refresh_upper_part(const std::vector<int64_t>& upper) {
    const auto part = Impl::bsr_pack_upper(A_, upper);
    work_.upper_row_map = Impl::to_device_view<int64_t, device_type>(part.row_map, "Sprocket::bsr_spmv::upper_row_map");
    work_.upper_entries = Impl::to_device_view<ordinal_type, device_type>(part.entries, "Sprocket::bsr_spmv::upper_entries");
    work_.upper_values = Impl::to_device_view<scalar_type, device_type>(part.values, "Sprocket::bsr_spmv::upper_values");
  }

  void refresh_padded() {
    const int64_t b = A_.block_size();
    const int64_t size = static_cast<int64_t>(A_.num_blocks()) * b * ((b + 7) / 8 * 8);
    if (static_cast<int64_t>(work_.padded.extent(0)) != size)
      work_.padded = Kokkos::View<scalar_type*, device_type>(
          Kokkos::ViewAllocateWithoutInitializing("Sprocket::bsr_spmv::padded_values"), size);
    Impl::bsr_pad_values(execution_space(), work_.padded, A_.values, b);
    execution_space().fence();
  }

  template <class XView, class YView>
  void apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x, scalar_type beta,
                    const YView& y) const {
    if (y.extent(0) == 0) return;
    if (alpha == scalar_type(0) || x.extent(0) == 0) {
      Impl::scale_only(space, beta, y);
      return;
    }
    if (mode == Mode::T && !options_.symmetric)
      Impl::kokkos::bsr_spmv_transpose(space, A_, alpha, x, beta, y);
    else
      Impl::bsr_spmv_dispatch(space, kernel_, A_, work_, alpha, x, beta, y);
  }

  BsrType A_;
  BsrSpmvOptions options_;
  BsrKernel kernel_ = BsrKernel::portable;
  int num_parts_ = 0;        ///< host kernels: work_.parts holds num_parts_ + 1 block-row boundaries
  Impl::BsrHostWork<scalar_type, ordinal_type, device_type> work_;
};

}  // namespace Sprocket
