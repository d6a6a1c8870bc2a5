// Shuffle: byte k of every element goes to plane k. BitShuffle: shuffle, then within each byte
// plane an 8x8 bit transpose per group of 8 elements, so each of the esize*8 bit planes is
// contiguous. Elements beyond the last group of 8 (bitshuffle) and trailing bytes are copied.
#include "rzbench/precondition.hpp"

#include <cstring>
#include <vector>

namespace rzbench {

namespace {
// memcpy with n == 0 may get null pointers from empty vectors, which memcpy does not allow.
void copy_bytes(uint8_t *dst, const uint8_t *src, size_t n)
{
   if (n > 0)
      std::memcpy(dst, src, n);
}
} // namespace

const char *preconditioner_name(Preconditioner p)
{
   switch (p) {
   case Preconditioner::kShuffle: return "shuffle";
   case Preconditioner::kBitshuffle: return "bitshuffle";
   default: return "none";
   }
}

bool parse_preconditioner(const std::string &s, Preconditioner &out)
{
   if (s == "none")
      out = Preconditioner::kNone;
   else if (s == "shuffle")
      out = Preconditioner::kShuffle;
   else if (s == "bitshuffle")
      out = Preconditioner::kBitshuffle;
   else
      return false;
   return true;
}

namespace {

// Byte transpose of a rows x cols matrix: dst[c][r] = src[r][c]. Shuffle is the transpose of
// (elements x element size), unshuffle the transpose back; a trailing partial element is copied.
void transpose_bytes(const uint8_t *src, uint8_t *dst, size_t n, size_t rows, size_t cols)
{
   for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c)
         dst[c * rows + r] = src[r * cols + c];
   copy_bytes(dst + rows * cols, src + rows * cols, n - rows * cols);
}

} // namespace

void shuffle(const uint8_t *src, uint8_t *dst, size_t n, size_t esize)
{
   const size_t nelem = esize > 0 ? n / esize : 0;
   if (esize <= 1 || nelem == 0)
      copy_bytes(dst, src, n);
   else
      transpose_bytes(src, dst, n, nelem, esize);
}

void unshuffle(const uint8_t *src, uint8_t *dst, size_t n, size_t esize)
{
   const size_t nelem = esize > 0 ? n / esize : 0;
   if (esize <= 1 || nelem == 0)
      copy_bytes(dst, src, n);
   else
      transpose_bytes(src, dst, n, esize, nelem);
}

namespace {

// Transpose an 8x8 bit matrix held in 8 bytes (row i = byte i, column j = bit j); an involution.
uint64_t transpose8x8(uint64_t x)
{
   uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL;
   x = x ^ t ^ (t << 7);
   t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL;
   x = x ^ t ^ (t << 14);
   t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL;
   return x ^ t ^ (t << 28);
}

uint64_t load8(const uint8_t *p, size_t stride)
{
   uint64_t x = 0;
   for (size_t i = 0; i < 8; ++i)
      x |= static_cast<uint64_t>(p[i * stride]) << (8 * i);
   return x;
}

void store8(uint8_t *p, size_t stride, uint64_t x)
{
   for (size_t i = 0; i < 8; ++i)
      p[i * stride] = static_cast<uint8_t>(x >> (8 * i));
}

} // namespace

void bitshuffle(const uint8_t *src, uint8_t *dst, size_t n, size_t esize)
{
   if (esize == 0)
      esize = 1;
   const size_t nelem = (n / esize) & ~static_cast<size_t>(7);
   const size_t groups = nelem / 8;
   // Byte planes: plane k holds byte k of each element; each group of 8 becomes 8 bit-plane bytes.
   for (size_t k = 0; k < esize; ++k) {
      uint8_t *plane = dst + k * nelem;
      for (size_t g = 0; g < groups; ++g) {
         const uint64_t x = transpose8x8(load8(src + g * 8 * esize + k, esize));
         store8(plane + g, groups, x);
      }
   }
   copy_bytes(dst + nelem * esize, src + nelem * esize, n - nelem * esize);
}

void bitunshuffle(const uint8_t *src, uint8_t *dst, size_t n, size_t esize)
{
   if (esize == 0)
      esize = 1;
   const size_t nelem = (n / esize) & ~static_cast<size_t>(7);
   const size_t groups = nelem / 8;
   for (size_t k = 0; k < esize; ++k) {
      const uint8_t *plane = src + k * nelem;
      for (size_t g = 0; g < groups; ++g) {
         const uint64_t x = transpose8x8(load8(plane + g, groups));
         store8(dst + g * 8 * esize + k, esize, x);
      }
   }
   copy_bytes(dst + nelem * esize, src + nelem * esize, n - nelem * esize);
}

void apply_preconditioner(Preconditioner p, const uint8_t *src, uint8_t *dst, size_t n, size_t esize)
{
   switch (p) {
   case Preconditioner::kShuffle: shuffle(src, dst, n, esize); break;
   case Preconditioner::kBitshuffle: bitshuffle(src, dst, n, esize); break;
   default: copy_bytes(dst, src, n); break;
   }
}

void invert_preconditioner(Preconditioner p, const uint8_t *src, uint8_t *dst, size_t n, size_t esize)
{
   switch (p) {
   case Preconditioner::kShuffle: unshuffle(src, dst, n, esize); break;
   case Preconditioner::kBitshuffle: bitunshuffle(src, dst, n, esize); break;
   default: copy_bytes(dst, src, n); break;
   }
}

} // namespace rzbench
