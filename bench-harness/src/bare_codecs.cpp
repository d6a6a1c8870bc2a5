// The codec libraries called without ROOT's framing (headroom.hpp), each with a fresh context per
// buffer or one reused context. They ask for the same stream format and parameters ROOT's layer
// asks for (zlib wrapper at the level, zstd level 2*L, LZ4 or LZ4HC at the level, an .xz stream
// with LZMA2 at the preset, the dictionary cut to a quarter of the input, CRC32), so their
// output is the payload inside ROOT's block; run_headroom checks that byte for byte.
#include "rzbench/headroom.hpp"

#include <lz4.h>
#include <lz4hc.h>
#include <lzma.h>
#include <stdexcept>
#include <zlib.h>
#include <zstd.h>

namespace rzbench {

namespace {

class ZlibBare final : public BareCodec {
public:
   ZlibBare(int level, bool reused) : level_(level), reused_(reused)
   {
      if (reused_ && (deflateInit(&def_, level_) != Z_OK || inflateInit(&inf_) != Z_OK))
         throw std::runtime_error("zlib: cannot initialise the reused streams");
   }
   ~ZlibBare() override
   {
      if (reused_) {
         deflateEnd(&def_);
         inflateEnd(&inf_);
      }
   }
   size_t compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) override
   {
      z_stream fresh{};
      z_stream &zs = reused_ ? def_ : fresh;
      if (reused_ ? deflateReset(&zs) != Z_OK : deflateInit(&zs, level_) != Z_OK)
         return 0;
      zs.next_in = const_cast<Bytef *>(src);
      zs.avail_in = static_cast<uInt>(n);
      zs.next_out = dst;
      zs.avail_out = static_cast<uInt>(cap);
      const int rc = deflate(&zs, Z_FINISH);
      const size_t out = zs.total_out;
      if (!reused_)
         deflateEnd(&zs);
      return rc == Z_STREAM_END ? out : 0;
   }
   bool decompress(const uint8_t *src, size_t m, uint8_t *dst, size_t n) override
   {
      z_stream fresh{};
      z_stream &zs = reused_ ? inf_ : fresh;
      if (reused_ ? inflateReset(&zs) != Z_OK : inflateInit(&zs) != Z_OK)
         return false;
      zs.next_in = const_cast<Bytef *>(src);
      zs.avail_in = static_cast<uInt>(m);
      zs.next_out = dst;
      zs.avail_out = static_cast<uInt>(n);
      const int rc = inflate(&zs, Z_FINISH);
      const size_t out = zs.total_out;
      if (!reused_)
         inflateEnd(&zs);
      return rc == Z_STREAM_END && out == n;
   }
   std::string compress_call() const override
   {
      return reused_ ? "deflateReset + deflate(Z_FINISH) on one z_stream"
                     : "deflateInit + deflate(Z_FINISH) + deflateEnd";
   }
   std::string decompress_call() const override
   {
      return reused_ ? "inflateReset + inflate(Z_FINISH) on one z_stream"
                     : "inflateInit + inflate(Z_FINISH) + inflateEnd";
   }

private:
   int level_;
   bool reused_;
   z_stream def_{}, inf_{};
};

class ZstdBare final : public BareCodec {
public:
   ZstdBare(int level, bool reused) : level_(2 * level), reused_(reused)
   {
      if (reused_) {
         cctx_ = ZSTD_createCCtx();
         dctx_ = ZSTD_createDCtx();
         if (cctx_ == nullptr || dctx_ == nullptr)
            throw std::runtime_error("zstd: cannot create the reused contexts");
      }
   }
   ~ZstdBare() override
   {
      ZSTD_freeCCtx(cctx_);
      ZSTD_freeDCtx(dctx_);
   }
   size_t compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) override
   {
      const size_t r = reused_ ? ZSTD_compressCCtx(cctx_, dst, cap, src, n, level_) : ZSTD_compress(dst, cap, src, n, level_);
      return ZSTD_isError(r) ? 0 : r;
   }
   bool decompress(const uint8_t *src, size_t m, uint8_t *dst, size_t n) override
   {
      const size_t r = reused_ ? ZSTD_decompressDCtx(dctx_, dst, n, src, m) : ZSTD_decompress(dst, n, src, m);
      return !ZSTD_isError(r) && r == n;
   }
   std::string compress_call() const override
   {
      return reused_ ? "ZSTD_compressCCtx (one ZSTD_CCtx)" : "ZSTD_compress (a context per call)";
   }
   std::string decompress_call() const override
   {
      return reused_ ? "ZSTD_decompressDCtx (one ZSTD_DCtx)" : "ZSTD_decompress (a context per call)";
   }

private:
   int level_;
   bool reused_;
   ZSTD_CCtx *cctx_ = nullptr;
   ZSTD_DCtx *dctx_ = nullptr;
};

