// sprocket-solve: the solver demo. Reads or generates a matrix, wraps it in Sprocket operators
// (SpMM for blocks of vectors), and runs block GMRES on A X = B or LOBPCG for a few eigenpairs,
// printing one line per iteration and a summary whose residuals are recomputed independently (by
// the serial reference SpMV, not by the solver).
//
//   sprocket-solve                      the default problem: gen:poisson3d:n=32, 4 right-hand
//                                       sides by block GMRES with Chebyshev, then the 8 smallest
//                                       eigenvalues by LOBPCG with incomplete Cholesky
//   sprocket-solve --matrix <file.mtx[.gz] | gen:...> --solver bgmres|lobpcg [options]
//                                       (sprocket-solve --help lists every flag)
//
// --prec cholesky (CHOLMOD) and --prec lu (UMFPACK) are direct factorizations of A - sigma I
// (--shift sigma, default 0): exact solves, for block GMRES and as LOBPCG's preconditioner.
// --shift-invert sigma (with --solver lobpcg) runs LOBPCG on (A - sigma I)^{-1}, factored by
// --prec cholesky (default) or lu, for its largest eigenvalues mu: the eigenvalues
// lambda = sigma + 1 / mu of A nearest sigma from above (the smallest of an SPD A for sigma = 0),
// in increasing order, with their residuals recomputed on A itself (after one more solve with the
// factorization, which removes what LOBPCG's residual on the inverse cannot see).
//
// --prec amg is smoothed-aggregation AMG (one V-cycle per apply): --amg-block unknowns per node
// (default detected from the pattern), --amg-nullspace rigid-body (gen:elasticity with dof=3: the
// six rigid-body modes of its grid) or constant, Chebyshev (--amg-degree) or Jacobi smoothing,
// --amg-threshold the strength of connection; its JSON adds levels, operator_complexity and
// grid_complexity.
//
// Right-hand sides (bgmres): --rhs ones (default) makes B = A X* with known X*: column 0 of X* is
// all ones and column j > 0 is 1 + j * (i mod 7) / 7, so the error is known too; --rhs random
// draws B at random. With --json the last line printed is one JSON object.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Sprocket_BlockGmres.hpp"
#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Lobpcg.hpp"
#include "Sprocket_MultiVectorOperator.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Spmm.hpp"
#include "Sprocket_Spmv.hpp"
#include "example/solve_args.hpp"
#include "example/solve_common.hpp"

namespace {

using Args = Sprocket::tools::SolveArgs;
using Sprocket::tools::parse_solve_args;
using Sprocket::tools::json_array;
using Sprocket::tools::json_number;
using Sprocket::tools::json_string;

using Device = Kokkos::DefaultExecutionSpace::device_type;
using Matrix = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using MultiVector = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;
using Operator = Sprocket::MultiVectorOperator<double, Device>;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Column j of a LayoutLeft device multi-vector, copied to the host.
std::vector<std::vector<double>> to_host_columns(const MultiVector& X) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X);
  std::vector<std::vector<double>> cols(X.extent(1), std::vector<double>(X.extent(0)));
  for (size_t j = 0; j < X.extent(1); ++j)
    for (size_t i = 0; i < X.extent(0); ++i) cols[j][i] = h(i, j);
  return cols;
}

MultiVector from_host_columns(const std::vector<std::vector<double>>& cols, int64_t rows, const char* label) {
  MultiVector X(std::string(label), rows, cols.size());
  auto h = Kokkos::create_mirror_view(X);
  for (size_t j = 0; j < cols.size(); ++j)
    for (int64_t i = 0; i < rows; ++i) h(i, j) = cols[j][i];
  Kokkos::deep_copy(X, h);
  return X;
}

double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

// The per-iteration line and the residual history (for --history / --plot).
struct Progress {
  bool quiet = false;
  std::vector<std::vector<double>> worst;  // iteration, worst residual, converged, elapsed
  Sprocket::SolverCallback callback(const std::string& solver) {
    return [this, solver](const Sprocket::SolverIterationInfo& info) {
      worst.push_back({double(info.iteration), info.worst_residual, double(info.converged), info.elapsed_seconds});
      if (!quiet)
        std::printf("  %-7s iter %5d   worst residual %10.3e   converged %3d   %8.3f s\n", solver.c_str(),
                    info.iteration, info.worst_residual, info.converged, info.elapsed_seconds);
    };
  }
};

