// sprocket-hypre-amg: hypre's BoomerAMG (classical algebraic multigrid) as the peer of our
// smoothed-aggregation AMG. It solves the same problems as `sprocket-solve --solver bgmres
// --prec amg`: the same matrix (our readers and generators), the same right-hand sides
// (--rhs ones: B = A X*, column 0 of X* all ones, column j > 0 is 1 + j (i mod 7) / 7), each
// column from a zero initial guess by hypre's ParCSR GMRES (restart --restart, relative tolerance
// --tol) preconditioned by one BoomerAMG V-cycle per application. BoomerAMG is set up once and
// reused for every right-hand side. hypre as Debian builds it (MPI, no OpenMP): one thread per
// MPI rank; started alone (a singleton) it runs on one rank, under `mpirun -np N` on N ranks.
//
//   sprocket-hypre-amg [--matrix <file.mtx[.gz] | gen:...>] [--block s] [--restart m] [--tol t]
//                      [--max-iterations n] [--strong-threshold t] [--coarsen-type c]
//                      [--agg-levels l] [--agg-interp-type a] [--interp-type i] [--pmax p]
//                      [--num-functions k|auto] [--nodal m] [--nodal-diag d]
//                      [--interp-vectors none|rigid-body|rigid-body-rotations]
//                      [--interp-vec-variant v] [--interp-vec-qmax q] [--smooth-interp-vectors 0|1]
//                      [--interp-refine r] [--print-level p] [--json] [--quiet]
//   mpirun -np N sprocket-hypre-amg ...   (Open MPI as root: mpirun --allow-run-as-root ...)
//
// Parallel runs: every rank reads or generates the whole matrix (the same bits on every rank) and
// then owns a contiguous block of rows, the rows of nodes [N r / R, N (r + 1) / R) for rank r of R
// and N = rows / k nodes (k = the number of functions, so a node's unknowns stay on one rank);
// each rank assembles only its rows of the IJ matrix and vectors. hypre's GMRES and BoomerAMG
// then run on all ranks; rank 0 prints. Note that BoomerAMG's hierarchy and smoother depend on the
// number of ranks (HMIS and PMIS coarsening start from per-rank independent sets, the hybrid
// Gauss-Seidel smoothers are Gauss-Seidel within a rank and Jacobi between ranks), so iteration
// counts may differ slightly from one rank; the problem and the checks are the same.
//
// BoomerAMG keeps hypre's defaults (hypre 2.26: HMIS coarsening, extended+i interpolation with
// at most 4 entries per row, no aggressive coarsening, l1 hybrid Gauss-Seidel forward down /
// backward up, Gaussian elimination on the coarsest level, strength threshold 0.25) except what
// the flags set; each flag is named after the hypre call it makes (HYPRE_BoomerAMGSet...):
//   --strong-threshold t   StrongThreshold (default 0.25; hypre's documentation recommends 0.5
//                          or more for 3-D problems)
//   --coarsen-type c       CoarsenType: falgout (6), hmis (10), pmis (8), cljp (0), rs (3), or
//                          hypre's integer code
//   --agg-levels l         AggNumLevels: levels of aggressive coarsening from the finest (0)
//   --agg-interp-type a    AggInterpType: interpolation on the aggressive levels (hypre's 4,
//                          multipass; 1 = 2-stage extended+i, ...)
//   --interp-type i        InterpType: 6 = extended+i (ext+i also accepted), 0 classical, 3
//                          direct, 8 standard, 14 extended, ... (hypre's integer codes)
//   --pmax p               PMaxElmts: at most p entries per row of interpolation (hypre's 4;
//                          0: no truncation)
//   --num-functions k      NumFunctions: systems AMG with k unknowns per node, interleaved (row
//                          p*k + a is unknown a of node p; gen:elasticity's ordering): 3 for
//                          gen:elasticity:...,dof=3. auto: the dof of a gen:elasticity spec, else
//                          Sprocket::detect_block_size of the matrix. Default 1 (scalar AMG).
//   --nodal m              Nodal: nodal coarsening on the norm m of each k x k block (1
//                          Frobenius, 2 sum of |a|, 3 largest entry, 4 row sum, 6 sum); needs k > 1
//   --nodal-diag d         NodalDiag (0, 1 or 2)
//   --interp-vectors V     InterpVectors, for gen:elasticity with dof=3 (the coordinates of its
//                          n^3 grid, node (z n + y) n + x at (x, y, z)): rigid-body = the 6 rigid-body
//                          modes, the very vectors of sprocket-solve --amg-nullspace rigid-body
//                          (Sprocket::rigid_body_modes: 3 translations, 3 rotations about the
//                          centre); rigid-body-rotations = only its 3 rotations (the translations
//                          are the per-function constants that unknown-based interpolation already
//                          reproduces; the usual choice with hypre's GM variants). Needs k = 3.
//   --interp-vec-variant v InterpVecVariant when vectors are given: 1 GM-1, 2 GM-2 (default), 3 LN
//   --interp-vec-qmax q    InterpVecQMax (hypre's default: no truncation of Q)
//   --smooth-interp-vectors 0|1  SmoothInterpVectors (default 0)
//   --interp-refine r      InterpRefine (default 0)
//   --print-level p        BoomerAMG's own print level (1: setup statistics on stdout)
//
// The true relative residuals ||b - A x|| / ||b|| are recomputed by our serial reference SpMV
// (every rank gathers the whole solution); a run has converged when GMRES reports convergence for
// every column and every true residual is at most 10 tol. With --json the last line printed is
// one JSON object with every setting BoomerAMG ran with (read back from hypre after setup).
// Times: the slowest rank's, each phase started together (a barrier first). Exit status: 0
// converged, 3 not converged, 2 bad usage or an unreadable matrix, 1 a hypre or MPI failure.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_ls.h>
#include <HYPRE_utilities.h>
// hypre_ParAMGData: the hierarchy's levels and operators (no public getters in 2.26) for the
// level count and the complexities, and the settings that have no getter (interpolation type,
// aggressive coarsening, nodal coarsening, interpolation vectors).
#include <_hypre_parcsr_ls.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Reference.hpp"
#include "example/solve_common.hpp"

