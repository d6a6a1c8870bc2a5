// rootcompat: the buffer-compression C API of ROOT's core/zip/inc/RZip.h, implemented
// over the system zlib / liblzma / liblz4 / libzstd / libxxhash (see ../README.md).
#ifndef ROOTCOMPAT_RZIP_H
#define ROOTCOMPAT_RZIP_H

#include "Compression.h"

// Compress *srcsize bytes of src into one 9-byte-framed block in tgt (capacity *tgtsize).
// *irep = bytes written; 0 = not compressed (level 0, input < 11 bytes or > 0xffffff bytes,
// output would not fit, unsupported algorithm). Callers cut larger inputs into blocks.
extern "C" void R__zipMultipleAlgorithm(int cxlevel, int *srcsize, char *src, int *tgtsize, char *tgt, int *irep,
                                        ROOT::RCompressionSetting::EAlgorithm::EValues algorithm);

// Decode one block of exactly *srcsize bytes into tgt (capacity *tgtsize); *irep = bytes produced, 0 = error.
extern "C" void R__unzip(int *srcsize, unsigned char *src, int *tgtsize, unsigned char *tgt, int *irep);

// Read the 9-byte header at src (9 bytes must be readable): *srcsize = whole block size (header
// included), *tgtsize = uncompressed size. Returns 0 on success, 1 for an unknown header.
extern "C" int R__unzip_header(int *srcsize, unsigned char *src, int *tgtsize);

// Select the algorithm used for kUseGlobal (ROOT's R__ZipMode).
extern "C" void R__SetZipMode(ROOT::RCompressionSetting::EAlgorithm::EValues mode);

enum { kMAXZIPBUF = 0xffffff }; // largest block payload: 3-byte sizes

#endif
