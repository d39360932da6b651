// sprocket-solve (example/sprocket_solve.cpp) as a user runs it: the contract of the issue's
// command line and of its --json line (`solver`, `matrix`, `converged`, `iterations`, `seconds`,
// `residuals`, `eigenvalues`), the exit status (0 only when everything converged, 2 on bad
// input), on generated matrices whose answers are known in closed form:
//  - block GMRES on a 2-D Poisson matrix with B = A * (known X): every column's recomputed
//    relative residual within tol;
//  - LOBPCG, smallest with incomplete Cholesky and largest with none: the eigenvalues of the
//    5-point Laplacian, 4 - 2 cos(pi i / (n + 1)) - 2 cos(pi j / (n + 1));
//  - the direct factorizations: block GMRES with --prec cholesky|lu converges at once; LOBPCG
//    with --prec cholesky|lu (and --shift) and in shift-invert mode (--shift-invert sigma, below
//    and inside the spectrum) on a 3-D Poisson matrix against 6 - 2 cos(pi i / (n + 1)) -
//    2 cos(pi j / (n + 1)) - 2 cos(pi k / (n + 1)); Cholesky refuses sigma inside the spectrum;
//  - shared matrices (bcsstk13, condition 1e10, and 1138_bus): --shift-invert 0 matches SciPy's
//    eigsh (unit_tests/solvers/lobpcg_reference.py) to 1e-8;
//  - an iteration budget too small: converged false, exit status 3;
//  - bad flags: exit status 2 and a message naming the flag.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "solvers/lobpcg_reference.hpp"

namespace {

struct Output {
  std::string text;  // stdout and stderr
  int status = -1;   // exit status
};

Output run_solve(const std::string& args) {
  const std::string command = std::string(SPROCKET_SOLVE_BINARY) + " " + args + " 2>&1";
  Output out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  while (fgets(buffer, sizeof buffer, pipe)) out.text += buffer;
  const int status = pclose(pipe);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

/// The raw text of "key": value in a flat JSON object (value up to the next top-level comma).
std::string json_field(const std::string& json, const std::string& key) {
  const std::string tag = "\"" + key + "\":";
  const size_t at = json.find(tag);
  if (at == std::string::npos) return "";
  size_t end = at + tag.size();
  int depth = 0;
  bool in_string = false;
  for (; end < json.size(); ++end) {
    const char c = json[end];
    if (c == '"') in_string = !in_string;
    if (in_string) continue;
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) break;
  }
  return json.substr(at + tag.size(), end - at - tag.size());
}

std::vector<double> json_numbers(const std::string& array) {
  std::vector<double> v;
  std::string s = array;
  std::replace(s.begin(), s.end(), '[', ' ');
  std::replace(s.begin(), s.end(), ']', ' ');
  std::replace(s.begin(), s.end(), ',', ' ');
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t start = s.find_first_not_of(' ', pos);
    if (start == std::string::npos) break;
    size_t used = 0;
    v.push_back(std::stod(s.substr(start), &used));
    pos = start + used;
  }
  return v;
}

/// The JSON's eigenvalues match `expected` to `relative` and every residual is at most
/// `residual_tol` (label: what the failure messages name).
void expect_eigenpairs(const std::string& json, const std::vector<double>& expected, double relative,
                       double residual_tol, const std::string& label) {
  const std::vector<double> eigenvalues = json_numbers(json_field(json, "eigenvalues"));
  const std::vector<double> residuals = json_numbers(json_field(json, "residuals"));
  ASSERT_EQ(eigenvalues.size(), expected.size()) << json;
  ASSERT_EQ(residuals.size(), expected.size()) << json;
  for (size_t j = 0; j < expected.size(); ++j) {
    EXPECT_NEAR(eigenvalues[j], expected[j], relative * expected[j]) << label << ", pair " << j;
    EXPECT_LE(residuals[j], residual_tol) << label << ", pair " << j;
  }
}

/// Eigenvalues of the 5-point Laplacian on an n x n grid, ascending.
std::vector<double> laplacian_eigenvalues(int n) {
  const double pi = std::acos(-1.0);
  std::vector<double> all;
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j) all.push_back(4 - 2 * std::cos(pi * i / (n + 1)) - 2 * std::cos(pi * j / (n + 1)));
  std::sort(all.begin(), all.end());
  return all;
}

