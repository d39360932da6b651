#include "impl/solvers/lobpcg_dense.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "impl/solvers/lapack.hpp"

namespace Sprocket {
namespace Impl {
namespace lobpcg {

SmallMatrix multiply(const SmallMatrix& A, const SmallMatrix& B, bool transpose_a) {
  const int m = transpose_a ? A.cols : A.rows;
  const int inner = transpose_a ? A.rows : A.cols;
  SmallMatrix C(m, B.cols);
  for (int j = 0; j < B.cols; ++j)
    for (int l = 0; l < inner; ++l) {
      const double b = B(l, j);
      if (b == 0.0) continue;
      for (int i = 0; i < m; ++i) C(i, j) += (transpose_a ? A(l, i) : A(i, l)) * b;
    }
  return C;
}

SmallMatrix principal_submatrix(const SmallMatrix& G, const std::vector<int>& index) {
  const int r = static_cast<int>(index.size());
  SmallMatrix S(r, r);
  for (int j = 0; j < r; ++j)
    for (int i = 0; i < r; ++i) S(i, j) = G(index[i], index[j]);
  return S;
}

double distance_from_identity(const SmallMatrix& G) {
  double d = 0;
  for (int j = 0; j < G.cols; ++j)
    for (int i = 0; i < G.rows; ++i) {
      const double e = std::fabs(G(i, j) - (i == j ? 1.0 : 0.0));
      if (!(e <= d)) d = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
    }
  return d;
}

bool all_finite(const SmallMatrix& G) {
  for (double v : G.data)
    if (!std::isfinite(v)) return false;
  return true;
}

bool symmetric_eigen(const SmallMatrix& G, std::vector<double>& values, SmallMatrix& vectors) {
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

bool rayleigh_ritz(const SmallMatrix& GA, const SmallMatrix& GM, std::vector<double>& theta, SmallMatrix& C) {
  const int n = GA.rows;
  theta.assign(n, 0.0);
  C = GA;
  if (n == 0) return true;
  SmallMatrix B = GM;
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

SmallMatrix orthonormalizing_transform(const SmallMatrix& G, double drop_ratio, double* conditioning) {
  if (conditioning) *conditioning = 0;
  const int w = G.rows;
  // Columns of zero (or non-finite) length carry no direction: they get no scale and drop out.
  std::vector<double> scale(w, 0.0);
  for (int j = 0; j < w; ++j) {
    const double g = G(j, j);
    if (std::isfinite(g) && g > 0) scale[j] = 1.0 / std::sqrt(g);
  }
  SmallMatrix scaled(w, w);
  for (int j = 0; j < w; ++j)
    for (int i = 0; i < w; ++i) {
      const double v = scale[i] * G(i, j) * scale[j];
      scaled(i, j) = std::isfinite(v) ? v : 0.0;
    }
  std::vector<double> theta;
  SmallMatrix V;
  if (w == 0 || !symmetric_eigen(scaled, theta, V)) return SmallMatrix(w, 0);
  const double largest = theta.empty() ? 0.0 : theta.back();
  std::vector<int> kept;
  for (int i = w - 1; i >= 0; --i)  // largest first: the best-determined directions lead
    if (largest > 0 && theta[i] > drop_ratio * largest) kept.push_back(i);
  if (conditioning && !kept.empty()) *conditioning = theta[kept.back()] / largest;
  SmallMatrix T(w, static_cast<int>(kept.size()));
  for (int c = 0; c < T.cols; ++c) {
    const int e = kept[c];
    const double inv_sqrt = 1.0 / std::sqrt(theta[e]);
    for (int i = 0; i < w; ++i) T(i, c) = scale[i] * V(i, e) * inv_sqrt;
  }
  return T;
}

SmallMatrix conjugate_direction_coefficients(const SmallMatrix& GM, const SmallMatrix& Cx, int num_x,
                                             const std::vector<int>& active, double drop_ratio) {
  const int s = Cx.rows;
  SmallMatrix Z(s, static_cast<int>(active.size()));
  bool any = false;
  for (int c = 0; c < Z.cols; ++c)
    for (int i = num_x; i < s; ++i) {
      Z(i, c) = Cx(i, active[c]);
      any = any || Z(i, c) != 0.0;
    }
  if (!any) return SmallMatrix(s, 0);
  // Two rounds of: Z -= Cx (Cx^T GM Z), then SVQB in the GM inner product. One SVQB leaves
  // T^T G T - I of the order eps / (smallest kept eigenvalue of the scaled Gram matrix), large
  // when the active columns are nearly dependent; the second round starts from a nearly
  // orthonormal Z and restores orthogonality to rounding ("twice is enough").
  for (int round = 0; round < 2; ++round) {
    const SmallMatrix coeff = multiply(Cx, multiply(GM, Z), true);
    const SmallMatrix removed = multiply(Cx, coeff);
    for (std::size_t e = 0; e < Z.data.size(); ++e) Z.data[e] -= removed.data[e];
    const SmallMatrix gram = multiply(Z, multiply(GM, Z), true);
    const SmallMatrix T = orthonormalizing_transform(gram, drop_ratio);
    Z = multiply(Z, T);
    if (Z.cols == 0) break;
  }
  return Z;
}

}  // namespace lobpcg
}  // namespace Impl
}  // namespace Sprocket
