// SpmvPlan compiled once for the double combinations of impl/common/eti.hpp.
#include "Sprocket_Spmv.hpp"

namespace Sprocket {
#define SPROCKET_SPMV_PLAN_INSTANTIATE(Scalar, Offset, ExecSpace) \
  template class SpmvPlan<Impl::EtiCrs<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_SCALAR(SPROCKET_SPMV_PLAN_INSTANTIATE, double)
}  // namespace Sprocket
