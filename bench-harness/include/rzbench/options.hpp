// rzbench's one option parser (contract: docs/RZBENCH_CLI.md). Every option is described once,
// in a table in src/options.cpp, with the one function that parses its value; each subcommand
// declares which of them it accepts and its own defaults. Options are applied in command-line
// order, so the first bad argument is the one reported, and a list option given twice keeps
// its last value (--corpus and --synthetic accumulate).
#pragma once
#include "rzbench/ab.hpp"
#include "rzbench/runner.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rzbench {

// A usage error or bad option value: rzbench prints "rzbench: <what>" and the usage, exit 2.
struct UsageError : std::runtime_error {
   using std::runtime_error::runtime_error;
};

enum class Opt {
   kCorpus,          // --corpus FILE.bbc
   kSynthetic,       // --synthetic NAME[,NAME...]|all
   kSettings,        // --settings 101,404,505
   kPreconditioners, // --preconditioners none,shuffle,bitshuffle
   kDictionarySizes, // --dictionary-sizes 0,16384
   kBasketSizes,     // --basket-sizes 0,4096
   kModes,           // --modes basket,rac-sequential,rac-random
   kThreads,         // --threads 1,2
   kMinSamples,      // --min-samples N
   kTargetMs,        // --target-ms MS
   kMemcpy,          // --memcpy / --no-memcpy
   kJson,            // --json FILE|-
   kCsv,             // --csv FILE|-
   kMarkdown,        // --markdown FILE|-
   kQuiet,           // --quiet
   kProgress,        // --progress
   kCount,           // --count
   kRootCommit,      // --root-commit SHA
   kContextJson,     // --context-json JSON
   kOutput,          // -o / --output FILE.bbc
   kLayerA,          // --a host|LAYER.so
   kLayerB,          // --b host|LAYER.so
   kPairs,           // --pairs N
   kSeed,            // --seed N
   kClock,           // --clock cpu|wall
   kMinCpuWall,      // --min-cpu-wall X
   kMaxInvoluntary,  // --max-involuntary N
   kMaxSteal,        // --max-steal-ticks N
   kBCodecs,         // --b-codecs ALG:LEVEL,... (ab: side B runs its own codec per --settings entry)
   kLayer,           // --layer host|LAYER.so
};

// The values of one command line; fields of options a subcommand does not accept keep its defaults.
struct Options {
   std::vector<std::string> corpora;   // every --corpus, in order
   std::vector<std::string> synthetic; // every --synthetic name, in order ("all" expanded)
   RunOptions run;                     // dimensions, measurement, --progress, --count
   std::string json_out;               // "" = not written, "-" = stdout
   std::string csv_out;
   std::string markdown_out;
   bool quiet = false;
   std::optional<std::string> root_commit;
   std::optional<nlohmann::json> context;
   std::string name;   // synth's NAME
   std::string output; // synth's -o FILE.bbc
   std::string layer_a, layer_b; // ab's --a / --b ("" = not given)
   std::string layer = "host";   // headroom's --layer: the framed path
   AbParams ab;                  // ab's pairs, seed, clock, limits (its --target-ms is run.engine.target_ms)
   // ab's --b-codecs: per --settings entry, the (algorithm, level) side B runs instead of the same
   // setting; the level is passed to the layer as given (a candidate layer takes its library's
   // native levels, negative ZSTD levels included). Empty: both sides run the same setting.
   std::vector<std::pair<int, int>> b_codecs;
   bool target_ms_given = false; // ab's default repetition differs from bench's sample

   // verify and digest read one corpus: the last --corpus ("" when none).
   std::string single_corpus() const { return corpora.empty() ? std::string() : corpora.back(); }
};

struct CommandSpec {
   const char *name;
   std::vector<Opt> accepts;
   std::vector<int> default_settings;
   std::string default_json; // "-": the JSON goes to stdout unless --json says otherwise
   // Takes one positional argument (synth NAME); anything else not accepted is then an
   // "unexpected argument" rather than an "unknown option".
   bool takes_name = false;
};

// The subcommands that take options (bench, ab, headroom, verify, sizes, digest, synth); nullptr for any other.
const CommandSpec *find_command(const std::string &name);

// Parses args (the words after the subcommand) for spec; throws UsageError.
Options parse_options(const CommandSpec &spec, const std::vector<std::string> &args);

// The flags of an option ("--memcpy" and "--no-memcpy" are both kMemcpy), for the tests.
std::vector<std::string> option_flags(Opt id);

extern const char *const kUsage;

} // namespace rzbench
