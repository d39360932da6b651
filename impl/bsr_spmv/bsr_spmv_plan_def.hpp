#pragma once
// BsrSpmvPlan's members that analyse and run kernels (the class: impl/bsr_spmv/bsr_spmv_plan.hpp).
// The library compiles them once for the combinations of impl/common/eti.hpp
// (impl/bsr_spmv/eti/); other matrix types instantiate them here. Non-inline on purpose:
// `extern template` does not hold back the instantiation of inline members.
#include <Kokkos_Core.hpp>
#include <sstream>
#include <string>
#include <type_traits>

#include "Sprocket_Validate.hpp"
#include "impl/bsr_spmv/bsr_spmv_analysis.hpp"
#include "impl/bsr_spmv/bsr_spmv_dispatch.hpp"
#include "impl/bsr_spmv/bsr_spmv_plan.hpp"
#include "impl/common/same_pattern.hpp"

namespace Sprocket {

template <class BsrType>
BsrSpmvPlan<BsrType>::BsrSpmvPlan(const BsrType& A, const BsrSpmvOptions& options)
    : options_(options), choice_(choose(A, options)), analysis_(Impl::make_bsr_spmv_analysis(A, choice_, options)) {}

template <class BsrType>
void BsrSpmvPlan<BsrType>::update_values(const execution_space& space, const BsrType& A) {
  const BsrType& P = analysis_.A;
  SPROCKET_REQUIRE(A.block_size() == P.block_size(), "BsrSpmvPlan::update_values: A has blocks of ", A.block_size(),
                   "x", A.block_size(), " but the plan was built for ", P.block_size(), "x", P.block_size());
  Impl::require_same_pattern(space, "BsrSpmvPlan::update_values", A.num_block_rows(), A.num_block_cols(), A.row_map,
                             A.entries, P.num_block_rows(), P.num_block_cols(), P.row_map, P.entries, "blocks");
  Impl::bsr_spmv_update_values(analysis_, A);
}

template <class BsrType>
std::string BsrSpmvPlan<BsrType>::describe() const {
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

template <class BsrType>
Impl::BsrSpmvChoice BsrSpmvPlan<BsrType>::choose(const BsrType& A, const BsrSpmvOptions& options) {
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

template <class BsrType>
void BsrSpmvPlan<BsrType>::apply_compiled(const execution_space& space, Mode mode, scalar_type alpha,
                                          const typename vectors::const_contiguous& x, scalar_type beta,
                                          const typename vectors::contiguous& y) const {
  Impl::bsr_spmv_dispatch(space, analysis_, mode, alpha, x, beta, y);
}

template <class BsrType>
void BsrSpmvPlan<BsrType>::apply_compiled(const execution_space& space, Mode mode, scalar_type alpha,
                                          const typename vectors::const_strided& x, scalar_type beta,
                                          const typename vectors::strided& y) const {
  Impl::bsr_spmv_dispatch(space, analysis_, mode, alpha, x, beta, y);
}

template <class BsrType>
template <class XView, class YView>
void BsrSpmvPlan<BsrType>::apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x,
                                        scalar_type beta, const YView& y) const {
  Impl::bsr_spmv_dispatch(space, analysis_, mode, alpha, x, beta, y);
}

}  // namespace Sprocket
