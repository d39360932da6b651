#pragma once
/// \file Sprocket_SolverCommon.hpp
/// Types every Sprocket solver shares (block GMRES, LOBPCG): how a solve ended, what one
/// iteration reports, where the time went.
#include <functional>
#include <string>
#include <vector>

namespace Sprocket {
/// How a solve ended.
enum class SolverStatus {
  converged,       ///< every column / pair met the tolerance (checked on the true residual)
  max_iterations,  ///< the iteration limit was reached first
  breakdown,       ///< the method cannot continue (e.g. singular operator, zero Krylov block)
  stagnation,      ///< the residual stopped decreasing over several restarts / iterations
  invalid_input,   ///< inputs the solver refuses (NaN/Inf in the right-hand side, ...)
};
/// The status's name, spelled as its enumerator ("unknown" for a value out of range).
inline const char* to_string(SolverStatus status) {
  switch (status) {
    case SolverStatus::converged: return "converged";
    case SolverStatus::max_iterations: return "max_iterations";
    case SolverStatus::breakdown: return "breakdown";
    case SolverStatus::stagnation: return "stagnation";
    case SolverStatus::invalid_input: return "invalid_input";
  }
  return "unknown";
}

/// Reported once per iteration (block GMRES: per block Arnoldi step; LOBPCG: per iteration).
struct SolverIterationInfo {
  int iteration = 0;  ///< iterations done (block GMRES: block Arnoldi steps, summed over the groups)
  double worst_residual = 0;  ///< largest relative residual over all columns / pairs (converged ones too)
  int converged = 0;          ///< columns / pairs converged so far
  double elapsed_seconds = 0;  ///< wall-clock seconds since the solve started
};

/// Wall-clock split of a solve (seconds). operator_apply counts A (and M for generalized
/// problems); orthogonalization counts Gram-Schmidt / Rayleigh-Ritz dense work.
struct SolverTimings {
  double setup = 0;  ///< before the iterations
  double operator_apply = 0;  ///< applies of A (and M)
  double preconditioner = 0;  ///< applies of the preconditioner
  double orthogonalization = 0;  ///< orthogonalization and other dense work
  double total = 0;  ///< the whole call
};
/// Called by a solver after every iteration (its options' on_iteration); empty: not called.
using SolverCallback = std::function<void(const SolverIterationInfo&)>;

namespace Impl {
/// T in a non-deduced context: the solvers deduce Scalar and Device from the operator alone, so
/// their View and preconditioner arguments may be anything that converts.
template <class T>
struct NonDeduced {
  using type = T;
};
}  // namespace Impl

}  // namespace Sprocket
