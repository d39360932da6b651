// Smoothed-aggregation AMG (make_smoothed_aggregation, impl/precond/smoothed_aggregation*.hpp):
//  - host setup pieces against hand-checked cases: strength of connection (scalar and block
//    norms, the threshold), aggregation (every node with a strong neighbour aggregated, isolated
//    nodes left out, aggregates connected), the tentative prolongator (orthonormal columns that
//    reproduce the near null space, dependent columns dropped), the smoothed prolongator's
//    missing-diagonal error, rigid-body modes (no strain between any two nodes), the dense LU;
//  - typed over float/double, int/size_t offsets, OpenMP and Serial: the Galerkin matrices equal
//    P^T A P by a dense reference and the prolongators equal (I - w D^-1 A) P_tentative's
//    defining property (P B_c = (I - w D^-1 A) B); one level is an exact solve; the V-cycle is
//    symmetric for symmetric A and contracts the error in the A-norm; update_values equals a
//    fresh setup; block GMRES converges on Poisson and on elasticity with rigid-body modes;
//    Y is poisoned before every apply; errors name what is wrong.
//
// No device code here (nvcc refuses extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "Sprocket_BlockGmres.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Spmm.hpp"
#include "impl/precond/smoothed_aggregation_setup.hpp"
#include "precond_test_utils.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;
using namespace Sprocket::Impl::precond;

namespace {

using namespace test::precond_tests;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Row-major dense copy of a HostCsr (duplicates summed).
std::vector<double> dense_of(const HostCsr& A) {
  std::vector<double> d(static_cast<size_t>(A.num_rows) * A.num_cols, 0.0);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) d[i * A.num_cols + A.entries[k]] += A.values[k];
  return d;
}

/// 2-D Poisson with its values scaled by random positive factors per edge (symmetric, SPD,
/// still an M-matrix): a Laplacian-like matrix whose coarse levels are not all alike.
HostCsr weighted_poisson2d(int64_t n, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  std::uniform_real_distribution<double> u(0.5, 2.0);
  std::vector<Triplet> t;
  const int64_t N = n * n;
  std::vector<double> diagonal(N, 0.01);
  auto edge = [&](int64_t p, int64_t q) {
    const double w = u(rng);
    t.push_back({p, q, -w});
    t.push_back({q, p, -w});
    diagonal[p] += w;
    diagonal[q] += w;
  };
  for (int64_t y = 0; y < n; ++y)
    for (int64_t x = 0; x < n; ++x) {
      const int64_t p = y * n + x;
      if (x + 1 < n) edge(p, p + 1);
      if (y + 1 < n) edge(p, p + n);
    }
  for (int64_t p = 0; p < N; ++p) t.push_back({p, p, diagonal[p]});
  return HostCsr::from_triplets(N, N, std::move(t));
}

/// x^T y over all entries of two host blocks of the same shape.
double dot(const HostDense& x, const HostDense& y) {
  double s = 0;
  for (size_t i = 0; i < x.data.size(); ++i) s += x.data[i] * y.data[i];
  return s;
}

