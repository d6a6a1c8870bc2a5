// `rzbench ab`: the pairing statistics (ratio, disturbed rule, the median's order-statistic
// interval), loading a layer at run time, and one small interleaved run (structure and byte-exact
// checks only: nothing here depends on speed).
#include "rzbench/ab.hpp"
#include "rzbench/layer.hpp"
#include "rzbench/synth.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

using namespace rzbench;

namespace {

Repetition rep(double wall, double cpu, long nivcsw = 0, long long steal = 0)
{
   Repetition r;
   r.wall_s = wall;
   r.cpu_s = cpu;
   r.nivcsw = nivcsw;
   r.steal_ticks = steal;
   return r;
}

PairSample pair(Repetition a, Repetition b)
{
   PairSample p;
   p.a = a;
   p.b = b;
   return p;
}

} // namespace

TEST(AbStats, RatioIsTimeOfAOverTimeBOnTheChosenClock)
{
   const PairSample p = pair(rep(0.2, 0.1), rep(0.1, 0.05));
   EXPECT_DOUBLE_EQ(pair_ratio(p, AbClock::kCpu), 2.0) << "B took half the CPU time: twice as fast";
   EXPECT_DOUBLE_EQ(pair_ratio(pair(rep(0.3, 0.1), rep(0.1, 0.1)), AbClock::kWall), 3.0);
   EXPECT_DOUBLE_EQ(pair_ratio(pair(rep(0.3, 0.1), rep(0.1, 0.1)), AbClock::kCpu), 1.0)
      << "time switched out does not count on the CPU clock";
}

TEST(AbStats, DisturbedWhenEitherSideCrossesALimit)
{
   InterferenceLimits l;
   l.min_cpu_wall = 0.5;
   l.max_involuntary = 10;
   l.max_steal_ticks = 1;
   EXPECT_FALSE(pair_disturbed(pair(rep(1, 1, 10, 1), rep(1, 0.5, 0, 0)), l)) << "limits are inclusive";
   EXPECT_TRUE(pair_disturbed(pair(rep(1, 0.49), rep(1, 1)), l));
   EXPECT_TRUE(pair_disturbed(pair(rep(1, 1), rep(1, 1, 11)), l));
   EXPECT_TRUE(pair_disturbed(pair(rep(1, 1, 0, 2), rep(1, 1)), l));
   EXPECT_FALSE(pair_disturbed(pair(rep(1, 1, 0, -1), rep(1, 1, 0, -1)), l)) << "unreadable steal is not steal";
   EXPECT_EQ(disturbed_reasons(rep(1, 0.25, 12), l).size(), 2u);
   // The default limits never flag a dedicated worker's repetition (cpu/wall ~1, a few switches).
   EXPECT_TRUE(disturbed_reasons(rep(0.040, 0.0399, 3, 0), InterferenceLimits{}).empty());
}

TEST(AbStats, BinomialHalfCdf)
{
   EXPECT_DOUBLE_EQ(binomial_half_cdf(1, 0), 0.5);
   EXPECT_DOUBLE_EQ(binomial_half_cdf(4, 1), 5.0 / 16);
   EXPECT_DOUBLE_EQ(binomial_half_cdf(4, 4), 1.0);
   EXPECT_NEAR(binomial_half_cdf(31, 9), 0.0147, 1e-4);
}

TEST(AbStats, MedianIntervalRanks)
{
   MedianRanks r = median_ci_ranks(31, 0.95);
   EXPECT_EQ(r.lo, 10u);
   EXPECT_EQ(r.hi, 22u);
   EXPECT_NEAR(r.coverage, 1 - 2 * binomial_half_cdf(31, 9), 1e-12);
   EXPECT_GE(r.coverage, 0.95);
   EXPECT_LT(1 - 2 * binomial_half_cdf(31, 10), 0.95) << "rank 11 would not reach 95 %";
   r = median_ci_ranks(6, 0.95);
   EXPECT_EQ(r.lo, 1u);
   EXPECT_EQ(r.hi, 6u);
   EXPECT_NEAR(r.coverage, 1 - 2.0 / 64, 1e-12);
   r = median_ci_ranks(3, 0.95);
   EXPECT_EQ(r.lo, 1u) << "too few pairs: the whole range, with its lower coverage";
   EXPECT_EQ(r.hi, 3u);
   EXPECT_NEAR(r.coverage, 0.75, 1e-12);
   r = median_ci_ranks(0, 0.95);
   EXPECT_EQ(r.lo, 0u);
   EXPECT_EQ(r.coverage, 0);
}

