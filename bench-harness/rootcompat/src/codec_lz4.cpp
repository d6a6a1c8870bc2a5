// "L4" blocks: header, then the XXH64 (seed 0, canonical big-endian) of the LZ4 payload, then an
// LZ4 block (no frame). The version byte is the LZ4 major version (versionNumber / 10000); the
// compressed size in the header counts the checksum. Levels >= 4 use LZ4HC at that level.
#include "block_format.hpp"

#include <lz4.h>
#include <lz4hc.h>
#include <xxhash.h>

namespace rootcompat {

namespace {
constexpr int kPayloadOffset = kHeaderSize + kLz4ChecksumSize;
}

uint8_t lz4_version_byte()
{
   return static_cast<uint8_t>(LZ4_versionNumber() / (100 * 100));
}

// ROOT stores XXH64's canonical (big-endian) form; the fault build stores it little-endian.
constexpr int checksum_byte(int i)
{
#if defined(RZBENCH_FAULT_CHECKSUM_BYTE_ORDER)
   return kLz4ChecksumSize - 1 - i;
#else
   return i;
#endif
}

int zip_lz4(int level, const uint8_t *src, int n, uint8_t *tgt, int cap)
{
   if (cap <= kPayloadOffset)
      return 0;
   const char *in = reinterpret_cast<const char *>(src);
   char *out = reinterpret_cast<char *>(tgt + kPayloadOffset);
   const int room = cap - kPayloadOffset;
   const int produced =
      level >= 4 ? LZ4_compress_HC(in, out, n, room, level) : LZ4_compress_default(in, out, n, room);
   if (produced <= 0 || produced + kLz4ChecksumSize > kMaxBlock)
      return 0;
   XXH64_canonical_t sum;
   XXH64_canonicalFromHash(&sum, XXH64(out, static_cast<size_t>(produced), 0));
   write_header(tgt, 'L', '4', lz4_version_byte(), static_cast<uint32_t>(produced + kLz4ChecksumSize),
                static_cast<uint32_t>(n));
   for (int i = 0; i < kLz4ChecksumSize; ++i)
      tgt[kHeaderSize + i] = sum.digest[checksum_byte(i)];
   return produced + kPayloadOffset;
}

int unzip_lz4(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err)
{
   if (blk[2] != lz4_version_byte()) {
      *err = "lz4: block written by an incompatible LZ4 major version";
      return -1;
   }
   if (size < kPayloadOffset) {
      *err = "lz4: block too short for its checksum";
      return -1;
   }
   XXH64_canonical_t stored;
   for (int i = 0; i < kLz4ChecksumSize; ++i)
      stored.digest[checksum_byte(i)] = blk[kHeaderSize + i];
   const int payload = size - kPayloadOffset;
   if (XXH64(blk + kPayloadOffset, static_cast<size_t>(payload), 0) != XXH64_hashFromCanonical(&stored)) {
      *err = "lz4: XXH64 checksum mismatch (corrupt block)";
      return -1;
   }
   const int produced = LZ4_decompress_safe(reinterpret_cast<const char *>(blk + kPayloadOffset),
                                            reinterpret_cast<char *>(tgt), payload, cap);
   if (produced < 0) {
      *err = "lz4: corrupt stream";
      return -1;
   }
   return produced;
}

} // namespace rootcompat
