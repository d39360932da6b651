// Tests of the deterministic generators (src/Sprocket_Generators.hpp): exact small stencil
// matrices, structural invariants of every generator, determinism (including pinned fingerprints
// that catch platform-dependent randomness), the gen: specification parser and load_matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Memory.hpp"

namespace {

using Sprocket::HostCsr;
namespace gen = Sprocket::gen;

/// CSR from per-row column lists, with `diagonal` on the diagonal and `off` elsewhere.
HostCsr csr_from_rows(const std::vector<std::vector<int>>& rows, double diagonal, double off) {
  HostCsr A;
  A.num_rows = A.num_cols = static_cast<int64_t>(rows.size());
  A.row_map.assign(1, 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (int j : rows[i]) {
      A.entries.push_back(j);
      A.values.push_back(j == static_cast<int>(i) ? diagonal : off);
    }
    A.row_map.push_back(static_cast<int64_t>(A.entries.size()));
  }
  return A;
}

/// Plain transpose, written here so the symmetry check does not rest on library code.
HostCsr transpose_of(const HostCsr& A) {
  HostCsr T;
  T.num_rows = A.num_cols;
  T.num_cols = A.num_rows;
  T.row_map.assign(T.num_rows + 1, 0);
  for (int j : A.entries) ++T.row_map[j + 1];
  for (int64_t i = 0; i < T.num_rows; ++i) T.row_map[i + 1] += T.row_map[i];
  std::vector<int64_t> cursor(T.row_map.begin(), T.row_map.end() - 1);
  T.entries.resize(A.entries.size());
  T.values.resize(A.values.size());
  for (int64_t i = 0; i < A.num_rows; ++i)  // rows in order, so T's columns come out sorted
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t slot = cursor[A.entries[k]]++;
      T.entries[slot] = static_cast<int>(i);
      T.values[slot] = A.values[k];
    }
  return T;
}

void expect_same_arrays(const HostCsr& A, const HostCsr& B) {
  EXPECT_EQ(A.num_rows, B.num_rows);
  EXPECT_EQ(A.num_cols, B.num_cols);
  EXPECT_EQ(A.row_map, B.row_map);
  EXPECT_EQ(A.entries, B.entries);
  EXPECT_EQ(A.values, B.values);  // exact: bit-for-bit up to -0 == 0
}

bool same_arrays(const HostCsr& A, const HostCsr& B) {
  return A.num_rows == B.num_rows && A.num_cols == B.num_cols && A.row_map == B.row_map &&
         A.entries == B.entries && A.values == B.values;
}

/// validate() passes and columns are strictly increasing within rows.
void expect_well_formed(const HostCsr& A, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_NO_THROW(A.validate());
  EXPECT_TRUE(A.is_sorted_and_unique());
}

double row_sum(const HostCsr& A, int64_t i) {
  double s = 0;
  for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) s += A.values[k];
  return s;
}

int64_t max_row_length(const HostCsr& A) {
  int64_t m = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) m = std::max(m, A.row_length(i));
  return m;
}

bool values_in_unit_interval(const HostCsr& A) {
  return std::all_of(A.values.begin(), A.values.end(),
                     [](double v) { return v >= -1.0 && v <= 1.0; });
}

/// FNV-1a over the 64-bit patterns of every array element (byte-order independent): a compact
/// fingerprint for the pinned-output test.
uint64_t fingerprint(const HostCsr& A) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto eat = [&h](uint64_t word) {
    for (int byte = 0; byte < 8; ++byte) h = (h ^ ((word >> (8 * byte)) & 0xFF)) * 0x100000001b3ull;
  };
  eat(static_cast<uint64_t>(A.num_rows));
  eat(static_cast<uint64_t>(A.num_cols));
  for (int64_t offset : A.row_map) eat(static_cast<uint64_t>(offset));
  for (int column : A.entries) eat(static_cast<uint64_t>(column));
  for (double value : A.values) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    eat(bits);
  }
  return h;
}

// ----------------------------------------------------------------------------------------------
// Poisson

