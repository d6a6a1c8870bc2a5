// Synthetic generators: deterministic (pinned checksums), shaped like the datasets they imitate.
#include "rzbench/synth.hpp"

#include <gtest/gtest.h>
#include <cstring>
#include <map>

using namespace rzbench;

TEST(Synth, SameBytesOnEveryCallAndPinnedChecksums)
{
   // Pinned: a change here changes every published number on synthetic data.
   const std::map<std::string, std::string> pinned = {
      {"event", "xxh64:9223d6cb8bfbb8e0"},  {"nanoaod-offsets", "xxh64:59d4ac97c0fd2968"},
      {"tfloat", "xxh64:2a69f846b831ba97"}, {"tsmall", "xxh64:cb6f6ab72f928b8d"},
      {"tlarge", "xxh64:7b12e58a72b433aa"}, {"random", "xxh64:ae880b23b9870336"},
      {"zeros", "xxh64:eb8a7322f88e23db"}};
   ASSERT_EQ(synthetic_names().size(), pinned.size());
   for (const auto &name : synthetic_names()) {
      const std::string a = dataset_checksum(make_synthetic(name));
      EXPECT_EQ(a, dataset_checksum(make_synthetic(name))) << name;
      EXPECT_EQ(a, pinned.at(name)) << name;
   }
}

TEST(Synth, UnknownNameThrows)
{
   EXPECT_THROW(make_synthetic("nope"), std::invalid_argument);
   EXPECT_FALSE(is_synthetic_name("nope"));
}

TEST(Synth, BasketsRespectTheBasketSizeAndCarryConsistentOffsets)
{
   for (const auto &name : synthetic_names()) {
      const Dataset d = make_synthetic(name);
      ASSERT_FALSE(d.baskets.empty()) << name;
      for (const auto &b : d.baskets) {
         const auto spans = entry_spans(b);
         ASSERT_EQ(spans.size(), b.entries) << name << " " << b.branch;
         if (b.entries > 1) {
            EXPECT_LE(b.raw.size(), 64000u) << name << " " << b.branch; // one oversized entry may exceed
         }
         if (b.entry_offsets) {
            // raw = data + big-endian [count][starts + bias][0]
            const size_t tail = b.raw.size() - b.data_bytes;
            ASSERT_EQ(tail, 4 * (b.entries + 2));
            auto be32 = [&](size_t at) {
               return (uint32_t(b.raw[at]) << 24) | (uint32_t(b.raw[at + 1]) << 16) | (uint32_t(b.raw[at + 2]) << 8) |
                      b.raw[at + 3];
            };
            EXPECT_EQ(be32(b.data_bytes), b.entries + 1);
            for (size_t i = 0; i < b.entries; ++i)
               EXPECT_EQ(be32(b.data_bytes + 4 + 4 * i), (*b.entry_offsets)[i] + kOffsetBias);
         } else {
            EXPECT_EQ(b.raw.size(), b.data_bytes);
         }
      }
   }
}

TEST(Synth, ShapesFromThePapers)
{
   const Dataset event = make_synthetic("event");
   uint64_t events = 0;
   for (const auto &b : event.baskets)
      if (b.branch == "fNtrack")
         events += b.entries;
   EXPECT_EQ(events, 2000u);

   const Dataset tlarge = make_synthetic("tlarge");
   ASSERT_EQ(tlarge.baskets.size(), 2u);
   for (const auto &b : tlarge.baskets) {
      EXPECT_EQ(b.entries, 1u);
      EXPECT_EQ(b.raw.size(), 4000000u); // 1,000,000 floats
   }
   const Dataset tfloat = make_synthetic("tfloat");
   EXPECT_EQ(tfloat.baskets[0].data_bytes / tfloat.baskets[0].entries, 24u); // 6 floats
   // Each TFloat entry: the same float six times.
   const auto &raw = tfloat.baskets[0].raw;
   for (size_t k = 1; k < 6; ++k)
      EXPECT_EQ(std::memcmp(raw.data(), raw.data() + 4 * k, 4), 0);
}

// Skimmed RVec shapes (PR #21753): the share of empty entries is what the name says, every
// entry has RDataFrame's 10-byte RVec header, and the type class survives a corpus round trip.
TEST(Synth, RvecEmptyShapes)
{
   ASSERT_FALSE(shape_names().empty());
   for (const auto &name : shape_names()) {
      ASSERT_TRUE(is_synthetic_name(name));
      const int percent = std::stoi(name.substr(std::strlen("rvec-empty-")));
      const Dataset d = make_synthetic(name);
      uint64_t entries = 0, empty = 0;
      for (const Basket &b : d.baskets) {
         if (b.branch != "Sel_pt")
            continue;
         EXPECT_EQ(b.type_class, "float");
         ASSERT_TRUE(b.entry_offsets.has_value());
         const auto &starts = *b.entry_offsets;
         for (size_t i = 0; i < starts.size(); ++i) {
            const uint64_t end = i + 1 < starts.size() ? starts[i + 1] : b.data_bytes;
            const uint8_t *e = b.raw.data() + starts[i];
            ASSERT_GE(end - starts[i], 10u);
            EXPECT_EQ(e[0], 0x40); // byte count flag
            EXPECT_EQ(e[5], 10);   // RVec class version
            empty += end - starts[i] == 10;
            ++entries;
         }
      }
      EXPECT_EQ(entries, 20000u);
      // Within 1.5 points of the nominal share (20 000 draws).
      EXPECT_NEAR(100.0 * static_cast<double>(empty) / static_cast<double>(entries), percent, 1.5) << name;
   }
   // Not part of the default set: `all` keeps its meaning (and its run time).
   for (const auto &name : synthetic_names())
      EXPECT_EQ(name.rfind("rvec-empty-", 0), std::string::npos);
}
