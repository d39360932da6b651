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
#include <random>
#include <regex>
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
                          "warp_requests_mean", "predicted_ms_h100", "sites", "launch_list", "chosen", "note"})
    EXPECT_TRUE(has_key(lines[0], key)) << key << " missing: " << lines[0];
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

TEST(SprocketCudaProfile, ValidateMarksHeldOutCasesAndSummarizes) {
  char path[] = "/tmp/test_sprocket_cuda_profile_runs_XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  {
    std::ofstream f(path);
    // Recorded lines as sprocket-bench writes them (only the keys --validate reads); a failed check
    // and a peer's line are left out; portable has no hand-written kernel to profile.
    const char* variants[] = {"auto", "thread_per_row", "subvector2", "subvector8", "subvector32", "portable"};
    double seconds = 1e-5;
    for (const char* v : variants) {
      f << "{\"kernel\":\"spmv\",\"matrix\":\"gen:poisson3d:n=8\",\"impl\":\"sprocket\",\"variant\":\"" << v
        << "\",\"seconds\":" << seconds << ",\"check\":true}\n";
      seconds *= 1.5;
    }
    f << "{\"kernel\":\"spmv\",\"matrix\":\"gen:poisson3d:n=8\",\"impl\":\"sprocket\",\"variant\":\"subvector4\","
         "\"seconds\":1e-5,\"check\":false}\n";
    f << "{\"kernel\":\"spmv\",\"matrix\":\"gen:poisson3d:n=8\",\"impl\":\"cusparse\",\"variant\":\"default\","
         "\"seconds\":1e-5,\"check\":true}\n";
  }
  const Output o = run_profile(std::string("--validate ") + path + " --json");
  std::remove(path);
  ASSERT_EQ(o.status, 0) << o.err;
  const auto lines = json_lines(o.out);
  int cases = 0, held_out = 0, summaries = 0;
  for (const auto& l : lines) {
    if (has_key(l, "summary")) {
      ++summaries;
      EXPECT_EQ(number(l, "cases"), 5) << l;  // portable skipped, the failed check left out
      EXPECT_EQ(number(l, "failed_checks_skipped"), 1) << l;
      EXPECT_GE(number(l, "within_2x"), 0);
      continue;
    }
    if (has_key(l, "fastest_variant")) continue;
    ++cases;
    for (const char* key : {"kernel", "matrix", "variant", "predicted_ms", "measured_ms", "held_out"})
      EXPECT_TRUE(has_key(l, key)) << key << " missing: " << l;
    held_out += l.find("\"held_out\":true") != std::string::npos;
    if (l.find("\"variant\":\"portable\"") != std::string::npos)
      EXPECT_NE(l.find("\"skipped\""), std::string::npos) << l;
  }
  EXPECT_EQ(cases, 6);
  EXPECT_EQ(summaries, 1);
  EXPECT_LT(held_out, cases);
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
