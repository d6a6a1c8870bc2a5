/* A candidate layer for `basketbench arena`: the RZip.h C API (R__zipMultipleAlgorithm, R__unzip,
 * R__unzip_header) over ONE candidate codec library, built from its source package and linked in
 * statically (backend/basketbench/measure/arena/build.py compiles this file once per candidate).
 * rzbench loads it like any other layer (dlopen RTLD_LOCAL | RTLD_DEEPBIND) and runs it beside
 * ROOT's own layer in `rzbench ab --b-codecs`.
 *
 * Framing is ROOT's 9-byte block header (docs/arena.md): two magic bytes, a method/version byte,
 * the compressed size (without the header) and the uncompressed size, 24-bit little endian each.
 * Every candidate writes a format ROOT already reads ("ZL" + a zlib stream, "ZS" + a zstd frame,
 * "L4" + XXH64 + an LZ4 block), so the output of a candidate is a file ROOT can open; whether it
 * really does is measured (ROOT's layer decodes the candidate's output), not assumed.
 *
 * The level argument is the library's own level, unchanged: zlib 1..9, libdeflate 1..12, zstd
 * ZSTD_minCLevel()..22 (negative = fast), lz4 -N (acceleration N), 1..2 (LZ4_compress_default),
 * 3..12 (LZ4 HC). `algorithm` is ignored: a candidate layer has one codec.
 *
 * Exactly one of ARENA_ZLIB (the zlib API: vanilla zlib, Cloudflare's, zlib-ng compat),
 * ARENA_ZLIBNG (zlib-ng's native zng_ API), ARENA_LIBDEFLATE, ARENA_ZSTD, ARENA_LZ4 is defined;
 * ARENA_ZSTD_LDM turns on zstd's long-distance matching; ARENA_REUSE_CONTEXT keeps one
 * compression / decompression context per thread across buffers (ROOT makes a new one per call).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HEADER 9
#define MAX_BLOCK 0xffffff

#define EXPORT __attribute__((visibility("default")))

static void put_u24(unsigned char *p, uint32_t v)
{
   p[0] = (unsigned char)(v & 0xff);
   p[1] = (unsigned char)((v >> 8) & 0xff);
   p[2] = (unsigned char)((v >> 16) & 0xff);
}

static uint32_t get_u24(const unsigned char *p)
{
   return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
}

static void write_header(unsigned char *tgt, char m0, char m1, unsigned char method, uint32_t comp, uint32_t raw)
{
   tgt[0] = (unsigned char)m0;
   tgt[1] = (unsigned char)m1;
   tgt[2] = method;
   put_u24(tgt + 3, comp);
   put_u24(tgt + 6, raw);
}

/* Each family: compress_block returns the payload bytes written after the header (0: does not
 * fit / failed), decompress_block the bytes produced (-1: failed). */

#if defined(ARENA_ZLIB) || defined(ARENA_ZLIBNG)
#ifdef ARENA_ZLIBNG
#include <zlib-ng.h>
#define Z(name) zng_##name
typedef zng_stream arena_stream;
#else
#include <zlib.h>
#define Z(name) name
typedef z_stream arena_stream;
#endif
static const char kMagic[3] = {'Z', 'L', 8};

EXPORT const char *arena_candidate_version(void)
{
#ifdef ARENA_ZLIBNG
   return zlibng_version();
#else
   return zlibVersion();
#endif
}

static int compress_block(int level, const unsigned char *src, int n, unsigned char *dst, int cap)
{
   /* As ROOT's R__zipZLIB: deflateInit's defaults (zlib wrapper, 32 KiB window, memLevel 8),
    * one deflate(Z_FINISH) call, a fresh stream per block. */
   arena_stream zs;
   memset(&zs, 0, sizeof zs);
   if (Z(deflateInit)(&zs, level) != Z_OK)
      return 0;
   zs.next_in = (unsigned char *)src;
   zs.avail_in = (unsigned)n;
   zs.next_out = dst;
   zs.avail_out = (unsigned)cap;
   const int rc = Z(deflate)(&zs, Z_FINISH);
   const unsigned long out = (unsigned long)zs.total_out;
   Z(deflateEnd)(&zs);
   return rc == Z_STREAM_END ? (int)out : 0;
}

