// sprocket-cuda-profile (perf_tests/sprocket_cuda_profile.cpp) as a user runs it: the JSON line's
// contract (docs/cuda-profile.md), what it must show of today's kernels (a row long enough to be
// split gives SpMV its split launches and a busiest warp far above the mean; SpMM's LayoutLeft B
// takes several times the sectors per request of LayoutRight), --validate on a small recorded file
// (one line per case, held-out cases marked, a summary), and the exit status on bad usage (2, with
// a message naming the problem). Counts of hand-made kernels are checked exactly in
// unit_tests/cuda_emulation/test_cuda_access_profile.cpp; here the tool's plumbing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sprocket_test_utils.hpp"
#include "tool_test_utils.hpp"

namespace {

using Output = Sprocket::test::ToolOutput;

Output run_profile(const std::string& args) { return Sprocket::test::run_tool(SPROCKET_CUDA_PROFILE_BINARY, args); }

/// The JSON lines of stdout (Kokkos' warnings go to stderr).
std::vector<std::string> json_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  std::string l;
  while (std::getline(in, l))
    if (!l.empty() && l.front() == '{') lines.push_back(l);
  return lines;
}

/// A top-level number of a JSON line (the first occurrence of the key).
double number(const std::string& line, const std::string& key) {
  const std::regex re("\"" + key + "\":(-?[0-9.eE+-]+)");
  std::smatch m;
  if (!std::regex_search(line, m, re)) return -1;
  return std::stod(m[1].str());
}

bool has_key(const std::string& line, const std::string& key) {
  return line.find("\"" + key + "\":") != std::string::npos;
}

/// A string member of a JSON line ("" when absent).
std::string text(const std::string& line, const std::string& key) {
  const std::regex re("\"" + key + "\":\"([^\"]*)\"");
  std::smatch m;
  return std::regex_search(line, m, re) ? m[1].str() : std::string();
}

/// A Matrix Market file: `rows` x `rows`, row 0 full (longer than SpMV's CUDA split threshold of
/// 2^14 entries), row 1 with 12000 entries (below it: one warp walks it), the other rows 1..8
/// random entries; returns its path.
std::string long_row_matrix(int64_t rows, uint64_t salt) {
  std::mt19937_64 rng(Sprocket::test::seed_for(salt));
  char path[] = "/tmp/test_sprocket_cuda_profile_matrix_XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  std::vector<std::pair<int64_t, int64_t>> entries;
  for (int64_t j = 0; j < rows; ++j) entries.emplace_back(0, j);
  for (int64_t j = 0; j < 12000; ++j) entries.emplace_back(1, j);
  for (int64_t i = 2; i < rows; ++i) {
    const int64_t len = 1 + static_cast<int64_t>(rng() % 8);
    for (int64_t k = 0; k < len; ++k) entries.emplace_back(i, static_cast<int64_t>(rng() % rows));
  }
  std::ofstream f(path);
  f << "%%MatrixMarket matrix coordinate real general\n" << rows << " " << rows << " " << entries.size() << "\n";
  for (const auto& [i, j] : entries) f << i + 1 << " " << j + 1 << " 1.5\n";
  return path;
}

