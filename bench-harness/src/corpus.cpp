// Corpus files: 8-byte magic, u32 version, u64 header length, JSON header, payload of blobs.
// Every field is checked before use, so a malformed file is a CorpusError, never a crash.
#include "rzbench/corpus.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

namespace rzbench {

using nlohmann::json;

namespace {

constexpr char kMagic[8] = {'B', 'B', 'C', 'O', 'R', 'P', 'U', 'S'};
constexpr uint32_t kVersion = 1;
constexpr size_t kPrefix = 20;

uint64_t le(const uint8_t *p, int n)
{
   uint64_t v = 0;
   for (int i = n - 1; i >= 0; --i)
      v = (v << 8) | p[i];
   return v;
}

void put_le(Bytes &out, uint64_t v, int n)
{
   for (int i = 0; i < n; ++i)
      out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

struct Ctx {
   const std::string &path;
   [[noreturn]] void fail(const std::string &what) const { throw CorpusError(path + ": " + what); }
};

const json &field(const Ctx &c, const json &obj, const char *key, const std::string &where)
{
   auto it = obj.find(key);
   if (it == obj.end())
      c.fail(where + ": missing field '" + key + "'");
   return *it;
}

uint64_t get_uint(const Ctx &c, const json &obj, const char *key, const std::string &where)
{
   const json &v = field(c, obj, key, where);
   if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
      c.fail(where + ": field '" + key + "' must be a non-negative integer");
   return v.get<uint64_t>();
}

std::string get_string(const Ctx &c, const json &obj, const char *key, const std::string &where)
{
   const json &v = field(c, obj, key, where);
   if (!v.is_string())
      c.fail(where + ": field '" + key + "' must be a string");
   return v.get<std::string>();
}

// [offset, length] inside the payload; returns the blob.
Bytes get_blob(const Ctx &c, const json &v, const uint8_t *payload, uint64_t payload_len, const std::string &where)
{
   if (!v.is_array() || v.size() != 2 || !v[0].is_number_unsigned() || !v[1].is_number_unsigned())
      c.fail(where + " must be [offset, length] of non-negative integers");
   const uint64_t off = v[0].get<uint64_t>();
   const uint64_t len = v[1].get<uint64_t>();
   if (off > payload_len || len > payload_len - off)
      c.fail(where + " lies outside the payload");
   return Bytes(payload + off, payload + off + len);
}

Basket parse_basket(const Ctx &c, const json &j, size_t i, size_t nfiles, const uint8_t *payload, uint64_t plen)
{
   const std::string where = "basket " + std::to_string(i);
   if (!j.is_object())
      c.fail(where + " is not an object");
   Basket b;
   const uint64_t file = get_uint(c, j, "file", where);
   if (file >= nfiles)
      c.fail(where + ": file index out of range");
   b.file = static_cast<int>(file);
   b.tree = get_string(c, j, "tree", where);
   b.branch = get_string(c, j, "branch", where);
   b.index = static_cast<int>(get_uint(c, j, "basket", where));
   const uint64_t es = get_uint(c, j, "element_size", where);
   if (es < 1 || es > 64)
      c.fail(where + ": element_size must be 1..64");
   b.element_size = static_cast<int>(es);
   b.entries = get_uint(c, j, "entries", where);
   b.data_bytes = get_uint(c, j, "data_bytes", where);
   b.raw = get_blob(c, field(c, j, "raw", where), payload, plen, where + ".raw");
   if (b.data_bytes > b.raw.size())
      c.fail(where + ": data_bytes exceeds the raw payload");
   const json &eo = field(c, j, "entry_offsets", where);
   if (!eo.is_null()) {
      if (!eo.is_array())
         c.fail(where + ": entry_offsets must be an array or null");
      if (eo.size() != b.entries)
         c.fail(where + ": entry_offsets has " + std::to_string(eo.size()) + " items for " +
                std::to_string(b.entries) + " entries");
      std::vector<uint64_t> offs;
      offs.reserve(eo.size());
      for (const auto &o : eo) {
         if (!o.is_number_unsigned())
            c.fail(where + ": entry_offsets must hold non-negative integers");
         const uint64_t v = o.get<uint64_t>();
         if (v > b.data_bytes || (!offs.empty() && v < offs.back()))
            c.fail(where + ": entry_offsets must be non-decreasing and within data_bytes");
         offs.push_back(v);
      }
      b.entry_offsets = std::move(offs);
   }
   auto x = j.find("raw_xxh64");
   if (x != j.end() && !x->is_null()) {
      if (!x->is_string() || x->get<std::string>() != xxh64_hex(b.raw.data(), b.raw.size()))
         c.fail(where + ": raw_xxh64 does not match the raw payload");
   }
   auto tc = j.find("type_class");
   if (tc != j.end() && !tc->is_null()) {
      if (!tc->is_string())
         c.fail(where + ": field 'type_class' must be a string");
      b.type_class = tc->get<std::string>();
   }
   auto rc = j.find("root_compressed");
   if (rc != j.end() && !rc->is_null())
      b.root_compressed = get_blob(c, *rc, payload, plen, where + ".root_compressed");
   auto fc = j.find("fcompress");
   if (fc != j.end() && !fc->is_null()) {
      if (!fc->is_number_unsigned() || fc->get<uint64_t>() > 9999)
         c.fail(where + ": fcompress must be a non-negative integer below 10000 or null");
      b.fcompress = static_cast<int>(fc->get<uint64_t>());
   }
   // Optional (docs/CORPUS_FORMAT.md): RNTuple pages carry "kind": "page" and column metadata,
   // which the measurement does not need (element_size already says the column's width).
   auto kind = j.find("kind");
   if (kind != j.end() && !kind->is_null()) {
      if (!kind->is_string() || (*kind != "basket" && *kind != "page"))
         c.fail(where + ": kind must be \"basket\" or \"page\"");
      b.page = *kind == "page";
   }
   return b;
}

} // namespace

Dataset parse_corpus(const Bytes &file, const std::string &path)
{
   const Ctx c{path};
   if (file.size() < kPrefix)
      c.fail("too short for a corpus file (" + std::to_string(file.size()) + " bytes)");
   if (std::memcmp(file.data(), kMagic, sizeof kMagic) != 0)
      c.fail("bad magic, not a basketbench corpus file");
   const uint64_t version = le(file.data() + 8, 4);
   if (version != kVersion)
      c.fail("unsupported format_version " + std::to_string(version) + " (expected 1)");
   const uint64_t hlen = le(file.data() + 12, 8);
   if (hlen > file.size() - kPrefix)
      c.fail("header_len " + std::to_string(hlen) + " runs past the end of the file");
   json h;
   try {
      h = json::parse(file.begin() + kPrefix, file.begin() + static_cast<std::ptrdiff_t>(kPrefix + hlen));
   } catch (const json::exception &e) {
      c.fail(std::string("header is not valid JSON: ") + e.what());
   }
   if (!h.is_object())
      c.fail("header is not a JSON object");
   const std::string top = "header";
   if (get_string(c, h, "format", top) != "basketbench-corpus")
      c.fail("header.format must be 'basketbench-corpus'");
   if (get_uint(c, h, "format_version", top) != kVersion)
      c.fail("header.format_version must be 1");
   const uint64_t plen = file.size() - kPrefix - hlen;
   if (get_uint(c, h, "payload_len", top) != plen)
      c.fail("payload_len does not match the file size");
   Dataset d;
   d.name = get_string(c, h, "name", top);
   if (d.name.empty())
      c.fail("header.name is empty");
   if (auto ps = h.find("page_size"); ps != h.end() && !ps->is_null())
      d.page_size = get_uint(c, h, "page_size", top);
   d.source = path;
   const json &files = field(c, h, "files", top);
   const json &baskets = field(c, h, "baskets", top);
   if (!files.is_array() || !baskets.is_array())
      c.fail("header.files and header.baskets must be arrays");
   for (size_t i = 0; i < files.size(); ++i) {
      const std::string where = "files[" + std::to_string(i) + "]";
      if (!files[i].is_object())
         c.fail(where + " is not an object");
      SourceFile f;
      f.path = get_string(c, files[i], "path", where);
      f.fcompress = static_cast<int>(get_uint(c, files[i], "fcompress", where));
      auto sha = files[i].find("sha256");
      if (sha != files[i].end() && sha->is_string())
         f.sha256 = sha->get<std::string>();
      d.files.push_back(std::move(f));
   }
   const uint8_t *payload = file.data() + kPrefix + hlen;
   for (size_t i = 0; i < baskets.size(); ++i)
      d.baskets.push_back(parse_basket(c, baskets[i], i, d.files.size(), payload, plen));
   return d;
}

Dataset read_corpus(const std::string &path)
{
   std::ifstream in(path, std::ios::binary);
   if (!in)
      throw CorpusError(path + ": cannot open");
   Bytes data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
   if (in.bad())
      throw CorpusError(path + ": read error");
   return parse_corpus(data, path);
}

Bytes serialize_corpus(const Dataset &d)
{
   json files = json::array();
   for (const auto &f : d.files)
      files.push_back({{"path", f.path}, {"fcompress", f.fcompress}, {"sha256", f.sha256}});
   json baskets = json::array();
   uint64_t off = 0;
   for (const auto &b : d.baskets) {
      json j = {{"file", b.file},
                {"tree", b.tree},
                {"branch", b.branch},
                {"basket", b.index},
                {"element_size", b.element_size},
                {"entries", b.entries},
                {"data_bytes", b.data_bytes},
                {"entry_offsets", b.entry_offsets ? json(*b.entry_offsets) : json(nullptr)},
                {"raw", {off, b.raw.size()}},
                {"raw_xxh64", xxh64_hex(b.raw.data(), b.raw.size())}};
      off += b.raw.size();
      if (!b.type_class.empty())
         j["type_class"] = b.type_class;
      if (b.root_compressed) {
         j["root_compressed"] = {off, b.root_compressed->size()};
         j["root_compressed_bytes"] = b.root_compressed->size();
         off += b.root_compressed->size();
      } else {
         j["root_compressed"] = nullptr;
         j["root_compressed_bytes"] = 0;
      }
      if (b.fcompress)
         j["fcompress"] = *b.fcompress;
      baskets.push_back(std::move(j));
   }
   const json header = {{"format", "basketbench-corpus"}, {"format_version", kVersion}, {"name", d.name},
                        {"created_by", "rzbench 0.1.0"},  {"payload_len", off},          {"files", files},
                        {"baskets", baskets}};
   const std::string text = header.dump();
   Bytes out(kMagic, kMagic + sizeof kMagic);
   put_le(out, kVersion, 4);
   put_le(out, text.size(), 8);
   out.insert(out.end(), text.begin(), text.end());
   for (const auto &b : d.baskets) {
      out.insert(out.end(), b.raw.begin(), b.raw.end());
      if (b.root_compressed)
         out.insert(out.end(), b.root_compressed->begin(), b.root_compressed->end());
   }
   return out;
}

void write_corpus(const Dataset &d, const std::string &path)
{
   const Bytes data = serialize_corpus(d);
   const std::string tmp = path + ".tmp";
   {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out)
         throw CorpusError(path + ": cannot create");
      out.write(reinterpret_cast<const char *>(data.data()), static_cast<std::streamsize>(data.size()));
      if (!out)
         throw CorpusError(path + ": write error");
   }
   if (std::rename(tmp.c_str(), path.c_str()) != 0)
      throw CorpusError(path + ": cannot rename the temporary file into place");
}

} // namespace rzbench
