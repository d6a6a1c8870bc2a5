// Corpus files: write/read round trip, and every kind of malformed or truncated file is a
// CorpusError (never a crash).
#include "rzbench/corpus.hpp"
#include "rzbench/framing.hpp"
#include "rzbench/sizes.hpp"
#include "rzbench/synth.hpp"
#include "rzbench/verify.hpp"
#include "test_util.hpp"

#include <gtest/gtest.h>
#include <functional>
#include <nlohmann/json.hpp>

using namespace rzbench;
using nlohmann::json;

namespace {

Dataset small_dataset()
{
   Dataset d = make_synthetic("event");
   d.baskets.resize(12); // keep the tests fast
   d.files = {{"event.root", 505, ""}};
   for (auto &b : d.baskets) {
      Bytes comp(frame_bound(b.raw.size()));
      const size_t n = frame_compress(505, b.raw.data(), b.raw.size(), comp.data(), comp.size());
      if (n > 0) {
         comp.resize(n);
         b.root_compressed = comp;
      }
   }
   return d;
}

// Rebuild a corpus file with a modified header.
Bytes with_header(const Bytes &file, const std::function<void(json &)> &edit)
{
   uint64_t hlen = 0;
   for (int i = 7; i >= 0; --i)
      hlen = (hlen << 8) | file[12 + static_cast<size_t>(i)];
   json h = json::parse(file.begin() + 20, file.begin() + 20 + static_cast<std::ptrdiff_t>(hlen));
   edit(h);
   const std::string text = h.dump();
   Bytes out(file.begin(), file.begin() + 12);
   for (int i = 0; i < 8; ++i)
      out.push_back(static_cast<uint8_t>(static_cast<uint64_t>(text.size()) >> (8 * i)));
   out.insert(out.end(), text.begin(), text.end());
   out.insert(out.end(), file.begin() + 20 + static_cast<std::ptrdiff_t>(hlen), file.end());
   return out;
}

void expect_corpus_error(const Bytes &file, const std::string &needle)
{
   try {
      parse_corpus(file, "test.bbc");
      ADD_FAILURE() << "accepted a corpus that should fail with '" << needle << "'";
   } catch (const CorpusError &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
   }
}

} // namespace

TEST(Corpus, WriteReadRoundTrip)
{
   const Dataset d = small_dataset();
   const Dataset back = parse_corpus(serialize_corpus(d), "mem.bbc");
   EXPECT_EQ(back.name, d.name);
   ASSERT_EQ(back.baskets.size(), d.baskets.size());
   EXPECT_EQ(dataset_checksum(back), dataset_checksum(d));
   for (size_t i = 0; i < d.baskets.size(); ++i) {
      EXPECT_EQ(back.baskets[i].raw, d.baskets[i].raw);
      EXPECT_EQ(back.baskets[i].entry_offsets, d.baskets[i].entry_offsets);
      EXPECT_EQ(back.baskets[i].root_compressed, d.baskets[i].root_compressed);
      EXPECT_EQ(back.baskets[i].branch, d.baskets[i].branch);
      EXPECT_EQ(back.baskets[i].element_size, d.baskets[i].element_size);
   }
}

TEST(Corpus, VerifyDecodesAndReportsFailures)
{
   Dataset d = small_dataset();
   json v = verify_dataset(d);
   EXPECT_EQ(v["failures"].size(), 0u);
   EXPECT_EQ(v["decoded_ok"], v["baskets"]);
   EXPECT_GT(v["baskets"].get<int>(), 0);
   EXPECT_DOUBLE_EQ(v["files"][0]["size_ratio"].get<double>(), 1.0); // same codec, same bytes

   (*d.baskets[0].root_compressed)[20] ^= 0x55; // corrupt one basket
   d.baskets[1].root_compressed = Bytes{'C', 'S', 8, 3, 0, 0, 4, 0, 0, 1, 2, 3};
   v = verify_dataset(d);
   // Every backend decodes "CS" blocks: this one is garbage, a failure like the corrupt one.
   EXPECT_EQ(v["failures"].size(), 2u);
   EXPECT_EQ(v["unsupported"].size(), 0u);
   EXPECT_EQ(v["failures"][0]["branch"], d.baskets[0].branch);
}