TEST(Generators, Poisson2dFivePointMatchesHandWrittenCsr) {
  // 3 x 3 grid, node = y * 3 + x.
  const HostCsr expected = csr_from_rows({{0, 1, 3},
                                          {0, 1, 2, 4},
                                          {1, 2, 5},
                                          {0, 3, 4, 6},
                                          {1, 3, 4, 5, 7},
                                          {2, 4, 5, 8},
                                          {3, 6, 7},
                                          {4, 6, 7, 8},
                                          {5, 7, 8}},
                                         4.0, -1.0);
  expect_same_arrays(gen::poisson2d(3), expected);
}

TEST(Generators, Poisson3dSevenPointMatchesHandWrittenCsr) {
  // 2 x 2 x 2 grid: node i's neighbours are i^1 (x), i^2 (y), i^4 (z).
  const HostCsr expected = csr_from_rows({{0, 1, 2, 4},
                                          {0, 1, 3, 5},
                                          {0, 2, 3, 6},
                                          {1, 2, 3, 7},
                                          {0, 4, 5, 6},
                                          {1, 4, 5, 7},
                                          {2, 4, 6, 7},
                                          {3, 5, 6, 7}},
                                         6.0, -1.0);
  expect_same_arrays(gen::poisson3d(2), expected);
}

TEST(Generators, Poisson2dNinePointStructure) {
  const HostCsr A = gen::poisson2d(5, 9);
  expect_well_formed(A, "poisson2d 9-point");
  EXPECT_EQ(A.num_rows, 25);
  EXPECT_EQ(A.nnz(), 13 * 13);  // (3n - 2)^2
  EXPECT_EQ(A.row_length(0), 4);
  const int64_t centre = 2 * 5 + 2;
  ASSERT_EQ(A.row_length(centre), 9);
  for (int64_t k = A.row_map[centre]; k < A.row_map[centre + 1]; ++k)
    EXPECT_EQ(A.values[k], A.entries[k] == centre ? 8.0 : -1.0);
}

TEST(Generators, Poisson3dTwentySevenPointInteriorRow) {
  const int64_t n = 4;
  const HostCsr A = gen::poisson3d(n, 27);
  expect_well_formed(A, "poisson3d 27-point");
  EXPECT_EQ(A.num_rows, n * n * n);
  EXPECT_EQ(A.nnz(), 10 * 10 * 10);  // (3n - 2)^3
  EXPECT_EQ(A.row_length(0), 8);     // corner
  const int64_t interior = (1 * n + 1) * n + 1;
  ASSERT_EQ(A.row_length(interior), 27);
  std::vector<int> expected_columns;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        expected_columns.push_back(static_cast<int>(interior + (dz * n + dy) * n + dx));
  const std::vector<int> columns(A.entries.begin() + A.row_map[interior],
                                 A.entries.begin() + A.row_map[interior + 1]);
  EXPECT_EQ(columns, expected_columns);
}

TEST(Generators, PoissonInteriorRowSumsAreZeroAndBoundaryRowsPositive) {
  struct Case {
    HostCsr A;
    int64_t n;
    bool three_d;
  };
  const Case cases[] = {{gen::poisson2d(6, 5), 6, false},
                        {gen::poisson2d(6, 9), 6, false},
                        {gen::poisson3d(5, 7), 5, true},
                        {gen::poisson3d(5, 27), 5, true}};
  for (const Case& c : cases) {
    expect_well_formed(c.A, "poisson");
    const int64_t n = c.n;
    const int64_t nz = c.three_d ? n : 1;
    for (int64_t z = 0; z < nz; ++z)
      for (int64_t y = 0; y < n; ++y)
        for (int64_t x = 0; x < n; ++x) {
          const int64_t row = (z * n + y) * n + x;
          const bool interior =
              x > 0 && x < n - 1 && y > 0 && y < n - 1 && (!c.three_d || (z > 0 && z < n - 1));
          if (interior)
            EXPECT_EQ(row_sum(c.A, row), 0.0) << "row " << row;
          else
            EXPECT_GT(row_sum(c.A, row), 0.0) << "row " << row;
        }
  }
}