void write_history_csv(const std::string& path, const std::string& solver,
                       const std::vector<std::vector<double>>& history) {
  std::ofstream out(path);
  SPROCKET_REQUIRE(out.good(), "sprocket-solve: cannot write ", path);
  size_t columns = 0;
  for (const auto& row : history) columns = std::max(columns, row.size());
  out << "solver,iteration";
  for (size_t j = 0; j < columns; ++j) out << ",residual_" << j;
  out << "\n";
  out.precision(10);
  for (size_t it = 0; it < history.size(); ++it) {
    out << solver << "," << it + 1;
    for (size_t j = 0; j < columns; ++j) {
      out << ",";
      if (j < history[it].size()) out << history[it][j];
    }
    out << "\n";
  }
}

// Plots the history with gnuplot (Debian package gnuplot-nox). Throws when gnuplot fails.
void plot_history(const std::string& csv, const std::string& png, const std::string& title, size_t columns) {
  const std::string script = png + ".gp";
  {
    std::ofstream gp(script);
    SPROCKET_REQUIRE(gp.good(), "sprocket-solve: cannot write ", script);
    gp << "set terminal pngcairo size 900,560 noenhanced\n"
       << "set output '" << png << "'\n"
       << "set datafile separator ','\n"
       << "set logscale y\nset format y '%.0e'\nset grid\n"
       << "set xlabel 'iteration'\nset ylabel 'relative residual'\n"
       << "set title '" << title << "'\nset key outside right\n"
       << "plot for [c=3:" << columns + 2 << "] '" << csv << "' using 2:c with lines lw 2 title columnheader(c)\n";
  }
  const std::string command = "gnuplot '" + script + "'";
  const int rc = std::system(command.c_str());
  std::remove(script.c_str());
  SPROCKET_REQUIRE(rc == 0, "sprocket-solve: gnuplot failed (exit ", rc,
                   "); install the Debian package gnuplot-nox to use --plot");
}

std::string plot_path(const std::string& plot, const std::string& solver, bool both) {
  if (!both) return plot;
  const auto dot = plot.rfind('.');
  return dot == std::string::npos ? plot + "-" + solver : plot.substr(0, dot) + "-" + solver + plot.substr(dot);
}

struct Problem {
  std::string name;
  Sprocket::HostCsr host;
  Matrix A;
  std::shared_ptr<Operator> op;
  double setup_seconds = 0;
  std::string op_description;
};

/// Node coordinates of a gen:elasticity problem with 3 unknowns per node (its n^3 grid, node
/// (z * n + y) * n + x at (x, y, z)): what the rigid-body modes of --amg-nullspace need.
std::vector<double> grid_coordinates(const Problem& p) {
  const std::string prefix = "gen:elasticity:";
  SPROCKET_REQUIRE(p.name.compare(0, prefix.size(), prefix) == 0, "sprocket-solve: --amg-nullspace rigid-body needs ",
                   "node coordinates, which only gen:elasticity problems carry (", p.name, " has none)");
  const int64_t nodes = p.host.num_rows / 3;
  const int64_t n = std::llround(std::cbrt(static_cast<double>(nodes)));
  SPROCKET_REQUIRE(n * n * n * 3 == p.host.num_rows, "sprocket-solve: --amg-nullspace rigid-body needs dof=3 (",
                   p.name, " has ", p.host.num_rows, " rows)");
  return Sprocket::gen::elasticity3d_coordinates(n);
}

