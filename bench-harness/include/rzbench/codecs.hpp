// The codec registry: one table row per ROOT algorithm (lzbench style). A row turns a level
// (and optionally a ZSTD dictionary) into a Codec; the harness never names a codec elsewhere.
#pragma once
#include "rzbench/dataset.hpp"
#include "rzbench/layer.hpp"

#include <memory>
#include <string>
#include <vector>

namespace rzbench {

// One buffer in, one buffer out. Implementations are stateless between calls and thread-safe.
class Codec {
public:
   virtual ~Codec() = default;
   virtual size_t bound(size_t n) const = 0;
   // Bytes written to dst, or 0 = "store the buffer raw" (did not shrink, or level 0).
   virtual size_t compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) const = 0;
   // Decode exactly `expected` bytes; false + *error on any problem.
   virtual bool decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t expected, std::string *error) const = 0;
};

struct CodecRow {
   int algorithm;              // ROOT algorithm number: setting = algorithm * 100 + level
   const char *codec;          // name in result documents ("zlib", "lzma", "cs", "lz4", "zstd")
   bool dictionary;            // accepts a trained dictionary (ZSTD only)
   const char *unavailable;    // non-null: why this backend cannot run the row
   // Framed rows run through `api` (a layer); the dictionary variant uses the host's libzstd.
   std::unique_ptr<Codec> (*make)(int level, const Bytes *dictionary, const ZipApi &api);
};

const std::vector<CodecRow> &codec_table();
const CodecRow *find_codec_row(int algorithm);

// Validates a setting for this backend; returns an error message or "" when usable.
std::string check_setting(int setting);
// Name of the codec a setting runs ("none" for level 0).
std::string codec_name(int setting);

std::unique_ptr<Codec> make_memcpy_codec();

// ZSTD dictionary training (zdict) at the given capacity; throws std::runtime_error on failure.
Bytes train_zstd_dictionary(const std::vector<const uint8_t *> &samples, const std::vector<size_t> &sizes,
                            size_t capacity);

} // namespace rzbench
