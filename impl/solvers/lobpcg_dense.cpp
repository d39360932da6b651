#include "impl/solvers/lobpcg_dense.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace Sprocket {
namespace Impl {
namespace lobpcg {

using blocks::multiply;
using blocks::symmetric_eigen;

DenseMatrix orthonormalizing_transform(const DenseMatrix& G, double drop_ratio, double* conditioning) {
  if (conditioning) *conditioning = 0;
  const int w = G.rows;
  // Columns of zero (or non-finite) length carry no direction: they get no scale and drop out.
  std::vector<double> scale(w, 0.0);
  for (int j = 0; j < w; ++j) {
    const double g = G(j, j);
    if (std::isfinite(g) && g > 0) scale[j] = 1.0 / std::sqrt(g);
  }
  DenseMatrix scaled(w, w);
  for (int j = 0; j < w; ++j)
    for (int i = 0; i < w; ++i) {
      const double v = scale[i] * G(i, j) * scale[j];
      scaled(i, j) = std::isfinite(v) ? v : 0.0;
    }
  std::vector<double> theta;
  DenseMatrix V;
  if (w == 0 || !symmetric_eigen(scaled, theta, V)) return DenseMatrix(w, 0);
  const double largest = theta.empty() ? 0.0 : theta.back();
  std::vector<int> kept;
  for (int i = w - 1; i >= 0; --i)  // largest first: the best-determined directions lead
    if (largest > 0 && theta[i] > drop_ratio * largest) kept.push_back(i);
  if (conditioning && !kept.empty()) *conditioning = theta[kept.back()] / largest;
  DenseMatrix T(w, static_cast<int>(kept.size()));
  for (int c = 0; c < T.cols; ++c) {
    const int e = kept[c];
    const double inv_sqrt = 1.0 / std::sqrt(theta[e]);
    for (int i = 0; i < w; ++i) T(i, c) = scale[i] * V(i, e) * inv_sqrt;
  }
  return T;
}

DenseMatrix conjugate_direction_coefficients(const DenseMatrix& GM, const DenseMatrix& Cx, int num_x,
                                             const std::vector<int>& active, double drop_ratio) {
  const int s = Cx.rows;
  DenseMatrix Z(s, static_cast<int>(active.size()));
  bool any = false;
  for (int c = 0; c < Z.cols; ++c)
    for (int i = num_x; i < s; ++i) {
      Z(i, c) = Cx(i, active[c]);
      any = any || Z(i, c) != 0.0;
    }
  if (!any) return DenseMatrix(s, 0);
  // Two rounds of: Z -= Cx (Cx^T GM Z), then SVQB in the GM inner product. One SVQB leaves
  // T^T G T - I of the order eps / (smallest kept eigenvalue of the scaled Gram matrix), large
  // when the active columns are nearly dependent; the second round starts from a nearly
  // orthonormal Z and restores orthogonality to rounding ("twice is enough").
  for (int round = 0; round < 2; ++round) {
    const DenseMatrix coeff = multiply(Cx, multiply(GM, Z), true);
    const DenseMatrix removed = multiply(Cx, coeff);
    for (std::size_t e = 0; e < Z.data.size(); ++e) Z.data[e] -= removed.data[e];
    const DenseMatrix gram = multiply(Z, multiply(GM, Z), true);
    const DenseMatrix T = orthonormalizing_transform(gram, drop_ratio);
    Z = multiply(Z, T);
    if (Z.cols == 0) break;
  }
  return Z;
}

}  // namespace lobpcg
}  // namespace Impl
}  // namespace Sprocket
