#pragma once
/// \file dense_matrix.hpp
/// Small dense matrices on the host in double (column-major), and the few LAPACK/BLAS
/// operations the solvers and preconditioners do on them: Gram and coefficient matrices of
/// block GMRES and LOBPCG, at most a few hundred rows. Nothing here touches an n-long vector
/// (those are in block_ops.hpp). Compiled once into the library (dense_matrix.cpp).
#include <cstddef>
#include <vector>

namespace Sprocket {
namespace Impl {
namespace blocks {

/// Column-major rows x cols matrix: element (i, j) at data[i + j * rows] (the leading dimension
/// is rows, as LAPACK wants it).
struct DenseMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<double> data;

  DenseMatrix() = default;
  DenseMatrix(int r, int c, double fill = 0.0) : rows(r), cols(c), data(static_cast<std::size_t>(r) * c, fill) {}
  double& operator()(int i, int j) { return data[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * rows]; }
  double operator()(int i, int j) const { return data[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * rows]; }
};

/// A^T B (transpose_a) or A B (dgemm).
DenseMatrix multiply(const DenseMatrix& A, const DenseMatrix& B, bool transpose_a = false);

/// Rows and columns `index` of the square matrix G.
DenseMatrix principal_submatrix(const DenseMatrix& G, const std::vector<int>& index);

/// max |G(i, j) - delta_ij| (infinity when G holds a NaN).
double distance_from_identity(const DenseMatrix& G);

/// True when every entry is finite.
bool all_finite(const DenseMatrix& G);

/// Eigen-decomposition of the symmetric G (upper triangle read) by dsyev: values ascending,
/// orthonormal vectors in columns. False when LAPACK reports a failure.
bool symmetric_eigen(const DenseMatrix& G, std::vector<double>& values, DenseMatrix& vectors);

/// GA c = theta GM c with GM positive definite (dsygv, itype 1; upper triangles read): theta
/// ascending, C^T GM C = I. False when GM is not numerically positive definite, LAPACK fails or
/// C is not finite.
bool symmetric_definite_eigen(const DenseMatrix& GA, const DenseMatrix& GM, std::vector<double>& theta,
                              DenseMatrix& C);

/// Cholesky factor R (upper, R^T R = G, zeros below the diagonal) of the symmetric G (dpotrf,
/// upper triangle read). Refuses (returns false) when G is not numerically positive definite or
/// a pivot R(j, j)^2 keeps less than `min_pivot_fraction` of G(j, j) (column j is too close to
/// the span of the previous ones for the Gram matrix to resolve it: squaring the columns costs
/// half the digits), or is not finite.
bool cholesky_upper(const DenseMatrix& G, double min_pivot_fraction, DenseMatrix& R);

/// Inverse of an upper triangular matrix with nonzero diagonal (dtrtri).
DenseMatrix invert_upper(const DenseMatrix& R);

}  // namespace blocks
}  // namespace Impl
}  // namespace Sprocket