// A branch with its own compression setting (TBranch::SetCompressionSettings) is recompressed at
// that setting, not at the file's: the corpus records it per basket.
TEST(Corpus, VerifyUsesEachBasketsOwnSetting)
{
   Dataset d = small_dataset(); // file at 505
   d.files[0].fcompress = 101;
   for (size_t i = 0; i < d.baskets.size(); i += 2)
      d.baskets[i].fcompress = 505;
   for (size_t i = 1; i < d.baskets.size(); i += 2) {
      Basket &b = d.baskets[i];
      Bytes comp(frame_bound(b.raw.size()));
      const size_t n = frame_compress(101, b.raw.data(), b.raw.size(), comp.data(), comp.size());
      ASSERT_GT(n, 0u);
      comp.resize(n);
      b.root_compressed = comp;
   }
   const Dataset back = parse_corpus(serialize_corpus(d), "mixed.bbc"); // fcompress round-trips
   EXPECT_EQ(back.baskets[0].fcompress, std::optional<int>(505));
   EXPECT_EQ(back.baskets[1].fcompress, std::nullopt);
   const json v = verify_dataset(back);
   EXPECT_EQ(v["failures"].size(), 0u);
   const json &f = v["files"][0];
   EXPECT_EQ(f["fcompress"], 101);
   EXPECT_TRUE(f["recompressed_setting"].is_null());
   EXPECT_EQ(f["recompressed_settings"], (json{{"101", 6}, {"505", 6}}));
   EXPECT_EQ(f["recompressed_bytes"], f["root_compressed_bytes"]);
   EXPECT_DOUBLE_EQ(f["size_ratio"].get<double>(), 1.0);
}

TEST(Corpus, MalformedFilesAreErrors)
{
   const Bytes good = serialize_corpus(small_dataset());
   expect_corpus_error(Bytes(good.begin(), good.begin() + 10), "too short");
   Bytes b = good;
   b[0] = 'X';
   expect_corpus_error(b, "magic");
   b = good;
   b[8] = 2;
   expect_corpus_error(b, "format_version");
   b = good;
   b[19] = 0x7f;
   expect_corpus_error(b, "header_len");
   b = good;
   b[20] = '[';
   expect_corpus_error(b, "JSON");
   expect_corpus_error(with_header(good, [](json &h) { h.erase("baskets"); }), "baskets");
   expect_corpus_error(with_header(good, [](json &h) { h["payload_len"] = 1; }), "payload_len");
   expect_corpus_error(with_header(good, [](json &h) { h["baskets"][0]["raw"] = {0, 1u << 30}; }), "outside");
   expect_corpus_error(with_header(good, [](json &h) { h["baskets"][0]["raw"] = "x"; }), "[offset, length]");
   expect_corpus_error(with_header(good, [](json &h) { h["baskets"][0]["file"] = 7; }), "file index");
   expect_corpus_error(with_header(good, [](json &h) { h["baskets"][0]["entries"] = -1; }), "non-negative");
   expect_corpus_error(with_header(good, [](json &h) { h["baskets"][0]["element_size"] = 0; }), "element_size");
   expect_corpus_error(with_header(good, [](json &h) { h["baskets"][0]["data_bytes"] = 1u << 30; }), "data_bytes");
   expect_corpus_error(with_header(good, [](json &h) { h["baskets"][0]["raw_xxh64"] = "0000000000000000"; }),
                       "raw_xxh64");
   expect_corpus_error(with_header(good,
                                   [](json &h) {
                                      for (auto &b : h["baskets"])
                                         if (!b["entry_offsets"].is_null()) {
                                            b["entry_offsets"].push_back(0);
                                            return;
                                         }
                                   }),
                       "entry_offsets");
   expect_corpus_error(with_header(good, [](json &h) { h["baskets"][0]["root_compressed"] = {1u << 30, 5}; }),
                       "outside");
   expect_corpus_error(with_header(good, [](json &h) { h["name"] = ""; }), "name");
}

