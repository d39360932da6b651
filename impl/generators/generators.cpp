// Deterministic matrix generators and the "gen:" specification parser.
//
// Determinism: every random choice comes from this file's own generators, never from <random>'s
// distributions (whose algorithms differ between standard libraries). SplitMix64 turns (seed,
// purpose) into independent stream seeds and also serves as the stateless hash of the elasticity
// generator; xoshiro256** produces the streams. Uniform doubles use the top 53 bits of a draw,
// bounded integers the high half of a 64x64-bit product, probabilities are compared as integer
// thresholds. Floating-point work on random values is plain correctly rounded IEEE arithmetic,
// written so that fusing it into FMAs cannot change a result (checked with GCC and Clang at -O0
// to -O3 -march=native -ffp-contract=fast; the tests pin fingerprints of the output). Each stream
// is consumed in a fixed sequential order (no threads), and sorted output does not depend on the
// sorting algorithm, so a seed gives bit-identical matrices everywhere.
//
// Memory and speed: the structured generators (Poisson, elasticity, banded) write rows straight
// into HostCsr in column order (no triplets; exact or near-exact reservation). The scattered ones
// (uniform, R-MAT) replay their edge stream instead of storing triplets: once to size row
// buckets, once to fill them with packed (row, col) pairs; each bucket is then counting-sorted,
// sorted and de-duplicated in cache (csr_from_edge_stream). Values are drawn afterwards in CSR
// order. Peak memory is about 12 bytes per generated edge, roughly the final CSR's size.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <locale>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_Memory.hpp"
#include "Sprocket_Generators.hpp"

namespace Sprocket {
namespace gen {
namespace {

constexpr int64_t kMaxOrdinal = std::numeric_limits<int>::max();  // exclusive, as from_triplets

/// Checks a CSR of this size (row map, int columns, double values) against the host memory
/// ceiling before a generator allocates it (Sprocket_Memory.hpp): parameters, like a file's size
/// line, can ask for more than the machine holds.
void require_csr_memory(const char* who, int64_t rows, int64_t cols, int64_t nnz) {
  // Saturating at 2^62 bytes: parameters that would overflow the count are simply too large
  // (seen by the spec fuzzer: gen:rmat:scale=2,ef=1.1e17).
  constexpr int64_t cap = int64_t{1} << 62;
  const auto times = [](int64_t count, int64_t size) { return count > cap / size ? cap : count * size; };
  const int64_t row_map = times(rows + 1, int64_t{sizeof(int64_t)});
  const int64_t entries = times(nnz, int64_t{sizeof(int) + sizeof(double)});
  const int64_t bytes = row_map > cap - entries ? cap : row_map + entries;
  require_host_memory(bytes, std::string(who) + ": a " + std::to_string(rows) + " x " + std::to_string(cols) +
                                 " matrix with " + std::to_string(nnz) + " entries");
}

// ---------------------------------------------------------------------------------------------
// Random numbers

/// SplitMix64 finalizer: a bijective 64-bit mixer, used as a hash and to seed streams.
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Seed of the stream that `purpose` (a fixed tag per generator and use) draws from.
inline uint64_t stream_seed(uint64_t seed, uint64_t purpose) {
  return mix64(mix64(seed) ^ purpose);
}

// Stream tags: arbitrary distinct constants, so that e.g. banded and uniform with the same seed
// do not share streams.
constexpr uint64_t kTagBanded = 0xBA2DEDull;
constexpr uint64_t kTagUniformRows = 0x0210F0001ull;
constexpr uint64_t kTagUniformCols = 0x0210F0002ull;
constexpr uint64_t kTagUniformValues = 0x0210F0003ull;
constexpr uint64_t kTagRmatEdges = 0x53A7001ull;
constexpr uint64_t kTagRmatRelabel = 0x53A7002ull;
constexpr uint64_t kTagRmatValues = 0x53A7003ull;
constexpr uint64_t kTagElasticity = 0xE1A5ull;

/// xoshiro256** (Blackman and Vigna), state filled by SplitMix64 from one 64-bit seed.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& word : state_) {
      seed += 0x9E3779B97F4A7C15ull;
      word = mix64(seed);
    }
  }
  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  /// Uniform in [0, 1), from the top 53 bits.
  double uniform() { return to_unit(next()); }
  /// Uniform in [-1, 1).
  double symmetric() { return 2.0 * uniform() - 1.0; }
  /// Uniform in [0, n) for n >= 1 (multiply-shift; bias below 2^-64 * n, irrelevant here).
  int64_t below(int64_t n) {
    return static_cast<int64_t>(mul_high(next(), static_cast<uint64_t>(n)));
  }

