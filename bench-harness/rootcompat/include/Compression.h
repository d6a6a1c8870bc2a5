// rootcompat: the compression-setting enum of ROOT's Compression.h (same names and
// values), so code written against ROOT's RZip.h compiles unchanged against ours.
#ifndef ROOTCOMPAT_COMPRESSION_H
#define ROOTCOMPAT_COMPRESSION_H

namespace ROOT {
struct RCompressionSetting {
   struct EAlgorithm {
      enum EValues {
         kUseGlobal = 0,          // the process-wide default (R__ZipMode), ZLIB unless changed
         kZLIB = 1,
         kLZMA = 2,
         kOldCompressionAlgo = 3, // "CS": not implemented by rootcompat
         kLZ4 = 4,
         kZSTD = 5,
         kUndefined = 6
      };
   };
};
} // namespace ROOT

#endif
