// "XZ" blocks: a complete .xz stream (LZMA2 filter at preset `level`, CRC32 check) after the
// header, method byte 0. Like ROOT, the dictionary is cut to max(input/4, LZMA_DICT_SIZE_MIN)
// because the presets' dictionaries are far larger than a basket.
#include "block_format.hpp"

#include <cstdint>
#include <lzma.h>

namespace rootcompat {

int zip_lzma(int level, const uint8_t *src, int n, uint8_t *tgt, int cap)
{
   if (cap <= kHeaderSize)
      return 0;
   lzma_options_lzma opt{};
   if (lzma_lzma_preset(&opt, static_cast<uint32_t>(level)))
      return 0;
   uint32_t dict = static_cast<uint32_t>(n) / 4;
   if (dict < LZMA_DICT_SIZE_MIN)
      dict = LZMA_DICT_SIZE_MIN;
   if (opt.dict_size > dict)
      opt.dict_size = dict;
   lzma_filter filters[2] = {{LZMA_FILTER_LZMA2, &opt}, {LZMA_VLI_UNKNOWN, nullptr}};
   lzma_stream zs = LZMA_STREAM_INIT;
   if (lzma_stream_encoder(&zs, filters, LZMA_CHECK_CRC32) != LZMA_OK)
      return 0;
   zs.next_in = src;
   zs.avail_in = static_cast<size_t>(n);
   zs.next_out = tgt + kHeaderSize;
   zs.avail_out = static_cast<size_t>(cap - kHeaderSize);
   const lzma_ret rc = lzma_code(&zs, LZMA_FINISH);
   const uint64_t out = zs.total_out;
   lzma_end(&zs);
   if (rc != LZMA_STREAM_END || out > static_cast<uint64_t>(kMaxBlock))
      return 0;
   write_header(tgt, 'X', 'Z', 0, static_cast<uint32_t>(out), static_cast<uint32_t>(n));
   return static_cast<int>(out) + kHeaderSize;
}

int unzip_lzma(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err)
{
   lzma_stream zs = LZMA_STREAM_INIT;
   if (lzma_stream_decoder(&zs, UINT64_MAX, 0) != LZMA_OK) {
      *err = "lzma: decoder init failed";
      return -1;
   }
   zs.next_in = blk + kHeaderSize;
   zs.avail_in = static_cast<size_t>(size - kHeaderSize);
   zs.next_out = tgt;
   zs.avail_out = static_cast<size_t>(cap);
   const lzma_ret rc = lzma_code(&zs, LZMA_FINISH);
   const uint64_t out = zs.total_out;
   lzma_end(&zs);
   if (rc != LZMA_STREAM_END) {
      *err = rc == LZMA_BUF_ERROR ? "lzma: truncated stream or output larger than declared" : "lzma: corrupt stream";
      return -1;
   }
   return static_cast<int>(out);
}

} // namespace rootcompat
