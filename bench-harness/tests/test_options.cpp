// The option parser: which options each subcommand accepts, their defaults, how repeated options
// combine, and the usage errors (exit 2 in rzbench) for bad values. docs/RZBENCH_CLI.md is the contract.
#include "rzbench/options.hpp"
#include "rzbench/synth.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace rzbench;

namespace {

using Args = std::vector<std::string>;

Options parse(const std::string &command, const Args &args)
{
   const CommandSpec *spec = find_command(command);
   if (!spec)
      throw std::logic_error("no command " + command);
   return parse_options(*spec, args);
}

// The message of the UsageError that parsing throws ("" if it does not throw).
std::string usage_error(const std::string &command, const Args &args)
{
   try {
      parse(command, args);
   } catch (const UsageError &e) {
      return e.what();
   }
   return "";
}

// A valid value for each option that takes one.
const std::map<std::string, std::string> kValues = {
   {"--corpus", "x.bbc"},      {"--synthetic", "zeros"},       {"--settings", "101"},
   {"--preconditioners", "none"}, {"--dictionary-sizes", "0"}, {"--basket-sizes", "0"},
   {"--modes", "basket"},      {"--threads", "1"},             {"--min-samples", "2"},
   {"--target-ms", "1"},       {"--json", "out.json"},         {"--csv", "out.csv"},
   {"--markdown", "out.md"},   {"--root-commit", "abc"},       {"--context-json", "{}"},
   {"-o", "out.bbc"},          {"--output", "out.bbc"},        {"--a", "host"},
   {"--b", "host"},            {"--pairs", "3"},               {"--seed", "7"},
   {"--clock", "wall"},        {"--min-cpu-wall", "0.5"},      {"--max-involuntary", "9"},
   {"--max-steal-ticks", "1"}, {"--b-codecs", "5:10"}};

const std::vector<Opt> kAllOptions = {
   Opt::kCorpus,   Opt::kSynthetic, Opt::kSettings, Opt::kPreconditioners, Opt::kDictionarySizes,
   Opt::kBasketSizes, Opt::kModes, Opt::kThreads,  Opt::kMinSamples,      Opt::kTargetMs,
   Opt::kMemcpy,   Opt::kJson,      Opt::kCsv,      Opt::kMarkdown,        Opt::kQuiet,
   Opt::kProgress, Opt::kCount,     Opt::kRootCommit, Opt::kContextJson,   Opt::kOutput,
   Opt::kLayerA,   Opt::kLayerB,    Opt::kPairs,    Opt::kSeed,            Opt::kClock,
   Opt::kMinCpuWall, Opt::kMaxInvoluntary, Opt::kMaxSteal, Opt::kBCodecs};

} // namespace

TEST(Options, EachSubcommandAcceptsExactlyItsOptions)
{
   // As documented in docs/RZBENCH_CLI.md (and the usage text).
   const std::map<std::string, std::set<std::string>> accepted = {
      {"bench",
       {"--corpus", "--synthetic", "--settings", "--preconditioners", "--dictionary-sizes", "--basket-sizes", "--modes",
        "--threads", "--min-samples", "--target-ms", "--memcpy", "--no-memcpy", "--json", "--csv", "--markdown",
        "--quiet", "--progress", "--count", "--root-commit", "--context-json"}},
      {"ab",
       {"--a", "--b", "--corpus", "--synthetic", "--settings", "--b-codecs", "--pairs", "--target-ms", "--seed", "--clock",
        "--min-cpu-wall", "--max-involuntary", "--max-steal-ticks", "--count", "--json", "--progress"}},
      {"verify", {"--corpus", "--json"}},
      {"sizes", {"--corpus", "--synthetic", "--settings", "--preconditioners", "--json", "--progress"}},
      {"digest", {"--corpus", "--settings", "--preconditioners", "--json"}},
      {"synth", {"-o", "--output"}}};
   std::set<std::string> every_flag;
   for (Opt id : kAllOptions)
      for (const auto &f : option_flags(id))
         every_flag.insert(f);
   ASSERT_EQ(every_flag.size(), 31u);
   for (const auto &[command, flags] : accepted) {
      ASSERT_NE(find_command(command), nullptr) << command;
      for (const auto &flag : every_flag) {
         Args args{flag};
         if (kValues.count(flag))
            args.push_back(kValues.at(flag));
         const std::string err = usage_error(command, args);
         if (flags.count(flag)) {
            EXPECT_EQ(err, "") << command << " " << flag;
         } else {
            const std::string want = command == "synth" ? "unexpected argument '" : "unknown option '";
            EXPECT_EQ(err, want + flag + "'") << command;
         }
      }
   }
}

