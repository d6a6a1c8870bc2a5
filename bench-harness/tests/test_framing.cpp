// Whole-buffer framing: every size 1..128 at every setting, multi-block inputs above 16 MiB,
// and truncated / malformed framed buffers.
#include "rzbench/framing.hpp"
#include "test_util.hpp"

#include <RZip.h>

#include <gtest/gtest.h>
#include <zlib.h>

using namespace rzbench;
using namespace rzbench::testing;

namespace {

// Compress + decompress; returns true when the buffer was compressed (false = stored raw).
bool round_trip(int setting, const Bytes &in)
{
   Bytes comp(frame_bound(in.size()));
   const size_t n = frame_compress(setting, in.data(), in.size(), comp.data(), comp.size());
   if (n == 0)
      return false;
   EXPECT_LT(n, in.size());
   Bytes out(in.size());
   std::string err;
   EXPECT_TRUE(frame_decompress(comp.data(), n, out.data(), out.size(), &err)) << setting << ": " << err;
   EXPECT_EQ(out, in) << "setting " << setting << " size " << in.size();
   return true;
}

} // namespace

TEST(Framing, EverySize1To128AtEverySetting)
{
   for (int setting : all_writable_settings()) {
      for (size_t n = 1; n <= 128; ++n) {
         const Bytes zeros(n, 0);
         const bool z = round_trip(setting, zeros);
         round_trip(setting, compressible(n, n));
         round_trip(setting, random_bytes(n, n));
         if (setting % 100 == 0 || n < 11) {
            EXPECT_FALSE(z) << "level 0 and inputs below 11 bytes are stored, setting " << setting << " n " << n;
         }
         if (n == 128 && setting % 100 != 0) {
            EXPECT_TRUE(z) << "128 zero bytes must compress, setting " << setting;
         }
      }
   }
}

TEST(Framing, InputsAbove16MiBAreCutIntoBlocks)
{
   const size_t n = 16 * 1024 * 1024 + 123457; // two blocks: 0xffffff + the rest
   Bytes in(n);
   Xoshiro256 r(5);
   for (size_t i = 0; i < n; i += 64) {
      const uint8_t v = static_cast<uint8_t>(r.below(16));
      for (size_t k = i; k < i + 64 && k < n; ++k)
         in[k] = v;
   }
   for (int setting : {101, 201, 401, 404, 501}) {
      Bytes comp(frame_bound(n));
      const size_t c = frame_compress(setting, in.data(), n, comp.data(), comp.size());
      ASSERT_GT(c, 0u) << setting;
      // First block declares 0xffffff uncompressed bytes, the second the remainder.
      const uint32_t first_usize = comp[6] | (comp[7] << 8) | (comp[8] << 16);
      EXPECT_EQ(first_usize, 0xffffffu);
      const size_t first_block = 9 + (comp[3] | (comp[4] << 8) | (comp[5] << 16));
      ASSERT_LT(first_block + 9, c);
      const uint32_t second_usize = comp[first_block + 6] | (comp[first_block + 7] << 8) | (comp[first_block + 8] << 16);
      EXPECT_EQ(second_usize, n - 0xffffff);
      Bytes out(n);
      std::string err;
      ASSERT_TRUE(frame_decompress(comp.data(), c, out.data(), n, &err)) << err;
      EXPECT_EQ(out, in) << setting;
   }
}

TEST(Framing, TruncatedBuffersAreErrorsAtEveryCut)
{
   const Bytes in = compressible(3000);
   for (int setting : {101, 201, 404, 505}) {
      Bytes comp(frame_bound(in.size()));
      const size_t c = frame_compress(setting, in.data(), in.size(), comp.data(), comp.size());
      ASSERT_GT(c, 0u);
      Bytes out(in.size());
      for (size_t cut = 0; cut < c; ++cut) {
         Bytes part(comp.begin(), comp.begin() + static_cast<std::ptrdiff_t>(cut)); // exact-size copy for ASan
         std::string err;
         EXPECT_FALSE(frame_decompress(part.data(), part.size(), out.data(), out.size(), &err)) << setting << " cut " << cut;
         EXPECT_FALSE(err.empty());
      }
   }
}

