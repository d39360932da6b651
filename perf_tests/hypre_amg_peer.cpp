// sprocket-hypre-amg: hypre's BoomerAMG (classical algebraic multigrid) as the peer of our
// smoothed-aggregation AMG. It solves the same problems as `sprocket-solve --solver bgmres
// --prec amg`: the same matrix (our readers and generators), the same right-hand sides
// (--rhs ones: B = A X*, column 0 of X* all ones, column j > 0 is 1 + j (i mod 7) / 7), each
// column from a zero initial guess by hypre's ParCSR GMRES (restart --restart, relative tolerance
// --tol) preconditioned by one BoomerAMG V-cycle per application. BoomerAMG is set up once and
// reused for every right-hand side. One MPI rank; hypre as Debian builds it (no OpenMP): one thread.
//
//   sprocket-hypre-amg [--matrix <file.mtx[.gz] | gen:...>] [--block s] [--restart m] [--tol t]
//                      [--max-iterations n] [--strong-threshold t] [--num-functions k|auto]
//                      [--print-level p] [--json] [--quiet]
//
// BoomerAMG keeps hypre's defaults (hypre 2.26: HMIS coarsening, extended+i interpolation with
// at most 4 entries per row, l1 hybrid Gauss-Seidel forward down / backward up, Gaussian
// elimination on the coarsest level, strength threshold 0.25) except what the flags set:
//   --strong-threshold t   strength of connection (hypre's default 0.25; hypre's documentation
//                          recommends 0.5 or more for 3-D problems, up to 0.9 for elasticity)
//   --num-functions k      systems AMG with k unknowns per node, interleaved (row p*k + a is
//                          unknown a of node p; gen:elasticity's ordering): 3 for
//                          gen:elasticity:...,dof=3. auto: the dof of a gen:elasticity spec, else
//                          Sprocket::detect_block_size of the matrix. Default 1 (scalar AMG).
//   --print-level p        BoomerAMG's own print level (1: setup statistics on stdout)
//
// The true relative residuals ||b - A x|| / ||b|| are recomputed by our serial reference SpMV;
// a run has converged when GMRES reports convergence for every column and every true residual is
// at most 10 tol. With --json the last line printed is one JSON object. Exit status: 0 converged,
// 3 not converged, 2 bad usage or an unreadable matrix, 1 a hypre or MPI failure.
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
// level count and the complexities, and the interpolation type (no getter either).
#include <_hypre_parcsr_ls.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
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
  double strong_threshold = -1;  // < 0: hypre's default
  std::string num_functions = "1";
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
      "\nusage: sprocket-hypre-amg [--matrix <file|gen:...>] [--block s] [--restart m] [--tol t] "
      "[--max-iterations n] [--strong-threshold t] [--num-functions k|auto] [--print-level p] [--json] [--quiet]");
}

int parse_int(const std::string& flag, const std::string& v) {
  if (const auto x = Sprocket::tools::to_int(v)) return *x;
  usage_error(flag + " needs an integer, got \"" + v + "\"");
}

