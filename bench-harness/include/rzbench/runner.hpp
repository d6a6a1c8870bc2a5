// Runs the cartesian product of the dimensions over each dataset: builds a Trial per
// configuration, validates its round trip, times all of a dataset's configurations
// interleaved, and turns samples into results.
#pragma once
#include "rzbench/dataset.hpp"
#include "rzbench/engine.hpp"
#include "rzbench/experiment.hpp"
#include "rzbench/stats.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rzbench {

struct RunOptions {
   std::vector<int> settings{101, 404, 505};
   std::vector<Preconditioner> preconditioners{Preconditioner::kNone};
   std::vector<size_t> dictionary_sizes{0};
   std::vector<size_t> basket_sizes{0};
   std::vector<Mode> modes{Mode::kBasket};
   std::vector<int> threads{1};
   EngineParams engine;
   bool memcpy_baseline = true;
   bool progress = false;
   // Count instead of time (under valgrind --tool=callgrind): one counted compress and one
   // counted decompress pass per configuration, labelled "rzbench-count:<result index>:compress"
   // (or decompress); the results carry no speeds.
   bool count = false;
};

struct Result {
   std::string dataset;
   Config config;
   std::string codec;
   uint64_t uncompressed_bytes = 0;
   uint64_t compressed_bytes = 0;
   std::optional<Stats> compress;
   std::optional<Stats> decompress;
   std::optional<double> dictionary_train_ms;
   std::optional<std::string> error; // set iff the result failed
};

// The configurations for one dataset, invalid combinations removed (dictionary only with ZSTD
// levels >= 1); the memcpy baseline first when requested.
std::vector<Config> expand_configs(const RunOptions &o);

// Each timed sample's interference is appended to *interference when given.
std::vector<Result> run_benchmarks(const std::vector<Dataset> &datasets, const RunOptions &o,
                                   std::vector<Repetition> *interference = nullptr);

} // namespace rzbench
