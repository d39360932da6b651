#pragma once
/// \file Sprocket_Reference.hpp
/// Reference kernels: serial, obviously-correct loops over the host containers, accumulating in
/// double (long double is not needed: the oracles are compared with tolerances derived from
/// the row lengths). They are the oracles of every Sprocket test and of `sprocket-bench --check`.
/// They accept unsorted columns and duplicate entries (duplicates act as their sum).
///
/// Modes follow KokkosSparse::spmv: "N" (A), "T" (A^T); beta == 0 means the output is
/// overwritten without reading it (NaN in y does not propagate).
/// alpha == 0 skips the product (A is still validated, but x and A's values are not read), as
/// BLAS does, so y = beta * y even when x holds NaN.
///
/// Every function validates its arguments first and throws InvalidArgument, naming the extents,
/// on an invalid matrix structure, a mode other than exactly "N" or "T", or mismatched shapes.

#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {
namespace reference {

/// y = alpha * op(A) * x + beta * y, op = A for mode "N", A^T for mode "T".
void spmv(const std::string& mode, double alpha, const HostCsr& A, const std::vector<double>& x,
          double beta, std::vector<double>& y);

/// Y = alpha * op(A) * X + beta * Y for every column of X and Y (SpMM).
void spmm(const std::string& mode, double alpha, const HostCsr& A, const HostDense& X,
          double beta, HostDense& Y);

/// y = alpha * op(A) * x + beta * y for a block-CSR matrix (in-block row-major values).
void bsr_spmv(const std::string& mode, double alpha, const HostBsr& A,
              const std::vector<double>& x, double beta, std::vector<double>& y);

/// Y = alpha * op(A) * X + beta * Y for a block-CSR matrix.
void bsr_spmm(const std::string& mode, double alpha, const HostBsr& A, const HostDense& X,
              double beta, HostDense& Y);

/// ||A||_2 from below: `steps` power iterations on A^T A (two SpMVs each) from a fixed vector,
/// returning ||A v|| for the last unit v. For the independent checks of the solver demo and tests
/// (the floor of relative eigen-residuals, a shift above the spectrum); 0 for an empty or zero A.
double norm2_estimate(const HostCsr& A, int steps);

/// SDDMM on the pattern of S: out has S's structure (same row_map and entries, in S's order) and
/// out_k = S_k * <A(i,:), B(j,:)> for the stored entry k = (i, j) of S, where A is M x K and B is
/// N x K (both dense; the inner product runs over K).
HostCsr sddmm(const HostCsr& S, const HostDense& A, const HostDense& B);

/// C = A * B with sorted columns per row and duplicates summed; structural zeros produced by
/// cancellation are kept (C's pattern is the symbolic product).
HostCsr spgemm(const HostCsr& A, const HostCsr& B);

}  // namespace reference
}  // namespace Sprocket
