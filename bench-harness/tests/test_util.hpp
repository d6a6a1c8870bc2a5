// Shared helpers for the unit tests: deterministic test buffers.
#pragma once
#include "rzbench/dataset.hpp"
#include "rzbench/prng.hpp"

#include <cstdint>
#include <vector>

namespace rzbench::testing {

// Mostly compressible bytes: runs of small values with some noise.
inline Bytes compressible(size_t n, uint64_t seed = 1)
{
   Xoshiro256 r(seed);
   Bytes b(n);
   for (size_t i = 0; i < n; ++i)
      b[i] = static_cast<uint8_t>((i / 7) % 13 + (r.below(8) == 0 ? r.below(256) : 0));
   return b;
}

inline Bytes random_bytes(size_t n, uint64_t seed = 2)
{
   Xoshiro256 r(seed);
   Bytes b(n);
   for (auto &x : b)
      x = static_cast<uint8_t>(r.next());
   return b;
}

// Every algorithm the rootcompat backend can write, at every level.
inline std::vector<int> all_writable_settings()
{
   std::vector<int> s;
   for (int alg : {0, 1, 2, 4, 5})
      for (int level = 0; level <= 9; ++level)
         s.push_back(alg * 100 + level);
   return s;
}

} // namespace rzbench::testing
