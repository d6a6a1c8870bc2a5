#include "rzbench/experiment.hpp"

#include "rzbench/engine.hpp"
#include "rzbench/prng.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace rzbench {

const char *mode_name(Mode m)
{
   switch (m) {
   case Mode::kRacSequential: return "rac-sequential";
   case Mode::kRacRandom: return "rac-random";
   default: return "basket";
   }
}

bool parse_mode(const std::string &s, Mode &out)
{
   if (s == "basket")
      out = Mode::kBasket;
   else if (s == "rac-sequential")
      out = Mode::kRacSequential;
   else if (s == "rac-random")
      out = Mode::kRacRandom;
   else
      return false;
   return true;
}

std::vector<Basket> rechunk(const std::vector<Basket> &in, size_t basket_size)
{
   using Key = std::tuple<int, std::string, std::string>;
   std::vector<Key> order;
   std::map<Key, std::vector<const Basket *>> groups;
   for (const auto &b : in) {
      if (b.page)
         continue; // kept as they are, below
      Key k{b.file, b.tree, b.branch};
      auto it = groups.find(k);
      if (it == groups.end()) {
         order.push_back(k);
         groups[k].push_back(&b);
      } else {
         it->second.push_back(&b);
      }
   }
   std::vector<Basket> out;
   // RNTuple pages hold encoded (split, delta, zigzag) elements whose bytes cannot be cut and
   // joined: they keep their pages; basketbench re-pages them with the real encoding
   // (`basketbench corpus repage`).
   for (const auto &b : in)
      if (b.page)
         out.push_back(b);
   for (const auto &k : order) {
      const auto &members = groups[k];
      const Basket &first = *members.front();
      const bool variable = std::any_of(members.begin(), members.end(), [](const Basket *b) { return b->entry_offsets.has_value(); });
      Bytes data;
      std::vector<uint64_t> starts;
      int index = 0;
      auto flush = [&] {
         if (starts.empty())
            return;
         Basket b;
         b.file = first.file;
         b.tree = first.tree;
         b.branch = first.branch;
         b.index = index++;
         b.element_size = first.element_size;
         b.entries = starts.size();
         b.data_bytes = data.size();
         b.raw = data;
         if (variable) {
            b.entry_offsets = starts;
            append_offset_array(b.raw, starts);
         }
         out.push_back(std::move(b));
         data.clear();
         starts.clear();
      };
      for (const Basket *b : members) {
         for (const EntrySpan &e : entry_spans(*b)) {
            const size_t offsets = variable ? 4 * (starts.size() + 3) : 0;
            if (!starts.empty() && data.size() + e.size + offsets > basket_size)
               flush();
            starts.push_back(data.size());
            data.insert(data.end(), b->raw.begin() + static_cast<std::ptrdiff_t>(e.offset),
                        b->raw.begin() + static_cast<std::ptrdiff_t>(e.offset + e.size));
         }
      }
      flush();
   }
   return out;
}

namespace {
constexpr size_t kMinDictionarySamples = 5;
constexpr uint64_t kRandomOrderSeed = 0x5241432d524e44ULL; // fixed: the same order in every run
} // namespace