std::shared_ptr<const Sprocket::Preconditioner<double, Device>> make_preconditioner(const Problem& p,
                                                                                    const std::string& kind,
                                                                                    const Args& args,
                                                                                    std::string* description,
                                                                                    std::string* json_fields) {
  std::shared_ptr<const Sprocket::Preconditioner<double, Device>> M;
  if (kind == "jacobi") {
    M = Sprocket::make_jacobi(p.A);
  } else if (kind == "bjacobi") {
    // Block size of the matrix's natural blocks (FEM unknowns per node), 1 when it has none.
    const int b = std::max(1, Sprocket::detect_block_size(p.host));
    M = Sprocket::make_block_jacobi(p.A, b);
  } else if (kind == "cheby") {
    M = Sprocket::make_chebyshev(p.A);
  } else if (kind == "ic") {
    Sprocket::IncompleteCholeskyOptions options;
    options.drop_tolerance = args.ic_drop;
    using Ordering = Sprocket::IncompleteCholeskyOptions::Ordering;
    options.ordering = args.reorder == "amd" ? Ordering::amd : args.reorder == "rcm" ? Ordering::rcm : Ordering::natural;
    M = Sprocket::make_incomplete_cholesky(p.A, options);
  } else if (kind == "ilu0" || kind == "iluk" || kind == "ilut") {
    Sprocket::IncompleteLuOptions options;
    options.level = kind == "ilu0" ? 0 : args.ilu_level;
    if (kind == "ilut") options.method = Sprocket::IncompleteLuOptions::Method::threshold;
    options.drop_tolerance = args.ilut_drop;
    options.fill_factor = args.ilut_fill;
    options.pivot_threshold = args.ilut_pivot;
    using Matching = Sprocket::IncompleteLuOptions::Matching;
    options.matching = args.ilu_matching == "on" ? Matching::on : args.ilu_matching == "off" ? Matching::off : Matching::automatic;
    using Reorder = Sprocket::IncompleteLuOptions::Reorder;
    options.reorder = args.reorder == "rcm" ? Reorder::rcm : args.reorder == "amd" ? Reorder::amd : Reorder::none;
    M = Sprocket::make_incomplete_lu(p.A, options);
  } else if (kind == "cholesky" || kind == "lu") {
    Sprocket::DirectFactorizationOptions options;
    options.shift = args.shift;
    if (kind == "cholesky") M = Sprocket::make_cholesky(p.A, options);
    else M = Sprocket::make_lu(p.A, options);
  } else if (kind == "amg") {
    Sprocket::SmoothedAggregationOptions options;
    options.block_size = args.amg_block;
    options.strength_threshold = args.amg_threshold;
    options.smoother = args.amg_smoother == "jacobi" ? Sprocket::SmoothedAggregationOptions::Smoother::jacobi
                                                      : Sprocket::SmoothedAggregationOptions::Smoother::chebyshev;
    if (args.amg_degree > 0) options.chebyshev.degree = args.amg_degree;
    if (args.amg_nullspace == "rigid-body") {
      options.near_null_space = Sprocket::rigid_body_modes(grid_coordinates(p), 3);
      options.near_null_space_columns = 6;
      options.block_size = 3;
    }
    const auto amg = Sprocket::make_smoothed_aggregation(p.A, options);
    std::ostringstream fields;
    fields << ",\"levels\":" << amg->num_levels() << ",\"operator_complexity\":" << json_number(amg->operator_complexity())
           << ",\"grid_complexity\":" << json_number(amg->grid_complexity());
    *json_fields = fields.str();
    M = amg;
  }
  *description = M ? M->describe() : std::string("none\n");
  if (description->empty() || description->back() != '\n') *description += "\n";
  return M;
}

struct RunSummary {
  std::string json;
  bool converged = false;
};

