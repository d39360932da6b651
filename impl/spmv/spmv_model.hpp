#pragma once
// The SpMV decision model: one generated function per target family, each written by
// perf_tests/spmv_train.cpp from measurements on that kind of machine (see the header of each
// generated file for the command, the date and the machine).
#include "Sprocket_Spmv.hpp"

namespace Sprocket {
namespace Impl {

SpmvDecision spmv_model_cpu(const SpmvFeatures& features);  // spmv_model_cpu_generated.cpp
SpmvDecision spmv_model_gpu(const SpmvFeatures& features);  // spmv_model_gpu_generated.cpp

/// Feature vector the generated trees read, in this order (names used in the generated code).
struct SpmvModelInputs {
  double length_class;  ///< class of the virtual row (class trees only; -1 otherwise)
  double avg_row;       ///< average row length
  double cv_row;        ///< coefficient of variation of row lengths (stddev / avg)
  double max_over_avg;  ///< longest row / average row
  double log2_nnz;      ///< log2(1 + nnz)
  double log2_rows;     ///< log2(1 + rows)
};
SpmvModelInputs spmv_model_inputs(const SpmvFeatures& features, int length_class = -1);

}  // namespace Impl
}  // namespace Sprocket