double parse_double(const std::string& flag, const std::string& v) {
  if (const auto x = Sprocket::tools::to_double(v)) return *x;
  usage_error(flag + " needs a number, got \"" + v + "\"");
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
    else if (flag == "--num-functions") a.num_functions = value();
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
  if (a.num_functions != "auto" && parse_int("--num-functions", a.num_functions) < 1)
    usage_error("--num-functions must be >= 1 or auto, got \"" + a.num_functions + "\"");
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

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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

/// An IJ vector of n entries on this rank, its values set and assembled.
struct Vector {
  HYPRE_IJVector ij = nullptr;
  HYPRE_ParVector par = nullptr;
  Vector(MPI_Comm comm, HYPRE_BigInt n) {
    check(HYPRE_IJVectorCreate(comm, 0, n - 1, &ij), "HYPRE_IJVectorCreate");
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
  void set(const std::vector<HYPRE_BigInt>& rows, std::vector<double> values) {
    check(HYPRE_IJVectorInitialize(ij), "HYPRE_IJVectorInitialize");
    check(HYPRE_IJVectorSetValues(ij, static_cast<HYPRE_Int>(rows.size()), rows.data(), values.data()),
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
/// grid complexity (sum of the rows / A's rows) of a BoomerAMG hierarchy after setup.
struct Hierarchy {
  int levels = 0;
  double operator_complexity = 0, grid_complexity = 0;
  std::vector<long long> rows, nnz;
};

Hierarchy hierarchy_of(HYPRE_Solver amg) {
  Hierarchy h;
  auto* data = reinterpret_cast<hypre_ParAMGData*>(amg);
  h.levels = hypre_ParAMGDataNumLevels(data);
  hypre_ParCSRMatrix** A = hypre_ParAMGDataAArray(data);
  for (int l = 0; l < h.levels; ++l) {
    hypre_CSRMatrix* diag = hypre_ParCSRMatrixDiag(A[l]);
    hypre_CSRMatrix* offd = hypre_ParCSRMatrixOffd(A[l]);
    long long nz = hypre_CSRMatrixI(diag)[hypre_CSRMatrixNumRows(diag)];
    if (offd && hypre_CSRMatrixI(offd)) nz += hypre_CSRMatrixI(offd)[hypre_CSRMatrixNumRows(offd)];
    h.rows.push_back(static_cast<long long>(hypre_ParCSRMatrixGlobalNumRows(A[l])));
    h.nnz.push_back(nz);
  }
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
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  SPROCKET_REQUIRE(ranks == 1, "sprocket-hypre-amg: runs on one MPI rank (started on ", ranks, ")");
  HYPRE_Int major = 0, minor = 0, patch = 0;
  check(HYPRE_VersionNumber(&major, &minor, &patch, nullptr), "HYPRE_VersionNumber");
  const std::string version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);

  // The problem: exactly sprocket-solve's matrix and --rhs ones right-hand sides.
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
  const int s = args.block;
  const std::vector<std::vector<double>> xstar = Sprocket::tools::known_solution(n, s);
  std::vector<std::vector<double>> b(s, std::vector<double>(n, 0.0));
  for (int j = 0; j < s; ++j) Sprocket::reference::spmv("N", 1.0, host, xstar[j], 0.0, b[j]);

  // A as a hypre IJ / ParCSR matrix, all rows on this rank.
  const auto t_assembly = Clock::now();
  HYPRE_IJMatrix ij = nullptr;
  check(HYPRE_IJMatrixCreate(comm, 0, n - 1, 0, n - 1, &ij), "HYPRE_IJMatrixCreate");
  check(HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR), "HYPRE_IJMatrixSetObjectType");
  std::vector<HYPRE_Int> row_sizes(n);
  std::vector<HYPRE_BigInt> rows(n);
  for (int64_t i = 0; i < n; ++i) {
    row_sizes[i] = static_cast<HYPRE_Int>(host.row_length(i));
    rows[i] = static_cast<HYPRE_BigInt>(i);
  }
  check(HYPRE_IJMatrixSetRowSizes(ij, row_sizes.data()), "HYPRE_IJMatrixSetRowSizes");
  check(HYPRE_IJMatrixInitialize(ij), "HYPRE_IJMatrixInitialize");
  {
    const std::vector<HYPRE_BigInt> cols(host.entries.begin(), host.entries.end());
    check(HYPRE_IJMatrixSetValues(ij, static_cast<HYPRE_Int>(n), row_sizes.data(), rows.data(), cols.data(),
                                  host.values.data()),
          "HYPRE_IJMatrixSetValues");
  }
  check(HYPRE_IJMatrixAssemble(ij), "HYPRE_IJMatrixAssemble");
  void* object = nullptr;
  check(HYPRE_IJMatrixGetObject(ij, &object), "HYPRE_IJMatrixGetObject");
  const auto A = static_cast<HYPRE_ParCSRMatrix>(object);
  Vector B(comm, n), X(comm, n);
  const std::vector<double> zeros(n, 0.0);
  B.set(rows, b[0]);
  X.set(rows, zeros);
  const double assembly_seconds = seconds_since(t_assembly);

  // BoomerAMG as a preconditioner: one V-cycle per application, hypre's defaults otherwise.
  HYPRE_Solver amg = nullptr;
  check(HYPRE_BoomerAMGCreate(&amg), "HYPRE_BoomerAMGCreate");
  check(HYPRE_BoomerAMGSetPrintLevel(amg, args.print_level), "HYPRE_BoomerAMGSetPrintLevel");
  check(HYPRE_BoomerAMGSetTol(amg, 0.0), "HYPRE_BoomerAMGSetTol");
  check(HYPRE_BoomerAMGSetMaxIter(amg, 1), "HYPRE_BoomerAMGSetMaxIter");
  if (args.strong_threshold >= 0)
    check(HYPRE_BoomerAMGSetStrongThreshold(amg, args.strong_threshold), "HYPRE_BoomerAMGSetStrongThreshold");
  if (num_functions > 1) check(HYPRE_BoomerAMGSetNumFunctions(amg, num_functions), "HYPRE_BoomerAMGSetNumFunctions");

  const auto t_setup = Clock::now();
  check(HYPRE_BoomerAMGSetup(amg, A, B.par, X.par), "HYPRE_BoomerAMGSetup");
  const double setup_seconds = seconds_since(t_setup);
  const Hierarchy h = hierarchy_of(amg);

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
  const int interp_type = hypre_ParAMGDataInterpType(reinterpret_cast<hypre_ParAMGData*>(amg));
  const int agg_levels = hypre_ParAMGDataAggNumLevels(reinterpret_cast<hypre_ParAMGData*>(amg));

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
  const auto t_gmres_setup = Clock::now();
  check(HYPRE_ParCSRGMRESSetup(gmres, A, B.par, X.par), "HYPRE_ParCSRGMRESSetup");
  const double gmres_setup_seconds = seconds_since(t_gmres_setup);

  if (!args.quiet) {
    std::printf("sprocket-hypre-amg: hypre %s, %d MPI rank, 1 thread (hypre built without OpenMP)\n", version.c_str(),
                ranks);
    std::printf("matrix %s: %lld x %lld, %lld nonzeros (loaded in %.2f s, hypre IJ assembly %.3f s)\n",
                args.matrix.c_str(), static_cast<long long>(n), static_cast<long long>(n),
                static_cast<long long>(host.nnz()), load_seconds, assembly_seconds);
    std::printf("BoomerAMG: strength threshold %g%s, %d function(s) (%s), coarsening %s (%d), interpolation %s (%d), "
                "at most %d entries per row of P, truncation %g, max row sum %g, aggressive levels %d\n",
                strong_threshold, args.strong_threshold < 0 ? " (hypre's default; its docs suggest 0.5 for 3-D)" : "",
                nf, num_functions_source.c_str(), coarsen_name(coarsen_type).c_str(), coarsen_type,
                interp_name(interp_type).c_str(), interp_type, p_max, trunc_factor, max_row_sum, agg_levels);
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

  // One right-hand side at a time, each from a zero initial guess.
  std::vector<int> iterations(s, 0);
  std::vector<double> hypre_residuals(s, 0.0), residuals(s, 0.0), errors(s, 0.0);
  std::vector<bool> gmres_converged(s, false);
  double solve_seconds = 0;
  for (int j = 0; j < s; ++j) {
    B.set(rows, b[j]);
    X.set(rows, zeros);
    const auto t0 = Clock::now();
    const HYPRE_Int rc = HYPRE_ParCSRGMRESSolve(gmres, A, B.par, X.par);
    const double t = seconds_since(t0);
    solve_seconds += t;
    if (rc != 0 && rc != HYPRE_ERROR_CONV) check(rc, "HYPRE_ParCSRGMRESSolve");
    gmres_converged[j] = rc == 0;
    HYPRE_ClearAllErrors();
    HYPRE_Int it = 0;
    HYPRE_Real final_norm = 0;
    check(HYPRE_ParCSRGMRESGetNumIterations(gmres, &it), "HYPRE_ParCSRGMRESGetNumIterations");
    check(HYPRE_ParCSRGMRESGetFinalRelativeResidualNorm(gmres, &final_norm),
          "HYPRE_ParCSRGMRESGetFinalRelativeResidualNorm");
    iterations[j] = it;
    hypre_residuals[j] = final_norm;
    // Independent check: ||b - A x|| / ||b|| with our serial reference SpMV.
    const std::vector<double> x = X.get(rows);
    std::vector<double> r = b[j];
    Sprocket::reference::spmv("N", -1.0, host, x, 1.0, r);
    const double nb = norm2(b[j]);
    residuals[j] = nb > 0 ? norm2(r) / nb : norm2(r);
    std::vector<double> e = x;
    for (int64_t i = 0; i < n; ++i) e[i] -= xstar[j][i];
    errors[j] = norm2(e) / norm2(xstar[j]);
    if (!args.quiet)
      std::printf("  rhs %d: %s after %d iterations, %.3f s; hypre's relative residual %.2e, true %.2e, error %.2e\n",
                  j, gmres_converged[j] ? "converged" : "NOT converged", it, t, final_norm, residuals[j], errors[j]);
  }
  bool converged = true;
  for (int j = 0; j < s; ++j)
    converged = converged && gmres_converged[j] && std::isfinite(residuals[j]) && residuals[j] <= 10 * args.tol;
  const int max_iterations = s ? *std::max_element(iterations.begin(), iterations.end()) : 0;

  if (!args.quiet) {
    std::printf("summary: %d iterations at most, setup %.3f s, solve %.3f s for %d right-hand side(s) (GMRES setup "
                "%.3f s)\n  %s\n",
                max_iterations, setup_seconds, solve_seconds, s, gmres_setup_seconds,
                converged ? "CONVERGED: every column meets the tolerance (true residual <= 10 tol)"
                          : "NOT CONVERGED: see the lines above");
  }
  if (args.json) {
    std::ostringstream js;
    js << "{\"solver\":\"hypre-gmres+boomeramg\",\"matrix\":" << json_string(args.matrix) << ",\"rows\":" << n
       << ",\"nnz\":" << host.nnz() << ",\"block\":" << s << ",\"converged\":" << (converged ? "true" : "false")
       << ",\"iterations\":" << max_iterations << ",\"iterations_per_rhs\":" << json_array(iterations)
       << ",\"setup_seconds\":" << json_number(setup_seconds) << ",\"seconds\":" << json_number(solve_seconds)
       << ",\"residuals\":" << json_array(residuals) << ",\"hypre_residuals\":" << json_array(hypre_residuals)
       << ",\"errors\":" << json_array(errors) << ",\"levels\":" << h.levels
       << ",\"operator_complexity\":" << json_number(h.operator_complexity)
       << ",\"grid_complexity\":" << json_number(h.grid_complexity) << ",\"level_rows\":" << json_array(h.rows)
       << ",\"level_nnz\":" << json_array(h.nnz) << ",\"strong_threshold\":" << json_number(strong_threshold)
       << ",\"strong_threshold_default\":" << (args.strong_threshold < 0 ? "true" : "false")
       << ",\"num_functions\":" << nf << ",\"coarsen_type\":" << coarsen_type
       << ",\"coarsening\":" << json_string(coarsen_name(coarsen_type)) << ",\"interp_type\":" << interp_type
       << ",\"interpolation\":" << json_string(interp_name(interp_type)) << ",\"p_max_elmts\":" << p_max
       << ",\"trunc_factor\":" << json_number(trunc_factor) << ",\"max_row_sum\":" << json_number(max_row_sum)
       << ",\"agg_num_levels\":" << agg_levels << ",\"relax_down\":" << relax_down
       << ",\"relax_up\":" << relax_up << ",\"relax_coarse\":" << relax_coarse
       << ",\"relax_types\":" << json_string(relax_name(relax_down) + " / " + relax_name(relax_up) + " / " +
                                             relax_name(relax_coarse))
       << ",\"cycle_type\":" << cycle_type << ",\"restart\":" << args.restart << ",\"tol\":" << json_number(args.tol)
       << ",\"max_iterations\":" << args.max_iterations << ",\"assembly_seconds\":" << json_number(assembly_seconds)
       << ",\"gmres_setup_seconds\":" << json_number(gmres_setup_seconds) << ",\"hypre_version\":\"" << version
       << "\",\"mpi_ranks\":" << ranks << ",\"threads\":1}";
    std::printf("%s\n", js.str().c_str());
  }

  HYPRE_ParCSRGMRESDestroy(gmres);
  HYPRE_BoomerAMGDestroy(amg);
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
  int rc = 0;
  if (HYPRE_Init() != 0) {
    std::fprintf(stderr, "sprocket-hypre-amg: HYPRE_Init failed\n");
    rc = 1;
  } else {
    try {
      rc = run(args);
    } catch (const Sprocket::Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      rc = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      rc = 1;
    }
    HYPRE_Finalize();
  }
  MPI_Finalize();
  return rc;
}
