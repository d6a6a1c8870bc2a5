// ROOT's 9-byte block header: 2 magic bytes, 1 method/version byte, 3-byte little-endian
// compressed size (payload after the header) and 3-byte little-endian uncompressed size.
#pragma once
#include <cstdint>

namespace rootcompat {

constexpr int kHeaderSize = 9;
constexpr int kMaxBlock = 0xffffff;
constexpr int kLz4ChecksumSize = 8; // XXH64 of the LZ4 payload, stored right after the header

// RZBENCH_FAULT_* builds are deliberately wrong, self-consistent codec layers (they round-trip but
// write other bytes than ROOT): make test-aarch64 checks that its cross-architecture comparison
// catches them. rzbench reports such a build in `rzbench version`; never measure with one.
#if defined(RZBENCH_FAULT_HEADER_BYTE_ORDER)
constexpr int kLow = 2, kHigh = 0; // sizes written big-endian
#else
constexpr int kLow = 0, kHigh = 2;
#endif

inline void put_u24(uint8_t *p, uint32_t v)
{
   p[kLow] = static_cast<uint8_t>(v & 0xff);
   p[1] = static_cast<uint8_t>((v >> 8) & 0xff);
   p[kHigh] = static_cast<uint8_t>((v >> 16) & 0xff);
}

inline uint32_t get_u24(const uint8_t *p)
{
   return static_cast<uint32_t>(p[kLow]) | (static_cast<uint32_t>(p[1]) << 8) |
          (static_cast<uint32_t>(p[kHigh]) << 16);
}

inline void write_header(uint8_t *tgt, char m0, char m1, uint8_t method, uint32_t csize, uint32_t usize)
{
   tgt[0] = static_cast<uint8_t>(m0);
   tgt[1] = static_cast<uint8_t>(m1);
   tgt[2] = method;
   put_u24(tgt + 3, csize);
   put_u24(tgt + 6, usize);
}

// Each codec: compress returns bytes written into tgt (header included) or 0 when it cannot;
// decompress gets one whole block and returns bytes produced or -1 with *err set.
int zip_zlib(int level, const uint8_t *src, int n, uint8_t *tgt, int cap);
int unzip_zlib(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err);
int unzip_old_cs(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err);
int zip_lzma(int level, const uint8_t *src, int n, uint8_t *tgt, int cap);
int unzip_lzma(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err);
int zip_lz4(int level, const uint8_t *src, int n, uint8_t *tgt, int cap);
int unzip_lz4(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err);
int zip_zstd(int level, const uint8_t *src, int n, uint8_t *tgt, int cap);
int unzip_zstd(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err);

uint8_t lz4_version_byte();  // LZ4 major version, as ROOT writes it
uint8_t zstd_version_byte(); // ZSTD major version, ROOT writes 1

} // namespace rootcompat
