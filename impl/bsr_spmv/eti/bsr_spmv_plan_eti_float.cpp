// BsrSpmvPlan compiled once for the float combinations of impl/common/eti.hpp.
#include "Sprocket_BsrSpmv.hpp"

namespace Sprocket {
#define SPROCKET_BSR_SPMV_PLAN_INSTANTIATE(Scalar, Offset, ExecSpace) \
  template class BsrSpmvPlan<Impl::EtiBsr<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_SCALAR(SPROCKET_BSR_SPMV_PLAN_INSTANTIATE, float)
}  // namespace Sprocket
