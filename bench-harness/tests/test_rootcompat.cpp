// rootcompat's RZip.h: block header bytes, level mapping, refusals and malformed blocks.
#include "test_util.hpp"

#include <RZip.h>
#include <cstring>
#include <gtest/gtest.h>
#include <lz4.h>
#include <lz4hc.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

using namespace rzbench;
using namespace rzbench::testing;
using Alg = ROOT::RCompressionSetting::EAlgorithm;

namespace {

Bytes zip(int level, Alg::EValues alg, const Bytes &in, int cap = -1)
{
   Bytes out(cap < 0 ? in.size() + 1024 : static_cast<size_t>(cap));
   int srcsize = static_cast<int>(in.size());
   int tgtsize = static_cast<int>(out.size());
   int irep = -1;
   R__zipMultipleAlgorithm(level, &srcsize, reinterpret_cast<char *>(const_cast<uint8_t *>(in.data())), &tgtsize,
                           reinterpret_cast<char *>(out.data()), &irep, alg);
   out.resize(static_cast<size_t>(irep));
   return out;
}

int unzip(Bytes blk, Bytes &out, int tgtsize)
{
   out.assign(static_cast<size_t>(tgtsize), 0);
   int srcsize = static_cast<int>(blk.size());
   int irep = -1;
   R__unzip(&srcsize, blk.data(), &tgtsize, out.data(), &irep);
   return irep;
}

uint32_t u24(const Bytes &b, size_t at)
{
   return b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
}

} // namespace

TEST(RootCompat, HeaderBytesPerAlgorithm)
{
   const Bytes in = compressible(5000);
   struct Case {
      Alg::EValues alg;
      char m0, m1;
      int method;
   } cases[] = {{Alg::kZLIB, 'Z', 'L', Z_DEFLATED},
                {Alg::kLZMA, 'X', 'Z', 0},
                {Alg::kLZ4, 'L', '4', LZ4_versionNumber() / 10000},
                {Alg::kZSTD, 'Z', 'S', 1}};
   for (const auto &c : cases) {
      const Bytes out = zip(5, c.alg, in);
      ASSERT_GT(out.size(), 9u) << c.m0 << c.m1;
      EXPECT_EQ(out[0], c.m0);
      EXPECT_EQ(out[1], c.m1);
      EXPECT_EQ(out[2], c.method);
      EXPECT_EQ(u24(out, 3), out.size() - 9);
      EXPECT_EQ(u24(out, 6), in.size());
   }
}

TEST(RootCompat, ZlibPayloadIsAZlibStreamAtTheSameLevel)
{
   const Bytes in = compressible(20000);
   for (int level = 1; level <= 9; ++level) {
      const Bytes out = zip(level, Alg::kZLIB, in);
      Bytes ref(compressBound(in.size()));
      uLongf n = ref.size();
      ASSERT_EQ(compress2(ref.data(), &n, in.data(), in.size(), level), Z_OK);
      ref.resize(n);
      EXPECT_EQ(Bytes(out.begin() + 9, out.end()), ref) << "level " << level;
   }
}

TEST(RootCompat, Lz4LevelsBelow4AreFastAndAbove4AreHCWithChecksum)
{
   const Bytes in = compressible(20000);
   for (int level = 1; level <= 9; ++level) {
      const Bytes out = zip(level, Alg::kLZ4, in);
      Bytes ref(LZ4_compressBound(static_cast<int>(in.size())));
      const char *src = reinterpret_cast<const char *>(in.data());
      char *dst = reinterpret_cast<char *>(ref.data());
      const int n = level >= 4 ? LZ4_compress_HC(src, dst, static_cast<int>(in.size()), static_cast<int>(ref.size()), level)
                               : LZ4_compress_default(src, dst, static_cast<int>(in.size()), static_cast<int>(ref.size()));
      ref.resize(static_cast<size_t>(n));
      EXPECT_EQ(Bytes(out.begin() + 17, out.end()), ref) << "level " << level;
      XXH64_canonical_t sum;
      XXH64_canonicalFromHash(&sum, XXH64(ref.data(), ref.size(), 0));
      EXPECT_EQ(0, std::memcmp(out.data() + 9, sum.digest, 8)) << "checksum, level " << level;
      EXPECT_EQ(u24(out, 3), ref.size() + 8) << "compressed size counts the checksum";
   }
}

TEST(RootCompat, ZstdLevelIsTwiceTheRootLevel)
{
   const Bytes in = compressible(20000);
   for (int level = 1; level <= 9; ++level) {
      const Bytes out = zip(level, Alg::kZSTD, in);
      Bytes ref(ZSTD_compressBound(in.size()));
      const size_t n = ZSTD_compress(ref.data(), ref.size(), in.data(), in.size(), 2 * level);
      ASSERT_FALSE(ZSTD_isError(n));
      ref.resize(n);
      EXPECT_EQ(Bytes(out.begin() + 9, out.end()), ref) << "level " << level;
   }
}

TEST(RootCompat, RefusalsGiveIrepZero)
{
   const Bytes in = compressible(1000);
   EXPECT_TRUE(zip(0, Alg::kZLIB, in).empty()) << "level 0 = no compression";
   EXPECT_TRUE(zip(1, Alg::kZLIB, compressible(10)).empty()) << "inputs below 11 bytes";
   EXPECT_TRUE(zip(1, Alg::kLZ4, random_bytes(4000), 4000).empty()) << "output would not fit";
   EXPECT_TRUE(zip(1, Alg::kOldCompressionAlgo, in).empty()) << "CS is not implemented";
   EXPECT_FALSE(zip(1, Alg::kZLIB, compressible(11)).empty());
}

