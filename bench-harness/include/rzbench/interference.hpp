// Interference measured from the run itself: per timed repetition, the measuring thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID) against wall time, its involuntary context switches (getrusage
// RUSAGE_THREAD ru_nivcsw) and the machine's CPU steal (/proc/stat, where readable). A repetition
// whose thread did not have the CPU to itself is "disturbed" (limits below, docs/perf/ab.md).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rzbench {

struct Probe {
   double wall = 0, cpu = 0; // seconds: monotonic clock, this thread's CPU clock
   long nivcsw = 0;          // this thread's involuntary context switches so far
   long long steal = -1;     // /proc/stat "cpu" steal ticks (USER_HZ), -1 when not readable
};

Probe probe_now();

struct Repetition {
   double wall_s = 0, cpu_s = 0;
   long nivcsw = 0;
   long long steal_ticks = -1; // -1: not readable
   double cpu_wall() const { return wall_s > 0 ? cpu_s / wall_s : 0; }
};

// The repetition between `start` and now.
Repetition since(const Probe &start);

struct InterferenceLimits {
   // Chosen by measurement on this project's 2-core machine (docs/perf/ab.md). `ab` times on the
   // thread's CPU clock, so being switched out does not enter the ratio; the spread of
   // self-comparison pairs did not grow with load down to cpu/wall 0.1-0.2 (load ~12), nor with
   // up to ~190 involuntary switches or a tick of steal per 40 ms repetition. Beyond these limits
   // a repetition spent most of its time refilling caches after others ran, or we have no
   // evidence it is sound. A dedicated worker (load ~1: cpu/wall ~1, a few switches) is never
   // disturbed.
   double min_cpu_wall = 0.1;
   long max_involuntary = 250;
   long long max_steal_ticks = 2; // machine-wide /proc/stat steal ticks (USER_HZ) during the repetition
};

// Why a repetition counts as disturbed (empty: it does not).
std::vector<std::string> disturbed_reasons(const Repetition &r, const InterferenceLimits &l);

// {"repetitions", "disturbed_repetitions", "disturbed_fraction", "cpu_wall": {"min", "median"},
//  "involuntary_switches": {"median", "max"}, "steal_ticks": total or null, "limits": {...}}
nlohmann::json interference_summary(const std::vector<Repetition> &reps, const InterferenceLimits &l);
nlohmann::json repetition_json(const Repetition &r);

} // namespace rzbench
