#include "rzbench/sizes.hpp"

#include "rzbench/codecs.hpp"

#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

namespace rzbench {

using nlohmann::json;

json branch_sizes(const Dataset &d, const std::vector<SizeConfig> &configs, void (*progress)(size_t, size_t))
{
   std::vector<std::unique_ptr<Codec>> codecs;
   for (const auto &c : configs) {
      const CodecRow *row = find_codec_row(c.setting / 100);
      if (row == nullptr || row->make == nullptr)
         throw std::invalid_argument("no codec for setting " + std::to_string(c.setting));
      codecs.push_back(c.setting % 100 == 0 ? make_memcpy_codec() : row->make(c.setting % 100, nullptr, linked_zip_api()));
   }
   // Branches in corpus order (first basket), baskets grouped under them.
   using Key = std::tuple<int, std::string, std::string>;
   std::map<Key, size_t> index;
   std::vector<std::vector<const Basket *>> groups;
   for (const Basket &b : d.baskets) {
      const Key k{b.file, b.tree, b.branch};
      auto it = index.find(k);
      if (it == index.end()) {
         it = index.emplace(k, groups.size()).first;
         groups.emplace_back();
      }
      groups[it->second].push_back(&b);
   }
   json branches = json::array();
   Bytes scratch, out;
   for (size_t g = 0; g < groups.size(); ++g) {
      const Basket &first = *groups[g].front();
      uint64_t raw = 0, entries = 0;
      std::vector<uint64_t> comp(configs.size(), 0), stored(configs.size(), 0);
      for (const Basket *b : groups[g]) {
         raw += b->raw.size();
         entries += b->entries;
         if (b->raw.empty())
            continue;
         scratch.resize(b->raw.size());
         for (size_t i = 0; i < configs.size(); ++i) {
            const uint8_t *src = b->raw.data();
            if (configs[i].preconditioner != Preconditioner::kNone) {
               apply_preconditioner(configs[i].preconditioner, b->raw.data(), scratch.data(), b->raw.size(),
                                    static_cast<size_t>(b->element_size));
               src = scratch.data();
            }
            out.resize(codecs[i]->bound(b->raw.size()));
            const size_t r = configs[i].setting % 100 == 0
                                ? 0
                                : codecs[i]->compress(src, b->raw.size(), out.data(), out.size());
            if (r == 0 || r >= b->raw.size()) {
               comp[i] += b->raw.size();
               ++stored[i];
            } else {
               comp[i] += r;
            }
         }
      }
      json sizes = json::array();
      for (size_t i = 0; i < configs.size(); ++i)
         sizes.push_back({{"setting", configs[i].setting},
                          {"preconditioner", preconditioner_name(configs[i].preconditioner)},
                          {"compressed_bytes", comp[i]},
                          {"stored_baskets", stored[i]}});
      branches.push_back({{"file", d.files.empty() ? std::string() : d.files[static_cast<size_t>(first.file)].path},
                          {"tree", first.tree},
                          {"branch", first.branch},
                          {"type_class", first.type_class.empty() ? json(nullptr) : json(first.type_class)},
                          {"element_size", first.element_size},
                          {"baskets", groups[g].size()},
                          {"entries", entries},
                          {"raw_bytes", raw},
                          {"sizes", sizes}});
      if (progress != nullptr)
         progress(g + 1, groups.size());
   }
   return {{"dataset", d.name}, {"branches", branches}};
}

} // namespace rzbench