TEST(SprocketCudaProfile, JsonLineHasTheContractKeys) {
  const Output o = run_profile("--kernel spmv --matrix gen:poisson3d:n=10 --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto lines = json_lines(o.out);
  ASSERT_EQ(lines.size(), 1u) << o.out;
  for (const char* key : {"kernel", "variant", "launches", "requests", "sectors", "sectors_per_request",
                          "load_efficiency", "bank_conflict_ways", "active_lane_fraction", "warp_requests_max",
                          "warp_requests_mean", "predicted_ms_h100", "sites", "launch_list", "chosen", "note",
                          "profiled"})
    EXPECT_TRUE(has_key(lines[0], key)) << key << " missing: " << lines[0];
  EXPECT_NE(lines[0].find("\"profiled\":true"), std::string::npos);
  EXPECT_GE(number(lines[0], "launches"), 1);
  EXPECT_GT(number(lines[0], "requests"), 0);
  EXPECT_GT(number(lines[0], "predicted_ms_h100"), 0);
  const double efficiency = number(lines[0], "load_efficiency");
  EXPECT_GT(efficiency, 0);
  EXPECT_LE(efficiency, 1);
  EXPECT_NE(lines[0].find("spmv_cuda_kernels.cuh:"), std::string::npos) << "call sites are not named";
}

// Rows of 20000 and 12000 entries among short rows. Binned (the model's bins, as before row
// blocks), row 0 is split but row 1 stays with one warp (subvector32), about 12000 / 32 rounds of
// requests while the short rows' warps make a few each: the tool must see that critical path.
// Automatic on the CUDA target is row blocks: both long rows split, every block about the same
// work, two launches.
TEST(SprocketCudaProfile, SpmvLongRowsBinnedVersusRowBlocks) {
  const std::string matrix = long_row_matrix(20000, 1);
  const Output binned = run_profile("--kernel spmv --matrix " + matrix + " --variant binned --json");
  const Output blocks = run_profile("--kernel spmv --matrix " + matrix + " --json");
  std::remove(matrix.c_str());
  ASSERT_EQ(binned.status, 0) << binned.err;
  ASSERT_EQ(blocks.status, 0) << blocks.err;
  const auto b = json_lines(binned.out), r = json_lines(blocks.out);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(b[0].find("spmv_split_scale_kernel"), std::string::npos) << b[0].substr(0, 2000);
  EXPECT_NE(b[0].find("spmv_split_chunk_kernel"), std::string::npos);
  EXPECT_GE(number(b[0], "launches"), 3);
  EXPECT_GT(number(b[0], "warp_requests_max"), 10 * number(b[0], "warp_requests_mean")) << b[0].substr(0, 800);
  EXPECT_NE(r[0].find("spmv_split_scale_kernel"), std::string::npos) << r[0].substr(0, 2000);
  EXPECT_NE(r[0].find("spmv_row_blocks_kernel"), std::string::npos);
  EXPECT_EQ(number(r[0], "launches"), 2);
  EXPECT_LE(number(r[0], "warp_requests_max"), 4 * number(r[0], "warp_requests_mean")) << r[0].substr(0, 800);
}

// On a stencil the CUDA target reads a row-pattern id per row instead of a column index per
// entry: fewer sectors than the same schedule on A's own indices, and the kernel takes its row
// straight from the thread index (no virtual-row list or bounds read).
TEST(SprocketCudaProfile, SpmvReadsTheColumnCopyOnAStencil) {
  double sectors[2] = {0, 0};
  const char* variants[2] = {"indices_off", "auto"};
  for (int v = 0; v < 2; ++v) {
    const Output o = run_profile(std::string("--kernel spmv --matrix gen:poisson3d:n=12 --variant ") + variants[v] +
                                 " --json");
    ASSERT_EQ(o.status, 0) << o.err;
    const auto lines = json_lines(o.out);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(number(lines[0], "launches"), 1);
    EXPECT_EQ(lines[0].find("spmv_slot_row"), std::string::npos) << lines[0].substr(0, 3000);
    sectors[v] = number(lines[0], "sectors");
  }
  EXPECT_LT(sectors[1], 0.85 * sectors[0]) << sectors[1] << " against " << sectors[0];
}

// aspt reads a column-major B and C with a lane per column (one sector per scalar): the tool must
// see several times LayoutRight's sectors per request. csr_rows (automatic on CUDA) works on
// row-major copies and stays within 1.25x of LayoutRight.
TEST(SprocketCudaProfile, SpmmLayoutLeftSectorsPerRequest) {
  for (const char* variant : {"aspt", "auto"}) {
    double per_request[2] = {0, 0};
    const char* layouts[2] = {"right", "left"};
    for (int l = 0; l < 2; ++l) {
      const Output o = run_profile(std::string("--kernel spmm --matrix gen:rmat:scale=10,ef=8 --k 32 --variant ") +
                                   variant + " --layout " + layouts[l] + " --json");
      ASSERT_EQ(o.status, 0) << o.err;
      const auto lines = json_lines(o.out);
      ASSERT_EQ(lines.size(), 1u);
      per_request[l] = number(lines[0], "sectors_per_request");
    }
    if (std::string(variant) == "aspt")
      EXPECT_GT(per_request[1], 2.5 * per_request[0]) << "right " << per_request[0] << ", left " << per_request[1];
    else
      EXPECT_LE(per_request[1], 1.25 * per_request[0]) << "right " << per_request[0] << ", left " << per_request[1];
  }
}

// On a matrix without split rows, row-major B and C of K = 17..32 run the portable Kokkos kernel
// on CUDA (spmm_apply's warp-rows route), which the emulation does not record: the tool names it
// as chosen, says in the note that it is not profiled, and prints no count or time as measured
// (null in JSON, none in the table). K = 16 and LayoutLeft take csr_rows' own kernel: profiled.
TEST(SprocketCudaProfile, SpmmPortableRouteIsNamedNotMeasured) {
  const std::string spmm = "--kernel spmm --matrix gen:poisson3d:n=24 --variant auto ";
  const Output o = run_profile(spmm + "--k 32 --layout right --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto lines = json_lines(o.out);
  ASSERT_EQ(lines.size(), 1u) << o.out;
  const std::string& l = lines[0];
  EXPECT_EQ(text(l, "chosen"), "portable") << l;
  EXPECT_NE(l.find("\"profiled\":false"), std::string::npos) << l;
  EXPECT_NE(text(l, "note").find("not profiled"), std::string::npos) << l;
  EXPECT_NE(text(l, "note").find("portable Kokkos kernel"), std::string::npos) << l;
  for (const char* key : {"launches", "requests", "sectors", "sectors_per_request", "load_efficiency",
                          "bank_conflict_ways", "active_lane_fraction", "warp_requests_max", "warp_requests_mean",
                          "atomics", "shared_requests", "footprint_bytes", "warp_syncs", "barriers",
                          "predicted_ms_h100"})
    EXPECT_NE(l.find(std::string("\"") + key + "\":null"), std::string::npos) << key << " is not null: " << l;
  EXPECT_NE(l.find("\"launch_list\":[]"), std::string::npos) << l;

  const Output table = run_profile(spmm + "--k 32 --layout right");
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("variant auto: portable"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("not profiled"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("0 launches"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("predicted on an H100"), std::string::npos) << table.out;

  for (const char* shape : {"--k 16 --layout right", "--k 32 --layout left"}) {
    const Output p = run_profile(spmm + shape + " --json");
    ASSERT_EQ(p.status, 0) << p.err;
    const auto profiled = json_lines(p.out);
    ASSERT_EQ(profiled.size(), 1u) << p.out;
    EXPECT_EQ(text(profiled[0], "chosen"), "csr_rows") << shape;
    EXPECT_NE(profiled[0].find("\"profiled\":true"), std::string::npos) << shape;
    EXPECT_GE(number(profiled[0], "launches"), 1) << shape;
    EXPECT_GT(number(profiled[0], "predicted_ms_h100"), 0) << shape;
  }
}

/// A temporary file, removed with the object.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& stem) {
    std::string pattern = "/tmp/test_sprocket_cuda_profile_" + stem + "_XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd >= 0) close(fd);
    path = pattern;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

/// One recorded run as sprocket-bench writes it (only the keys --validate reads).
struct RecordedRun {
  std::string kernel, matrix, variant;
  int k = 0;  // spmm: dense columns, layout right
  double seconds = 1e-5;
  std::string check = "true";  // "": no check field
  std::string impl = "sprocket";
};

void write_runs(const std::string& path, const std::vector<RecordedRun>& runs) {
  std::ofstream f(path);
  for (const RecordedRun& r : runs) {
    f << "{\"kernel\":\"" << r.kernel << "\",\"matrix\":\"" << r.matrix << "\",\"impl\":\"" << r.impl
      << "\",\"variant\":\"" << r.variant << "\"";
    if (r.k > 0) f << ",\"k\":" << r.k << ",\"layout\":\"right\"";
    f << ",\"seconds\":" << r.seconds;
    if (!r.check.empty()) f << ",\"check\":" << r.check;
    f << "}\n";
  }
}

/// Matrices for --validate, whose hash holds out gen:poisson3d:n=6 and n=8 and fits on n=5 and
/// n=7 (the tests assert both kinds are there: a change of the hash that leaves either empty fails
/// them rather than passing untested).
const std::vector<std::string> validation_matrices{"gen:poisson3d:n=5", "gen:poisson3d:n=6", "gen:poisson3d:n=7",
                                                   "gen:poisson3d:n=8"};

/// Per matrix: two SpMV variants and SpMM with K = 8 (csr_rows' own kernel): the cases of a matrix
/// span kernels and variants, all of which a held-out matrix must take out of the fit.
std::vector<RecordedRun> modeled_runs() {
  std::vector<RecordedRun> runs;
  double seconds = 1e-5;
  for (const std::string& m : validation_matrices) {
    for (const char* v : {"auto", "subvector4"}) runs.push_back(RecordedRun{"spmv", m, v, 0, seconds *= 1.3});
    runs.push_back(RecordedRun{"spmm", m, "auto", 8, seconds *= 1.3});
  }
  return runs;
}

/// What --validate --json printed: the case lines and the summary line.
struct Validation {
  Output output;
  std::vector<std::string> cases;
  std::string summary;
};
Validation validate(const std::vector<RecordedRun>& runs, const std::string& cache) {
  TempFile file("runs");
  write_runs(file.path, runs);
  Validation v;
  v.output = run_profile("--validate " + file.path + " --json --cache " + cache);
  for (const auto& l : json_lines(v.output.out)) {
    if (has_key(l, "summary")) v.summary = l;
    else if (!has_key(l, "fastest_variant")) v.cases.push_back(l);
  }
  return v;
}

/// The fitted constants of a summary line (its members from launch_us to the end).
std::string fitted_constants(const std::string& summary) {
  const size_t at = summary.find("\"launch_us\"");
  return at == std::string::npos ? std::string() : summary.substr(at);
}

// A row counts only with a passed check (a failed one and one without a check are left out and
// counted apart), a peer's row never; the portable variant and the SpMM apply that runs the
// portable kernel (K = 32, row-major, no split rows) are skipped, not predicted as 0 ms; every
// case of a held-out matrix is held out, whatever its kernel or variant.
TEST(SprocketCudaProfile, ValidateHoldsOutWholeMatricesAndSummarizes) {
  std::vector<RecordedRun> runs = modeled_runs();
  const size_t modeled = runs.size();
  runs.push_back(RecordedRun{"spmv", "gen:poisson3d:n=5", "subvector8", 0, 1e-5, "false"});
  runs.push_back(RecordedRun{"spmv", "gen:poisson3d:n=5", "subvector16", 0, 1e-5, ""});
  runs.push_back(RecordedRun{"spmv", "gen:poisson3d:n=5", "default", 0, 1e-5, "true", "cusparse"});
  runs.push_back(RecordedRun{"spmv", "gen:poisson3d:n=5", "portable", 0, 1e-5});
  runs.push_back(RecordedRun{"spmm", "gen:poisson3d:n=7", "auto", 32, 1e-5});
  TempFile cache("cache");
  const Validation v = validate(runs, cache.path);
  ASSERT_EQ(v.output.status, 0) << v.output.err;
  ASSERT_FALSE(v.summary.empty()) << v.output.out;
  const std::string& s = v.summary;
  const double cases = number(s, "cases"), held_out = number(s, "held_out_cases");
  EXPECT_EQ(cases, double(modeled)) << s;
  EXPECT_EQ(number(s, "failed_checks_skipped"), 1) << s;
  EXPECT_EQ(number(s, "unchecked_skipped"), 1) << s;
  EXPECT_GT(held_out, 0) << "no case held out: the held-out figures test nothing; " << s;
  EXPECT_LT(held_out, cases) << "no case in the fit; " << s;
  EXPECT_EQ(held_out + number(s, "fit_cases"), cases) << s;
  EXPECT_GE(number(s, "held_out_matrices"), 1) << s;
  EXPECT_GE(number(s, "fit_matrices"), 1) << s;
  EXPECT_EQ(number(s, "held_out_matrices") + number(s, "fit_matrices"), double(validation_matrices.size())) << s;
  for (const char* key : {"within_2x", "held_out_within_2x", "fit_within_2x"}) EXPECT_GE(number(s, key), 0) << key;
  EXPECT_LE(number(s, "within_2x"), cases) << s;
  EXPECT_LE(number(s, "held_out_within_2x"), held_out) << s;
  EXPECT_LE(number(s, "fit_within_2x"), number(s, "fit_cases")) << s;

  // The modeled cases and the two skipped ones; neither left-out row is a case.
  EXPECT_EQ(v.cases.size(), modeled + 2) << v.output.out;
  std::map<std::string, std::set<bool>> held_out_by_matrix;
  for (const auto& l : v.cases) {
    for (const char* key : {"kernel", "matrix", "variant", "predicted_ms", "measured_ms", "held_out"})
      EXPECT_TRUE(has_key(l, key)) << key << " missing: " << l;
    EXPECT_NE(text(l, "variant"), "subvector8") << "a row with a failed check was used: " << l;
    EXPECT_NE(text(l, "variant"), "subvector16") << "a row without a check was used: " << l;
    EXPECT_NE(text(l, "variant"), "default") << "a peer's row was used: " << l;
    held_out_by_matrix[text(l, "matrix")].insert(l.find("\"held_out\":true") != std::string::npos);
    if (text(l, "variant") == "portable") {
      EXPECT_NE(l.find("\"skipped\""), std::string::npos) << l;
      EXPECT_NE(l.find("\"predicted_ms\":null"), std::string::npos) << l;
    }
    if (l.find("\"k\":32") != std::string::npos) {
      EXPECT_NE(l.find("\"predicted_ms\":null"), std::string::npos) << "the portable kernel's route predicted: " << l;
      EXPECT_NE(text(l, "skipped").find("portable Kokkos kernel"), std::string::npos) << l;
    }
  }
  int held_matrices = 0;
  for (const auto& [matrix, flags] : held_out_by_matrix) {
    EXPECT_EQ(flags.size(), 1u) << matrix << " is partly held out: its other cases are in the fit";
    held_matrices += flags.count(true) && flags.size() == 1;
  }
  EXPECT_EQ(held_out_by_matrix.size(), validation_matrices.size());
  EXPECT_EQ(held_matrices, number(s, "held_out_matrices")) << s;
}

// The held-out cases are out of the fit: moving one's measured time leaves every fitted constant
// as it was, while moving a fitted case's time moves them (the control: the comparison can see a
// change).
TEST(SprocketCudaProfile, ValidateFitIgnoresHeldOutTimes) {
  TempFile cache("cache");  // profiled once, by the first run
  const std::vector<RecordedRun> runs = modeled_runs();
  const Validation base = validate(runs, cache.path);
  ASSERT_EQ(base.output.status, 0) << base.output.err;
  ASSERT_EQ(base.cases.size(), runs.size()) << base.output.out;
  const std::string constants = fitted_constants(base.summary);
  ASSERT_FALSE(constants.empty()) << base.summary;
  size_t held = runs.size(), fitted = runs.size();
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& l = base.cases[i];  // in the order of the file
    ASSERT_EQ(text(l, "matrix"), runs[i].matrix) << l;
    ASSERT_EQ(text(l, "variant"), runs[i].variant) << l;
    (l.find("\"held_out\":true") != std::string::npos ? held : fitted) = i;
  }
  ASSERT_LT(held, runs.size()) << "no case held out";
  ASSERT_LT(fitted, runs.size()) << "no case in the fit";
  for (const size_t moved : {held, fitted}) {
    std::vector<RecordedRun> changed = runs;
    changed[moved].seconds *= 10;
    const Validation v = validate(changed, cache.path);
    ASSERT_EQ(v.output.status, 0) << v.output.err;
    if (moved == held)
      EXPECT_EQ(fitted_constants(v.summary), constants)
          << "the held-out " << runs[moved].matrix << " " << runs[moved].variant << " moved the fit";
    else
      EXPECT_NE(fitted_constants(v.summary), constants)
          << "the fitted " << runs[moved].matrix << " " << runs[moved].variant << " did not move the fit";
  }
}

// Measured times that are the model's own predictions with h100_constants (each case profiled
// alone): the fit starts at an exact solution, so every case, held out or fitted, is predicted at
// its measured time.
TEST(SprocketCudaProfile, ValidateRecoversTimesTheModelExplains) {
  std::vector<RecordedRun> runs = modeled_runs();
  for (RecordedRun& r : runs) {
    const Output o = run_profile("--kernel " + r.kernel + " --matrix " + r.matrix + " --variant " + r.variant +
                                 (r.k > 0 ? " --k " + std::to_string(r.k) + " --layout right" : std::string()) +
                                 " --json");
    ASSERT_EQ(o.status, 0) << o.err;
    const auto lines = json_lines(o.out);
    ASSERT_EQ(lines.size(), 1u) << o.out;
    const double ms = number(lines[0], "predicted_ms_h100");
    ASSERT_GT(ms, 0) << lines[0].substr(0, 600);
    r.seconds = ms * 1e-3;
  }
  TempFile cache("cache");
  const Validation v = validate(runs, cache.path);
  ASSERT_EQ(v.output.status, 0) << v.output.err;
  const std::string& s = v.summary;
  EXPECT_EQ(number(s, "cases"), double(runs.size())) << s;
  EXPECT_EQ(number(s, "within_2x"), number(s, "cases")) << s;
  EXPECT_GT(number(s, "held_out_cases"), 0) << s;
  EXPECT_EQ(number(s, "held_out_within_2x"), number(s, "held_out_cases")) << s;
  EXPECT_EQ(number(s, "fit_within_2x"), number(s, "fit_cases")) << s;
  ASSERT_EQ(v.cases.size(), runs.size());
  for (const auto& l : v.cases) {
    EXPECT_NEAR(number(l, "ratio"), 1.0, 0.01) << l;
  }
}

// --resources reads both forms of the CUDA build's resource report; 128 registers per thread leave
// two blocks of 256 threads (16 of 64 warps) resident, so the occupancy says registers.
TEST(SprocketCudaProfile, ResourceLogsSetRegistersAndOccupancy) {
  const std::string ptxas =
      "ptxas info    : Compiling entry function '_ZN8Sprocket4Impl4cuda21spmv_subvector_kernelILi4EEEvT_' for 'sm_90'\n"
      "ptxas info    : Function properties for _ZN8Sprocket4Impl4cuda21spmv_subvector_kernelILi4EEEvT_\n"
      "    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 128 registers, 380 bytes cmem[0]\n";
  const std::string cuobjdump =
      "Resource usage:\n Function _ZN8Sprocket4Impl4cuda21spmv_subvector_kernelILi4EEEvT_:\n"
      "  REG:128 STACK:0 SHARED:0 LOCAL:16 CONSTANT[0]:380 TEXTURE:0 SURFACE:0 SAMPLER:0\n";
  for (const std::string& log : {ptxas, cuobjdump}) {
    char path[] = "/tmp/test_sprocket_cuda_profile_resources_XXXXXX";
    const int fd = mkstemp(path);
    close(fd);
    std::ofstream(path) << log;
    const Output o = run_profile(std::string("--kernel spmv --matrix gen:poisson3d:n=10 --json --resources ") + path);
    std::remove(path);
    ASSERT_EQ(o.status, 0) << o.err;
    const auto lines = json_lines(o.out);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("\"registers_known\":true"), std::string::npos);
    EXPECT_EQ(number(lines[0], "registers"), 128) << lines[0].substr(0, 1500);
    EXPECT_EQ(number(lines[0], "spill_bytes"), 16);
    EXPECT_EQ(number(lines[0], "occupancy_h100"), 0.25);
    EXPECT_NE(lines[0].find("\"occupancy_limited_by\":\"registers\""), std::string::npos);
  }
  const Output o = run_profile("--kernel spmv --matrix gen:poisson3d:n=10 --resources /nonexistent/log.txt");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("/nonexistent/log.txt"), std::string::npos) << o.err;
}

TEST(SprocketCudaProfile, BadUsageSaysWhat) {
  Output o = run_profile("--kernel spmx --matrix gen:poisson3d:n=4");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("spmx"), std::string::npos) << o.err;
  o = run_profile("--kernel spmm --matrix gen:poisson3d:n=4 --layout diagonal");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("--layout"), std::string::npos) << o.err;
  o = run_profile("--kernel spmv --matrix gen:poisson3d:n=4 --variant portable");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("portable"), std::string::npos) << o.err;
  o = run_profile("--kernel spmv");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("--matrix"), std::string::npos) << o.err;
  o = run_profile("--kernel spmv --matrix /nonexistent/matrix.mtx");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("/nonexistent/matrix.mtx"), std::string::npos) << o.err;
}

}  // namespace
