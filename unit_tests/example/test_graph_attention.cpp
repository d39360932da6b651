// sprocket-graph-attention (example/graph_attention.cpp), the SDDMM user story, as a user runs it:
//  - on a generated R-MAT graph (nodes without edges, rows of very different lengths) at a small
//    head dimension, and on a banded graph whose column reuse makes the host SpMM plan pick aspt
//    at K = 40 (SDDMM output in S's order, SpMM on its reordered copy refreshed by update_values):
//    exit status 0, the --json line's check passed with every stage's error near rounding, a time
//    for every stage;
//  - the same seed gives the same output, another seed another one;
//  - the report names every stage and ends in PASS;
//  - the default graph (a shared matrix) runs out of the box;
//  - bad input: exit status 2 and a message that says what is wrong (a non-square matrix explained);
//    --help: the usage, exit status 0.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

struct Output {
  std::string text;  // stdout and stderr
  int status = -1;   // exit status
};

Output run_example(const std::string& args) {
  const std::string command = std::string(SPROCKET_GRAPH_ATTENTION_BINARY) + " " + args + " 2>&1";
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

/// The raw text of "key": value in a flat JSON object (the example's line has no nesting).
std::string json_field(const std::string& json, const std::string& key) {
  const std::string tag = "\"" + key + "\":";
  const size_t at = json.find(tag);
  if (at == std::string::npos) return "";
  const size_t start = at + tag.size();
  const size_t end = json.find_first_of(",}", json[start] == '"' ? json.find('"', start + 1) : start);
  return json.substr(start, end - start);
}

double json_double(const std::string& json, const std::string& key) {
  const std::string v = json_field(json, key);
  return v.empty() || v == "null" ? NAN : std::stod(v);
}

constexpr const char* rmat = "--matrix gen:rmat:scale=10,ef=8 --features 16 --repeat 2 --json";
constexpr const char* banded = "--matrix gen:banded:n=1024,bw=16,fill=0.6 --features 16 --repeat 2 --json";

void expect_passing_run(const std::string& args, int64_t heads_dim) {
  const Output out = run_example(args);
  ASSERT_EQ(out.status, 0) << args << "\n" << out.text;
  const std::string json = last_line(out.text);
  EXPECT_EQ(json_field(json, "pass"), "true") << json;
  EXPECT_EQ(json_field(json, "heads_dim"), std::to_string(heads_dim)) << json;
  EXPECT_EQ(json_field(json, "rows"), "1024") << json;
  EXPECT_GT(std::stoll(json_field(json, "nnz")), 1000) << json;
  // Both sides compute in double: the differences are rounding, far below the tolerance.
  for (const char* error : {"error_scores", "error_weights", "error_output"})
    EXPECT_LE(json_double(json, error), 1e-13) << error << ": " << json;
  for (const char* stage : {"analysis_seconds", "projection_seconds", "sddmm_seconds", "softmax_seconds",
                            "update_values_seconds", "spmm_seconds"})
    EXPECT_GE(json_double(json, stage), 0.0) << stage << ": " << json;  // NaN (missing) fails too
  const std::string sddmm_kernel = json_field(json, "sddmm_kernel");
  EXPECT_TRUE(sddmm_kernel == "\"nonzero_tiles\"" || sddmm_kernel == "\"aspt\"") << json;
  const std::string spmm_kernel = json_field(json, "spmm_kernel");
  EXPECT_TRUE(spmm_kernel == "\"csr_rows\"" || spmm_kernel == "\"aspt\"") << json;
}

TEST(GraphAttention, GeneratedGraphsPass) {
  expect_passing_run(std::string(rmat) + " --heads-dim 8", 8);
  expect_passing_run(std::string(banded) + " --heads-dim 40", 40);
}

TEST(GraphAttention, SeedMakesTheRunReproducible) {
  const std::string a = last_line(run_example(std::string(rmat) + " --seed 5").text);
  const std::string b = last_line(run_example(std::string(rmat) + " --seed 5").text);
  const std::string c = last_line(run_example(std::string(rmat) + " --seed 6").text);
  const double ca = json_double(a, "checksum"), cb = json_double(b, "checksum"), cc = json_double(c, "checksum");
  ASSERT_TRUE(std::isfinite(ca) && std::isfinite(cb) && std::isfinite(cc)) << a << "\n" << b << "\n" << c;
  EXPECT_NEAR(ca, cb, 1e-12 * std::fabs(ca)) << a << "\n" << b;
  EXPECT_GT(std::fabs(ca - cc), 1e-6 * std::fabs(ca)) << a << "\n" << c;
}

TEST(GraphAttention, ReportNamesEveryStageAndPasses) {
  const Output out = run_example("--matrix gen:poisson2d:n=20 --features 8 --heads-dim 16 --repeat 1");
  ASSERT_EQ(out.status, 0) << out.text;
  for (const char* text : {"SpmmPlan<double>", "SddmmPlan<double>", "shared with an SpmmPlan", "SDDMM at K = 16 runs",
                           "analysis", "SDDMM ", "softmax", "update_values", "SpMM ", "median of 1 run"})
    EXPECT_NE(out.text.find(text), std::string::npos) << text << "\n" << out.text;
  EXPECT_EQ(last_line(out.text), "PASS") << out.text;
}

// The default graph is a shared matrix; its folder may be missing only where
// SPROCKET_ALLOW_MISSING_SHARED says so (then the test is skipped).
TEST(GraphAttention, SharedDefaultGraphRunsOutOfTheBox) {
  if (!std::filesystem::is_directory(SPROCKET_SHARED_MATRICES)) {
    if (std::getenv("SPROCKET_ALLOW_MISSING_SHARED") != nullptr)
      GTEST_SKIP() << SPROCKET_SHARED_MATRICES << " is missing (allowed by SPROCKET_ALLOW_MISSING_SHARED)";
    FAIL() << "shared matrix folder " << SPROCKET_SHARED_MATRICES << " is missing";
  }
  const Output out = run_example("--features 16 --repeat 1 --json");
  ASSERT_EQ(out.status, 0) << out.text;
  const std::string json = last_line(out.text);
  EXPECT_NE(json_field(json, "matrix").find("rajat01"), std::string::npos) << json;
  EXPECT_EQ(json_field(json, "rows"), "6833") << json;
  EXPECT_EQ(json_field(json, "heads_dim"), "64") << json;
  EXPECT_EQ(json_field(json, "pass"), "true") << json;
}

TEST(GraphAttention, BadInputExitsWithStatus2) {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"--matrix gen:uniform:n=50,cols=40,avg=3", "is 50 x 40; graph attention needs a square adjacency matrix"},
      {"--matrix /nonexistent/graph.mtx", "/nonexistent/graph.mtx"},
      {"--matrix gen:nosuch:n=3", "nosuch"},
      {"--heads-dim 0", "--heads-dim must be in [1, 65536], got 0"},
      {"--features x", "--features needs an integer, got \"x\""},
      {"--repeat 0", "--repeat must be in [1, 100000], got 0"},
      {"--seed", "--seed needs a value"},
      {"--heads", "unknown argument \"--heads\""},
  };
  for (const auto& c : cases) {
    const Output out = run_example(c.args);
    EXPECT_EQ(out.status, 2) << c.args << "\n" << out.text;
    EXPECT_NE(out.text.find(c.message), std::string::npos) << c.args << "\n" << out.text;
  }
}

TEST(GraphAttention, HelpPrintsTheUsage) {
  const Output out = run_example("--help");
  EXPECT_EQ(out.status, 0) << out.text;
  for (const char* flag : {"--matrix", "--features", "--heads-dim", "--repeat", "--seed", "--json"})
    EXPECT_NE(out.text.find(flag), std::string::npos) << flag << "\n" << out.text;
}

}  // namespace
