// Small dense matrices through LAPACK/BLAS (see dense_matrix.hpp).
#include "impl/blocks/dense_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "Sprocket_Error.hpp"
#include "impl/blocks/lapack.hpp"

namespace Sprocket {
namespace Impl {
namespace blocks {

DenseMatrix multiply(const DenseMatrix& A, const DenseMatrix& B, bool transpose_a) {
  const int m = transpose_a ? A.cols : A.rows;
  const int inner = transpose_a ? A.rows : A.cols;
  SPROCKET_REQUIRE(inner == B.rows, "blocks::multiply: inner dimensions ", inner, " and ", B.rows, " differ");
  DenseMatrix C(m, B.cols);
  if (m == 0 || B.cols == 0) return C;
  if (inner == 0) return C;
  const char transa = transpose_a ? 'T' : 'N', transb = 'N';
  const double one = 1.0, zero = 0.0;
  const int lda = std::max(A.rows, 1), ldb = std::max(B.rows, 1), ldc = std::max(m, 1);
  dgemm_(&transa, &transb, &m, &B.cols, &inner, &one, A.data.data(), &lda, B.data.data(), &ldb, &zero,
         C.data.data(), &ldc, 1, 1);
  return C;
}

DenseMatrix principal_submatrix(const DenseMatrix& G, const std::vector<int>& index) {
  const int r = static_cast<int>(index.size());
  DenseMatrix S(r, r);
  for (int j = 0; j < r; ++j)
    for (int i = 0; i < r; ++i) S(i, j) = G(index[i], index[j]);
  return S;
}

double distance_from_identity(const DenseMatrix& G) {
  double d = 0;
  for (int j = 0; j < G.cols; ++j)
    for (int i = 0; i < G.rows; ++i) {
      const double e = std::fabs(G(i, j) - (i == j ? 1.0 : 0.0));
      if (!(e <= d)) d = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
    }
  return d;
}

bool all_finite(const DenseMatrix& G) {
  for (double v : G.data)
    if (!std::isfinite(v)) return false;
  return true;
}

bool symmetric_eigen(const DenseMatrix& G, std::vector<double>& values, DenseMatrix& vectors) {
  const int n = G.rows;
  values.assign(n, 0.0);
  vectors = G;
  if (n == 0) return true;
  const char jobz = 'V', uplo = 'U';
  int info = 0, lwork = -1;
  double query = 0;
  dsyev_(&jobz, &uplo, &n, vectors.data.data(), &n, values.data(), &query, &lwork, &info, 1, 1);
  if (info != 0) return false;
  lwork = std::max(static_cast<int>(query), 3 * n);
  std::vector<double> work(lwork);
  dsyev_(&jobz, &uplo, &n, vectors.data.data(), &n, values.data(), work.data(), &lwork, &info, 1, 1);
  return info == 0;
}

bool symmetric_definite_eigen(const DenseMatrix& GA, const DenseMatrix& GM, std::vector<double>& theta,
                              DenseMatrix& C) {
  const int n = GA.rows;
  theta.assign(n, 0.0);
  C = GA;
  if (n == 0) return true;
  DenseMatrix B = GM;
  const int itype = 1;
  const char jobz = 'V', uplo = 'U';
  int info = 0, lwork = -1;
  double query = 0;
  dsygv_(&itype, &jobz, &uplo, &n, C.data.data(), &n, B.data.data(), &n, theta.data(), &query, &lwork, &info, 1, 1);
  if (info != 0) return false;
  lwork = std::max(static_cast<int>(query), 3 * n);
  std::vector<double> work(lwork);
  dsygv_(&itype, &jobz, &uplo, &n, C.data.data(), &n, B.data.data(), &n, theta.data(), work.data(), &lwork,
         &info, 1, 1);
  return info == 0 && all_finite(C);
}

bool cholesky_upper(const DenseMatrix& G, double min_pivot_fraction, DenseMatrix& R) {
  const int n = G.rows;
  R = G;
  if (n == 0) return true;
  const char uplo = 'U';
  int info = 0;
  dpotrf_(&uplo, &n, R.data.data(), &n, &info, 1);
  if (info != 0) return false;
  for (int j = 0; j < n; ++j) {
    for (int i = j + 1; i < n; ++i) R(i, j) = 0.0;  // dpotrf leaves the lower triangle as it was
    const double pivot = R(j, j) * R(j, j);
    if (!(pivot >= min_pivot_fraction * G(j, j)) || !(pivot > 0) || !(pivot - pivot == 0.0)) return false;
  }
  return all_finite(R);
}

DenseMatrix invert_upper(const DenseMatrix& R) {
  const int n = R.rows;
  DenseMatrix inverse = R;
  if (n == 0) return inverse;
  const char uplo = 'U', diag = 'N';
  int info = 0;
  dtrtri_(&uplo, &diag, &n, inverse.data.data(), &n, &info, 1, 1);
  SPROCKET_REQUIRE(info == 0, "blocks::invert_upper: dtrtri returned info ", info);
  return inverse;
}

}  // namespace blocks
}  // namespace Impl
}  // namespace Sprocket
