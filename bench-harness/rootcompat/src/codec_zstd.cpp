// "ZS" blocks: one zstd frame after the header, version byte 1; ROOT level L is zstd level 2*L.
// Like ROOT, each call uses a fresh context, so per-call setup cost is part of what is measured.
#include "block_format.hpp"

#include <zstd.h>

namespace rootcompat {

uint8_t zstd_version_byte()
{
   return static_cast<uint8_t>(ZSTD_versionNumber() / (100 * 100));
}

int zip_zstd(int level, const uint8_t *src, int n, uint8_t *tgt, int cap)
{
   if (cap <= kHeaderSize)
      return 0;
   ZSTD_CCtx *cctx = ZSTD_createCCtx();
   if (cctx == nullptr)
      return 0;
   const size_t out = ZSTD_compressCCtx(cctx, tgt + kHeaderSize, static_cast<size_t>(cap - kHeaderSize), src,
                                        static_cast<size_t>(n), 2 * level);
   ZSTD_freeCCtx(cctx);
   if (ZSTD_isError(out) || out > static_cast<size_t>(kMaxBlock))
      return 0;
   write_header(tgt, 'Z', 'S', zstd_version_byte(), static_cast<uint32_t>(out), static_cast<uint32_t>(n));
   return static_cast<int>(out) + kHeaderSize;
}

int unzip_zstd(const uint8_t *blk, int size, uint8_t *tgt, int cap, const char **err)
{
   if (blk[2] != zstd_version_byte()) {
      *err = "zstd: block written by an incompatible ZSTD major version";
      return -1;
   }
   ZSTD_DCtx *dctx = ZSTD_createDCtx();
   if (dctx == nullptr) {
      *err = "zstd: cannot create context";
      return -1;
   }
   const size_t out =
      ZSTD_decompressDCtx(dctx, tgt, static_cast<size_t>(cap), blk + kHeaderSize, static_cast<size_t>(size - kHeaderSize));
   ZSTD_freeDCtx(dctx);
   if (ZSTD_isError(out)) {
      *err = "zstd: corrupt or truncated frame";
      return -1;
   }
   return static_cast<int>(out);
}

} // namespace rootcompat