namespace {

using Sprocket::tools::json_array;
using Sprocket::tools::json_number;
using Sprocket::tools::json_string;

using Clock = std::chrono::steady_clock;

constexpr const char* default_matrix = "gen:poisson3d:n=32";  // sprocket-solve's default

struct Args {
  std::string matrix = default_matrix;
  int block = 4;
  int restart = 30;
  double tol = 1e-8;
  int max_iterations = 1000;
  // < 0 (or empty): hypre's default, not set.
  double strong_threshold = -1;
  int coarsen_type = -1;
  int agg_levels = -1;
  int agg_interp_type = -1;
  int interp_type = -1;
  int p_max = -1;
  std::string num_functions = "1";
  int nodal = -1;
  int nodal_diag = -1;
  std::string interp_vectors = "none";
  int interp_vec_variant = -1;
  int interp_vec_qmax = -1;
  int smooth_interp_vectors = -1;
  int interp_refine = -1;
  int print_level = 0;
  bool json = false, quiet = false;
};

/// A hypre or MPI call failed (exit status 1, not a usage error).
class HypreFailure : public std::runtime_error {
 public:
  explicit HypreFailure(const std::string& what) : std::runtime_error(what) {}
};

[[noreturn]] void usage_error(const std::string& message) {
  throw Sprocket::InvalidArgument(
      "sprocket-hypre-amg: " + message +
      "\nusage: [mpirun -np N] sprocket-hypre-amg [--matrix <file|gen:...>] [--block s] [--restart m] [--tol t] "
      "[--max-iterations n] [--strong-threshold t] [--coarsen-type falgout|hmis|pmis|cljp|rs|code] "
      "[--agg-levels l] [--agg-interp-type a] [--interp-type code|ext+i] [--pmax p] [--num-functions k|auto] "
      "[--nodal m] [--nodal-diag d] [--interp-vectors none|rigid-body|rigid-body-rotations] "
      "[--interp-vec-variant v] [--interp-vec-qmax q] [--smooth-interp-vectors 0|1] [--interp-refine r] "
      "[--print-level p] [--json] [--quiet]");
}

int parse_int(const std::string& flag, const std::string& v) {
  if (const auto x = Sprocket::tools::to_int(v)) return *x;
  usage_error(flag + " needs an integer, got \"" + v + "\"");
}

double parse_double(const std::string& flag, const std::string& v) {
  if (const auto x = Sprocket::tools::to_double(v)) return *x;
  usage_error(flag + " needs a number, got \"" + v + "\"");
}

int parse_coarsen_type(const std::string& v) {
  if (v == "falgout") return 6;
  if (v == "hmis") return 10;
  if (v == "pmis") return 8;
  if (v == "cljp") return 0;
  if (v == "rs") return 3;
  if (const auto x = Sprocket::tools::to_int(v)) return *x;
  usage_error("--coarsen-type must be falgout, hmis, pmis, cljp, rs or hypre's integer code, got \"" + v + "\"");
}

int parse_interp_type(const std::string& v) {
  if (v == "ext+i" || v == "extended+i") return 6;
  if (const auto x = Sprocket::tools::to_int(v)) return *x;
  usage_error("--interp-type must be ext+i or hypre's integer code, got \"" + v + "\"");
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--matrix") a.matrix = value();
    else if (flag == "--block") a.block = parse_int(flag, value());
    else if (flag == "--restart") a.restart = parse_int(flag, value());
    else if (flag == "--tol") a.tol = parse_double(flag, value());
    else if (flag == "--max-iterations") a.max_iterations = parse_int(flag, value());
    else if (flag == "--strong-threshold") a.strong_threshold = parse_double(flag, value());
    else if (flag == "--coarsen-type") a.coarsen_type = parse_coarsen_type(value());
    else if (flag == "--agg-levels") a.agg_levels = parse_int(flag, value());
    else if (flag == "--agg-interp-type") a.agg_interp_type = parse_int(flag, value());
    else if (flag == "--interp-type") a.interp_type = parse_interp_type(value());
    else if (flag == "--pmax") a.p_max = parse_int(flag, value());
    else if (flag == "--num-functions") a.num_functions = value();
    else if (flag == "--nodal") a.nodal = parse_int(flag, value());
    else if (flag == "--nodal-diag") a.nodal_diag = parse_int(flag, value());
    else if (flag == "--interp-vectors") a.interp_vectors = value();
    else if (flag == "--interp-vec-variant") a.interp_vec_variant = parse_int(flag, value());
    else if (flag == "--interp-vec-qmax") a.interp_vec_qmax = parse_int(flag, value());
    else if (flag == "--smooth-interp-vectors") a.smooth_interp_vectors = parse_int(flag, value());
    else if (flag == "--interp-refine") a.interp_refine = parse_int(flag, value());
    else if (flag == "--print-level") a.print_level = parse_int(flag, value());
    else if (flag == "--json") a.json = true;
    else if (flag == "--quiet") a.quiet = true;
    else if (flag == "--help" || flag == "-h") usage_error("help");
    else usage_error("unknown argument \"" + flag + "\"");
  }
  if (a.block < 1) usage_error("--block must be >= 1");
  if (a.restart < 1) usage_error("--restart must be >= 1");
  if (!(a.tol > 0)) usage_error("--tol must be > 0");
  if (a.max_iterations < 1) usage_error("--max-iterations must be >= 1");
  if (a.strong_threshold != -1 && !(a.strong_threshold >= 0 && a.strong_threshold <= 1))
    usage_error("--strong-threshold must be in [0, 1]");
  if (a.coarsen_type < -1) usage_error("--coarsen-type must be a name or a code >= 0");
  if (a.agg_levels < -1) usage_error("--agg-levels must be >= 0");
  if (a.agg_interp_type < -1) usage_error("--agg-interp-type must be >= 0");
  if (a.interp_type < -1) usage_error("--interp-type must be >= 0");
  if (a.p_max < -1) usage_error("--pmax must be >= 0");
  if (a.num_functions != "auto" && parse_int("--num-functions", a.num_functions) < 1)
    usage_error("--num-functions must be >= 1 or auto, got \"" + a.num_functions + "\"");
  if (a.nodal < -1 || a.nodal_diag < -1) usage_error("--nodal and --nodal-diag must be >= 0");
  if (a.interp_vectors != "none" && a.interp_vectors != "rigid-body" && a.interp_vectors != "rigid-body-rotations")
    usage_error("--interp-vectors must be none, rigid-body or rigid-body-rotations, got \"" + a.interp_vectors + "\"");
  if (a.interp_vec_variant != -1 && !(a.interp_vec_variant >= 1 && a.interp_vec_variant <= 3))
    usage_error("--interp-vec-variant must be 1, 2 or 3");
  if (a.interp_vec_qmax < -1 || a.interp_refine < -1) usage_error("--interp-vec-qmax and --interp-refine must be >= 0");
  if (a.smooth_interp_vectors != -1 && a.smooth_interp_vectors != 0 && a.smooth_interp_vectors != 1)
    usage_error("--smooth-interp-vectors must be 0 or 1");
  if (a.interp_vectors == "none" &&
      (a.interp_vec_variant != -1 || a.interp_vec_qmax != -1 || a.smooth_interp_vectors != -1))
    usage_error("--interp-vec-variant, --interp-vec-qmax and --smooth-interp-vectors need --interp-vectors");
  if (a.print_level < 0) usage_error("--print-level must be >= 0");
  return a;
}

