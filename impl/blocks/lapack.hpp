#pragma once
/// \file lapack.hpp
/// Fortran LAPACK / BLAS prototypes for the small dense work on the host (dense_matrix.cpp,
/// block GMRES least squares, block-Jacobi LU). The library links LAPACK (impl/CMakeLists.txt,
/// find_package(LAPACK), which brings BLAS with it); Kokkos Kernels is built without its
/// BLAS/LAPACK TPLs, so nothing else declares these names.
///
/// ABI: reference LAPACK as compiled by gfortran (Debian's liblapack3, also OpenBLAS): every
/// argument by pointer, column-major arrays, and one hidden `size_t` length per CHARACTER
/// argument appended after the visible ones (gfortran >= 8). Passing the hidden lengths is
/// required for correctness with gfortran's tail calls and harmless elsewhere, so declare them.
///
/// Add a prototype here with the routine's Fortran argument order; keep the list sorted.
#include <cstddef>

extern "C" {

/// BLAS: C = alpha op(A) op(B) + beta C.
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc, std::size_t transa_len, std::size_t transb_len);

/// Generates an elementary reflector H = I - tau v v^T with H [alpha; x] = [beta; 0].
void dlarfg_(const int* n, double* alpha, double* x, const int* incx, double* tau);

/// LU factorization with partial pivoting (row interchanges) of an m x n matrix.
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);

/// Inverse of a matrix from its dgetrf factors.
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work,
             const int* lwork, int* info);

/// Solves A X = B (trans = 'N') with nrhs right-hand sides from dgetrf's factors.
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, std::size_t trans_len);

/// Cholesky factorization of a symmetric positive definite matrix (uplo = 'U': A = U^T U);
/// info > 0 when the leading minor of that order is not positive definite.
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t uplo_len);

/// Eigenvalues (ascending) and, for jobz = 'V', orthonormal eigenvectors of a symmetric matrix.
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
            double* work, const int* lwork, int* info, std::size_t jobz_len, std::size_t uplo_len);

/// Symmetric-definite generalized eigenproblem A x = lambda B x (itype 1), B positive definite:
/// eigenvalues ascending, eigenvectors B-orthonormal; info > n when B is not positive definite.
void dsygv_(const int* itype, const char* jobz, const char* uplo, const int* n, double* a,
            const int* lda, double* b, const int* ldb, double* w, double* work, const int* lwork,
            int* info, std::size_t jobz_len, std::size_t uplo_len);

/// Solves a triangular system with nrhs right-hand sides.
void dtrtrs_(const char* uplo, const char* trans, const char* diag, const int* n, const int* nrhs,
             const double* a, const int* lda, double* b, const int* ldb, int* info,
             std::size_t uplo_len, std::size_t trans_len, std::size_t diag_len);

/// Inverse of a triangular matrix, in place.
void dtrtri_(const char* uplo, const char* diag, const int* n, double* a, const int* lda, int* info,
             std::size_t uplo_len, std::size_t diag_len);

}  // extern "C"