TEST(Options, OnlyTheSubcommandsWithOptionsHaveASpec)
{
   for (const char *c : {"bench", "ab", "verify", "sizes", "digest", "synth"})
      EXPECT_NE(find_command(c), nullptr) << c;
   for (const char *c : {"fingerprint", "version", "help", "-h", "nonsense", ""})
      EXPECT_EQ(find_command(c), nullptr) << c;
}

TEST(Options, Defaults)
{
   const Options bench = parse("bench", {});
   EXPECT_EQ(bench.run.settings, (std::vector<int>{101, 404, 505}));
   EXPECT_EQ(bench.run.preconditioners, (std::vector<Preconditioner>{Preconditioner::kNone}));
   EXPECT_EQ(bench.run.dictionary_sizes, (std::vector<size_t>{0}));
   EXPECT_EQ(bench.run.basket_sizes, (std::vector<size_t>{0}));
   EXPECT_EQ(bench.run.modes, (std::vector<Mode>{Mode::kBasket}));
   EXPECT_EQ(bench.run.threads, (std::vector<int>{1}));
   EXPECT_EQ(bench.run.engine.min_samples, 9);
   EXPECT_DOUBLE_EQ(bench.run.engine.target_ms, 100.0);
   EXPECT_TRUE(bench.run.memcpy_baseline);
   EXPECT_FALSE(bench.run.progress);
   EXPECT_FALSE(bench.run.count);
   EXPECT_FALSE(bench.quiet);
   EXPECT_EQ(bench.json_out, "") << "bench writes no JSON unless asked";
   EXPECT_EQ(bench.csv_out, "");
   EXPECT_EQ(bench.markdown_out, "");
   EXPECT_FALSE(bench.root_commit);
   EXPECT_FALSE(bench.context);
   EXPECT_TRUE(bench.corpora.empty());
   EXPECT_TRUE(bench.synthetic.empty()) << "the run, not the parser, falls back to every synthetic dataset";

   const Options sizes = parse("sizes", {});
   EXPECT_EQ(sizes.run.settings, (std::vector<int>{101, 505}));
   EXPECT_EQ(sizes.run.preconditioners, (std::vector<Preconditioner>{Preconditioner::kNone}));
   EXPECT_EQ(sizes.json_out, "-");

   const Options digest = parse("digest", {});
   EXPECT_EQ(digest.run.settings, (std::vector<int>{101, 404, 505}));
   EXPECT_EQ(digest.run.preconditioners, (std::vector<Preconditioner>{Preconditioner::kNone}));
   EXPECT_EQ(digest.json_out, "-");

   EXPECT_EQ(parse("verify", {}).json_out, "-");
   EXPECT_EQ(parse("verify", {}).single_corpus(), "");

   const Options ab = parse("ab", {});
   EXPECT_EQ(ab.run.settings, (std::vector<int>{101, 201, 404, 505}));
   EXPECT_EQ(ab.json_out, "-");
   EXPECT_EQ(ab.layer_a, "");
   EXPECT_EQ(ab.ab.pairs, 31);
   EXPECT_FALSE(ab.target_ms_given) << "ab's repetition default (40 ms) is not bench's sample";
   EXPECT_EQ(ab.ab.clock, AbClock::kCpu);
   EXPECT_DOUBLE_EQ(ab.ab.limits.min_cpu_wall, 0.02);
   EXPECT_EQ(ab.ab.limits.max_involuntary, 250);
   EXPECT_EQ(ab.ab.limits.max_steal_ticks, 2);
}

TEST(Options, AbValues)
{
   const Options o = parse("ab", {"--a", "host", "--b", "/x/layer/libbbzip.so", "--pairs", "5", "--seed", "9",
                                  "--clock", "wall", "--min-cpu-wall", "0.8", "--max-involuntary", "3",
                                  "--max-steal-ticks", "0", "--target-ms", "20"});
   EXPECT_EQ(o.layer_a, "host");
   EXPECT_EQ(o.layer_b, "/x/layer/libbbzip.so");
   EXPECT_EQ(o.ab.pairs, 5);
   EXPECT_EQ(o.ab.seed, 9u);
   EXPECT_EQ(o.ab.clock, AbClock::kWall);
   EXPECT_DOUBLE_EQ(o.ab.limits.min_cpu_wall, 0.8);
   EXPECT_EQ(o.ab.limits.max_involuntary, 3);
   EXPECT_EQ(o.ab.limits.max_steal_ticks, 0);
   EXPECT_TRUE(o.target_ms_given);
   EXPECT_DOUBLE_EQ(o.run.engine.target_ms, 20.0);
   EXPECT_EQ(usage_error("ab", {"--clock", "tsc"}), "invalid --clock 'tsc' (expected cpu or wall)");
   EXPECT_EQ(usage_error("ab", {"--min-cpu-wall", "1.5"}), "invalid --min-cpu-wall '1.5' (expected a number in 0..1)");
   EXPECT_EQ(usage_error("ab", {"--pairs", "-1"}), "invalid --pairs '-1' (expected an integer in 0..100000)");
   EXPECT_EQ(usage_error("ab", {"--b-codecs", "5"}), "--b-codecs: '5' is not ALGORITHM:LEVEL");
   EXPECT_EQ(usage_error("ab", {"--b-codecs", "6:1"}), "invalid --b-codecs algorithm '6' (expected an integer in 1..5)");
   EXPECT_EQ(usage_error("ab", {"--a", ""}), "--a needs host or the path of a layer shared object");
}

