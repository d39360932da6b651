// Smoothed aggregation, host side: strength graph, aggregation, tentative prolongator, smoothed
// prolongator values, the coarsest level's dense LU (see smoothed_aggregation_setup.hpp).
#include "impl/precond/smoothed_aggregation_setup.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "Sprocket_Error.hpp"
#include "impl/blocks/lapack.hpp"

namespace Sprocket {
namespace Impl {
namespace precond {

std::vector<int64_t> uniform_nodes(int64_t num_rows, int block_size) {
  SPROCKET_REQUIRE(block_size >= 1, "smoothed aggregation: block_size = ", block_size, " (must be >= 1)");
  std::vector<int64_t> node_ptr;
  node_ptr.reserve(num_rows / block_size + 2);
  for (int64_t r = 0; r < num_rows; r += block_size) node_ptr.push_back(r);
  node_ptr.push_back(num_rows);
  return node_ptr;
}

namespace {

std::vector<int64_t> node_of_rows(const std::vector<int64_t>& node_ptr) {
  const int64_t nodes = static_cast<int64_t>(node_ptr.size()) - 1;
  std::vector<int64_t> node_of(node_ptr.back());
  for (int64_t I = 0; I < nodes; ++I)
    for (int64_t r = node_ptr[I]; r < node_ptr[I + 1]; ++r) node_of[r] = I;
  return node_of;
}

}  // namespace

StrengthGraph strength_graph(const HostCsr& A, const std::vector<int64_t>& node_ptr, double theta) {
  SPROCKET_REQUIRE(A.num_rows == A.num_cols, "smoothed aggregation: A must be square, it is ", A.num_rows, " x ",
                   A.num_cols);
  SPROCKET_REQUIRE(!node_ptr.empty() && node_ptr.front() == 0 && node_ptr.back() == A.num_rows,
                   "smoothed aggregation: the nodes cover ", node_ptr.empty() ? 0 : node_ptr.back(), " of ",
                   A.num_rows, " rows");
  SPROCKET_REQUIRE(theta >= 0 && theta < 1, "smoothed aggregation: strength_threshold = ", theta,
                   " (must be in [0, 1))");
  const int64_t nodes = static_cast<int64_t>(node_ptr.size()) - 1;
  const std::vector<int64_t> node_of = node_of_rows(node_ptr);
  // Pass 1: every node's block norms (squared) towards its neighbours, in a dense accumulator
  // indexed by node with the list of touched nodes (one node's rows at a time).
  std::vector<double> block(nodes, 0.0);
  std::vector<char> touched(nodes, 0);
  std::vector<int64_t> list;
  std::vector<int64_t> ptr(nodes + 1, 0);
  std::vector<int64_t> adj;
  std::vector<double> norm;
  std::vector<double> diagonal_norm(nodes, 0.0);
  for (int64_t I = 0; I < nodes; ++I) {
    list.clear();
    for (int64_t r = node_ptr[I]; r < node_ptr[I + 1]; ++r)
      for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
        const int64_t J = node_of[A.entries[k]];
        if (!touched[J]) {
          touched[J] = 1;
          list.push_back(J);
        }
        block[J] += A.values[k] * A.values[k];
      }
    std::sort(list.begin(), list.end());
    for (const int64_t J : list) {
      if (J == I) {
        diagonal_norm[I] = std::sqrt(block[J]);
      } else if (block[J] > 0) {
        adj.push_back(J);
        norm.push_back(std::sqrt(block[J]));
      }
      block[J] = 0;
      touched[J] = 0;
    }
    ptr[I + 1] = static_cast<int64_t>(adj.size());
  }
  // Pass 2: keep the strong ones.
  StrengthGraph G;
  G.num_nodes = nodes;
  G.ptr.assign(nodes + 1, 0);
  G.adj.reserve(adj.size());
  G.weight.reserve(adj.size());
  for (int64_t I = 0; I < nodes; ++I) {
    for (int64_t k = ptr[I]; k < ptr[I + 1]; ++k) {
      const int64_t J = adj[k];
      if (norm[k] > theta * std::sqrt(diagonal_norm[I] * diagonal_norm[J])) {
        G.adj.push_back(J);
        G.weight.push_back(norm[k]);
      }
    }
    G.ptr[I + 1] = static_cast<int64_t>(G.adj.size());
  }
  return G;
}

Aggregates aggregate_nodes(const StrengthGraph& G) {
  const int64_t nodes = G.num_nodes;
  constexpr int64_t free_node = -1;
  Aggregates agg;
  agg.aggregate.assign(nodes, free_node);
  std::vector<char> from_phase1(nodes, 0);
  // Pass 1: roots whose whole strong neighbourhood is free.
  for (int64_t I = 0; I < nodes; ++I) {
    if (agg.aggregate[I] != free_node || G.ptr[I + 1] == G.ptr[I]) continue;
    bool all_free = true;
    for (int64_t k = G.ptr[I]; k < G.ptr[I + 1] && all_free; ++k) all_free = agg.aggregate[G.adj[k]] == free_node;
    if (!all_free) continue;
    const int64_t a = agg.count++;
    agg.aggregate[I] = a;
    from_phase1[I] = 1;
    for (int64_t k = G.ptr[I]; k < G.ptr[I + 1]; ++k) {
      agg.aggregate[G.adj[k]] = a;
      from_phase1[G.adj[k]] = 1;
    }
  }
  // Pass 2: free nodes join the aggregate of their strongest neighbour from pass 1 (not through
  // nodes that joined in this pass, so aggregates do not grow chains).
  std::vector<int64_t> joined(nodes, free_node);
  for (int64_t I = 0; I < nodes; ++I) {
    if (agg.aggregate[I] != free_node) continue;
    double best = -1;
    for (int64_t k = G.ptr[I]; k < G.ptr[I + 1]; ++k) {
      const int64_t J = G.adj[k];
      if (from_phase1[J] && G.weight[k] > best) {
        best = G.weight[k];
        joined[I] = agg.aggregate[J];
      }
    }
  }
  for (int64_t I = 0; I < nodes; ++I)
    if (joined[I] != free_node) agg.aggregate[I] = joined[I];
  // Pass 3: what is left (with strong neighbours) forms aggregates with its free neighbours.
  for (int64_t I = 0; I < nodes; ++I) {
    if (agg.aggregate[I] != free_node || G.ptr[I + 1] == G.ptr[I]) continue;
    const int64_t a = agg.count++;
    agg.aggregate[I] = a;
    for (int64_t k = G.ptr[I]; k < G.ptr[I + 1]; ++k)
      if (agg.aggregate[G.adj[k]] == free_node) agg.aggregate[G.adj[k]] = a;
  }
  for (int64_t I = 0; I < nodes; ++I)
    if (agg.aggregate[I] == free_node) ++agg.left_out;
  return agg;
}

TentativeProlongator tentative_prolongator(const Aggregates& agg, const std::vector<int64_t>& node_ptr,
                                           const std::vector<double>& null_space, int k) {
  const int64_t nodes = static_cast<int64_t>(node_ptr.size()) - 1;
  const int64_t n = node_ptr.back();
  SPROCKET_REQUIRE(k >= 1, "smoothed aggregation: the near null space has ", k, " columns (must be >= 1)");
  SPROCKET_REQUIRE(static_cast<int64_t>(null_space.size()) == n * k, "smoothed aggregation: the near null space has ",
                   null_space.size(), " values for ", n, " rows x ", k, " columns");
  SPROCKET_REQUIRE(static_cast<int64_t>(agg.aggregate.size()) == nodes, "smoothed aggregation: ",
                   agg.aggregate.size(), " aggregate ids for ", nodes, " nodes");
  // Rows of every aggregate, in increasing order (counting sort by aggregate).
  std::vector<int64_t> agg_ptr(agg.count + 1, 0);
  for (int64_t I = 0; I < nodes; ++I)
    if (agg.aggregate[I] >= 0) agg_ptr[agg.aggregate[I] + 1] += node_ptr[I + 1] - node_ptr[I];
  for (int64_t a = 0; a < agg.count; ++a) agg_ptr[a + 1] += agg_ptr[a];
  std::vector<int64_t> agg_rows(agg_ptr.back());
  {
    std::vector<int64_t> fill(agg_ptr.begin(), agg_ptr.end() - 1);
    for (int64_t I = 0; I < nodes; ++I)
      if (agg.aggregate[I] >= 0)
        for (int64_t r = node_ptr[I]; r < node_ptr[I + 1]; ++r) agg_rows[fill[agg.aggregate[I]]++] = r;
  }
  // Per aggregate: modified Gram-Schmidt, twice (one pass loses orthogonality for nearly
  // dependent modes such as rotations of a small, flat aggregate).
  TentativeProlongator T;
  std::vector<double> q_values(static_cast<size_t>(agg_ptr.back()) * k, 0.0);  // per row: its k slots
  std::vector<int> rank(agg.count, 0);
  std::vector<double> coarse;  // rows of R, aggregate by aggregate (rank_a rows of k)
  coarse.reserve(static_cast<size_t>(agg.count) * k * k);
  std::vector<double> Q, R;
  for (int64_t a = 0; a < agg.count; ++a) {
    const int64_t m = agg_ptr[a + 1] - agg_ptr[a];
    Q.assign(static_cast<size_t>(m) * k, 0.0);  // column-major m x k
    R.assign(static_cast<size_t>(k) * k, 0.0);  // column-major k x k
    for (int j = 0; j < k; ++j)
      for (int64_t i = 0; i < m; ++i) Q[i + j * m] = null_space[agg_rows[agg_ptr[a] + i] + j * n];
    std::vector<int> kept;
    for (int j = 0; j < k; ++j) {
      double* qj = &Q[static_cast<size_t>(j) * m];
      double before = 0;
      for (int64_t i = 0; i < m; ++i) before += qj[i] * qj[i];
      before = std::sqrt(before);
      for (int pass = 0; pass < 2; ++pass)
        for (const int c : kept) {
          const double* qc = &Q[static_cast<size_t>(c) * m];
          double dot = 0;
          for (int64_t i = 0; i < m; ++i) dot += qc[i] * qj[i];
          for (int64_t i = 0; i < m; ++i) qj[i] -= dot * qc[i];
          R[c + j * k] += dot;
        }
      double after = 0;
      for (int64_t i = 0; i < m; ++i) after += qj[i] * qj[i];
      after = std::sqrt(after);
      if (!(after > 1e-8 * before) || after == 0) {
        ++T.dropped_columns;
        continue;
      }
      for (int64_t i = 0; i < m; ++i) qj[i] /= after;
      R[j + j * k] = after;
      kept.push_back(j);
    }
    rank[a] = static_cast<int>(kept.size());
    for (int64_t i = 0; i < m; ++i)
      for (size_t c = 0; c < kept.size(); ++c)
        q_values[static_cast<size_t>(agg_ptr[a] + i) * k + c] = Q[i + static_cast<size_t>(kept[c]) * m];
    for (const int c : kept)
      for (int j = 0; j < k; ++j) coarse.push_back(R[c + j * k]);  // row c of R
  }
  // Coarse numbering: aggregate a's kept columns are consecutive.
  std::vector<int64_t> offset(agg.count + 1, 0);
  for (int64_t a = 0; a < agg.count; ++a) offset[a + 1] = offset[a] + rank[a];
  const int64_t nc = offset.back();
  SPROCKET_REQUIRE(nc <= std::numeric_limits<int>::max(), "smoothed aggregation: ", nc,
                   " coarse unknowns do not fit int columns");
  T.coarse_node_ptr.clear();
  for (int64_t a = 0; a < agg.count; ++a)
    if (rank[a] > 0) T.coarse_node_ptr.push_back(offset[a]);
  T.coarse_node_ptr.push_back(nc);
  T.coarse_null_space.assign(static_cast<size_t>(nc) * k, 0.0);
  for (int64_t c = 0; c < nc; ++c)
    for (int j = 0; j < k; ++j) T.coarse_null_space[c + j * nc] = coarse[static_cast<size_t>(c) * k + j];
  // P by rows: row r of aggregate a holds its rank_a values in columns offset_a ...
  std::vector<int64_t> position_in_agg(n, -1);
  std::vector<int64_t> agg_of_row(n, -1);
  for (int64_t a = 0; a < agg.count; ++a)
    for (int64_t i = agg_ptr[a]; i < agg_ptr[a + 1]; ++i) {
      position_in_agg[agg_rows[i]] = i;
      agg_of_row[agg_rows[i]] = a;
    }
  HostCsr& P = T.P;
  P.num_rows = n;
  P.num_cols = nc;
  P.row_map.assign(n + 1, 0);
  for (int64_t r = 0; r < n; ++r) P.row_map[r + 1] = P.row_map[r] + (agg_of_row[r] >= 0 ? rank[agg_of_row[r]] : 0);
  P.entries.resize(P.row_map[n]);
  P.values.resize(P.row_map[n]);
  for (int64_t r = 0; r < n; ++r) {
    const int64_t a = agg_of_row[r];
    if (a < 0) continue;
    for (int c = 0; c < rank[a]; ++c) {
      P.entries[P.row_map[r] + c] = static_cast<int>(offset[a] + c);
      P.values[P.row_map[r] + c] = q_values[static_cast<size_t>(position_in_agg[r]) * k + c];
    }
  }
  return T;
}

HostCsr smoothed_prolongator(const HostCsr& Pt, const HostCsr& AP, const std::vector<double>& inverse_diagonal,
                             double omega, std::vector<int64_t>* positions) {
  SPROCKET_REQUIRE(Pt.num_rows == AP.num_rows && Pt.num_cols == AP.num_cols, "smoothed aggregation: A P is ",
                   AP.num_rows, " x ", AP.num_cols, " but P is ", Pt.num_rows, " x ", Pt.num_cols);
  HostCsr P = AP;
  for (int64_t r = 0; r < P.num_rows; ++r)
    for (int64_t k = P.row_map[r]; k < P.row_map[r + 1]; ++k) P.values[k] = -omega * inverse_diagonal[r] * AP.values[k];
  if (positions) positions->assign(Pt.nnz(), -1);
  for (int64_t r = 0; r < Pt.num_rows; ++r) {
    // Both rows sorted: merge.
    int64_t q = P.row_map[r];
    for (int64_t k = Pt.row_map[r]; k < Pt.row_map[r + 1]; ++k) {
      while (q < P.row_map[r + 1] && P.entries[q] < Pt.entries[k]) ++q;
      SPROCKET_REQUIRE(q < P.row_map[r + 1] && P.entries[q] == Pt.entries[k], "smoothed aggregation: row ", r,
                       " of A P lacks column ", Pt.entries[k], " of the tentative prolongator (A has no stored ",
                       "diagonal entry in that row?)");
      P.values[q] += Pt.values[k];
      if (positions) (*positions)[k] = q;
    }
  }
  return P;
}

DenseLu dense_lu(const HostCsr& A, const std::string& who) {
  SPROCKET_REQUIRE(A.num_rows == A.num_cols, who, ": the coarsest matrix must be square, it is ", A.num_rows, " x ",
                   A.num_cols);
  SPROCKET_REQUIRE(A.num_rows <= 20000, who, ": the coarsest matrix has ", A.num_rows,
                   " rows, too many for a dense LU");
  DenseLu f;
  f.n = A.num_rows;
  f.lu.assign(static_cast<size_t>(f.n) * f.n, 0.0);
  for (int64_t r = 0; r < f.n; ++r)
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) f.lu[r + static_cast<size_t>(A.entries[k]) * f.n] += A.values[k];
  f.pivots.assign(f.n, 0);
  if (f.n == 0) return f;
  const int n = static_cast<int>(f.n);
  int info = 0;
  dgetrf_(&n, &n, f.lu.data(), &n, f.pivots.data(), &info);
  SPROCKET_REQUIRE(info >= 0, who, ": dgetrf argument ", -info, " is invalid");
  SPROCKET_REQUIRE(info == 0, who, ": the coarsest matrix (", f.n, " x ", f.n, ") is singular: u(", info - 1, ", ",
                   info - 1, ") = 0 (a singular A, e.g. a pure Neumann problem, needs its null space removed)");
  return f;
}

void dense_lu_solve(const DenseLu& f, double* X, int64_t s) {
  if (f.n == 0 || s == 0) return;
  const int n = static_cast<int>(f.n), nrhs = static_cast<int>(s);
  int info = 0;
  const char trans = 'N';
  dgetrs_(&trans, &n, &nrhs, f.lu.data(), &n, f.pivots.data(), X, &n, &info, 1);
  SPROCKET_REQUIRE(info == 0, "smoothed aggregation: dgetrs failed (info ", info, ")");
}

}  // namespace precond
}  // namespace Impl

