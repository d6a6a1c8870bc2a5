#include "rzbench/commands.hpp"

#include "rzbench/corpus.hpp"
#include "rzbench/counting.hpp"
#include "rzbench/digest.hpp"
#include "rzbench/fingerprint.hpp"
#include "rzbench/headroom.hpp"
#include "rzbench/layer.hpp"
#include "rzbench/report.hpp"
#include "rzbench/runner.hpp"
#include "rzbench/sizes.hpp"
#include "rzbench/synth.hpp"
#include "rzbench/verify.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace rzbench {

using nlohmann::json;

void write_output(const std::string &path, const std::string &text)
{
   if (path == "-") {
      std::cout << text;
      std::cout.flush();
      return;
   }
   const std::string tmp = path + ".tmp";
   {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out)
         throw std::runtime_error("cannot write " + path);
      out << text;
      if (!out)
         throw std::runtime_error("write error on " + path);
   }
   if (std::rename(tmp.c_str(), path.c_str()) != 0)
      throw std::runtime_error("cannot move " + tmp + " to " + path);
}

namespace {
void print_progress(size_t done, size_t total)
{
   std::cerr << "progress " << done << " " << total << "\n";
}
} // namespace

int run_bench(const Options &opts)
{
   const RunOptions &o = opts.run;
   std::vector<std::string> synthetic = opts.synthetic;
   if (opts.corpora.empty() && synthetic.empty())
      synthetic = synthetic_names();
   if (o.count && !counting_compiled())
      throw UsageError("--count: this rzbench was built without valgrind's headers (install valgrind, rebuild)");
   if (o.count && !running_under_valgrind())
      throw UsageError("--count must run under valgrind --tool=callgrind --instr-atstart=no "
                       "(`basketbench run --instructions` starts it so)");

   std::vector<Dataset> datasets;
   for (const auto &p : opts.corpora)
      datasets.push_back(read_corpus(p)); // CorpusError -> exit 2
   for (const auto &n : synthetic)
      datasets.push_back(make_synthetic(n));
   for (const auto &d : datasets)
      if (dataset_bytes(d) == 0)
         throw UsageError("dataset '" + d.name + "' has no basket data to measure");

   RunDocument doc;
   doc.machine = machine_fingerprint();
   doc.root_commit = opts.root_commit;
   doc.context = opts.context;
   doc.params = o.engine;
   for (const auto &d : datasets)
      doc.datasets.push_back(describe(d));
   std::vector<Repetition> reps;
   doc.results = run_benchmarks(datasets, o, &reps);
   if (!o.count)
      doc.interference = interference_summary(reps, kWallClockLimits);

   if (!opts.json_out.empty())
      write_output(opts.json_out, document_json(doc).dump(2) + "\n");
   if (!opts.csv_out.empty())
      write_output(opts.csv_out, results_csv(doc.results));
   if (!opts.markdown_out.empty())
      write_output(opts.markdown_out, results_markdown(doc.results));
   const bool stdout_taken = opts.json_out == "-" || opts.csv_out == "-" || opts.markdown_out == "-";
   if (!opts.quiet && !stdout_taken)
      std::cout << results_console(doc.results);
   int rc = 0;
   for (const auto &r : doc.results)
      if (r.error) {
         std::cerr << "rzbench: FAILED " << r.dataset << " setting " << r.config.setting << ": " << *r.error << "\n";
         rc = 1;
      }
   return rc;
}

