// Configurations: re-chunking, RAC units, preconditioners, dictionaries, threads; the round-trip
// check catches damaged buffers.
#include "rzbench/experiment.hpp"
#include "rzbench/report.hpp"
#include "rzbench/runner.hpp"
#include "rzbench/synth.hpp"

#include <gtest/gtest.h>
#include <map>

namespace rzbench {
// Test-only access to a trial's compressed arena, to prove the round-trip check works.
struct TrialTestAccess {
   static Bytes &compressed(Trial &t) { return t.comp_; }
};
} // namespace rzbench

using namespace rzbench;

namespace {

Dataset small_event()
{
   Dataset d = make_synthetic("event");
   d.baskets.resize(24);
   return d;
}

std::map<std::string, Bytes> branch_data(const std::vector<Basket> &baskets)
{
   std::map<std::string, Bytes> out;
   for (const auto &b : baskets)
      out[b.branch].insert(out[b.branch].end(), b.raw.begin(), b.raw.begin() + static_cast<std::ptrdiff_t>(b.data_bytes));
   return out;
}

} // namespace

TEST(Experiment, RechunkKeepsEveryBranchsEntriesAndRespectsTheSize)
{
   const Dataset d = make_synthetic("event");
   for (size_t size : {4096u, 100000u, 1048576u}) {
      const auto re = rechunk(d.baskets, size);
      EXPECT_EQ(branch_data(re), branch_data(d.baskets)) << size;
      uint64_t entries_before = 0, entries_after = 0;
      for (const auto &b : d.baskets)
         entries_before += b.entries;
      for (const auto &b : re) {
         entries_after += b.entries;
         if (b.entries > 1) {
            EXPECT_LE(b.raw.size(), size);
         }
         EXPECT_EQ(entry_spans(b).size(), b.entries);
      }
      EXPECT_EQ(entries_after, entries_before);
   }
   EXPECT_GT(rechunk(d.baskets, 4096).size(), d.baskets.size());
   EXPECT_LT(rechunk(d.baskets, 1048576).size(), d.baskets.size());
}

TEST(Experiment, RechunkKeepsRNTuplePagesAsTheyAre)
{
   // Split-encoded page bytes cannot be cut and joined: pages pass through untouched.
   Dataset d = small_event();
   for (size_t i = 0; i < d.baskets.size(); i += 2)
      d.baskets[i].page = true;
   const auto re = rechunk(d.baskets, 1048576);
   size_t pages = 0;
   for (const auto &b : re)
      if (b.page) {
         const Basket &original = d.baskets[2 * pages++];
         EXPECT_EQ(b.raw, original.raw);
         EXPECT_EQ(b.branch, original.branch);
      }
   EXPECT_EQ(pages, 12u);
}

TEST(Experiment, EveryModePreconditionerAndThreadCountRoundTrips)
{
   // Two fixed-size and two variable-size branches, two baskets each: RAC makes one codec call
   // per entry, so keep the entry count small (this test also runs under ASan).
   const Dataset full = make_synthetic("event");
   Dataset d = full;
   d.baskets.clear();
   std::map<std::string, int> taken;
   for (const auto &b : full.baskets)
      if ((b.branch == "fMatrix[4][4]" || b.branch == "fTemperature" || b.branch == "fTracks.fPx" ||
           b.branch == "fTracks.fCharge") &&
          taken[b.branch]++ < 2)
         d.baskets.push_back(b);
   ASSERT_EQ(d.baskets.size(), 7u); // fTemperature (2000 floats) fits one basket
   for (Mode m : {Mode::kBasket, Mode::kRacSequential, Mode::kRacRandom})
      for (Preconditioner p : {Preconditioner::kNone, Preconditioner::kShuffle, Preconditioner::kBitshuffle})
         for (int threads : {1, 3}) {
            Config c;
            c.setting = 404;
            c.mode = m;
            c.preconditioner = p;
            c.threads = threads;
            Trial t(d, c);
            t.compress_pass();
            t.decompress_pass();
            EXPECT_EQ(t.check(), std::nullopt) << mode_name(m) << " " << preconditioner_name(p) << " " << threads;
            EXPECT_GT(t.compressed_bytes(), 0u);
         }
}