TEST(Generators, PoissonSizes) {
  EXPECT_EQ(gen::poisson2d(1).nnz(), 1);
  EXPECT_EQ(gen::poisson3d(1, 27).nnz(), 1);
  const HostCsr A = gen::poisson3d(20);
  EXPECT_EQ(A.num_rows, 8000);
  EXPECT_EQ(A.num_cols, 8000);
  EXPECT_EQ(A.nnz(), 8000 + 6 * 20 * 20 * 19);
  const HostCsr B = gen::poisson2d(30);
  EXPECT_EQ(B.nnz(), 900 + 4 * 30 * 29);
}

// ----------------------------------------------------------------------------------------------
// Elasticity

TEST(Generators, ElasticityCoordinatesNumberTheNodesLikeTheMatrix) {
  // Node p = (z n + y) n + x sits at (x, y, z); rows p*dof .. p*dof + dof - 1 are its unknowns.
  const int64_t n = 3;
  const std::vector<double> xyz = gen::elasticity3d_coordinates(n);
  ASSERT_EQ(xyz.size(), static_cast<size_t>(3 * n * n * n));
  for (int64_t z = 0; z < n; ++z)
    for (int64_t y = 0; y < n; ++y)
      for (int64_t x = 0; x < n; ++x) {
        const int64_t p = (z * n + y) * n + x;
        EXPECT_EQ(xyz[3 * p], x);
        EXPECT_EQ(xyz[3 * p + 1], y);
        EXPECT_EQ(xyz[3 * p + 2], z);
      }
  // Neighbouring nodes (distance at most one step per axis) are exactly the coupled blocks.
  const HostCsr A = gen::elasticity3d(n, 2);
  for (int64_t p = 0; p < n * n * n; ++p)
    for (int64_t k = A.row_map[2 * p]; k < A.row_map[2 * p + 1]; ++k) {
      const int64_t q = A.entries[k] / 2;
      for (int axis = 0; axis < 3; ++axis) EXPECT_LE(std::abs(xyz[3 * p + axis] - xyz[3 * q + axis]), 1.0);
    }
  EXPECT_THROW(gen::elasticity3d_coordinates(0), Sprocket::InvalidArgument);
}

TEST(Generators, ElasticityIsSymmetricExactly) {
  for (int dof : {1, 2, 3}) {
    const HostCsr A = gen::elasticity3d(4, dof, 11);
    expect_well_formed(A, "elasticity");
    expect_same_arrays(transpose_of(A), A);
  }
}

TEST(Generators, ElasticityIsStrictlyDiagonallyDominantWithPositiveDiagonal) {
  const HostCsr A = gen::elasticity3d(5, 3, 2);
  for (int64_t i = 0; i < A.num_rows; ++i) {
    double diagonal = 0, off = 0;
    bool has_diagonal = false;
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      if (A.entries[k] == i) {
        diagonal = A.values[k];
        has_diagonal = true;
      } else {
        off += std::abs(A.values[k]);
      }
    }
    ASSERT_TRUE(has_diagonal) << "row " << i;
    ASSERT_GT(diagonal, 0.0) << "row " << i;
    ASSERT_GT(diagonal, off) << "row " << i;
  }
}

TEST(Generators, ElasticityHasDenseBlocksOnTheNodeStencil) {
  const int64_t n = 4;
  const int dof = 3;
  const HostCsr A = gen::elasticity3d(n, dof, 5);
  ASSERT_EQ(A.num_rows, n * n * n * dof);
  EXPECT_EQ(A.nnz(), 10 * 10 * 10 * dof * dof);
  for (int64_t z = 0; z < n; ++z)
    for (int64_t y = 0; y < n; ++y)
      for (int64_t x = 0; x < n; ++x) {
        const int64_t p = (z * n + y) * n + x;
        // Expected columns: every component of every in-grid 27-point neighbour.
        std::vector<int> columns;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              if (z + dz < 0 || z + dz >= n || y + dy < 0 || y + dy >= n || x + dx < 0 ||
                  x + dx >= n)
                continue;
              const int64_t q = ((z + dz) * n + y + dy) * n + x + dx;
              for (int b = 0; b < dof; ++b) columns.push_back(static_cast<int>(q * dof + b));
            }
        for (int a = 0; a < dof; ++a) {
          const int64_t row = p * dof + a;
          const std::vector<int> actual(A.entries.begin() + A.row_map[row],
                                        A.entries.begin() + A.row_map[row + 1]);
          ASSERT_EQ(actual, columns) << "node " << p << " component " << a;
        }
      }
}