// Two layers measured interleaved in this process: docs/RZBENCH_CLI.md, docs/perf/ab.md.
int run_ab_command(const Options &opts)
{
   if (opts.layer_a.empty() || opts.layer_b.empty())
      throw UsageError("ab needs --a and --b (host or the path of a layer shared object)");
   if (opts.corpora.empty() && opts.synthetic.empty())
      throw UsageError("ab needs --corpus FILE.bbc or --synthetic NAME");
   for (int s : opts.run.settings)
      if (s % 100 == 0)
         throw UsageError("ab: setting " + std::to_string(s) + " stores the data uncompressed: nothing to compare");
   if (!opts.b_codecs.empty() && opts.b_codecs.size() != opts.run.settings.size())
      throw UsageError("ab: --b-codecs names " + std::to_string(opts.b_codecs.size()) + " codecs for " +
                       std::to_string(opts.run.settings.size()) + " settings (one per setting)");
   if (opts.run.count && !counting_compiled())
      throw UsageError("--count: this rzbench was built without valgrind's headers (install valgrind, rebuild)");
   if (opts.run.count && !running_under_valgrind())
      throw UsageError("--count must run under valgrind --tool=callgrind --instr-atstart=no "
                       "(`basketbench arena --count` starts it so)");
   AbParams params = opts.ab;
   params.target_ms = opts.target_ms_given ? opts.run.engine.target_ms : AbParams{}.target_ms;
   params.count = opts.run.count;
   // Layers first: a missing layer is reported before a corpus is read.
   const auto layer_a = Layer::from_spec(opts.layer_a); // LayerError -> exit 2
   const auto layer_b = Layer::from_spec(opts.layer_b);
   std::vector<Dataset> datasets;
   for (const auto &p : opts.corpora)
      datasets.push_back(read_corpus(p)); // CorpusError -> exit 2
   for (const auto &n : opts.synthetic)
      datasets.push_back(make_synthetic(n));
   for (const auto &d : datasets)
      if (dataset_bytes(d) == 0)
         throw UsageError("dataset '" + d.name + "' has no basket data to measure");

   auto side_json = [](const std::string &spec, const Layer &l) {
      return json{{"layer", spec}, {"file", l.file()}, {"codecs", l.codec_info()}};
   };
   json doc = {{"schema", "rzbench-ab-v1"},
               {"mode", params.count ? "count" : "time"},
               {"a", side_json(opts.layer_a, *layer_a)},
               {"b", side_json(opts.layer_b, *layer_b)},
               {"params",
                {{"pairs", params.pairs},
                 {"target_ms", params.target_ms},
                 {"seed", params.seed},
                 {"clock", ab_clock_name(params.clock)},
                 {"confidence", params.confidence},
                 {"limits",
                  {{"min_cpu_wall", params.limits.min_cpu_wall},
                   {"max_involuntary", params.limits.max_involuntary},
                   {"max_steal_ticks", params.limits.max_steal_ticks}}}}},
               {"machine", machine_fingerprint()}};
   json datasets_json = json::array();
   for (const auto &d : datasets) {
      const DatasetInfo info = describe(d);
      datasets_json.push_back({{"name", info.name}, {"source", info.source}, {"checksum", info.checksum},
                               {"bytes", info.bytes}, {"baskets", info.baskets}});
   }
   doc["datasets"] = datasets_json;
   AbProgress progress;
   if (opts.run.progress)
      progress = [](size_t done, size_t total) { print_progress(done, total); };
   const json measured =
      run_ab(datasets, opts.run.settings, {opts.layer_a, layer_a.get()}, {opts.layer_b, layer_b.get()}, params, progress,
             opts.b_codecs);
   doc["results"] = measured["results"];
   doc["interference"] = measured["interference"];
   write_output(opts.json_out, doc.dump(2) + "\n");
   int rc = 0;
   for (const auto &r : doc["results"])
      if (!r["error"].is_null()) {
         std::cerr << "rzbench: FAILED " << r["dataset"].get<std::string>() << " setting " << r["setting"] << ": "
                   << r["error"].get<std::string>() << "\n";
         rc = 1;
      }
   return rc;
}