TEST(AbStats, SummaryDropsAndCountsDisturbedPairs)
{
   AbParams params;
   params.limits.min_cpu_wall = 0.5;
   std::vector<PairSample> pairs;
   for (int i = 1; i <= 7; ++i) // ratios 1.01 .. 1.07
      pairs.push_back(pair(rep(1, 1 + 0.01 * i), rep(1, 1)));
   pairs.push_back(pair(rep(1, 0.1), rep(1, 1))); // disturbed: cpu/wall 0.1, ratio 0.1
   const RatioSummary s = summarize_pairs(pairs, params);
   EXPECT_EQ(s.pairs, 7u);
   EXPECT_EQ(s.disturbed_pairs, 1u);
   EXPECT_NEAR(s.ratio, 1.04, 1e-12);
   EXPECT_NEAR(s.ci_low, 1.01, 1e-12) << "n = 7: ranks 1 and 7 (coverage 98.4 %)";
   EXPECT_NEAR(s.ci_high, 1.07, 1e-12);
   ASSERT_EQ(s.samples.size(), 7u);
   EXPECT_NEAR(s.samples.front(), 1.01, 1e-12) << "samples keep the measurement order";

   const RatioSummary none = summarize_pairs({pairs.back()}, params);
   EXPECT_EQ(none.pairs, 0u);
   EXPECT_EQ(none.disturbed_pairs, 1u);
   EXPECT_TRUE(ratio_summary_json(none)["ratio"].is_null()) << "no pair kept: no ratio, not a made-up one";
}

TEST(Layer, HostAndUnloadable)
{
   const auto host = Layer::from_spec("host");
   EXPECT_TRUE(host->is_host());
   EXPECT_EQ(host->file(), "");
   EXPECT_EQ(host->api().zip, linked_zip_api().zip);
   EXPECT_THROW(Layer::from_spec("/nonexistent/libbbzip.so"), LayerError);
   EXPECT_THROW(Layer::from_spec(""), LayerError);
   const std::string not_elf = ::testing::TempDir() + "/not-a-layer.so";
   std::ofstream(not_elf) << "not a shared object\n";
   EXPECT_THROW(Layer::open(not_elf), LayerError);
   std::remove(not_elf.c_str());
   EXPECT_EQ(root_version_string(64000), "6.40.00");
}

#ifdef RZBENCH_TEST_LAYER
TEST(Layer, LoadedLayerWritesWhatTheHostWrites)
{
   // rootcompat built as a shared object: the same code as the host layer, loaded with dlopen.
   const auto loaded = Layer::open(RZBENCH_TEST_LAYER);
   EXPECT_FALSE(loaded->is_host());
   EXPECT_NE(loaded->api().zip, linked_zip_api().zip) << "RTLD_LOCAL | RTLD_DEEPBIND: its own copy";
   const nlohmann::json info = loaded->codec_info();
   EXPECT_EQ(info["set"], "layer");
   EXPECT_TRUE(info["root_version"].is_null());
   EXPECT_TRUE(info["libraries"].contains("zstd")) << info.dump();

   const Dataset d = make_synthetic("tfloat");
   AbParams params;
   params.pairs = 3;
   params.target_ms = 0; // one pass per repetition
   const auto host = Layer::host();
   const nlohmann::json out =
      run_ab({d}, {101, 505}, {"host", host.get()}, {RZBENCH_TEST_LAYER, loaded.get()}, params);
   ASSERT_EQ(out["results"].size(), 2u);
   for (const auto &r : out["results"]) {
      EXPECT_TRUE(r["error"].is_null()) << r.dump();
      EXPECT_TRUE(r["identical_output"].get<bool>());
      EXPECT_EQ(r["compressed_bytes"]["a"], r["compressed_bytes"]["b"]);
      for (const char *k : {"a", "b", "b_reads_a", "a_reads_b"})
         EXPECT_TRUE(r["roundtrip"][k].get<bool>()) << k;
      for (const char *dir : {"compress", "decompress"}) {
         const auto &s = r[dir]["summary"];
         EXPECT_EQ(s["pairs"].get<size_t>() + s["disturbed_pairs"].get<size_t>(), 3u);
         EXPECT_EQ(r[dir]["pairs"].size(), 3u);
         EXPECT_EQ(r[dir]["loops"], 1);
      }
   }
   EXPECT_EQ(out["interference"]["repetitions"], 2 * 2 * 3 * 2);
}
#endif

