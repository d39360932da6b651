#pragma once
// Test helpers of the SDDMM tests (test_sddmm.cpp and the emulated CUDA kernels'
// test_sddmm_cuda_emulated.cpp): the check of an output against reference::sddmm with a scaled
// error bound, and the check of an InvalidArgument's message. Kept apart from
// sprocket_test_utils.hpp so adding them does not recompile every other test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Reference.hpp"
#include "sprocket_test_utils.hpp"

namespace Sprocket {
namespace test {

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// Calls f and checks it throws InvalidArgument whose message contains every needle.
template <class F>
::testing::AssertionResult throws_invalid_argument(F&& f, const std::vector<std::string>& needles) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    for (const std::string& n : needles)
      if (!contains(e.what(), n))
        return ::testing::AssertionFailure() << "message \"" << e.what() << "\" lacks \"" << n << "\"";
    return ::testing::AssertionSuccess() << e.what();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception type: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

/// Checks an SDDMM output against reference::sddmm: out(k) = alpha * w(k) * <A(i,:), B(j,:)> +
/// beta * out0(k) for S's entries in S's order, w = S's values (scaled) or 1 (pattern), within
/// factor * eps(Scalar) * (K + 2) * (|alpha w| sum |A(i,p) B(j,p)| + |beta out0(k)|). NaN in out
/// fails; out0 may be NaN where beta == 0 (it must not be read).
template <class Scalar>
::testing::AssertionResult sddmm_matches(bool scaled, double alpha, const HostCsr& S, const HostDense& A,
                                         const HostDense& B, double beta, const std::vector<double>& out0,
                                         const std::vector<double>& out, double factor = 4.0) {
  if (static_cast<int64_t>(out.size()) != S.nnz())
    return ::testing::AssertionFailure() << "length " << out.size() << ", expected " << S.nnz();
  HostCsr pattern = S;
  if (!scaled) std::fill(pattern.values.begin(), pattern.values.end(), 1.0);
  HostDense absA = A, absB = B;
  for (double& v : absA.data) v = std::fabs(v);
  for (double& v : absB.data) v = std::fabs(v);
  const HostCsr dots = reference::sddmm(pattern, A, B);
  const HostCsr bounds = reference::sddmm(absolute(pattern), absA, absB);
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const double len = static_cast<double>(A.num_cols + 2);
  for (int64_t k = 0; k < S.nnz(); ++k) {
    const double expected = alpha * dots.values[k] + (beta == 0 ? 0.0 : beta * out0[k]);
    const double scale = std::fabs(alpha) * bounds.values[k] + (beta == 0 ? 0.0 : std::fabs(beta * out0[k]));
    const double bound = factor * eps * len * scale + std::numeric_limits<double>::min();
    if (!(std::fabs(out[k] - expected) <= bound))
      return ::testing::AssertionFailure() << "entry " << k << " (column " << S.entries[k] << "): got " << out[k]
                                           << ", expected " << expected << " (|diff| " << std::fabs(out[k] - expected)
                                           << " > bound " << bound << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace test
}  // namespace Sprocket