// ROOT's framed path against the bare codec library, interleaved: docs/perf/headroom.md.
int run_headroom_command(const Options &opts)
{
#if defined(RZBENCH_ROOT_RELEASE)
   if (opts.layer == "host")
      throw UsageError("headroom: this rzbench runs a ROOT release's own codec copies, the bare calls the host's "
                       "libraries (other versions): build it with the rootcompat or a static ROOT backend");
#endif
   // The layer first: a missing layer is reported before a corpus is read. A loaded layer
   // (a per-commit build's layer/libbbzip.so) may call other codec versions than the bare
   // path: the document records both, the Python side compares them.
   const auto layer = Layer::from_spec(opts.layer); // LayerError -> exit 2
   if (opts.corpora.empty() && opts.synthetic.empty())
      throw UsageError("headroom needs --corpus FILE.bbc or --synthetic NAME");
   for (int s : opts.run.settings) {
      const int alg = s / 100, level = s % 100;
      if (level < 1 || (alg != 1 && alg != 2 && alg != 4 && alg != 5))
         throw UsageError("headroom: setting " + std::to_string(s) +
                          " has no bare library call to compare (ZLIB 1xx, LZMA 2xx, LZ4 4xx, ZSTD 5xx, level 1..9)");
   }
   if (opts.run.count && !counting_compiled())
      throw UsageError("--count: this rzbench was built without valgrind's headers (install valgrind, rebuild)");
   if (opts.run.count && !running_under_valgrind())
      throw UsageError("--count must run under valgrind --tool=callgrind --instr-atstart=no "
                       "(`basketbench headroom` starts it so)");
   HeadroomParams params;
   params.ab = opts.ab;
   params.ab.target_ms = opts.target_ms_given ? opts.run.engine.target_ms : AbParams{}.target_ms;
   params.count = opts.run.count;
   std::vector<Dataset> datasets;
   for (const auto &p : opts.corpora)
      datasets.push_back(read_corpus(p)); // CorpusError -> exit 2
   for (const auto &n : opts.synthetic)
      datasets.push_back(make_synthetic(n));
   for (const auto &d : datasets)
      if (dataset_bytes(d) == 0)
         throw UsageError("dataset '" + d.name + "' has no basket data to measure");
   json doc = {{"schema", "rzbench-headroom-v1"},
               {"mode", params.count ? "count" : "time"},
               // the codec code behind the framed path, and the libraries the bare calls reach
               {"framed",
                {{"layer", opts.layer},
                 {"file", layer->file()},
                 {"backend", layer->is_host() ? backend_name() : "layer"},
                 {"codecs", layer->codec_info()}}},
               {"bare", {{"libraries", library_versions()}}},
               {"params",
                {{"pairs", params.ab.pairs},
                 {"target_ms", params.ab.target_ms},
                 {"seed", params.ab.seed},
                 {"clock", ab_clock_name(params.ab.clock)},
                 {"confidence", params.ab.confidence},
                 {"limits",
                  {{"min_cpu_wall", params.ab.limits.min_cpu_wall},
                   {"max_involuntary", params.ab.limits.max_involuntary},
                   {"max_steal_ticks", params.ab.limits.max_steal_ticks}}}}},
               {"machine", machine_fingerprint()}};
   json datasets_json = json::array();
   for (const auto &d : datasets) {
      const DatasetInfo info = describe(d);
      datasets_json.push_back({{"name", info.name}, {"source", info.source}, {"checksum", info.checksum},
                               {"bytes", info.bytes}, {"baskets", info.baskets}});
   }
   doc["datasets"] = datasets_json;
   AbProgress progress;
   if (opts.run.progress)
      progress = [](size_t done, size_t total) { print_progress(done, total); };
   const json measured = run_headroom(datasets, opts.run.settings, layer->api(), params, progress);
   doc["results"] = measured["results"];
   doc["interference"] = measured["interference"];
   const auto cpuid = params.count ? std::nullopt : cpuid_cost_us(); // valgrind emulates it
   doc["machine_costs"] = {{"cpuid_us", cpuid ? json(*cpuid) : json(nullptr)}};
   write_output(opts.json_out, doc.dump(2) + "\n");
   int rc = 0;
   for (const auto &r : doc["results"])
      if (!r["error"].is_null()) {
         std::cerr << "rzbench: FAILED " << r["dataset"].get<std::string>() << " setting " << r["setting"] << ": "
                   << r["error"].get<std::string>() << "\n";
         rc = 1;
      }
   return rc;
}

int run_verify(const Options &o)
{
   const std::string corpus = o.single_corpus();
   if (corpus.empty())
      throw UsageError("verify needs --corpus FILE.bbc");
   const json v = verify_dataset(read_corpus(corpus));
   write_output(o.json_out, v.dump(2) + "\n");
   if (o.json_out != "-")
      std::cout << "verify: " << v["decoded_ok"] << "/" << v["baskets"] << " baskets decoded byte-exactly, "
                << v["failures"].size() << " failures, " << v["unsupported"].size() << " unsupported\n";
   return v["failures"].empty() ? 0 : 1;
}


// Exact compressed bytes of every branch at every setting (no timing): docs/RZBENCH_CLI.md.
int run_sizes(const Options &o)
{
   if (o.corpora.empty() && o.synthetic.empty())
      throw UsageError("sizes needs --corpus FILE.bbc or --synthetic NAME");
   std::vector<SizeConfig> configs;
   for (int s : o.run.settings)
      for (Preconditioner p : o.run.preconditioners)
         configs.push_back({s, p});
   const auto progress = o.run.progress ? print_progress : nullptr;
   json datasets = json::array();
   for (const auto &p : o.corpora)
      datasets.push_back(branch_sizes(read_corpus(p), configs, progress));
   for (const auto &n : o.synthetic)
      datasets.push_back(branch_sizes(make_synthetic(n), configs, progress));
   write_output(o.json_out, json{{"datasets", datasets}}.dump(2) + "\n");
   return 0;
}

int run_digest(const Options &o)
{
   const std::string corpus = o.single_corpus();
   if (corpus.empty())
      throw UsageError("digest needs --corpus FILE.bbc");
   const json v = digest_dataset(read_corpus(corpus), o.run.settings, o.run.preconditioners);
   write_output(o.json_out, v.dump(2) + "\n");
   for (const auto &r : v["results"])
      if (!r["roundtrip_ok"].get<bool>())
         return 1;
   return 0;
}

int run_synth(const Options &o)
{
   if (o.name.empty() || o.output.empty())
      throw UsageError("synth needs NAME and -o FILE.bbc");
   if (!is_synthetic_name(o.name))
      throw UsageError("unknown synthetic dataset '" + o.name + "'");
   write_corpus(make_synthetic(o.name), o.output);
   return 0;
}

} // namespace rzbench
