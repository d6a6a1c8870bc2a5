// `rzbench headroom` (headroom.hpp): ROOT's framed path against the bare library on the same
// buffers, interleaved in one process; or, with --count under callgrind, the instructions of one
// pass of each path. docs/RZBENCH_CLI.md describes the document, docs/perf/headroom.md the method.
#include "rzbench/headroom.hpp"

#include "rzbench/codecs.hpp"
#include "rzbench/counting.hpp"
#include "rzbench/framing.hpp"
#include "rzbench/prng.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <sys/resource.h>
#include <xxhash.h>

namespace rzbench {

using nlohmann::json;

namespace {

constexpr size_t kMinFramedInput = 1 + kRootHeaderSize + 1; // RZip.h refuses (stores) anything smaller

enum PathId { kFramed = 0, kFresh = 1, kReused = 2 };
constexpr std::array<const char *, 3> kPathNames = {"framed", "bare_fresh", "bare_reused"};

struct Unit {
   const uint8_t *src;
   size_t n;
   size_t slot; // offset of its slot (n bytes) in every arena
};

// One way of doing the work: its compressed and decompressed arenas, and what it wrote.
struct Path {
   std::unique_ptr<BareCodec> bare; // null: the framed path through the layer
   Bytes comp, out;
   std::vector<size_t> sizes; // per unit, after the last compress pass (0: did not fit)
   size_t failures = 0;       // decode failures in the last decompress pass
};

class Workload {
public:
   Workload(const Dataset &d, int setting, const ZipApi &api) : setting_(setting), api_(api)
   {
      for (const Basket &b : d.baskets)
         for (size_t off = 0; off < b.raw.size(); off += kRootMaxBlock) {
            const size_t n = std::min(kRootMaxBlock, b.raw.size() - off);
            if (n < kMinFramedInput) {
               ++tiny_;
               continue;
            }
            units_.push_back({b.raw.data() + off, n, total_});
            total_ += n;
         }
      paths_[kFramed].bare = nullptr;
      paths_[kFresh].bare = make_bare_codec(setting, false);
      paths_[kReused].bare = make_bare_codec(setting, true);
      for (Path &p : paths_) {
         p.comp.assign(total_, 0);
         p.out.assign(total_, 0);
         p.sizes.assign(units_.size(), 0);
      }
   }

   void compress_pass(PathId id)
   {
      Path &p = paths_[id];
      const size_t poff = framed_payload_offset(setting_);
      for (size_t i = 0; i < units_.size(); ++i) {
         const Unit &u = units_[i];
         uint8_t *dst = p.comp.data() + u.slot;
         if (id == kFramed) {
            // TBasket's call: the target is as large as the source, so a block that does not
            // shrink fails and is stored.
            int srcsize = static_cast<int>(u.n), tgtsize = static_cast<int>(u.n), irep = 0;
            api_.zip(setting_ % 100, &srcsize, const_cast<char *>(reinterpret_cast<const char *>(u.src)), &tgtsize,
                     reinterpret_cast<char *>(dst), &irep, setting_ / 100);
            p.sizes[i] = irep > 0 ? static_cast<size_t>(irep) : 0;
         } else {
            p.sizes[i] = u.n > poff ? p.bare->compress(u.src, u.n, dst, u.n - poff) : 0;
         }
      }
   }

   // Decodes the units ROOT's framing compressed (the others are stored by ROOT: no decoding).
   void decompress_pass(PathId id)
   {
      Path &p = paths_[id];
      const std::vector<size_t> &framed = paths_[kFramed].sizes;
      p.failures = 0;
      for (size_t i = 0; i < units_.size(); ++i) {
         if (framed[i] == 0)
            continue;
         const Unit &u = units_[i];
         uint8_t *src = p.comp.data() + u.slot, *dst = p.out.data() + u.slot;
         if (id == kFramed) {
            int srcsize = static_cast<int>(p.sizes[i]), tgtsize = static_cast<int>(u.n), irep = 0;
            api_.unzip(&srcsize, src, &tgtsize, dst, &irep);
            p.failures += static_cast<size_t>(irep) != u.n;
         } else {
            p.failures += !p.bare->decompress(src, p.sizes[i], dst, u.n);
         }
      }
   }

