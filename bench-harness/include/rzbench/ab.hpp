// `rzbench ab`: two compression layers in one process, measured interleaved (issue 32). For each
// (dataset, setting, direction) short repetitions of the same work alternate between the layers,
// in pairs whose order (A B or B A) is drawn at random; each pair gives one speed ratio B/A, and
// pairs with a disturbed repetition (interference.hpp) are dropped from the median and its
// interval and counted. docs/RZBENCH_CLI.md and docs/perf/ab.md describe the document.
#pragma once
#include "rzbench/dataset.hpp"
#include "rzbench/interference.hpp"
#include "rzbench/layer.hpp"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace rzbench {

enum class AbClock { kCpu, kWall };
const char *ab_clock_name(AbClock c);

struct AbParams {
   int pairs = 31;          // per (dataset, setting, direction)
   double target_ms = 40.0; // one repetition (both sides run the same number of passes)
   uint64_t seed = 1;       // of the per-pair order
   AbClock clock = AbClock::kCpu;
   InterferenceLimits limits;
   double confidence = 0.95;
   // Count instead of time (under valgrind --tool=callgrind --instr-atstart=no): one counted
   // pass per side and direction, labelled "rzbench-ab:<result index>:<a|b>:<compress|decompress>".
   bool count = false;
};

// ---- pure statistics (unit-tested) ------------------------------------------------------------

struct PairSample {
   bool a_first = true;
   Repetition a, b;
};

// Speed of B over A for the same work: time of A / time of B on the chosen clock.
double pair_ratio(const PairSample &p, AbClock clock);
bool pair_disturbed(const PairSample &p, const InterferenceLimits &l);

// P(X <= k) for X ~ Binomial(n, 1/2).
double binomial_half_cdf(size_t n, size_t k);

// The distribution-free confidence interval of a median from order statistics: 1-based ranks
// (lo, hi = n + 1 - lo) of the sorted sample, the largest lo whose coverage
// 1 - 2 P(X <= lo - 1), X ~ Bin(n, 1/2), is still >= confidence; with too few values for that
// the whole range (lo = 1) and its lower coverage. Returns {lo, hi, coverage}; n == 0 gives {0, 0, 0}.
struct MedianRanks {
   size_t lo = 0, hi = 0;
   double coverage = 0;
};
MedianRanks median_ci_ranks(size_t n, double confidence);

struct RatioSummary {
   double ratio = 0, ci_low = 0, ci_high = 0, coverage = 0;
   size_t pairs = 0, disturbed_pairs = 0; // pairs kept, pairs dropped
   std::vector<double> samples;           // the kept pairs' ratios, in measurement order
};
RatioSummary summarize_pairs(const std::vector<PairSample> &pairs, const AbParams &params);

nlohmann::json ratio_summary_json(const RatioSummary &s);

// ---- the measurement --------------------------------------------------------------------------

struct AbSide {
   std::string spec; // "host" or the layer's path, as given
   const Layer *layer = nullptr;
};

using AbProgress = std::function<void(size_t done, size_t total)>;

// {"results": [...], "interference": {...}} for every dataset x setting (see docs/RZBENCH_CLI.md).
// `b_codecs` (empty, or one per setting): the (algorithm, level) side B runs instead of the
// setting, its level handed to B's layer unchanged (a candidate layer's native level). Then the
// two sides write different formats: each side's own round trip must hold, the cross-reads
// (whether A, e.g. ROOT, reads B's output) are recorded and are not errors.
nlohmann::json run_ab(const std::vector<Dataset> &datasets, const std::vector<int> &settings, const AbSide &a,
                      const AbSide &b, const AbParams &params, const AbProgress &progress = nullptr,
                      const std::vector<std::pair<int, int>> &b_codecs = {});

} // namespace rzbench