static int decompress_block(const unsigned char *src, int n, unsigned char *dst, int cap)
{
   arena_stream zs;
   memset(&zs, 0, sizeof zs);
   if (Z(inflateInit)(&zs) != Z_OK)
      return -1;
   zs.next_in = (unsigned char *)src;
   zs.avail_in = (unsigned)n;
   zs.next_out = dst;
   zs.avail_out = (unsigned)cap;
   const int rc = Z(inflate)(&zs, Z_FINISH);
   const unsigned long out = (unsigned long)zs.total_out;
   Z(inflateEnd)(&zs);
   return rc == Z_STREAM_END ? (int)out : -1;
}

#elif defined(ARENA_LIBDEFLATE)
#include <libdeflate.h>
static const char kMagic[3] = {'Z', 'L', 8};

EXPORT const char *arena_candidate_version(void)
{
   return LIBDEFLATE_VERSION_STRING;
}

static int compress_block(int level, const unsigned char *src, int n, unsigned char *dst, int cap)
{
   /* A compressor per block, as ROOT makes a z_stream per block: its set-up cost is measured. */
   struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
   if (c == NULL)
      return 0;
   const size_t out = libdeflate_zlib_compress(c, src, (size_t)n, dst, (size_t)cap);
   libdeflate_free_compressor(c);
   return (int)out;
}

static int decompress_block(const unsigned char *src, int n, unsigned char *dst, int cap)
{
   struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
   if (d == NULL)
      return -1;
   size_t out = 0;
   const enum libdeflate_result r = libdeflate_zlib_decompress(d, src, (size_t)n, dst, (size_t)cap, &out);
   libdeflate_free_decompressor(d);
   return r == LIBDEFLATE_SUCCESS ? (int)out : -1;
}

#elif defined(ARENA_ZSTD)
#include <zstd.h>
/* Version byte: the zstd major version, as ROOT writes it. */
static const char kMagic[3] = {'Z', 'S', (char)(ZSTD_VERSION_MAJOR)};

EXPORT const char *arena_candidate_version(void)
{
   return ZSTD_versionString();
}

#ifdef ARENA_REUSE_CONTEXT
static __thread ZSTD_CCtx *t_cctx;
static __thread ZSTD_DCtx *t_dctx;
#endif

static int compress_block(int level, const unsigned char *src, int n, unsigned char *dst, int cap)
{
#ifdef ARENA_REUSE_CONTEXT
   if (t_cctx == NULL)
      t_cctx = ZSTD_createCCtx();
   ZSTD_CCtx *cctx = t_cctx;
   if (cctx == NULL)
      return 0;
   ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
#else
   ZSTD_CCtx *cctx = ZSTD_createCCtx();
   if (cctx == NULL)
      return 0;
#endif
   size_t out;
#ifdef ARENA_ZSTD_LDM
   ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
   ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, 1);
   out = ZSTD_compress2(cctx, dst, (size_t)cap, src, (size_t)n);
#else
   /* ROOT's own call (R__zipZSTD), with the level given instead of 2 * ROOT's level. */
   out = ZSTD_compressCCtx(cctx, dst, (size_t)cap, src, (size_t)n, level);
#endif
#ifndef ARENA_REUSE_CONTEXT
   ZSTD_freeCCtx(cctx);
#endif
   return ZSTD_isError(out) ? 0 : (int)out;
}

static int decompress_block(const unsigned char *src, int n, unsigned char *dst, int cap)
{
#ifdef ARENA_REUSE_CONTEXT
   if (t_dctx == NULL)
      t_dctx = ZSTD_createDCtx();
   ZSTD_DCtx *dctx = t_dctx;
#else
   ZSTD_DCtx *dctx = ZSTD_createDCtx();
#endif
   if (dctx == NULL)
      return -1;
   const size_t out = ZSTD_decompressDCtx(dctx, dst, (size_t)cap, src, (size_t)n);
#ifndef ARENA_REUSE_CONTEXT
   ZSTD_freeDCtx(dctx);
#endif
   return ZSTD_isError(out) ? -1 : (int)out;
}

#elif defined(ARENA_LZ4)
#include <lz4.h>
#include <lz4hc.h>
#define XXH_NAMESPACE ARENA_
#include <xxhash.h>
/* Version byte: the lz4 major version; then 8 bytes of XXH64 (seed 0, canonical big-endian) of
 * the LZ4 block, which ROOT checks before decoding. */