/// lambda_max(D^{-1} A) for symmetric A with a positive diagonal, independently of the library:
/// D^{-1} A is similar to the symmetric S = D^{-1/2} A D^{-1/2}, whose largest eigenvalue the
/// Rayleigh quotient of the power method reaches at the rate (lambda_2 / lambda_1)^(2k): 4000
/// steps resolve even the 1% gaps of these small Laplacians to rounding. The largest eigenvalue of
/// these matrices is also the largest in magnitude (they are positive definite).
double reference_lambda_max(const HostCsr& A) {
  const int64_t n = A.num_rows;
  std::vector<double> d(n, 0.0), x(n), y(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      if (A.entries[k] == i) d[i] += A.values[k];
  for (int64_t i = 0; i < n; ++i) x[i] = 1.0 + 0.5 * std::sin(0.7 * static_cast<double>(i) + 0.3);
  double lambda = 0;
  for (int step = 0; step < 4000; ++step) {
    double xx = 0, xy = 0;
    for (int64_t i = 0; i < n; ++i) {
      double s = 0;
      for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
        s += A.values[k] * x[A.entries[k]] / std::sqrt(d[i] * d[A.entries[k]]);
      y[i] = s;
      xx += x[i] * x[i];
      xy += x[i] * s;
    }
    lambda = xy / xx;
    double yy = 0;
    for (double v : y) yy += v * v;
    for (int64_t i = 0; i < n; ++i) x[i] = y[i] / std::sqrt(yy);
  }
  return lambda;
}

/// (I - omega D^{-1} A) M for dense row-major M (n x m), A sparse: the damped Jacobi step the
/// smoothed prolongator applies to the tentative one, written out from its definition.
std::vector<double> jacobi_smoothed(const HostCsr& A, const std::vector<double>& M, int64_t m, double omega) {
  const int64_t n = A.num_rows;
  std::vector<double> out = M;
  for (int64_t i = 0; i < n; ++i) {
    double diagonal = 0;
    std::vector<double> am(m, 0.0);
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      if (A.entries[k] == i) diagonal += A.values[k];
      for (int64_t j = 0; j < m; ++j) am[j] += A.values[k] * M[A.entries[k] * m + j];
    }
    for (int64_t j = 0; j < m; ++j) out[i * m + j] -= omega / diagonal * am[j];
  }
  return out;
}

// ---- host setup -----------------------------------------------------------------------------

TEST(SmoothedAggregationSetup, StrengthKeepsStrongConnectionsByBlockNorm) {
  // Scalar: row 0 couples strongly to 1 and weakly to 2 (|a_02| = 0.1 < 0.25 sqrt(4 * 4) = 1).
  const HostCsr A = HostCsr::from_triplets(3, 3, {{0, 0, 4}, {0, 1, -2}, {0, 2, -0.1}, {1, 0, -2}, {1, 1, 4},
                                                  {2, 0, -0.1}, {2, 2, 4}, {2, 2, 0}});
  const StrengthGraph all = strength_graph(A, uniform_nodes(3, 1), 0.0);
  EXPECT_EQ(all.adj, (std::vector<int64_t>{1, 2, 0, 0}));
  const StrengthGraph strong = strength_graph(A, uniform_nodes(3, 1), 0.25);
  EXPECT_EQ(strong.ptr, (std::vector<int64_t>{0, 1, 2, 2}));
  EXPECT_EQ(strong.adj, (std::vector<int64_t>{1, 0}));
  EXPECT_DOUBLE_EQ(strong.weight[0], 2.0);
  // Blocks of 2: nodes {0, 1} and {2, 3}; the off-diagonal block's Frobenius norm sqrt(3^2 + 4^2).
  const HostCsr B = HostCsr::from_triplets(4, 4, {{0, 0, 10}, {1, 1, 10}, {2, 2, 10}, {3, 3, 10}, {0, 2, 3}, {1, 3, 4},
                                                  {2, 0, 3}, {3, 1, 4}});
  const StrengthGraph G = strength_graph(B, uniform_nodes(4, 2), 0.0);
  ASSERT_EQ(G.num_nodes, 2);
  EXPECT_EQ(G.adj, (std::vector<int64_t>{1, 0}));
  EXPECT_DOUBLE_EQ(G.weight[0], 5.0);
  // ||A_II||_F = sqrt(200): strong while 5 > theta sqrt(200).
  EXPECT_EQ(strength_graph(B, uniform_nodes(4, 2), 0.3).adj.size(), 2u);
  EXPECT_EQ(strength_graph(B, uniform_nodes(4, 2), 0.4).adj.size(), 0u);
  EXPECT_TRUE(contains(thrown_message([&] { strength_graph(B, uniform_nodes(4, 2), 1.5); }), "strength_threshold"));
}