TEST(Corpus, EveryTruncationIsAnError)
{
   const Bytes good = serialize_corpus(small_dataset());
   // Every cut in the prefix and header, and a stride through the payload.
   for (size_t cut = 0; cut < good.size(); cut += (cut < 4096 ? 1 : 997)) {
      const Bytes part(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
      EXPECT_THROW(parse_corpus(part, "cut.bbc"), CorpusError) << "cut at " << cut;
   }
}

TEST(Corpus, MissingFileIsAnError)
{
   EXPECT_THROW(read_corpus("/nonexistent/dir/x.bbc"), CorpusError);
}

TEST(Corpus, TypeClassRoundTripAndBranchSizes)
{
   const Dataset d = make_synthetic("rvec-empty-90");
   const Dataset back = parse_corpus(serialize_corpus(d), "mem.bbc");
   ASSERT_EQ(back.baskets.size(), d.baskets.size());
   for (size_t i = 0; i < d.baskets.size(); ++i)
      EXPECT_EQ(back.baskets[i].type_class, d.baskets[i].type_class);
   // Per-branch sizes add up to the branch's baskets, each at most its raw size.
   const auto j = branch_sizes(back, {{101, Preconditioner::kNone}, {505, Preconditioner::kShuffle}});
   ASSERT_EQ(j["branches"].size(), 3u);
   uint64_t raw = 0;
   for (const auto &b : j["branches"]) {
      raw += b["raw_bytes"].get<uint64_t>();
      for (const auto &s : b["sizes"]) {
         EXPECT_GT(s["compressed_bytes"].get<uint64_t>(), 0u);
         EXPECT_LT(s["compressed_bytes"].get<uint64_t>(), b["raw_bytes"].get<uint64_t>());
      }
   }
   EXPECT_EQ(raw, dataset_bytes(d));
   EXPECT_EQ(j["branches"][0]["type_class"], "float");
   EXPECT_EQ(j["branches"][2]["type_class"], "integer");
}

TEST(Corpus, RNTuplePageFieldsAreAccepted)
{
   // The optional fields of an RNTuple page (docs/CORPUS_FORMAT.md) parse; a page is measured
   // like a basket, so everything else about it is unchanged.
   const Bytes file = serialize_corpus(small_dataset());
   const Bytes pages = with_header(file, [](json &h) {
      for (auto &b : h["baskets"]) {
         b["kind"] = "page";
         b["column"] = 3;
         b["column_type"] = "SplitReal32";
         b["encoding"] = "split";
         b["bits"] = 32;
         b["cluster"] = 0;
         b["fcompress"] = 404;
      }
      h["baskets"][0]["kind"] = "basket";
   });
   const Dataset d = parse_corpus(pages, "pages.bbc");
   ASSERT_EQ(d.baskets.size(), 12u);
   EXPECT_FALSE(d.baskets[0].page);
   EXPECT_TRUE(d.baskets[1].page);
   EXPECT_EQ(d.baskets[1].fcompress, std::optional<int>(404));
   EXPECT_EQ(parse_corpus(file, "f.bbc").baskets[1].fcompress, std::nullopt);
   EXPECT_EQ(d.baskets[1].raw, parse_corpus(file, "f.bbc").baskets[1].raw);
   expect_corpus_error(with_header(file, [](json &h) { h["baskets"][2]["kind"] = "leaf"; }),
                       "basket 2: kind must be \"basket\" or \"page\"");
}
