#include "rzbench/framing.hpp"

#include <climits>
#include <cstring>

namespace rzbench {

namespace {
int clamp_int(size_t v)
{
   return v > static_cast<size_t>(INT_MAX) ? INT_MAX : static_cast<int>(v);
}
} // namespace

size_t frame_bound(size_t n)
{
   // Room for the output buffer (frame_compress itself offers each block only its input size, as
   // ROOT does; the margin keeps the buffer valid for callers that frame by other means).
   const size_t blocks = n == 0 ? 1 : (n + kRootMaxBlock - 1) / kRootMaxBlock;
   return n + n / 16 + blocks * 128;
}

size_t frame_compress(const ZipApi &api, int setting, const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
   return frame_compress(api, setting / 100, setting % 100, src, n, dst, cap);
}

size_t frame_compress(const ZipApi &api, int algorithm, int level, const uint8_t *src, size_t n, uint8_t *dst,
                      size_t cap)
{
   size_t in = 0;
   size_t out = 0;
   while (in < n) {
      const size_t chunk = n - in < kRootMaxBlock ? n - in : kRootMaxBlock;
      int srcsize = static_cast<int>(chunk);
      // As TBasket::WriteBuffer: the output room of each block is the block's own input size, so
      // a codec that needs working room beyond that (zstd on tiny inputs) gives irep = 0 and the
      // basket is stored, exactly when ROOT stores it.
      int tgtsize = clamp_int(chunk < cap - out ? chunk : cap - out);
      int irep = 0;
      api.zip(level, &srcsize, reinterpret_cast<char *>(const_cast<uint8_t *>(src + in)), &tgtsize,
              reinterpret_cast<char *>(dst + out), &irep, algorithm);
      if (irep <= 0)
         return 0; // like TBasket: one block that does not compress stores the whole buffer
      in += chunk;
      out += static_cast<size_t>(irep);
   }
   return out < n ? out : 0;
}

bool frame_decompress(const ZipApi &api, const uint8_t *src, size_t n, uint8_t *dst, size_t expected, std::string *error)
{
   size_t in = 0;
   size_t out = 0;
   int block = 0;
   auto fail = [&](const std::string &msg) {
      if (error)
         *error = "block " + std::to_string(block) + " at byte " + std::to_string(in) + ": " + msg;
      return false;
   };
   if (n == 0)
      return fail("empty compressed buffer");
   while (in < n) {
      if (n - in < kRootHeaderSize)
         return fail("truncated block header (" + std::to_string(n - in) + " bytes left)");
      unsigned char *blk = const_cast<unsigned char *>(src + in);
      int blksize = 0;
      int tgtsize = 0;
      if (api.header(&blksize, blk, &tgtsize) != 0)
         return fail("unknown block header");
      if (static_cast<size_t>(blksize) > n - in)
         return fail("block declares " + std::to_string(blksize) + " bytes, only " + std::to_string(n - in) +
                     " left");
      if (static_cast<size_t>(tgtsize) > expected - out)
         return fail("block expands beyond the expected " + std::to_string(expected) + " bytes");
      if (blk[0] == 'L' && blk[1] == '4' && blksize < 17)
         return fail("LZ4 block too short for its checksum");
      int irep = 0;
      api.unzip(&blksize, blk, &tgtsize, dst + out, &irep);
      if (irep != tgtsize || irep <= 0)
         return fail("decoding failed (corrupt or unsupported block)");
      in += static_cast<size_t>(blksize);
      out += static_cast<size_t>(irep);
      ++block;
   }
   if (out != expected) {
      if (error)
         *error = "decoded " + std::to_string(out) + " bytes, expected " + std::to_string(expected);
      return false;
   }
   return true;
}

size_t frame_compress(int setting, const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
   return frame_compress(linked_zip_api(), setting, src, n, dst, cap);
}

bool frame_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t expected, std::string *error)
{
   return frame_decompress(linked_zip_api(), src, n, dst, expected, error);
}

bool is_old_cs_block(const uint8_t *src, size_t n)
{
   return n >= 2 && src[0] == 'C' && src[1] == 'S';
}

} // namespace rzbench
