#include "rzbench/report.hpp"

#include "rzbench/codec_versions.hpp"
#include "rzbench/fingerprint.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

namespace rzbench {

using nlohmann::json;

DatasetInfo describe(const Dataset &d)
{
   uint64_t pages = 0;
   for (const auto &b : d.baskets)
      pages += b.page;
   return {d.name, d.source, dataset_checksum(d), dataset_bytes(d), d.baskets.size(), pages, d.page_size};
}

namespace {

json stats_json(const std::optional<Stats> &s)
{
   if (!s)
      return nullptr;
   return {{"median", s->median}, {"min", s->min},   {"max", s->max},         {"mean", s->mean},
           {"stddev", s->stddev}, {"cv", s->cv},     {"samples", s->samples}};
}

double ratio(const Result &r)
{
   return r.compressed_bytes > 0 ? static_cast<double>(r.uncompressed_bytes) / static_cast<double>(r.compressed_bytes)
                                 : 0.0;
}

std::string utc_now()
{
   const std::time_t t = std::time(nullptr);
   std::tm tm{};
   gmtime_r(&t, &tm);
   char buf[32];
   std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
   return buf;
}

std::string fmt(double v, int prec)
{
   char buf[64];
   std::snprintf(buf, sizeof buf, "%.*f", prec, v);
   return buf;
}

std::string speed_cell(const std::optional<Stats> &s)
{
   if (!s)
      return "-";
   return fmt(s->median, 1) + " ±" + fmt(100.0 * s->cv, 1) + "%";
}

std::string csv_escape(const std::string &s)
{
   if (s.find_first_of(",\"\n") == std::string::npos)
      return s;
   std::string out = "\"";
   for (char c : s) {
      if (c == '"')
         out += '"';
      out += c;
   }
   return out + "\"";
}

std::vector<std::vector<std::string>> table_rows(const std::vector<Result> &results)
{
   std::vector<std::vector<std::string>> rows;
   for (const auto &r : results) {
      const Config &c = r.config;
      rows.push_back({r.dataset, c.memcpy_baseline ? "memcpy" : std::to_string(c.setting), r.codec,
                      preconditioner_name(c.preconditioner), std::to_string(c.dictionary_size),
                      std::to_string(c.basket_size), mode_name(c.mode), std::to_string(c.threads),
                      fmt(ratio(r), 3), speed_cell(r.compress), speed_cell(r.decompress),
                      r.error ? "FAIL: " + *r.error : "ok"});
   }
   return rows;
}

const std::vector<std::string> kHeadings{"dataset", "setting", "codec", "precond", "dict", "basket", "mode",
                                         "thr",     "ratio",   "compress MB/s (median ±cv)",
                                         "decompress MB/s (median ±cv)", "check"};

} // namespace

json result_json(const Result &r)
{
   const Config &c = r.config;
   const bool mem = c.memcpy_baseline;
   return {{"dataset", r.dataset},
           {"codec", r.codec},
           {"setting", mem ? 0 : c.setting},
           {"algorithm", mem ? 0 : c.setting / 100},
           {"level", mem ? 0 : c.setting % 100},
           {"preconditioner", preconditioner_name(c.preconditioner)},
           {"dictionary_size", c.dictionary_size},
           {"dictionary_train_ms", r.dictionary_train_ms ? json(*r.dictionary_train_ms) : json(nullptr)},
           {"basket_size", c.basket_size},
           {"mode", mode_name(c.mode)},
           {"threads", c.threads},
           {"uncompressed_bytes", r.uncompressed_bytes},
           {"compressed_bytes", r.compressed_bytes},
           {"ratio", ratio(r)},
           {"compress_mbps", r.error ? json(nullptr) : stats_json(r.compress)},
           {"decompress_mbps", r.error ? json(nullptr) : stats_json(r.decompress)},
           {"roundtrip_ok", !r.error.has_value()},
           {"error", r.error ? json(*r.error) : json(nullptr)}};
}

json document_json(const RunDocument &doc)
{
   json datasets = json::array();
   for (const auto &d : doc.datasets)
      datasets.push_back(
         {{"name", d.name},
          {"source", d.source},
          {"bytes", d.bytes},
          {"baskets", d.baskets},
          {"checksum", d.checksum},
          {"kind", d.kind()},
          {"pages", d.pages},
          {"page_size", d.page_size ? json(*d.page_size) : json(nullptr)}});
   json results = json::array();
   for (const auto &r : doc.results)
      results.push_back(result_json(r));
   json out = {{"schema_version", "1"},
               {"tool", {{"name", "rzbench"}, {"version", "0.1.0"}}},
               {"created_at", utc_now()},
               {"backend", backend_name()},
               {"root_commit", doc.root_commit ? json(*doc.root_commit) : json(nullptr)},
               {"machine", doc.machine},
               {"parameters",
                {{"min_samples", doc.params.min_samples}, {"target_pass_ms", doc.params.target_ms}, {"interleaved", true}}},
               {"codecs", codec_info()},
               {"datasets", datasets},
               {"results", results}};
   if (doc.context)
      out["context"] = *doc.context;
   if (doc.interference)
      out["interference"] = *doc.interference;
   return out;
}

std::string results_csv(const std::vector<Result> &results)
{
   std::ostringstream o;
   o << "dataset,codec,setting,algorithm,level,preconditioner,dictionary_size,dictionary_train_ms,basket_size,mode,"
        "threads,uncompressed_bytes,compressed_bytes,ratio,compress_mbps_median,compress_mbps_min,compress_mbps_mean,"
        "compress_mbps_stddev,compress_mbps_cv,decompress_mbps_median,decompress_mbps_min,decompress_mbps_mean,"
        "decompress_mbps_stddev,decompress_mbps_cv,samples,roundtrip_ok,error\n";
   for (const auto &r : results) {
      const json j = result_json(r);
      auto num = [](const json &v) { return v.is_null() ? std::string() : v.dump(); };
      auto stat = [&](const char *which, const char *k) {
         return j[which].is_null() ? std::string() : num(j[which][k]);
      };
      o << csv_escape(r.dataset) << ',' << r.codec << ',' << num(j["setting"]) << ',' << num(j["algorithm"]) << ','
        << num(j["level"]) << ',' << preconditioner_name(r.config.preconditioner) << ',' << r.config.dictionary_size
        << ',' << num(j["dictionary_train_ms"]) << ',' << r.config.basket_size << ',' << mode_name(r.config.mode)
        << ',' << r.config.threads << ',' << r.uncompressed_bytes << ',' << r.compressed_bytes << ','
        << num(j["ratio"]);
      for (const char *w : {"compress_mbps", "decompress_mbps"})
         for (const char *k : {"median", "min", "mean", "stddev", "cv"})
            o << ',' << stat(w, k);
      o << ',' << (r.compress ? r.compress->samples.size() : 0) << ',' << (r.error ? "false" : "true") << ','
        << csv_escape(r.error.value_or("")) << '\n';
   }
   return o.str();
}

std::string results_markdown(const std::vector<Result> &results)
{
   std::ostringstream o;
   o << '|';
   for (const auto &h : kHeadings)
      o << ' ' << h << " |";
   o << "\n|";
   for (size_t i = 0; i < kHeadings.size(); ++i)
      o << (i >= 8 && i <= 10 ? "---:|" : "---|");
   o << '\n';
   for (const auto &row : table_rows(results)) {
      o << '|';
      for (const auto &cell : row) {
         std::string c = cell;
         for (auto &ch : c)
            if (ch == '|')
               ch = '/';
         o << ' ' << c << " |";
      }
      o << '\n';
   }
   return o.str();
}

std::string results_console(const std::vector<Result> &results)
{
   const auto rows = table_rows(results);
   std::vector<size_t> width(kHeadings.size());
   for (size_t i = 0; i < kHeadings.size(); ++i)
      width[i] = kHeadings[i].size();
   for (const auto &row : rows)
      for (size_t i = 0; i < row.size(); ++i)
         width[i] = std::max(width[i], row[i].size());
   std::ostringstream o;
   auto line = [&](const std::vector<std::string> &cells) {
      for (size_t i = 0; i < cells.size(); ++i) {
         const size_t pad = width[i] - cells[i].size();
         const bool right = i >= 8 && i <= 10;
         if (right)
            o << std::string(pad, ' ');
         o << cells[i];
         if (!right && i + 1 < cells.size())
            o << std::string(pad, ' ');
         if (i + 1 < cells.size())
            o << "  ";
      }
      o << '\n';
   };
   line(kHeadings);
   for (const auto &row : rows)
      line(row);
   return o.str();
}

} // namespace rzbench
