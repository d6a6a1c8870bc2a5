#include "rzbench/verify.hpp"

#include "rzbench/codecs.hpp"
#include "rzbench/framing.hpp"

#include <cstring>

namespace rzbench {

using nlohmann::json;

json verify_dataset(const Dataset &d)
{
   struct FileTotals {
      uint64_t baskets = 0, root_bytes = 0, recompressed = 0;
   };
   std::vector<FileTotals> totals(d.files.size());
   json failures = json::array(), unsupported = json::array();
   uint64_t checked = 0, ok = 0;
   for (const Basket &b : d.baskets) {
      if (!b.root_compressed)
         continue; // stored uncompressed by ROOT: nothing to decode
      ++checked;
      const Bytes &rc = *b.root_compressed;
      const SourceFile &f = d.files[static_cast<size_t>(b.file)];
      const json where = {{"file", f.path}, {"branch", b.branch}, {"basket", b.index}};
      if (!backend_decodes_cs() && is_old_cs_block(rc.data(), rc.size())) {
         json u = where;
         u["error"] = "old ROOT 'CS' algorithm: decoding not supported by this backend";
         unsupported.push_back(u);
         continue;
      }
      Bytes out(b.raw.size());
      std::string err;
      if (!frame_decompress(rc.data(), rc.size(), out.data(), out.size(), &err)) {
         json x = where;
         x["error"] = err;
         failures.push_back(x);
         continue;
      }
      if (!b.raw.empty() && std::memcmp(out.data(), b.raw.data(), b.raw.size()) != 0) {
         json x = where;
         x["error"] = "decoded bytes differ from the raw payload";
         failures.push_back(x);
         continue;
      }
      ++ok;
      // Recompress at the file's own setting; a basket that does not shrink counts at raw size.
      FileTotals &t = totals[static_cast<size_t>(b.file)];
      ++t.baskets;
      t.root_bytes += rc.size();
      if (check_setting(f.fcompress).empty()) {
         Bytes comp(frame_bound(b.raw.size()));
         const size_t n = frame_compress(f.fcompress, b.raw.data(), b.raw.size(), comp.data(), comp.size());
         t.recompressed += n > 0 ? n : b.raw.size();
      }
   }
   json files = json::array();
   for (size_t i = 0; i < d.files.size(); ++i) {
      const FileTotals &t = totals[i];
      const bool can = check_setting(d.files[i].fcompress).empty();
      files.push_back({{"path", d.files[i].path},
                       {"fcompress", d.files[i].fcompress},
                       {"baskets", t.baskets},
                       {"root_compressed_bytes", t.root_bytes},
                       {"recompressed_bytes", can ? json(t.recompressed) : json(nullptr)},
                       {"size_ratio", can && t.root_bytes > 0 ? json(static_cast<double>(t.recompressed) /
                                                                     static_cast<double>(t.root_bytes))
                                                              : json(nullptr)}});
   }
   return {{"baskets", checked}, {"decoded_ok", ok}, {"failures", failures}, {"unsupported", unsupported},
           {"files", files}};
}

} // namespace rzbench