TEST(SmoothedAggregationSetup, AggregatesCoverConnectedNodesAndLeaveIsolatedOnesOut) {
  for (int64_t n : {1, 2, 5, 30, 101}) {
    HostCsr A = gen::poisson2d(n);
    // Make node 0 isolated (a Dirichlet row): only its diagonal.
    std::vector<Triplet> t;
    for (int64_t i = 0; i < A.num_rows; ++i)
      for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
        if ((i != 0 && A.entries[k] != 0) || (i == 0 && A.entries[k] == 0)) t.push_back({i, A.entries[k], A.values[k]});
    A = HostCsr::from_triplets(A.num_rows, A.num_cols, std::move(t));
    const StrengthGraph G = strength_graph(A, uniform_nodes(A.num_rows, 1), 0.0);
    const Aggregates agg = aggregate_nodes(G);
    ASSERT_EQ(agg.aggregate[0], -1) << "n = " << n;
    EXPECT_EQ(agg.left_out, 1);
    std::vector<int64_t> size(agg.count, 0);
    for (int64_t I = 1; I < A.num_rows; ++I) {
      ASSERT_GE(agg.aggregate[I], 0) << "node " << I << " of n = " << n;
      ASSERT_LT(agg.aggregate[I], agg.count);
      ++size[agg.aggregate[I]];
    }
    for (int64_t a = 0; a < agg.count; ++a) EXPECT_GT(size[a], 0) << "aggregate " << a << " is empty";
    // Connected: every aggregate of more than one node has each node next to another of it.
    for (int64_t I = 1; I < A.num_rows; ++I) {
      if (size[agg.aggregate[I]] == 1) continue;
      bool linked = false;
      for (int64_t k = G.ptr[I]; k < G.ptr[I + 1]; ++k) linked |= agg.aggregate[G.adj[k]] == agg.aggregate[I];
      EXPECT_TRUE(linked) << "node " << I << " has no neighbour in its aggregate";
    }
    if (n >= 30) EXPECT_LT(agg.count * 3, A.num_rows) << "aggregates of about 5 nodes on a 5-point grid";
  }
}

TEST(SmoothedAggregationSetup, TentativeProlongatorIsOrthonormalAndReproducesTheNullSpace) {
  const int64_t n = 40;
  const int k = 3;
  Aggregates agg;
  agg.aggregate.resize(n);
  std::mt19937_64 rng(test::seed_for(7));
  for (int64_t I = 0; I < n; ++I) agg.aggregate[I] = I < 2 ? -1 : (I - 2) / 4;  // 2 left out, 10 aggregates of 4 ... of 2 nodes
  agg.count = (n - 2 + 3) / 4;
  agg.left_out = 2;
  const std::vector<int64_t> nodes = uniform_nodes(2 * n, 2);  // 2 unknowns per node
  HostDense B = test::random_dense(2 * n, k, 8);
  // In the last aggregate column 2 equals column 0: dependent there, dropped.
  for (int64_t r = nodes[n - 2]; r < 2 * n; ++r) B(r, 2) = B(r, 0);
  const TentativeProlongator T = tentative_prolongator(agg, nodes, B.data, k);
  EXPECT_EQ(T.dropped_columns, 1);
  EXPECT_EQ(T.P.num_cols, agg.count * k - 1);
  ASSERT_EQ(static_cast<int64_t>(T.coarse_node_ptr.size()), agg.count + 1);
  const std::vector<double> P = dense_of(T.P);
  const int64_t nc = T.P.num_cols, m = 2 * n;
  // P^T P = I.
  for (int64_t a = 0; a < nc; ++a)
    for (int64_t b = 0; b < nc; ++b) {
      double s = 0;
      for (int64_t r = 0; r < m; ++r) s += P[r * nc + a] * P[r * nc + b];
      ASSERT_NEAR(s, a == b ? 1.0 : 0.0, 1e-12) << "(P^T P)(" << a << ", " << b << ")";
    }
  // P B_c = B on aggregated rows, 0 on the left-out ones.
  for (int j = 0; j < k; ++j)
    for (int64_t r = 0; r < m; ++r) {
      double s = 0;
      for (int64_t c = 0; c < nc; ++c) s += P[r * nc + c] * T.coarse_null_space[c + j * nc];
      ASSERT_NEAR(s, r < 4 ? 0.0 : B(r, j), 1e-12) << "row " << r << ", column " << j;
    }
  EXPECT_TRUE(contains(thrown_message([&] { tentative_prolongator(agg, nodes, B.data, k + 1); }), "near null space"));
}