TEST(Generators, ElasticityValuesLookLikeStiffness) {
  const int dof = 3;
  const HostCsr A = gen::elasticity3d(4, dof, 9);
  std::vector<double> same_component;  // couplings between different nodes, same component
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t j = A.entries[k];
      if (j / dof != i / dof && j % dof == i % dof) same_component.push_back(A.values[k]);
    }
  ASSERT_FALSE(same_component.empty());
  for (double v : same_component) EXPECT_LT(v, 0.0);
  std::sort(same_component.begin(), same_component.end());
  const auto distinct =
      std::unique(same_component.begin(), same_component.end()) - same_component.begin();
  EXPECT_GT(distinct, static_cast<long>(same_component.size() / 4));  // not all identical
}

// ----------------------------------------------------------------------------------------------
// Banded

TEST(Generators, BandedEntriesStayInTheBandWithDiagonal) {
  const int64_t n = 2000, bw = 7;
  const double fill = 0.3;
  const HostCsr A = gen::banded(n, bw, fill, 4);
  expect_well_formed(A, "banded");
  EXPECT_EQ(A.num_rows, n);
  EXPECT_EQ(A.num_cols, n);
  EXPECT_TRUE(values_in_unit_interval(A));
  for (int64_t i = 0; i < n; ++i) {
    bool has_diagonal = false;
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      EXPECT_LE(std::abs(A.entries[k] - i), bw) << "row " << i;
      has_diagonal |= A.entries[k] == i;
    }
    EXPECT_TRUE(has_diagonal) << "row " << i;
  }
  // Off-diagonal band positions: n * 2bw - bw(bw + 1); about `fill` of them are present.
  const double positions = static_cast<double>(n * 2 * bw - bw * (bw + 1));
  const double off_diagonal = static_cast<double>(A.nnz() - n);
  EXPECT_NEAR(off_diagonal / positions, fill, 0.02);
}

TEST(Generators, BandedExtremeFills) {
  const HostCsr empty_band = gen::banded(100, 5, 0.0, 1);
  EXPECT_EQ(empty_band.nnz(), 100);
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(empty_band.entries[i], i);
  const HostCsr full = gen::banded(100, 5, 1.0, 1);
  EXPECT_EQ(full.nnz(), 100 * 11 - 5 * 6);
  const HostCsr wide = gen::banded(10, 1000, 1.0, 1);  // band wider than the matrix: dense
  EXPECT_EQ(wide.nnz(), 100);
  expect_well_formed(wide, "banded wide");
}

// ----------------------------------------------------------------------------------------------
// Uniform

TEST(Generators, UniformAverageRowLength) {
  const int64_t rows = 20000, cols = 500000;
  const double avg = 12.0;
  const HostCsr A = gen::uniform_random(rows, cols, avg, 3);
  expect_well_formed(A, "uniform");
  EXPECT_EQ(A.num_rows, rows);
  EXPECT_EQ(A.num_cols, cols);
  EXPECT_TRUE(values_in_unit_interval(A));
  const double measured = static_cast<double>(A.nnz()) / rows;
  EXPECT_NEAR(measured, avg, 0.03 * avg);
  // Row lengths vary (Poisson-like), unlike a fixed-length pattern.
  EXPECT_GT(max_row_length(A), static_cast<int64_t>(avg) + 5);
}