std::vector<double> rigid_body_modes(const std::vector<double>& coordinates, int dimension) {
  SPROCKET_REQUIRE(dimension == 2 || dimension == 3, "rigid_body_modes: dimension = ", dimension,
                   " (must be 2 or 3)");
  SPROCKET_REQUIRE(coordinates.size() % dimension == 0, "rigid_body_modes: ", coordinates.size(),
                   " coordinates are not a multiple of the dimension ", dimension);
  const int64_t nodes = static_cast<int64_t>(coordinates.size()) / dimension;
  const int64_t n = nodes * dimension;
  const int modes = dimension == 3 ? 6 : 3;
  double centre[3] = {0, 0, 0};
  for (int64_t p = 0; p < nodes; ++p)
    for (int d = 0; d < dimension; ++d) centre[d] += coordinates[p * dimension + d];
  for (int d = 0; d < dimension; ++d) centre[d] /= std::max<int64_t>(nodes, 1);
  std::vector<double> B(static_cast<size_t>(n) * modes, 0.0);
  auto at = [&](int64_t row, int mode) -> double& { return B[row + static_cast<size_t>(mode) * n]; };
  for (int64_t p = 0; p < nodes; ++p) {
    const double x = coordinates[p * dimension] - centre[0];
    const double y = coordinates[p * dimension + 1] - centre[1];
    const int64_t r = p * dimension;
    for (int d = 0; d < dimension; ++d) at(r + d, d) = 1;  // translations
    if (dimension == 2) {
      at(r, 2) = -y;  // rotation in the plane
      at(r + 1, 2) = x;
    } else {
      const double z = coordinates[p * dimension + 2] - centre[2];
      at(r, 3) = -y;  // about z
      at(r + 1, 3) = x;
      at(r + 1, 4) = -z;  // about x
      at(r + 2, 4) = y;
      at(r, 5) = z;  // about y
      at(r + 2, 5) = -x;
    }
  }
  return B;
}

}  // namespace Sprocket