Trial::Trial(const Dataset &d, const Config &c, const ZipApi &api) : config_(c)
{
   const std::vector<Basket> *baskets = &d.baskets;
   if (c.basket_size > 0) {
      owned_ = rechunk(d.baskets, c.basket_size);
      baskets = &owned_;
   }
   const bool rac = c.mode != Mode::kBasket;
   const bool with_dict = !c.memcpy_baseline && c.dictionary_size > 0;
   std::vector<const uint8_t *> train_ptr;
   std::vector<size_t> train_size;
   Bytes train_buf; // preconditioned training samples, contiguous
   std::vector<std::pair<size_t, size_t>> train_spans;
   for (size_t bi = 0; bi < baskets->size(); ++bi) {
      const Basket &b = (*baskets)[bi];
      const bool training = with_dict && bi % 2 == 0; // every other basket trains, the rest is measured
      auto add = [&](const uint8_t *p, size_t n) {
         if (n == 0)
            return;
         if (training) {
            const size_t at = train_buf.size();
            train_buf.resize(at + n);
            apply_preconditioner(c.preconditioner, p, train_buf.data() + at, n, static_cast<size_t>(b.element_size));
            train_spans.emplace_back(at, n);
         } else {
            units_.push_back({p, n, static_cast<size_t>(b.element_size), 0, 0, 0, false});
         }
      };
      if (rac) {
         for (const EntrySpan &e : entry_spans(b))
            add(b.raw.data() + e.offset, e.size);
      } else {
         add(b.raw.data(), b.raw.size());
      }
   }
   if (units_.empty())
      throw std::runtime_error("no data to measure in this configuration");

   if (c.memcpy_baseline) {
      codec_ = make_memcpy_codec();
   } else {
      const CodecRow *row = find_codec_row(c.setting / 100);
      if (row == nullptr)
         throw std::runtime_error("unknown algorithm in setting " + std::to_string(c.setting));
      if (with_dict) {
         if (train_spans.size() < kMinDictionarySamples)
            throw SkipConfig("fewer than " + std::to_string(kMinDictionarySamples) +
                             " training samples for a dictionary");
         for (const auto &s : train_spans) {
            train_ptr.push_back(train_buf.data() + s.first);
            train_size.push_back(s.second);
         }
         const double t0 = now_seconds();
         dictionary_ = train_zstd_dictionary(train_ptr, train_size, c.dictionary_size);
         train_ms_ = (now_seconds() - t0) * 1e3;
      }
      codec_ = row->make(c.level ? *c.level : c.setting % 100, with_dict ? &dictionary_ : nullptr, api);
   }

   size_t comp_total = 0, out_total = 0, max_unit = 0;
   for (auto &u : units_) {
      u.comp_off = comp_total;
      u.out_off = out_total;
      comp_total += std::max(codec_->bound(u.size), u.size);
      out_total += u.size;
      max_unit = std::max(max_unit, u.size);
      uncompressed_ += u.size;
   }
   // Allocate and touch every buffer now, so no page fault lands in a timed pass.
   comp_.assign(comp_total, 0);
   out_.assign(out_total, 0);
   const int threads = std::max(1, c.threads);
   scratch_.assign(static_cast<size_t>(threads), Bytes(max_unit, 0));
   errors_.assign(static_cast<size_t>(threads), std::string());

   order_.resize(units_.size());
   for (size_t i = 0; i < order_.size(); ++i)
      order_[i] = i;
   if (c.mode == Mode::kRacRandom) {
      Xoshiro256 rng(kRandomOrderSeed);
      for (size_t i = order_.size(); i > 1; --i)
         std::swap(order_[i - 1], order_[rng.below(i)]);
   }
   // Split the decompression order into `threads` contiguous ranges of about equal bytes.
   const uint64_t per_thread = (uncompressed_ + static_cast<uint64_t>(threads) - 1) / static_cast<uint64_t>(threads);
   size_t begin = 0;
   uint64_t acc = 0;
   for (size_t i = 0; i < order_.size(); ++i) {
      acc += units_[order_[i]].size;
      if (acc >= per_thread * (ranges_.size() + 1) && static_cast<int>(ranges_.size()) < threads - 1) {
         ranges_.emplace_back(begin, i + 1);
         begin = i + 1;
      }
   }
   ranges_.emplace_back(begin, order_.size());
}

Trial::~Trial() = default;

void Trial::compress_pass()
{
   uint8_t *scratch = scratch_[0].data();
   for (auto &u : units_) {
      const uint8_t *src = u.src;
      if (config_.preconditioner != Preconditioner::kNone) {
         apply_preconditioner(config_.preconditioner, u.src, scratch, u.size, u.esize);
         src = scratch;
      }
      uint8_t *dst = comp_.data() + u.comp_off;
      const size_t r = codec_->compress(src, u.size, dst, codec_->bound(u.size));
      if (r == 0 || r >= u.size) {
         std::memcpy(dst, src, u.size); // stored, as ROOT stores a basket that does not shrink
         u.comp_size = u.size;
         u.stored = true;
      } else {
         u.comp_size = r;
         u.stored = false;
      }
   }
}