static const char kMagic[3] = {'L', '4', (char)(LZ4_VERSION_MAJOR)};
#define CHECKSUM 8

EXPORT const char *arena_candidate_version(void)
{
   return LZ4_versionString();
}

#ifdef ARENA_REUSE_CONTEXT
static __thread LZ4_stream_t t_fast;
static __thread LZ4_streamHC_t t_hc;
#endif

static int compress_block(int level, const unsigned char *src, int n, unsigned char *dst, int cap)
{
   if (cap <= CHECKSUM)
      return 0;
   const char *in = (const char *)src;
   char *out = (char *)dst + CHECKSUM;
   const int room = cap - CHECKSUM;
   int produced;
#ifdef ARENA_REUSE_CONTEXT
   if (level >= 3)
      produced = LZ4_compress_HC_extStateHC(&t_hc, in, out, n, room, level);
   else
      produced = LZ4_compress_fast_extState(&t_fast, in, out, n, room, level <= 0 ? -level : 1);
#else
   if (level >= 3)
      produced = LZ4_compress_HC(in, out, n, room, level);
   else if (level <= 0)
      produced = LZ4_compress_fast(in, out, n, room, -level);
   else
      produced = LZ4_compress_default(in, out, n, room);
#endif
   if (produced <= 0)
      return 0;
   XXH64_canonical_t sum;
   XXH64_canonicalFromHash(&sum, XXH64(out, (size_t)produced, 0));
   memcpy(dst, sum.digest, CHECKSUM);
   return produced + CHECKSUM;
}

static int decompress_block(const unsigned char *src, int n, unsigned char *dst, int cap)
{
   if (n <= CHECKSUM)
      return -1;
   XXH64_canonical_t stored;
   memcpy(stored.digest, src, CHECKSUM);
   if (XXH64(src + CHECKSUM, (size_t)(n - CHECKSUM), 0) != XXH64_hashFromCanonical(&stored))
      return -1;
   const int out = LZ4_decompress_safe((const char *)src + CHECKSUM, (char *)dst, n - CHECKSUM, cap);
   return out < 0 ? -1 : out;
}

#else
#error "define one of ARENA_ZLIB, ARENA_ZLIBNG, ARENA_LIBDEFLATE, ARENA_ZSTD, ARENA_LZ4"
#endif

/* ---- the RZip.h entry points (C linkage, the algorithm as an int: the ABI of every ROOT) ---- */

EXPORT void R__zipMultipleAlgorithm(int level, int *srcsize, char *src, int *tgtsize, char *tgt, int *irep,
                                    int algorithm)
{
   (void)algorithm;
   *irep = 0;
   /* ROOT's refusals: a tiny input is not worth a header; the target must hold one. */
   if (*srcsize < 1 + HEADER + 1 || *srcsize > MAX_BLOCK || *tgtsize <= HEADER)
      return;
   unsigned char *out = (unsigned char *)tgt;
   const int payload = compress_block(level, (const unsigned char *)src, *srcsize, out + HEADER, *tgtsize - HEADER);
   if (payload <= 0 || payload > MAX_BLOCK)
      return;
   write_header(out, kMagic[0], kMagic[1], (unsigned char)kMagic[2], (uint32_t)payload, (uint32_t)*srcsize);
   *irep = payload + HEADER;
}

EXPORT int R__unzip_header(int *srcsize, unsigned char *src, int *tgtsize)
{
   *srcsize = 0;
   *tgtsize = 0;
   if (src[0] != (unsigned char)kMagic[0] || src[1] != (unsigned char)kMagic[1] ||
       src[2] != (unsigned char)kMagic[2])
      return 1;
   *srcsize = HEADER + (int)get_u24(src + 3);
   *tgtsize = (int)get_u24(src + 6);
   return 0;
}

EXPORT void R__unzip(int *srcsize, unsigned char *src, int *tgtsize, unsigned char *tgt, int *irep)
{
   *irep = 0;
   int blk = 0, raw = 0;
   if (*srcsize < HEADER || R__unzip_header(&blk, src, &raw) != 0 || blk > *srcsize || raw > *tgtsize)
      return;
   const int out = decompress_block(src + HEADER, blk - HEADER, tgt, raw);
   if (out == raw)
      *irep = out;
}
