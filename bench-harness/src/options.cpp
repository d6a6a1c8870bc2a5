#include "rzbench/options.hpp"

#include "rzbench/codecs.hpp"
#include "rzbench/experiment.hpp"
#include "rzbench/precondition.hpp"
#include "rzbench/synth.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace rzbench {

const char *const kUsage =
   "usage:\n"
   "  rzbench bench [--corpus FILE.bbc]... [--synthetic NAME[,NAME...]|all]\n"
   "                [--settings 101,404,505] [--preconditioners none,shuffle,bitshuffle]\n"
   "                [--dictionary-sizes 0,16384] [--basket-sizes 0,4096] [--modes basket,rac-sequential,rac-random]\n"
   "                [--threads 1,2] [--min-samples 9] [--target-ms 100] [--memcpy|--no-memcpy]\n"
   "                [--json FILE] [--csv FILE] [--markdown FILE] [--quiet] [--root-commit SHA]\n"
   "                [--context-json JSON] [--progress] [--count]\n"
   "  rzbench ab --a host|LAYER.so --b host|LAYER.so [--corpus FILE.bbc]... [--synthetic NAME[,NAME...]]\n"
   "                [--settings 101,201,404,505] [--b-codecs ALG:LEVEL,...] [--pairs 31] [--target-ms 40] [--seed 1] [--clock cpu|wall]\n"
   "                [--min-cpu-wall 0.02] [--max-involuntary 250] [--max-steal-ticks 2] [--count] [--json FILE] [--progress]\n"
   "  rzbench headroom [--layer host|LAYER.so] [--corpus FILE.bbc]... [--synthetic NAME[,NAME...]] [--settings 101,106,...,509]\n"
   "                [--pairs 31] [--target-ms 40] [--seed 1] [--clock cpu|wall] [--min-cpu-wall 0.02]\n"
   "                [--max-involuntary 250] [--max-steal-ticks 2] [--count] [--json FILE] [--progress]\n"
   "  rzbench verify --corpus FILE.bbc [--json FILE]\n"
   "  rzbench sizes [--corpus FILE.bbc]... [--synthetic NAME[,NAME...]|all] [--settings 101,505]\n"
   "                [--preconditioners none] [--json FILE] [--progress]\n"
   "  rzbench digest --corpus FILE.bbc [--settings ...] [--preconditioners ...] [--json FILE]\n"
   "  rzbench synth NAME -o FILE.bbc\n"
   "  rzbench fingerprint\n"
   "  rzbench version\n";