   // XXH64 of every LZ4 payload, as ROOT's framing computes on both sides (count mode).
   uint64_t checksum_pass() const
   {
      uint64_t acc = 0;
      const Path &f = paths_[kFramed];
      const size_t poff = framed_payload_offset(setting_);
      for (size_t i = 0; i < units_.size(); ++i)
         if (f.sizes[i] > poff)
            acc ^= XXH64(f.comp.data() + units_[i].slot + poff, f.sizes[i] - poff, 0);
      return acc;
   }

   // Byte-exact check of the last decompress pass of a path; message on failure.
   std::optional<std::string> check(PathId id) const
   {
      const Path &p = paths_[id];
      if (p.failures > 0)
         return std::string(kPathNames[id]) + ": " + std::to_string(p.failures) + " unit(s) failed to decode";
      for (size_t i = 0; i < units_.size(); ++i)
         if (paths_[kFramed].sizes[i] > 0 && std::memcmp(p.out.data() + units_[i].slot, units_[i].src, units_[i].n) != 0)
            return std::string(kPathNames[id]) + ": unit " + std::to_string(i) + " decoded to different bytes";
      return std::nullopt;
   }

   // Every block the framed path wrote carries the setting's algorithm ("ZL", "XZ", "L4", "ZS"):
   // a layer that does not implement an algorithm falls back to another (old ROOT writes ZLIB
   // for anything it does not know), and then no bare call of this setting does the same work.
   std::optional<std::string> check_framed_algorithm() const
   {
      static const char *const kMagic[6] = {nullptr, "ZL", "XZ", nullptr, "L4", "ZS"};
      const int alg = setting_ / 100;
      const char *want = alg >= 0 && alg < 6 ? kMagic[alg] : nullptr;
      const Path &f = paths_[kFramed];
      for (size_t i = 0; i < units_.size() && want != nullptr; ++i) {
         if (f.sizes[i] < kRootHeaderSize)
            continue;
         const uint8_t *h = f.comp.data() + units_[i].slot;
         if (h[0] != want[0] || h[1] != want[1])
            return "the framed layer wrote a '" + std::string(1, static_cast<char>(h[0])) +
                   std::string(1, static_cast<char>(h[1])) + "' block for setting " + std::to_string(setting_) +
                   " (expected '" + want + "'): it does not implement this algorithm";
      }
      return std::nullopt;
   }

   // The bare decoder reads ROOT's own payload (what ROOT wrote, not only what it wrote itself).
   std::optional<std::string> check_reads_framed(PathId id)
   {
      const Path &f = paths_[kFramed];
      const size_t poff = framed_payload_offset(setting_);
      Bytes scratch;
      for (size_t i = 0; i < units_.size(); ++i) {
         if (f.sizes[i] == 0)
            continue;
         const Unit &u = units_[i];
         scratch.assign(u.n, 0);
         if (f.sizes[i] <= poff || !paths_[id].bare->decompress(f.comp.data() + u.slot + poff, f.sizes[i] - poff,
                                                                  scratch.data(), u.n) ||
             std::memcmp(scratch.data(), u.src, u.n) != 0)
            return std::string(kPathNames[id]) + " cannot decode ROOT's payload of unit " + std::to_string(i);
      }
      return std::nullopt;
   }

   // Per bare path: {"units": compared, "identical": units whose bare output is byte-identical
   // to the payload inside ROOT's block, "stored_disagree": units only one side could compress}.
   json payload_comparison(PathId id) const
   {
      const Path &f = paths_[kFramed], &b = paths_[id];
      const size_t poff = framed_payload_offset(setting_);
      size_t compared = 0, identical = 0, disagree = 0;
      for (size_t i = 0; i < units_.size(); ++i) {
         if ((f.sizes[i] > 0) != (b.sizes[i] > 0)) {
            ++disagree;
            continue;
         }
         if (f.sizes[i] == 0)
            continue;
         ++compared;
         identical += f.sizes[i] == b.sizes[i] + poff &&
                      std::memcmp(f.comp.data() + units_[i].slot + poff, b.comp.data() + units_[i].slot, b.sizes[i]) == 0;
      }
      return {{"units", compared}, {"identical", identical}, {"stored_disagree", disagree}};
   }

