// ROOT-framed compression of whole buffers through the RZip.h C API (either backend): inputs
// above kMAXZIPBUF are cut into blocks as TBasket does; a buffer that does not shrink is stored.
#pragma once
#include "rzbench/layer.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace rzbench {

constexpr size_t kRootHeaderSize = 9;
constexpr size_t kRootMaxBlock = 0xffffff;

// Worst-case framed size of n input bytes (headers, LZ4 checksums, codec expansion).
size_t frame_bound(size_t n);

// Compress with setting = algorithm*100 + level. Returns bytes written, or 0 when the result
// would not be smaller than the input (or a block failed): the caller stores the buffer raw.
size_t frame_compress(int setting, const uint8_t *src, size_t n, uint8_t *dst, size_t cap);
// The same through a given layer (the two above use the layer linked into rzbench).
size_t frame_compress(const ZipApi &api, int setting, const uint8_t *src, size_t n, uint8_t *dst, size_t cap);
// The same with the algorithm and the level apart (a level outside 1..9, for candidate layers).
size_t frame_compress(const ZipApi &api, int algorithm, int level, const uint8_t *src, size_t n, uint8_t *dst,
                      size_t cap);

// Decode the framed blocks in src[0..n) into exactly `expected` bytes at dst. On failure returns
// false and sets *error (never reads or writes outside the given ranges).
bool frame_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t expected, std::string *error);
bool frame_decompress(const ZipApi &api, const uint8_t *src, size_t n, uint8_t *dst, size_t expected,
                      std::string *error);

// True when the first block is the old "CS" algorithm.
bool is_old_cs_block(const uint8_t *src, size_t n);

} // namespace rzbench