TEST(Options, BenchValues)
{
   const Options o = parse("bench", {"--corpus", "a.bbc", "--synthetic", "zeros,tfloat", "--settings", "101,,505",
                                     "--preconditioners", "shuffle,bitshuffle", "--dictionary-sizes", "0,16384",
                                     "--basket-sizes", "0,4096", "--modes", "rac-sequential,rac-random", "--threads",
                                     "1,2", "--min-samples", "3", "--target-ms", "2.5", "--no-memcpy", "--json", "-",
                                     "--csv", "c.csv", "--markdown", "m.md", "--quiet", "--progress", "--count",
                                     "--root-commit", "abc123", "--context-json", R"({"suite":"x","run_id":7})"});
   EXPECT_EQ(o.corpora, (std::vector<std::string>{"a.bbc"}));
   EXPECT_EQ(o.synthetic, (std::vector<std::string>{"zeros", "tfloat"}));
   EXPECT_EQ(o.run.settings, (std::vector<int>{101, 505})) << "empty list items are dropped";
   EXPECT_EQ(o.run.preconditioners, (std::vector<Preconditioner>{Preconditioner::kShuffle, Preconditioner::kBitshuffle}));
   EXPECT_EQ(o.run.dictionary_sizes, (std::vector<size_t>{0, 16384}));
   EXPECT_EQ(o.run.basket_sizes, (std::vector<size_t>{0, 4096}));
   EXPECT_EQ(o.run.modes, (std::vector<Mode>{Mode::kRacSequential, Mode::kRacRandom}));
   EXPECT_EQ(o.run.threads, (std::vector<int>{1, 2}));
   EXPECT_EQ(o.run.engine.min_samples, 3);
   EXPECT_DOUBLE_EQ(o.run.engine.target_ms, 2.5);
   EXPECT_FALSE(o.run.memcpy_baseline);
   EXPECT_EQ(o.json_out, "-");
   EXPECT_EQ(o.csv_out, "c.csv");
   EXPECT_EQ(o.markdown_out, "m.md");
   EXPECT_TRUE(o.quiet);
   EXPECT_TRUE(o.run.progress);
   EXPECT_TRUE(o.run.count);
   EXPECT_EQ(o.root_commit, std::optional<std::string>("abc123"));
   ASSERT_TRUE(o.context);
   EXPECT_EQ(*o.context, (nlohmann::json{{"suite", "x"}, {"run_id", 7}}));
}

TEST(Options, RepeatedOptions)
{
   // --corpus and --synthetic accumulate; every other option keeps its last value.
   const Options o = parse("bench", {"--corpus", "a.bbc", "--synthetic", "zeros", "--corpus", "b.bbc", "--synthetic",
                                     "all", "--settings", "101", "--settings", "505", "--memcpy", "--no-memcpy",
                                     "--json", "a.json", "--json", "b.json", "--threads", "2", "--threads", "1"});
   EXPECT_EQ(o.corpora, (std::vector<std::string>{"a.bbc", "b.bbc"}));
   std::vector<std::string> synthetic{"zeros"};
   synthetic.insert(synthetic.end(), synthetic_names().begin(), synthetic_names().end());
   EXPECT_EQ(o.synthetic, synthetic) << "all = every name of synthetic_names(), appended";
   EXPECT_EQ(o.run.settings, (std::vector<int>{505}));
   EXPECT_FALSE(o.run.memcpy_baseline);
   EXPECT_EQ(o.json_out, "b.json");
   EXPECT_EQ(o.run.threads, (std::vector<int>{1}));
   // verify and digest read one corpus: the last one given.
   EXPECT_EQ(parse("verify", {"--corpus", "a.bbc", "--corpus", "b.bbc"}).single_corpus(), "b.bbc");
   EXPECT_EQ(parse("digest", {"--corpus", "a.bbc", "--corpus", ""}).single_corpus(), "");
   // Shapes are accepted by name, not by `all`.
   EXPECT_EQ(parse("sizes", {"--synthetic", "rvec-empty-50"}).synthetic, (std::vector<std::string>{"rvec-empty-50"}));
}

