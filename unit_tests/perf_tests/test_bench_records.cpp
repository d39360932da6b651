// sprocket-bench's record rules that every published figure relies on (perf_tests/bench_common.hpp):
// no ratio against a line whose --check failed, and the ratio keys it recognises; the choice of a
// peer's fastest way (fastest_way). The bench's JSON contract as a user runs it is
// test_sprocket_bench.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.hpp"

namespace {

using sprocket_bench::Record;

Record line(const std::string& impl, bool check) {
  Record r;
  r.set("kernel", "spgemm").set("impl", impl).set("variant", "default").set("seconds", 1.0).set("check", check);
  return r;
}

Record ours(bool check) {
  Record r = line("sprocket", check);
  for (const char* peer : {"kk", "kk_unsorted", "graphblas"}) {
    const std::string p = peer;
    r.set("ratio_vs_" + p, 2.0).set("numeric_ratio_vs_" + p, 3.0);
    for (const char* n : {"1", "10", "100"}) r.set("ratio_vs_" + p + "_incl_setup_" + n, 1.5);
  }
  return r;
}

bool has(const Record& r, const std::string& key) { return r.find(key) != nullptr; }

TEST(BenchRecords, RatioKeyPeer) {
  using sprocket_bench::ratio_key_peer;
  EXPECT_EQ(ratio_key_peer("ratio_vs_kk"), "kk");
  EXPECT_EQ(ratio_key_peer("ratio_vs_kk_unsorted"), "kk_unsorted");
  EXPECT_EQ(ratio_key_peer("numeric_ratio_vs_graphblas9"), "graphblas9");
  EXPECT_EQ(ratio_key_peer("ratio_vs_kk_incl_setup_100"), "kk");
  EXPECT_EQ(ratio_key_peer("ratio_vs_kk_unsorted_incl_setup_1"), "kk_unsorted");
  EXPECT_EQ(ratio_key_peer("seconds"), "");
  EXPECT_EQ(ratio_key_peer("ratios_withheld"), "");
}

TEST(BenchRecords, NoRatioAgainstAPeerThatFailedItsCheck) {
  std::vector<Record> records{ours(true), line("kk", false), line("kk_unsorted", true), line("graphblas", true)};
  sprocket_bench::withhold_failed_ratios(records);
  const Record& r = records[0];
  for (const char* key : {"ratio_vs_kk", "numeric_ratio_vs_kk", "ratio_vs_kk_incl_setup_1", "ratio_vs_kk_incl_setup_10",
                          "ratio_vs_kk_incl_setup_100"})
    EXPECT_FALSE(has(r, key)) << key << " kept against a failed peer: " << r.to_json();
  // kk_unsorted is another peer (its name starts like kk's): its ratios stay, as graphblas's do.
  for (const char* key : {"ratio_vs_kk_unsorted", "numeric_ratio_vs_kk_unsorted", "ratio_vs_kk_unsorted_incl_setup_1",
                          "ratio_vs_graphblas", "numeric_ratio_vs_graphblas", "ratio_vs_graphblas_incl_setup_100"})
    EXPECT_TRUE(has(r, key)) << key << " dropped: " << r.to_json();
  EXPECT_EQ(r.text("ratios_withheld"), "kk failed --check") << r.to_json();
  // The failed line itself is still printed, with its check.
  EXPECT_EQ(records[1].number("check"), 0.0);
  EXPECT_FALSE(has(records[2], "ratios_withheld"));
}

TEST(BenchRecords, OurFailedLineCarriesNoRatioAtAll) {
  std::vector<Record> records{ours(false), line("kk", true), line("graphblas", true)};
  sprocket_bench::withhold_failed_ratios(records);
  for (const auto& f : records[0].fields())
    EXPECT_EQ(sprocket_bench::ratio_key_peer(f.key), "") << f.key << " kept on a failed line of ours";
  EXPECT_NE(records[0].text("ratios_withheld").find("this result failed --check"), std::string::npos);
}

TEST(BenchRecords, NothingWithheldWithoutAFailedCheckOrWithoutACheck) {
  for (const bool checked : {true, false}) {
    std::vector<Record> records{ours(true), line("kk", true), line("graphblas", true)};
    if (!checked)
      for (Record& r : records) r.erase_if([](const std::string& key) { return key == "check"; });
    const std::string before = records[0].to_json();
    sprocket_bench::withhold_failed_ratios(records);
    EXPECT_EQ(records[0].to_json(), before);
  }
}

// The two orders of time_interleaved: which function each call was, warm-ups included, and what
// after[i] tidies.
TEST(BenchRecords, InterleavedAndConsecutiveOrders) {
  std::string sequence;
  const std::vector<std::function<void()>> fns{[&] { sequence += 'a'; }, [&] { sequence += 'b'; }};
  const std::vector<std::function<void()>> after{[&] { sequence += '.'; }, {}};
  auto t = sprocket_bench::time_interleaved(fns, 1, 2, after);
  EXPECT_EQ(sequence, "a.ba.bba.") << "warm-up round, then repeat r calls a and b in turn, from fns[r mod 2]";
  ASSERT_EQ(t.size(), 2u);
  sequence.clear();
  t = sprocket_bench::time_interleaved(fns, 1, 2, after, true);
  EXPECT_EQ(sequence, "a.a.a.bbb") << "each function's warm-up and timed calls back to back";
  ASSERT_EQ(t.size(), 2u);
  for (const auto& timing : t) EXPECT_GE(timing.max, timing.min);
}

// The interleaved order rotates: repeat r (and warm-up round w) starts with fns[r mod n], so no
// implementation, ours included, always runs first (a cold start) or always right after the same
// one (finding the operands they share in the caches). Three functions, one warm-up, three
// repeats: each function starts one round, and each is run right after each of the others.
TEST(BenchRecords, InterleavedOrderRotatesTheFirstCandidate) {
  std::string sequence;
  const std::vector<std::function<void()>> fns{
      [&] { sequence += 'a'; }, [&] { sequence += 'b'; }, [&] { sequence += 'c'; }};
  const auto t = sprocket_bench::time_interleaved(fns, 1, 3);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(sequence.substr(0, 3), "abc") << "warm-up round 0 starts at fns[0]";
  EXPECT_EQ(sequence.substr(3), "abcbcacab") << "repeat r starts at fns[r mod 3]";
  // Two warm-up rounds: the second starts at fns[1] as well.
  sequence.clear();
  sprocket_bench::time_interleaved(fns, 2, 1);
  EXPECT_EQ(sequence, "abcbcaabc");
  // Every function ran first in one timed repeat, and each got `repeat` samples.
  for (const auto& timing : t) EXPECT_GE(timing.max, timing.min);
}

TEST(BenchRecords, FastestWayIsTheOneWithTheSmallestMedian) {
  int calls[3] = {0, 0, 0};
  const auto sleeper = [&](int i, int micros) {
    return [&calls, i, micros] {
      ++calls[i];
      std::this_thread::sleep_for(std::chrono::microseconds(micros));
    };
  };
  const std::vector<sprocket_bench::Way> ways{
      {"slow", sleeper(0, 20000)}, {"fast", sleeper(1, 1000)}, {"middle", sleeper(2, 8000)}};
  std::string trials;
  EXPECT_EQ(sprocket_bench::fastest_way(ways, &trials), 1u);
  for (int c : calls) EXPECT_EQ(c, 6) << "one untimed and five timed calls each";
  for (const char* name : {"slow ", "fast ", "middle "}) EXPECT_NE(trials.find(name), std::string::npos) << trials;
  // A single way is not tried.
  int single = 0;
  EXPECT_EQ(sprocket_bench::fastest_way({{"only", [&] { ++single; }}}, &trials), 0u);
  EXPECT_EQ(single, 0);
}

}  // namespace
