// rzbench command line (contract: docs/RZBENCH_CLI.md, mirrored in ../README.md).
// Exit codes: 0 ok, 1 a result failed, 2 usage error or bad input.
// Options are parsed by src/options.cpp, the subcommands run in src/commands.cpp.
#include "rzbench/codec_versions.hpp"
#include "rzbench/commands.hpp"
#include "rzbench/corpus.hpp"
#include "rzbench/fingerprint.hpp"
#include "rzbench/layer.hpp"
#include "rzbench/options.hpp"

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace rzbench;

namespace {

struct Runner {
   const char *name; // a subcommand of find_command()
   int (*run)(const Options &);
};

const Runner kRunners[] = {
   {"bench", run_bench}, {"ab", run_ab_command}, {"headroom", run_headroom_command}, {"verify", run_verify}, {"sizes", run_sizes}, {"digest", run_digest}, {"synth", run_synth},
};

int dispatch(const std::string &cmd, const std::vector<std::string> &args)
{
   if (const CommandSpec *spec = find_command(cmd))
      for (const auto &r : kRunners)
         if (cmd == r.name)
            return r.run(parse_options(*spec, args));
   // fingerprint and version take no options; extra words after them are ignored.
   if (cmd == "fingerprint") {
      std::cout << machine_fingerprint().dump(2) << "\n";
      return 0;
   }
   if (cmd == "version") {
      const nlohmann::json v = {{"tool", "rzbench"}, {"version", "0.1.0"}, {"backend", backend_name()},
                                {"libraries", library_versions()}, {"codecs", codec_info()}};
      std::cout << v.dump(2) << "\n";
      return 0;
   }
   if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      std::cout << kUsage;
      return 0;
   }
   throw UsageError("unknown command '" + cmd + "'");
}

} // namespace

int main(int argc, char **argv)
{
   if (argc < 2) {
      std::cerr << kUsage;
      return 2;
   }
   try {
      return dispatch(argv[1], std::vector<std::string>(argv + 2, argv + argc));
   } catch (const UsageError &e) {
      std::cerr << "rzbench: " << e.what() << "\n" << kUsage;
      return 2;
   } catch (const LayerError &e) {
      std::cerr << "rzbench: " << e.what() << "\n";
      return 2;
   } catch (const CorpusError &e) {
      std::cerr << "rzbench: bad corpus: " << e.what() << "\n";
      return 2;
   } catch (const std::exception &e) {
      std::cerr << "rzbench: error: " << e.what() << "\n";
      return 2;
   }
}
