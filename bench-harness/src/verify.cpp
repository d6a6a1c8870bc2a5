#include "rzbench/verify.hpp"

#include "rzbench/codecs.hpp"
#include "rzbench/framing.hpp"

#include <cstring>

namespace rzbench {

using nlohmann::json;

namespace {

// The setting ROOT wrote a basket with. Files from before the algorithm*100+level convention
// (fCompress < 100, e.g. ROOT 6.14 wrote 4 for its default LZ4 at level 4) name only the level;
// the algorithm is the one in the block header, as ROOT's reader sees it.
int effective_setting(int fcompress, const Bytes &compressed)
{
   if (fcompress >= 100 || fcompress % 100 == 0 || compressed.size() < 2)
      return fcompress;
   const char a = static_cast<char>(compressed[0]), b = static_cast<char>(compressed[1]);
   int algorithm = 0;
   if (a == 'Z' && b == 'L')
      algorithm = 1;
   else if (a == 'X' && b == 'Z')
      algorithm = 2;
   else if (a == 'C' && b == 'S')
      algorithm = 3;
   else if (a == 'L' && b == '4')
      algorithm = 4;
   else if (a == 'Z' && b == 'S')
      algorithm = 5;
   return algorithm == 0 ? fcompress : algorithm * 100 + fcompress % 100;
}

} // namespace

json verify_dataset(const Dataset &d)
{
   struct FileTotals {
      uint64_t baskets = 0, root_bytes = 0, recompressed = 0;
      int setting = -1; // the setting recompressed at (from the block headers when fCompress < 100)
      bool can = true;
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
      // Recompress at the basket's own setting (an RNTuple page's column setting, a branch's
      // fCompress), else the file's; a basket that does not shrink counts at raw size.
      FileTotals &t = totals[static_cast<size_t>(b.file)];
      ++t.baskets;
      t.root_bytes += rc.size();
      const int setting = effective_setting(b.fcompress >= 0 ? b.fcompress : f.fcompress, rc);
      if (t.setting < 0)
         t.setting = setting;
      if (check_setting(setting).empty()) {
         Bytes comp(frame_bound(b.raw.size()));
         const size_t n = frame_compress(setting, b.raw.data(), b.raw.size(), comp.data(), comp.size());
         t.recompressed += n > 0 ? n : b.raw.size();
      } else {
         t.can = false;
      }
   }
   json files = json::array();
   for (size_t i = 0; i < d.files.size(); ++i) {
      const FileTotals &t = totals[i];
      const int setting = t.setting >= 0 ? t.setting : d.files[i].fcompress;
      const bool can = t.can && check_setting(setting).empty();
      files.push_back({{"path", d.files[i].path},
                       {"fcompress", d.files[i].fcompress},
                       {"recompressed_setting", setting},
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
