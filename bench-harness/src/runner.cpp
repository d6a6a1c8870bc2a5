#include "rzbench/runner.hpp"

#include "rzbench/codecs.hpp"
#include "rzbench/counting.hpp"

#include <cstdio>
#include <memory>

namespace rzbench {

std::vector<Config> expand_configs(const RunOptions &o)
{
   std::vector<Config> out;
   if (o.memcpy_baseline) {
      Config m;
      m.memcpy_baseline = true;
      out.push_back(m);
   }
   for (int s : o.settings)
      for (Preconditioner p : o.preconditioners)
         for (size_t dict : o.dictionary_sizes)
            for (size_t bs : o.basket_sizes)
               for (Mode m : o.modes)
                  for (int t : o.threads) {
                     const bool dict_ok = s / 100 == 5 && s % 100 > 0;
                     if (dict > 0 && !dict_ok)
                        continue;
                     Config c;
                     c.setting = s;
                     c.preconditioner = p;
                     c.dictionary_size = dict;
                     c.basket_size = bs;
                     c.mode = m;
                     c.threads = t;
                     out.push_back(c);
                  }
   return out;
}

namespace {

struct Slot {
   Result result;
   std::unique_ptr<Trial> trial; // null once failed or when it could not be built
};

class Progress {
public:
   Progress(bool on, size_t total) : on_(on), total_(total) {}
   void step()
   {
      ++done_;
      if (on_) {
         std::fprintf(stderr, "progress %zu %zu\n", done_, total_);
         std::fflush(stderr);
      }
   }

private:
   bool on_;
   size_t done_ = 0, total_;
};

Result blank_result(const std::string &dataset, const Config &c)
{
   Result r;
   r.dataset = dataset;
   r.config = c;
   r.codec = c.memcpy_baseline ? "memcpy" : codec_name(c.setting);
   return r;
}

void fail(Slot &s, const std::string &msg)
{
   s.result.error = msg;
   s.result.compress.reset();
   s.result.decompress.reset();
   s.trial.reset();
}

// One counted pass per operation: instruction counts are deterministic, so one is enough; the
// validation pass before has run the code once uninstrumented (lazy initialisation done).
void count_slots(std::vector<Slot> &slots, size_t first_index, Progress &progress, int min_samples)
{
   for (size_t i = 0; i < slots.size(); ++i) {
      Slot &s = slots[i];
      if (s.trial) {
         Trial *t = s.trial.get();
         const std::string label = "rzbench-count:" + std::to_string(first_index + i);
         counted_region(label + ":compress", [t] { t->compress_pass(); });
         counted_region(label + ":decompress", [t] { t->decompress_pass(); });
         if (auto err = t->check())
            fail(s, *err);
         s.trial.reset();
      }
      for (int k = 0; k <= min_samples; ++k)
         progress.step();
   }
}

} // namespace

std::vector<Result> run_benchmarks(const std::vector<Dataset> &datasets, const RunOptions &o,
                                   std::vector<Repetition> *interference)
{
   const std::vector<Config> configs = expand_configs(o);
   // One progress step per (configuration, sample) plus one for its calibration.
   Progress progress(o.progress, datasets.size() * configs.size() * static_cast<size_t>(o.engine.min_samples + 1));
   std::vector<Result> results;
   for (const Dataset &d : datasets) {
      std::vector<Slot> slots;
      for (const Config &c : configs) {
         Slot s{blank_result(d.name, c), nullptr};
         try {
            s.trial = std::make_unique<Trial>(d, c);
         } catch (const SkipConfig &e) {
            std::fprintf(stderr, "rzbench: skipping %s setting %d dictionary %zu: %s\n", d.name.c_str(), c.setting,
                         c.dictionary_size, e.what());
            for (int i = 0; i <= o.engine.min_samples; ++i)
               progress.step();
            continue;
         } catch (const std::exception &e) {
            fail(s, e.what());
         }
         if (s.trial) {
            // Validation pass: a configuration that does not round-trip is never timed.
            s.trial->compress_pass();
            s.trial->decompress_pass();
            if (auto err = s.trial->check())
               fail(s, *err);
         }
         if (s.trial) {
            s.result.uncompressed_bytes = s.trial->uncompressed_bytes();
            s.result.compressed_bytes = s.trial->compressed_bytes();
            s.result.dictionary_train_ms = s.trial->dictionary_train_ms();
         }
         slots.push_back(std::move(s));
      }
      if (o.count) {
         count_slots(slots, results.size(), progress, o.engine.min_samples);
         for (auto &s : slots)
            results.push_back(std::move(s.result));
         continue;
      }
      // Two operations per live slot: compress, then decompress (which checks the round trip).
      std::vector<TimedOp> ops;
      std::vector<size_t> owner;
      for (size_t i = 0; i < slots.size(); ++i) {
         Trial *t = slots[i].trial.get();
         if (t == nullptr) {
            for (int k = 0; k <= o.engine.min_samples; ++k)
               progress.step();
            continue;
         }
         ops.push_back({[t] { t->compress_pass(); }, t->uncompressed_bytes()});
         ops.push_back({[t] { t->decompress_pass(); }, t->uncompressed_bytes()});
         owner.push_back(i);
         owner.push_back(i);
      }
      std::vector<bool> failed(slots.size(), false);
      const EngineResult er = run_interleaved(ops, o.engine, [&](size_t op) {
         Slot &s = slots[owner[op]];
         if (failed[owner[op]])
            return false;
         if (op % 2 == 1) {
            progress.step();
            if (auto err = s.trial->check()) {
               failed[owner[op]] = true;
               s.result.error = *err;
               return false;
            }
         }
         return true;
      });
      if (interference != nullptr)
         interference->insert(interference->end(), er.interference.begin(), er.interference.end());
      for (size_t k = 0; k < ops.size(); k += 2) {
         Slot &s = slots[owner[k]];
         if (failed[owner[k]]) {
            fail(s, *s.result.error);
            continue;
         }
         s.result.compress = compute_stats(er.mbps[k]);
         s.result.decompress = compute_stats(er.mbps[k + 1]);
         s.trial.reset();
      }
      for (auto &s : slots)
         results.push_back(std::move(s.result));
   }
   return results;
}

} // namespace rzbench