TEST(SprocketSolve, BlockGmresJson) {
  const Output out = run_solve("--matrix gen:poisson2d:n=20 --solver bgmres --block 3 --prec jacobi --tol 1e-9 --json");
  ASSERT_EQ(out.status, 0) << out.text;
  const std::string json = last_line(out.text);
  EXPECT_EQ(json_field(json, "solver"), "\"bgmres\"") << json;
  EXPECT_EQ(json_field(json, "matrix"), "\"gen:poisson2d:n=20\"") << json;
  EXPECT_EQ(json_field(json, "converged"), "true") << json;
  EXPECT_GT(std::stoi(json_field(json, "iterations")), 0) << json;
  EXPECT_GE(std::stod(json_field(json, "seconds")), 0.0) << json;
  const std::vector<double> residuals = json_numbers(json_field(json, "residuals"));
  ASSERT_EQ(residuals.size(), 3u) << json;
  for (double r : residuals) EXPECT_LE(r, 1e-9) << json;
}

// ILU(1) with the row matching forced and RCM through the command line: converges, says so.
TEST(SprocketSolve, BlockGmresWithIlu) {
  const std::string args =
      "--matrix gen:poisson2d:n=20 --solver bgmres --block 2 --prec iluk --ilu-level 1 --ilu-matching on --reorder rcm "
      "--tol 1e-9";
  const Output out = run_solve(args + " --json");
  ASSERT_EQ(out.status, 0) << out.text;
  const std::string json = last_line(out.text);
  EXPECT_EQ(json_field(json, "prec"), "\"iluk\"") << json;
  EXPECT_EQ(json_field(json, "converged"), "true") << json;
  for (double r : json_numbers(json_field(json, "residuals"))) EXPECT_LE(r, 1e-9) << json;
  const double op_setup = std::stod(json_field(json, "operator_setup_seconds"));
  const double prec_setup = std::stod(json_field(json, "preconditioner_setup_seconds"));
  EXPECT_GE(op_setup, 0.0) << json;
  EXPECT_GT(prec_setup, 0.0) << json;
  EXPECT_NEAR(std::stod(json_field(json, "setup_seconds")), op_setup + prec_setup, 1e-6) << json;
  const Output text = run_solve(args);
  ASSERT_EQ(text.status, 0) << text.text;
  EXPECT_NE(text.text.find("ILU(1), rows matched"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("reverse Cuthill-McKee"), std::string::npos) << text.text;
}

TEST(SprocketSolve, LobpcgJsonMatchesTheLaplacianSpectrum) {
  const int n = 20;
  const std::vector<double> all = laplacian_eigenvalues(n);
  struct Case {
    const char* args;
    std::vector<double> expected;
  };
  const std::vector<Case> cases = {
      {"--which smallest --nev 4 --prec ic", {all[0], all[1], all[2], all[3]}},
      {"--which smallest --nev 4 --prec ic --ic-drop 0 --reorder amd", {all[0], all[1], all[2], all[3]}},
      {"--which largest --nev 3 --prec none", {all[all.size() - 1], all[all.size() - 2], all[all.size() - 3]}},
  };
  for (const Case& c : cases) {
    const Output out = run_solve(std::string("--matrix gen:poisson2d:n=20 --solver lobpcg --tol 1e-9 --json ") + c.args);
    ASSERT_EQ(out.status, 0) << c.args << "\n" << out.text;
    const std::string json = last_line(out.text);
    EXPECT_EQ(json_field(json, "solver"), "\"lobpcg\"") << json;
    EXPECT_EQ(json_field(json, "converged"), "true") << json;
    expect_eigenpairs(json, c.expected, 1e-9, 1e-8, c.args);
  }
}

/// Eigenvalues of the 7-point Laplacian on an n x n x n grid, ascending.
std::vector<double> laplacian3d_eigenvalues(int n) {
  const double pi = std::acos(-1.0);
  std::vector<double> all;
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      for (int k = 1; k <= n; ++k)
        all.push_back(6 - 2 * std::cos(pi * i / (n + 1)) - 2 * std::cos(pi * j / (n + 1)) -
                      2 * std::cos(pi * k / (n + 1)));
  std::sort(all.begin(), all.end());
  return all;
}

// The factorizations are exact: block GMRES needs one block iteration (two at most, for the
// rounding).
TEST(SprocketSolve, BlockGmresWithDirectFactorizations) {
  for (const char* prec : {"cholesky", "lu"}) {
    const Output out = run_solve(std::string("--matrix gen:poisson2d:n=20 --solver bgmres --block 2 --tol 1e-10 --json "
                                             "--prec ") + prec);
    ASSERT_EQ(out.status, 0) << prec << "\n" << out.text;
    const std::string json = last_line(out.text);
    EXPECT_EQ(json_field(json, "prec"), std::string("\"") + prec + "\"") << json;
    EXPECT_EQ(json_field(json, "shift"), "0") << json;
    EXPECT_LE(std::stoi(json_field(json, "iterations")), 2) << json;
    for (double r : json_numbers(json_field(json, "residuals"))) EXPECT_LE(r, 1e-10) << json;
  }
}

// LOBPCG preconditioned by the factorizations, and shift-invert on them, against the closed form.
TEST(SprocketSolve, LobpcgWithDirectFactorizationsMatchesThePoissonSpectrum) {
  const int n = 6;
  const std::vector<double> all = laplacian3d_eigenvalues(n);
  std::vector<double> distinct = all;
  distinct.erase(std::unique(distinct.begin(), distinct.end(),
                             [](double a, double b) { return std::fabs(a - b) < 1e-12; }),
                 distinct.end());
  // Inside the spectrum, halfway between two distinct eigenvalues: the 3 above it.
  const double sigma = (distinct[3] + distinct[4]) / 2;
  const auto above = std::upper_bound(all.begin(), all.end(), sigma);
  const std::vector<double> nearest_above(above, above + 3);
  std::ostringstream sigma_text;
  sigma_text.precision(17);
  sigma_text << sigma;
  struct Case {
    std::string args;
    std::vector<double> expected;
    const char* key;  // the JSON key with the shift
    double shift;
  };
  const std::vector<double> smallest(all.begin(), all.begin() + 4);
  const std::vector<Case> cases = {
      {"--nev 4 --prec cholesky", smallest, "shift", 0.0},
      {"--nev 4 --prec cholesky --shift -0.5", smallest, "shift", -0.5},
      {"--nev 4 --prec lu", smallest, "shift", 0.0},
      {"--nev 4 --shift-invert 0", smallest, "shift_invert", 0.0},
      {"--nev 4 --shift-invert 0 --prec lu", smallest, "shift_invert", 0.0},
      {"--nev 3 --prec lu --shift-invert " + sigma_text.str(), nearest_above, "shift_invert", sigma},
  };
  for (const Case& c : cases) {
    const Output out =
        run_solve("--matrix gen:poisson3d:n=" + std::to_string(n) + " --solver lobpcg --tol 1e-9 --json " + c.args);
    ASSERT_EQ(out.status, 0) << c.args << "\n" << out.text;
    const std::string json = last_line(out.text);
    EXPECT_EQ(json_field(json, "converged"), "true") << json;
    EXPECT_NEAR(std::stod(json_field(json, c.key)), c.shift, 1e-15) << json;
    expect_eigenpairs(json, c.expected, 1e-9, 1e-8, c.args);
  }
  // The text names the operator and the transformation.
  const Output text = run_solve("--matrix gen:poisson3d:n=6 --solver lobpcg --nev 2 --shift-invert 0");
  ASSERT_EQ(text.status, 0) << text.text;
  EXPECT_NE(text.text.find("shift-invert"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("CHOLMOD"), std::string::npos) << text.text;
  // Cholesky cannot factor A - sigma I with sigma inside the spectrum; the message says so.
  const Output inside =
      run_solve("--matrix gen:poisson3d:n=6 --solver lobpcg --nev 2 --shift-invert " + sigma_text.str());
  EXPECT_EQ(inside.status, 2) << inside.text;
  EXPECT_NE(inside.text.find("is not positive definite"), std::string::npos) << inside.text;
}

// Shift-invert about 0 with CHOLMOD on the hardest shared SPD matrix (bcsstk13, condition 1e10,
// where LOBPCG with incomplete Cholesky needs about 100 iterations) and on 1138_bus: the 5
// smallest eigenvalues agree with eigsh to 1e-8, the residuals on A meet the tolerance.
TEST(SprocketSolve, SharedShiftInvertMatchesEigsh) {
  if (!std::filesystem::is_directory(SPROCKET_SHARED_MATRICES)) {
    if (std::getenv("SPROCKET_ALLOW_MISSING_SHARED") != nullptr)
      GTEST_SKIP() << SPROCKET_SHARED_MATRICES << " is missing (allowed by SPROCKET_ALLOW_MISSING_SHARED)";
    FAIL() << "shared matrix folder " << SPROCKET_SHARED_MATRICES << " is missing";
  }
  const std::vector<std::string> names{"bcsstk13", "1138_bus"};
  const Sprocket::test::EigshReference reference = Sprocket::test::eigsh_reference(names, 5);
  ASSERT_TRUE(reference.error.empty()) << reference.error;
  for (const auto& name : names) {
    const Output out = run_solve(std::string("--matrix " SPROCKET_SHARED_MATRICES "/") + name +
                                 ".mtx.gz --solver lobpcg --nev 5 --shift-invert 0 --tol 1e-8 --json");
    ASSERT_EQ(out.status, 0) << name << "\n" << out.text;
    const std::string json = last_line(out.text);
    EXPECT_EQ(json_field(json, "which"), "\"nearest_above_shift\"") << json;
    EXPECT_EQ(json_field(json, "shift_invert"), "0") << json;
    expect_eigenpairs(json, reference.values.at(name).at("smallest"), 1e-8, 1e-7, name);
  }
}

TEST(SprocketSolve, TooFewIterationsIsNotConverged) {
  const Output out =
      run_solve("--matrix gen:poisson2d:n=30 --solver lobpcg --nev 4 --max-iterations 2 --tol 1e-10 --json");
  EXPECT_EQ(out.status, 3) << out.text;
  const std::string json = last_line(out.text);
  EXPECT_EQ(json_field(json, "converged"), "false") << json;
  EXPECT_EQ(json_field(json, "iterations"), "2") << json;
}

TEST(SprocketSolve, BadFlagsExitWithStatus2) {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"--solver cg", "--solver must be bgmres or lobpcg"},
      {"--prec ilu", "--prec must be none, jacobi, bjacobi, cheby, ic, ilu0, iluk, ilut, cholesky, lu"},
      {"--prec ic --shift 1", "--shift applies to --prec cholesky or lu"},
      {"--prec cholesky --shift nan", "--shift and --shift-invert must be finite"},
      {"--shift-invert 0", "--shift-invert needs --solver lobpcg"},
      {"--solver lobpcg --shift-invert 0 --prec ic", "--shift-invert factors A - sigma I with --prec cholesky or lu"},
      {"--solver lobpcg --shift-invert 0 --which largest", "--which does not apply to --shift-invert"},
      {"--solver lobpcg --shift-invert 0 --prec lu --shift 1", "--shift applies to --prec cholesky or lu"},
      {"--prec iluk --ilu-level -1", "--ilu-level must be >= 0"},
      {"--prec ilu0 --ilu-matching maybe", "--ilu-matching must be auto, on or off"},
      {"--prec ilu0 --reorder nd", "--reorder must be none, rcm or amd"},
      {"--prec ilut --ilut-pivot 2", "--ilut-pivot must be in [0, 1]"},
      {"--prec ilut --ilut-fill 0", "--ilut-fill must be > 0"},
      {"--solver lobpcg --nev 0", "--nev must be >= 1"},
      {"--ic-drop -1", "--ic-drop must be >= 0"},
      {"--matrix gen:poisson2d:n=5 --solver lobpcg --nev 2 --prec ic --which middle", "--which must be smallest or largest"},
  };
  for (const auto& c : cases) {
    const Output out = run_solve(c.args);
    EXPECT_EQ(out.status, 2) << c.args << "\n" << out.text;
    EXPECT_NE(out.text.find(c.message), std::string::npos) << c.args << "\n" << out.text;
  }
}

}  // namespace
