#pragma once
/// \file Sprocket_Generators.hpp
/// Deterministic matrix generators (same parameters and seed -> same matrix on every machine:
/// they use their own random number generator, not `<random>`'s distributions, whose output
/// differs between standard libraries). Sizes reach tens of millions of rows.
///
/// Every generator also has a string form accepted wherever a matrix file is, parsed by
/// `gen::from_spec` and `load_matrix`:
///
///   `gen:poisson2d:n=<grid side>[,points=5|9]`          n^2 rows
///   `gen:poisson3d:n=<grid side>[,points=7|27]`         n^3 rows
///   `gen:elasticity:n=<grid side>[,dof=3][,seed=S]`     n^3 nodes, dense dof x dof blocks
///                                                        over a 27-point node stencil, SPD
///   `gen:banded:n=<rows>,bw=<half bandwidth>[,fill=<fraction of the band>][,seed=S]`
///   `gen:uniform:n=<rows>[,cols=<cols>],avg=<avg row length>[,seed=S]`
///   `gen:rmat:scale=<log2 rows>[,ef=<edge factor>][,a=0.57,b=0.19,c=0.19][,seed=S]`
///
/// Seeds default to 1. Unknown generators, unknown or missing keys and malformed values throw
/// ParseError; the C++ functions throw InvalidArgument on invalid arguments.

#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {
namespace gen {

/// 2-D Poisson on an n x n grid, Dirichlet boundary: 5-point (4, -1) or 9-point (8, -1).
HostCsr poisson2d(int64_t n, int points = 5);
/// 3-D Poisson on an n x n x n grid: 7-point (6, -1) or 27-point (26, -1).
HostCsr poisson3d(int64_t n, int points = 7);
/// Linear-elasticity-like block matrix: n^3 grid nodes, `dof` unknowns per node (1 <= dof <= 64),
/// each pair of neighbouring nodes (27-point stencil) coupled by a dense dof x dof block. Symmetric
/// positive definite (strictly diagonally dominant with positive diagonal). Unknown (node p,
/// component a) is row p*dof + a, so the matrix is exactly block-CSR with block size dof.
/// Values are hashed from the seed and the node/component pairs (so symmetry is exact):
/// same-component couplings negative, weaker for edge and corner neighbours, cross-component
/// couplings small of either sign.
HostCsr elasticity3d(int64_t n, int dof = 3, uint64_t seed = 1);
/// The node coordinates of elasticity3d's grid: node p = (z n + y) n + x at (x, y, z), as 3 n^3
/// values (x, y, z of node 0, then node 1, ...): what rigid_body_modes takes.
std::vector<double> elasticity3d_coordinates(int64_t n);
/// Random banded matrix: row i has entries at columns within [i - bw, i + bw] (clipped), each
/// present with probability `fill` (the diagonal always), values uniform in [-1, 1]. The diagonal's
/// value is drawn like the others: the matrix is a structural test case, not made dominant.
HostCsr banded(int64_t n, int64_t half_bandwidth, double fill = 0.5, uint64_t seed = 1);
/// Erdos-Renyi: rows x cols with `avg_row` uniformly placed entries per row on average,
/// values uniform in [-1, 1]. round(rows * avg_row) positions are drawn and duplicates merged,
/// so the mean row length falls short of avg_row by a factor of about 1 - avg_row / (2 cols).
/// Requires 0 <= avg_row <= cols.
HostCsr uniform_random(int64_t rows, int64_t cols, double avg_row, uint64_t seed = 1);
/// R-MAT power-law graph with 2^scale vertices (1 <= scale <= 30) and edge_factor * 2^scale
/// edges (Graph500 parameters a = 0.57, b = 0.19, c = 0.19 by default, d = 1 - a - b - c), values
/// uniform in [-1, 1], duplicate edges merged, self-loops kept, not symmetrized. Vertex labels
/// are scrambled by a seeded bijection (as Graph500 permutes them), so the heavy rows are spread
/// over the index range. Row lengths range over orders of magnitude.
HostCsr rmat(int scale, double edge_factor = 16, uint64_t seed = 1, double a = 0.57,
             double b = 0.19, double c = 0.19);

/// Parses "gen:<name>:<key>=<value>,..." and runs the generator. Every problem (unknown
/// generator or key, missing key, malformed or out-of-range value, a size that does not fit
/// 32-bit ordinals) throws ParseError with file = spec and line 0.
HostCsr from_spec(const std::string& spec);

}  // namespace gen

/// A file (Matrix Market, plain or gzipped) or a "gen:..." specification, as a HostCsr.
HostCsr load_matrix(const std::string& file_or_spec);

}  // namespace Sprocket
