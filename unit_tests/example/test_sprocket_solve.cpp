// sprocket-solve (example/sprocket_solve.cpp) as a user runs it: the contract of the issue's
// command line and of its --json line (`solver`, `matrix`, `converged`, `iterations`, `seconds`,
// `residuals`, `eigenvalues`), the exit status (0 only when everything converged, 2 on bad
// input), on generated matrices whose answers are known in closed form:
//  - block GMRES on a 2-D Poisson matrix with B = A * (known X): every column's recomputed
//    relative residual within tol;
//  - LOBPCG, smallest with incomplete Cholesky and largest with none: the eigenvalues of the
//    5-point Laplacian, 4 - 2 cos(pi i / (n + 1)) - 2 cos(pi j / (n + 1));
//  - an iteration budget too small: converged false, exit status 3;
//  - bad flags: exit status 2 and a message naming the flag.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

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
    const std::vector<double> eigenvalues = json_numbers(json_field(json, "eigenvalues"));
    const std::vector<double> residuals = json_numbers(json_field(json, "residuals"));
    ASSERT_EQ(eigenvalues.size(), c.expected.size()) << json;
    ASSERT_EQ(residuals.size(), c.expected.size()) << json;
    for (size_t j = 0; j < c.expected.size(); ++j) {
      EXPECT_NEAR(eigenvalues[j], c.expected[j], 1e-9 * c.expected[j]) << c.args << ", pair " << j;
      EXPECT_LE(residuals[j], 1e-8) << c.args << ", pair " << j;
    }
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
      {"--prec ilu", "--prec must be none, jacobi, bjacobi, cheby, ic, ilu0, iluk or ilut"},
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
