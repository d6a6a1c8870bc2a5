#include "rzbench/interference.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sys/resource.h>

namespace rzbench {

namespace {

double clock_seconds(clockid_t id)
{
   timespec ts{};
   clock_gettime(id, &ts);
   return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The aggregate "cpu" line's 8th value (steal), read with stdio: no allocation in the hot path
// of std::ifstream, and a missing or short line is "not readable".
long long read_steal()
{
   FILE *f = std::fopen("/proc/stat", "r");
   if (f == nullptr)
      return -1;
   unsigned long long v[8] = {};
   const int n = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                             &v[5], &v[6], &v[7]);
   std::fclose(f);
   return n == 8 ? static_cast<long long>(v[7]) : -1;
}

double median_of(std::vector<double> v)
{
   if (v.empty())
      return 0;
   std::sort(v.begin(), v.end());
   const size_t n = v.size();
   return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

Probe probe_now()
{
   Probe p;
   p.steal = read_steal();
   rusage ru{};
   if (getrusage(RUSAGE_THREAD, &ru) == 0)
      p.nivcsw = ru.ru_nivcsw;
   // the clocks last, right before the timed work
   p.cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
   p.wall = clock_seconds(CLOCK_MONOTONIC);
   return p;
}

Repetition since(const Probe &start)
{
   Repetition r;
   // the clocks first, right after the timed work
   r.wall_s = clock_seconds(CLOCK_MONOTONIC) - start.wall;
   r.cpu_s = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - start.cpu;
   rusage ru{};
   if (getrusage(RUSAGE_THREAD, &ru) == 0)
      r.nivcsw = ru.ru_nivcsw - start.nivcsw;
   const long long steal = read_steal();
   r.steal_ticks = start.steal >= 0 && steal >= 0 ? steal - start.steal : -1;
   return r;
}

std::vector<std::string> disturbed_reasons(const Repetition &r, const InterferenceLimits &l)
{
   std::vector<std::string> out;
   char buf[128];
   if (r.cpu_wall() < l.min_cpu_wall) {
      std::snprintf(buf, sizeof buf, "cpu/wall %.3f < %.3g", r.cpu_wall(), l.min_cpu_wall);
      out.emplace_back(buf);
   }
   if (r.nivcsw > l.max_involuntary) {
      std::snprintf(buf, sizeof buf, "%ld involuntary switches > %ld", r.nivcsw, l.max_involuntary);
      out.emplace_back(buf);
   }
   if (r.steal_ticks > l.max_steal_ticks) {
      std::snprintf(buf, sizeof buf, "steal %lld ticks > %lld", r.steal_ticks, l.max_steal_ticks);
      out.emplace_back(buf);
   }
   return out;
}

nlohmann::json repetition_json(const Repetition &r)
{
   return {{"wall_s", r.wall_s},
           {"cpu_s", r.cpu_s},
           {"involuntary_switches", r.nivcsw},
           {"steal_ticks", r.steal_ticks >= 0 ? nlohmann::json(r.steal_ticks) : nlohmann::json(nullptr)}};
}

nlohmann::json interference_summary(const std::vector<Repetition> &reps, const InterferenceLimits &l)
{
   size_t disturbed = 0;
   std::vector<double> cw, sw;
   long max_sw = 0;
   long long steal = 0;
   bool steal_known = !reps.empty();
   for (const auto &r : reps) {
      if (!disturbed_reasons(r, l).empty())
         ++disturbed;
      cw.push_back(r.cpu_wall());
      sw.push_back(static_cast<double>(r.nivcsw));
      max_sw = std::max(max_sw, r.nivcsw);
      if (r.steal_ticks < 0)
         steal_known = false;
      else
         steal += r.steal_ticks;
   }
   const double n = static_cast<double>(reps.size());
   return {{"repetitions", reps.size()},
           {"disturbed_repetitions", disturbed},
           {"disturbed_fraction", reps.empty() ? 0.0 : static_cast<double>(disturbed) / n},
           {"cpu_wall", {{"min", cw.empty() ? 0.0 : *std::min_element(cw.begin(), cw.end())}, {"median", median_of(cw)}}},
           {"involuntary_switches", {{"median", median_of(sw)}, {"max", max_sw}}},
           {"steal_ticks", steal_known ? nlohmann::json(steal) : nlohmann::json(nullptr)},
           {"limits", {{"min_cpu_wall", l.min_cpu_wall}, {"max_involuntary", l.max_involuntary}, {"max_steal_ticks", l.max_steal_ticks}}}};
}

} // namespace rzbench
