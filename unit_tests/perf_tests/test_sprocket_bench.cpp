// sprocket-bench (perf_tests/sprocket_bench.cpp) as a user runs it: the JSON-lines contract of
// perf_tests/README.md for every kernel (spmv, bsr, spmm, sddmm, spgemm, stream, gram) on tiny generated
// matrices (spgemm: also a small shared one) with --check and few repeats: every line a flat JSON object, the keys every line must have and their
// value types (the integers without a fraction), the keys only our lines have (ratio_vs_<peer>,
// chosen_kernel, decided_by, setup_seconds, ...), --check passing on every line, --check failing
// for every kernel when a result is made wrong on purpose (SPROCKET_BENCH_CORRUPT), and the exit
// status: 0 on success, 1 on an unreadable matrix or a failed check, 2 with a message naming the
// problem on bad usage. Timings themselves are not judged (a shared machine), only that they are
// consistent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tool_test_utils.hpp"

namespace {

using Output = Sprocket::test::ToolOutput;

/// Runs sprocket-bench with `args`; `environment` (e.g. "env -u OMP_PROC_BIND") goes before it.
Output run_bench(const std::string& args, const std::string& environment = "") {
  return Sprocket::test::run_tool(SPROCKET_BENCH_BINARY, args, environment);
}

/// One value of a flat JSON object: its type and its text (strings unescaped, others as written).
struct Value {
  enum Type { string, number, boolean, null } type = null;
  std::string text;
  bool is_integer() const { return type == number && text.find_first_of(".eE") == std::string::npos; }
  double num() const { return std::stod(text); }
};
using Object = std::map<std::string, Value>;

/// Parses one line holding a flat JSON object (what sprocket-bench prints); false on anything else.
bool parse_object(const std::string& line, Object& obj, std::vector<std::string>& order) {
  size_t i = 0;
  auto skip = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  auto parse_string = [&](std::string& s) {
    if (i >= line.size() || line[i] != '"') return false;
    for (++i; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '"') {
        ++i;
        return true;
      }
      if (c == '\\') {
        if (++i >= line.size()) return false;
        const char e = line[i];
        if (e == 'n') s += '\n';
        else if (e == 't') s += '\t';
        else if (e == 'r') s += '\r';
        else if (e == 'u') {
          if (i + 4 >= line.size()) return false;
          s += static_cast<char>(std::stoi(line.substr(i + 1, 4), nullptr, 16));
          i += 4;
        } else s += e;
      } else {
        s += c;
      }
    }
    return false;
  };
  skip();
  if (i >= line.size() || line[i++] != '{') return false;
  skip();
  if (i < line.size() && line[i] == '}') return ++i == line.size();
  while (true) {
    skip();
    std::string key;
    if (!parse_string(key) || obj.count(key)) return false;
    skip();
    if (i >= line.size() || line[i++] != ':') return false;
    skip();
    Value v;
    if (i < line.size() && line[i] == '"') {
      v.type = Value::string;
      if (!parse_string(v.text)) return false;
    } else {
      const size_t end = line.find_first_of(",}", i);
      if (end == std::string::npos) return false;
      v.text = line.substr(i, end - i);
      while (!v.text.empty() && v.text.back() == ' ') v.text.pop_back();
      i = end;
      if (v.text == "true" || v.text == "false") v.type = Value::boolean;
      else if (v.text == "null") v.type = Value::null;
      else {
        char* stop = nullptr;
        std::strtod(v.text.c_str(), &stop);
        if (v.text.empty() || *stop != '\0') return false;
        v.type = Value::number;
      }
    }
    obj[key] = v;
    order.push_back(key);
    skip();
    if (i >= line.size()) return false;
    if (line[i] == ',') {
      ++i;
      continue;
    }
    if (line[i] == '}') return ++i == line.size();
    return false;
  }
}

/// Every stdout line of a --json run, parsed; a line that is not a flat object fails the test.
std::vector<Object> json_lines(const Output& out) {
  std::vector<Object> records;
  std::istringstream in(out.out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    Object obj;
    std::vector<std::string> order;
    EXPECT_TRUE(parse_object(line, obj, order)) << "not a flat JSON object: " << line;
    records.push_back(obj);
  }
  return records;
}

std::string show(const Object& r) {
  std::string s = "{";
  for (const auto& [k, v] : r) s += k + ":" + v.text + " ";
  return s + "}";
}

void expect_string(const Object& r, const std::string& key) {
  const auto it = r.find(key);
  ASSERT_NE(it, r.end()) << "missing " << key << " in " << show(r);
  EXPECT_EQ(it->second.type, Value::string) << key << " in " << show(r);
  EXPECT_FALSE(it->second.text.empty()) << key << " in " << show(r);
}
void expect_number(const Object& r, const std::string& key) {
  const auto it = r.find(key);
  ASSERT_NE(it, r.end()) << "missing " << key << " in " << show(r);
  EXPECT_EQ(it->second.type, Value::number) << key << " in " << show(r);
}
void expect_integer(const Object& r, const std::string& key) {
  const auto it = r.find(key);
  ASSERT_NE(it, r.end()) << "missing " << key << " in " << show(r);
  EXPECT_TRUE(it->second.is_integer()) << key << " in " << show(r);
}
void expect_boolean(const Object& r, const std::string& key) {
  const auto it = r.find(key);
  ASSERT_NE(it, r.end()) << "missing " << key << " in " << show(r);
  EXPECT_EQ(it->second.type, Value::boolean) << key << " in " << show(r);
}
std::string text(const Object& r, const std::string& key) {
  const auto it = r.find(key);
  return it == r.end() ? std::string() : it->second.text;
}
double number(const Object& r, const std::string& key) {
  const auto it = r.find(key);
  return it == r.end() || it->second.type != Value::number ? -1.0 : it->second.num();
}

/// The keys of every matrix kernel's line (README "Output"), with --check passing.
void expect_matrix_line(const Object& r, const std::string& kernel, const std::string& matrix, int repeat,
                        int warmup) {
  EXPECT_EQ(text(r, "kernel"), kernel) << show(r);
  EXPECT_EQ(text(r, "matrix"), matrix) << show(r);
  for (const char* key : {"impl", "variant", "scalar", "offset", "space"}) expect_string(r, key);
  for (const char* key : {"seconds", "gbps", "gflops", "seconds_min", "seconds_max", "alpha", "beta", "err_norm",
                          "max_err_over_tol"})
    expect_number(r, key);
  for (const char* key : {"rows", "cols", "nnz", "bytes", "repeat", "warmup"}) expect_integer(r, key);
  expect_boolean(r, "check");
  EXPECT_EQ(text(r, "check"), "true") << show(r);
  EXPECT_LE(number(r, "max_err_over_tol"), 1.0) << show(r);
  EXPECT_EQ(number(r, "repeat"), repeat) << show(r);
  EXPECT_EQ(number(r, "warmup"), warmup) << show(r);
  EXPECT_GT(number(r, "seconds"), 0.0) << show(r);
  EXPECT_LE(number(r, "seconds_min"), number(r, "seconds")) << show(r);
  EXPECT_LE(number(r, "seconds"), number(r, "seconds_max")) << show(r);
  EXPECT_GT(number(r, "bytes"), 0.0) << show(r);
  // gbps = bytes / seconds / 1e9 (bytes is printed as an integer, gbps with 7 digits)
  EXPECT_NEAR(number(r, "gbps"), number(r, "bytes") / number(r, "seconds") * 1e-9,
              1e-5 * number(r, "gbps") + 1e-9)
      << show(r);
  EXPECT_EQ(text(r, "scalar"), "double") << show(r);
  EXPECT_EQ(text(r, "offset"), "int") << show(r);
  // Our lines say which copies of the host kernels ran (SPROCKET_HOST_ISA); peers' lines do not.
  if (text(r, "impl") == "sprocket") {
    const std::string isa = text(r, "host_isa");
    EXPECT_TRUE(isa == "avx2_fma" || isa == "baseline") << show(r);
  } else {
    EXPECT_EQ(r.count("host_isa"), 0u) << show(r);
  }
}