  static double to_unit(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t mul_high(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#else
    const uint64_t a_lo = a & 0xFFFFFFFFull, a_hi = a >> 32, b_lo = b & 0xFFFFFFFFull,
                   b_hi = b >> 32;
    const uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi,
                   hi_hi = a_hi * b_hi;
    const uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFull) + lo_hi;
    return hi_hi + (hi_lo >> 32) + (cross >> 32);
#endif
  }
  std::array<uint64_t, 4> state_{};
};

/// Probability p in [0, 1] as a threshold t with P(draw < t) = p for a uniform 64-bit draw;
/// `always` covers p == 1, which has no 64-bit threshold. The conversion is exact (scaling by a
/// power of two, then truncation), hence portable.
struct Probability {
  uint64_t threshold = 0;
  bool always = false;
  explicit Probability(double p) {
    if (p >= 1.0) {
      always = true;
    } else if (p > 0.0) {
      threshold = static_cast<uint64_t>(std::floor(p * 0x1.0p64));
    }
  }
  bool accept(uint64_t draw) const { return always || draw < threshold; }
};

// ---------------------------------------------------------------------------------------------
// Structured stencils

/// Grid offset of a stencil point; offsets are kept in lexicographic (dz, dy, dx) order so that
/// the columns of every row come out increasing.
struct Offset {
  int dz, dy, dx;
};

