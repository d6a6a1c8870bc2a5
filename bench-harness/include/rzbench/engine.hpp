// The timing engine (zstd benchfn style): it runs opaque operations and knows nothing about
// codecs. Each operation is calibrated so one sample lasts about target_ms; samples of all
// operations are taken round-robin (interleaved), so slow drifts hit every operation alike.
#pragma once
#include "rzbench/interference.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rzbench {

struct TimedOp {
   std::function<void()> run; // one pass over the whole dataset
   uint64_t bytes = 0;        // bytes a pass counts (uncompressed), for MB/s
};

struct EngineParams {
   int min_samples = 9;
   double target_ms = 100.0;
};

// Called after every sample of op i, outside the timed region; returning false drops the op
// (e.g. its round-trip check failed) from the remaining rounds.
using AfterSample = std::function<bool(size_t op)>;

struct EngineResult {
   std::vector<std::vector<double>> mbps; // per op: one MB/s (1e6 bytes/s) value per sample
   std::vector<int> loops;                // passes per sample, per op
   std::vector<Repetition> interference;  // every timed sample's interference, in order
};

EngineResult run_interleaved(const std::vector<TimedOp> &ops, const EngineParams &params, const AfterSample &after);

double now_seconds(); // monotonic clock
} // namespace rzbench
