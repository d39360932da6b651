#pragma once
// BsrSpmvPlan (declared in Sprocket_BsrSpmv.hpp): validates the options, resolves the backend and
// runs the analysis once at construction (impl/bsr_spmv/bsr_spmv_analysis.hpp); apply() hands
// every vector to the dispatch (impl/bsr_spmv/bsr_spmv_dispatch.hpp), which makes every routing
// decision. Device code lives in free functions (nvcc refuses extended lambdas in private member
// functions).
#include <Kokkos_Core.hpp>
#include <sstream>
#include <string>
#include <type_traits>

#include "Sprocket_Validate.hpp"
#include "impl/bsr_spmv/bsr_spmv_analysis.hpp"
#include "impl/common/same_pattern.hpp"
#include "impl/bsr_spmv/bsr_spmv_dispatch.hpp"

namespace Sprocket {

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

  explicit BsrSpmvPlan(const BsrType& A, const BsrSpmvOptions& options = {})
      : options_(options), choice_(choose(A, options)), analysis_(Impl::make_bsr_spmv_analysis(A, choice_, options)) {}

  /// New values: A must have the plan's block size and block pattern (InvalidArgument otherwise).
  /// Checks a matrix declared symmetric again (InvalidArgument if it no longer is) and refreshes
  /// the copies the padded and symmetric kernels read. Which values an apply reads between an
  /// in-place change and this call depends on the kernel, never on the mode (describe() says it;
  /// Sprocket_Operator.hpp: "Values").
  void update_values(const BsrType& A) { update_values(execution_space(), A); }
  void update_values(const execution_space& space, const BsrType& A) {
    const BsrType& P = analysis_.A;
    SPROCKET_REQUIRE(A.block_size() == P.block_size(), "BsrSpmvPlan::update_values: A has blocks of ", A.block_size(),
                     "x", A.block_size(), " but the plan was built for ", P.block_size(), "x", P.block_size());
    Impl::require_same_pattern(space, "BsrSpmvPlan::update_values", A.num_block_rows(), A.num_block_cols(), A.row_map,
                               A.entries, P.num_block_rows(), P.num_block_cols(), P.row_map, P.entries, "blocks");
    Impl::bsr_spmv_update_values(analysis_, A);
  }
  /// The values of the matrix the plan was built on (or last updated with), re-read.
  [[deprecated("call update_values(A): the same for every plan")]] void update_values() { update_values(analysis_.A); }

  int64_t num_rows() const { return analysis_.A.numRows(); }
  int64_t num_cols() const { return analysis_.A.numCols(); }

  /// The kernel every apply runs (never automatic).
  BsrKernel kernel() const { return choice_.kernel; }
  /// The resolved backend: Backend::native or Backend::portable.
  Backend backend() const { return choice_.backend; }
  /// Why backend() and kernel(): forced, or the automatic rule and what it compared.
  const std::string& backend_reason() const { return choice_.why; }
  const std::string& kernel_reason() const { return choice_.why; }
  /// The options as requested (what was chosen: backend(), kernel()).
  const BsrSpmvOptions& options() const { return options_; }
  const BsrType& matrix() const { return analysis_.A; }
  /// The device-side analysis every backend reads (A, host parts, padded or packed copies).
  const Impl::BsrSpmvAnalysis<BsrType>& analysis() const { return analysis_; }

  std::string describe() const {
    const BsrType& A = analysis_.A;
    std::ostringstream os;
    os << "BsrSpmvPlan<" << (std::is_same_v<scalar_type, float> ? "float" : "double") << "> on "
       << execution_space::name() << "\n  " << A.num_block_rows() << " x " << A.num_block_cols() << " blocks of "
       << A.block_size() << "x" << A.block_size() << ", " << A.num_blocks() << " stored blocks (" << A.nnz()
       << " scalars)\n  kernel " << to_string(choice_.kernel) << ", backend " << to_string(choice_.backend);
    if (choice_.backend == Backend::native)
      os << " (" << (Impl::is_host_space_v<execution_space> ? "host" : "CUDA") << ")";
    os << ": " << choice_.why;
    if (analysis_.num_parts > 0) os << "\n  " << analysis_.num_parts << " host parts";
    if (choice_.kernel == BsrKernel::padded) os << ", block rows padded to " << (A.block_size() + 7) / 8 * 8 << " scalars";
    if (choice_.kernel == BsrKernel::symmetric)
      os << "\n  reads a packed copy of the diagonal and upper blocks only: " << analysis_.upper_entries.extent(0)
         << " of " << A.num_blocks() << " stored blocks (refreshed by update_values(A)); " << analysis_.spill_size
         << " scalars of spill workspace per apply";
    if (options_.symmetric)
      os << "\n  declared symmetric (checked at analysis): mode T runs the mode N kernel";
    else
      os << "\n  mode T: atomic scatter (portable backend)" << (choice_.kernel == BsrKernel::padded ? " over the padded copy" : "");
    if (choice_.kernel == BsrKernel::padded || choice_.kernel == BsrKernel::symmetric)
      os << "\n  values: the plan's copy, both modes; refreshed by update_values(A)\n";
    else
      os << "\n  values: read from A's values View at every apply (no copy), both modes\n";
    return os.str();
  }

 private:
  static Impl::BsrSpmvChoice choose(const BsrType& A, const BsrSpmvOptions& options) {
    Sprocket::validate(A, "BsrSpmvPlan");  // A's structure, once: the kernels index x and y through it unchecked
    Impl::check_bsr_spmv_options(options);
    const Backend backend = Impl::bsr_spmv_resolve_backend<execution_space>(options.backend);
    Impl::BsrSpmvTarget target;
    target.host = Impl::is_host_space_v<execution_space>;
    target.cuda = Impl::is_cuda_space_v<execution_space>;
    target.space_name = execution_space::name();
    target.block_size = A.block_size();
    target.value_bytes = int64_t(A.values.extent(0)) * int64_t(sizeof(scalar_type));
    return Impl::bsr_spmv_choose(options, backend, target);
  }

  template <class XView, class YView>
  void apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x, scalar_type beta,
                    const YView& y) const {
    Impl::bsr_spmv_dispatch(space, analysis_, mode, alpha, x, beta, y);
  }

  BsrSpmvOptions options_;
  Impl::BsrSpmvChoice choice_;
  Impl::BsrSpmvAnalysis<BsrType> analysis_;
};

}  // namespace Sprocket