TEST(Framing, MalformedHeadersAreErrors)
{
   const Bytes in = compressible(2000);
   Bytes comp(frame_bound(in.size()));
   const size_t c = frame_compress(505, in.data(), in.size(), comp.data(), comp.size());
   comp.resize(c);
   Bytes out(in.size());
   std::string err;

   Bytes b = comp;
   b[0] = 'X';
   b[1] = 'X';
   EXPECT_FALSE(frame_decompress(b.data(), b.size(), out.data(), out.size(), &err));
   EXPECT_NE(err.find("unknown block header"), std::string::npos) << err;

   b = comp;
   b[5] = 0x7f; // compressed size far beyond the buffer
   EXPECT_FALSE(frame_decompress(b.data(), b.size(), out.data(), out.size(), &err));
   EXPECT_NE(err.find("left"), std::string::npos) << err;

   b = comp;
   b[8] = 0x7f; // uncompressed size beyond the expected total
   EXPECT_FALSE(frame_decompress(b.data(), b.size(), out.data(), out.size(), &err));
   EXPECT_NE(err.find("beyond"), std::string::npos) << err;

   b = comp;
   b.insert(b.end(), {1, 2, 3}); // trailing garbage after the last block
   EXPECT_FALSE(frame_decompress(b.data(), b.size(), out.data(), out.size(), &err));

   EXPECT_FALSE(frame_decompress(comp.data(), c, out.data(), out.size() + 1, &err)) << "expected size mismatch";
   EXPECT_FALSE(frame_decompress(comp.data(), 0, out.data(), out.size(), &err));

   const Bytes cs = {'C', 'S', 8, 3, 0, 0, 4, 0, 0, 1, 2, 3};
   EXPECT_TRUE(is_old_cs_block(cs.data(), cs.size()));
   EXPECT_FALSE(frame_decompress(cs.data(), cs.size(), out.data(), 4, &err)); // garbage for any backend

   Bytes shortlz4 = {'L', '4', 1, 4, 0, 0, 4, 0, 0, 9, 9, 9, 9};
   EXPECT_FALSE(frame_decompress(shortlz4.data(), shortlz4.size(), out.data(), 4, &err));
}

// "CS" blocks (ROOT's old algorithm, R__SetZipMode(3)): a bare deflate stream after the 9-byte
// header. Made here with zlib's raw deflate; the Python tests decode blocks ROOT 6.40 wrote.
TEST(Framing, OldCsBlocksDecode)
{
   const Bytes in = compressible(5000, 7);
   Bytes deflated(compressBound(in.size()) + 64);
   z_stream zs{};
   ASSERT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
   zs.next_in = const_cast<Bytef *>(in.data());
   zs.avail_in = static_cast<uInt>(in.size());
   zs.next_out = deflated.data();
   zs.avail_out = static_cast<uInt>(deflated.size());
   ASSERT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
   const size_t n = zs.total_out;
   deflateEnd(&zs);
   Bytes block = {'C', 'S', 8};
   for (size_t v : {n, in.size()})
      for (int i = 0; i < 3; ++i)
         block.push_back(static_cast<uint8_t>(v >> (8 * i)));
   block.insert(block.end(), deflated.begin(), deflated.begin() + static_cast<std::ptrdiff_t>(n));
   Bytes out(in.size());
   std::string err;
   ASSERT_TRUE(frame_decompress(block.data(), block.size(), out.data(), out.size(), &err)) << err;
   EXPECT_EQ(out, in);
   block.resize(block.size() - 10); // cut short: an error, never a partial buffer
   EXPECT_FALSE(frame_decompress(block.data(), block.size(), out.data(), out.size(), &err));
}

// TBasket::WriteBuffer gives each block an output room equal to the block's input size and stores
// the basket when the codec reports nothing (irep = 0) or no gain. A codec that needs working room
// beyond the input size (zstd on tiny baskets) must therefore store it, even when a larger room
// would have given a slightly smaller frame: ROOT's bytes, not the codec's best.
TEST(Framing, OutputRoomIsTheInputSizeAsInTBasket)
{
   int stored_only_because_of_room = 0;
   for (int setting : all_writable_settings()) {
      for (size_t n = 11; n <= 256; n += 5) {
         for (const Bytes &in : {compressible(n, n), random_bytes(n, n + 1)}) {
            // the same call with the generous room callers used to pass
            Bytes wide(frame_bound(n));
            int srcsize = static_cast<int>(n), tgtsize = static_cast<int>(wide.size()), irep = 0;
            R__zipMultipleAlgorithm(setting % 100, &srcsize, reinterpret_cast<char *>(const_cast<uint8_t *>(in.data())),
                                    &tgtsize, reinterpret_cast<char *>(wide.data()), &irep,
                                    static_cast<ROOT::RCompressionSetting::EAlgorithm::EValues>(setting / 100));
            // ROOT's call: room = n
            Bytes tight(n);
            int srcsize2 = static_cast<int>(n), tgtsize2 = static_cast<int>(n), irep2 = 0;
            R__zipMultipleAlgorithm(setting % 100, &srcsize2, reinterpret_cast<char *>(const_cast<uint8_t *>(in.data())),
                                    &tgtsize2, reinterpret_cast<char *>(tight.data()), &irep2,
                                    static_cast<ROOT::RCompressionSetting::EAlgorithm::EValues>(setting / 100));
            const size_t expected = irep2 > 0 && static_cast<size_t>(irep2) < n ? static_cast<size_t>(irep2) : 0;
            Bytes comp(frame_bound(n));
            EXPECT_EQ(frame_compress(setting, in.data(), n, comp.data(), comp.size()), expected)
               << "setting " << setting << " n " << n;
            if (expected == 0 && irep > 0 && static_cast<size_t>(irep) < n)
               ++stored_only_because_of_room;
         }
      }
   }
   // The case exists (e.g. zstd frames a few bytes smaller than tiny inputs but needs more room).
   EXPECT_GT(stored_only_because_of_room, 0);
}