TEST(SmoothedAggregationSetup, SmoothedProlongatorNeedsTheDiagonal) {
  const HostCsr Pt = HostCsr::from_triplets(2, 1, {{0, 0, 1}, {1, 0, 1}});
  const HostCsr AP = HostCsr::from_triplets(2, 1, {{0, 0, 1}});  // row 1 of A P lacks column 0
  EXPECT_TRUE(contains(thrown_message([&] { smoothed_prolongator(Pt, AP, {1, 1}, 1.0, nullptr); }),
                       "row 1 of A P lacks column 0"));
}

TEST(SmoothedAggregationSetup, RigidBodyModesHaveNoStrain) {
  std::mt19937_64 rng(test::seed_for(11));
  std::uniform_real_distribution<double> u(-3, 3);
  for (int dim : {2, 3}) {
    const int64_t nodes = 9;
    std::vector<double> xyz(nodes * dim);
    for (double& v : xyz) v = u(rng);
    const std::vector<double> B = rigid_body_modes(xyz, dim);
    const int modes = dim == 3 ? 6 : 3;
    const int64_t n = nodes * dim;
    ASSERT_EQ(static_cast<int64_t>(B.size()), n * modes);
    // Rigid motions keep distances: (u_p - u_q) . (x_p - x_q) = 0 for every pair and mode.
    for (int m = 0; m < modes; ++m) {
      double norm = 0;
      for (int64_t r = 0; r < n; ++r) norm += B[r + m * n] * B[r + m * n];
      EXPECT_GT(norm, 0) << "mode " << m;
      for (int64_t p = 0; p < nodes; ++p)
        for (int64_t q = 0; q < nodes; ++q) {
          double s = 0;
          for (int d = 0; d < dim; ++d)
            s += (B[p * dim + d + m * n] - B[q * dim + d + m * n]) * (xyz[p * dim + d] - xyz[q * dim + d]);
          ASSERT_NEAR(s, 0.0, 1e-12) << "mode " << m << ", nodes " << p << ", " << q << ", dimension " << dim;
        }
    }
  }
  EXPECT_TRUE(contains(thrown_message([] { rigid_body_modes({1, 2, 3}, 4); }), "dimension"));
  EXPECT_TRUE(contains(thrown_message([] { rigid_body_modes({1, 2, 3, 4}, 3); }), "multiple"));
}

TEST(SmoothedAggregationSetup, DenseLuSolvesAndNamesASingularMatrix) {
  const HostCsr A = test::random_csr(30, 30, 5, 12);
  HostCsr D = A;
  std::vector<Triplet> t;
  for (int64_t i = 0; i < 30; ++i) {
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) t.push_back({i, A.entries[k], A.values[k]});
    t.push_back({i, i, 10.0});
  }
  D = HostCsr::from_triplets(30, 30, std::move(t));
  const DenseLu f = dense_lu(D, "test");
  const HostDense X = test::random_dense(30, 3, 13);
  HostDense B = times<double>(D, X);
  dense_lu_solve(f, B.data.data(), 3);
  EXPECT_LT(max_abs_difference(B, X), 1e-12);
  const HostCsr S = HostCsr::from_triplets(2, 2, {{0, 0, 1}, {0, 1, 2}, {1, 0, 2}, {1, 1, 4}});
  EXPECT_TRUE(contains(thrown_message([&] { dense_lu(S, "test"); }), "singular"));
}

// ---- the preconditioner, typed ----------------------------------------------------------------

// A CUDA build tests its own space (its test programs instantiate Cuda types only; the host build
// tests the host spaces).
#if !defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
using AmgTypes = ::testing::Types<KokkosSparse::CrsMatrix<float, int, test::DeviceOf<Kokkos::OpenMP>, void, int>,
                                  KokkosSparse::CrsMatrix<double, int, test::DeviceOf<Kokkos::OpenMP>, void, size_t>,
                                  KokkosSparse::CrsMatrix<double, int, test::DeviceOf<Kokkos::Serial>, void, int>>;
#else
using AmgTypes = ::testing::Types<CrsOf<float>, CrsOf<double>>;
#endif

template <class Crs>
class SmoothedAggregation : public ::testing::Test {};
TYPED_TEST_SUITE(SmoothedAggregation, AmgTypes);