TEST(Experiment, RacCostsRatioAndCountsDataOnly)
{
   const Dataset d = make_synthetic("tfloat");
   Config basket;
   basket.setting = 101;
   Config rac = basket;
   rac.mode = Mode::kRacSequential;
   Trial tb(d, basket), tr(d, rac);
   tb.compress_pass();
   tr.compress_pass();
   const double rb = double(tb.uncompressed_bytes()) / double(tb.compressed_bytes());
   const double rr = double(tr.uncompressed_bytes()) / double(tr.compressed_bytes());
   EXPECT_GT(rb, 3.0);
   EXPECT_LT(rr, 1.0) << "24-byte entries compressed alone (+4-byte offsets) cannot shrink";
   EXPECT_EQ(tr.uncompressed_bytes(), tb.uncompressed_bytes()); // fixed-size: data = raw
}

TEST(Experiment, DictionaryIsTrainedOnHalfAndCountedInTheSize)
{
   const Dataset d = make_synthetic("nanoaod-offsets");
   Config plain;
   plain.setting = 505;
   Config dict = plain;
   dict.dictionary_size = 4096;
   Trial tp(d, plain), td(d, dict);
   tp.compress_pass();
   td.compress_pass();
   td.decompress_pass();
   EXPECT_EQ(td.check(), std::nullopt);
   ASSERT_TRUE(td.dictionary_train_ms().has_value());
   EXPECT_GT(*td.dictionary_train_ms(), 0.0);
   EXPECT_FALSE(tp.dictionary_train_ms().has_value());
   EXPECT_LT(td.uncompressed_bytes(), tp.uncompressed_bytes()); // measured on the other half only
   EXPECT_GT(td.uncompressed_bytes(), tp.uncompressed_bytes() / 3);
}

TEST(Experiment, DictionaryNeedsEnoughBaskets)
{
   Config c;
   c.setting = 505;
   c.dictionary_size = 4096;
   EXPECT_THROW(Trial(make_synthetic("tlarge"), c), SkipConfig);
}

TEST(Experiment, DamagedCompressedDataIsAFailedCheck)
{
   const Dataset d = small_event();
   for (int setting : {101, 404, 505}) {
      Config c;
      c.setting = setting;
      Trial t(d, c);
      t.compress_pass();
      Bytes &comp = TrialTestAccess::compressed(t);
      for (size_t i = 20; i < 400; i += 3)
         comp[i] ^= 0xA5; // inside the first unit's compressed block
      t.decompress_pass();
      const auto err = t.check();
      ASSERT_TRUE(err.has_value()) << setting;
      EXPECT_FALSE(err->empty());
   }
}

TEST(Experiment, ExpandSkipsInvalidCombinations)
{
   RunOptions o;
   o.settings = {101, 505, 500};
   o.dictionary_sizes = {0, 1024};
   o.threads = {1, 2};
   const auto configs = expand_configs(o);
   // memcpy + 3 settings x 2 threads without dictionary + 505 x 2 threads with one
   EXPECT_EQ(configs.size(), 1u + 6u + 2u);
   EXPECT_TRUE(configs.front().memcpy_baseline);
   for (const auto &c : configs)
      if (c.dictionary_size > 0) {
         EXPECT_EQ(c.setting, 505);
      }
}

TEST(Experiment, RunnerProducesStatsAndTheJsonShape)
{
   RunOptions o;
   o.settings = {100, 101, 404};
   o.engine.min_samples = 3;
   o.engine.target_ms = 1;
   const auto results = run_benchmarks({small_event()}, o);
   ASSERT_EQ(results.size(), 4u);
   for (const auto &r : results) {
      EXPECT_FALSE(r.error.has_value()) << *r.error;
      ASSERT_TRUE(r.compress && r.decompress);
      EXPECT_EQ(r.compress->samples.size(), 3u);
      EXPECT_GT(r.decompress->median, 0.0);
      const auto j = result_json(r);
      EXPECT_TRUE(j["roundtrip_ok"].get<bool>());
      EXPECT_TRUE(j["error"].is_null());
   }
   EXPECT_EQ(results[0].codec, "memcpy");
   EXPECT_EQ(results[1].codec, "none");
   EXPECT_EQ(results[1].compressed_bytes, results[1].uncompressed_bytes) << "level 0 stores";
   EXPECT_EQ(results[3].codec, "lz4");
   Result failed = results[2];
   failed.error = "round-trip mismatch";
   const auto j = result_json(failed);
   EXPECT_TRUE(j["compress_mbps"].is_null());
   EXPECT_FALSE(j["roundtrip_ok"].get<bool>());
}
