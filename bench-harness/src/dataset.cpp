#include "rzbench/dataset.hpp"

#include <cstdio>
#include <xxhash.h>

namespace rzbench {

std::vector<EntrySpan> entry_spans(const Basket &b)
{
   std::vector<EntrySpan> spans;
   const size_t data = static_cast<size_t>(b.data_bytes);
   if (b.entry_offsets) {
      const auto &off = *b.entry_offsets;
      for (size_t i = 0; i < off.size(); ++i) {
         const size_t start = static_cast<size_t>(off[i]);
         const size_t end = i + 1 < off.size() ? static_cast<size_t>(off[i + 1]) : data;
         spans.push_back({start, end - start});
      }
      return spans;
   }
   if (b.entries > 0 && data % b.entries == 0 && data > 0) {
      const size_t rec = data / static_cast<size_t>(b.entries);
      for (size_t i = 0; i < b.entries; ++i)
         spans.push_back({i * rec, rec});
      return spans;
   }
   if (data > 0)
      spans.push_back({0, data});
   return spans;
}

uint64_t dataset_bytes(const Dataset &d)
{
   uint64_t n = 0;
   for (const auto &b : d.baskets)
      n += b.raw.size();
   return n;
}

static std::string hex16(uint64_t h)
{
   char buf[17];
   std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
   return buf;
}

std::string xxh64_hex(const uint8_t *p, size_t n)
{
   return hex16(XXH64(p, n, 0));
}

std::string dataset_checksum(const Dataset &d)
{
   XXH64_state_t *st = XXH64_createState();
   XXH64_reset(st, 0);
   for (const auto &b : d.baskets)
      XXH64_update(st, b.raw.data(), b.raw.size());
   const uint64_t h = XXH64_digest(st);
   XXH64_freeState(st);
   return "xxh64:" + hex16(h);
}

static void put_be32(Bytes &out, uint32_t v)
{
   out.push_back(static_cast<uint8_t>(v >> 24));
   out.push_back(static_cast<uint8_t>(v >> 16));
   out.push_back(static_cast<uint8_t>(v >> 8));
   out.push_back(static_cast<uint8_t>(v));
}

void append_offset_array(Bytes &raw, const std::vector<uint64_t> &starts)
{
   put_be32(raw, static_cast<uint32_t>(starts.size() + 1));
   for (uint64_t s : starts)
      put_be32(raw, static_cast<uint32_t>(s) + kOffsetBias);
   put_be32(raw, 0);
}

} // namespace rzbench