template <class Crs>
auto amg(const HostCsr& A, const SmoothedAggregationOptions& o = {}) {
  return make_smoothed_aggregation(to_crs<Crs>(A), o);
}

// A_{l+1} = P_l^T A_l P_l, and the prolongator is the tentative one smoothed by one damped Jacobi
// step: P_l = (I - w_l D_l^-1 A_l) Pt_l with w_l = damping / lambda_max(D_l^-1 A_l), so that
// P_l B_{l+1} = (I - w_l D_l^-1 A_l) B_l for the near null space B_l (B_0 constant, B_{l+1} the
// tentative prolongator's coarse null space). The smoothing is recomputed here from its
// definition (dense, double) and lambda_max by an independent power method to convergence; the
// tentative prolongator comes from the setup functions tested by hand above. On a hierarchy of at
// least three levels.
TYPED_TEST(SmoothedAggregation, GalerkinMatricesAndProlongatorsMatchDenseReferences) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const bool single = std::is_same_v<Scalar, float>;
  const double tol = single ? 2e-5 : 1e-12;
  const HostCsr A = weighted_poisson2d(24, 20);
  SmoothedAggregationOptions o;
  o.coarse_size = 20;
  o.block_size = 1;
  const auto M = amg<Crs>(A, o);
  ASSERT_GE(M->num_levels(), 3) << M->describe();
  std::cout << "[sprocket] " << M->describe() << "\n";
  std::vector<int64_t> node_ptr = uniform_nodes(A.num_rows, 1);
  std::vector<double> null_space(A.num_rows, 1.0);  // B_0: the constant (column-major, one column)
  int null_space_columns = 1;
  for (int l = 0; l + 1 < M->num_levels(); ++l) {
    const HostCsr Al = M->level_matrix(l), P = M->prolongator(l), Ac = M->level_matrix(l + 1);
    const int64_t n = Al.num_rows, nc = Ac.num_rows;
    ASSERT_EQ(P.num_rows, n);
    ASSERT_EQ(P.num_cols, nc);
    // lambda_max: the library's power-method estimate (15 steps) against the converged value.
    const double lambda = reference_lambda_max(Al), estimate = M->level(l).lambda_max;
    EXPECT_GT(estimate, 0.7 * lambda) << "level " << l;
    EXPECT_LT(estimate, 1.05 * lambda) << "level " << l;
    // The tentative prolongator and coarse null space of this level's aggregates.
    const TentativeProlongator T = tentative_prolongator(
        aggregate_nodes(strength_graph(Al, node_ptr, o.strength_threshold)), node_ptr, null_space, null_space_columns);
    ASSERT_EQ(T.P.num_rows, n);
    ASSERT_EQ(T.P.num_cols, nc) << "level " << l << ": the hierarchy's aggregates differ from the setup functions'";
    // P = (I - w D^-1 A) Pt, entry by entry, with w from the level's estimate.
    const double omega = o.prolongator_damping / estimate;
    const std::vector<double> p = dense_of(P), p_reference = jacobi_smoothed(Al, dense_of(T.P), nc, omega);
    double p_scale = 0;
    for (double v : p_reference) p_scale = std::max(p_scale, std::fabs(v));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < nc; ++j)
        ASSERT_NEAR(p[i * nc + j], p_reference[i * nc + j], (single ? 1e-5 : 1e-13) * p_scale)
            << "P_" << l << "(" << i << ", " << j << ") against (I - w D^-1 A) Pt, w = " << omega;
    // P B_{l+1} = (I - w D^-1 A) B_l, column by column of the near null space.
    const int nk = null_space_columns;
    std::vector<double> b(n * nk), pb(n * nk, 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int c = 0; c < nk; ++c) b[i * nk + c] = null_space[i + c * n];
    for (int64_t i = 0; i < n; ++i)
      for (int64_t q = P.row_map[i]; q < P.row_map[i + 1]; ++q)
        for (int c = 0; c < nk; ++c) pb[i * nk + c] += P.values[q] * T.coarse_null_space[P.entries[q] + c * nc];
    const std::vector<double> smoothed_b = jacobi_smoothed(Al, b, nk, omega);
    double b_scale = 0;
    for (double v : smoothed_b) b_scale = std::max(b_scale, std::fabs(v));
    for (int64_t i = 0; i < n * nk; ++i)
      ASSERT_NEAR(pb[i], smoothed_b[i], (single ? 1e-5 : 1e-12) * b_scale)
          << "(P_" << l << " B_" << l + 1 << ")(" << i / nk << ", " << i % nk << ") against (I - w D^-1 A) B_" << l;
    node_ptr = T.coarse_node_ptr;
    null_space = T.coarse_null_space;
    null_space_columns = nk;
    const std::vector<double> a = dense_of(Al), c = dense_of(Ac);
    std::vector<double> ap(n * nc, 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < n; ++k)
        if (a[i * n + k] != 0)
          for (int64_t j = 0; j < nc; ++j) ap[i * nc + j] += a[i * n + k] * p[k * nc + j];
    double scale = 0;
    for (double v : c) scale = std::max(scale, std::fabs(v));
    for (int64_t i = 0; i < nc; ++i)
      for (int64_t j = 0; j < nc; ++j) {
        double s = 0;
        for (int64_t k = 0; k < n; ++k) s += p[k * nc + i] * ap[k * nc + j];
        ASSERT_NEAR(c[i * nc + j], s, tol * scale) << "A_" << l + 1 << "(" << i << ", " << j << ")";
      }
  }
  EXPECT_GT(M->operator_complexity(), 1.0);
  EXPECT_LT(M->operator_complexity(), 2.5);
}

