#include "rzbench/digest.hpp"

#include "rzbench/codecs.hpp"
#include "rzbench/framing.hpp"

#include <cstring>
#include <xxhash.h>

namespace rzbench {

using nlohmann::json;

namespace {

struct Hasher {
   XXH64_state_t *s = XXH64_createState();
   Hasher() { XXH64_reset(s, 0); }
   ~Hasher() { XXH64_freeState(s); }
   Hasher(const Hasher &) = delete;
   Hasher &operator=(const Hasher &) = delete;
   void add(const uint8_t *p, size_t n) { XXH64_update(s, p, n); }
   std::string hex() const
   {
      char buf[17];
      std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(XXH64_digest(s)));
      return buf;
   }
};

json digest_one(const Dataset &d, int setting, Preconditioner pre)
{
   Hasher h;
   uint64_t total = 0, stored = 0;
   std::string error;
   Bytes conditioned, comp, back, restored;
   for (const Basket &b : d.baskets) {
      const size_t n = b.raw.size();
      const size_t esize = static_cast<size_t>(b.element_size > 0 ? b.element_size : 1);
      conditioned.resize(n);
      apply_preconditioner(pre, b.raw.data(), conditioned.data(), n, esize);
      comp.resize(frame_bound(n));
      const size_t c = frame_compress(setting, conditioned.data(), n, comp.data(), comp.size());
      if (c == 0) { // not compressible: ROOT stores the buffer; hash the size so it still counts
         ++stored;
         total += n;
         const uint64_t marker = n;
         h.add(reinterpret_cast<const uint8_t *>(&marker), sizeof marker);
         continue;
      }
      total += c;
      h.add(comp.data(), c);
      back.resize(n);
      std::string err;
      if (!frame_decompress(comp.data(), c, back.data(), n, &err)) {
         error = b.branch + " basket " + std::to_string(b.index) + ": " + err;
         break;
      }
      restored.resize(n);
      invert_preconditioner(pre, back.data(), restored.data(), n, esize);
      if (n && std::memcmp(restored.data(), b.raw.data(), n) != 0) {
         error = b.branch + " basket " + std::to_string(b.index) + ": round trip differs";
         break;
      }
   }
   return {{"setting", setting},
           {"preconditioner", preconditioner_name(pre)},
           {"compressed_bytes", total},
           {"stored_buffers", stored},
           {"xxh64", h.hex()},
           {"roundtrip_ok", error.empty()},
           {"error", error.empty() ? json(nullptr) : json(error)}};
}

} // namespace

json digest_dataset(const Dataset &d, const std::vector<int> &settings,
                    const std::vector<Preconditioner> &preconditioners)
{
   uint64_t raw = 0;
   for (const Basket &b : d.baskets)
      raw += b.raw.size();
   json results = json::array();
   for (int s : settings)
      for (Preconditioner p : preconditioners)
         results.push_back(digest_one(d, s, p));
   return {{"dataset", d.name}, {"buffers", d.baskets.size()}, {"raw_bytes", raw}, {"results", results}};
}

} // namespace rzbench