void Trial::decompress_range(const std::vector<size_t> &order, size_t begin, size_t end, uint8_t *scratch,
                             std::string *error)
{
   const bool pre = config_.preconditioner != Preconditioner::kNone;
   for (size_t k = begin; k < end; ++k) {
      const Unit &u = units_[order[k]];
      uint8_t *final_dst = out_.data() + u.out_off;
      uint8_t *dst = pre ? scratch : final_dst;
      const uint8_t *src = comp_.data() + u.comp_off;
      if (u.stored) {
         std::memcpy(dst, src, u.size);
      } else {
         std::string err;
         if (!codec_->decompress(src, u.comp_size, dst, u.size, &err)) {
            if (error->empty())
               *error = "unit " + std::to_string(order[k]) + ": " + err;
            continue;
         }
      }
      if (pre)
         invert_preconditioner(config_.preconditioner, scratch, final_dst, u.size, u.esize);
   }
}

void Trial::decompress_pass()
{
   for (auto &e : errors_)
      e.clear();
   if (ranges_.size() == 1) {
      decompress_range(order_, 0, order_.size(), scratch_[0].data(), &errors_[0]);
      return;
   }
   std::vector<std::thread> workers;
   for (size_t t = 1; t < ranges_.size(); ++t)
      workers.emplace_back([this, t] {
         decompress_range(order_, ranges_[t].first, ranges_[t].second, scratch_[t].data(), &errors_[t]);
      });
   decompress_range(order_, ranges_[0].first, ranges_[0].second, scratch_[0].data(), &errors_[0]);
   for (auto &w : workers)
      w.join();
}

std::optional<std::string> Trial::check() const
{
   for (const auto &e : errors_)
      if (!e.empty())
         return "decompression failed: " + e;
   for (size_t i = 0; i < units_.size(); ++i) {
      const Unit &u = units_[i];
      if (std::memcmp(out_.data() + u.out_off, u.src, u.size) != 0)
         return "round-trip mismatch in unit " + std::to_string(i) + " (" + std::to_string(u.size) + " bytes)";
   }
   return std::nullopt;
}

std::optional<std::string> Trial::check_decodes(const Trial &written) const
{
   if (written.units_.size() != units_.size())
      return std::string("the two trials hold different units");
   Bytes tmp, plain;
   const bool pre = config_.preconditioner != Preconditioner::kNone;
   for (size_t i = 0; i < units_.size(); ++i) {
      const Unit &w = written.units_[i];
      if (w.size != units_[i].size || w.src != units_[i].src)
         return "unit " + std::to_string(i) + " differs between the two trials";
      tmp.resize(w.size);
      const uint8_t *src = written.comp_.data() + w.comp_off;
      if (w.stored) {
         std::memcpy(tmp.data(), src, w.size);
      } else {
         std::string err;
         if (!codec_->decompress(src, w.comp_size, tmp.data(), w.size, &err))
            return "unit " + std::to_string(i) + ": " + err;
      }
      const uint8_t *result = tmp.data();
      if (pre) {
         plain.resize(w.size);
         invert_preconditioner(config_.preconditioner, tmp.data(), plain.data(), w.size, w.esize);
         result = plain.data();
      }
      if (std::memcmp(result, w.src, w.size) != 0)
         return "round-trip mismatch in unit " + std::to_string(i) + " (" + std::to_string(w.size) + " bytes)";
   }
   return std::nullopt;
}

void Trial::relocate()
{
   for (Bytes *arena : {&comp_, &out_}) {
      Bytes fresh(arena->size()); // zero-filled: every page touched before any timing
      std::memcpy(fresh.data(), arena->data(), arena->size());
      arena->swap(fresh);
   }
}

bool Trial::same_output(const Trial &other) const
{
   if (other.units_.size() != units_.size())
      return false;
   for (size_t i = 0; i < units_.size(); ++i) {
      const Unit &a = units_[i], &b = other.units_[i];
      if (a.comp_size != b.comp_size || a.stored != b.stored ||
          std::memcmp(comp_.data() + a.comp_off, other.comp_.data() + b.comp_off, a.comp_size) != 0)
         return false;
   }
   return true;
}

uint64_t Trial::compressed_bytes() const
{
   uint64_t n = dictionary_.size();
   for (const auto &u : units_)
      n += u.comp_size;
   if (config_.mode != Mode::kBasket)
      n += 4 * units_.size(); // RAC keeps one 32-bit access offset per entry
   return n;
}

} // namespace rzbench