// With coarse_size >= n there is one level: the dense LU, an exact solve.
TYPED_TEST(SmoothedAggregation, OneLevelIsAnExactSolve) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const HostCsr A = weighted_poisson2d(7, 21);
  SmoothedAggregationOptions o;
  o.coarse_size = A.num_rows;
  const auto M = amg<Crs>(A, o);
  ASSERT_EQ(M->num_levels(), 1);
  const HostDense X = test::random_dense(A.num_rows, 3, 22);
  const HostDense Y = apply(*M, times<Scalar>(A, X));
  EXPECT_LT(max_abs_difference(Y, X), (std::is_same_v<Scalar, float> ? 1e-3 : 1e-11) * max_abs(X));
}

// For symmetric A the V-cycle is a symmetric operator (same smoother before and after, R = P^T):
// x^T M y = y^T M x. And one cycle contracts the error: ||(I - M A) e||_A < 0.3 ||e||_A.
TYPED_TEST(SmoothedAggregation, VCycleIsSymmetricAndContracts) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const HostCsr A = weighted_poisson2d(30, 23);
  for (auto smoother : {SmoothedAggregationOptions::Smoother::chebyshev, SmoothedAggregationOptions::Smoother::jacobi}) {
    SmoothedAggregationOptions o;
    o.coarse_size = 30;
    o.smoother = smoother;
    o.smoother_sweeps = smoother == SmoothedAggregationOptions::Smoother::jacobi ? 2 : 1;
    const auto M = amg<Crs>(A, o);
    ASSERT_GE(M->num_levels(), 3);
    const HostDense x = test::random_dense(A.num_rows, 1, 24), y = test::random_dense(A.num_rows, 1, 25);
    const double xMy = dot(x, apply(*M, y)), yMx = dot(y, apply(*M, x));
    EXPECT_NEAR(xMy, yMx, (std::is_same_v<Scalar, float> ? 1e-4 : 1e-11) * std::fabs(xMy)) << M->describe();
    const HostDense e = test::random_dense(A.num_rows, 2, 26);
    const HostDense Me = apply(*M, times<Scalar>(A, e));
    HostDense e1 = e;
    for (size_t i = 0; i < e1.data.size(); ++i) e1.data[i] -= Me.data[i];
    const double before = std::sqrt(dot(e, times<double>(A, e))), after = std::sqrt(dot(e1, times<double>(A, e1)));
    EXPECT_LT(after, 0.3 * before) << "one V-cycle: ||e||_A " << before << " -> " << after << "; " << M->describe();
  }
}