// ROOT: LZ4_compress_default below level 4, LZ4_compress_HC at the level from 4. The shared
// liblz4 exports the extState entry points (a caller-owned state, re-initialised per call) but
// not the *_fastReset ones, which are only in the static library (bench-harness/scripts/
// framing_cost.sh links that one to count them). LZ4 decoding keeps no state: fresh = reused.
class Lz4Bare final : public BareCodec {
public:
   Lz4Bare(int level, bool reused) : level_(level), reused_(reused)
   {
      if (reused_)
         state_.resize(level_ >= 4 ? static_cast<size_t>(LZ4_sizeofStateHC()) : static_cast<size_t>(LZ4_sizeofState()));
   }
   size_t compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) override
   {
      const char *in = reinterpret_cast<const char *>(src);
      char *out = reinterpret_cast<char *>(dst);
      const int ni = static_cast<int>(n), ci = static_cast<int>(cap);
      int r = 0;
      if (level_ >= 4)
         r = reused_ ? LZ4_compress_HC_extStateHC(state_.data(), in, out, ni, ci, level_)
                     : LZ4_compress_HC(in, out, ni, ci, level_);
      else
         r = reused_ ? LZ4_compress_fast_extState(state_.data(), in, out, ni, ci, 1) : LZ4_compress_default(in, out, ni, ci);
      return r > 0 ? static_cast<size_t>(r) : 0;
   }
   bool decompress(const uint8_t *src, size_t m, uint8_t *dst, size_t n) override
   {
      const int r = LZ4_decompress_safe(reinterpret_cast<const char *>(src), reinterpret_cast<char *>(dst),
                                        static_cast<int>(m), static_cast<int>(n));
      return r >= 0 && static_cast<size_t>(r) == n;
   }
   std::string compress_call() const override
   {
      if (level_ >= 4)
         return reused_ ? "LZ4_compress_HC_extStateHC (one state)" : "LZ4_compress_HC (a state per call)";
      return reused_ ? "LZ4_compress_fast_extState (one state, re-initialised)" : "LZ4_compress_default (a state per call)";
   }
   std::string decompress_call() const override { return "LZ4_decompress_safe (stateless)"; }

private:
   int level_;
   bool reused_;
   std::vector<char> state_;
};

// An .xz stream with the LZMA2 preset whose dictionary is cut to max(n/4, LZMA_DICT_SIZE_MIN)
// and a CRC32 check, as ROOT writes. lzma_easy_buffer_encode would keep the preset's dictionary
// and write other bytes: not the same work. Reused: the same lzma_stream initialised again,
// which liblzma documents as reusing the coder's memory.
class LzmaBare final : public BareCodec {
public:
   LzmaBare(int level, bool reused) : level_(level), reused_(reused) {}
   ~LzmaBare() override
   {
      lzma_end(&enc_);
      lzma_end(&dec_);
   }
   size_t compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) override
   {
      lzma_options_lzma opt{};
      if (lzma_lzma_preset(&opt, static_cast<uint32_t>(level_)))
         return 0;
      uint32_t dict = static_cast<uint32_t>(n / 4);
      if (dict < LZMA_DICT_SIZE_MIN)
         dict = LZMA_DICT_SIZE_MIN;
      if (opt.dict_size > dict)
         opt.dict_size = dict;
      lzma_filter filters[2] = {{LZMA_FILTER_LZMA2, &opt}, {LZMA_VLI_UNKNOWN, nullptr}};
      lzma_stream fresh = LZMA_STREAM_INIT;
      lzma_stream &zs = reused_ ? enc_ : fresh;
      if (lzma_stream_encoder(&zs, filters, LZMA_CHECK_CRC32) != LZMA_OK)
         return 0;
      zs.next_in = src;
      zs.avail_in = n;
      zs.next_out = dst;
      zs.avail_out = cap;
      const lzma_ret rc = lzma_code(&zs, LZMA_FINISH);
      const uint64_t out = zs.total_out;
      if (!reused_)
         lzma_end(&zs);
      return rc == LZMA_STREAM_END ? static_cast<size_t>(out) : 0;
   }
   bool decompress(const uint8_t *src, size_t m, uint8_t *dst, size_t n) override
   {
      lzma_stream fresh = LZMA_STREAM_INIT;
      lzma_stream &zs = reused_ ? dec_ : fresh;
      if (lzma_stream_decoder(&zs, UINT64_MAX, 0) != LZMA_OK)
         return false;
      zs.next_in = src;
      zs.avail_in = m;
      zs.next_out = dst;
      zs.avail_out = n;
      const lzma_ret rc = lzma_code(&zs, LZMA_FINISH);
      const uint64_t out = zs.total_out;
      if (!reused_)
         lzma_end(&zs);
      return rc == LZMA_STREAM_END && out == n;
   }
   std::string compress_call() const override
   {
      return reused_ ? "lzma_stream_encoder again on one lzma_stream + lzma_code"
                     : "lzma_stream_encoder + lzma_code + lzma_end";
   }
   std::string decompress_call() const override
   {
      return reused_ ? "lzma_stream_decoder again on one lzma_stream + lzma_code"
                     : "lzma_stream_decoder + lzma_code + lzma_end";
   }

private:
   int level_;
   bool reused_;
   lzma_stream enc_ = LZMA_STREAM_INIT, dec_ = LZMA_STREAM_INIT;
};

} // namespace

std::unique_ptr<BareCodec> make_bare_codec(int setting, bool reused)
{
   const int algorithm = setting / 100, level = setting % 100;
   if (level < 1 || level > 9)
      throw std::invalid_argument("setting " + std::to_string(setting) + ": headroom needs a level 1..9");
   switch (algorithm) {
   case 1: return std::make_unique<ZlibBare>(level, reused);
   case 2: return std::make_unique<LzmaBare>(level, reused);
   case 4: return std::make_unique<Lz4Bare>(level, reused);
   case 5: return std::make_unique<ZstdBare>(level, reused);
   default:
      throw std::invalid_argument("setting " + std::to_string(setting) +
                                  ": headroom compares ZLIB (1xx), LZMA (2xx), LZ4 (4xx) and ZSTD (5xx)");
   }
}

size_t framed_payload_offset(int setting)
{
   return setting / 100 == 4 ? 9 + 8 : 9;
}

} // namespace rzbench