   // Fresh memory for every arena, contents kept, in random order (see Trial::relocate).
   void relocate(Xoshiro256 &rng)
   {
      std::array<int, 3> order = {0, 1, 2};
      shuffle(order, rng);
      for (int id : order) {
         Path &p = paths_[id];
         Bytes c(p.comp), o(p.out);
         p.comp.swap(c);
         p.out.swap(o);
      }
   }

   static void shuffle(std::array<int, 3> &a, Xoshiro256 &rng)
   {
      for (size_t i = a.size() - 1; i > 0; --i)
         std::swap(a[i], a[rng.below(i + 1)]);
   }

   const Path &path(PathId id) const { return paths_[id]; }
   BareCodec &bare(PathId id) { return *paths_[id].bare; }
   size_t units() const { return units_.size(); }
   size_t tiny_units() const { return tiny_; }
   uint64_t bytes() const { return total_; }
   uint64_t decoded_bytes() const
   {
      uint64_t s = 0;
      for (size_t i = 0; i < units_.size(); ++i)
         s += paths_[kFramed].sizes[i] > 0 ? units_[i].n : 0;
      return s;
   }
   uint64_t compressed(PathId id) const
   {
      uint64_t s = 0;
      for (size_t v : paths_[id].sizes)
         s += v;
      return s;
   }
   size_t compressed_units() const
   {
      return static_cast<size_t>(std::count_if(paths_[kFramed].sizes.begin(), paths_[kFramed].sizes.end(),
                                               [](size_t v) { return v > 0; }));
   }

private:
   int setting_;
   ZipApi api_;
   std::vector<Unit> units_;
   size_t tiny_ = 0;
   uint64_t total_ = 0;
   std::array<Path, 3> paths_;
};

Repetition timed(Workload &w, PathId id, bool compress, int loops)
{
   const Probe start = probe_now();
   for (int i = 0; i < loops; ++i) {
      if (compress)
         w.compress_pass(id);
      else
         w.decompress_pass(id);
   }
   return since(start);
}

int calibrate(Workload &w, bool compress, const AbParams &p)
{
   double once = 0;
   for (PathId id : {kFramed, kFresh, kReused}) {
      timed(w, id, compress, 1);
      const Repetition r = timed(w, id, compress, 1);
      once = std::max(once, p.clock == AbClock::kWall ? r.wall_s : r.cpu_s);
   }
   if (p.target_ms <= 0 || once * 1e3 >= p.target_ms)
      return 1;
   return static_cast<int>(std::min(std::ceil(p.target_ms / 1e3 / std::max(once, 1e-9)), 1e6));
}

// Minor page faults of one pass: a fresh codec context is memory that glibc may map and unmap
// per buffer, paid in faults and system time that callgrind's user-space instruction counts do
// not see (docs/perf/headroom.md). They do not depend on the load.
long minor_faults_of_pass(Workload &w, PathId id, bool compress)
{
   rusage before{}, after{};
   getrusage(RUSAGE_THREAD, &before);
   if (compress)
      w.compress_pass(id);
   else
      w.decompress_pass(id);
   getrusage(RUSAGE_THREAD, &after);
   return after.ru_minflt - before.ru_minflt;
}

// One slot of a direction: the three paths' repetitions, in the order they ran.
struct Triple {
   std::array<int, 3> order;
   std::array<Repetition, 3> reps;
   size_t position(PathId id) const { return static_cast<size_t>(std::find(order.begin(), order.end(), id) - order.begin()); }
};

// The comparisons, each a pair list for ab's statistics: time of `a` / time of `b` (> 1: b faster).
struct Comparison {
   const char *name;
   PathId a, b;
};
constexpr std::array<Comparison, 3> kComparisons = {{
   {"headroom", kFramed, kReused}, // what ROOT leaves: framed against the library at its best
   {"framing", kFramed, kFresh},   // the frame itself: header, dispatch, checksum, copies
   {"context", kFresh, kReused},   // a fresh context per buffer against one reused
}};

json direction_json(int loops, const std::vector<Triple> &triples, const AbParams &params)
{
   json comparisons = json::object();
   for (const Comparison &c : kComparisons) {
      std::vector<PairSample> pairs;
      for (const Triple &t : triples)
         pairs.push_back({t.position(c.a) < t.position(c.b), t.reps[c.a], t.reps[c.b]});
      comparisons[c.name] = ratio_summary_json(summarize_pairs(pairs, params));
      comparisons[c.name]["a"] = kPathNames[c.a];
      comparisons[c.name]["b"] = kPathNames[c.b];
   }
   json slots = json::array();
   for (const Triple &t : triples) {
      json order = json::array(), reps = json::object();
      for (int id : t.order)
         order.push_back(kPathNames[id]);
      for (int id = 0; id < 3; ++id)
         reps[kPathNames[id]] = repetition_json(t.reps[id]);
      slots.push_back({{"order", order}, {"repetitions", reps}});
   }
   return {{"loops", loops}, {"comparisons", comparisons}, {"slots", slots}};
}

std::string count_label(size_t index, const char *path, const char *op)
{
   return "rzbench-headroom:" + std::to_string(index) + ":" + path + ":" + op;
}

} // namespace

std::optional<double> cpuid_cost_us()
{
#if defined(__x86_64__) || defined(__i386__)
   // Median of 31 batches of 64 cpuid(0) on the thread's CPU clock. zstd runs cpuid when it
   // creates a context (its BMI2 check); under a hypervisor each one is a VM exit.
   std::vector<double> batches;
   for (int b = 0; b < 31; ++b) {
      const Probe start = probe_now();
      for (int i = 0; i < 64; ++i) {
         unsigned eax = 0, ebx, ecx = 0, edx;
         __asm__ __volatile__("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
      }
      batches.push_back(since(start).cpu_s / 64 * 1e6);
   }
   std::sort(batches.begin(), batches.end());
   return batches[batches.size() / 2];
#else
   return std::nullopt;
#endif
}

json run_headroom(const std::vector<Dataset> &datasets, const std::vector<int> &settings, const ZipApi &api,
                  const HeadroomParams &params, const AbProgress &progress)
{
   const AbParams &ab = params.ab;
   Xoshiro256 rng(ab.seed);
   json results = json::array();
   std::vector<Repetition> all_reps;
   const size_t per = params.count ? 1 : static_cast<size_t>(ab.pairs);
   const size_t total = datasets.size() * settings.size() * per;
   size_t done = 0;
   for (const Dataset &d : datasets) {
      for (int setting : settings) {
         const size_t index = results.size();
         json r = {{"dataset", d.name}, {"setting", setting}, {"codec", codec_name(setting)}, {"error", nullptr}};
         std::unique_ptr<Workload> w;
         std::optional<std::string> error;
         try {
            w = std::make_unique<Workload>(d, setting, api);
         } catch (const std::exception &e) {
            error = e.what();
         }
         if (w && w->units() == 0)
            error = "no buffer of at least " + std::to_string(kMinFramedInput) + " bytes to compress";
         json roundtrip = {{"framed", false}, {"bare_fresh", false}, {"bare_reused", false}, {"bare_reads_framed", false}};
         if (!error) {
            for (PathId id : {kFramed, kFresh, kReused}) {
               w->compress_pass(id);
               w->decompress_pass(id);
            }
            const auto ea = w->check_framed_algorithm();
            const auto ef = w->check(kFramed), e1 = w->check(kFresh), e2 = w->check(kReused);
            const auto x1 = ea ? ea : w->check_reads_framed(kFresh);
            roundtrip = {{"framed", !ef}, {"bare_fresh", !e1}, {"bare_reused", !e2}, {"bare_reads_framed", !x1}};
            for (const auto &e : {ea, ef, e1, e2, x1})
               if (e && !error)
                  error = *e;
            const json same = {{"bare_fresh", w->payload_comparison(kFresh)}, {"bare_reused", w->payload_comparison(kReused)}};
            for (const char *k : {"bare_fresh", "bare_reused"})
               if (same[k]["stored_disagree"].get<size_t>() > 0 && !error)
                  error = std::string(k) + " compressed a different set of units than ROOT's framing: not the same work";
            r["same_payload"] = same;
            r["units"] = w->units();
            r["tiny_units_skipped"] = w->tiny_units();
            r["compressed_units"] = w->compressed_units();
            r["uncompressed_bytes"] = w->bytes();
            r["decompressed_bytes"] = w->decoded_bytes();
            r["compressed_bytes"] = {{"framed", w->compressed(kFramed)}, {"bare_fresh", w->compressed(kFresh)},
                                     {"bare_reused", w->compressed(kReused)}};
            r["calls"] = {{"framed", {{"compress", "R__zipMultipleAlgorithm"}, {"decompress", "R__unzip"}}},
                          {"bare_fresh",
                           {{"compress", w->bare(kFresh).compress_call()}, {"decompress", w->bare(kFresh).decompress_call()}}},
                          {"bare_reused",
                           {{"compress", w->bare(kReused).compress_call()},
                            {"decompress", w->bare(kReused).decompress_call()}}}};
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
            // One pass of each path per direction, instrumented alone (the validation above
            // warmed them up); the XXH64 of LZ4's payloads is counted on its own as well.
            for (PathId id : {kFramed, kFresh, kReused}) {
               counted_region(count_label(index, kPathNames[id], "compress"), [&] { w->compress_pass(id); });
               counted_region(count_label(index, kPathNames[id], "decompress"), [&] { w->decompress_pass(id); });
            }
            if (setting / 100 == 4) {
               uint64_t sink = 0;
               counted_region(count_label(index, "xxh64", "checksum"), [&] { sink = w->checksum_pass(); });
               r["xxh64_of_payloads"] = sink; // keeps the pass from being optimised away
            }
            for (PathId id : {kFramed, kFresh, kReused})
               if (auto e = w->check(id); e && !error)
                  error = *e;
            if (error)
               r["error"] = *error;
            r["counted"] = true;
            results.push_back(r);
            ++done;
            if (progress)
               progress(done, total);
            continue;
         }
         const int c_loops = calibrate(*w, true, ab), d_loops = calibrate(*w, false, ab);
         json faults = json::object();
         for (bool compress : {true, false})
            for (PathId id : {kFramed, kFresh, kReused})
               faults[compress ? "compress" : "decompress"][kPathNames[id]] = minor_faults_of_pass(*w, id, compress);
         r["minor_faults_per_pass"] = faults;
         std::vector<Triple> comp, decomp;
         for (int i = 0; i < ab.pairs && !error; ++i) {
            w->relocate(rng);
            for (bool compress : {true, false}) {
               Triple t;
               t.order = {0, 1, 2};
               Workload::shuffle(t.order, rng);
               for (int id : t.order)
                  t.reps[id] = timed(*w, static_cast<PathId>(id), compress, compress ? c_loops : d_loops);
               for (const Repetition &rep : t.reps)
                  all_reps.push_back(rep);
               (compress ? comp : decomp).push_back(t);
               if (!compress) // every decoded byte checked, outside the timed region, in the slot's order
                  for (int id : t.order)
                     if (auto e = w->check(static_cast<PathId>(id)); e && !error)
                        error = *e;
            }
            ++done;
            if (progress)
               progress(done, total);
         }
         if (error) {
            r["error"] = *error;
            r["roundtrip"] = {{"framed", false}, {"bare_fresh", false}, {"bare_reused", false},
                              {"bare_reads_framed", roundtrip["bare_reads_framed"]}};
         }
         r["compress"] = direction_json(c_loops, comp, ab);
         r["decompress"] = direction_json(d_loops, decomp, ab);
         results.push_back(r);
      }
   }
   return {{"results", results}, {"interference", interference_summary(all_reps, ab.limits)}};
}

} // namespace rzbench
