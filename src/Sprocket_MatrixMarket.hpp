#pragma once
/// \file Sprocket_MatrixMarket.hpp
/// Matrix Market reader and writer (coordinate format).
///
/// Reading accepts `%%MatrixMarket matrix coordinate <real|integer|pattern>
/// <general|symmetric|skew-symmetric>` (keywords in any case), plain or gzip-compressed (decided
/// by the content, not by the file name), 1-based indices, '%' comment lines and blank lines
/// anywhere after the banner, LF or CRLF line ends. Symmetric and skew-symmetric files are
/// expanded to both triangles (skew: mirrored entries negated; a diagonal entry is stored once);
/// they may store either triangle but not both, since mirroring would then count every pair
/// twice. Pattern entries get value 1; duplicates are summed; explicit zeros are kept. Columns
/// come out sorted per row. Real values are whatever strtod parses completely (so nan, inf and
/// hex floats are accepted, values beyond the double range are not); integer values must be
/// integers no larger than 2^53 in magnitude, so that the double holds them exactly. Rows and
/// columns must be below INT_MAX.
///
/// Anything else throws Sprocket::ParseError naming the file, the line and the problem: array,
/// complex or hermitian files (named as unsupported), pattern skew-symmetric, a bad banner or
/// size line, an index out of range, too few or too many entries, a missing, non-numeric or
/// extra field. Problems not tied to a line use line 0: a file that cannot be opened or read,
/// and a truncated or corrupt gzip stream (zlib detects damage per decoded chunk, so the message
/// says after which line it was found instead).
///
/// Numbers are read with strtod and written with printf, so the program's LC_NUMERIC locale must
/// use '.' as the decimal point (the default "C" locale does).

#include <string>

#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {

/// Reads a Matrix Market file (`.mtx` or `.mtx.gz`).
HostCsr read_matrix_market(const std::string& path);

/// Reads Matrix Market text held in memory; `name` stands in for the file name in errors.
HostCsr read_matrix_market_string(const std::string& text, const std::string& name = "<string>");
/// What write_matrix_market writes: every stored entry (general) or the lower triangle (symmetric).
enum class MatrixMarketSymmetry { general, symmetric };

/// Writes `coordinate real general` (every stored entry, in storage order), or `coordinate real
/// symmetric` (the lower triangle including the diagonal; throws InvalidArgument, naming the
/// first position where A(i,j) != A(j,i), if A is not square and numerically symmetric; an entry
/// that is not stored counts as 0). Values are written with 17 significant digits ("%.17g") so
/// that reading back is bit-exact. A path ending in `.gz` is written gzip-compressed (level 1,
/// for speed). Throws InvalidArgument if A is structurally invalid (HostCsr::validate), and
/// Sprocket::Error naming the path if the file cannot be opened, written or closed.
void write_matrix_market(const std::string& path, const HostCsr& A,
                         MatrixMarketSymmetry symmetry = MatrixMarketSymmetry::general);

}  // namespace Sprocket