std::vector<Offset> stencil_offsets(bool three_d, bool full_box) {
  std::vector<Offset> offsets;
  for (int dz = (three_d ? -1 : 0); dz <= (three_d ? 1 : 0); ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (full_box || std::abs(dz) + std::abs(dy) + std::abs(dx) <= 1)
          offsets.push_back({dz, dy, dx});
  return offsets;
}

/// Grid of nz x ny x nx nodes numbered x fastest: node = (z * ny + y) * nx + x.
struct Grid {
  int64_t nz, ny, nx;
  int64_t nodes() const { return nz * ny * nx; }
  /// Number of (node, offset) pairs that stay inside the grid: the stencil matrix's nnz.
  int64_t stencil_pairs(const std::vector<Offset>& offsets) const {
    int64_t total = 0;
    for (const Offset& o : offsets)
      total += std::max<int64_t>(nz - std::abs(o.dz), 0) *
               std::max<int64_t>(ny - std::abs(o.dy), 0) *
               std::max<int64_t>(nx - std::abs(o.dx), 0);
    return total;
  }
};

/// Calls visit(neighbour_node, offset) for the in-grid stencil neighbours of (z, y, x), in
/// increasing neighbour order.
template <class Visit>
inline void for_each_neighbour(const Grid& g, const std::vector<Offset>& offsets, int64_t z,
                               int64_t y, int64_t x, Visit&& visit) {
  const int64_t node = (z * g.ny + y) * g.nx + x;
  for (const Offset& o : offsets) {
    const int64_t qz = z + o.dz, qy = y + o.dy, qx = x + o.dx;
    if (qz < 0 || qz >= g.nz || qy < 0 || qy >= g.ny || qx < 0 || qx >= g.nx) continue;
    visit(node + (o.dz * g.ny + o.dy) * g.nx + o.dx, o);
  }
}

/// Constant-coefficient stencil matrix: `diagonal` on the diagonal, `off` for every in-grid
/// neighbour (Dirichlet boundary: outside neighbours are dropped).
HostCsr stencil_matrix(const Grid& grid, const std::vector<Offset>& offsets, double diagonal,
                       double off) {
  HostCsr A;
  A.num_rows = A.num_cols = grid.nodes();
  const int64_t nnz = grid.stencil_pairs(offsets);
  require_csr_memory("stencil generator", A.num_rows, A.num_cols, nnz);
  A.row_map.resize(A.num_rows + 1);
  A.entries.resize(nnz);
  A.values.resize(nnz);
  int64_t* row_map = A.row_map.data();
  int* entries = A.entries.data();
  double* values = A.values.data();
  int64_t k = 0, row = 0;
  row_map[0] = 0;
  for (int64_t z = 0; z < grid.nz; ++z)
    for (int64_t y = 0; y < grid.ny; ++y)
      for (int64_t x = 0; x < grid.nx; ++x, ++row) {
        for_each_neighbour(grid, offsets, z, y, x, [&](int64_t col, const Offset&) {
          entries[k] = static_cast<int>(col);
          values[k] = (col == row) ? diagonal : off;
          ++k;
        });
        row_map[row + 1] = k;
      }
  return A;
}

// ---------------------------------------------------------------------------------------------
// Scattered generators: CSR from a replayable edge stream

/// Builds the CSR pattern of the (row, col) pairs that `make_stream()` streams produce
/// (`num_edges` calls of `next(row, col)` each), duplicates merged, columns sorted; then draws
/// every stored value uniformly in [-1, 1) from `value_seed` in CSR order.
///
/// A direct counting sort by row scatters every edge to a random place in a large array, one
/// cache miss (or two, with its cursor) per edge. Instead rows are grouped into at most ~1024
/// buckets of consecutive rows: the stream is run once to size the buckets and once more to
/// append packed (row, col) pairs to them (a few sequential write streams), and then each bucket
/// is counting-sorted by row, its rows sorted and de-duplicated, all within cache. The stream
/// is replayed rather than stored, so the peak is 12 bytes per edge, about the final CSR's size.
template <class MakeStream>
HostCsr csr_from_edge_stream(int64_t num_rows, int64_t num_cols, int64_t num_edges,
                             MakeStream&& make_stream, uint64_t value_seed) {
  // The packed edges and the column slots live beside the CSR being built. The count is clamped
  // at 2^58 edges (far past any memory) so that the products below cannot overflow (a fuzz
  // finding: gen:rmat:scale=4,ef=1.1e17).
  const int64_t edges = std::min<int64_t>(num_edges, int64_t{1} << 58);
  require_csr_memory("edge-stream generator", num_rows, num_cols,
                     edges + edges * static_cast<int64_t>(sizeof(uint64_t) + sizeof(int)) /
                                 static_cast<int64_t>(sizeof(int) + sizeof(double)));
  int bucket_bits = 12;
  while ((num_rows >> bucket_bits) >= 1024) ++bucket_bits;
  const int64_t rows_per_bucket = int64_t{1} << bucket_bits;
  const int64_t num_buckets = (num_rows + rows_per_bucket - 1) / rows_per_bucket;

  std::vector<int64_t> bucket_start(num_buckets + 1, 0);
  {
    auto stream = make_stream();
    int64_t row, col;
    for (int64_t e = 0; e < num_edges; ++e) {
      stream.next(row, col);
      ++bucket_start[(row >> bucket_bits) + 1];
    }
  }
  for (int64_t b = 0; b < num_buckets; ++b) bucket_start[b + 1] += bucket_start[b];
  std::vector<uint64_t> packed(num_edges);  // (row << 32) | col, grouped by bucket
  {
    std::vector<int64_t> cursor(bucket_start.begin(), bucket_start.end() - 1);
    auto stream = make_stream();
    int64_t row, col;
    for (int64_t e = 0; e < num_edges; ++e) {
      stream.next(row, col);
      packed[cursor[row >> bucket_bits]++] =
          (static_cast<uint64_t>(row) << 32) | static_cast<uint64_t>(col);
    }
  }

  HostCsr A;
  A.num_rows = num_rows;
  A.num_cols = num_cols;
  A.row_map.assign(num_rows + 1, 0);
  // Bucket b's edges occupy [bucket_start[b], bucket_start[b+1]) in `packed`; its columns are
  // counting-sorted into the same range of `slots`, then each row is sorted, de-duplicated and
  // moved down to `write` (never past the row's own start, so nothing unread is overwritten).
  std::vector<int> slots(num_edges);
  std::vector<int64_t> row_start(rows_per_bucket + 1);
  int64_t write = 0;
  for (int64_t b = 0; b < num_buckets; ++b) {
    const int64_t first_row = b * rows_per_bucket;
    const int64_t bucket_rows = std::min(rows_per_bucket, num_rows - first_row);
    std::fill(row_start.begin(), row_start.begin() + bucket_rows + 1, 0);
    row_start[0] = bucket_start[b];
    for (int64_t k = bucket_start[b]; k < bucket_start[b + 1]; ++k)
      ++row_start[static_cast<int64_t>(packed[k] >> 32) - first_row + 1];
    for (int64_t r = 0; r < bucket_rows; ++r) row_start[r + 1] += row_start[r];
    for (int64_t k = bucket_start[b]; k < bucket_start[b + 1]; ++k) {
      const int64_t r = static_cast<int64_t>(packed[k] >> 32) - first_row;
      slots[row_start[r]++] = static_cast<int>(packed[k] & 0xFFFFFFFFull);
    }
    // row_start[r] now holds the end of row r; row r starts where row r - 1 ends.
    int64_t begin = bucket_start[b];
    for (int64_t r = 0; r < bucket_rows; ++r) {
      int* first = slots.data() + begin;
      int* last = slots.data() + row_start[r];
      std::sort(first, last);
      last = std::unique(first, last);
      for (const int* it = first; it != last; ++it) slots[write++] = *it;
      A.row_map[first_row + r + 1] = write;
      begin = row_start[r];
    }
  }
  packed = std::vector<uint64_t>();
  slots.resize(write);
  // Give back the room of merged duplicates only when it is worth a copy of the array.
  if (write < num_edges - num_edges / 8) slots.shrink_to_fit();
  A.entries = std::move(slots);
  A.values.resize(write);
  Rng value_rng(value_seed);
  for (double& v : A.values) v = value_rng.symmetric();
  return A;
}

/// Uniformly placed entries: row and column from separate streams so that the counting pass
/// needs only the row stream.
struct UniformEdges {
  Rng rows, cols;
  int64_t num_rows, num_cols;
  void next(int64_t& row, int64_t& col) {
    row = rows.below(num_rows);
    col = cols.below(num_cols);
  }
};

/// Pseudo-random bijection of [0, 2^bits): rounds of (multiply by an odd constant, add a
/// constant, xor-shift), each invertible modulo 2^bits, with constants drawn from the seed.
/// Used instead of a stored random permutation: no table to look up at random, one per edge end.
class Relabel {
 public:
  Relabel(int bits, uint64_t seed)
      : mask_((uint64_t{1} << bits) - 1), shift_(std::max(1, (bits + 1) / 2)) {
    Rng rng(seed);
    for (auto& round : rounds_) round = {rng.next() | 1, rng.next()};
  }
  uint64_t operator()(uint64_t x) const {
    for (const auto& round : rounds_) {
      x = (x * round.first + round.second) & mask_;
      x ^= x >> shift_;
    }
    return x;
  }

 private:
  uint64_t mask_;
  int shift_;
  std::array<std::pair<uint64_t, uint64_t>, 3> rounds_{};
};

/// Graph500 R-MAT edges. Each level picks a quadrant with a 32-bit draw (two levels per 64-bit
/// draw) against integer thresholds; vertex labels are then scrambled by `relabel`.
struct RmatEdges {
  Rng rng;
  int scale;
  uint64_t t_a, t_ab, t_abc;  // cumulative quadrant thresholds out of 2^32
  Relabel relabel;

  // Quadrants a, b, c, d = (row bit, column bit) 00, 01, 10, 11: the row bit is set in c and d
  // (draw >= t_ab), the column bit in b and d, i.e. when an odd number of thresholds is passed.
  void descend(uint64_t draw, uint64_t& r, uint64_t& c) const {
    const uint64_t past_a = draw >= t_a, past_ab = draw >= t_ab, past_abc = draw >= t_abc;
    r = (r << 1) | past_ab;
    c = (c << 1) | (past_a ^ past_ab ^ past_abc);
  }
  void next(int64_t& row, int64_t& col) {
    uint64_t r = 0, c = 0;
    int level = 0;
    for (; level + 1 < scale; level += 2) {
      const uint64_t bits = rng.next();
      descend(bits & 0xFFFFFFFFull, r, c);
      descend(bits >> 32, r, c);
    }
    if (level < scale) descend(rng.next() & 0xFFFFFFFFull, r, c);
    row = static_cast<int64_t>(relabel(r));
    col = static_cast<int64_t>(relabel(c));
  }
};

// ---------------------------------------------------------------------------------------------
// Elasticity couplings

/// Hash of an unordered node pair (lo <= hi) with the seed.
inline uint64_t node_pair_key(uint64_t seed_key, int64_t lo, int64_t hi) {
  return mix64(mix64(seed_key ^ static_cast<uint64_t>(lo)) + static_cast<uint64_t>(hi));
}

/// Uniform [0, 1) value of the entry coupling component `c_lo` of the pair's first node with
/// component `c_hi` of its second node.
inline double pair_uniform(uint64_t pair_key, int c_lo, int c_hi) {
  const uint64_t component_pair =
      static_cast<uint64_t>(c_lo) * 64 + static_cast<uint64_t>(c_hi) + 1;
  return Rng::to_unit(mix64(pair_key + component_pair * 0xD1B54A32D192ED03ull));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public generators

HostCsr poisson2d(int64_t n, int points) {
  SPROCKET_REQUIRE(n >= 1, "poisson2d: n must be at least 1 (got ", n, ")");
  SPROCKET_REQUIRE(points == 5 || points == 9, "poisson2d: points must be 5 or 9 (got ", points,
                   ")");
  SPROCKET_REQUIRE(n < (int64_t{1} << 31) && n * n < kMaxOrdinal, "poisson2d: n = ", n,
                   " gives n^2 rows, more than 32-bit ordinals allow (n <= 46340)");
  const bool nine = points == 9;
  return stencil_matrix(Grid{1, n, n}, stencil_offsets(false, nine), nine ? 8.0 : 4.0, -1.0);
}

HostCsr poisson3d(int64_t n, int points) {
  SPROCKET_REQUIRE(n >= 1, "poisson3d: n must be at least 1 (got ", n, ")");
  SPROCKET_REQUIRE(points == 7 || points == 27, "poisson3d: points must be 7 or 27 (got ", points,
                   ")");
  SPROCKET_REQUIRE(n < (int64_t{1} << 21) && n * n * n < kMaxOrdinal, "poisson3d: n = ", n,
                   " gives n^3 rows, more than 32-bit ordinals allow (n <= 1290)");
  const bool box = points == 27;
  return stencil_matrix(Grid{n, n, n}, stencil_offsets(true, box), box ? 26.0 : 6.0, -1.0);
}

// Values: a node pair at grid distance 1, sqrt 2, sqrt 3 has weight w = 1, 1/2, 1/4. Same-component
// couplings are -w * U(0.5, 1) (stiffness-like, negative), cross-component ones w * U(-0.2, 0.2);
// inside a node's own block the cross-component entries are U(-0.2, 0.2). The diagonal is
// 1.05 * (sum of |off-diagonals| of its row) + 0.1, which makes the matrix strictly diagonally
// dominant, hence (being symmetric with positive diagonal) SPD. Every entry is a hash of the seed,
// the unordered node pair and the ordered component pair (component of the lower node first),
// so entry (i, j) and (j, i) get the same value.
std::vector<double> elasticity3d_coordinates(int64_t n) {
  SPROCKET_REQUIRE(n >= 1, "elasticity3d_coordinates: n must be at least 1 (got ", n, ")");
  std::vector<double> xyz(static_cast<size_t>(n * n * n) * 3);
  for (int64_t z = 0, node = 0; z < n; ++z)
    for (int64_t y = 0; y < n; ++y)
      for (int64_t x = 0; x < n; ++x, ++node) {
        xyz[node * 3] = static_cast<double>(x);
        xyz[node * 3 + 1] = static_cast<double>(y);
        xyz[node * 3 + 2] = static_cast<double>(z);
      }
  return xyz;
}

HostCsr elasticity3d(int64_t n, int dof, uint64_t seed) {
  SPROCKET_REQUIRE(n >= 1, "elasticity3d: n must be at least 1 (got ", n, ")");
  SPROCKET_REQUIRE(dof >= 1 && dof <= 64, "elasticity3d: dof must be in [1, 64] (got ", dof, ")");
  SPROCKET_REQUIRE(
      n < (int64_t{1} << 21) && n * n * n < kMaxOrdinal && n * n * n * dof < kMaxOrdinal,
      "elasticity3d: n = ", n, ", dof = ", dof,
      " gives n^3 * dof rows, more than 32-bit ordinals allow");
  const Grid grid{n, n, n};
  const std::vector<Offset> offsets = stencil_offsets(true, true);
  const uint64_t seed_key = stream_seed(seed, kTagElasticity);

  HostCsr A;
  A.num_rows = A.num_cols = grid.nodes() * dof;
  const int64_t nnz = grid.stencil_pairs(offsets) * dof * dof;
  require_csr_memory("elasticity3d", A.num_rows, A.num_cols, nnz);
  A.row_map.resize(A.num_rows + 1);
  A.entries.resize(nnz);
  A.values.resize(nnz);
  int64_t* row_map = A.row_map.data();
  int* entries = A.entries.data();
  double* values = A.values.data();
  row_map[0] = 0;

  struct Neighbour {
    int64_t node;
    uint64_t pair_key;
    double weight;
  };
  std::vector<Neighbour> neighbours;
  neighbours.reserve(offsets.size());
  int64_t k = 0;
  for (int64_t z = 0; z < n; ++z)
    for (int64_t y = 0; y < n; ++y)
      for (int64_t x = 0; x < n; ++x) {
        const int64_t p = (z * n + y) * n + x;
        neighbours.clear();
        for_each_neighbour(grid, offsets, z, y, x, [&](int64_t q, const Offset& o) {
          const int distance2 = std::abs(o.dz) + std::abs(o.dy) + std::abs(o.dx);
          const double weight = distance2 == 1 ? 1.0 : distance2 == 2 ? 0.5 : 0.25;
          neighbours.push_back(
              {q, node_pair_key(seed_key, std::min(p, q), std::max(p, q)), weight});
        });
        for (int a = 0; a < dof; ++a) {
          const int64_t row = p * dof + a;
          int64_t diagonal_position = -1;
          double off_sum = 0.0;
          for (const Neighbour& nb : neighbours)
            for (int b = 0; b < dof; ++b) {
              entries[k] = static_cast<int>(nb.node * dof + b);
              double v;
              if (nb.node == p) {
                if (a == b) {
                  diagonal_position = k++;
                  continue;
                }
                v = 0.4 * (pair_uniform(nb.pair_key, std::min(a, b), std::max(a, b)) - 0.5);
              } else {
                // The component of the lower-numbered node goes first, whichever row we are in.
                const double u =
                    p < nb.node ? pair_uniform(nb.pair_key, a, b) : pair_uniform(nb.pair_key, b, a);
                v = a == b ? -nb.weight * (0.5 + 0.5 * u) : nb.weight * 0.4 * (u - 0.5);
              }
              values[k++] = v;
              off_sum += std::abs(v);
            }
          // Written without a multiply-add so no compiler can fuse it into an FMA (bit-identical
          // results everywhere).
          values[diagonal_position] = off_sum + off_sum / 20 + 0.1;
          row_map[row + 1] = k;
        }
      }
  return A;
}

// Every value, the diagonal included, is uniform in [-1, 1): the matrix is a structural test
// case (bandwidth, fill), not made diagonally dominant. Per row, the stream draws one 64-bit
// presence decision per off-diagonal band position, in column order, and one value per stored
// entry right after its decision.
HostCsr banded(int64_t n, int64_t half_bandwidth, double fill, uint64_t seed) {
  SPROCKET_REQUIRE(n >= 1 && n < kMaxOrdinal, "banded: n must be in [1, ", kMaxOrdinal - 1,
                   "] (got ", n, ")");
  SPROCKET_REQUIRE(half_bandwidth >= 0, "banded: half bandwidth must be >= 0 (got ", half_bandwidth,
                   ")");
  SPROCKET_REQUIRE(fill >= 0.0 && fill <= 1.0, "banded: fill must be in [0, 1] (got ", fill, ")");
  const int64_t bw = std::min(half_bandwidth, n - 1);
  const int64_t band_positions = n * (2 * bw + 1) - bw * (bw + 1);
  const double off_band = static_cast<double>(band_positions - n);
  // Expected size plus six standard deviations: one allocation in practice.
  const double expected =
      n + fill * off_band + 6.0 * std::sqrt(fill * (1.0 - fill) * off_band) + 16;
  const int64_t reserve = std::min<int64_t>(band_positions, static_cast<int64_t>(expected));

  HostCsr A;
  A.num_rows = A.num_cols = n;
  require_csr_memory("banded", n, n, reserve);
  A.row_map.resize(n + 1);
  A.entries.reserve(reserve);
  A.values.reserve(reserve);
  A.row_map[0] = 0;
  Rng rng(stream_seed(seed, kTagBanded));
  const Probability present(fill);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t first = std::max<int64_t>(0, i - bw), last = std::min(n - 1, i + bw);
    for (int64_t j = first; j <= last; ++j) {
      if (j != i && !present.accept(rng.next())) continue;
      A.entries.push_back(static_cast<int>(j));
      A.values.push_back(rng.symmetric());
    }
    A.row_map[i + 1] = static_cast<int64_t>(A.entries.size());
  }
  return A;
}

// round(rows * avg_row) entries are thrown at uniformly random positions and duplicates merged,
// so the mean row length is avg_row * (1 - about avg_row / (2 cols)): avg_row when cols is large
// compared to it. Row lengths are then binomial (about Poisson(avg_row)), as in G(n, p).
HostCsr uniform_random(int64_t rows, int64_t cols, double avg_row, uint64_t seed) {
  SPROCKET_REQUIRE(rows >= 1 && rows < kMaxOrdinal, "uniform: rows must be in [1, ",
                   kMaxOrdinal - 1, "] (got ", rows, ")");
  SPROCKET_REQUIRE(cols >= 1 && cols < kMaxOrdinal, "uniform: cols must be in [1, ",
                   kMaxOrdinal - 1, "] (got ", cols, ")");
  SPROCKET_REQUIRE(std::isfinite(avg_row) && avg_row >= 0.0 && avg_row <= static_cast<double>(cols),
                   "uniform: average row length must be in [0, cols = ", cols, "] (got ", avg_row,
                   ")");
  const double edges = std::round(static_cast<double>(rows) * avg_row);
  SPROCKET_REQUIRE(edges < 0x1.0p62, "uniform: ", rows, " rows x ", avg_row,
                   " entries per row is too many entries");
  const int64_t num_edges = static_cast<int64_t>(edges);
  auto make_stream = [&] {
    return UniformEdges{Rng(stream_seed(seed, kTagUniformRows)),
                        Rng(stream_seed(seed, kTagUniformCols)), rows, cols};
  };
  return csr_from_edge_stream(rows, cols, num_edges, make_stream,
                              stream_seed(seed, kTagUniformValues));
}

// Vertex labels are scrambled (one seeded bijection for rows and columns), as Graph500 permutes
// them, so that the heavy rows are spread over the index range rather than packed near 0. The
// bijection is computed (Relabel), not a stored shuffle, which keeps edge generation free of
// random table look-ups. Self-loops are kept; the matrix is not symmetrized.
HostCsr rmat(int scale, double edge_factor, uint64_t seed, double a, double b, double c) {
  SPROCKET_REQUIRE(scale >= 1 && scale <= 30, "rmat: scale must be in [1, 30] (got ", scale,
                   "); 2^scale rows must fit 32-bit ordinals");
  SPROCKET_REQUIRE(std::isfinite(edge_factor) && edge_factor > 0.0,
                   "rmat: edge factor must be positive (got ", edge_factor, ")");
  SPROCKET_REQUIRE(a >= 0.0 && a <= 1.0 && b >= 0.0 && b <= 1.0 && c >= 0.0 && c <= 1.0,
                   "rmat: a, b, c must be probabilities in [0, 1] (got a = ", a, ", b = ", b,
                   ", c = ", c, ")");
  SPROCKET_REQUIRE(a + b + c <= 1.0 + 1e-12, "rmat: a + b + c must not exceed 1 (got ", a + b + c,
                   "); d = 1 - a - b - c");
  const int64_t vertices = int64_t{1} << scale;
  const double edges = std::round(edge_factor * static_cast<double>(vertices));
  SPROCKET_REQUIRE(edges < 0x1.0p62, "rmat: edge factor ", edge_factor, " at scale ", scale,
                   " is too many edges");
  const int64_t num_edges = static_cast<int64_t>(edges);

  const Relabel relabel(scale, stream_seed(seed, kTagRmatRelabel));
  auto threshold = [](double p) {
    return static_cast<uint64_t>(std::floor(std::min(p, 1.0) * 0x1.0p32));
  };
  const uint64_t t_a = threshold(a), t_ab = threshold(a + b), t_abc = threshold(a + b + c);
  auto make_stream = [&] {
    return RmatEdges{Rng(stream_seed(seed, kTagRmatEdges)), scale, t_a, t_ab, t_abc, relabel};
  };
  return csr_from_edge_stream(vertices, vertices, num_edges, make_stream,
                              stream_seed(seed, kTagRmatValues));
}

// ---------------------------------------------------------------------------------------------
// Specification parser

namespace {

/// The key=value list of one specification, with typed getters that throw ParseError naming
/// the specification.
class SpecParams {
 public:
  SpecParams(std::string spec, std::string generator)
      : spec_(std::move(spec)), generator_(std::move(generator)) {}

  [[noreturn]] void fail(const std::string& problem) const { throw ParseError(spec_, 0, problem); }

  void add(const std::string& key, const std::string& value) {
    if (find(key)) fail("key '" + key + "' is given twice");
    items_.emplace_back(key, value);
  }

  bool has(const std::string& key) const { return find(key) != nullptr; }

  int64_t integer(const std::string& key, int64_t fallback) const {
    return has(key) ? integer(key) : fallback;
  }
  int64_t integer(const std::string& key) const {
    const std::string& text = value(key);
    std::size_t pos = 0;
    const bool negative = !text.empty() && text[0] == '-';
    if (!text.empty() && (text[0] == '-' || text[0] == '+')) pos = 1;
    if (pos == text.size()) fail("value of '" + key + "' is not an integer: '" + text + "'");
    uint64_t magnitude = 0;
    for (; pos < text.size(); ++pos) {
      const char ch = text[pos];
      if (ch < '0' || ch > '9') fail("value of '" + key + "' is not an integer: '" + text + "'");
      if (magnitude > (uint64_t{1} << 62)) fail("value of '" + key + "' is out of range: " + text);
      magnitude = magnitude * 10 + static_cast<uint64_t>(ch - '0');
    }
    if (magnitude > (uint64_t{1} << 62)) fail("value of '" + key + "' is out of range: " + text);
    return negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  }
  /// An integer that the C++ interface takes as int.
  int small_integer(const std::string& key, int fallback) const {
    if (!has(key)) return fallback;
    const int64_t v = integer(key);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      fail("value of '" + key + "' is out of range: " + value(key));
    return static_cast<int>(v);
  }
  double real(const std::string& key, double fallback) const {
    if (!has(key)) return fallback;
    return real(key);
  }
  double real(const std::string& key) const {
    const std::string& text = value(key);
    // Digits, sign, point and exponent only: rules out whitespace, "inf", "nan", hex floats.
    const bool plausible =
        !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
    double v = 0;
    if (plausible) {
      std::istringstream in(text);
      in.imbue(std::locale::classic());  // '.' as decimal point whatever the global locale
      in >> v;
      if (in.fail() || in.peek() != std::char_traits<char>::eof() || !std::isfinite(v))
        v = std::numeric_limits<double>::quiet_NaN();
    }
    if (!plausible || std::isnan(v)) fail("value of '" + key + "' is not a number: '" + text + "'");
    return v;
  }
  uint64_t seed() const {
    if (!has("seed")) return 1;
    const std::string& text = value("seed");
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
      fail("value of 'seed' must be a non-negative integer: '" + text + "'");
    uint64_t v = 0;
    for (char ch : text) {
      const uint64_t digit = static_cast<uint64_t>(ch - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10)
        fail("value of 'seed' is out of range (more than 64 bits): " + text);
      v = v * 10 + digit;
    }
    return v;
  }

 private:
  const std::string* find(const std::string& key) const {
    for (const auto& item : items_)
      if (item.first == key) return &item.second;
    return nullptr;
  }
  const std::string& value(const std::string& key) const {
    const std::string* v = find(key);
    if (!v) fail("missing required key '" + key + "' for generator '" + generator_ + "'");
    return *v;
  }

  std::string spec_;
  std::string generator_;
  std::vector<std::pair<std::string, std::string>> items_;
};

struct GeneratorEntry {
  const char* name;
  std::vector<std::string> keys;      ///< every accepted key
  std::vector<std::string> required;  ///< keys without a default
  HostCsr (*run)(const SpecParams&);
};

const std::vector<GeneratorEntry>& generator_table() {
  static const std::vector<GeneratorEntry> table = {
      {"poisson2d",
       {"n", "points"},
       {"n"},
       [](const SpecParams& p) { return poisson2d(p.integer("n"), p.small_integer("points", 5)); }},
      {"poisson3d",
       {"n", "points"},
       {"n"},
       [](const SpecParams& p) { return poisson3d(p.integer("n"), p.small_integer("points", 7)); }},
      {"elasticity",
       {"n", "dof", "seed"},
       {"n"},
       [](const SpecParams& p) {
         return elasticity3d(p.integer("n"), p.small_integer("dof", 3), p.seed());
       }},
      {"banded",
       {"n", "bw", "fill", "seed"},
       {"n", "bw"},
       [](const SpecParams& p) {
         return banded(p.integer("n"), p.integer("bw"), p.real("fill", 0.5), p.seed());
       }},
      {"uniform",
       {"n", "cols", "avg", "seed"},
       {"n", "avg"},
       [](const SpecParams& p) {
         const int64_t rows = p.integer("n");
         return uniform_random(rows, p.integer("cols", rows), p.real("avg"), p.seed());
       }},
      {"rmat",
       {"scale", "ef", "a", "b", "c", "seed"},
       {"scale"},
       [](const SpecParams& p) {
         return rmat(p.small_integer("scale", 0), p.real("ef", 16.0), p.seed(), p.real("a", 0.57),
                     p.real("b", 0.19), p.real("c", 0.19));
       }},
  };
  return table;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string known_generators_text() {
  std::vector<std::string> names;
  for (const GeneratorEntry& g : generator_table()) names.emplace_back(g.name);
  return join(names);
}

}  // namespace

HostCsr from_spec(const std::string& spec) {
  const std::string prefix = "gen:";
  if (spec.compare(0, prefix.size(), prefix) != 0)
    throw ParseError(spec, 0, "a generator specification starts with 'gen:'");
  const std::size_t name_end = std::min(spec.find(':', prefix.size()), spec.size());
  const std::string name = spec.substr(prefix.size(), name_end - prefix.size());
  if (name.empty())
    throw ParseError(spec, 0,
                     "missing generator name; known generators: " + known_generators_text());
  const GeneratorEntry* entry = nullptr;
  for (const GeneratorEntry& g : generator_table())
    if (name == g.name) entry = &g;
  if (!entry)
    throw ParseError(
        spec, 0, "unknown generator '" + name + "'; known generators: " + known_generators_text());

  SpecParams params(spec, name);
  if (name_end < spec.size()) {
    const std::string list = spec.substr(name_end + 1);
    if (list.empty()) params.fail("empty parameter list after '" + name + ":'");
    std::size_t begin = 0;
    while (true) {
      const std::size_t end = std::min(list.find(',', begin), list.size());
      const std::string item = list.substr(begin, end - begin);
      if (item.empty()) params.fail("empty parameter (stray ',') in '" + list + "'");
      const std::size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        params.fail("expected <key>=<value>, got '" + item + "'");
      const std::string key = item.substr(0, eq);
      if (std::find(entry->keys.begin(), entry->keys.end(), key) == entry->keys.end())
        params.fail("unknown key '" + key + "' for generator '" + name +
                    "'; it accepts: " + join(entry->keys));
      params.add(key, item.substr(eq + 1));
      if (end == list.size()) break;
      begin = end + 1;
    }
  }
  for (const std::string& key : entry->required)
    if (!params.has(key))
      params.fail("missing required key '" + key + "' for generator '" + name +
                  "' (it accepts: " + join(entry->keys) + ")");
  try {
    return entry->run(params);
  } catch (const InvalidArgument& e) {
    // Range and size checks live in the generators; report them against the specification.
    throw ParseError(spec, 0, e.what());
  }
}

}  // namespace gen
}  // namespace Sprocket