// update_values: new values on the same pattern give what a fresh setup gives, where the fresh
// setup builds the same aggregates: a two-level hierarchy whose A changes only on its diagonal
// (the off-diagonal strengths decide the aggregates); and on many levels, where coarse aggregates
// are kept from the setup, 2 A gives exactly half of A's V-cycle.
TYPED_TEST(SmoothedAggregation, UpdateValuesEqualsAFreshSetup) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const double tol = std::is_same_v<Scalar, float> ? 1e-4 : 1e-11;
  const HostCsr A = weighted_poisson2d(20, 27);
  HostCsr A2 = A, twice = A;
  std::mt19937_64 rng(test::seed_for(28));
  std::uniform_real_distribution<double> u(0.1, 2.0);
  for (int64_t i = 0; i < A2.num_rows; ++i)
    for (int64_t k = A2.row_map[i]; k < A2.row_map[i + 1]; ++k) {
      if (A2.entries[k] == i) A2.values[k] += u(rng);
      twice.values[k] *= 2;
    }
  const HostDense X = test::random_dense(A.num_rows, 2, 29);
  SmoothedAggregationOptions two_levels;
  two_levels.coarse_size = 200;
  const auto M = amg<Crs>(A, two_levels);
  ASSERT_EQ(M->num_levels(), 2);
  const HostDense Y0 = apply(*M, X);
  M->update_values(to_crs<Crs>(A2));
  const HostDense Y1 = apply(*M, X), Y2 = apply(*amg<Crs>(A2, two_levels), X);
  EXPECT_LT(max_abs_difference(Y1, Y2), tol * max_abs(Y2));
  EXPECT_GT(max_abs_difference(Y1, Y0), 1e-3 * max_abs(Y0)) << "the new values must matter";
  SmoothedAggregationOptions many;
  many.coarse_size = 10;
  const auto N = amg<Crs>(A, many);
  ASSERT_GE(N->num_levels(), 3);
  const HostDense Z0 = apply(*N, X);
  N->update_values(to_crs<Crs>(twice));
  HostDense Z1 = apply(*N, X);
  for (double& v : Z1.data) v *= 2;
  EXPECT_LT(max_abs_difference(Z1, Z0), tol * max_abs(Z0));
  // Another pattern throws.
  const HostCsr other = weighted_poisson2d(19, 30);
  EXPECT_TRUE(contains(thrown_message([&] { M->update_values(to_crs<Crs>(other)); }), "pattern"));
}

// Block GMRES converges with the AMG in few iterations: Poisson 3-D, and elasticity with
// rigid-body modes (6 columns; coarse nodes keep up to 6 unknowns).
TYPED_TEST(SmoothedAggregation, BlockGmresConvergesInFewIterations) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  if (std::is_same_v<Scalar, float>) GTEST_SKIP() << "1e-8 needs double";
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename Crs::device_type>;
  struct Case {
    HostCsr A;
    bool rigid;
    int max_iterations;
  };
  const int side = 8;
  std::vector<double> xyz;
  for (int z = 0; z < side; ++z)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) xyz.insert(xyz.end(), {double(x), double(y), double(z)});
  for (const Case& c : {Case{gen::poisson3d(16), false, 12}, Case{gen::elasticity3d(side, 3, test::seed_for(31)), true, 12}}) {
    SmoothedAggregationOptions o;
    o.coarse_size = 50;
    if (c.rigid) {
      o.near_null_space = rigid_body_modes(xyz, 3);
      o.near_null_space_columns = 6;
      o.block_size = 3;
    }
    const Crs a = to_crs<Crs>(c.A);
    const auto M = make_smoothed_aggregation(a, o);
    const int64_t n = c.A.num_rows, s = 4;
    const MV b = test::to_view<MV>(times<double>(c.A, test::random_dense(n, s, 32)), "B");
    const MV x("X", n, s);
    BlockGmresOptions g;
    g.block_size = s;
    g.tol = 1e-8;
    auto op = make_operator(SpmmPlan<Crs>(a));
    const BlockGmresResult r = block_gmres(*op, b, x, g, M.get());
    EXPECT_EQ(r.status, SolverStatus::converged) << M->describe();
    EXPECT_LE(r.iterations, c.max_iterations) << M->describe();
    std::cout << "[sprocket] " << r.iterations << " block iterations: " << M->describe() << "\n";
  }
}

