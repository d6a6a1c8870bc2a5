// What ROOT's framing costs, in instructions: one pass over FILE cut into BLOCK-byte blocks,
// either through RZip.h (a fresh codec context per call, LZ4's XXH64, the 9-byte header) or
// through the bare library with one persistent context, as `zstd -b` / `lz4 -b` do.
// Run under callgrind by framing_cost.sh; usage: framing_cost FILE {root|bare} {c|d} SETTING PASSES
#define LZ4_STATIC_LINKING_ONLY
#define LZ4_HC_STATIC_LINKING_ONLY
#include <RZip.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <lz4.h>
#include <lz4hc.h>
#include <string>
#include <vector>
#include <zstd.h>

namespace {
constexpr size_t kBlock = 32000;
using Alg = ROOT::RCompressionSetting::EAlgorithm::EValues;

int root_zip(int setting, char *src, int n, std::vector<char> &out)
{
   int srcsize = n, tgtsize = static_cast<int>(out.size()), irep = 0;
   R__zipMultipleAlgorithm(setting % 100, &srcsize, src, &tgtsize, out.data(), &irep, static_cast<Alg>(setting / 100));
   return irep;
}
} // namespace

int main(int argc, char **argv)
{
   if (argc != 6) {
      std::fprintf(stderr, "usage: framing_cost FILE {root|bare} {c|d} SETTING PASSES\n");
      return 2;
   }
   std::ifstream in(argv[1], std::ios::binary);
   std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
   const bool root = std::string(argv[2]) == "root";
   const bool decompress = std::string(argv[3]) == "d";
   const int setting = std::stoi(argv[4]);
   const int passes = std::stoi(argv[5]);
   const int alg = setting / 100, level = setting % 100;
   if (alg != 4 && alg != 5) {
      std::fprintf(stderr, "LZ4 (4xx) and ZSTD (5xx) only\n");
      return 2;
   }
   std::vector<char> out(kBlock + 1024), back(kBlock);
   std::vector<std::vector<char>> framed; // input for decompression passes
   for (size_t off = 0; off < data.size(); off += kBlock) {
      const int n = static_cast<int>(std::min(kBlock, data.size() - off));
      const int r = root_zip(setting, data.data() + off, n, out);
      framed.emplace_back(out.begin(), out.begin() + r);
   }
   ZSTD_CCtx *cctx = ZSTD_createCCtx();
   ZSTD_DCtx *dctx = ZSTD_createDCtx();
   std::vector<char> lz4_state(LZ4_sizeofState()), lz4hc_state(LZ4_sizeofStateHC());
   const int header = alg == 4 ? 17 : 9;
   size_t total = 0;
   for (int p = 0; p < passes; ++p) {
      size_t k = 0;
      for (size_t off = 0; off < data.size(); off += kBlock, ++k) {
         const int n = static_cast<int>(std::min(kBlock, data.size() - off));
         char *src = data.data() + off;
         const std::vector<char> &f = framed[k];
         if (decompress && f.empty())
            continue; // block stored by ROOT: nothing to decode
         if (!decompress && root) {
            total += static_cast<size_t>(root_zip(setting, src, n, out));
         } else if (!decompress && alg == 4) {
            total += static_cast<size_t>(
               level < 4 ? LZ4_compress_fast_extState_fastReset(lz4_state.data(), src, out.data(), n, (int)out.size(), 1)
                         : LZ4_compress_HC_extStateHC_fastReset(lz4hc_state.data(), src, out.data(), n, (int)out.size(), level));
         } else if (!decompress) {
            total += ZSTD_compressCCtx(cctx, out.data(), out.size(), src, static_cast<size_t>(n), 2 * level);
         } else if (root) {
            int srcsize = static_cast<int>(f.size()), tgtsize = n, irep = 0;
            R__unzip(&srcsize, (unsigned char *)f.data(), &tgtsize, (unsigned char *)back.data(), &irep);
            total += static_cast<size_t>(irep);
         } else if (alg == 4) {
            total += static_cast<size_t>(LZ4_decompress_safe(f.data() + header, back.data(), (int)f.size() - header, n));
         } else {
            total += ZSTD_decompressDCtx(dctx, back.data(), static_cast<size_t>(n), f.data() + header, f.size() - header);
         }
      }
   }
   ZSTD_freeCCtx(cctx);
   ZSTD_freeDCtx(dctx);
   std::printf("%zu\n", total);
   return 0;
}
