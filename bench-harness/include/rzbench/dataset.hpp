// In-memory datasets: baskets of uncompressed payload plus the metadata that re-chunking,
// preconditioning and RAC need. Filled from a corpus file or by a synthetic generator.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rzbench {

using Bytes = std::vector<uint8_t>;

struct SourceFile {
   std::string path;
   int fcompress = 0;
   std::string sha256;
};

struct Basket {
   int file = 0;
   std::string tree;
   std::string branch;
   int index = 0;                                       // basket number within its branch
   int element_size = 1;                                // 1, 2, 4, 8: the unit of Shuffle/BitShuffle
   uint64_t entries = 0;
   uint64_t data_bytes = 0;                             // entry data; raw = data + offset array
   std::optional<std::vector<uint64_t>> entry_offsets; // start of each entry in the data; null = fixed size
   Bytes raw;                                           // exactly what ROOT compressed
   std::optional<Bytes> root_compressed;                // ROOT's framed blocks, if any
   std::optional<int> fcompress;                        // the branch's own setting, when not the file's
   std::string type_class;                              // float, integer, boolean, counts, string, object; "" = unknown
   bool page = false;                                   // an RNTuple page ("kind": "page"), measured like a basket
};

struct Dataset {
   std::string name;
   std::string source; // corpus path or synthetic:<generator>
   std::vector<SourceFile> files;
   std::vector<Basket> baskets;
   std::optional<uint64_t> page_size; // a re-paged RNTuple corpus's maximum page size (header "page_size")
};

// An entry's position inside its basket's data.
struct EntrySpan {
   size_t offset;
   size_t size;
};

// Entries of a basket: from entry_offsets, else fixed records of data_bytes/entries bytes;
// a basket whose entry layout is unknown is one entry.
std::vector<EntrySpan> entry_spans(const Basket &b);

uint64_t dataset_bytes(const Dataset &d);
// "xxh64:" + XXH64 (seed 0) of all raw payloads concatenated in order (docs/CORPUS_FORMAT.md).
std::string dataset_checksum(const Dataset &d);
std::string xxh64_hex(const uint8_t *p, size_t n);

// The offset array our generators and the re-chunker append after variable-size entry data:
// big-endian int32 count (entries + 1), the entry starts (+ kOffsetBias, like ROOT's key length),
// and a final 0 (ROOT's TBasket writes a similar big-endian array).
constexpr uint32_t kOffsetBias = 100;
void append_offset_array(Bytes &raw, const std::vector<uint64_t> &starts);

} // namespace rzbench
