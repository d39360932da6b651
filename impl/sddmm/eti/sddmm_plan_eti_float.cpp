// SddmmPlan compiled once for the float combinations of impl/common/eti.hpp.
#include "Sprocket_Sddmm.hpp"

namespace Sprocket {
#define SPROCKET_SDDMM_PLAN_INSTANTIATE(Scalar, Offset, ExecSpace) \
  template class SddmmPlan<Impl::EtiCrs<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_SCALAR(SPROCKET_SDDMM_PLAN_INSTANTIATE, float)
}  // namespace Sprocket