TEST(Generators, UniformNonSquareAndColumnsSpread) {
  const HostCsr wide = gen::uniform_random(50, 5000, 40, 8);
  expect_well_formed(wide, "uniform wide");
  EXPECT_EQ(wide.num_rows, 50);
  EXPECT_EQ(wide.num_cols, 5000);
  EXPECT_GT(*std::max_element(wide.entries.begin(), wide.entries.end()), 4500);
  const HostCsr tall = gen::uniform_random(5000, 7, 2.5, 8);
  expect_well_formed(tall, "uniform tall");
  EXPECT_EQ(tall.num_cols, 7);
  EXPECT_LE(max_row_length(tall), 7);
  // Dense request: every position, duplicates merged away.
  const HostCsr dense = gen::uniform_random(4, 4, 4, 1);
  EXPECT_LE(dense.nnz(), 16);
  expect_well_formed(dense, "uniform dense");
}

// ----------------------------------------------------------------------------------------------
// R-MAT

TEST(Generators, RmatIsPowerLaw) {
  const int scale = 14;
  const double ef = 16;
  const HostCsr A = gen::rmat(scale, ef, 1);
  expect_well_formed(A, "rmat");
  EXPECT_EQ(A.num_rows, 1 << scale);
  EXPECT_EQ(A.num_cols, 1 << scale);
  EXPECT_TRUE(values_in_unit_interval(A));
  const int64_t edges = static_cast<int64_t>(ef) << scale;
  EXPECT_LE(A.nnz(), edges);      // duplicates merged
  EXPECT_GT(A.nnz(), edges / 2);  // but most edges are distinct
  const double avg = static_cast<double>(A.nnz()) / A.num_rows;
  EXPECT_GT(static_cast<double>(max_row_length(A)) / avg, 20.0);
  int64_t empty = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) empty += A.row_length(i) == 0;
  EXPECT_GT(empty, 0);  // the tail of a power law
}

TEST(Generators, RmatIsNotSymmetrized) {
  const HostCsr A = gen::rmat(10, 8, 2);
  const HostCsr T = transpose_of(A);
  EXPECT_FALSE(A.row_map == T.row_map && A.entries == T.entries);
}

TEST(Generators, RmatUniformQuadrantsGiveFlatDegrees) {
  // a = b = c = d = 1/4 is Erdos-Renyi: no heavy rows.
  const HostCsr A = gen::rmat(12, 8, 3, 0.25, 0.25, 0.25);
  const double avg = static_cast<double>(A.nnz()) / A.num_rows;
  EXPECT_LT(static_cast<double>(max_row_length(A)) / avg, 4.0);
}

// ----------------------------------------------------------------------------------------------
// Determinism

TEST(Generators, SameSpecTwiceIsIdentical) {
  for (const char* spec :
       {"gen:elasticity:n=4,dof=3,seed=5", "gen:banded:n=3000,bw=10,fill=0.4,seed=5",
        "gen:uniform:n=3000,avg=7,seed=5", "gen:rmat:scale=12,ef=8,seed=5",
        "gen:poisson3d:n=9,points=27"}) {
    SCOPED_TRACE(spec);
    expect_same_arrays(gen::from_spec(spec), gen::from_spec(spec));
  }
}

TEST(Generators, DifferentSeedsDiffer) {
  EXPECT_FALSE(same_arrays(gen::elasticity3d(4, 3, 1), gen::elasticity3d(4, 3, 2)));
  EXPECT_FALSE(same_arrays(gen::banded(1000, 5, 0.5, 1), gen::banded(1000, 5, 0.5, 2)));
  EXPECT_FALSE(
      same_arrays(gen::uniform_random(1000, 1000, 5, 1), gen::uniform_random(1000, 1000, 5, 2)));
  EXPECT_FALSE(same_arrays(gen::rmat(10, 8, 1), gen::rmat(10, 8, 2)));
  // The pattern itself changes, not only the values.
  EXPECT_NE(gen::rmat(10, 8, 1).entries, gen::rmat(10, 8, 2).entries);
  EXPECT_NE(gen::banded(1000, 5, 0.5, 1).entries, gen::banded(1000, 5, 0.5, 2).entries);
}