/// ratio_vs_<peer> = peer seconds / our seconds on our lines (and only there).
void expect_ratios(const std::vector<Object>& lines, const std::vector<std::string>& peers) {
  for (const Object& r : lines) {
    const bool ours = text(r, "impl") == "sprocket";
    for (const std::string& peer : peers) {
      if (!ours) {
        EXPECT_EQ(r.count("ratio_vs_" + peer), 0u) << show(r);
        continue;
      }
      expect_number(r, "ratio_vs_" + peer);
      for (const Object& p : lines)
        if (text(p, "impl") == peer && text(p, "k") == text(r, "k") && text(p, "layout") == text(r, "layout")) {
          EXPECT_NEAR(number(r, "ratio_vs_" + peer), number(p, "seconds") / number(r, "seconds"),
                      1e-5 * number(r, "ratio_vs_" + peer))
              << show(r);
          // What n applies cost with the set-ups: (peer set-up + n peer) / (our analysis + n ours),
          // between the set-up ratio and the apply ratio, closer to the latter as n grows.
          if (r.count("setup_seconds") == 0 && r.count("preprocess_seconds") == 0) continue;
          const double ours_setup = r.count("setup_seconds") ? number(r, "setup_seconds") : number(r, "preprocess_seconds");
          const double peer_setup = std::max(0.0, number(p, "setup_seconds"));
          double previous = -1;
          for (const int n : {1, 10, 100}) {
            const std::string key = "ratio_vs_" + peer + "_incl_setup_" + std::to_string(n);
            expect_number(r, key);
            const double expected =
                (peer_setup + n * number(p, "seconds")) / (ours_setup + n * number(r, "seconds"));
            EXPECT_NEAR(number(r, key), expected, 1e-4 * expected) << key << " " << show(r);
            const double apply_ratio = number(r, "ratio_vs_" + peer);
            if (previous >= 0)
              EXPECT_LE(std::abs(number(r, key) - apply_ratio), std::abs(previous - apply_ratio) * (1 + 1e-4) + 1e-12)
                  << key << " " << show(r);
            previous = number(r, key);
          }
        }
    }
  }
}

std::vector<std::string> values_of(const std::vector<Object>& lines, const std::string& impl, const std::string& key) {
  std::vector<std::string> v;
  for (const Object& r : lines)
    if (text(r, "impl") == impl) v.push_back(text(r, key));
  return v;
}

const std::string quick = " --check --repeat 2 --warmup 1 --json";

/// A peer line whose set-up counts the trial of its ways (count_trial_as_setup): setup_seconds =
/// peer_prepare_seconds (where there is one) + peer_trial_seconds.
void expect_trial_in_setup(const Object& r) {
  expect_number(r, "peer_trial_seconds");
  expect_number(r, "setup_seconds");
  const double prepare = r.count("peer_prepare_seconds") ? number(r, "peer_prepare_seconds") : 0.0;
  EXPECT_GE(prepare, 0.0) << show(r);
  EXPECT_GE(number(r, "setup_seconds"), number(r, "peer_trial_seconds")) << show(r);
  EXPECT_NEAR(number(r, "setup_seconds"), prepare + number(r, "peer_trial_seconds"),
              1e-5 * number(r, "setup_seconds") + 1e-9)
      << show(r);
}

