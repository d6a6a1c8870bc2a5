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
   // `ab`'s limits, chosen by measurement on this project's 2-core machine (docs/perf/ab.md).
   // `ab` times on the thread's CPU clock, so time switched out does not enter the ratio: with
   // the thread holding 3-8 % of a core (load 21-25) the ratios of 6.38 -> 6.40 and of a layer
   // against itself matched those at cpu/wall 0.3, and their spread did not grow with up to ~190
   // involuntary switches or a tick of steal per 40 ms repetition. The limits sit beyond what was
   // measured sound: below them there is no evidence the CPU clock still holds. A dedicated
   // worker (cpu/wall ~1, a few switches) is never disturbed.
   double min_cpu_wall = 0.02;
   long max_involuntary = 250;
   long long max_steal_ticks = 2; // machine-wide /proc/stat steal ticks (USER_HZ) during the repetition
};

// `bench` measures wall time, so there a repetition is disturbed as soon as its thread lost the
// CPU for more than a tenth of it (a dedicated worker at load ~1 keeps cpu/wall >= 0.97); 50
// switches per ~100 ms sample or 3 ticks of steal are the secondary limits.
constexpr InterferenceLimits kWallClockLimits{0.9, 50, 2};

// Why a repetition counts as disturbed (empty: it does not).
std::vector<std::string> disturbed_reasons(const Repetition &r, const InterferenceLimits &l);

// {"repetitions", "disturbed_repetitions", "disturbed_fraction", "cpu_wall": {"min", "median"},
//  "involuntary_switches": {"median", "max"}, "steal_ticks": total or null, "limits": {...}}
nlohmann::json interference_summary(const std::vector<Repetition> &reps, const InterferenceLimits &l);
nlohmann::json repetition_json(const Repetition &r);

} // namespace rzbench