RunSummary run_bgmres(const Args& args, const Problem& p, const std::string& prec) {
  const int64_t n = p.host.num_rows;
  SPROCKET_REQUIRE(p.host.num_rows == p.host.num_cols, "sprocket-solve: block GMRES needs a square matrix, ",
                   p.name, " is ", p.host.num_rows, " x ", p.host.num_cols);
  const int s = args.block;
  // Right-hand sides: B = A X* with known X*, or random.
  std::vector<std::vector<double>> xstar, b(s, std::vector<double>(n, 0.0));
  if (args.rhs == "ones") {
    xstar = Sprocket::tools::known_solution(n, s);
    for (int j = 0; j < s; ++j) Sprocket::reference::spmv("N", 1.0, p.host, xstar[j], 0.0, b[j]);
  } else {
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& col : b)
      for (auto& v : col) v = u(rng);
  }
  const MultiVector B = from_host_columns(b, n, "B");
  MultiVector X("X", n, s);  // zero initial guess

  const auto t_setup = Clock::now();
  std::string prec_description, prec_json;
  const auto M = make_preconditioner(p, prec, args, &prec_description, &prec_json);
  const double prec_setup = seconds_since(t_setup);

  Progress progress{args.quiet || args.json, {}};
  Sprocket::BlockGmresOptions options;
  options.block_size = s;
  options.restart = args.restart;
  options.tol = args.tol;
  if (args.max_iterations > 0) options.max_iterations = args.max_iterations;
  if (args.single_thread_below >= 0) options.single_thread_below = args.single_thread_below;
  options.on_iteration = progress.callback("bgmres");
  if (!args.json) {
    std::printf("\nblock GMRES: %d right-hand side(s) (%s), block size %d, restart %d, tol %.1e\n", s,
                args.rhs == "ones" ? "B = A X*, X* known" : "random", s, args.restart, args.tol);
    std::printf("preconditioner: %s", prec_description.c_str());
  }
  const auto t0 = Clock::now();
  const Sprocket::BlockGmresResult result = Sprocket::block_gmres<double, Device>(*p.op, B, X, options, M.get());
  const double solve_seconds = seconds_since(t0);

  // Independent check: ||b - A x|| / ||b|| with the serial reference SpMV.
  const auto x = to_host_columns(X);
  std::vector<double> residuals(s), errors;
  bool finite = true;
  for (int j = 0; j < s; ++j) {
    std::vector<double> r = b[j];
    Sprocket::reference::spmv("N", -1.0, p.host, x[j], 1.0, r);
    const double nb = norm2(b[j]);
    residuals[j] = nb > 0 ? norm2(r) / nb : norm2(r);
    finite = finite && std::isfinite(residuals[j]);
    if (!xstar.empty()) {
      std::vector<double> e = x[j];
      for (int64_t i = 0; i < n; ++i) e[i] -= xstar[j][i];
      errors.push_back(norm2(e) / norm2(xstar[j]));
    }
  }
  const double worst = s ? *std::max_element(residuals.begin(), residuals.end()) : 0.0;
  const bool converged = result.status == Sprocket::SolverStatus::converged && finite && worst <= args.tol;

  if (!args.json) {
    std::printf("summary: %s after %d block iterations (%s)\n", Sprocket::to_string(result.status), result.iterations,
                result.message.c_str());
    std::printf("  time: setup %.3f s (operator %.3f + preconditioner %.3f), solve %.3f s = operator %.3f + "
                "preconditioner %.3f + orthogonalization %.3f + other %.3f\n",
                p.setup_seconds + prec_setup, p.setup_seconds, prec_setup, solve_seconds,
                result.timings.operator_apply, result.timings.preconditioner, result.timings.orthogonalization,
                std::max(0.0, solve_seconds - result.timings.operator_apply - result.timings.preconditioner -
                                  result.timings.orthogonalization));
    if (result.single_thread)
      std::printf("  on the calling thread alone (rows x block < single_thread_below = %lld)\n",
                  static_cast<long long>(options.single_thread_below));
    std::printf("  true relative residuals ||b - A x|| / ||b|| (recomputed by the reference SpMV):");
    for (double r : residuals) std::printf(" %.2e", r);
    std::printf("\n");
    if (!errors.empty()) {
      std::printf("  relative errors ||x - x*|| / ||x*||:");
      for (double e : errors) std::printf(" %.2e", e);
      std::printf("\n");
    }
    std::printf("  %s\n", converged ? "CONVERGED: every column meets the tolerance"
                                    : "NOT CONVERGED: see the status above");
  }
  if (!args.history.empty()) {
    const std::string csv = plot_path(args.history, "bgmres", args.solver.empty());
    write_history_csv(csv, "bgmres", result.history);
    if (!args.plot.empty())
      plot_history(csv, plot_path(args.plot, "bgmres", args.solver.empty()),
                   "block GMRES on " + p.name + " (prec " + prec + ")", s);
  }

  std::ostringstream js;
  js << "{\"solver\":\"bgmres\",\"matrix\":" << json_string(p.name) << ",\"rows\":" << n
     << ",\"nnz\":" << p.host.nnz() << ",\"block\":" << s << ",\"prec\":" << json_string(prec);
  if (prec == "cholesky" || prec == "lu") js << ",\"shift\":" << json_number(args.shift);
  js << prec_json << ",\"converged\":" << (converged ? "true" : "false") << ",\"status\":\""
     << Sprocket::to_string(result.status) << "\",\"iterations\":" << result.iterations
     << ",\"seconds\":" << json_number(solve_seconds) << ",\"setup_seconds\":"
     << json_number(p.setup_seconds + prec_setup) << ",\"operator_setup_seconds\":" << json_number(p.setup_seconds)
     << ",\"preconditioner_setup_seconds\":" << json_number(prec_setup) << ",\"operator_seconds\":"
     << json_number(result.timings.operator_apply) << ",\"orthogonalization_seconds\":"
     << json_number(result.timings.orthogonalization) << ",\"residuals\":" << json_array(residuals);
  if (!errors.empty()) js << ",\"errors\":" << json_array(errors);
  js << "}";
  return {js.str(), converged};
}

