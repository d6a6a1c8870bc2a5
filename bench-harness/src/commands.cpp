#include "rzbench/commands.hpp"

#include "rzbench/corpus.hpp"
#include "rzbench/counting.hpp"
#include "rzbench/digest.hpp"
#include "rzbench/fingerprint.hpp"
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
   doc.results = run_benchmarks(datasets, o);

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

namespace {
void print_branch_progress(size_t done, size_t total)
{
   std::cerr << "progress " << done << " " << total << "\n";
}
} // namespace

// Exact compressed bytes of every branch at every setting (no timing): docs/RZBENCH_CLI.md.
int run_sizes(const Options &o)
{
   if (o.corpora.empty() && o.synthetic.empty())
      throw UsageError("sizes needs --corpus FILE.bbc or --synthetic NAME");
   std::vector<SizeConfig> configs;
   for (int s : o.run.settings)
      for (Preconditioner p : o.run.preconditioners)
         configs.push_back({s, p});
   const auto progress = o.run.progress ? print_branch_progress : nullptr;
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
