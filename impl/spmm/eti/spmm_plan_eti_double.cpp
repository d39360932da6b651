// SpmmPlan compiled once for the double combinations of impl/common/eti.hpp.
#include "Sprocket_Spmm.hpp"

namespace Sprocket {
#define SPROCKET_SPMM_PLAN_INSTANTIATE(Scalar, Offset, ExecSpace) \
  template class SpmmPlan<Impl::EtiCrs<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_SCALAR(SPROCKET_SPMM_PLAN_INSTANTIATE, double)
}  // namespace Sprocket
