#include "rzbench/ab.hpp"

#include "rzbench/codecs.hpp"
#include "rzbench/counting.hpp"
#include "rzbench/experiment.hpp"
#include "rzbench/prng.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

namespace rzbench {

using nlohmann::json;

const char *ab_clock_name(AbClock c)
{
   return c == AbClock::kWall ? "wall" : "cpu";
}

double pair_ratio(const PairSample &p, AbClock clock)
{
   const double ta = clock == AbClock::kWall ? p.a.wall_s : p.a.cpu_s;
   const double tb = clock == AbClock::kWall ? p.b.wall_s : p.b.cpu_s;
   return tb > 0 ? ta / tb : 0;
}

bool pair_disturbed(const PairSample &p, const InterferenceLimits &l)
{
   return !disturbed_reasons(p.a, l).empty() || !disturbed_reasons(p.b, l).empty();
}

double binomial_half_cdf(size_t n, size_t k)
{
   if (k >= n)
      return 1.0;
   // sum_{i <= k} C(n, i) / 2^n in logs (n may be in the thousands)
   double total = 0;
   const double ln2n = static_cast<double>(n) * std::log(2.0);
   for (size_t i = 0; i <= k; ++i) {
      const double lc = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
                        std::lgamma(static_cast<double>(n - i) + 1);
      total += std::exp(lc - ln2n);
   }
   return std::min(total, 1.0);
}

MedianRanks median_ci_ranks(size_t n, double confidence)
{
   MedianRanks r;
   if (n == 0)
      return r;
   r.lo = 1;
   r.hi = n;
   r.coverage = 1 - 2 * binomial_half_cdf(n, 0);
   for (size_t lo = 2; 2 * lo <= n + 1; ++lo) {
      const double cov = 1 - 2 * binomial_half_cdf(n, lo - 1);
      if (cov < confidence)
         break;
      r.lo = lo;
      r.hi = n + 1 - lo;
      r.coverage = cov;
   }
   return r;
}

RatioSummary summarize_pairs(const std::vector<PairSample> &pairs, const AbParams &params)
{
   RatioSummary s;
   for (const auto &p : pairs) {
      if (pair_disturbed(p, params.limits)) {
         ++s.disturbed_pairs;
         continue;
      }
      s.samples.push_back(pair_ratio(p, params.clock));
   }
   s.pairs = s.samples.size();
   if (s.samples.empty())
      return s;
   std::vector<double> v = s.samples;
   std::sort(v.begin(), v.end());
   const size_t n = v.size();
   s.ratio = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
   const MedianRanks r = median_ci_ranks(n, params.confidence);
   s.ci_low = v[r.lo - 1];
   s.ci_high = v[r.hi - 1];
   s.coverage = r.coverage;
   return s;
}

json ratio_summary_json(const RatioSummary &s)
{
   const bool any = s.pairs > 0;
   return {{"ratio", any ? json(s.ratio) : json(nullptr)},
           {"ci_low", any ? json(s.ci_low) : json(nullptr)},
           {"ci_high", any ? json(s.ci_high) : json(nullptr)},
           {"coverage", any ? json(s.coverage) : json(nullptr)},
           {"pairs", s.pairs},
           {"disturbed_pairs", s.disturbed_pairs},
           {"samples", s.samples}};
}

namespace {

Repetition timed(Trial &t, bool compress, int loops)
{
   const Probe start = probe_now();
   for (int i = 0; i < loops; ++i) {
      if (compress)
         t.compress_pass();
      else
         t.decompress_pass();
   }
   return since(start);
}

// Passes per repetition so that one lasts about target_ms of the measuring clock on the slower
// side (the same count for both, so the two sides do exactly the same work).
int calibrate(Trial &a, Trial &b, bool compress, double target_ms, AbClock clock)
{
   double once = 0;
   for (Trial *t : {&a, &b}) {
      timed(*t, compress, 1); // warm-up
      const Repetition r = timed(*t, compress, 1);
      once = std::max(once, clock == AbClock::kWall ? r.wall_s : r.cpu_s);
   }
   if (target_ms <= 0 || once * 1e3 >= target_ms)
      return 1;
   return static_cast<int>(std::min(std::ceil(target_ms / 1e3 / std::max(once, 1e-9)), 1e6));
}

json pair_json(const PairSample &p, const AbParams &params)
{
   std::vector<std::string> reasons;
   for (const auto &[side, rep] : {std::pair<const char *, const Repetition *>{"a", &p.a}, {"b", &p.b}})
      for (const auto &why : disturbed_reasons(*rep, params.limits))
         reasons.push_back(std::string(side) + ": " + why);
   return {{"first", p.a_first ? "a" : "b"},
           {"a", repetition_json(p.a)},
           {"b", repetition_json(p.b)},
           {"ratio", pair_ratio(p, params.clock)},
           {"disturbed", !reasons.empty()},
           {"reasons", reasons}};
}

struct Direction {
   int loops = 1;
   std::vector<PairSample> pairs;
};

json direction_json(const Direction &d, const AbParams &params)
{
   json pairs = json::array();
   for (const auto &p : d.pairs)
      pairs.push_back(pair_json(p, params));
   return {{"loops", d.loops}, {"summary", ratio_summary_json(summarize_pairs(d.pairs, params))}, {"pairs", pairs}};
}

} // namespace

json run_ab(const std::vector<Dataset> &datasets, const std::vector<int> &settings, const AbSide &a, const AbSide &b,
            const AbParams &params, const AbProgress &progress, const std::vector<std::pair<int, int>> &b_codecs)
{
   if (!b_codecs.empty() && b_codecs.size() != settings.size())
      throw std::invalid_argument("b_codecs must name one codec per setting");
   Xoshiro256 rng(params.seed);
   json results = json::array();
   std::vector<Repetition> all_reps;
   const size_t per = params.count ? 1 : static_cast<size_t>(params.pairs);
   const size_t total = datasets.size() * settings.size() * per;
   size_t done = 0;
   for (const Dataset &d : datasets) {
      for (size_t si = 0; si < settings.size(); ++si) {
         const int setting = settings[si];
         Config c;
         c.setting = setting;
         Config cb = c;
         const bool own_b = !b_codecs.empty();
         json r = {{"dataset", d.name}, {"setting", setting}, {"codec", codec_name(setting)}, {"error", nullptr}};
         if (own_b) {
            cb.setting = b_codecs[si].first * 100;
            cb.level = b_codecs[si].second;
            r["b_codec"] = {{"algorithm", b_codecs[si].first}, {"level", b_codecs[si].second}};
         }
         std::unique_ptr<Trial> ta, tb;
         std::optional<std::string> error;
         try {
            ta = std::make_unique<Trial>(d, c, a.layer->api());
            tb = std::make_unique<Trial>(d, cb, b.layer->api());
         } catch (const std::exception &e) {
            error = e.what();
         }
         json roundtrip = {{"a", false}, {"b", false}, {"b_reads_a", false}, {"a_reads_b", false}};
         if (!error) {
            // Validation: each side's own round trip, then each side reads the other's output.
            for (Trial *t : {ta.get(), tb.get()}) {
               t->compress_pass();
               t->decompress_pass();
            }
            const auto ea = ta->check(), eb = tb->check();
            const auto ba = tb->check_decodes(*ta), ab = ta->check_decodes(*tb);
            roundtrip = {{"a", !ea}, {"b", !eb}, {"b_reads_a", !ba}, {"a_reads_b", !ab}};
            if (ea)
               error = "side a: " + *ea;
            else if (eb)
               error = "side b: " + *eb;
            else if (ba && !own_b)
               error = "side b cannot read side a's output: " + *ba;
            else if (ab && !own_b)
               error = "side a cannot read side b's output: " + *ab;
            r["uncompressed_bytes"] = ta->uncompressed_bytes();
            r["compressed_bytes"] = {{"a", ta->compressed_bytes()}, {"b", tb->compressed_bytes()}};
            r["identical_output"] = ta->same_output(*tb);
         }
         r["roundtrip"] = roundtrip;
         if (error) {
            r["error"] = *error;
            results.push_back(r);
            done += per;
            if (progress)
               progress(done, total);
            continue;
         }
         if (params.count) {
            // One pass of each side per direction, instrumented alone (the validation above
            // warmed both up); every decoded byte is checked after, outside the counted regions.
            const size_t index = results.size();
            for (Trial *t : {ta.get(), tb.get()}) {
               const std::string side = t == ta.get() ? "a" : "b";
               const std::string label = "rzbench-ab:" + std::to_string(index) + ":" + side + ":";
               counted_region(label + "compress", [&] { t->compress_pass(); });
               counted_region(label + "decompress", [&] { t->decompress_pass(); });
               if (auto e = t->check(); e && !error)
                  error = "side " + side + ": " + *e;
            }
            if (error) {
               r["error"] = *error;
               r["roundtrip"] = {{"a", false}, {"b", false}, {"b_reads_a", roundtrip["b_reads_a"]},
                                 {"a_reads_b", roundtrip["a_reads_b"]}};
            }
            r["counted"] = true;
            results.push_back(r);
            ++done;
            if (progress)
               progress(done, total);
            continue;
         }
         Direction comp, decomp;
         comp.loops = calibrate(*ta, *tb, true, params.target_ms, params.clock);
         decomp.loops = calibrate(*ta, *tb, false, params.target_ms, params.clock);
         for (int i = 0; i < params.pairs && !error; ++i) {
            // Fresh buffers for both sides, in random order, before every pair (see relocate).
            if ((rng.next() >> 63) == 0) {
               ta->relocate();
               tb->relocate();
            } else {
               tb->relocate();
               ta->relocate();
            }
            for (Direction *dir : {&comp, &decomp}) {
               const bool compress = dir == &comp;
               PairSample p;
               p.a_first = (rng.next() >> 63) == 0;
               if (p.a_first) {
                  p.a = timed(*ta, compress, dir->loops);
                  p.b = timed(*tb, compress, dir->loops);
               } else {
                  p.b = timed(*tb, compress, dir->loops);
                  p.a = timed(*ta, compress, dir->loops);
               }
               dir->pairs.push_back(p);
               all_reps.push_back(p.a);
               all_reps.push_back(p.b);
               if (!compress) { // every decompressed byte is checked, outside the timed region, in
                                // the pair's order so that neither side's output is always the
                                // last one read (and so the warmer one in the caches)
                  Trial *order[2] = {ta.get(), tb.get()};
                  if (!p.a_first)
                     std::swap(order[0], order[1]);
                  for (Trial *t : order)
                     if (auto e = t->check(); e && !error)
                        error = std::string(t == ta.get() ? "side a: " : "side b: ") + *e;
               }
            }
            ++done;
            if (progress)
               progress(done, total);
         }
         if (error) {
            r["error"] = *error;
            r["roundtrip"] = {{"a", false}, {"b", false}, {"b_reads_a", roundtrip["b_reads_a"]},
                              {"a_reads_b", roundtrip["a_reads_b"]}};
         }
         r["compress"] = direction_json(comp, params);
         r["decompress"] = direction_json(decomp, params);
         results.push_back(r);
      }
   }
   return {{"results", results}, {"interference", interference_summary(all_reps, params.limits)}};
}

} // namespace rzbench
