// SpgemmPlan compiled once for the double combinations of impl/common/eti.hpp.
#include "Sprocket_Spgemm.hpp"

namespace Sprocket {
#define SPROCKET_SPGEMM_PLAN_INSTANTIATE(Scalar, Offset, ExecSpace) \
  template class SpgemmPlan<Impl::EtiCrs<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_SCALAR(SPROCKET_SPGEMM_PLAN_INSTANTIATE, double)
}  // namespace Sprocket