TEST(Options, Synth)
{
   Options o = parse("synth", {"tfloat", "-o", "t.bbc"});
   EXPECT_EQ(o.name, "tfloat");
   EXPECT_EQ(o.output, "t.bbc");
   o = parse("synth", {"--output", "t.bbc", "zeros"});
   EXPECT_EQ(o.name, "zeros");
   EXPECT_EQ(o.output, "t.bbc");
   // An empty NAME leaves the place free for the next word (as the hand-written parser did).
   EXPECT_EQ(parse("synth", {"", "zeros"}).name, "zeros");
   EXPECT_EQ(usage_error("synth", {"tfloat", "zeros"}), "unexpected argument 'zeros'");
   EXPECT_EQ(usage_error("synth", {"-"}), "unexpected argument '-'");
   EXPECT_EQ(usage_error("synth", {"tfloat", "-o"}), "-o needs a value");
   // The name is checked when the command runs, not by the parser.
   EXPECT_EQ(parse("synth", {"nope"}).name, "nope");
}

TEST(Options, UsageErrors)
{
   const std::vector<std::tuple<std::string, Args, std::string>> cases = {
      {"bench", {"--bogus"}, "unknown option '--bogus'"},
      {"bench", {"tfloat"}, "unknown option 'tfloat'"},
      {"bench", {"--help"}, "unknown option '--help'"},
      {"bench", {"--settings"}, "--settings needs a value"},
      {"bench", {"--context-json"}, "--context-json needs a value"},
      {"bench", {"--settings", ""}, "empty list ''"},
      {"bench", {"--settings", ","}, "empty list ','"},
      {"bench", {"--settings", "601"}, "invalid setting '601' (expected an integer in 0..599)"},
      {"bench", {"--settings", "abc"}, "invalid setting 'abc' (expected an integer in 0..599)"},
      {"bench", {"--settings", "111"}, "setting 111: level must be 0..9"},
      {"bench", {"--synthetic", "zeros,nope"}, "unknown synthetic dataset 'nope'"},
      {"bench", {"--preconditioners", "foo"}, "unknown preconditioner 'foo'"},
      {"bench", {"--dictionary-sizes", "100"}, "dictionary size 100 too small (0 or >= 256 bytes)"},
      {"bench", {"--dictionary-sizes", "1073741825"}, "invalid dictionary size '1073741825' (expected an integer in 0..1073741824)"},
      {"bench", {"--basket-sizes", "-5"}, "invalid basket size '-5' (expected an integer in 0..1073741824)"},
      {"bench", {"--modes", "sideways"}, "unknown mode 'sideways'"},
      {"bench", {"--threads", "0"}, "invalid thread count '0' (expected an integer in 1..256)"},
      {"bench", {"--min-samples", "1x"}, "invalid --min-samples '1x' (expected an integer in 1..100000)"},
      {"bench", {"--target-ms", "nan"}, "invalid --target-ms 'nan'"},
      {"bench", {"--target-ms", "1e7"}, "invalid --target-ms '1e7'"},
      {"bench", {"--context-json", "[1]"}, "--context-json must be a JSON object"},
      {"sizes", {"--csv", "x"}, "unknown option '--csv'"},
      {"sizes", {"--settings", "1000"}, "invalid setting '1000' (expected an integer in 0..599)"},
      {"digest", {"--synthetic", "zeros"}, "unknown option '--synthetic'"},
      {"digest", {"--preconditioners", ""}, "empty list ''"},
      {"verify", {"--settings", "101"}, "unknown option '--settings'"},
      {"verify", {"--json"}, "--json needs a value"},
      // Options apply in command-line order: the first bad argument is the one reported.
      {"bench", {"--settings", "999", "--bogus"}, "invalid setting '999' (expected an integer in 0..599)"},
      {"bench", {"--bogus", "--settings", "999"}, "unknown option '--bogus'"},
   };
   for (const auto &[command, args, message] : cases)
      EXPECT_EQ(usage_error(command, args), message) << command << " " << (args.empty() ? "" : args[0]);
   EXPECT_NE(usage_error("bench", {"--context-json", "{bad"}).find("--context-json is not valid JSON: "),
             std::string::npos);
}
