// "ZL" blocks: a zlib stream (deflateInit defaults: zlib wrapper, 32 KiB window) after the header;
// the method byte is Z_DEFLATED (8).
#include "block_format.hpp"

#include <zlib.h>

namespace rootcompat {

int zip_zlib(int level, const uint8_t *src, int n, uint8_t *tgt, int cap)
{
   if (cap <= kHeaderSize)
      return 0;
   z_stream zs{};
   if (deflateInit(&zs, level) != Z_OK)
      return 0;
   zs.next_in = const_cast<Bytef *>(src);
   zs.avail_in = static_cast<uInt>(n);
   zs.next_out = tgt + kHeaderSize;
   zs.avail_out = static_cast<uInt>(cap - kHeaderSize);
   const int rc = deflate(&zs, Z_FINISH); // one call: either it all fits or it does not
   const uLong out = zs.total_out;
   deflateEnd(&zs);
   if (rc != Z_STREAM_END || out > static_cast<uLong>(kMaxBlock))
      return 0;
   write_header(tgt, 'Z', 'L', Z_DEFLATED, static_cast<uint32_t>(out), static_cast<uint32_t>(n));
   return static_cast<int>(out) + kHeaderSize;
}

namespace {

// window_bits 15: a zlib stream ("ZL"); -15: a bare deflate stream ("CS", see unzip_old_cs).
int inflate_block(const uint8_t *blk, int size, uint8_t *tgt, int cap, int window_bits, const char **err)
{
   z_stream zs{};
   if (inflateInit2(&zs, window_bits) != Z_OK) {
      *err = "zlib: inflateInit failed";
      return -1;
   }
   zs.next_in = const_cast<Bytef *>(blk + kHeaderSize);
   zs.avail_in = static_cast<uInt>(size - kHeaderSize);
   zs.next_out = tgt;
   zs.avail_out = static_cast<uInt>(cap);
   const int rc = inflate(&zs, Z_FINISH);
   const uLong out = zs.total_out;
   inflateEnd(&zs);
   if (rc != Z_STREAM_END) {
      *err = rc == Z_BUF_ERROR ? "zlib: truncated stream or output larger than declared" : "zlib: corrupt stream";
      return -1;
   }
   return static_cast<int>(out);
}

} // namespace

int unzip_zlib(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err)
{
   return inflate_block(blk, size, tgt, cap, MAX_WBITS, err);
}

// "CS" blocks (R__SetZipMode(3), setting 3xx): ROOT's own 1990s deflate writes a bare deflate
// stream (RFC 1951: no zlib header, no Adler-32) after the 9-byte header, method byte 8. Any
// inflater reads it; what we cannot do is write ROOT's exact bytes, so 3xx stays unwritable.
int unzip_old_cs(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err)
{
   return inflate_block(blk, size, tgt, cap, -MAX_WBITS, err);
}

} // namespace rootcompat
