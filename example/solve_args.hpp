#pragma once
// sprocket-solve's command line: the parsed arguments and their checks, apart from the program so
// that the argument fuzzer (unit_tests/fuzz/) drives exactly what the program runs. Kokkos-free.
#include <cmath>
#include <cstdint>
#include <string>

#include "Sprocket_Error.hpp"
#include "example/solve_common.hpp"

namespace Sprocket {
namespace tools {

inline constexpr const char* default_matrix = "gen:poisson3d:n=32";

struct SolveArgs {
  std::string matrix = default_matrix;
  std::string solver;  // empty: the default run (both solvers)
  int block = 4;
  int nev = 8;
  std::string which = "smallest";
  std::string prec;  // empty: the solver's default
  double ic_drop = 1e-3;  // --prec ic: drop tolerance (0: complete Cholesky)
  int ilu_level = 1;      // --prec iluk: level of fill (ilu0: 0)
  double ilut_drop = 1e-4, ilut_fill = 10, ilut_pivot = 0.1;  // --prec ilut (IncompleteLuOptions)
  std::string ilu_matching = "auto";  // --prec ilu0|iluk|ilut: row matching for a large diagonal
  std::string reorder = "none";       // --prec ic|ilu0|iluk|ilut: symmetric reordering
  // --prec amg (SmoothedAggregationOptions): near null space, smoother, its degree, strength.
  std::string amg_nullspace = "constant", amg_smoother = "chebyshev";
  int amg_degree = 0;  // 0: the option's default
  double amg_threshold = 0;
  int amg_block = 0;  // unknowns per node, 0: detected
  double shift = 0;                   // --prec cholesky|lu: sigma of the factored A - sigma I
  bool shift_given = false, which_given = false;
  double shift_invert = 0;  // --shift-invert sigma: LOBPCG on (A - sigma I)^{-1}
  bool shift_invert_given = false;
  double tol = 1e-8;
  int restart = 30;
  int max_iterations = 0;  // 0: the solver's default
  int64_t single_thread_below = -1;  // --single-thread-below N; -1: the solvers' default
  std::string rhs = "ones";
  std::string op = "spmm";
  bool json = false, quiet = false;
  std::string history, plot;
};

/// sprocket-solve --help: every flag, one line each (a ctest checks that every flag the parser
/// accepts is listed).
inline const char* solve_help_text() {
  return "usage: sprocket-solve [options]\n"
         "  Without --solver: block GMRES, then LOBPCG, on the default matrix gen:poisson3d:n=32.\n"
         "  --matrix M               Matrix Market file (.mtx, .mtx.gz) or gen:<name>:<k>=<v>,... spec\n"
         "  --solver S               bgmres (block GMRES, A X = B) or lobpcg (smallest/largest eigenpairs)\n"
         "  --block s                block size: right-hand sides (bgmres) or block of LOBPCG (default 4)\n"
         "  --nev k                  lobpcg: eigenpairs wanted (default 8)\n"
         "  --which W                lobpcg: smallest (default) or largest\n"
         "  --prec P                 preconditioner: none, jacobi, bjacobi, cheby, ic, ilu0, iluk, ilut, cholesky, lu, amg\n"
         "  --ic-drop t              ic: drop tolerance (default 1e-3; 0: complete Cholesky)\n"
         "  --ilu-level k            iluk: level of fill (default 1)\n"
         "  --ilut-drop t            ilut: relative drop tolerance (default 1e-4)\n"
         "  --ilut-fill f            ilut: fill factor, kept entries per row over A's (default 10)\n"
         "  --ilut-pivot p           ilut: threshold of partial pivoting in [0, 1] (default 0.1)\n"
         "  --ilu-matching M         ilu0, iluk, ilut: row matching for a large diagonal: auto (default), on, off\n"
         "  --reorder R              ic, ilu0, iluk, ilut: symmetric reordering: none (default), rcm, amd\n"
         "  --amg-nullspace N        amg: near null space: constant (default) or rigid-body\n"
         "  --amg-smoother S         amg: chebyshev (default) or jacobi\n"
         "  --amg-degree d           amg: smoother degree or sweeps (default: the option's default)\n"
         "  --amg-threshold t        amg: strength-of-connection threshold in [0, 1) (default 0)\n"
         "  --amg-block b            amg: unknowns per node (default 0: detected)\n"
         "  --shift sigma            cholesky, lu: factor A - sigma I instead of A\n"
         "  --shift-invert sigma     lobpcg: eigenvalues nearest sigma, through (A - sigma I)^-1 (with --prec cholesky or lu)\n"
         "  --tol t                  relative residual target (default 1e-8)\n"
         "  --restart m              bgmres: block Arnoldi steps per restart cycle (default 30)\n"
         "  --max-iterations n       iteration limit (default: the solver's)\n"
         "  --single-thread-below N  run solves with n * block below N on one thread (default: the solver's; 0: never)\n"
         "  --rhs R                  bgmres right-hand sides: ones (default) or random\n"
         "  --operator O             how A is applied: spmm (default, the whole block at once) or spmv (column by column)\n"
         "  --json                   one JSON line per solve instead of the text report\n"
         "  --history F              write every iteration's residuals to the CSV file F\n"
         "  --plot F                 plot the convergence history to the PNG file F (needs gnuplot)\n"
         "  --quiet                  no per-iteration lines\n"
         "  --help, -h               this text\n"
         "  Threads: Kokkos' --kokkos-threads=N (Kokkos 3; --kokkos-num-threads=N from Kokkos 4.3) or\n"
         "  OMP_NUM_THREADS.\n";
}

[[noreturn]] inline void usage_error(const std::string& message) {
  throw Sprocket::InvalidArgument("sprocket-solve: " + message + "\n(sprocket-solve --help lists every flag)");
}

inline int parse_int(const std::string& flag, const std::string& v) {
  if (const auto x = Sprocket::tools::to_int(v)) return *x;
  usage_error(flag + " needs an integer, got \"" + v + "\"");
}

inline double parse_double(const std::string& flag, const std::string& v) {
  if (const auto x = Sprocket::tools::to_double(v)) return *x;
  usage_error(flag + " needs a number, got \"" + v + "\"");
}

inline SolveArgs parse_solve_args(int argc, char** argv) {
  SolveArgs a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--matrix") a.matrix = value();
    else if (flag == "--solver") a.solver = value();
    else if (flag == "--block") a.block = parse_int(flag, value());
    else if (flag == "--nev") a.nev = parse_int(flag, value());
    else if (flag == "--which") a.which = value(), a.which_given = true;
    else if (flag == "--prec") a.prec = value();
    else if (flag == "--ic-drop") a.ic_drop = parse_double(flag, value());
    else if (flag == "--ilu-level") a.ilu_level = parse_int(flag, value());
    else if (flag == "--ilut-drop") a.ilut_drop = parse_double(flag, value());
    else if (flag == "--ilut-fill") a.ilut_fill = parse_double(flag, value());
    else if (flag == "--ilut-pivot") a.ilut_pivot = parse_double(flag, value());
    else if (flag == "--ilu-matching") a.ilu_matching = value();
    else if (flag == "--reorder") a.reorder = value();
    else if (flag == "--amg-nullspace") a.amg_nullspace = value();
    else if (flag == "--amg-smoother") a.amg_smoother = value();
    else if (flag == "--amg-degree") a.amg_degree = parse_int(flag, value());
    else if (flag == "--amg-threshold") a.amg_threshold = parse_double(flag, value());
    else if (flag == "--amg-block") a.amg_block = parse_int(flag, value());
    else if (flag == "--shift") a.shift = parse_double(flag, value()), a.shift_given = true;
    else if (flag == "--shift-invert") a.shift_invert = parse_double(flag, value()), a.shift_invert_given = true;
    else if (flag == "--tol") a.tol = parse_double(flag, value());
    else if (flag == "--restart") a.restart = parse_int(flag, value());
    else if (flag == "--max-iterations") a.max_iterations = parse_int(flag, value());
    else if (flag == "--single-thread-below") a.single_thread_below = parse_int(flag, value());
    else if (flag == "--rhs") a.rhs = value();
    else if (flag == "--operator") a.op = value();
    else if (flag == "--json") a.json = true;
    else if (flag == "--quiet") a.quiet = true;
    else if (flag == "--history") a.history = value();
    else if (flag == "--plot") a.plot = value();
    else if (flag == "--help" || flag == "-h") usage_error("help");
    else usage_error("unknown argument \"" + flag + "\"");
  }
  if (!a.solver.empty() && a.solver != "bgmres" && a.solver != "lobpcg")
    usage_error("--solver must be bgmres or lobpcg, got \"" + a.solver + "\"");
  if (a.which != "smallest" && a.which != "largest")
    usage_error("--which must be smallest or largest, got \"" + a.which + "\"");
  if (!a.prec.empty() && a.prec != "none" && a.prec != "jacobi" && a.prec != "bjacobi" && a.prec != "cheby" &&
      a.prec != "ic" && a.prec != "ilu0" && a.prec != "iluk" && a.prec != "ilut" && a.prec != "cholesky" &&
      a.prec != "lu" && a.prec != "amg")
    usage_error("--prec must be none, jacobi, bjacobi, cheby, ic, ilu0, iluk, ilut, cholesky, lu or amg, got \"" +
                a.prec + "\"");
  if (a.amg_nullspace != "constant" && a.amg_nullspace != "rigid-body")
    usage_error("--amg-nullspace must be constant or rigid-body, got \"" + a.amg_nullspace + "\"");
  if (a.amg_smoother != "chebyshev" && a.amg_smoother != "jacobi")
    usage_error("--amg-smoother must be chebyshev or jacobi, got \"" + a.amg_smoother + "\"");
  if (a.amg_degree < 0 || a.amg_block < 0 || !(a.amg_threshold >= 0 && a.amg_threshold < 1))
    usage_error("--amg-degree and --amg-block must be >= 0 and --amg-threshold in [0, 1)");
  const bool direct = a.prec == "cholesky" || a.prec == "lu";
  if (a.shift_given && (!direct || a.shift_invert_given))
    usage_error("--shift applies to --prec cholesky or lu (with --shift-invert, sigma is its value)");
  if (!std::isfinite(a.shift) || !std::isfinite(a.shift_invert))
    usage_error("--shift and --shift-invert must be finite");
  if (a.shift_invert_given) {
    if (a.solver != "lobpcg") usage_error("--shift-invert needs --solver lobpcg");
    if (!a.prec.empty() && !direct)
      usage_error("--shift-invert factors A - sigma I with --prec cholesky or lu, got \"" + a.prec + "\"");
    if (a.which_given)
      usage_error("--which does not apply to --shift-invert: it finds the eigenvalues nearest sigma from above");
  }
  if (!(a.ic_drop >= 0)) usage_error("--ic-drop must be >= 0");
  if (a.ilu_level < 0) usage_error("--ilu-level must be >= 0");
  if (!(a.ilut_drop >= 0)) usage_error("--ilut-drop must be >= 0");
  if (!(a.ilut_fill > 0)) usage_error("--ilut-fill must be > 0");
  if (!(a.ilut_pivot >= 0 && a.ilut_pivot <= 1)) usage_error("--ilut-pivot must be in [0, 1]");
  if (a.ilu_matching != "auto" && a.ilu_matching != "on" && a.ilu_matching != "off")
    usage_error("--ilu-matching must be auto, on or off, got \"" + a.ilu_matching + "\"");
  if (a.reorder != "none" && a.reorder != "rcm" && a.reorder != "amd")
    usage_error("--reorder must be none, rcm or amd, got \"" + a.reorder + "\"");
  if (a.rhs != "ones" && a.rhs != "random") usage_error("--rhs must be ones or random, got \"" + a.rhs + "\"");
  if (a.op != "spmm" && a.op != "spmv") usage_error("--operator must be spmm or spmv, got \"" + a.op + "\"");
  if (a.block < 1) usage_error("--block must be >= 1");
  if (a.nev < 1) usage_error("--nev must be >= 1");
  if (!(a.tol > 0)) usage_error("--tol must be > 0");
  if (a.restart < 1) usage_error("--restart must be >= 1");
  if (a.single_thread_below < -1) usage_error("--single-thread-below must be >= 0 (0: never one thread)");
  return a;
}

}  // namespace tools
}  // namespace Sprocket