// Pinned outputs: any change of RNG, stream order or value formula (or a platform that computes
// them differently) changes these. Update them only on a deliberate change of the generators.
TEST(Generators, PinnedFingerprints) {
  struct Pinned {
    const char* spec;
    int64_t nnz;
    uint64_t fingerprint;
  };
  const Pinned pinned[] = {
      {"gen:rmat:scale=8,ef=4,seed=3", 831, 0x3e41526c02529c24ull},
      {"gen:uniform:n=200,cols=300,avg=5,seed=2", 991, 0xcc10be75e0ac13efull},
      {"gen:banded:n=300,bw=4,fill=0.3,seed=5", 986, 0x15750a50141e3507ull},
      {"gen:elasticity:n=3,dof=2,seed=7", 1372, 0x2b38cbf891b55114ull},
  };
  for (const Pinned& p : pinned) {
    const HostCsr A = gen::from_spec(p.spec);
    EXPECT_EQ(A.nnz(), p.nnz) << p.spec;
    EXPECT_EQ(fingerprint(A), p.fingerprint)
        << p.spec << " fingerprint 0x" << std::hex << fingerprint(A);
  }
}

// ----------------------------------------------------------------------------------------------
// Specifications

TEST(Generators, FromSpecMatchesTheFunctions) {
  expect_same_arrays(gen::from_spec("gen:poisson2d:n=7"), gen::poisson2d(7, 5));
  expect_same_arrays(gen::from_spec("gen:poisson2d:n=7,points=9"), gen::poisson2d(7, 9));
  expect_same_arrays(gen::from_spec("gen:poisson3d:n=6"), gen::poisson3d(6, 7));
  expect_same_arrays(gen::from_spec("gen:poisson3d:points=27,n=6"), gen::poisson3d(6, 27));
  expect_same_arrays(gen::from_spec("gen:elasticity:n=3"), gen::elasticity3d(3, 3, 1));
  expect_same_arrays(gen::from_spec("gen:elasticity:n=3,dof=2,seed=9"), gen::elasticity3d(3, 2, 9));
  expect_same_arrays(gen::from_spec("gen:banded:n=500,bw=3"), gen::banded(500, 3, 0.5, 1));
  expect_same_arrays(gen::from_spec("gen:banded:n=500,bw=3,fill=0.25,seed=4"),
                     gen::banded(500, 3, 0.25, 4));
  expect_same_arrays(gen::from_spec("gen:uniform:n=400,avg=6"),
                     gen::uniform_random(400, 400, 6, 1));
  expect_same_arrays(gen::from_spec("gen:uniform:n=400,cols=90,avg=6.5,seed=3"),
                     gen::uniform_random(400, 90, 6.5, 3));
  expect_same_arrays(gen::from_spec("gen:rmat:scale=9"), gen::rmat(9, 16, 1));
  expect_same_arrays(gen::from_spec("gen:rmat:scale=9,ef=4,a=0.45,b=0.15,c=0.15,seed=12"),
                     gen::rmat(9, 4, 12, 0.45, 0.15, 0.15));
  expect_same_arrays(gen::from_spec("gen:rmat:scale=9,seed=18446744073709551615"),
                     gen::rmat(9, 16, UINT64_MAX));
}

TEST(Generators, DocumentedSpecExamplesParse) {
  // The header's examples at test-friendly sizes, and their documented shapes.
  EXPECT_EQ(gen::from_spec("gen:poisson3d:n=10").num_rows, 1000);
  EXPECT_EQ(gen::from_spec("gen:rmat:scale=10,ef=16,seed=1").num_rows, 1024);
  const HostCsr E = gen::from_spec("gen:elasticity:n=4,dof=3");
  EXPECT_EQ(E.num_rows, 64 * 3);
}