TEST(RootCompat, AlgorithmZeroIsTheGlobalDefault)
{
   const Bytes in = compressible(3000);
   EXPECT_EQ(zip(4, Alg::kUseGlobal, in), zip(4, Alg::kZLIB, in));
   R__SetZipMode(Alg::kLZ4);
   const Bytes lz4 = zip(4, Alg::kUseGlobal, in);
   R__SetZipMode(Alg::kZLIB);
   EXPECT_EQ(lz4, zip(4, Alg::kLZ4, in));
}

TEST(RootCompat, UnzipHeaderReadsSizesAndRejectsUnknownMagic)
{
   const Bytes blk = zip(1, Alg::kZSTD, compressible(777));
   Bytes copy = blk;
   int src = -1, tgt = -1;
   EXPECT_EQ(R__unzip_header(&src, copy.data(), &tgt), 0);
   EXPECT_EQ(src, static_cast<int>(blk.size()));
   EXPECT_EQ(tgt, 777);
   copy[0] = 'Q';
   EXPECT_EQ(R__unzip_header(&src, copy.data(), &tgt), 1);
   EXPECT_EQ(src, 0);
}

TEST(RootCompat, RoundTripEveryAlgorithm)
{
   const Bytes in = compressible(50000);
   for (auto alg : {Alg::kZLIB, Alg::kLZMA, Alg::kLZ4, Alg::kZSTD}) {
      Bytes out;
      EXPECT_EQ(unzip(zip(6, alg, in), out, 50000), 50000);
      EXPECT_EQ(out, in);
   }
}

TEST(RootCompat, MalformedBlocksFailCleanly)
{
   const Bytes in = compressible(4000);
   Bytes out;
   for (auto alg : {Alg::kZLIB, Alg::kLZMA, Alg::kLZ4, Alg::kZSTD}) {
      const Bytes good = zip(5, alg, in);
      Bytes b = good;
      b[1] = '?';
      EXPECT_EQ(unzip(b, out, 4000), 0) << "wrong magic";
      EXPECT_EQ(unzip(good, out, 3999), 0) << "target smaller than declared";
      b = good;
      b.pop_back();
      EXPECT_EQ(unzip(b, out, 4000), 0) << "source shorter than the header says";
      b = good;
      b[3] = static_cast<uint8_t>(b[3] - 1);
      b.pop_back(); // consistent sizes, truncated payload
      EXPECT_EQ(unzip(b, out, 4000), 0) << "truncated payload";
      b = good;
      b[6] = static_cast<uint8_t>(b[6] + 1); // declares one byte more than the stream yields
      EXPECT_EQ(unzip(b, out, 4001), 0) << "declared size larger than the data";
      b = Bytes(good.begin(), good.begin() + 5);
      EXPECT_EQ(unzip(b, out, 4000), 0) << "shorter than a header";
   }
}

TEST(RootCompat, Lz4ChecksumAndVersionAreChecked)
{
   const Bytes good = zip(4, Alg::kLZ4, compressible(4000));
   Bytes out;
   Bytes b = good;
   b[12] ^= 0x40; // checksum byte
   EXPECT_EQ(unzip(b, out, 4000), 0);
   b = good;
   b[good.size() - 3] ^= 0x01; // payload byte: checksum no longer matches
   EXPECT_EQ(unzip(b, out, 4000), 0);
   b = good;
   b[2] = static_cast<uint8_t>(b[2] + 1);
   EXPECT_EQ(unzip(b, out, 4000), 0) << "other LZ4 major version";
}

TEST(RootCompat, OldCsBlocksDecodeButAreNotWritten)
{
   Bytes b = {'C', 'S', 8, 4, 0, 0, 10, 0, 0, 1, 2, 3, 4};
   Bytes out;
   int src = 0, tgt = 0;
   EXPECT_EQ(R__unzip_header(&src, b.data(), &tgt), 0) << "a CS header is a valid header";
   EXPECT_EQ(unzip(b, out, 10), 0) << "garbage after it is not a deflate stream";
   // a stored deflate block (BFINAL=1, BTYPE=00, LEN=3, NLEN=~3) holding "abc"
   b = {'C', 'S', 8, 8, 0, 0, 3, 0, 0, 0x01, 0x03, 0x00, 0xfc, 0xff, 'a', 'b', 'c'};
   EXPECT_EQ(unzip(b, out, 3), 3);
   EXPECT_EQ(out, (Bytes{'a', 'b', 'c'}));
   EXPECT_TRUE(zip(3, Alg::kOldCompressionAlgo, compressible(3000)).empty()) << "CS is not written";
}

TEST(RootCompat, RandomCorruptionNeverCrashes)
{
   Xoshiro256 r(99);
   const Bytes in = compressible(3000);
   for (auto alg : {Alg::kZLIB, Alg::kLZMA, Alg::kLZ4, Alg::kZSTD}) {
      const Bytes good = zip(3, alg, in);
      for (int trial = 0; trial < 200; ++trial) {
         Bytes b = good;
         const int flips = 1 + static_cast<int>(r.below(4));
         for (int k = 0; k < flips; ++k)
            b[9 + r.below(b.size() - 9)] ^= static_cast<uint8_t>(1 + r.below(255));
         Bytes out;
         const int irep = unzip(b, out, 3000);
         EXPECT_TRUE(irep == 0 || irep == 3000);
      }
   }
}
