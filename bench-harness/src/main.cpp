// rzbench command line (contract: docs/RZBENCH_CLI.md, mirrored in ../README.md).
// Exit codes: 0 ok, 1 a result failed, 2 usage error or bad input.
#include "rzbench/codecs.hpp"
#include "rzbench/corpus.hpp"
#include "rzbench/codec_versions.hpp"
#include "rzbench/digest.hpp"
#include "rzbench/counting.hpp"
#include "rzbench/fingerprint.hpp"
#include "rzbench/report.hpp"
#include "rzbench/runner.hpp"
#include "rzbench/sizes.hpp"
#include "rzbench/synth.hpp"
#include "rzbench/verify.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace rzbench;
using nlohmann::json;

namespace {

struct UsageError : std::runtime_error {
   using std::runtime_error::runtime_error;
};

const char *kUsage =
   "usage:\n"
   "  rzbench bench [--corpus FILE.bbc]... [--synthetic NAME[,NAME...]|all]\n"
   "                [--settings 101,404,505] [--preconditioners none,shuffle,bitshuffle]\n"
   "                [--dictionary-sizes 0,16384] [--basket-sizes 0,4096] [--modes basket,rac-sequential,rac-random]\n"
   "                [--threads 1,2] [--min-samples 9] [--target-ms 100] [--memcpy|--no-memcpy]\n"
   "                [--json FILE] [--csv FILE] [--markdown FILE] [--quiet] [--root-commit SHA]\n"
   "                [--context-json JSON] [--progress] [--count]\n"
   "  rzbench verify --corpus FILE.bbc [--json FILE]\n"
   "  rzbench sizes [--corpus FILE.bbc]... [--synthetic NAME[,NAME...]|all] [--settings 101,505]\n"
   "                [--preconditioners none] [--json FILE] [--progress]\n"
   "  rzbench digest --corpus FILE.bbc [--settings ...] [--preconditioners ...] [--json FILE]\n"
   "  rzbench synth NAME -o FILE.bbc\n"
   "  rzbench fingerprint\n"
   "  rzbench version\n";

std::vector<std::string> split(const std::string &s)
{
   std::vector<std::string> out;
   std::stringstream ss(s);
   std::string item;
   while (std::getline(ss, item, ','))
      if (!item.empty())
         out.push_back(item);
   if (out.empty())
      throw UsageError("empty list '" + s + "'");
   return out;
}

long long parse_int(const std::string &s, const std::string &what, long long lo, long long hi)
{
   errno = 0;
   char *end = nullptr;
   const long long v = std::strtoll(s.c_str(), &end, 10);
   if (s.empty() || *end != '\0' || errno != 0 || v < lo || v > hi)
      throw UsageError("invalid " + what + " '" + s + "' (expected an integer in " + std::to_string(lo) + ".." +
                       std::to_string(hi) + ")");
   return v;
}

// Writes atomically (temp file + rename), or to stdout for "-".
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

class Args {
public:
   Args(int argc, char **argv, int first) : argv_(argv + first, argv + argc) {}
   bool done() const { return i_ >= argv_.size(); }
   std::string next() { return argv_[i_++]; }
   std::string value(const std::string &opt)
   {
      if (done())
         throw UsageError(opt + " needs a value");
      return next();
   }

private:
   std::vector<std::string> argv_;
   size_t i_ = 0;
};

// --synthetic NAME[,NAME...] ("all" = every generator of `synthetic_names()`).
void add_synthetic(std::vector<std::string> &out, const std::string &list)
{
   for (const auto &n : split(list)) {
      if (n == "all")
         out.insert(out.end(), synthetic_names().begin(), synthetic_names().end());
      else if (is_synthetic_name(n))
         out.push_back(n);
      else
         throw UsageError("unknown synthetic dataset '" + n + "'");
   }
}

std::vector<int> parse_settings(const std::string &list)
{
   std::vector<int> out;
   for (const auto &s : split(list)) {
      const int v = static_cast<int>(parse_int(s, "setting", 0, 599));
      const std::string err = check_setting(v);
      if (!err.empty())
         throw UsageError(err);
      out.push_back(v);
   }
   return out;
}

std::vector<Preconditioner> parse_preconditioners(const std::string &list)
{
   std::vector<Preconditioner> out;
   for (const auto &s : split(list)) {
      Preconditioner p;
      if (!parse_preconditioner(s, p))
         throw UsageError("unknown preconditioner '" + s + "'");
      out.push_back(p);
   }
   return out;
}

int cmd_bench(Args &a)
{
   RunOptions o;
   std::vector<std::string> corpora, synthetic;
   std::string json_out, csv_out, md_out;
   std::optional<std::string> root_commit;
   std::optional<json> context;
   bool quiet = false;
   while (!a.done()) {
      const std::string opt = a.next();
      if (opt == "--corpus")
         corpora.push_back(a.value(opt));
      else if (opt == "--synthetic") {
         add_synthetic(synthetic, a.value(opt));
      } else if (opt == "--settings") {
         o.settings = parse_settings(a.value(opt));
      } else if (opt == "--preconditioners") {
         o.preconditioners = parse_preconditioners(a.value(opt));
      } else if (opt == "--dictionary-sizes") {
         o.dictionary_sizes.clear();
         for (const auto &s : split(a.value(opt))) {
            const long long v = parse_int(s, "dictionary size", 0, 1 << 30);
            if (v != 0 && v < 256)
               throw UsageError("dictionary size " + s + " too small (0 or >= 256 bytes)");
            o.dictionary_sizes.push_back(static_cast<size_t>(v));
         }
      } else if (opt == "--basket-sizes") {
         o.basket_sizes.clear();
         for (const auto &s : split(a.value(opt)))
            o.basket_sizes.push_back(static_cast<size_t>(parse_int(s, "basket size", 0, 1LL << 30)));
      } else if (opt == "--modes") {
         o.modes.clear();
         for (const auto &s : split(a.value(opt))) {
            Mode m;
            if (!parse_mode(s, m))
               throw UsageError("unknown mode '" + s + "'");
            o.modes.push_back(m);
         }
      } else if (opt == "--threads") {
         o.threads.clear();
         for (const auto &s : split(a.value(opt)))
            o.threads.push_back(static_cast<int>(parse_int(s, "thread count", 1, 256)));
      } else if (opt == "--min-samples")
         o.engine.min_samples = static_cast<int>(parse_int(a.value(opt), "--min-samples", 1, 100000));
      else if (opt == "--target-ms") {
         const std::string v = a.value(opt);
         char *end = nullptr;
         const double ms = std::strtod(v.c_str(), &end);
         if (v.empty() || *end != '\0' || !(ms >= 0) || ms > 1e6)
            throw UsageError("invalid --target-ms '" + v + "'");
         o.engine.target_ms = ms;
      } else if (opt == "--memcpy")
         o.memcpy_baseline = true;
      else if (opt == "--no-memcpy")
         o.memcpy_baseline = false;
      else if (opt == "--json")
         json_out = a.value(opt);
      else if (opt == "--csv")
         csv_out = a.value(opt);
      else if (opt == "--markdown")
         md_out = a.value(opt);
      else if (opt == "--quiet")
         quiet = true;
      else if (opt == "--progress")
         o.progress = true;
      else if (opt == "--count")
         o.count = true;
      else if (opt == "--root-commit")
         root_commit = a.value(opt);
      else if (opt == "--context-json") {
         const std::string v = a.value(opt);
         try {
            context = json::parse(v);
         } catch (const json::exception &e) {
            throw UsageError(std::string("--context-json is not valid JSON: ") + e.what());
         }
         if (!context->is_object())
            throw UsageError("--context-json must be a JSON object");
      } else
         throw UsageError("unknown option '" + opt + "'");
   }
   if (corpora.empty() && synthetic.empty())
      synthetic = synthetic_names();
   if (o.count && !counting_compiled())
      throw UsageError("--count: this rzbench was built without valgrind's headers (install valgrind, rebuild)");
   if (o.count && !running_under_valgrind())
      throw UsageError("--count must run under valgrind --tool=callgrind --instr-atstart=no "
                       "(`basketbench run --instructions` starts it so)");

   std::vector<Dataset> datasets;
   for (const auto &p : corpora)
      datasets.push_back(read_corpus(p)); // CorpusError -> exit 2
   for (const auto &n : synthetic)
      datasets.push_back(make_synthetic(n));
   for (const auto &d : datasets)
      if (dataset_bytes(d) == 0)
         throw UsageError("dataset '" + d.name + "' has no basket data to measure");

   RunDocument doc;
   doc.machine = machine_fingerprint();
   doc.root_commit = root_commit;
   doc.context = context;
   doc.params = o.engine;
   for (const auto &d : datasets)
      doc.datasets.push_back(describe(d));
   doc.results = run_benchmarks(datasets, o);

   if (!json_out.empty())
      write_output(json_out, document_json(doc).dump(2) + "\n");
   if (!csv_out.empty())
      write_output(csv_out, results_csv(doc.results));
   if (!md_out.empty())
      write_output(md_out, results_markdown(doc.results));
   const bool stdout_taken = json_out == "-" || csv_out == "-" || md_out == "-";
   if (!quiet && !stdout_taken)
      std::cout << results_console(doc.results);
   int rc = 0;
   for (const auto &r : doc.results)
      if (r.error) {
         std::cerr << "rzbench: FAILED " << r.dataset << " setting " << r.config.setting << ": " << *r.error << "\n";
         rc = 1;
      }
   return rc;
}

int cmd_verify(Args &a)
{
   std::string corpus, json_out = "-";
   while (!a.done()) {
      const std::string opt = a.next();
      if (opt == "--corpus")
         corpus = a.value(opt);
      else if (opt == "--json")
         json_out = a.value(opt);
      else
         throw UsageError("unknown option '" + opt + "'");
   }
   if (corpus.empty())
      throw UsageError("verify needs --corpus FILE.bbc");
   const json v = verify_dataset(read_corpus(corpus));
   write_output(json_out, v.dump(2) + "\n");
   if (json_out != "-")
      std::cout << "verify: " << v["decoded_ok"] << "/" << v["baskets"] << " baskets decoded byte-exactly, "
                << v["failures"].size() << " failures, " << v["unsupported"].size() << " unsupported\n";
   return v["failures"].empty() ? 0 : 1;
}

void print_branch_progress(size_t done, size_t total)
{
   std::cerr << "progress " << done << " " << total << "\n";
}

// Exact compressed bytes of every branch at every setting (no timing): docs/RZBENCH_CLI.md.
int cmd_sizes(Args &a)
{
   std::vector<std::string> corpora, synthetic;
   std::vector<int> settings{101, 505};
   std::vector<Preconditioner> preconditioners{Preconditioner::kNone};
   std::string json_out = "-";
   bool progress = false;
   while (!a.done()) {
      const std::string opt = a.next();
      if (opt == "--corpus")
         corpora.push_back(a.value(opt));
      else if (opt == "--synthetic") {
         add_synthetic(synthetic, a.value(opt));
      } else if (opt == "--settings") {
         settings = parse_settings(a.value(opt));
      } else if (opt == "--preconditioners") {
         preconditioners = parse_preconditioners(a.value(opt));
      } else if (opt == "--json")
         json_out = a.value(opt);
      else if (opt == "--progress")
         progress = true;
      else
         throw UsageError("unknown option '" + opt + "'");
   }
   if (corpora.empty() && synthetic.empty())
      throw UsageError("sizes needs --corpus FILE.bbc or --synthetic NAME");
   std::vector<SizeConfig> configs;
   for (int s : settings)
      for (Preconditioner p : preconditioners)
         configs.push_back({s, p});
   json datasets = json::array();
   for (const auto &p : corpora)
      datasets.push_back(branch_sizes(read_corpus(p), configs, progress ? print_branch_progress : nullptr));
   for (const auto &n : synthetic)
      datasets.push_back(branch_sizes(make_synthetic(n), configs, progress ? print_branch_progress : nullptr));
   write_output(json_out, json{{"datasets", datasets}}.dump(2) + "\n");
   return 0;
}

int cmd_digest(Args &a)
{
   std::string corpus, json_out = "-";
   std::vector<int> settings{101, 404, 505};
   std::vector<Preconditioner> pres{Preconditioner::kNone};
   while (!a.done()) {
      const std::string opt = a.next();
      if (opt == "--corpus")
         corpus = a.value(opt);
      else if (opt == "--settings")
         settings = parse_settings(a.value(opt));
      else if (opt == "--preconditioners")
         pres = parse_preconditioners(a.value(opt));
      else if (opt == "--json")
         json_out = a.value(opt);
      else
         throw UsageError("unknown option '" + opt + "'");
   }
   if (corpus.empty())
      throw UsageError("digest needs --corpus FILE.bbc");
   const json v = digest_dataset(read_corpus(corpus), settings, pres);
   write_output(json_out, v.dump(2) + "\n");
   for (const auto &r : v["results"])
      if (!r["roundtrip_ok"].get<bool>())
         return 1;
   return 0;
}

int cmd_synth(Args &a)
{
   std::string name, out;
   while (!a.done()) {
      const std::string opt = a.next();
      if (opt == "-o" || opt == "--output")
         out = a.value(opt);
      else if (name.empty() && opt.rfind("-", 0) != 0)
         name = opt;
      else
         throw UsageError("unexpected argument '" + opt + "'");
   }
   if (name.empty() || out.empty())
      throw UsageError("synth needs NAME and -o FILE.bbc");
   if (!is_synthetic_name(name))
      throw UsageError("unknown synthetic dataset '" + name + "'");
   write_corpus(make_synthetic(name), out);
   return 0;
}

} // namespace