TEST(SprocketBench, SpmvJsonLines) {
  const std::string matrix = "gen:poisson2d:n=12";
  const Output out =
      run_bench("--kernel spmv --matrix " + matrix + " --variant all --compare kk --stream --stream-size 4096" + quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> all = json_lines(out);
  // --stream: the copy and triad lines come first.
  ASSERT_GE(all.size(), 2u) << out.out;
  EXPECT_EQ(text(all[0], "kernel"), "stream");
  EXPECT_EQ(text(all[0], "variant"), "copy");
  EXPECT_EQ(text(all[1], "variant"), "triad");
  const std::vector<Object> lines(all.begin() + 2, all.end());
  for (const Object& r : lines) {
    expect_matrix_line(r, "spmv", matrix, 2, 1);
    expect_number(r, "stream_fraction");
    EXPECT_EQ(number(r, "rows"), 144) << show(r);
    EXPECT_EQ(number(r, "nnz"), 144 * 5 - 4 * 12) << show(r);
    if (text(r, "impl") == "sprocket") {
      expect_string(r, "chosen_kernel");
      expect_string(r, "decided_by");
      expect_number(r, "setup_seconds");
      // The analysis phase by phase: each measured, none negative, their sum within the plan's
      // construction (setup_seconds), and the set-up in applies.
      double phases = 0;
      for (const char* phase : {"validate", "row_map", "row_patterns", "offsets16", "schedule", "device_schedule",
                                "autotune"}) {
        const std::string key = std::string("analysis_") + phase + "_seconds";
        expect_number(r, key);
        EXPECT_GE(number(r, key), 0) << key << "\n" << show(r);
        phases += number(r, key);
      }
      EXPECT_GT(phases, 0) << show(r);
      EXPECT_LE(phases, number(r, "setup_seconds") * 1.001 + 1e-6) << show(r);
      expect_number(r, "setup_applies");
      EXPECT_NEAR(number(r, "setup_applies"), number(r, "setup_seconds") / number(r, "seconds"),
                  1e-4 * number(r, "setup_applies") + 1e-9)
          << show(r);
      const std::set<std::string> reasons{"model", "forced", "autotune", "options"};
      EXPECT_EQ(reasons.count(text(r, "decided_by")), 1u) << show(r);
    } else {
      EXPECT_EQ(text(r, "impl"), "kk") << show(r);
      EXPECT_EQ(text(r, "variant"), "default") << show(r);
      EXPECT_EQ(r.count("chosen_kernel"), 0u) << show(r);
      expect_trial_in_setup(r);  // its trial of its ways and their building are its set-up
      // Kokkos Kernels' fastest way on this matrix, and what each way took in the trial: the
      // Controls' schedules on Kokkos Kernels 3.x, the handle's algorithms on 4.x
      // (perf_tests/bench_kk_peers_impl.hpp), whichever wins.
      const std::set<std::string> ways{"default",          "schedule_static",   "schedule_dynamic",
                                       "handle_native",    "handle_merge_path", "raw_openmp_partitioned"};
      EXPECT_EQ(ways.count(text(r, "peer_algorithm")), 1u) << show(r);
      expect_string(r, "peer_trials");
      EXPECT_NE(text(r, "peer_trials").find(text(r, "peer_algorithm") + " "), std::string::npos) << show(r);
      expect_string(r, "peer_march");
    }
  }
  // --variant all: auto, every forced kernel, binned, the automatic schedule with each
  // compress_indices, portable (row_blocks only where the default space is Cuda); then the peer.
  const std::vector<std::string> variants = values_of(lines, "sprocket", "variant");
  const std::vector<std::string> expected{"auto",
                                          "thread_per_row",
                                          "subvector2",
                                          "subvector4",
                                          "subvector8",
                                          "subvector16",
                                          "subvector32",
                                          "team_per_row",
                                          "split_row",
                                          "binned",
                                          "indices_off",
                                          "indices_offsets16",
                                          "indices_row_patterns",
                                          "portable"};
  EXPECT_EQ(variants, expected);
  EXPECT_EQ(values_of(lines, "kk", "variant").size(), 1u);
  EXPECT_EQ(text(lines.back(), "impl"), "kk");
  for (const Object& r : lines) {
    const std::string v = text(r, "variant");
    if (v.rfind("indices_", 0) == 0) {
      EXPECT_EQ(text(r, "decided_by"), "model") << show(r);  // only where the columns are read from differs
      continue;
    }
    if (text(r, "impl") == "sprocket" && v != "auto" && v != "portable" && v != "binned") {
      EXPECT_EQ(text(r, "chosen_kernel"), v) << show(r);  // a forced kernel runs every row
      EXPECT_EQ(text(r, "decided_by"), "forced") << show(r);
    }
    if (v == "binned") {
      EXPECT_EQ(text(r, "decided_by"), "model") << show(r);  // the model's kernels, binning from the options
    }
    if (v == "auto") {
      EXPECT_EQ(text(r, "decided_by"), "model") << show(r);
    }
  }
  expect_ratios(lines, {"kk"});
}

TEST(SprocketBench, BsrJsonLines) {
  const std::string matrix = "gen:elasticity:n=4,dof=3";
  const Output out = run_bench("--kernel bsr --matrix " + matrix + " --variant all" + quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> lines = json_lines(out);
  ASSERT_FALSE(lines.empty());
  for (const Object& r : lines) {
    expect_matrix_line(r, "bsr", matrix, 2, 1);
    for (const char* key : {"block_size", "blocks", "stored_nnz"}) expect_integer(r, key);
    expect_boolean(r, "block_size_auto");
    expect_number(r, "fill_ratio");
    EXPECT_EQ(number(r, "block_size"), 3) << show(r);
    EXPECT_EQ(text(r, "block_size_auto"), "true") << show(r);
    EXPECT_EQ(number(r, "rows"), 4 * 4 * 4 * 3) << show(r);
    EXPECT_EQ(number(r, "stored_nnz"), 9 * number(r, "blocks")) << show(r);
    if (text(r, "impl") == "sprocket") {
      expect_string(r, "chosen_kernel");
      expect_number(r, "setup_seconds");
      expect_number(r, "convert_seconds");
      if (text(r, "variant") != "auto") {
        EXPECT_EQ(text(r, "chosen_kernel"), text(r, "variant")) << show(r);
      }
    } else {
      EXPECT_EQ(r.count("chosen_kernel"), 0u) << show(r);
      EXPECT_EQ(r.count("convert_seconds"), 0u) << show(r);
    }
  }
  // Default peers kk and csr (csr reports its analysis as setup_seconds).
  EXPECT_EQ(values_of(lines, "kk", "variant"), std::vector<std::string>{"default"});
  EXPECT_EQ(values_of(lines, "csr", "variant"), std::vector<std::string>{"default"});
  for (const Object& r : lines)
    if (text(r, "impl") == "csr") expect_number(r, "setup_seconds");
  const std::vector<std::string> variants = values_of(lines, "sprocket", "variant");
  ASSERT_GE(variants.size(), 2u);
  EXPECT_EQ(variants.front(), "auto");
  EXPECT_NE(std::find(variants.begin(), variants.end(), "portable"), variants.end());
  expect_ratios(lines, {"kk", "csr"});

  // A given block size that divides the dimensions, and a backend-prefixed kernel name of the
  // host build (the commands in perf_tests/results keep working) naming the same kernel.
  const Output given = run_bench("--kernel bsr --matrix " + matrix + " --block-size 1 --compare kk" + quick);
  ASSERT_EQ(given.status, 0) << given.out << given.err;
  for (const Object& r : json_lines(given)) {
    EXPECT_EQ(number(r, "block_size"), 1) << show(r);
    EXPECT_EQ(text(r, "block_size_auto"), "false") << show(r);
  }
}

TEST(SprocketBench, SpmmJsonLines) {
  const std::string matrix = "gen:poisson2d:n=12";
  const Output out = run_bench("--kernel spmm --matrix " + matrix + " --variant all --k 2,5 --layout both" + quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> lines = json_lines(out);
  std::set<std::string> sections;
  for (const Object& r : lines) {
    expect_matrix_line(r, "spmm", matrix, 2, 1);
    expect_integer(r, "k");
    expect_string(r, "layout");
    sections.insert(text(r, "k") + "/" + text(r, "layout"));
    EXPECT_NEAR(number(r, "gflops"), 2.0 * number(r, "nnz") * number(r, "k") / number(r, "seconds") * 1e-9,
                1e-5 * number(r, "gflops"))
        << show(r);
    if (text(r, "impl") == "sprocket") {
      expect_string(r, "chosen_kernel");
      for (const char* key : {"preprocess_seconds", "preprocess_applies", "min_heavy_fraction", "heavy_fraction",
                              "analysis_seconds"})
        expect_number(r, key);
      for (const char* key : {"panel_rows", "tile_cols", "heavy_threshold", "num_heavy_tiles", "moved_to_light"})
        expect_integer(r, key);
      if (text(r, "variant") != "auto") {
        EXPECT_EQ(text(r, "chosen_kernel"), text(r, "variant")) << show(r);
      }
    } else {
      EXPECT_EQ(r.count("chosen_kernel"), 0u) << show(r);
      EXPECT_EQ(r.count("preprocess_seconds"), 0u) << show(r);
    }
    if (text(r, "impl") == "spmv") expect_number(r, "setup_seconds");
  }
  EXPECT_EQ(sections, (std::set<std::string>{"2/right", "2/left", "5/right", "5/left"}));
  // --variant all: auto, csr_rows, aspt, portable, in every section; default peers kk and spmv.
  EXPECT_EQ(values_of(lines, "sprocket", "variant").size(), 4u * 4u);
  EXPECT_EQ(values_of(lines, "kk", "variant").size(), 4u);
  EXPECT_EQ(values_of(lines, "spmv", "variant").size(), 4u);
  expect_ratios(lines, {"kk", "spmv"});
}

/// The "peers:" line --help prints for `kernel` (empty when it has none).
std::string peers_line(const std::string& kernel) {
  const Output help = run_bench("--help");
  const size_t at = help.out.find("\n  " + kernel + ": ");
  if (at == std::string::npos) return "";
  const size_t next = help.out.find("\n  ", help.out.find("\n      e.g. ", at) + 1);
  const std::string block = help.out.substr(at, next == std::string::npos ? std::string::npos : next - at);
  const size_t peers = block.find("      peers: ");
  return peers == std::string::npos ? "" : block.substr(peers, block.find('\n', peers) - peers);
}

/// Whether `kernel` offers `peer` in this build (--help marks the peers a build lacks).
bool offers_peer(const std::string& kernel, const std::string& peer) {
  const std::string line = peers_line(kernel);
  return line.find(" " + peer) != std::string::npos && line.find(peer + " (not in this build)") == std::string::npos;
}

/// Whether this sprocket-bench was built with the graphblas peer.
bool built_with_graphblas() { return offers_peer("sddmm", "graphblas"); }

/// Whether this sprocket-bench was built with the mkl peer.
bool built_with_mkl() { return offers_peer("spmv", "mkl"); }

TEST(SprocketBench, SddmmJsonLines) {
  const bool graphblas = built_with_graphblas();
  const std::string matrix = "gen:poisson2d:n=12";
  const std::string peers = graphblas ? "graphblas,kokkos_team" : "kokkos_team";
  const Output out = run_bench("--kernel sddmm --matrix " + matrix + " --variant all --k 2,5 --layout right,left --compare " +
                               peers + quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> lines = json_lines(out);
  std::set<std::string> sections;
  const std::set<std::string> kernels{"nonzero_tiles", "aspt", "portable"};
  for (const Object& r : lines) {
    expect_matrix_line(r, "sddmm", matrix, 2, 1);
    expect_integer(r, "k");
    expect_string(r, "layout");
    EXPECT_EQ(text(r, "form"), "pattern") << show(r);
    sections.insert(text(r, "k") + "/" + text(r, "layout"));
    EXPECT_EQ(number(r, "nnz"), 144 * 5 - 4 * 12) << show(r);
    EXPECT_NEAR(number(r, "gflops"), 2.0 * number(r, "nnz") * number(r, "k") / number(r, "seconds") * 1e-9,
                1e-5 * number(r, "gflops"))
        << show(r);
    // S's pattern (int offsets, int columns), A, B, out written.
    EXPECT_EQ(number(r, "bytes"), (144 + 1) * 4 + number(r, "nnz") * (4 + 8) + (144 + 144) * number(r, "k") * 8)
        << show(r);
    const std::string impl = text(r, "impl");
    if (impl == "sprocket") {
      expect_string(r, "chosen_kernel");
      expect_string(r, "decided_by");
      expect_string(r, "backend");
      expect_boolean(r, "has_tiles");
      for (const char* key : {"preprocess_seconds", "preprocess_applies"}) expect_number(r, key);
      EXPECT_EQ(kernels.count(text(r, "chosen_kernel")), 1u) << show(r);
      const std::string v = text(r, "variant");
      if (v == "nonzero_tiles" || v == "aspt") {
        EXPECT_EQ(text(r, "chosen_kernel"), v) << show(r);
        EXPECT_EQ(text(r, "decided_by"), "forced") << show(r);
      } else {
        EXPECT_EQ(text(r, "decided_by").rfind("automatic", 0), 0u) << show(r);
      }
      if (v == "auto") {
        // No ASpT analysis without build_tiles or an SpmmPlan: the plan runs nonzero_tiles.
        EXPECT_EQ(text(r, "has_tiles"), "false") << show(r);
        EXPECT_EQ(text(r, "chosen_kernel"), "nonzero_tiles") << show(r);
      }
      if (v == "from_spmm") {
        EXPECT_EQ(text(r, "has_tiles"), "true") << show(r);
        EXPECT_EQ(text(r, "tiles_shared"), "true") << show(r);
        expect_number(r, "spmm_plan_seconds");
      }
      if (v == "portable") {
        EXPECT_EQ(text(r, "chosen_kernel"), "portable") << show(r);
      }
    } else {
      EXPECT_TRUE(impl == "kokkos_team" || (graphblas && impl == "graphblas")) << show(r);
      EXPECT_EQ(text(r, "variant"), "default") << show(r);
      EXPECT_EQ(r.count("chosen_kernel"), 0u) << show(r);
      EXPECT_EQ(r.count("preprocess_seconds"), 0u) << show(r);
      if (impl == "graphblas") {
        expect_number(r, "copy_seconds");
        expect_string(r, "note");
      }
    }
  }
  EXPECT_EQ(sections, (std::set<std::string>{"2/right", "2/left", "5/right", "5/left"}));
  // --variant all: auto, nonzero_tiles, aspt, build_tiles, from_spmm, portable in every section.
  const std::vector<std::string> variants = values_of(lines, "sprocket", "variant");
  ASSERT_EQ(variants.size(), 6u * 4u);
  EXPECT_EQ(std::vector<std::string>(variants.begin(), variants.begin() + 6),
            (std::vector<std::string>{"auto", "nonzero_tiles", "aspt", "build_tiles", "from_spmm", "portable"}));
  EXPECT_EQ(values_of(lines, "kokkos_team", "variant").size(), 4u);
  EXPECT_EQ(values_of(lines, "graphblas", "variant").size(), graphblas ? 4u : 0u);
  expect_ratios(lines, graphblas ? std::vector<std::string>{"graphblas", "kokkos_team"}
                                 : std::vector<std::string>{"kokkos_team"});

  // Defaults: layout right only, K 32 and 128, the default peers (graphblas where built, kokkos_team);
  // beta != 0 is checked too (the graphblas peer skips it with a message).
  const Output defaults = run_bench("--kernel sddmm --matrix gen:poisson2d:n=6 --beta 0.5" + quick);
  ASSERT_EQ(defaults.status, 0) << defaults.out << defaults.err;
  const std::vector<Object> default_lines = json_lines(defaults);
  for (const Object& r : default_lines) {
    EXPECT_EQ(text(r, "layout"), "right") << show(r);
    EXPECT_EQ(text(r, "check"), "true") << show(r);
    EXPECT_NE(text(r, "impl"), "graphblas") << show(r);
    EXPECT_NE(text(r, "impl"), "graphblas9") << show(r);
  }
  EXPECT_EQ(values_of(default_lines, "sprocket", "k"), (std::vector<std::string>{"32", "128"}));
  EXPECT_EQ(values_of(default_lines, "kokkos_team", "k"), (std::vector<std::string>{"32", "128"}));
  if (graphblas) {
    EXPECT_NE(defaults.err.find("graphblas skipped"), std::string::npos) << defaults.err;
  } else {
    EXPECT_NE(defaults.err.find("built without SuiteSparse:GraphBLAS"), std::string::npos) << defaults.err;
  }
}

/// The keys of every spgemm line (perf_tests/README.md, spgemm) with --check passing; returns the
/// line's impl.
std::string expect_spgemm_line(const Object& r, const std::string& matrix, const std::string& form) {
  expect_matrix_line(r, "spgemm", matrix, 2, 1);
  EXPECT_EQ(text(r, "form"), form) << show(r);
  for (const char* key : {"products", "nnz_c", "peak_bytes"}) expect_integer(r, key);
  for (const char* key : {"numeric_seconds", "numeric_gflops", "numeric_seconds_min", "numeric_seconds_max"})
    expect_number(r, key);
  expect_string(r, "peak_source");
  expect_boolean(r, "numeric_interleaved");
  expect_boolean(r, "c_sorted");
  EXPECT_GT(number(r, "numeric_seconds"), 0.0) << show(r);
  EXPECT_LE(number(r, "numeric_seconds_min"), number(r, "numeric_seconds")) << show(r);
  EXPECT_LE(number(r, "numeric_seconds"), number(r, "numeric_seconds_max")) << show(r);
  EXPECT_GE(number(r, "peak_bytes"), 0.0) << show(r);
  // gflops = 2 products / seconds; numeric_gflops the same with numeric_seconds.
  EXPECT_NEAR(number(r, "gflops"), 2.0 * number(r, "products") / number(r, "seconds") * 1e-9,
              1e-5 * number(r, "gflops"))
      << show(r);
  EXPECT_NEAR(number(r, "numeric_gflops"), 2.0 * number(r, "products") / number(r, "numeric_seconds") * 1e-9,
              1e-5 * number(r, "numeric_gflops"))
      << show(r);
  const std::string impl = text(r, "impl");
  const bool device = text(r, "space") == "Cuda";  // a CUDA build: no resident-memory figure but graphblas's
  if (impl == "sprocket") {
    const std::set<std::string> balances{"uniform", "binned"};
    EXPECT_EQ(balances.count(text(r, "symbolic_balance")), 1u) << show(r);
    EXPECT_EQ(balances.count(text(r, "numeric_balance")), 1u) << show(r);
    for (const char* key : {"backend", "symbolic_rows", "numeric_rows"}) expect_string(r, key);
    expect_number(r, "plan_seconds");
    // The warm constructions' median, a part of every full product: in seconds, not far above
    // the slowest timed one (a margin for this machine's noise on products of microseconds).
    expect_number(r, "plan_seconds_warm");
    EXPECT_GT(number(r, "plan_seconds_warm"), 0.0) << show(r);
    EXPECT_LT(number(r, "plan_seconds_warm"), 10 * number(r, "seconds_max")) << show(r);
    expect_boolean(r, "sorted");
    if (!device) expect_integer(r, "peak_rss_bytes");
    EXPECT_EQ(text(r, "peak_source"), "plan") << show(r);
    EXPECT_GT(number(r, "peak_bytes"), 0.0) << show(r);
    if (text(r, "sorted") == "true") {
      EXPECT_EQ(text(r, "c_sorted"), "true") << show(r);
    }
  } else {
    EXPECT_EQ(r.count("symbolic_balance"), 0u) << show(r);
    EXPECT_EQ(r.count("plan_seconds"), 0u) << show(r);
    EXPECT_EQ(r.count("plan_seconds_warm"), 0u) << show(r);
    if (impl == "cusparse") {
      EXPECT_TRUE(text(r, "variant") == "alg1" || text(r, "variant") == "alg3") << show(r);
      EXPECT_EQ(text(r, "peak_source"), "buffers") << show(r);
    } else {
      EXPECT_EQ(text(r, "variant"), "default") << show(r);
      if (device && impl != "graphblas") {
        EXPECT_EQ(text(r, "peak_source"), "kokkos_allocations") << show(r);
      } else {
        EXPECT_EQ(text(r, "peak_source"), "rss") << show(r);
        EXPECT_EQ(number(r, "peak_rss_bytes"), number(r, "peak_bytes")) << show(r);
      }
    }
    expect_string(r, "note");
    if (impl == "kk" || impl == "graphblas") {
      EXPECT_EQ(text(r, "c_sorted"), "true") << show(r);
    }
    if (impl == "graphblas") expect_number(r, "copy_seconds");
  }
  return impl;
}

/// numeric_ratio_vs_<peer> = peer numeric seconds / our numeric seconds on our lines (and only there).
void expect_numeric_ratios(const std::vector<Object>& lines, const std::vector<std::string>& peers) {
  for (const Object& r : lines)
    for (const std::string& peer : peers) {
      if (text(r, "impl") != "sprocket") {
        EXPECT_EQ(r.count("numeric_ratio_vs_" + peer), 0u) << show(r);
        continue;
      }
      expect_number(r, "numeric_ratio_vs_" + peer);
      for (const Object& p : lines)
        if (text(p, "impl") == peer) {
          EXPECT_NEAR(number(r, "numeric_ratio_vs_" + peer),
                      number(p, "numeric_seconds") / number(r, "numeric_seconds"),
                      1e-5 * number(r, "numeric_ratio_vs_" + peer))
              << show(r);
        }
    }
}

TEST(SprocketBench, SpgemmJsonLines) {
  const bool graphblas = built_with_graphblas();
  const std::string matrix = "gen:poisson2d:n=12";
  const Output out = run_bench("--kernel spgemm --matrix " + matrix + " --variant all" + quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> lines = json_lines(out);
  std::vector<std::string> impls;
  for (const Object& r : lines) {
    impls.push_back(expect_spgemm_line(r, matrix, "A*A"));
    EXPECT_EQ(number(r, "rows"), 144) << show(r);
    EXPECT_EQ(number(r, "nnz"), 144 * 5 - 4 * 12) << show(r);
    // C = A A of the 5-point stencil on a 12 x 12 grid has the 13-point pattern (offsets 0, +-1 and
    // +-2 along an axis, +-1 along both); products = the sum of the squared row lengths (corners 3,
    // edges 4, interior 5).
    EXPECT_EQ(number(r, "nnz_c"), 144 + 2 * 264 + 2 * 240 + 484) << show(r);
    EXPECT_EQ(number(r, "products"), 4 * 9 + 40 * 16 + 100 * 25) << show(r);
    // A and B read, C written: (rows + 1) int offsets and nnz (int column, double value) each.
    EXPECT_EQ(number(r, "bytes"), 2 * (145 * 4 + number(r, "nnz") * 12) + 145 * 4 + number(r, "nnz_c") * 12)
        << show(r);
    const std::string v = text(r, "variant");
    if (v == "uniform" || v == "binned") {
      EXPECT_EQ(text(r, "symbolic_balance"), v) << show(r);
      EXPECT_EQ(text(r, "numeric_balance"), v) << show(r);
    }
    if (v == "portable") {
      EXPECT_EQ(text(r, "backend"), "portable") << show(r);
    }
    if (v == "unsorted") {
      EXPECT_EQ(text(r, "sorted"), "false") << show(r);
    }
  }
  // --variant all, then the default peers: kk, kk_unsorted, graphblas where built.
  EXPECT_EQ(values_of(lines, "sprocket", "variant"),
            (std::vector<std::string>{"auto", "hash", "dense", "global_hash", "uniform", "binned", "unsorted",
                                      "portable"}));
  std::vector<std::string> peers{"kk", "kk_unsorted"};
  if (graphblas) peers.push_back("graphblas");
  if (offers_peer("spgemm", "graphblas9")) peers.push_back("graphblas9");
  if (offers_peer("spgemm", "cusparse")) peers.push_back("cusparse");
  ASSERT_EQ(impls.size(), 8u + peers.size()) << out.out;
  EXPECT_EQ(std::vector<std::string>(impls.begin() + 8, impls.end()), peers);
  expect_ratios(lines, peers);
  expect_numeric_ratios(lines, peers);
}

// --compare kk,graphblas (kk alone without GraphBLAS) on a rectangular matrix: C = A A^T.
TEST(SprocketBench, SpgemmCompareOnARectangularMatrix) {
  const bool graphblas = built_with_graphblas();
  const std::string matrix = "gen:uniform:n=60,avg=4,cols=40";
  const Output out = run_bench("--kernel spgemm --matrix " + matrix + " --compare " +
                               (graphblas ? "kk,graphblas" : "kk") + quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> lines = json_lines(out);
  ASSERT_FALSE(lines.empty());
  std::vector<std::string> impls;
  for (const Object& r : lines) {
    impls.push_back(expect_spgemm_line(r, matrix, "A*A^T"));
    EXPECT_EQ(number(r, "rows"), 60) << show(r);
    EXPECT_EQ(number(r, "cols"), 40) << show(r);
    EXPECT_EQ(number(r, "nnz_c"), number(lines.front(), "nnz_c")) << show(r);
    EXPECT_EQ(number(r, "products"), number(lines.front(), "products")) << show(r);
  }
  const std::vector<std::string> expected =
      graphblas ? std::vector<std::string>{"sprocket", "kk", "graphblas"} : std::vector<std::string>{"sprocket", "kk"};
  EXPECT_EQ(impls, expected);
  expect_ratios(lines, std::vector<std::string>(expected.begin() + 1, expected.end()));
}

// A small matrix of ../shared/matrices, checked. Missing shared matrices fail the test unless
// SPROCKET_ALLOW_MISSING_SHARED says so (then the test is skipped).
TEST(SprocketBench, SpgemmSharedMatrix) {
  if (!std::filesystem::is_directory(SPROCKET_SHARED_MATRICES)) {
    if (std::getenv("SPROCKET_ALLOW_MISSING_SHARED") != nullptr)
      GTEST_SKIP() << SPROCKET_SHARED_MATRICES << " is missing (allowed by SPROCKET_ALLOW_MISSING_SHARED)";
    FAIL() << "shared matrix folder " << SPROCKET_SHARED_MATRICES << " is missing";
  }
  const std::string matrix = std::string(SPROCKET_SHARED_MATRICES) + "/bcsstk12.mtx.gz";
  const Output out = run_bench("--kernel spgemm --matrix " + matrix + " --variant auto,unsorted" + quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> lines = json_lines(out);
  ASSERT_GE(lines.size(), 4u) << out.out;  // two variants, kk, kk_unsorted (graphblas, cusparse where built)
  for (const Object& r : lines) {
    expect_spgemm_line(r, matrix, "A*A");
    EXPECT_EQ(number(r, "rows"), 1473) << show(r);
    EXPECT_EQ(number(r, "nnz_c"), number(lines.front(), "nnz_c")) << show(r);
  }
}

// Without GraphBLAS in the build, asking for the peer is a usage error that says why.
// SPROCKET_HOST_ISA=baseline runs (and names) the baseline copies of our host kernels on every line;
// a value it does not know is an error naming the variable and its choices.
TEST(SprocketBench, HostIsaFollowsTheEnvironment) {
  const std::string matrix = "gen:poisson2d:n=12";
  const Output base = run_bench("--kernel spmm --matrix " + matrix + " --k 8 --compare kk" + quick,
                                "env SPROCKET_HOST_ISA=baseline");
  ASSERT_EQ(base.status, 0) << base.out << base.err;
  const std::vector<Object> lines = json_lines(base);
  ASSERT_FALSE(lines.empty());
  for (const Object& r : lines) {
    expect_matrix_line(r, "spmm", matrix, 2, 1);
    if (text(r, "impl") == "sprocket") EXPECT_EQ(text(r, "host_isa"), "baseline") << show(r);
  }
  const Output bad = run_bench("--kernel spmv --matrix " + matrix + quick, "env SPROCKET_HOST_ISA=avx512");
  EXPECT_EQ(bad.status, 1) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("SPROCKET_HOST_ISA must be auto, baseline or avx2_fma, not \"avx512\""), std::string::npos)
      << bad.err;
}

// A configuration that asked for the graphblas peer (the default of the host configurations) has
// it: its absence stopped the configuration, so none of the graphblas tests below may skip.
TEST(SprocketBench, GraphblasPeerIsInTheBuildUnlessOptedOut) {
#ifdef SPROCKET_BENCH_GRAPHBLAS_REQUIRED
  EXPECT_TRUE(built_with_graphblas()) << "configured with the graphblas peer, but sprocket-bench does not offer it";
#else
  GTEST_SKIP() << "configured with -DSPROCKET_BENCH_GRAPHBLAS=OFF";
#endif
}

TEST(SprocketBench, GraphblasAbsentIsAUsageError) {
  if (built_with_graphblas()) GTEST_SKIP() << "sprocket-bench built with GraphBLAS";
  const Output out = run_bench("--kernel sddmm --matrix gen:poisson2d:n=8 --compare graphblas");
  EXPECT_EQ(out.status, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("built without SuiteSparse:GraphBLAS"), std::string::npos) << out.err;
}

/// A GraphBLAS peer's line: the way it chose among those it tried, its trials, its version and the
/// first call's seconds.
void expect_graphblas_line(const Object& r, const std::set<std::string>& ways) {
  EXPECT_EQ(text(r, "variant"), "default") << show(r);
  EXPECT_EQ(ways.count(text(r, "peer_algorithm")), 1u) << show(r);
  for (const std::string& way : ways) EXPECT_NE(text(r, "peer_trials").find(way + " "), std::string::npos) << show(r);
  expect_string(r, "peer_version");
  expect_number(r, "peer_first_use_seconds");
  expect_number(r, "copy_seconds");
  // Its copies are not a set-up of the peer; the trial of its ways is, and is all of it.
  expect_number(r, "peer_trial_seconds");
  EXPECT_EQ(text(r, "setup_seconds"), text(r, "peer_trial_seconds")) << show(r);
}

// The graphblas peers of spmv (GrB_mxv) and spmm (GrB_mxm with a full B), Debian's (graphblas) and
// 9.3.1 (graphblas9), each where the build offers it: present, checked against the reference,
// compared in ratio_vs_<peer>, each with the way it chose.
TEST(SprocketBench, GraphblasPeersOfSpmvAndSpmm) {
  const std::string matrix = "gen:poisson2d:n=12";
  bool ran = false;
  for (const std::string peer : {"graphblas", "graphblas9"}) {
    if (offers_peer("spmv", peer)) {
      ran = true;
      const Output spmv = run_bench("--kernel spmv --matrix " + matrix + " --compare kk," + peer + quick);
      ASSERT_EQ(spmv.status, 0) << spmv.out << spmv.err;
      const std::vector<Object> spmv_lines = json_lines(spmv);
      for (const Object& r : spmv_lines) expect_matrix_line(r, "spmv", matrix, 2, 1);
      EXPECT_EQ(values_of(spmv_lines, peer, "variant"), std::vector<std::string>{"default"});
      for (const Object& r : spmv_lines)
        if (text(r, "impl") == peer) expect_graphblas_line(r, {"mxv_accum_full", "mxv_new"});
      expect_ratios(spmv_lines, {"kk", peer});
    }
    if (offers_peer("spmm", peer)) {
      ran = true;
      const Output spmm = run_bench("--kernel spmm --matrix " + matrix + " --k 3 --layout both --compare " + peer + quick);
      ASSERT_EQ(spmm.status, 0) << spmm.out << spmm.err;
      const std::vector<Object> spmm_lines = json_lines(spmm);
      for (const Object& r : spmm_lines) expect_matrix_line(r, "spmm", matrix, 2, 1);
      EXPECT_EQ(values_of(spmm_lines, peer, "layout"), (std::vector<std::string>{"right", "left"}));
      for (const Object& r : spmm_lines)
        if (text(r, "impl") == peer) expect_graphblas_line(r, {"mxm_accum_full", "mxm_new"});
      expect_ratios(spmm_lines, {peer});
    }
  }
#ifdef SPROCKET_BENCH_GRAPHBLAS_REQUIRED
  EXPECT_TRUE(ran) << "configured with the graphblas peer, but neither spmv nor spmm offers it";
#else
  if (!ran) GTEST_SKIP() << "neither spmv nor spmm offers a graphblas peer in this build";
#endif
}

TEST(SprocketBench, StreamJsonLines) {
  const Output out = run_bench("--kernel stream --stream-size 4096" + quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> lines = json_lines(out);
  ASSERT_EQ(lines.size(), 2u) << out.out;
  for (const Object& r : lines) {
    EXPECT_EQ(text(r, "kernel"), "stream") << show(r);
    EXPECT_EQ(text(r, "impl"), "sprocket") << show(r);
    for (const char* key : {"variant", "space"}) expect_string(r, key);
    for (const char* key : {"seconds", "gbps", "gflops", "seconds_min", "seconds_max"}) expect_number(r, key);
    for (const char* key : {"n", "bytes", "repeat", "warmup"}) expect_integer(r, key);
    expect_boolean(r, "check");
    EXPECT_EQ(text(r, "check"), "true") << show(r);
    EXPECT_EQ(number(r, "n"), 4096) << show(r);
    EXPECT_EQ(number(r, "bytes"), 4096 * (text(r, "variant") == "copy" ? 16 : 24)) << show(r);
  }
  EXPECT_EQ(text(lines[0], "variant"), "copy");
  EXPECT_EQ(text(lines[1], "variant"), "triad");
}

TEST(SprocketBench, GramJsonLines) {
  const bool host = offers_peer("gram", "dgemm");
  const Output out = run_bench(std::string("--kernel gram --rows 300,37 --cols 3") + (host ? " --compare dgemm" : "") +
                               quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> lines = json_lines(out);
  const std::set<std::string> ops{"gram", "gram_sym", "combine", "combine_inplace", "combine_gram"};
  // Per (n, op): auto and kokkos, and the dgemm peer but for the fused op.
  ASSERT_EQ(lines.size(), 2u * (5 * 2 + (host ? 4 : 0))) << out.out;
  for (const Object& r : lines) {
    EXPECT_EQ(text(r, "kernel"), "gram") << show(r);
    EXPECT_EQ(ops.count(text(r, "op")), 1u) << show(r);
    for (const char* key : {"seconds", "gflops", "gbps", "seconds_min", "seconds_max"}) expect_number(r, key);
    for (const char* key : {"n", "p", "q", "repeat", "warmup", "concurrency"}) expect_integer(r, key);
    for (const char* key : {"space", "blas"}) expect_string(r, key);
    EXPECT_EQ(text(r, "check"), "true") << show(r);
    EXPECT_TRUE(number(r, "n") == 300 || number(r, "n") == 37) << show(r);
    EXPECT_EQ(number(r, "p"), 3) << show(r);
    if (text(r, "impl") == "sprocket") {
      const std::string v = text(r, "variant");
      EXPECT_TRUE(v == "auto" || v == "kokkos") << show(r);
      if (v == "kokkos") EXPECT_EQ(text(r, "path"), "kokkos") << show(r);
      EXPECT_EQ(r.count("ratio_vs_dgemm"), host && text(r, "op") != "combine_gram" ? 1u : 0u) << show(r);
    } else {
      EXPECT_EQ(text(r, "impl"), "dgemm") << show(r);
      EXPECT_EQ(text(r, "variant"), "default") << show(r);
    }
  }
}

/// The peer a ratio key compares with ("kk" for ratio_vs_kk, numeric_ratio_vs_kk and
/// ratio_vs_kk_incl_setup_10); "" for a key that is no ratio.
std::string ratio_peer(const std::string& key) {
  const size_t at = key.find("ratio_vs_");
  if (at == std::string::npos) return "";
  const std::string peer = key.substr(at + 9);
  return peer.substr(0, peer.find("_incl_setup_"));
}

/// Whether two lines belong to one section (one table: the same matrix, K and layout, or gram's
/// op and shape).
bool same_section(const Object& a, const Object& b) {
  for (const char* key : {"matrix", "k", "layout", "op", "n", "p"})
    if (text(a, key) != text(b, key)) return false;
  return true;
}

/// With SPROCKET_BENCH_CORRUPT=<corrupted> the results of that implementation are made wrong on
/// purpose (perf_tests/README.md, "Testing --check"), and `--check` must say so: its lines have
/// check false and the others true, no line of ours carries a ratio against it (none at all when
/// it is ours) and ratios_withheld says why, our ratios against the other peers stay, and the run
/// exits 1. `peers`: the peers the run compares with.
void expect_check_catches(const std::string& args, const std::string& corrupted,
                          const std::vector<std::string>& peers) {
  SCOPED_TRACE("SPROCKET_BENCH_CORRUPT=" + corrupted + " sprocket-bench " + args);
  const Output out = run_bench(args + quick, "env SPROCKET_BENCH_CORRUPT=" + corrupted);
  EXPECT_EQ(out.status, 1) << out.out << out.err;
  EXPECT_NE(out.err.find("check FAILED for "), std::string::npos) << out.err;
  const std::vector<Object> lines = json_lines(out);
  size_t corrupted_lines = 0;
  for (const Object& r : lines) {
    const std::string impl = text(r, "impl");
    expect_boolean(r, "check");
    EXPECT_EQ(text(r, "check"), impl == corrupted ? "false" : "true") << show(r);
    if (impl == corrupted) ++corrupted_lines;
    if (impl != "sprocket") continue;
    for (const auto& entry : r) {
      const std::string peer = ratio_peer(entry.first);
      if (peer.empty()) continue;
      EXPECT_NE(corrupted, "sprocket") << entry.first << " on a line of ours that failed: " << show(r);
      EXPECT_NE(peer, corrupted) << entry.first << " against a line that failed: " << show(r);
    }
    std::set<std::string> section_peers;
    for (const Object& p : lines)
      if (same_section(r, p) && text(p, "impl") != "sprocket") section_peers.insert(text(p, "impl"));
    if (corrupted == "sprocket") {
      if (!section_peers.empty()) EXPECT_EQ(text(r, "ratios_withheld"), "all: this result failed --check") << show(r);
      continue;
    }
    if (section_peers.count(corrupted))
      EXPECT_NE(text(r, "ratios_withheld").find(corrupted + " failed --check"), std::string::npos) << show(r);
    for (const std::string& peer : peers)
      if (peer != corrupted && section_peers.count(peer)) expect_number(r, "ratio_vs_" + peer);
  }
  EXPECT_GT(corrupted_lines, 0u) << out.out;
}

// --check fails for every kernel when one candidate's result is wrong: ours, and a peer (each
// graphblas peer too where the build has it: its result goes through a copy of its own).
/// `kernel_args` compared with `peers` and the graphblas and mkl peers where the build offers them
/// for that kernel: ours and
/// each peer corrupted in turn (expect_check_catches). Returns the arguments with --compare.
std::string expect_each_corruption_caught(const std::string& kernel_args, std::vector<std::string> peers) {
  const size_t at = kernel_args.find("--kernel ") + 9;
  const std::string kernel = kernel_args.substr(at, kernel_args.find(' ', at) - at);
  for (const char* library_peer : {"graphblas", "mkl"})
    if (offers_peer(kernel, library_peer)) peers.push_back(library_peer);
  std::string compare;
  for (const std::string& p : peers) compare += (compare.empty() ? "" : ",") + p;
  const std::string args = kernel_args + " --compare " + compare;
  expect_check_catches(args, "sprocket", peers);
  for (const std::string& p : peers) expect_check_catches(args, p, peers);
  return args;
}

TEST(SprocketBench, CheckCatchesAWrongSpmvResult) {
  expect_each_corruption_caught("--kernel spmv --matrix gen:poisson2d:n=8", {"kk"});
  // beta != 0: y starts from y0 in the check, not from NaN.
  expect_check_catches("--kernel spmv --matrix gen:poisson2d:n=8 --compare kk --beta 0.5", "kk", {"kk"});
}

TEST(SprocketBench, CheckCatchesAWrongBsrResult) {
  expect_each_corruption_caught("--kernel bsr --matrix gen:elasticity:n=3,dof=2", {"kk", "csr"});
}

TEST(SprocketBench, CheckCatchesAWrongSpmmResult) {
  expect_each_corruption_caught("--kernel spmm --matrix gen:poisson2d:n=8 --k 3 --layout both", {"kk", "spmv"});
}

TEST(SprocketBench, CheckCatchesAWrongSddmmResult) {
  expect_each_corruption_caught("--kernel sddmm --matrix gen:poisson2d:n=8 --k 3", {"kokkos_team"});
}

// The full product and the numeric re-runs of the corrupted implementation are all wrong; the
// numeric ratios (numeric_ratio_vs_<peer>) are withheld like the others.
TEST(SprocketBench, CheckCatchesAWrongSpgemmResult) {
  std::vector<std::string> peers{"kk", "kk_unsorted"};
  if (built_with_mkl()) peers.push_back("mkl_unsorted");  // (mkl itself: expect_each_corruption_caught)
  const std::string args = expect_each_corruption_caught("--kernel spgemm --matrix gen:poisson2d:n=8", peers);
  const Output out = run_bench(args + quick, "env SPROCKET_BENCH_CORRUPT=kk");
  EXPECT_NE(out.err.find("check FAILED for kk default on gen:poisson2d:n=8 (first numeric re-run"), std::string::npos)
      << out.err;
  EXPECT_NE(out.err.find("check FAILED for kk default on gen:poisson2d:n=8 (second numeric re-run"), std::string::npos)
      << out.err;
}

TEST(SprocketBench, CheckCatchesAWrongGramResult) {
  if (!offers_peer("gram", "dgemm")) GTEST_SKIP() << "no dgemm peer in this build";
  const std::string args = "--kernel gram --rows 40 --cols 2 --compare dgemm";
  expect_check_catches(args, "sprocket", {"dgemm"});
  expect_check_catches(args, "dgemm", {"dgemm"});
}

// Kokkos::initialize prints its warnings with printf (OMP_PROC_BIND not set, as when a user
// runs the binary without our build script's environment): they must go to stderr, not between
// the records.
TEST(SprocketBench, JsonStdoutHoldsOnlyRecordsWhenKokkosWarns) {
  const Output out = run_bench("--kernel stream --stream-size 4096" + quick, "env -u OMP_PROC_BIND -u OMP_PLACES");
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  EXPECT_EQ(json_lines(out).size(), 2u) << out.out;
  EXPECT_NE(out.err.find("OMP_PROC_BIND"), std::string::npos) << "Kokkos' warning is not on stderr:\n" << out.err;
}

TEST(SprocketBench, TableOutput) {
  const Output out = run_bench("--kernel spmv --matrix gen:poisson2d:n=8 --compare kk --check --repeat 2 --warmup 1");
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  EXPECT_EQ(out.out.rfind("spmv  gen:poisson2d:n=8  64 x 64, nnz 288, ", 0), 0u) << out.out;
  for (const char* column : {"impl", "variant", "kernel", "seconds", "GB/s", "GFLOP/s", "ratio_vs_kk", "check"})
    EXPECT_NE(out.out.find(column), std::string::npos) << column << "\n" << out.out;
}

TEST(SprocketBench, ConsecutiveOrderIsRecorded) {
  const std::string matrix = "gen:poisson2d:n=12";
  const Output out = run_bench("--kernel spmv --matrix " + matrix + " --compare kk --order consecutive" + quick);
  ASSERT_EQ(out.status, 0) << out.out << out.err;
  const std::vector<Object> lines = json_lines(out);
  ASSERT_EQ(lines.size(), 2u) << out.out;
  for (const Object& r : lines) {
    expect_matrix_line(r, "spmv", matrix, 2, 1);
    EXPECT_EQ(text(r, "order"), "consecutive") << show(r);
  }
  // The default order (interleaved and rotated between repeats, what the published tables use).
  const Output plain = run_bench("--kernel spmv --matrix " + matrix + quick);
  ASSERT_EQ(plain.status, 0) << plain.out << plain.err;
  for (const Object& r : json_lines(plain)) EXPECT_EQ(text(r, "order"), "rotated") << show(r);
}

// Each peer's own preparation is its set-up, as our analysis is ours: the trial of Kokkos
// Kernels' ways (every one run 6 times on the problem: SpMV's and BSR's on OpenMP, SpGEMM's 4
// algorithms) and, for SpMV, the ways' building (its row partitioning), and GraphBLAS's trial of
// its ways, all in setup_seconds, and so in ratio_vs_<peer>_incl_setup_<n> (expect_ratios).
TEST(SprocketBench, PeerSetupIncludesTheTrialOfItsWays) {
  std::string graphblas = built_with_graphblas() ? ",graphblas" : "";
  const std::vector<std::pair<std::string, std::string>> runs{
      {"spmv", "--kernel spmv --matrix gen:poisson2d:n=12 --compare kk" + graphblas},
      {"bsr", "--kernel bsr --matrix gen:elasticity:n=4,dof=3 --compare kk"},
      {"spgemm", "--kernel spgemm --matrix gen:poisson2d:n=12 --compare kk" + graphblas}};
  for (const auto& [kernel, args] : runs) {
    const Output out = run_bench(args + quick);
    ASSERT_EQ(out.status, 0) << out.out << out.err;
    const std::vector<Object> lines = json_lines(out);
    int peers = 0;
    for (const Object& r : lines) {
      if (text(r, "impl") == "sprocket") continue;
      ++peers;
      expect_trial_in_setup(r);
      if (text(r, "impl") == "kk") {
        // Several ways, each run: the trial took time (a single way would not be tried).
        EXPECT_NE(text(r, "peer_trials").find(", "), std::string::npos) << show(r);
        EXPECT_GT(number(r, "peer_trial_seconds"), 0.0) << show(r);
        if (kernel != "spgemm") expect_number(r, "peer_prepare_seconds");
      }
    }
    EXPECT_EQ(peers, graphblas.empty() || kernel == "bsr" ? 1 : 2) << kernel << "\n" << out.out;
    if (kernel != "spgemm") expect_ratios(lines, {"kk"});
  }
}

// The roof on every SpMV, BSR and SpMM line, ours and every peer's: the bytes it moves per apply,
// its GB/s and, with --stream, that as a fraction of the triad of the same run.
TEST(SprocketBench, RoofOnEveryLineOfSpmvBsrAndSpmm) {
  const std::string graphblas = built_with_graphblas() ? ",graphblas" : "";
  for (const std::string& args :
       {"--kernel spmv --matrix gen:poisson2d:n=12 --compare kk" + graphblas,
        std::string("--kernel bsr --matrix gen:elasticity:n=4,dof=3 --compare kk,csr"),
        "--kernel spmm --matrix gen:poisson2d:n=12 --k 3 --layout both --compare kk,spmv" + graphblas}) {
    const Output out = run_bench(args + " --stream --stream-size 4096" + quick);
    ASSERT_EQ(out.status, 0) << out.out << out.err;
    const std::vector<Object> all = json_lines(out);
    ASSERT_GE(all.size(), 3u) << out.out;
    ASSERT_EQ(text(all[1], "variant"), "triad") << out.out;
    const double triad = number(all[1], "gbps");
    ASSERT_GT(triad, 0.0) << out.out;
    std::set<std::string> impls;
    for (size_t i = 2; i < all.size(); ++i) {
      const Object& r = all[i];
      impls.insert(text(r, "impl"));
      expect_integer(r, "bytes");
      EXPECT_GT(number(r, "bytes"), 0.0) << show(r);
      expect_number(r, "gbps");
      expect_number(r, "stream_fraction");
      EXPECT_NEAR(number(r, "stream_fraction"), number(r, "gbps") / triad, 1e-4 * number(r, "stream_fraction"))
          << show(r);
    }
    EXPECT_GE(impls.size(), 3u) << args << ": ours and every peer";
  }
}

TEST(SprocketBench, BadUsageExitsTwoNamingTheProblem) {
  struct Case {
    std::string args;
    std::string message;  // part of the error on stderr
  };
  const std::vector<Case> cases = {
      {"--kernel spmv --matrix gen:poisson2d:n=8 --bogus", "unknown option --bogus"},
      {"--matrix gen:poisson2d:n=8", "--kernel is required"},
      {"--kernel nope", "unknown kernel \"nope\""},
      {"--kernel spmv", "needs at least one --matrix"},
      {"--kernel stream --matrix gen:poisson2d:n=8", "takes no --matrix"},
      {"--kernel gram --rows 0", "--rows needs an integer >= 1"},
      {"--kernel gram --cols 4,x", "--cols needs an integer >= 1"},
      {"--kernel spmv --matrix gen:poisson2d:n=8 --variant fastest", "unknown spmv variant \"fastest\""},
      {"--kernel bsr --matrix gen:poisson2d:n=8 --variant fastest", "unknown bsr variant \"fastest\""},
      {"--kernel spmm --matrix gen:poisson2d:n=8 --variant fastest", "unknown spmm variant \"fastest\""},
      {"--kernel sddmm --matrix gen:poisson2d:n=8 --variant fastest", "unknown sddmm variant \"fastest\""},
      {"--kernel sddmm --matrix gen:poisson2d:n=8 --compare kk", "unknown peer \"kk\""},
      {"--kernel spgemm --matrix gen:poisson2d:n=8 --variant fastest", "unknown spgemm variant \"fastest\""},
      {"--kernel spgemm --matrix gen:poisson2d:n=8 --compare kokkos_team", "unknown peer \"kokkos_team\""},
      {"--kernel spgemm --matrix gen:poisson2d:n=8 --alpha 2", "--alpha and --beta do not apply to --kernel spgemm"},
      {"--kernel sddmm --matrix gen:poisson2d:n=8 --layout up", "--layout must be right, left or both"},
      {"--kernel spmv --matrix gen:poisson2d:n=8 --compare petsc", "unknown peer \"petsc\""},
      {"--kernel spmv --matrix gen:poisson2d:n=8 --repeat 0", "--repeat needs an integer >= 1"},
      {"--kernel spmv --matrix gen:poisson2d:n=8 --scalar half", "--scalar must be double or float"},
      {"--kernel spmv --matrix gen:poisson2d:n=8 --offset long", "--offset must be int or size_t"},
      {"--kernel spmv --matrix gen:poisson2d:n=8 --alpha x", "--alpha needs a finite number"},
      {"--kernel bsr --matrix gen:poisson2d:n=8 --block-size 0", "--block-size needs auto or an integer"},
      {"--kernel spmm --matrix gen:poisson2d:n=8 --k 0", "--k needs an integer >= 1"},
      {"--kernel spmm --matrix gen:poisson2d:n=8 --layout up", "--layout must be right, left or both"},
      {"--kernel spmv --matrix gen:poisson2d:n=8 --check=yes", "--check takes no value"},
      {"--kernel spmv --matrix", "--matrix needs a value"},
      {"--kernel spmv --matrix gen:poisson2d:n=8 --order random", "--order: \"random\" (valid: interleaved, consecutive)"},
  };
  for (const Case& c : cases) {
    const Output out = run_bench(c.args);
    EXPECT_EQ(out.status, 2) << c.args << "\n" << out.out << out.err;
    EXPECT_NE(out.err.find(c.message), std::string::npos) << c.args << "\n" << out.err;
    EXPECT_TRUE(out.out.empty()) << c.args << "\n" << out.out;
  }
  // The error about a variant lists the valid names.
  const Output variant = run_bench("--kernel spmm --matrix gen:poisson2d:n=8 --variant fastest");
  EXPECT_NE(variant.err.find("valid: auto, csr_rows, aspt, portable"), std::string::npos) << variant.err;
}

// --scalar float --offset size_t: measured and checked in a bench built for every pair
// (SPROCKET_BENCH_TYPES=all: make bench, make build); refused with the reason and the remedy, and
// nothing measured, in one built for double / int alone (make test, the CUDA compile check).
TEST(SprocketBench, OtherScalarAndOffsetPairsRunOrAreRefusedSayingWhy) {
  for (const char* kernel : {"spmv", "spmm", "spgemm"}) {
    const std::string args =
        std::string("--kernel ") + kernel + " --matrix gen:poisson2d:n=8 --scalar float --offset size_t" + quick;
    const Output out = run_bench(args);
#ifdef SPROCKET_BENCH_BUILT_DOUBLE_INT_ONLY
    EXPECT_EQ(out.status, 2) << args << "\n" << out.out << out.err;
    EXPECT_NE(out.err.find("built for --scalar double --offset int only"), std::string::npos) << out.err;
    EXPECT_NE(out.err.find("SPROCKET_BENCH_TYPES=all (make bench"), std::string::npos) << out.err;
    EXPECT_TRUE(out.out.empty()) << args << "\n" << out.out;
#else
    ASSERT_EQ(out.status, 0) << args << "\n" << out.out << out.err;
    const std::vector<Object> lines = json_lines(out);
    ASSERT_FALSE(lines.empty()) << out.out;
    for (const Object& r : lines) {
      EXPECT_EQ(text(r, "scalar"), "float") << show(r);
      EXPECT_EQ(text(r, "offset"), "size_t") << show(r);
      EXPECT_EQ(text(r, "check"), "true") << show(r);
      EXPECT_LE(number(r, "max_err_over_tol"), 1.0) << show(r);
    }
#endif
  }
}

// ------------------------------------------------------------------------------------------
// The mkl peers (bench_mkl.hpp, mkl_peer.cpp): Intel MKL's inspector-executor sparse BLAS.

// A configuration that asked for the mkl peer (the host builds of `make test` and `make bench`)
// has it in every kernel MKL serves: its absence stopped the configuration, so none of the mkl
// tests below may skip.
TEST(SprocketBench, MklPeerIsInTheBuildWhenAskedFor) {
#ifdef SPROCKET_BENCH_MKL_REQUIRED
  for (const std::string kernel : {"spmv", "bsr", "spmm", "spgemm"})
    EXPECT_TRUE(offers_peer(kernel, "mkl")) << kernel << ": configured with the mkl peer, but it is not offered";
  EXPECT_TRUE(offers_peer("spgemm", "mkl_unsorted"));
#else
  GTEST_SKIP() << "configured without the mkl peer (SPROCKET_BENCH_MKL=OFF)";
#endif
}

TEST(SprocketBench, MklAbsentIsAUsageError) {
  if (built_with_mkl()) GTEST_SKIP() << "sprocket-bench built with MKL";
  const Output out = run_bench("--kernel spmv --matrix gen:poisson2d:n=8 --compare mkl");
  EXPECT_EQ(out.status, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("built without Intel MKL"), std::string::npos) << out.err;
}

/// An mkl line: checked, the way it kept among those it tried (each named in peer_trials), MKL's
/// version and code path, our BLAS still serving dgemm_, and (all but spgemm, whose every run is a
/// whole product) a set-up that counts the kept way's preparation and the trial.
void expect_mkl_line(const Object& r, const std::set<std::string>& ways) {
  EXPECT_EQ(text(r, "check"), "true") << show(r);
  EXPECT_EQ(text(r, "variant"), "default") << show(r);
  EXPECT_EQ(ways.count(text(r, "peer_algorithm")), 1u) << show(r);
  for (const std::string& way : ways) EXPECT_NE(text(r, "peer_trials").find(way + " "), std::string::npos) << show(r);
  EXPECT_NE(text(r, "peer_version").find("Math Kernel Library"), std::string::npos) << show(r);
  EXPECT_FALSE(text(r, "peer_code_path").empty()) << show(r);
  EXPECT_FALSE(text(r, "dgemm_from").empty()) << show(r);
  EXPECT_EQ(text(r, "dgemm_from").find("mkl"), std::string::npos) << "our BLAS calls go to MKL: " << show(r);
  expect_number(r, "peer_trial_seconds");
  if (text(r, "kernel") != "spgemm") {
    expect_number(r, "setup_seconds");
    const double parts = number(r, "peer_trial_seconds") + number(r, "peer_prepare_seconds");
    EXPECT_GE(number(r, "setup_seconds"), parts * (1 - 1e-6)) << show(r);
  }
}

// Every kernel MKL serves, compared with it and checked against the reference (the spgemm lines'
// check covers the full product and two numeric re-runs on changed values), beta != 0 included.
TEST(SprocketBench, MklPeersOfSpmvBsrSpmmAndSpgemm) {
  if (!built_with_mkl()) {
#ifdef SPROCKET_BENCH_MKL_REQUIRED
    FAIL() << "configured with the mkl peer, but sprocket-bench does not offer it";
#else
    GTEST_SKIP() << "sprocket-bench built without MKL";
#endif
  }
  struct Case {
    std::string args;
    std::vector<std::string> peers;
    std::set<std::string> ways;
  };
  const std::vector<Case> cases{
      {"--kernel spmv --matrix gen:poisson2d:n=12", {"kk", "mkl"}, {"plain", "ie"}},
      {"--kernel spmv --matrix gen:rmat:scale=8 --beta 0.5 --alpha -2", {"mkl"}, {"plain", "ie"}},
      {"--kernel bsr --matrix gen:elasticity:n=4,dof=3", {"kk", "mkl"}, {"csr_plain", "csr_ie", "bsr_ie"}},
      {"--kernel spmm --matrix gen:rmat:scale=8 --k 3,8 --layout both --beta 0.5", {"kk", "mkl"}, {"plain", "ie"}},
      {"--kernel spgemm --matrix gen:rmat:scale=8", {"kk", "mkl", "mkl_unsorted"}, {"spmm", "sp2m"}},
      {"--kernel spgemm --matrix gen:uniform:n=200,cols=90,avg=4", {"mkl", "mkl_unsorted"}, {"spmm", "sp2m"}},
  };
  for (const Case& c : cases) {
    std::string compare;
    for (const std::string& p : c.peers) compare += (compare.empty() ? "" : ",") + p;
    SCOPED_TRACE(c.args + " --compare " + compare);
    const Output out = run_bench(c.args + " --compare " + compare + quick);
    ASSERT_EQ(out.status, 0) << out.out << out.err;
    const std::vector<Object> lines = json_lines(out);
    size_t mkl_lines = 0;
    for (const Object& r : lines) {
      if (text(r, "impl").rfind("mkl", 0) != 0) continue;
      ++mkl_lines;
      expect_mkl_line(r, c.ways);
    }
    EXPECT_GT(mkl_lines, 0u) << out.out;
    expect_ratios(lines, c.peers);
  }
}

TEST(SprocketBench, UnreadableMatrixExitsOneAndTheOthersStillRun) {
  const Output out = run_bench("--kernel spmv --matrix /nonexistent/matrix.mtx --matrix gen:poisson2d:n=8" + quick);
  EXPECT_EQ(out.status, 1) << out.out << out.err;
  EXPECT_NE(out.err.find("/nonexistent/matrix.mtx"), std::string::npos) << out.err;
  const std::vector<Object> lines = json_lines(out);
  ASSERT_EQ(lines.size(), 1u) << out.out;
  EXPECT_EQ(text(lines[0], "matrix"), "gen:poisson2d:n=8");
}

}  // namespace