TYPED_TEST(SmoothedAggregation, EdgeCasesAndErrors) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  // 0 x 0 and 1 x 1.
  const auto empty = amg<Crs>(HostCsr::from_triplets(0, 0, {}));
  EXPECT_EQ(empty->num_rows(), 0);
  EXPECT_EQ(apply(*empty, HostDense(0, 2)).num_rows, 0);
  const auto one = amg<Crs>(HostCsr::from_triplets(1, 1, {{0, 0, 4}}));
  const HostDense y = apply(*one, HostDense(1, 1, 2.0));
  EXPECT_NEAR(y(0, 0), 0.5, 1e-6);
  // A diagonal matrix has no strong connections: one level, dense LU, exact.
  std::vector<Triplet> t;
  for (int64_t i = 0; i < 700; ++i) t.push_back({i, i, 1.0 + i});
  const HostCsr D = HostCsr::from_triplets(700, 700, std::move(t));
  const auto d = amg<Crs>(D);
  EXPECT_EQ(d->num_levels(), 1);
  const HostDense X = test::random_dense(700, 2, 33);
  // dense LU on a diagonal: x = b / d_ii to the rounding of one division, in the type's precision
  EXPECT_LT(max_abs_difference(apply(*d, times<Scalar>(D, X)), X),
            (std::is_same_v<Scalar, float> ? 1e-6 : 1e-14) * max_abs(X));
  // Errors.
  const HostCsr P = gen::poisson2d(30);
  EXPECT_TRUE(contains(thrown_message([] { amg<Crs>(test::random_csr(5, 6, 2, 34)); }), "square"));
  HostCsr Z = P;
  for (int64_t k = Z.row_map[17]; k < Z.row_map[18]; ++k)
    if (Z.entries[k] == 17) Z.values[k] = 0;
  EXPECT_TRUE(contains(thrown_message([&] { amg<Crs>(Z); }), "row 17 has a zero"));
  SmoothedAggregationOptions bad;
  bad.near_null_space = {1, 2, 3};
  bad.near_null_space_columns = 1;
  EXPECT_TRUE(contains(thrown_message([&] { amg<Crs>(P, bad); }), "near null space has 3 values"));
  // Each bad option is named with its value.
  struct BadOption {
    const char* name;
    void (*set)(SmoothedAggregationOptions&);
  };
  for (const BadOption& bad_option : std::vector<BadOption>{
           {"max_levels = 0", [](SmoothedAggregationOptions& o) { o.max_levels = 0; }},
           {"coarse_size = 0", [](SmoothedAggregationOptions& o) { o.coarse_size = 0; }},
           {"prolongator_damping = 2", [](SmoothedAggregationOptions& o) { o.prolongator_damping = 2; }},
           {"prolongator_damping = -0.5", [](SmoothedAggregationOptions& o) { o.prolongator_damping = -0.5; }},
           {"strength_threshold", [](SmoothedAggregationOptions& o) { o.strength_threshold = -1; }},
           {"smoother_sweeps = 0", [](SmoothedAggregationOptions& o) { o.smoother_sweeps = 0; }},
           {"block_size = -1", [](SmoothedAggregationOptions& o) { o.block_size = -1; }},
           {"jacobi_damping = 0", [](SmoothedAggregationOptions& o) { o.jacobi_damping = 0; }},
           {"chebyshev.power_iterations = 0", [](SmoothedAggregationOptions& o) { o.chebyshev.power_iterations = 0; }}}) {
    SmoothedAggregationOptions o;
    bad_option.set(o);
    const std::string m = thrown_message([&] { amg<Crs>(P, o); });
    EXPECT_TRUE(contains(m, bad_option.name)) << "expected \"" << bad_option.name << "\" in: " << m;
  }
  const auto M = amg<Crs>(P);
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename Crs::device_type>;
  EXPECT_TRUE(contains(thrown_message([&] { M->apply(MV("x", 5, 1), MV("y", 5, 1)); }), "900 x 900"));
  EXPECT_TRUE(contains(thrown_message([&] { M->prolongator(M->num_levels() - 1); }), "has no prolongator"));
}

}  // namespace
