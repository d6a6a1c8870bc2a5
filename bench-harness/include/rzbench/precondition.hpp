// Byte shuffle and bit shuffle by element size (our own implementation). Trailing bytes that do
// not form a whole element are copied unchanged; both transforms are exact inverses.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace rzbench {

enum class Preconditioner { kNone, kShuffle, kBitshuffle };

const char *preconditioner_name(Preconditioner p);
bool parse_preconditioner(const std::string &s, Preconditioner &out);

// dst and src must not overlap; both n bytes.
void shuffle(const uint8_t *src, uint8_t *dst, size_t n, size_t esize);
void unshuffle(const uint8_t *src, uint8_t *dst, size_t n, size_t esize);
void bitshuffle(const uint8_t *src, uint8_t *dst, size_t n, size_t esize);
void bitunshuffle(const uint8_t *src, uint8_t *dst, size_t n, size_t esize);

void apply_preconditioner(Preconditioner p, const uint8_t *src, uint8_t *dst, size_t n, size_t esize);
void invert_preconditioner(Preconditioner p, const uint8_t *src, uint8_t *dst, size_t n, size_t esize);

} // namespace rzbench
