#include "rzbench/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace rzbench {

double now_seconds()
{
   using clock = std::chrono::steady_clock;
   return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

namespace {

double time_loops(const TimedOp &op, int loops)
{
   const double t0 = now_seconds();
   for (int i = 0; i < loops; ++i)
      op.run();
   return now_seconds() - t0;
}

// Passes per sample so that a sample lasts about target_ms (after one warm-up pass).
int calibrate(const TimedOp &op, double target_ms)
{
   op.run(); // warm-up: caches, page faults, lazy library initialisation
   if (target_ms <= 0)
      return 1;
   const double once = time_loops(op, 1);
   const double want = target_ms / 1000.0;
   if (once >= want)
      return 1;
   const double loops = std::ceil(want / std::max(once, 1e-9));
   return static_cast<int>(std::min(loops, 1e6));
}

} // namespace

EngineResult run_interleaved(const std::vector<TimedOp> &ops, const EngineParams &params, const AfterSample &after)
{
   EngineResult res;
   res.mbps.resize(ops.size());
   res.loops.resize(ops.size(), 1);
   std::vector<bool> alive(ops.size(), true);
   for (size_t i = 0; i < ops.size(); ++i) {
      res.loops[i] = calibrate(ops[i], params.target_ms);
      if (after && !after(i))
         alive[i] = false;
   }
   for (int round = 0; round < params.min_samples; ++round) {
      for (size_t i = 0; i < ops.size(); ++i) {
         if (!alive[i])
            continue;
         const Probe start = probe_now();
         time_loops(ops[i], res.loops[i]);
         const Repetition rep = since(start);
         res.interference.push_back(rep);
         const double secs = rep.wall_s; // the engine measures wall time (MB/s as a user sees it)
         const double bytes = static_cast<double>(ops[i].bytes) * res.loops[i];
         res.mbps[i].push_back(secs > 0 ? bytes / secs / 1e6 : 0.0);
         if (after && !after(i))
            alive[i] = false;
      }
   }
   return res;
}

} // namespace rzbench