TEST(Generators, FromSpecRejectsMalformedSpecs) {
  struct Bad {
    const char* spec;
    const char* phrase;
  };
  const Bad bad[] = {
      {"gen:foo:n=3", "unknown generator 'foo'"},
      {"gen:foo:n=3", "poisson2d, poisson3d, elasticity, banded, uniform, rmat"},
      {"gen:poisson3d:m=3", "unknown key 'm'"},
      {"gen:poisson3d:m=3", "accepts: n, points"},
      {"gen:poisson3d:points=7", "missing required key 'n'"},
      {"gen:poisson3d", "missing required key 'n'"},
      {"gen:banded:n=10", "missing required key 'bw'"},
      {"gen:uniform:n=10", "missing required key 'avg'"},
      {"gen:poisson3d:n=0", "n must be at least 1"},
      {"gen:poisson3d:n=-3", "n must be at least 1"},
      {"gen:poisson3d:n=abc", "not an integer: 'abc'"},
      {"gen:poisson3d:n=1.5", "not an integer"},
      {"gen:poisson3d:n=", "not an integer"},
      {"gen:poisson3d:n= 10", "not an integer"},
      {"gen:poisson3d:n=100x", "not an integer: '100x'"},
      {"gen:poisson3d:n=10:extra", "not an integer"},
      {"gen:poisson3d:n=10,", "stray ','"},
      {"gen:poisson3d:n=10,,points=7", "stray ','"},
      {"gen:poisson3d:", "empty parameter list"},
      {"gen:poisson3d:n", "expected <key>=<value>"},
      {"gen:poisson3d:=5", "expected <key>=<value>"},
      {"gen:poisson3d:n=10,n=11", "given twice"},
      {"gen:poisson3d:n=3,points=6", "points must be 7 or 27"},
      {"gen:poisson2d:n=3,points=7", "points must be 5 or 9"},
      {"gen:poisson2d:n=99999999999999999999", "out of range"},
      {"gen:poisson3d:n=3,points=99999999999", "out of range"},
      {"gen:poisson3d:n=2000", "32-bit ordinals"},
      {"gen:poisson2d:n=50000", "32-bit ordinals"},
      {"gen:elasticity:n=3,dof=0", "dof must be in [1, 64]"},
      {"gen:elasticity:n=1000,dof=3", "32-bit ordinals"},
      {"gen:rmat:scale=40", "scale must be in [1, 30]"},
      {"gen:rmat:scale=0", "scale must be in [1, 30]"},
      {"gen:rmat:scale=10,ef=0", "edge factor must be positive"},
      {"gen:rmat:scale=10,a=0.6,b=0.3,c=0.3", "must not exceed 1"},
      {"gen:rmat:scale=10,a=-0.1", "probabilities"},
      {"gen:rmat:scale=10,seed=-1", "non-negative integer"},
      {"gen:rmat:scale=10,seed=18446744073709551616", "out of range"},
      {"gen:banded:n=10,bw=2,fill=1.5", "fill must be in [0, 1]"},
      {"gen:banded:n=10,bw=-2", "half bandwidth must be >= 0"},
      {"gen:banded:n=10,bw=2,fill=0.5.5", "not a number: '0.5.5'"},
      {"gen:uniform:n=10,avg=abc", "not a number: 'abc'"},
      {"gen:uniform:n=10,avg=nan", "not a number"},
      {"gen:uniform:n=10,avg=1e999", "not a number"},
      {"gen:uniform:n=10,avg=20", "average row length must be in [0, cols = 10]"},
      {"gen:uniform:n=10,cols=0,avg=1", "cols must be in"},
      {"gen::n=3", "missing generator name"},
      {"poisson3d:n=3", "starts with 'gen:'"},
      {"gen:Poisson3d:n=3", "unknown generator"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.spec);
    try {
      gen::from_spec(b.spec);
      ADD_FAILURE() << "accepted " << b.spec;
    } catch (const Sprocket::ParseError& e) {
      EXPECT_EQ(e.file(), b.spec);
      EXPECT_EQ(e.line(), 0);
      EXPECT_NE(e.problem().find(b.phrase), std::string::npos)
          << "message '" << e.problem() << "' lacks '" << b.phrase << "'";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a ParseError: " << e.what();
    }
  }
}