TEST(Ab, HostAgainstHostRoundTripsAndCountsEveryPair)
{
   const Dataset d = make_synthetic("tsmall");
   AbParams params;
   params.pairs = 4;
   params.target_ms = 0;
   const auto a = Layer::host(), b = Layer::host();
   const nlohmann::json out = run_ab({d}, {404}, {"host", a.get()}, {"host", b.get()}, params);
   ASSERT_EQ(out["results"].size(), 1u);
   const auto &r = out["results"][0];
   EXPECT_TRUE(r["error"].is_null());
   EXPECT_TRUE(r["identical_output"].get<bool>());
   size_t a_first = 0;
   for (const auto &p : r["compress"]["pairs"]) {
      a_first += p["first"] == "a";
      EXPECT_GT(p["a"]["cpu_s"].get<double>(), 0);
      EXPECT_GE(p["a"]["involuntary_switches"].get<long>(), 0);
   }
   EXPECT_LE(a_first, 4u);
   EXPECT_EQ(out["interference"]["repetitions"], 1 * 2 * 4 * 2);
}

TEST(Ab, SideBRunsItsOwnCodecAndLevel)
{
   // --b-codecs: side B runs (algorithm, level), the level handed to its layer unchanged (the
   // host layer reads it as ROOT's level: (5, 5) is 505 again, (5, 1) is 501, whose other bytes
   // A still reads); no pairs: sizes and round trips only, null ratios.
   const Dataset d = make_synthetic("tsmall");
   AbParams params;
   params.pairs = 0;
   params.target_ms = 0;
   const auto a = Layer::host(), b = Layer::host();
   const nlohmann::json out =
      run_ab({d}, {505, 505}, {"host", a.get()}, {"host", b.get()}, params, nullptr, {{5, 5}, {5, 1}});
   ASSERT_EQ(out["results"].size(), 2u);
   const auto &same = out["results"][0];
   EXPECT_TRUE(same["error"].is_null());
   EXPECT_EQ(same["b_codec"]["level"], 5);
   EXPECT_TRUE(same["identical_output"].get<bool>());
   const auto &fast = out["results"][1];
   EXPECT_TRUE(fast["error"].is_null());
   EXPECT_EQ(fast["b_codec"]["level"], 1);
   EXPECT_FALSE(fast["identical_output"].get<bool>());
   EXPECT_NE(fast["compressed_bytes"]["b"].get<uint64_t>(), fast["compressed_bytes"]["a"].get<uint64_t>());
   EXPECT_TRUE(fast["roundtrip"]["a_reads_b"].get<bool>());
   EXPECT_TRUE(fast["compress"]["summary"]["ratio"].is_null());
   EXPECT_THROW(run_ab({d}, {505}, {"host", a.get()}, {"host", b.get()}, params, nullptr, {{5, 1}, {5, 2}}),
                std::invalid_argument);
}

TEST(Ab, CountModeRunsOnePassPerSideInsteadOfPairs)
{
   // Outside valgrind the client requests are no-ops: the passes still run once per side and
   // direction, the decoded bytes are checked, and no timed pair or summary is produced.
   const Dataset d = make_synthetic("tsmall");
   AbParams params;
   params.pairs = 5; // ignored when counting
   params.count = true;
   const auto a = Layer::host(), b = Layer::host();
   const nlohmann::json out =
      run_ab({d}, {505, 101}, {"host", a.get()}, {"host", b.get()}, params, nullptr, {{5, 10}, {1, 1}});
   ASSERT_EQ(out["results"].size(), 2u);
   for (const auto &r : out["results"]) {
      EXPECT_TRUE(r["error"].is_null());
      EXPECT_TRUE(r["counted"].get<bool>());
      EXPECT_TRUE(r["roundtrip"]["a"].get<bool>() && r["roundtrip"]["b"].get<bool>());
      EXPECT_FALSE(r.contains("compress"));
      EXPECT_GT(r["uncompressed_bytes"].get<uint64_t>(), 0u);
   }
   EXPECT_EQ(out["interference"]["repetitions"], 0);
}