RunSummary run_lobpcg(const Args& args, const Problem& p, const std::string& prec) {
  const int64_t n = p.host.num_rows;
  SPROCKET_REQUIRE(p.host.num_rows == p.host.num_cols, "sprocket-solve: LOBPCG needs a square symmetric matrix, ",
                   p.name, " is ", p.host.num_rows, " x ", p.host.num_cols);
  const int k = args.nev;
  const bool shift_invert = args.shift_invert_given;
  const double sigma = args.shift_invert;
  const auto t_setup = Clock::now();
  std::string prec_description, prec_json;
  std::shared_ptr<const Sprocket::Preconditioner<double, Device>> T, inverse;
  if (shift_invert) {
    // The operator LOBPCG sees is (A - sigma I)^{-1} itself, so it runs without a preconditioner.
    Sprocket::DirectFactorizationOptions direct;
    direct.shift = sigma;
    if (prec == "lu") inverse = Sprocket::make_lu(p.A, direct);
    else inverse = Sprocket::make_cholesky(p.A, direct);
    prec_description = inverse->describe() + "\n";
  } else {
    T = make_preconditioner(p, prec, args, &prec_description, &prec_json);
  }
  const double prec_setup = seconds_since(t_setup);
  const Operator& op = shift_invert ? *inverse : *p.op;

  Progress progress{args.quiet || args.json, {}};
  Sprocket::LobpcgOptions options;
  options.nev = k;
  options.which = args.which == "largest" || shift_invert ? Sprocket::Which::largest : Sprocket::Which::smallest;
  options.tol = args.tol;
  if (args.max_iterations > 0) options.max_iterations = args.max_iterations;
  if (args.single_thread_below >= 0) options.single_thread_below = args.single_thread_below;
  options.on_iteration = progress.callback("lobpcg");
  if (!args.json && shift_invert) {
    std::printf("\nLOBPCG, shift-invert: the %d eigenpairs nearest sigma = %g from above, as the largest mu of "
                "(A - sigma I)^{-1} (lambda = sigma + 1 / mu), tol %.1e\n",
                k, sigma, args.tol);
    std::printf("operator (A - sigma I)^{-1}: %s", prec_description.c_str());
  } else if (!args.json) {
    std::printf("\nLOBPCG: the %d %s eigenpairs, tol %.1e\n", k, args.which.c_str(), args.tol);
    std::printf("preconditioner: %s", prec_description.c_str());
  }
  MultiVector X("X", n, k);  // zero: the solver draws a random initial block
  const auto t0 = Clock::now();
  const Sprocket::LobpcgResult result = Sprocket::lobpcg<double, Device>(op, X, options, T.get());
  // The eigenvalues of A: with shift-invert, mu of (A - sigma I)^{-1} is 1 / (lambda - sigma) for
  // the same eigenvector. The residuals below are A's, recomputed from these vectors.
  std::vector<double> eigenvalues = result.eigenvalues;
  if (shift_invert) {
    for (double& v : eigenvalues) v = sigma + 1.0 / v;
    // LOBPCG's residual on the inverse leaves components of size tol along the eigenvectors far
    // from sigma, which A multiplies by up to ||A|| / |lambda| (bcsstk13: residuals on A of 1e-3
    // after 1e-8 on the inverse). One more application of the inverse damps each by
    // |lambda - sigma| / |lambda_far - sigma| (the "purification" of shift-invert eigensolvers);
    // the eigenvalues, accurate to the square of the vectors' error, stay sigma + 1 / mu.
    MultiVector Z("Z", n, k);
    inverse->apply(X, Z);
    Kokkos::deep_copy(X, Z);
  }
  const double solve_seconds = seconds_since(t0);

  // Independent check with the reference SpMV: ||A x - lambda x|| / (max(|lambda|, floor) ||x||).
  // The floor, sqrt(eps) ||A||_2 (||A||_2 by 40 reference power iterations, not the solver's
  // estimate), is the solver's own: an eigenvalue that small next to ||A|| is numerically zero,
  // and the residual of an exact eigenvector computed in double is already about eps ||A|| ||x||
  // (for bcsstk16's eigenvalue 1.0 next to ||A|| = 4.9e9, 1e-7 relative to |lambda| however
  // accurate the pair).
  const auto x = to_host_columns(X);
  const double floor =
      std::sqrt(std::numeric_limits<double>::epsilon()) * Sprocket::reference::norm2_estimate(p.host, 40);
  std::vector<double> residuals;
  bool finite = true;
  for (size_t j = 0; j < eigenvalues.size() && j < x.size(); ++j) {
    std::vector<double> r(n, 0.0);
    Sprocket::reference::spmv("N", 1.0, p.host, x[j], 0.0, r);
    const double lambda = eigenvalues[j];
    for (int64_t i = 0; i < n; ++i) r[i] -= lambda * x[j][i];
    const double scale = std::max(std::abs(lambda), floor) * norm2(x[j]);
    residuals.push_back(scale > 0 ? norm2(r) / scale : norm2(r));
    finite = finite && std::isfinite(residuals.back()) && std::isfinite(lambda);
  }
  const double worst = residuals.empty() ? INFINITY : *std::max_element(residuals.begin(), residuals.end());
  const bool converged = result.status == Sprocket::SolverStatus::converged && finite &&
                         int(residuals.size()) == k && worst <= 10 * args.tol;

  if (!args.json) {
    std::printf("summary: %s after %d iterations, %d restart(s) dropping P (%s)\n",
                Sprocket::to_string(result.status), result.iterations, result.restarts, result.message.c_str());
    // Shift-invert: the factorization is the setup of the operator LOBPCG applies.
    std::printf("  time: setup %.3f s (operator %.3f + %s %.3f), solve %.3f s = operator %.3f + "
                "preconditioner %.3f + orthogonalization/Rayleigh-Ritz %.3f + other %.3f\n",
                p.setup_seconds + prec_setup, p.setup_seconds, shift_invert ? "factorization" : "preconditioner",
                prec_setup, solve_seconds,
                result.timings.operator_apply, result.timings.preconditioner, result.timings.orthogonalization,
                std::max(0.0, solve_seconds - result.timings.operator_apply - result.timings.preconditioner -
                                  result.timings.orthogonalization));
    if (result.single_thread)
      std::printf("  on the calling thread alone (rows x block < single_thread_below = %lld)\n",
                  static_cast<long long>(options.single_thread_below));
    std::printf("  %-4s %22s %28s\n", "pair", "eigenvalue", "||Ax - lx|| / (|l|* ||x||)");
    for (size_t j = 0; j < residuals.size(); ++j)
      std::printf("  %-4zu %22.15g %28.2e\n", j, eigenvalues[j], residuals[j]);
    std::printf("  (residuals recomputed by the reference SpMV; |l|* = max(|l|, sqrt(eps) ||A||_2) = max(|l|, %.3g))\n  %s\n",
                floor,
                converged ? "CONVERGED: every pair meets the tolerance" : "NOT CONVERGED: see the status above");
  }
  if (!args.history.empty()) {
    const std::string csv = plot_path(args.history, "lobpcg", args.solver.empty());
    write_history_csv(csv, "lobpcg", result.history);
    if (!args.plot.empty())
      plot_history(csv, plot_path(args.plot, "lobpcg", args.solver.empty()),
                   "LOBPCG on " + p.name + " (" + std::to_string(k) + " " +
                       (shift_invert ? "nearest sigma = " + json_number(sigma) + ", shift-invert by " + prec
                                     : args.which + ", prec " + prec) +
                       ")",
                   k);
  }

  std::ostringstream js;
  js << "{\"solver\":\"lobpcg\",\"matrix\":" << json_string(p.name) << ",\"rows\":" << n
     << ",\"nnz\":" << p.host.nnz() << ",\"nev\":" << k << ",\"which\":\""
     << (shift_invert ? "nearest_above_shift" : args.which) << "\",\"prec\":" << json_string(prec);
  if (shift_invert) js << ",\"shift_invert\":" << json_number(sigma);
  else if (prec == "cholesky" || prec == "lu") js << ",\"shift\":" << json_number(args.shift);
  js << prec_json << ",\"converged\":" << (converged ? "true" : "false")
     << ",\"status\":\"" << Sprocket::to_string(result.status) << "\",\"iterations\":" << result.iterations
     << ",\"seconds\":" << json_number(solve_seconds) << ",\"setup_seconds\":"
     << json_number(p.setup_seconds + prec_setup) << ",\"operator_setup_seconds\":" << json_number(p.setup_seconds)
     << ",\"preconditioner_setup_seconds\":" << json_number(prec_setup) << ",\"operator_seconds\":"
     << json_number(result.timings.operator_apply) << ",\"orthogonalization_seconds\":"
     << json_number(result.timings.orthogonalization) << ",\"eigenvalues\":" << json_array(eigenvalues)
     << ",\"residuals\":" << json_array(residuals) << "}";
  return {js.str(), converged};
}

