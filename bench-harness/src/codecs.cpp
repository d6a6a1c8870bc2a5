// Codec adapters and the registry table. ROOT-framed rows go through the RZip.h C API (either
// backend); the ZSTD dictionary variant uses libzstd directly inside the same "ZS" framing,
// because ROOT's API has no dictionary parameter.
#include "rzbench/codecs.hpp"

#include "rzbench/framing.hpp"

#include <cstring>
#include <stdexcept>
#include <zdict.h>
#include <zstd.h>

namespace rzbench {

namespace {

class RootFramedCodec final : public Codec {
public:
   RootFramedCodec(int algorithm, int level, const ZipApi &api) : algorithm_(algorithm), level_(level), api_(api) {}
   size_t bound(size_t n) const override { return frame_bound(n); }
   size_t compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) const override
   {
      return frame_compress(api_, algorithm_, level_, src, n, dst, cap);
   }
   bool decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t expected, std::string *error) const override
   {
      return frame_decompress(api_, src, n, dst, expected, error);
   }

private:
   int algorithm_, level_; // apart: a candidate layer's level may be negative or above 9
   ZipApi api_; // a copy: four pointers, no indirection through a table per call
};

// One "ZS" block per buffer (buffers above 16 MiB are stored), compressed with a digested dictionary.
class ZstdDictCodec final : public Codec {
public:
   ZstdDictCodec(int level, const Bytes &dict)
      : cdict_(ZSTD_createCDict(dict.data(), dict.size(), 2 * level)), ddict_(ZSTD_createDDict(dict.data(), dict.size()))
   {
      if (cdict_ == nullptr || ddict_ == nullptr)
         throw std::runtime_error("zstd: cannot digest the dictionary");
   }
   ~ZstdDictCodec() override
   {
      ZSTD_freeCDict(cdict_);
      ZSTD_freeDDict(ddict_);
   }
   size_t bound(size_t n) const override { return ZSTD_compressBound(n) + kRootHeaderSize; }
   size_t compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) const override
   {
      if (n < 11 || n > kRootMaxBlock || cap <= kRootHeaderSize)
         return 0;
      ZSTD_CCtx *cctx = ZSTD_createCCtx();
      const size_t r = ZSTD_compress_usingCDict(cctx, dst + kRootHeaderSize, cap - kRootHeaderSize, src, n, cdict_);
      ZSTD_freeCCtx(cctx);
      if (ZSTD_isError(r) || r + kRootHeaderSize >= n)
         return 0;
      dst[0] = 'Z';
      dst[1] = 'S';
      dst[2] = 1;
      for (int i = 0; i < 3; ++i) {
         dst[3 + i] = static_cast<uint8_t>(r >> (8 * i));
         dst[6 + i] = static_cast<uint8_t>(n >> (8 * i));
      }
      return r + kRootHeaderSize;
   }
   bool decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t expected, std::string *error) const override
   {
      if (n < kRootHeaderSize || src[0] != 'Z' || src[1] != 'S' || src[2] != 1) {
         *error = "not a ZS block";
         return false;
      }
      ZSTD_DCtx *dctx = ZSTD_createDCtx();
      const size_t r = ZSTD_decompress_usingDDict(dctx, dst, expected, src + kRootHeaderSize, n - kRootHeaderSize, ddict_);
      ZSTD_freeDCtx(dctx);
      if (ZSTD_isError(r) || r != expected) {
         *error = ZSTD_isError(r) ? std::string("zstd: ") + ZSTD_getErrorName(r) : "zstd: wrong decoded size";
         return false;
      }
      return true;
   }

private:
   ZSTD_CDict *cdict_;
   ZSTD_DDict *ddict_;
};

// Baseline: "compression" stores the buffer, so each direction is exactly one memcpy.
class MemcpyCodec final : public Codec {
public:
   size_t bound(size_t n) const override { return n; }
   size_t compress(const uint8_t *, size_t, uint8_t *, size_t) const override { return 0; }
   bool decompress(const uint8_t *, size_t, uint8_t *, size_t, std::string *error) const override
   {
      *error = "memcpy rows are never compressed";
      return false;
   }
};

template <int Algorithm>
std::unique_ptr<Codec> make_framed(int level, const Bytes *dict, const ZipApi &api)
{
   if (dict != nullptr && !dict->empty()) {
      if (Algorithm != 5)
         throw std::runtime_error("dictionaries are supported for ZSTD only");
      return std::make_unique<ZstdDictCodec>(level, *dict);
   }
   return std::make_unique<RootFramedCodec>(Algorithm, level, api);
}

#ifdef RZBENCH_BACKEND_ROOT
constexpr const char *kCsUnavailable = nullptr;
#else
constexpr const char *kCsUnavailable =
   "ROOT's old CS algorithm (R__SetZipMode(3)) is not supported for writing by the rootcompat backend "
   "(its blocks are decoded)";
#endif

} // namespace

const std::vector<CodecRow> &codec_table()
{
   // algorithm  codec   dictionary  unavailable     factory
   static const std::vector<CodecRow> table{
      {0, "zlib", false, nullptr, &make_framed<0>}, // 0 = ROOT's global default (ZLIB)
      {1, "zlib", false, nullptr, &make_framed<1>},
      {2, "lzma", false, nullptr, &make_framed<2>},
      {3, "cs", false, kCsUnavailable, &make_framed<3>},
      {4, "lz4", false, nullptr, &make_framed<4>},
      {5, "zstd", true, nullptr, &make_framed<5>},
   };
   return table;
}

const CodecRow *find_codec_row(int algorithm)
{
   for (const auto &row : codec_table())
      if (row.algorithm == algorithm)
         return &row;
   return nullptr;
}

std::string check_setting(int setting)
{
   if (setting < 0 || setting > 599)
      return "setting " + std::to_string(setting) + " out of range (algorithm*100 + level, level 0..9)";
   if (setting % 100 > 9)
      return "setting " + std::to_string(setting) + ": level must be 0..9";
   const CodecRow *row = find_codec_row(setting / 100);
   if (row == nullptr)
      return "setting " + std::to_string(setting) + ": unknown algorithm " + std::to_string(setting / 100);
   if (row->unavailable != nullptr)
      return "setting " + std::to_string(setting) + ": " + row->unavailable;
   return "";
}

std::string codec_name(int setting)
{
   if (setting % 100 == 0)
      return "none";
   const CodecRow *row = find_codec_row(setting / 100);
   return row != nullptr ? row->codec : "unknown";
}

std::unique_ptr<Codec> make_memcpy_codec()
{
   return std::make_unique<MemcpyCodec>();
}

Bytes train_zstd_dictionary(const std::vector<const uint8_t *> &samples, const std::vector<size_t> &sizes,
                            size_t capacity)
{
   Bytes joined;
   for (size_t i = 0; i < samples.size(); ++i)
      joined.insert(joined.end(), samples[i], samples[i] + sizes[i]);
   Bytes dict(capacity);
   const size_t r = ZDICT_trainFromBuffer(dict.data(), capacity, joined.data(), sizes.data(),
                                          static_cast<unsigned>(sizes.size()));
   if (ZDICT_isError(r))
      throw std::runtime_error(std::string("zstd dictionary training failed: ") + ZDICT_getErrorName(r));
   dict.resize(r);
   return dict;
}

} // namespace rzbench
