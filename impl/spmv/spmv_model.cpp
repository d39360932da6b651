// Chooses the generated model of the target family and derives the model's inputs.
#include "impl/spmv/spmv_model.hpp"

#include <cmath>

namespace Sprocket {

namespace Impl {
SpmvModelInputs spmv_model_inputs(const SpmvFeatures& f, int length_class) {
  SpmvModelInputs in{};
  in.length_class = length_class;
  in.avg_row = f.avg_row;
  in.cv_row = f.avg_row > 0 ? std::sqrt(f.var_row) / f.avg_row : 0.0;
  in.max_over_avg = f.avg_row > 0 ? static_cast<double>(f.max_row) / f.avg_row : 0.0;
  in.log2_nnz = std::log2(1.0 + static_cast<double>(f.nnz));
  in.log2_rows = std::log2(1.0 + static_cast<double>(f.rows));
  return in;
}
}  // namespace Impl

SpmvDecision spmv_model_decide(const SpmvFeatures& features, SpmvTarget target) {
  const bool cpu = target == SpmvTarget::host || target == SpmvTarget::portable_cpu;
  return cpu ? Impl::spmv_model_cpu(features) : Impl::spmv_model_gpu(features);
}

}  // namespace Sprocket
