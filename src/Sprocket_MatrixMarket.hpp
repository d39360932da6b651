#pragma once
/// \file Sprocket_MatrixMarket.hpp
/// Matrix Market reader and writer (coordinate format).
///
/// Reading accepts `%%MatrixMarket matrix coordinate <real|integer|pattern>
/// <general|symmetric|skew-symmetric>`, plain or gzip-compressed (decided by content, not by
/// the file name), 1-based indices, comments and blank lines. Symmetric and skew-symmetric
/// files are expanded to both triangles (skew: mirrored entries negated); pattern entries get
/// value 1; duplicates are summed; explicit zeros are kept. Columns come out sorted per row.
/// Anything else (array or complex/hermitian files, a bad header or size line, an index out of
/// range, a wrong entry count, a non-numeric field, a truncated gzip stream) throws
/// Sprocket::ParseError naming the file, the line and the problem.

#include <string>

#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {

/// Reads a Matrix Market file (`.mtx` or `.mtx.gz`).
HostCsr read_matrix_market(const std::string& path);

/// Reads Matrix Market text held in memory; `name` stands in for the file name in errors.
HostCsr read_matrix_market_string(const std::string& text, const std::string& name = "<string>");

enum class MatrixMarketSymmetry { general, symmetric };

/// Writes `coordinate real general` (every stored entry), or `coordinate real symmetric` (the
/// lower triangle; throws InvalidArgument if A is not square and numerically symmetric).
/// Values are written with 17 significant digits so that reading back is exact. A path ending in
/// `.gz` is written gzip-compressed.
void write_matrix_market(const std::string& path, const HostCsr& A,
                         MatrixMarketSymmetry symmetry = MatrixMarketSymmetry::general);

}  // namespace Sprocket