int main(int argc, char **argv)
{
   if (argc < 2) {
      std::cerr << kUsage;
      return 2;
   }
   const std::string cmd = argv[1];
   Args args(argc, argv, 2);
   try {
      if (cmd == "bench")
         return cmd_bench(args);
      if (cmd == "verify")
         return cmd_verify(args);
      if (cmd == "synth")
         return cmd_synth(args);
      if (cmd == "sizes")
         return cmd_sizes(args);
      if (cmd == "digest")
         return cmd_digest(args);
      if (cmd == "fingerprint") {
         std::cout << machine_fingerprint().dump(2) << "\n";
         return 0;
      }
      if (cmd == "version") {
         const json v = {{"tool", "rzbench"}, {"version", "0.1.0"}, {"backend", backend_name()},
                         {"libraries", library_versions()}, {"codecs", codec_info()}};
         std::cout << v.dump(2) << "\n";
         return 0;
      }
      if (cmd == "-h" || cmd == "--help" || cmd == "help") {
         std::cout << kUsage;
         return 0;
      }
      throw UsageError("unknown command '" + cmd + "'");
   } catch (const UsageError &e) {
      std::cerr << "rzbench: " << e.what() << "\n" << kUsage;
      return 2;
   } catch (const CorpusError &e) {
      std::cerr << "rzbench: bad corpus: " << e.what() << "\n";
      return 2;
   } catch (const std::exception &e) {
      std::cerr << "rzbench: error: " << e.what() << "\n";
      return 2;
   }
}