int run(const Args& args) {
  Problem p;
  p.name = args.matrix;
  const auto t_load = Clock::now();
  p.host = Sprocket::load_matrix(args.matrix);
  const double load_seconds = seconds_since(t_load);
  p.A = Sprocket::to_crs<Matrix>(p.host);
  const auto t_op = Clock::now();
  if (args.op == "spmm")
    p.op = Sprocket::make_operator(Sprocket::SpmmPlan<Matrix>(p.A));
  else
    p.op = Sprocket::make_operator(Sprocket::SpmvPlan<Matrix>(p.A));
  p.setup_seconds = seconds_since(t_op);

  if (!args.json) {
    std::printf("sprocket-solve on %s (%d threads)\n", Kokkos::DefaultExecutionSpace::name(),
                Kokkos::DefaultExecutionSpace().concurrency());
    std::printf("matrix %s: %lld x %lld, %lld nonzeros (loaded in %.2f s)\n", p.name.c_str(),
                static_cast<long long>(p.host.num_rows), static_cast<long long>(p.host.num_cols),
                static_cast<long long>(p.host.nnz()), load_seconds);
    std::printf("operator (analysis %.3f s):\n%s", p.setup_seconds, p.op->describe().c_str());
  }

  std::vector<RunSummary> runs;
  if (args.solver.empty() || args.solver == "bgmres")
    runs.push_back(run_bgmres(args, p, args.prec.empty() ? "cheby" : args.prec));
  if (args.solver.empty() || args.solver == "lobpcg")
    runs.push_back(run_lobpcg(args, p,
                              !args.prec.empty()          ? args.prec
                              : args.shift_invert_given   ? "cholesky"
                              : args.solver.empty()       ? "ic"
                                                          : "none"));

  bool all_converged = true;
  for (const auto& r : runs) all_converged = all_converged && r.converged;
  if (args.json) {
    // One JSON object per solver run; the last line is the last run's object.
    for (const auto& r : runs) std::printf("%s\n", r.json.c_str());
  }
  return all_converged ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  // --help before Kokkos::initialize, which would print its own help for --help too.
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(Sprocket::tools::solve_help_text(), stdout);
      return 0;
    }
  Kokkos::initialize(argc, argv);
  int rc = 0;
  try {
    rc = run(parse_solve_args(argc, argv));
  } catch (const Sprocket::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    rc = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sprocket-solve: %s\n", e.what());
    rc = 1;
  }
  Kokkos::finalize();
  return rc;
}