TEST(Generators, FunctionsRejectBadArguments) {
  using Sprocket::InvalidArgument;
  EXPECT_THROW(gen::poisson2d(0), InvalidArgument);
  EXPECT_THROW(gen::poisson2d(3, 7), InvalidArgument);
  EXPECT_THROW(gen::poisson2d(int64_t{1} << 40), InvalidArgument);
  EXPECT_THROW(gen::poisson3d(-1), InvalidArgument);
  EXPECT_THROW(gen::poisson3d(3, 9), InvalidArgument);
  EXPECT_THROW(gen::poisson3d(int64_t{1} << 40), InvalidArgument);
  EXPECT_THROW(gen::elasticity3d(0), InvalidArgument);
  EXPECT_THROW(gen::elasticity3d(3, 0), InvalidArgument);
  EXPECT_THROW(gen::elasticity3d(3, 65), InvalidArgument);
  EXPECT_THROW(gen::elasticity3d(900, 3), InvalidArgument);
  EXPECT_THROW(gen::elasticity3d(2000000, 64), InvalidArgument);  // n^3 * dof overflows int64
  EXPECT_THROW(gen::banded(0, 1), InvalidArgument);
  EXPECT_THROW(gen::banded(10, -1), InvalidArgument);
  EXPECT_THROW(gen::banded(10, 1, -0.1), InvalidArgument);
  EXPECT_THROW(gen::banded(10, 1, NAN), InvalidArgument);
  EXPECT_THROW(gen::banded(int64_t{1} << 31, 1), InvalidArgument);
  EXPECT_THROW(gen::uniform_random(0, 10, 1), InvalidArgument);
  EXPECT_THROW(gen::uniform_random(10, 0, 1), InvalidArgument);
  EXPECT_THROW(gen::uniform_random(10, 10, -1), InvalidArgument);
  EXPECT_THROW(gen::uniform_random(10, 10, 11), InvalidArgument);
  EXPECT_THROW(gen::uniform_random(10, 10, INFINITY), InvalidArgument);
  EXPECT_THROW(gen::rmat(0), InvalidArgument);
  EXPECT_THROW(gen::rmat(31), InvalidArgument);
  EXPECT_THROW(gen::rmat(10, -1), InvalidArgument);
  EXPECT_THROW(gen::rmat(10, NAN), InvalidArgument);
  EXPECT_THROW(gen::rmat(10, 16, 1, 0.5, 0.5, 0.5), InvalidArgument);
  EXPECT_THROW(gen::rmat(10, 16, 1, NAN, 0.1, 0.1), InvalidArgument);
  EXPECT_THROW(gen::rmat(30, 1e30), InvalidArgument);
}

// ----------------------------------------------------------------------------------------------
// load_matrix

TEST(Generators, LoadMatrixDispatchesSpecsToGenerators) {
  expect_same_arrays(Sprocket::load_matrix("gen:poisson2d:n=4"), gen::poisson2d(4));
  expect_same_arrays(Sprocket::load_matrix("gen:rmat:scale=8,seed=4"), gen::rmat(8, 16, 4));
  EXPECT_THROW(Sprocket::load_matrix("gen:nope:n=1"), Sprocket::ParseError);
}

TEST(Generators, LoadMatrixOfMissingFileThrowsSprocketError) {
  EXPECT_THROW(Sprocket::load_matrix("/nonexistent/sprocket/no_such_matrix.mtx"), Sprocket::Error);
}

}  // namespace

// Generator parameters are checked against the host memory ceiling before anything is allocated
// (Sprocket_Memory.hpp): under a 10 MB limit a 1e6-row Poisson (91 MB), an rmat graph and a
// banded matrix are refused with the bytes they need; lifting the limit builds them again.
TEST(Generators, SizesBeyondTheMemoryCeilingAreRefused) {
  Sprocket::set_host_memory_limit(10 << 20);
  for (const char* spec : {"gen:poisson3d:n=100", "gen:elasticity:n=30,dof=3", "gen:rmat:scale=18,ef=16",
                           "gen:uniform:n=1000000,avg=16", "gen:banded:n=1000000,bw=8"}) {
    try {
      Sprocket::gen::from_spec(spec);
      ADD_FAILURE() << spec << " built under a 10 MB limit";
    } catch (const Sprocket::ResourceError& e) {
      EXPECT_GT(e.bytes_needed(), 10 << 20) << spec;
      EXPECT_EQ(e.bytes_available(), 10 << 20) << spec;
    }
  }
  Sprocket::set_host_memory_limit(0);
  EXPECT_EQ(Sprocket::gen::from_spec("gen:poisson3d:n=100").num_rows, 1000000);
}
