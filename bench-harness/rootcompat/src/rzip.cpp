// The RZip.h entry points: argument checks, algorithm dispatch and header validation.
// Errors go to stderr in one line, as ROOT does, and leave *irep = 0.
#include "RZip.h"

#include "block_format.hpp"

#include <cstdio>

using rootcompat::kHeaderSize;
using Alg = ROOT::RCompressionSetting::EAlgorithm;

namespace {

Alg::EValues g_zip_mode = Alg::kZLIB; // what kUseGlobal means, as ROOT's default R__ZipMode

enum class Kind { kUnknown, kZlib, kOld, kLzma, kLz4, kZstd };

Kind block_kind(const unsigned char *h)
{
   if (h[0] == 'Z' && h[1] == 'L' && h[2] == 8)
      return Kind::kZlib;
   if (h[0] == 'C' && h[1] == 'S' && h[2] == 8)
      return Kind::kOld;
   if (h[0] == 'X' && h[1] == 'Z' && h[2] == 0)
      return Kind::kLzma;
   if (h[0] == 'L' && h[1] == '4')
      return Kind::kLz4; // version byte checked by the decoder, with a precise message
   if (h[0] == 'Z' && h[1] == 'S' && h[2] == 1)
      return Kind::kZstd;
   return Kind::kUnknown;
}

} // namespace

extern "C" void R__SetZipMode(Alg::EValues mode)
{
   g_zip_mode = mode;
}

extern "C" void R__zipMultipleAlgorithm(int cxlevel, int *srcsize, char *src, int *tgtsize, char *tgt, int *irep,
                                        Alg::EValues algorithm)
{
   *irep = 0;
   // Same refusals as ROOT: tiny inputs are not worth a header, level 0 means "store".
   if (*srcsize < 1 + kHeaderSize + 1 || *srcsize > rootcompat::kMaxBlock || cxlevel <= 0 || *tgtsize <= kHeaderSize)
      return;
   if (cxlevel > 9)
      cxlevel = 9;
   if (algorithm == Alg::kUseGlobal)
      algorithm = g_zip_mode;
   const auto *in = reinterpret_cast<const uint8_t *>(src);
   auto *out = reinterpret_cast<uint8_t *>(tgt);
   switch (algorithm) {
   case Alg::kLZMA: *irep = rootcompat::zip_lzma(cxlevel, in, *srcsize, out, *tgtsize); return;
   case Alg::kLZ4: *irep = rootcompat::zip_lz4(cxlevel, in, *srcsize, out, *tgtsize); return;
   case Alg::kZSTD: *irep = rootcompat::zip_zstd(cxlevel, in, *srcsize, out, *tgtsize); return;
   case Alg::kOldCompressionAlgo:
      std::fprintf(stderr, "R__zipMultipleAlgorithm: the old 'CS' algorithm is not implemented by rootcompat\n");
      return;
   default: // ROOT falls back to ZLIB for any other value
      *irep = rootcompat::zip_zlib(cxlevel, in, *srcsize, out, *tgtsize);
      return;
   }
}

extern "C" int R__unzip_header(int *srcsize, unsigned char *src, int *tgtsize)
{
   *srcsize = 0;
   *tgtsize = 0;
   if (block_kind(src) == Kind::kUnknown) {
      std::fprintf(stderr, "R__unzip_header: unknown block header %02x %02x %02x\n", src[0], src[1], src[2]);
      return 1;
   }
   *srcsize = kHeaderSize + static_cast<int>(rootcompat::get_u24(src + 3));
   *tgtsize = static_cast<int>(rootcompat::get_u24(src + 6));
   return 0;
}

extern "C" void R__unzip(int *srcsize, unsigned char *src, int *tgtsize, unsigned char *tgt, int *irep)
{
   *irep = 0;
   if (*srcsize < kHeaderSize) {
      std::fprintf(stderr, "R__unzip: source shorter than a block header\n");
      return;
   }
   const Kind kind = block_kind(src);
   if (kind == Kind::kUnknown) {
      std::fprintf(stderr, "R__unzip: unknown block header %02x %02x %02x\n", src[0], src[1], src[2]);
      return;
   }
   const int payload = static_cast<int>(rootcompat::get_u24(src + 3));
   const int declared = static_cast<int>(rootcompat::get_u24(src + 6));
   if (*tgtsize < declared) {
      std::fprintf(stderr, "R__unzip: target (%d bytes) smaller than the declared size %d\n", *tgtsize, declared);
      return;
   }
   if (payload + kHeaderSize != *srcsize) {
      std::fprintf(stderr, "R__unzip: block declares %d bytes but source has %d\n", payload + kHeaderSize, *srcsize);
      return;
   }
   const char *err = nullptr;
   int produced = -1;
   switch (kind) {
   case Kind::kZlib: produced = rootcompat::unzip_zlib(src, *srcsize, tgt, declared, &err); break;
   case Kind::kLzma: produced = rootcompat::unzip_lzma(src, *srcsize, tgt, declared, &err); break;
   case Kind::kLz4: produced = rootcompat::unzip_lz4(src, *srcsize, tgt, declared, &err); break;
   case Kind::kZstd: produced = rootcompat::unzip_zstd(src, *srcsize, tgt, declared, &err); break;
   case Kind::kOld: produced = rootcompat::unzip_old_cs(src, *srcsize, tgt, declared, &err); break;
   case Kind::kUnknown: break;
   }
   if (produced < 0) {
      std::fprintf(stderr, "R__unzip: %s\n", err != nullptr ? err : "decompression failed");
      return;
   }
   if (produced != declared) {
      std::fprintf(stderr, "R__unzip: produced %d bytes, header declares %d\n", produced, declared);
      return;
   }
   *irep = produced;
}
