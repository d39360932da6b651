#pragma once
/// \file lobpcg_dense.hpp
/// The small dense half of LOBPCG, on the host in double: Gram matrices of the basis
/// [X P W] (at most 3m x 3m for block size m) and the coefficient matrices that recombine the
/// basis. Nothing here touches an n-long vector.
///
///  - orthonormalizing_transform: SVQB (Stathopoulos and Wu): from the Gram matrix G = V^T M V
///    of a block V, a transform T with (V T)^T M (V T) = I. G is first scaled to unit diagonal
///    (D = diag(G)^{-1/2}), so columns of very different lengths (residuals of pairs at different
///    stages of convergence) are treated alike; directions whose eigenvalue of D G D is below
///    drop_ratio times the largest are numerically dependent and are dropped instead of being
///    blown up, so the transform never divides by noise. Unlike Cholesky-QR it cannot fail.
///  - Rayleigh-Ritz (blocks::symmetric_definite_eigen): GA c = theta GM c by LAPACK dsygv
///    (Cholesky of GM inside: GM is checked close to the identity by the caller first, so the
///    factorization is well conditioned).
///  - conjugate_direction_coefficients: the next P as a combination of the basis, orthogonal to
///    the new X in the small space (Hetmaniuk and Lehoucq, "Basis selection in LOBPCG", 2006),
///    so that [X P] stays M-orthonormal without any n-long orthogonalization.
#include <vector>

#include "impl/blocks/dense_matrix.hpp"

namespace Sprocket {
namespace Impl {
namespace lobpcg {

using blocks::DenseMatrix;

/// SVQB transform of a block with Gram matrix G (w x w): T (w x r, r <= w) with T^T G T = I,
/// dropping directions whose eigenvalue of D G D (unit diagonal) is at most drop_ratio times the
/// largest, and columns whose squared length G(j, j) is zero or not finite. r == 0 when nothing
/// is left. conditioning (optional): smallest kept eigenvalue of D G D over the largest; T^T G T
/// deviates from I by about eps / conditioning.
DenseMatrix orthonormalizing_transform(const DenseMatrix& G, double drop_ratio, double* conditioning = nullptr);

/// Coefficients Y (s x r) of the next conjugate directions P = S Y in the basis S (s columns, the
/// first num_x of them the old X), given GM = S^T M S and the coefficients Cx (s x m) of the new
/// X: the columns `active` of Cx with their X rows zeroed (the W and P parts of those Ritz
/// vectors, i.e. LOBPCG's P), made GM-orthogonal to Cx and GM-orthonormal by SVQB with
/// drop_ratio, two rounds of both. r < |active| when directions are dependent.
DenseMatrix conjugate_direction_coefficients(const DenseMatrix& GM, const DenseMatrix& Cx, int num_x,
                                             const std::vector<int>& active, double drop_ratio);

}  // namespace lobpcg
}  // namespace Impl
}  // namespace Sprocket
