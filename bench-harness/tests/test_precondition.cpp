#include "rzbench/precondition.hpp"
#include "test_util.hpp"

#include <gtest/gtest.h>

using namespace rzbench;
using namespace rzbench::testing;

TEST(Precondition, ShuffleGroupsBytesOfEachElement)
{
   const Bytes in = {0x11, 0x12, 0x21, 0x22, 0x31, 0x32, 0x99};
   Bytes out(in.size());
   shuffle(in.data(), out.data(), in.size(), 2);
   EXPECT_EQ(out, (Bytes{0x11, 0x21, 0x31, 0x12, 0x22, 0x32, 0x99}));
}

TEST(Precondition, BitshuffleMakesBitPlanes)
{
   // 8 one-byte elements, element i = 1 << i: bit plane j holds bit j of every element.
   Bytes in(8);
   for (int i = 0; i < 8; ++i)
      in[static_cast<size_t>(i)] = static_cast<uint8_t>(1u << i);
   Bytes out(8);
   bitshuffle(in.data(), out.data(), 8, 1);
   for (int j = 0; j < 8; ++j)
      EXPECT_EQ(out[static_cast<size_t>(j)], 1u << j);
   // All-ones first element: bit 0 of every plane.
   Bytes ones = {0xff, 0, 0, 0, 0, 0, 0, 0};
   bitshuffle(ones.data(), out.data(), 8, 1);
   EXPECT_EQ(out, Bytes(8, 0x01));
}

TEST(Precondition, InversesForAllSizesAndElementSizes)
{
   for (size_t esize : {1, 2, 3, 4, 8}) {
      for (size_t n : {0, 1, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 4099, 32000}) {
         const Bytes in = random_bytes(n, n * 31 + esize);
         Bytes mid(n), back(n);
         for (Preconditioner p : {Preconditioner::kNone, Preconditioner::kShuffle, Preconditioner::kBitshuffle}) {
            apply_preconditioner(p, in.data(), mid.data(), n, esize);
            invert_preconditioner(p, mid.data(), back.data(), n, esize);
            EXPECT_EQ(back, in) << preconditioner_name(p) << " esize " << esize << " n " << n;
         }
      }
   }
}

TEST(Precondition, ShuffleHelpsSmoothFloats)
{
   // Sanity: shuffled slowly-varying big-endian int32 have long runs of equal bytes.
   Bytes in;
   for (uint32_t v = 1000; v < 3000; ++v)
      for (int k = 3; k >= 0; --k)
         in.push_back(static_cast<uint8_t>(v >> (8 * k)));
   Bytes out(in.size());
   shuffle(in.data(), out.data(), in.size(), 4);
   size_t equal_neighbours = 0;
   for (size_t i = 1; i < out.size(); ++i)
      equal_neighbours += out[i] == out[i - 1];
   EXPECT_GT(equal_neighbours, out.size() / 2);
}

TEST(Precondition, Names)
{
   Preconditioner p;
   EXPECT_TRUE(parse_preconditioner("bitshuffle", p));
   EXPECT_EQ(p, Preconditioner::kBitshuffle);
   EXPECT_FALSE(parse_preconditioner("blosc", p));
}