namespace {

// ---- the value parsers: one per kind of value ------------------------------------------------

// A comma list; empty items are dropped, but a list with no item at all is an error.
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

// --synthetic NAME[,NAME...] ("all" = every generator of `synthetic_names()`); appends.
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

// --b-codecs 5:10,5:-3,1:6: ROOT's algorithm number and a level the layer is handed unchanged.
std::vector<std::pair<int, int>> parse_b_codecs(const std::string &list)
{
   std::vector<std::pair<int, int>> out;
   for (const auto &s : split(list)) {
      const auto colon = s.find(':');
      if (colon == std::string::npos)
         throw UsageError("--b-codecs: '" + s + "' is not ALGORITHM:LEVEL");
      const int algorithm = static_cast<int>(parse_int(s.substr(0, colon), "--b-codecs algorithm", 1, 5));
      const int level = static_cast<int>(parse_int(s.substr(colon + 1), "--b-codecs level", -1000000, 1000000));
      if (find_codec_row(algorithm) == nullptr)
         throw UsageError("--b-codecs: unknown algorithm " + std::to_string(algorithm));
      out.emplace_back(algorithm, level);
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

std::vector<size_t> parse_dictionary_sizes(const std::string &list)
{
   std::vector<size_t> out;
   for (const auto &s : split(list)) {
      const long long v = parse_int(s, "dictionary size", 0, 1 << 30);
      if (v != 0 && v < 256)
         throw UsageError("dictionary size " + s + " too small (0 or >= 256 bytes)");
      out.push_back(static_cast<size_t>(v));
   }
   return out;
}

std::vector<size_t> parse_basket_sizes(const std::string &list)
{
   std::vector<size_t> out;
   for (const auto &s : split(list))
      out.push_back(static_cast<size_t>(parse_int(s, "basket size", 0, 1LL << 30)));
   return out;
}

std::vector<Mode> parse_modes(const std::string &list)
{
   std::vector<Mode> out;
   for (const auto &s : split(list)) {
      Mode m;
      if (!parse_mode(s, m))
         throw UsageError("unknown mode '" + s + "'");
      out.push_back(m);
   }
   return out;
}

std::vector<int> parse_threads(const std::string &list)
{
   std::vector<int> out;
   for (const auto &s : split(list))
      out.push_back(static_cast<int>(parse_int(s, "thread count", 1, 256)));
   return out;
}

double parse_target_ms(const std::string &v)
{
   char *end = nullptr;
   const double ms = std::strtod(v.c_str(), &end);
   if (v.empty() || *end != '\0' || !(ms >= 0) || ms > 1e6)
      throw UsageError("invalid --target-ms '" + v + "'");
   return ms;
}

double parse_fraction(const std::string &v, const std::string &what)
{
   char *end = nullptr;
   const double x = std::strtod(v.c_str(), &end);
   if (v.empty() || *end != '\0' || !(x >= 0) || x > 1)
      throw UsageError("invalid " + what + " '" + v + "' (expected a number in 0..1)");
   return x;
}

AbClock parse_clock(const std::string &v)
{
   if (v == "cpu")
      return AbClock::kCpu;
   if (v == "wall")
      return AbClock::kWall;
   throw UsageError("invalid --clock '" + v + "' (expected cpu or wall)");
}

std::string parse_layer(const std::string &v, const char *flag)
{
   if (v.empty())
      throw UsageError(std::string(flag) + " needs host or the path of a layer shared object");
   return v;
}

nlohmann::json parse_context_json(const std::string &v)
{
   nlohmann::json context;
   try {
      context = nlohmann::json::parse(v);
   } catch (const nlohmann::json::exception &e) {
      throw UsageError(std::string("--context-json is not valid JSON: ") + e.what());
   }
   if (!context.is_object())
      throw UsageError("--context-json must be a JSON object");
   return context;
}

// ---- the option table ------------------------------------------------------------------------

struct OptionDef {
   Opt id;
   const char *flag;
   bool takes_value;
   void (*apply)(Options &o, const std::string &value); // value is "" for a flag without one
};

const OptionDef kOptions[] = {
   {Opt::kCorpus, "--corpus", true, [](Options &o, const std::string &v) { o.corpora.push_back(v); }},
   {Opt::kSynthetic, "--synthetic", true, [](Options &o, const std::string &v) { add_synthetic(o.synthetic, v); }},
   {Opt::kSettings, "--settings", true, [](Options &o, const std::string &v) { o.run.settings = parse_settings(v); }},
   {Opt::kPreconditioners, "--preconditioners", true,
    [](Options &o, const std::string &v) { o.run.preconditioners = parse_preconditioners(v); }},
   {Opt::kDictionarySizes, "--dictionary-sizes", true,
    [](Options &o, const std::string &v) { o.run.dictionary_sizes = parse_dictionary_sizes(v); }},
   {Opt::kBasketSizes, "--basket-sizes", true,
    [](Options &o, const std::string &v) { o.run.basket_sizes = parse_basket_sizes(v); }},
   {Opt::kModes, "--modes", true, [](Options &o, const std::string &v) { o.run.modes = parse_modes(v); }},
   {Opt::kThreads, "--threads", true, [](Options &o, const std::string &v) { o.run.threads = parse_threads(v); }},
   {Opt::kMinSamples, "--min-samples", true,
    [](Options &o, const std::string &v) {
       o.run.engine.min_samples = static_cast<int>(parse_int(v, "--min-samples", 1, 100000));
    }},
   {Opt::kTargetMs, "--target-ms", true,
    [](Options &o, const std::string &v) {
       o.run.engine.target_ms = parse_target_ms(v);
       o.target_ms_given = true;
    }},
   {Opt::kMemcpy, "--memcpy", false, [](Options &o, const std::string &) { o.run.memcpy_baseline = true; }},
   {Opt::kMemcpy, "--no-memcpy", false, [](Options &o, const std::string &) { o.run.memcpy_baseline = false; }},
   {Opt::kJson, "--json", true, [](Options &o, const std::string &v) { o.json_out = v; }},
   {Opt::kCsv, "--csv", true, [](Options &o, const std::string &v) { o.csv_out = v; }},
   {Opt::kMarkdown, "--markdown", true, [](Options &o, const std::string &v) { o.markdown_out = v; }},
   {Opt::kQuiet, "--quiet", false, [](Options &o, const std::string &) { o.quiet = true; }},
   {Opt::kProgress, "--progress", false, [](Options &o, const std::string &) { o.run.progress = true; }},
   {Opt::kCount, "--count", false, [](Options &o, const std::string &) { o.run.count = true; }},
   {Opt::kRootCommit, "--root-commit", true, [](Options &o, const std::string &v) { o.root_commit = v; }},
   {Opt::kContextJson, "--context-json", true,
    [](Options &o, const std::string &v) { o.context = parse_context_json(v); }},
   {Opt::kOutput, "-o", true, [](Options &o, const std::string &v) { o.output = v; }},
   {Opt::kOutput, "--output", true, [](Options &o, const std::string &v) { o.output = v; }},
   {Opt::kLayerA, "--a", true, [](Options &o, const std::string &v) { o.layer_a = parse_layer(v, "--a"); }},
   {Opt::kLayerB, "--b", true, [](Options &o, const std::string &v) { o.layer_b = parse_layer(v, "--b"); }},
   {Opt::kLayer, "--layer", true, [](Options &o, const std::string &v) { o.layer = parse_layer(v, "--layer"); }},
   {Opt::kPairs, "--pairs", true,
    [](Options &o, const std::string &v) { o.ab.pairs = static_cast<int>(parse_int(v, "--pairs", 0, 100000)); }},
   {Opt::kBCodecs, "--b-codecs", true, [](Options &o, const std::string &v) { o.b_codecs = parse_b_codecs(v); }},
   {Opt::kSeed, "--seed", true,
    [](Options &o, const std::string &v) {
       o.ab.seed = static_cast<uint64_t>(parse_int(v, "--seed", 0, (1LL << 62)));
    }},
   {Opt::kClock, "--clock", true, [](Options &o, const std::string &v) { o.ab.clock = parse_clock(v); }},
   {Opt::kMinCpuWall, "--min-cpu-wall", true,
    [](Options &o, const std::string &v) { o.ab.limits.min_cpu_wall = parse_fraction(v, "--min-cpu-wall"); }},
   {Opt::kMaxInvoluntary, "--max-involuntary", true,
    [](Options &o, const std::string &v) {
       o.ab.limits.max_involuntary = static_cast<long>(parse_int(v, "--max-involuntary", 0, 1000000));
    }},
   {Opt::kMaxSteal, "--max-steal-ticks", true,
    [](Options &o, const std::string &v) {
       o.ab.limits.max_steal_ticks = parse_int(v, "--max-steal-ticks", 0, 1000000);
    }},
};

// ---- the subcommands -------------------------------------------------------------------------

const CommandSpec kCommands[] = {
   {"bench",
    {Opt::kCorpus, Opt::kSynthetic, Opt::kSettings, Opt::kPreconditioners, Opt::kDictionarySizes, Opt::kBasketSizes,
     Opt::kModes, Opt::kThreads, Opt::kMinSamples, Opt::kTargetMs, Opt::kMemcpy, Opt::kJson, Opt::kCsv,
     Opt::kMarkdown, Opt::kQuiet, Opt::kProgress, Opt::kCount, Opt::kRootCommit, Opt::kContextJson},
    {101, 404, 505},
    "",
    false},
   {"ab",
    {Opt::kLayerA, Opt::kLayerB, Opt::kCorpus, Opt::kSynthetic, Opt::kSettings, Opt::kBCodecs, Opt::kPairs, Opt::kTargetMs,
     Opt::kSeed, Opt::kClock, Opt::kMinCpuWall, Opt::kMaxInvoluntary, Opt::kMaxSteal, Opt::kCount, Opt::kJson,
     Opt::kProgress},
    {101, 201, 404, 505},
    "-",
    false},
   {"headroom",
    {Opt::kLayer, Opt::kCorpus, Opt::kSynthetic, Opt::kSettings, Opt::kPairs, Opt::kTargetMs, Opt::kSeed,
     Opt::kClock, Opt::kMinCpuWall, Opt::kMaxInvoluntary, Opt::kMaxSteal, Opt::kCount, Opt::kJson, Opt::kProgress},
    {101, 106, 109, 201, 206, 401, 404, 409, 501, 505, 509},
    "-",
    false},
   {"verify", {Opt::kCorpus, Opt::kJson}, {101, 404, 505}, "-", false},
   {"sizes",
    {Opt::kCorpus, Opt::kSynthetic, Opt::kSettings, Opt::kPreconditioners, Opt::kJson, Opt::kProgress},
    {101, 505},
    "-",
    false},
   {"digest", {Opt::kCorpus, Opt::kSettings, Opt::kPreconditioners, Opt::kJson}, {101, 404, 505}, "-", false},
   {"synth", {Opt::kOutput}, {101, 404, 505}, "", true},
};

} // namespace

const CommandSpec *find_command(const std::string &name)
{
   for (const auto &c : kCommands)
      if (name == c.name)
         return &c;
   return nullptr;
}

std::vector<std::string> option_flags(Opt id)
{
   std::vector<std::string> out;
   for (const auto &d : kOptions)
      if (d.id == id)
         out.emplace_back(d.flag);
   return out;
}

Options parse_options(const CommandSpec &spec, const std::vector<std::string> &args)
{
   Options o;
   o.run.settings = spec.default_settings;
   o.json_out = spec.default_json;
   for (size_t i = 0; i < args.size();) {
      const std::string &arg = args[i++];
      const auto def = std::find_if(std::begin(kOptions), std::end(kOptions), [&](const OptionDef &d) {
         return arg == d.flag && std::find(spec.accepts.begin(), spec.accepts.end(), d.id) != spec.accepts.end();
      });
      if (def != std::end(kOptions)) {
         if (!def->takes_value) {
            def->apply(o, "");
            continue;
         }
         if (i >= args.size())
            throw UsageError(arg + " needs a value");
         def->apply(o, args[i++]);
      } else if (spec.takes_name && o.name.empty() && arg.rfind("-", 0) != 0) {
         o.name = arg;
      } else {
         throw UsageError((spec.takes_name ? "unexpected argument '" : "unknown option '") + arg + "'");
      }
   }
   return o;
}

} // namespace rzbench
