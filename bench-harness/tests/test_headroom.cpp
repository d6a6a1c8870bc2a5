// `rzbench headroom`: the bare library paths write exactly the payload ROOT's framing puts after
// its header (so framed / bare compares the same work), decode ROOT's payloads byte-exactly, and
// one small run has the document's shape. Nothing here depends on speed.
#include "rzbench/framing.hpp"
#include "rzbench/headroom.hpp"
#include "rzbench/layer.hpp"
#include "rzbench/synth.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace rzbench;

namespace {

const int kSettings[] = {101, 106, 109, 201, 206, 401, 404, 409, 501, 505, 509};

// A basket of the synthetic "event" dataset above 4 kB that even LZ4-1 shrinks (ROOT stores
// the others: no payload to compare).
const Basket &some_basket()
{
   static const Dataset d = make_synthetic("event");
   for (const Basket &b : d.baskets) {
      if (b.raw.size() <= 4000)
         continue;
      Bytes out(b.raw.size());
      int srcsize = static_cast<int>(b.raw.size()), tgtsize = srcsize, irep = 0;
      linked_zip_api().zip(1, &srcsize, const_cast<char *>(reinterpret_cast<const char *>(b.raw.data())), &tgtsize,
                           reinterpret_cast<char *>(out.data()), &irep, 4);
      if (irep > 0)
         return b;
   }
   throw std::runtime_error("no basket above 4 kB that LZ4 compresses");
}

} // namespace

TEST(Headroom, BarePayloadIsTheBytesInsideRootsFrame)
{
   const Basket &b = some_basket();
   const ZipApi &api = linked_zip_api();
   for (int setting : kSettings) {
      SCOPED_TRACE(setting);
      Bytes framed(b.raw.size());
      int srcsize = static_cast<int>(b.raw.size()), tgtsize = srcsize, irep = 0;
      api.zip(setting % 100, &srcsize, const_cast<char *>(reinterpret_cast<const char *>(b.raw.data())), &tgtsize,
              reinterpret_cast<char *>(framed.data()), &irep, setting / 100);
      ASSERT_GT(irep, 0);
      const size_t off = framed_payload_offset(setting);
      for (bool reused : {false, true}) {
         SCOPED_TRACE(reused ? "reused" : "fresh");
         auto bare = make_bare_codec(setting, reused);
         Bytes out(b.raw.size());
         for (int round = 0; round < 2; ++round) { // the second call runs on a used context
            const size_t n = bare->compress(b.raw.data(), b.raw.size(), out.data(), out.size() - off);
            ASSERT_EQ(n + off, static_cast<size_t>(irep));
            EXPECT_EQ(0, std::memcmp(out.data(), framed.data() + off, n));
            Bytes back(b.raw.size());
            ASSERT_TRUE(bare->decompress(framed.data() + off, n, back.data(), back.size()));
            EXPECT_EQ(back, b.raw);
         }
      }
   }
}

TEST(Headroom, BareDecoderRejectsADamagedPayload)
{
   const Basket &b = some_basket();
   for (int setting : {101, 201, 404, 505}) {
      SCOPED_TRACE(setting);
      auto bare = make_bare_codec(setting, true);
      Bytes out(b.raw.size());
      const size_t n = bare->compress(b.raw.data(), b.raw.size(), out.data(), out.size());
      ASSERT_GT(n, 0u);
      Bytes back(b.raw.size());
      EXPECT_FALSE(bare->decompress(out.data(), n / 2, back.data(), back.size())); // truncated
   }
}

TEST(Headroom, SettingsWithoutABarePathAreRefused)
{
   EXPECT_THROW(make_bare_codec(301, false), std::invalid_argument);
   EXPECT_THROW(make_bare_codec(500, false), std::invalid_argument);
}

TEST(Headroom, SmallRunHasEveryComparisonAndSamePayloads)
{
   const Dataset d = make_synthetic("event");
   HeadroomParams p;
   p.ab.pairs = 3;
   p.ab.target_ms = 0;
   const auto doc = run_headroom({d}, {101, 404}, linked_zip_api(), p);
   ASSERT_EQ(doc["results"].size(), 2u);
   for (const auto &r : doc["results"]) {
      EXPECT_TRUE(r["error"].is_null()) << r["error"];
      for (const char *path : {"bare_fresh", "bare_reused"}) {
         const auto &same = r["same_payload"][path];
         EXPECT_GT(same["units"].get<size_t>(), 0u);
         EXPECT_EQ(same["units"], same["identical"]);
         EXPECT_EQ(same["stored_disagree"], 0);
      }
      for (const char *dir : {"compress", "decompress"}) {
         EXPECT_EQ(r[dir]["slots"].size(), 3u);
         EXPECT_EQ(r["minor_faults_per_pass"][dir].size(), 3u);
         for (const char *c : {"headroom", "framing", "context"}) {
            const auto &s = r[dir]["comparisons"][c];
            EXPECT_EQ(s["pairs"].get<size_t>() + s["disturbed_pairs"].get<size_t>(), 3u);
         }
      }
   }
}

TEST(Headroom, CpuidCostIsMeasuredOnX86)
{
#if defined(__x86_64__) || defined(__i386__)
   const auto us = cpuid_cost_us();
   ASSERT_TRUE(us.has_value());
   EXPECT_GT(*us, 0.0);
#else
   EXPECT_FALSE(cpuid_cost_us().has_value());
#endif
}

namespace {
// A layer that, like ROOT before it knew ZSTD, writes ZLIB for any algorithm.
void zlib_only_zip(int level, int *srcsize, char *src, int *tgtsize, char *tgt, int *irep, int)
{
   linked_zip_api().zip(level, srcsize, src, tgtsize, tgt, irep, 1);
}
} // namespace

TEST(Headroom, ALayerWithoutTheAlgorithmIsAnErrorNotARatio)
{
   ZipApi api = linked_zip_api();
   api.zip = &zlib_only_zip;
   HeadroomParams p;
   p.ab.pairs = 1;
   p.ab.target_ms = 0;
   const auto doc = run_headroom({make_synthetic("event")}, {505}, api, p);
   const auto &r = doc["results"][0];
   ASSERT_TRUE(r["error"].is_string());
   EXPECT_NE(r["error"].get<std::string>().find("does not implement this algorithm"), std::string::npos);
   EXPECT_FALSE(r.contains("compress"));
}