/// Throws HypreFailure naming the call when a hypre function returned an error.
void check(HYPRE_Int rc, const char* call) {
  if (rc == 0) return;
  char description[256] = {0};
  HYPRE_DescribeError(rc, description);
  HYPRE_ClearAllErrors();
  throw HypreFailure(std::string("sprocket-hypre-amg: ") + call + " failed (hypre error " + std::to_string(rc) +
                     ": " + description + ")");
}

void check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw HypreFailure(std::string("sprocket-hypre-amg: ") + call + " failed");
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// The slowest rank's time of a phase that every rank started after a barrier.
double slowest(MPI_Comm comm, double seconds) {
  double worst = seconds;
  check_mpi(MPI_Allreduce(&seconds, &worst, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  return worst;
}

double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

/// The dof of a gen:elasticity spec (its default 3), 0 for anything else.
int spec_dof(const std::string& spec) {
  const std::string prefix = "gen:elasticity:";
  if (spec.compare(0, prefix.size(), prefix) != 0) return 0;
  std::stringstream keys(spec.substr(prefix.size()));
  std::string kv;
  while (std::getline(keys, kv, ','))
    if (kv.compare(0, 4, "dof=") == 0) return std::atoi(kv.c_str() + 4);
  return 3;
}

/// Node coordinates of a gen:elasticity problem with 3 unknowns per node (its n^3 grid, node
/// (z * n + y) * n + x at (x, y, z)): exactly what sprocket-solve gives Sprocket::rigid_body_modes
/// for --amg-nullspace rigid-body.
std::vector<double> elasticity_coordinates(const std::string& spec, int64_t rows) {
  SPROCKET_REQUIRE(spec_dof(spec) == 3, "sprocket-hypre-amg: --interp-vectors needs a gen:elasticity problem with ",
                   "dof=3 (the node coordinates of its grid), not ", spec);
  const int64_t nodes = rows / 3;
  const int64_t n = std::llround(std::cbrt(static_cast<double>(nodes)));
  SPROCKET_REQUIRE(n * n * n * 3 == rows, "sprocket-hypre-amg: ", spec, " has ", rows,
                   " rows, not 3 n^3 (an n^3 grid with 3 unknowns per node)");
  return Sprocket::gen::elasticity3d_coordinates(n);
}

std::string coarsen_name(int t) {
  switch (t) {
    case 0: return "CLJP";
    case 1: return "Ruge-Stueben, no boundary treatment";
    case 3: return "Ruge-Stueben with third pass";
    case 6: return "Falgout";
    case 7: return "CLJP, fixed random";
    case 8: return "PMIS";
    case 10: return "HMIS";
    case 21: return "CGC";
    case 22: return "CGC-E";
    default: return "type " + std::to_string(t);
  }
}

std::string interp_name(int t) {
  switch (t) {
    case 0: return "classical modified";
    case 1: return "least squares";
    case 2: return "classical modified hyperbolic";
    case 3: return "direct, separated weights";
    case 4: return "multipass";
    case 5: return "multipass, separated weights";
    case 6: return "extended+i";
    case 7: return "extended+i if no common C neighbour";
    case 8: return "standard";
    case 9: return "standard, separated weights";
    case 10: return "classical block (nodal)";
    case 11: return "classical block, diagonal (nodal)";
    case 12: return "FF";
    case 13: return "FF1";
    case 14: return "extended";
    case 16: return "extended, matrix-matrix (MM-ext)";
    case 17: return "extended+i, matrix-matrix (MM-ext+i)";
    case 18: return "extended+e, matrix-matrix (MM-ext+e)";
    default: return "type " + std::to_string(t);
  }
}

std::string agg_interp_name(int t) {
  switch (t) {
    case 1: return "2-stage extended+i";
    case 2: return "2-stage standard";
    case 3: return "2-stage extended";
    case 4: return "multipass";
    case 5: return "2-stage extended, matrix-matrix";
    case 6: return "2-stage extended+i, matrix-matrix";
    case 7: return "2-stage extended+e, matrix-matrix";
    default: return "type " + std::to_string(t);
  }
}

std::string relax_name(int t) {
  switch (t) {
    case 0: return "weighted Jacobi";
    case 3: return "hybrid Gauss-Seidel forward";
    case 4: return "hybrid Gauss-Seidel backward";
    case 6: return "hybrid symmetric Gauss-Seidel";
    case 7: return "Jacobi";
    case 8: return "l1 symmetric Gauss-Seidel";
    case 9: return "Gaussian elimination";
    case 13: return "l1 hybrid Gauss-Seidel forward";
    case 14: return "l1 hybrid Gauss-Seidel backward";
    case 16: return "Chebyshev";
    case 18: return "l1 Jacobi";
    case 99: return "Gaussian elimination with pivoting";
    default: return "type " + std::to_string(t);
  }
}

/// Preconditioner "setup" handed to GMRES: BoomerAMG is set up once outside, so GMRES's setup
/// (which calls the preconditioner's) must not build the hierarchy a second time.
HYPRE_Int amg_already_set_up(HYPRE_Solver, HYPRE_ParCSRMatrix, HYPRE_ParVector, HYPRE_ParVector) { return 0; }

/// An IJ vector of global rows [lo, hi) on this rank (the ranks' blocks make up 0 .. n - 1).
struct Vector {
  HYPRE_IJVector ij = nullptr;
  HYPRE_ParVector par = nullptr;
  Vector(MPI_Comm comm, HYPRE_BigInt lo, HYPRE_BigInt hi) {
    check(HYPRE_IJVectorCreate(comm, lo, hi - 1, &ij), "HYPRE_IJVectorCreate");
    check(HYPRE_IJVectorSetObjectType(ij, HYPRE_PARCSR), "HYPRE_IJVectorSetObjectType");
    check(HYPRE_IJVectorInitialize(ij), "HYPRE_IJVectorInitialize");
    check(HYPRE_IJVectorAssemble(ij), "HYPRE_IJVectorAssemble");
    void* object = nullptr;
    check(HYPRE_IJVectorGetObject(ij, &object), "HYPRE_IJVectorGetObject");
    par = static_cast<HYPRE_ParVector>(object);
  }
  ~Vector() {
    if (ij) HYPRE_IJVectorDestroy(ij);
  }
  Vector(const Vector&) = delete;
  Vector& operator=(const Vector&) = delete;
  /// Sets this rank's rows (`rows`, global indices) to values[row - offset].
  void set(const std::vector<HYPRE_BigInt>& rows, const double* values) {
    check(HYPRE_IJVectorInitialize(ij), "HYPRE_IJVectorInitialize");
    check(HYPRE_IJVectorSetValues(ij, static_cast<HYPRE_Int>(rows.size()), rows.data(), values),
          "HYPRE_IJVectorSetValues");
    check(HYPRE_IJVectorAssemble(ij), "HYPRE_IJVectorAssemble");
    void* object = nullptr;
    check(HYPRE_IJVectorGetObject(ij, &object), "HYPRE_IJVectorGetObject");
    par = static_cast<HYPRE_ParVector>(object);
  }
  std::vector<double> get(const std::vector<HYPRE_BigInt>& rows) const {
    std::vector<double> values(rows.size());
    check(HYPRE_IJVectorGetValues(ij, static_cast<HYPRE_Int>(rows.size()), rows.data(), values.data()),
          "HYPRE_IJVectorGetValues");
    return values;
  }
};

/// Levels, operator complexity (sum of the nonzeros of every level's operator / those of A) and
/// grid complexity (sum of the rows / A's rows) of a BoomerAMG hierarchy after setup, over all ranks.
struct Hierarchy {
  int levels = 0;
  double operator_complexity = 0, grid_complexity = 0;
  std::vector<long long> rows, nnz;
};

Hierarchy hierarchy_of(MPI_Comm comm, HYPRE_Solver amg) {
  Hierarchy h;
  auto* data = reinterpret_cast<hypre_ParAMGData*>(amg);
  h.levels = hypre_ParAMGDataNumLevels(data);
  hypre_ParCSRMatrix** A = hypre_ParAMGDataAArray(data);
  std::vector<long long> local_nnz;
  for (int l = 0; l < h.levels; ++l) {
    hypre_CSRMatrix* diag = hypre_ParCSRMatrixDiag(A[l]);
    hypre_CSRMatrix* offd = hypre_ParCSRMatrixOffd(A[l]);
    long long nz = hypre_CSRMatrixI(diag)[hypre_CSRMatrixNumRows(diag)];
    if (offd && hypre_CSRMatrixI(offd)) nz += hypre_CSRMatrixI(offd)[hypre_CSRMatrixNumRows(offd)];
    h.rows.push_back(static_cast<long long>(hypre_ParCSRMatrixGlobalNumRows(A[l])));
    local_nnz.push_back(nz);
  }
  h.nnz.assign(local_nnz.size(), 0);
  check_mpi(MPI_Allreduce(local_nnz.data(), h.nnz.data(), static_cast<int>(local_nnz.size()), MPI_LONG_LONG, MPI_SUM,
                          comm),
            "MPI_Allreduce");
  if (h.levels > 0 && h.rows[0] > 0 && h.nnz[0] > 0) {
    double rows = 0, nz = 0;
    for (int l = 0; l < h.levels; ++l) {
      rows += double(h.rows[l]);
      nz += double(h.nnz[l]);
    }
    h.grid_complexity = rows / double(h.rows[0]);
    h.operator_complexity = nz / double(h.nnz[0]);
  }
  return h;
}

int run(const Args& args) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int ranks = 1, rank = 0;
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  const bool root = rank == 0;
  HYPRE_Int major = 0, minor = 0, patch = 0;
  check(HYPRE_VersionNumber(&major, &minor, &patch, nullptr), "HYPRE_VersionNumber");
  const std::string version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);

  // The problem: exactly sprocket-solve's matrix and --rhs ones right-hand sides, on every rank.
  const auto t_load = Clock::now();
  const Sprocket::HostCsr host = Sprocket::load_matrix(args.matrix);
  const double load_seconds = seconds_since(t_load);
  const int64_t n = host.num_rows;
  SPROCKET_REQUIRE(host.num_rows == host.num_cols, "sprocket-hypre-amg: GMRES needs a square matrix, ", args.matrix,
                   " is ", host.num_rows, " x ", host.num_cols);
  SPROCKET_REQUIRE(n >= 1, "sprocket-hypre-amg: ", args.matrix, " has no rows");
  SPROCKET_REQUIRE(n <= static_cast<int64_t>(std::numeric_limits<HYPRE_BigInt>::max()) &&
                       host.nnz() <= static_cast<int64_t>(std::numeric_limits<HYPRE_Int>::max()),
                   "sprocket-hypre-amg: ", args.matrix, " (", n, " rows, ", host.nnz(),
                   " nonzeros) does not fit this hypre build's ", sizeof(HYPRE_Int) * 8, "-bit indices");
  int num_functions = 1;
  std::string num_functions_source = "--num-functions";
  if (args.num_functions == "auto") {
    num_functions = spec_dof(args.matrix);
    num_functions_source = "auto: the dof of the generator spec";
    if (num_functions < 1) {
      num_functions = std::max(1, Sprocket::detect_block_size(host));
      num_functions_source = "auto: Sprocket::detect_block_size";
    }
  } else {
    num_functions = std::stoi(args.num_functions);
  }
  SPROCKET_REQUIRE(n % num_functions == 0, "sprocket-hypre-amg: --num-functions ", num_functions,
                   " does not divide the ", n, " rows of ", args.matrix);
  SPROCKET_REQUIRE(args.nodal <= 0 || num_functions > 1, "sprocket-hypre-amg: --nodal needs --num-functions > 1");
  SPROCKET_REQUIRE(args.interp_vectors == "none" || num_functions == 3,
                   "sprocket-hypre-amg: --interp-vectors ", args.interp_vectors, " needs --num-functions 3 (or auto)");

  // This rank's rows: nodes [nodes r / R, nodes (r + 1) / R), k rows per node.
  const int64_t nodes = n / num_functions;
  SPROCKET_REQUIRE(nodes >= ranks, "sprocket-hypre-amg: ", ranks, " MPI ranks for ", nodes,
                   " nodes: every rank needs at least one");
  const int64_t lo = nodes * rank / ranks * num_functions, hi = nodes * (rank + 1) / ranks * num_functions;
  const int64_t local = hi - lo;
  std::vector<long long> rank_rows(ranks, 0);
  for (int r = 0; r < ranks; ++r) rank_rows[r] = (nodes * (r + 1) / ranks - nodes * r / ranks) * num_functions;

  const int s = args.block;
  const std::vector<std::vector<double>> xstar = Sprocket::tools::known_solution(n, s);
  std::vector<std::vector<double>> b(s, std::vector<double>(n, 0.0));
  for (int j = 0; j < s; ++j) Sprocket::reference::spmv("N", 1.0, host, xstar[j], 0.0, b[j]);

  // This rank's rows of A as a hypre IJ / ParCSR matrix.
  check_mpi(MPI_Barrier(comm), "MPI_Barrier");
  const auto t_assembly = Clock::now();
  HYPRE_IJMatrix ij = nullptr;
  check(HYPRE_IJMatrixCreate(comm, lo, hi - 1, lo, hi - 1, &ij), "HYPRE_IJMatrixCreate");
  check(HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR), "HYPRE_IJMatrixSetObjectType");
  std::vector<HYPRE_Int> row_sizes(local), diag_sizes(local, 0), offd_sizes(local, 0);
  std::vector<HYPRE_BigInt> rows(local);
  for (int64_t i = 0; i < local; ++i) {
    row_sizes[i] = static_cast<HYPRE_Int>(host.row_length(lo + i));
    rows[i] = static_cast<HYPRE_BigInt>(lo + i);
    for (int64_t k = host.row_map[lo + i]; k < host.row_map[lo + i + 1]; ++k)
      ++(host.entries[k] >= lo && host.entries[k] < hi ? diag_sizes[i] : offd_sizes[i]);
  }
  check(HYPRE_IJMatrixSetDiagOffdSizes(ij, diag_sizes.data(), offd_sizes.data()), "HYPRE_IJMatrixSetDiagOffdSizes");
  check(HYPRE_IJMatrixInitialize(ij), "HYPRE_IJMatrixInitialize");
  {
    const int64_t first = host.row_map[lo], last = host.row_map[hi];
    const std::vector<HYPRE_BigInt> cols(host.entries.begin() + first, host.entries.begin() + last);
    check(HYPRE_IJMatrixSetValues(ij, static_cast<HYPRE_Int>(local), row_sizes.data(), rows.data(), cols.data(),
                                  host.values.data() + first),
          "HYPRE_IJMatrixSetValues");
  }
  check(HYPRE_IJMatrixAssemble(ij), "HYPRE_IJMatrixAssemble");
  void* object = nullptr;
  check(HYPRE_IJMatrixGetObject(ij, &object), "HYPRE_IJMatrixGetObject");
  const auto A = static_cast<HYPRE_ParCSRMatrix>(object);
  Vector B(comm, lo, hi), X(comm, lo, hi);
  const std::vector<double> zeros(local, 0.0);
  B.set(rows, b[0].data() + lo);
  X.set(rows, zeros.data());
  const double assembly_seconds = slowest(comm, seconds_since(t_assembly));

  // Interpolation vectors: sprocket-solve's rigid-body modes of the grid (all 6, or the 3 rotations).
  std::vector<std::unique_ptr<Vector>> interp;
  std::vector<HYPRE_ParVector> interp_par;
  if (args.interp_vectors != "none") {
    const std::vector<double> modes = Sprocket::rigid_body_modes(elasticity_coordinates(args.matrix, n), 3);
    const int first = args.interp_vectors == "rigid-body" ? 0 : 3;
    for (int m = first; m < 6; ++m) {
      interp.push_back(std::make_unique<Vector>(comm, lo, hi));
      interp.back()->set(rows, modes.data() + static_cast<size_t>(m) * n + lo);
      interp_par.push_back(interp.back()->par);
    }
  }

  // BoomerAMG as a preconditioner: one V-cycle per application, hypre's defaults otherwise.
  HYPRE_Solver amg = nullptr;
  check(HYPRE_BoomerAMGCreate(&amg), "HYPRE_BoomerAMGCreate");
  check(HYPRE_BoomerAMGSetPrintLevel(amg, args.print_level), "HYPRE_BoomerAMGSetPrintLevel");
  check(HYPRE_BoomerAMGSetTol(amg, 0.0), "HYPRE_BoomerAMGSetTol");
  check(HYPRE_BoomerAMGSetMaxIter(amg, 1), "HYPRE_BoomerAMGSetMaxIter");
  if (args.strong_threshold >= 0)
    check(HYPRE_BoomerAMGSetStrongThreshold(amg, args.strong_threshold), "HYPRE_BoomerAMGSetStrongThreshold");
  if (args.coarsen_type >= 0) check(HYPRE_BoomerAMGSetCoarsenType(amg, args.coarsen_type), "HYPRE_BoomerAMGSetCoarsenType");
  if (args.agg_levels >= 0) check(HYPRE_BoomerAMGSetAggNumLevels(amg, args.agg_levels), "HYPRE_BoomerAMGSetAggNumLevels");
  if (args.agg_interp_type >= 0)
    check(HYPRE_BoomerAMGSetAggInterpType(amg, args.agg_interp_type), "HYPRE_BoomerAMGSetAggInterpType");
  if (args.interp_type >= 0) check(HYPRE_BoomerAMGSetInterpType(amg, args.interp_type), "HYPRE_BoomerAMGSetInterpType");
  if (args.p_max >= 0) check(HYPRE_BoomerAMGSetPMaxElmts(amg, args.p_max), "HYPRE_BoomerAMGSetPMaxElmts");
  if (num_functions > 1) check(HYPRE_BoomerAMGSetNumFunctions(amg, num_functions), "HYPRE_BoomerAMGSetNumFunctions");
  if (args.nodal >= 0) check(HYPRE_BoomerAMGSetNodal(amg, args.nodal), "HYPRE_BoomerAMGSetNodal");
  if (args.nodal_diag >= 0) check(HYPRE_BoomerAMGSetNodalDiag(amg, args.nodal_diag), "HYPRE_BoomerAMGSetNodalDiag");
  if (!interp_par.empty()) {
    check(HYPRE_BoomerAMGSetInterpVecVariant(amg, args.interp_vec_variant > 0 ? args.interp_vec_variant : 2),
          "HYPRE_BoomerAMGSetInterpVecVariant");
    if (args.interp_vec_qmax >= 0)
      check(HYPRE_BoomerAMGSetInterpVecQMax(amg, args.interp_vec_qmax), "HYPRE_BoomerAMGSetInterpVecQMax");
    if (args.smooth_interp_vectors >= 0)
      check(HYPRE_BoomerAMGSetSmoothInterpVectors(amg, args.smooth_interp_vectors),
            "HYPRE_BoomerAMGSetSmoothInterpVectors");
    check(HYPRE_BoomerAMGSetInterpVectors(amg, static_cast<HYPRE_Int>(interp_par.size()), interp_par.data()),
          "HYPRE_BoomerAMGSetInterpVectors");
  }
  if (args.interp_refine >= 0) check(HYPRE_BoomerAMGSetInterpRefine(amg, args.interp_refine), "HYPRE_BoomerAMGSetInterpRefine");

  check_mpi(MPI_Barrier(comm), "MPI_Barrier");
  const auto t_setup = Clock::now();
  check(HYPRE_BoomerAMGSetup(amg, A, B.par, X.par), "HYPRE_BoomerAMGSetup");
  const double setup_seconds = slowest(comm, seconds_since(t_setup));
  const Hierarchy h = hierarchy_of(comm, amg);

  // The settings BoomerAMG ran with, as hypre reports them.
  HYPRE_Real strong_threshold = 0, trunc_factor = 0, max_row_sum = 0;
  HYPRE_Int coarsen_type = 0, p_max = 0, relax_down = 0, relax_up = 0, relax_coarse = 0, sweeps_down = 0,
            sweeps_up = 0, sweeps_coarse = 0, cycle_type = 0, max_levels = 0, max_coarse = 0, nf = 0;
  check(HYPRE_BoomerAMGGetStrongThreshold(amg, &strong_threshold), "HYPRE_BoomerAMGGetStrongThreshold");
  check(HYPRE_BoomerAMGGetTruncFactor(amg, &trunc_factor), "HYPRE_BoomerAMGGetTruncFactor");
  check(HYPRE_BoomerAMGGetMaxRowSum(amg, &max_row_sum), "HYPRE_BoomerAMGGetMaxRowSum");
  check(HYPRE_BoomerAMGGetCoarsenType(amg, &coarsen_type), "HYPRE_BoomerAMGGetCoarsenType");
  check(HYPRE_BoomerAMGGetPMaxElmts(amg, &p_max), "HYPRE_BoomerAMGGetPMaxElmts");
  check(HYPRE_BoomerAMGGetCycleRelaxType(amg, &relax_down, 1), "HYPRE_BoomerAMGGetCycleRelaxType");
  check(HYPRE_BoomerAMGGetCycleRelaxType(amg, &relax_up, 2), "HYPRE_BoomerAMGGetCycleRelaxType");
  check(HYPRE_BoomerAMGGetCycleRelaxType(amg, &relax_coarse, 3), "HYPRE_BoomerAMGGetCycleRelaxType");
  check(HYPRE_BoomerAMGGetCycleNumSweeps(amg, &sweeps_down, 1), "HYPRE_BoomerAMGGetCycleNumSweeps");
  check(HYPRE_BoomerAMGGetCycleNumSweeps(amg, &sweeps_up, 2), "HYPRE_BoomerAMGGetCycleNumSweeps");
  check(HYPRE_BoomerAMGGetCycleNumSweeps(amg, &sweeps_coarse, 3), "HYPRE_BoomerAMGGetCycleNumSweeps");
  check(HYPRE_BoomerAMGGetCycleType(amg, &cycle_type), "HYPRE_BoomerAMGGetCycleType");
  check(HYPRE_BoomerAMGGetMaxLevels(amg, &max_levels), "HYPRE_BoomerAMGGetMaxLevels");
  check(HYPRE_BoomerAMGGetMaxCoarseSize(amg, &max_coarse), "HYPRE_BoomerAMGGetMaxCoarseSize");
  check(HYPRE_BoomerAMGGetNumFunctions(amg, &nf), "HYPRE_BoomerAMGGetNumFunctions");
  auto* data = reinterpret_cast<hypre_ParAMGData*>(amg);
  const int interp_type = hypre_ParAMGDataInterpType(data);
  const int agg_levels = hypre_ParAMGDataAggNumLevels(data);
  const int agg_interp_type = hypre_ParAMGDataAggInterpType(data);
  const int agg_p_max = hypre_ParAMGDataAggPMaxElmts(data);
  const int num_paths = hypre_ParAMGDataNumPaths(data);
  const int nodal = hypre_ParAMGDataNodal(data);
  const int nodal_diag = hypre_ParAMGDataNodalDiag(data);
  const int num_interp_vectors = hypre_ParAMGNumInterpVectors(data);
  const int interp_vec_variant = hypre_ParAMGInterpVecVariant(data);
  const int interp_vec_qmax = hypre_ParAMGInterpVecQMax(data);
  const int smooth_interp_vectors = hypre_ParAMGSmoothInterpVectors(data);
  const int interp_refine = hypre_ParAMGInterpRefine(data);

  // GMRES, right-preconditioned by the hierarchy built above.
  HYPRE_Solver gmres = nullptr;
  check(HYPRE_ParCSRGMRESCreate(comm, &gmres), "HYPRE_ParCSRGMRESCreate");
  check(HYPRE_ParCSRGMRESSetKDim(gmres, args.restart), "HYPRE_ParCSRGMRESSetKDim");
  check(HYPRE_ParCSRGMRESSetTol(gmres, args.tol), "HYPRE_ParCSRGMRESSetTol");
  check(HYPRE_ParCSRGMRESSetAbsoluteTol(gmres, 0.0), "HYPRE_ParCSRGMRESSetAbsoluteTol");
  check(HYPRE_ParCSRGMRESSetMaxIter(gmres, args.max_iterations), "HYPRE_ParCSRGMRESSetMaxIter");
  check(HYPRE_ParCSRGMRESSetPrintLevel(gmres, 0), "HYPRE_ParCSRGMRESSetPrintLevel");
  check(HYPRE_ParCSRGMRESSetLogging(gmres, 0), "HYPRE_ParCSRGMRESSetLogging");
  check(HYPRE_ParCSRGMRESSetPrecond(gmres, HYPRE_BoomerAMGSolve, amg_already_set_up, amg),
        "HYPRE_ParCSRGMRESSetPrecond");
  check_mpi(MPI_Barrier(comm), "MPI_Barrier");
  const auto t_gmres_setup = Clock::now();
  check(HYPRE_ParCSRGMRESSetup(gmres, A, B.par, X.par), "HYPRE_ParCSRGMRESSetup");
  const double gmres_setup_seconds = slowest(comm, seconds_since(t_gmres_setup));

  std::string interp_vectors_text = "none";
  if (num_interp_vectors > 0)
    interp_vectors_text = std::to_string(num_interp_vectors) + " (" + args.interp_vectors + "), variant " +
                          std::to_string(interp_vec_variant) + ", Q max " + std::to_string(interp_vec_qmax) +
                          ", smoothed " + std::to_string(smooth_interp_vectors);
  if (!args.quiet && root) {
    std::printf("sprocket-hypre-amg: hypre %s, %d MPI rank%s, 1 thread each (hypre built without OpenMP)\n",
                version.c_str(), ranks, ranks == 1 ? "" : "s");
    std::printf("matrix %s: %lld x %lld, %lld nonzeros (loaded in %.2f s, hypre IJ assembly %.3f s)\n",
                args.matrix.c_str(), static_cast<long long>(n), static_cast<long long>(n),
                static_cast<long long>(host.nnz()), load_seconds, assembly_seconds);
    if (ranks > 1) {
      std::printf("rows per rank (contiguous blocks, %d row(s) per node):", num_functions);
      for (long long r : rank_rows) std::printf(" %lld", r);
      std::printf("\n");
    }
    std::printf("BoomerAMG: strength threshold %g%s, %d function(s) (%s), coarsening %s (%d), interpolation %s (%d), "
                "at most %d entries per row of P, truncation %g, max row sum %g\n",
                strong_threshold, args.strong_threshold < 0 ? " (hypre's default; its docs suggest 0.5 for 3-D)" : "",
                nf, num_functions_source.c_str(), coarsen_name(coarsen_type).c_str(), coarsen_type,
                interp_name(interp_type).c_str(), interp_type, p_max, trunc_factor, max_row_sum);
    std::printf("  aggressive coarsening on %d level(s) (%s interpolation (%d), at most %d entries per row, %d "
                "path(s)); nodal %d, nodal diag %d; interpolation vectors %s; interpolation refinement %d\n",
                agg_levels, agg_interp_name(agg_interp_type).c_str(), agg_interp_type, agg_p_max, num_paths, nodal,
                nodal_diag, interp_vectors_text.c_str(), interp_refine);
    std::printf("  cycle: %s, relaxation down %s (%d) x%d, up %s (%d) x%d, coarsest %s (%d) x%d; max %d levels, "
                "coarsest at most %d rows\n",
                cycle_type == 1 ? "V" : cycle_type == 2 ? "W" : "other", relax_name(relax_down).c_str(), relax_down,
                sweeps_down, relax_name(relax_up).c_str(), relax_up, sweeps_up, relax_name(relax_coarse).c_str(),
                relax_coarse, sweeps_coarse, max_levels, max_coarse);
    if (relax_coarse != 9 && relax_coarse != 99 && h.levels > 0 && h.rows.back() > max_coarse)
      std::printf("  (coarsening stalled at %lld rows, so hypre replaced the coarsest level's direct solve by one "
                  "sweep of relaxation type %d)\n",
                  h.rows.back(), relax_coarse);
    std::printf("  setup %.3f s: %d levels, operator complexity %.3f, grid complexity %.3f\n", setup_seconds, h.levels,
                h.operator_complexity, h.grid_complexity);
    for (int l = 0; l < h.levels; ++l)
      std::printf("    level %2d: %10lld rows %12lld nonzeros\n", l, h.rows[l], h.nnz[l]);
    std::printf("GMRES: %d right-hand side(s) (B = A X*, X* known), one at a time from x = 0, restart %d, tol %.1e, "
                "at most %d iterations\n",
                s, args.restart, args.tol, args.max_iterations);
  }

  // Every rank's share of a whole vector, for gathering the solution.
  std::vector<int> counts(ranks), displs(ranks);
  for (int r = 0; r < ranks; ++r) {
    counts[r] = static_cast<int>(rank_rows[r]);
    displs[r] = r ? displs[r - 1] + counts[r - 1] : 0;
  }

  // One right-hand side at a time, each from a zero initial guess.
  std::vector<int> iterations(s, 0);
  std::vector<double> hypre_residuals(s, 0.0), residuals(s, 0.0), errors(s, 0.0), column_seconds(s, 0.0);
  std::vector<bool> gmres_converged(s, false);
  double solve_seconds = 0;
  std::vector<double> x(n);
  for (int j = 0; j < s; ++j) {
    B.set(rows, b[j].data() + lo);
    X.set(rows, zeros.data());
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    const auto t0 = Clock::now();
    const HYPRE_Int rc = HYPRE_ParCSRGMRESSolve(gmres, A, B.par, X.par);
    const double t_local = seconds_since(t0);
    if (rc != 0 && rc != HYPRE_ERROR_CONV) check(rc, "HYPRE_ParCSRGMRESSolve");
    const double t = slowest(comm, t_local);
    solve_seconds += t;
    column_seconds[j] = t;
    gmres_converged[j] = rc == 0;
    HYPRE_ClearAllErrors();
    HYPRE_Int it = 0;
    HYPRE_Real final_norm = 0;
    check(HYPRE_ParCSRGMRESGetNumIterations(gmres, &it), "HYPRE_ParCSRGMRESGetNumIterations");
    check(HYPRE_ParCSRGMRESGetFinalRelativeResidualNorm(gmres, &final_norm),
          "HYPRE_ParCSRGMRESGetFinalRelativeResidualNorm");
    iterations[j] = it;
    hypre_residuals[j] = final_norm;
    // Independent check on every rank: the whole solution, ||b - A x|| / ||b|| by our serial reference SpMV.
    const std::vector<double> x_local = X.get(rows);
    check_mpi(MPI_Allgatherv(x_local.data(), static_cast<int>(local), MPI_DOUBLE, x.data(), counts.data(),
                             displs.data(), MPI_DOUBLE, comm),
              "MPI_Allgatherv");
    std::vector<double> r = b[j];
    Sprocket::reference::spmv("N", -1.0, host, x, 1.0, r);
    const double nb = norm2(b[j]);
    residuals[j] = nb > 0 ? norm2(r) / nb : norm2(r);
    std::vector<double> e = x;
    for (int64_t i = 0; i < n; ++i) e[i] -= xstar[j][i];
    errors[j] = norm2(e) / norm2(xstar[j]);
    if (!args.quiet && root)
      std::printf("  rhs %d: %s after %d iterations, %.3f s; hypre's relative residual %.2e, true %.2e, error %.2e\n",
                  j, gmres_converged[j] ? "converged" : "NOT converged", it, t, final_norm, residuals[j], errors[j]);
  }
  bool converged = true;
  for (int j = 0; j < s; ++j)
    converged = converged && gmres_converged[j] && std::isfinite(residuals[j]) && residuals[j] <= 10 * args.tol;
  const int max_iterations = s ? *std::max_element(iterations.begin(), iterations.end()) : 0;
  long long total_iterations = 0;
  for (int it : iterations) total_iterations += it;

  if (!args.quiet && root) {
    std::printf("summary: %d iterations at most, %lld in all (%.2f per right-hand side), setup %.3f s, solve %.3f s "
                "for %d right-hand side(s) (GMRES setup %.3f s)\n  %s\n",
                max_iterations, total_iterations, s ? double(total_iterations) / s : 0.0, setup_seconds,
                solve_seconds, s, gmres_setup_seconds,
                converged ? "CONVERGED: every column meets the tolerance (true residual <= 10 tol)"
                          : "NOT CONVERGED: see the lines above");
  }
  if (args.json && root) {
    std::ostringstream js;
    js << "{\"solver\":\"hypre-gmres+boomeramg\",\"matrix\":" << json_string(args.matrix) << ",\"rows\":" << n
       << ",\"nnz\":" << host.nnz() << ",\"block\":" << s << ",\"converged\":" << (converged ? "true" : "false")
       << ",\"iterations\":" << max_iterations << ",\"iterations_per_rhs\":" << json_array(iterations)
       << ",\"iterations_total\":" << total_iterations << ",\"setup_seconds\":" << json_number(setup_seconds)
       << ",\"seconds\":" << json_number(solve_seconds) << ",\"seconds_per_rhs\":" << json_array(column_seconds)
       << ",\"residuals\":" << json_array(residuals) << ",\"hypre_residuals\":" << json_array(hypre_residuals)
       << ",\"errors\":" << json_array(errors) << ",\"levels\":" << h.levels
       << ",\"operator_complexity\":" << json_number(h.operator_complexity)
       << ",\"grid_complexity\":" << json_number(h.grid_complexity) << ",\"level_rows\":" << json_array(h.rows)
       << ",\"level_nnz\":" << json_array(h.nnz) << ",\"strong_threshold\":" << json_number(strong_threshold)
       << ",\"strong_threshold_default\":" << (args.strong_threshold < 0 ? "true" : "false")
       << ",\"num_functions\":" << nf << ",\"num_functions_source\":" << json_string(num_functions_source)
       << ",\"coarsen_type\":" << coarsen_type << ",\"coarsening\":" << json_string(coarsen_name(coarsen_type))
       << ",\"interp_type\":" << interp_type << ",\"interpolation\":" << json_string(interp_name(interp_type))
       << ",\"p_max_elmts\":" << p_max << ",\"trunc_factor\":" << json_number(trunc_factor)
       << ",\"max_row_sum\":" << json_number(max_row_sum) << ",\"agg_num_levels\":" << agg_levels
       << ",\"agg_interp_type\":" << agg_interp_type
       << ",\"agg_interpolation\":" << json_string(agg_interp_name(agg_interp_type))
       << ",\"agg_p_max_elmts\":" << agg_p_max << ",\"num_paths\":" << num_paths << ",\"nodal\":" << nodal
       << ",\"nodal_diag\":" << nodal_diag << ",\"interp_vectors\":" << json_string(args.interp_vectors)
       << ",\"num_interp_vectors\":" << num_interp_vectors << ",\"interp_vec_variant\":" << interp_vec_variant
       << ",\"interp_vec_qmax\":" << interp_vec_qmax << ",\"smooth_interp_vectors\":" << smooth_interp_vectors
       << ",\"interp_refine\":" << interp_refine << ",\"relax_down\":" << relax_down << ",\"relax_up\":" << relax_up
       << ",\"relax_coarse\":" << relax_coarse
       << ",\"relax_types\":" << json_string(relax_name(relax_down) + " / " + relax_name(relax_up) + " / " +
                                             relax_name(relax_coarse))
       << ",\"sweeps\":" << json_array(std::vector<int>{sweeps_down, sweeps_up, sweeps_coarse})
       << ",\"cycle_type\":" << cycle_type << ",\"max_levels\":" << max_levels << ",\"max_coarse_size\":" << max_coarse
       << ",\"restart\":" << args.restart << ",\"tol\":" << json_number(args.tol)
       << ",\"max_iterations\":" << args.max_iterations << ",\"assembly_seconds\":" << json_number(assembly_seconds)
       << ",\"gmres_setup_seconds\":" << json_number(gmres_setup_seconds) << ",\"hypre_version\":\"" << version
       << "\",\"mpi_ranks\":" << ranks << ",\"rows_per_rank\":" << json_array(rank_rows) << ",\"threads\":1}";
    std::printf("%s\n", js.str().c_str());
  }
  std::fflush(stdout);

  HYPRE_ParCSRGMRESDestroy(gmres);
  HYPRE_BoomerAMGDestroy(amg);
  interp.clear();
  HYPRE_IJMatrixDestroy(ij);
  return converged ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  // Flags first, so bad usage exits 2 before MPI starts.
  Args args;
  try {
    args = parse_args(argc, argv);
  } catch (const Sprocket::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    std::fprintf(stderr, "sprocket-hypre-amg: MPI_Init failed\n");
    return 1;
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int rc = 0;
  if (HYPRE_Init() != 0) {
    std::fprintf(stderr, "sprocket-hypre-amg: HYPRE_Init failed\n");
    rc = 1;
  } else {
    try {
      rc = run(args);
    } catch (const Sprocket::Error& e) {
      // Our errors (an unreadable matrix, a bad combination of flags) happen alike on every rank.
      if (rank == 0) std::fprintf(stderr, "%s\n", e.what());
      rc = 2;
    } catch (const std::exception& e) {
      // A hypre or MPI failure may be one rank's alone: the others would wait for it forever.
      std::fprintf(stderr, "%s%s\n", ranks > 1 ? ("rank " + std::to_string(rank) + ": ").c_str() : "", e.what());
      if (ranks > 1) MPI_Abort(MPI_COMM_WORLD, 1);
      rc = 1;
    }
    HYPRE_Finalize();
  }
  MPI_Finalize();
  return rc;
}
