// Synthetic datasets. Only integer arithmetic and IEEE +,*,/ and float<->double conversions
// (no libm), so every platform produces the same bytes. Baskets are cut the way ROOT fills
// them: whole entries until the next one would overflow the basket buffer.
#include "rzbench/synth.hpp"

#include "rzbench/prng.hpp"

#include <cstring>
#include <stdexcept>

namespace rzbench {

namespace {

// Collects one branch's entries and cuts them into baskets.
class BranchWriter {
public:
   BranchWriter(std::string branch, int element_size, bool variable, size_t basket_size,
                std::string type_class = "")
      : branch_(std::move(branch)), esize_(element_size), variable_(variable), basket_size_(basket_size),
        type_class_(std::move(type_class))
   {
   }

   void add(const void *p, size_t n)
   {
      const size_t offsets = variable_ ? 4 * (starts_.size() + 3) : 0;
      if (!starts_.empty() && data_.size() + n + offsets > basket_size_)
         flush();
      starts_.push_back(data_.size());
      const auto *b = static_cast<const uint8_t *>(p);
      data_.insert(data_.end(), b, b + n);
   }

   template <class T>
   void add_values(const std::vector<T> &v)
   {
      // Values are stored big-endian, as ROOT serializes them.
      std::vector<uint8_t> be(v.size() * sizeof(T));
      for (size_t i = 0; i < v.size(); ++i) {
         uint8_t tmp[sizeof(T)];
         std::memcpy(tmp, &v[i], sizeof(T));
         for (size_t k = 0; k < sizeof(T); ++k)
            be[i * sizeof(T) + k] = tmp[is_little() ? sizeof(T) - 1 - k : k];
      }
      add(be.data(), be.size());
   }

   // One entry of an RVec<T> object branch as RDataFrame's Snapshot writes it (seen in the
   // baskets of a real skim by ROOT 6.40): byte count (0x40000000 | bytes that follow),
   // class version 10 (2 bytes), element count (int32), then the elements; all big-endian.
   template <class T>
   void add_rvec(const std::vector<T> &v)
   {
      const uint32_t count = 0x40000000u | static_cast<uint32_t>(6 + v.size() * sizeof(T));
      const uint32_t n = static_cast<uint32_t>(v.size());
      std::vector<uint8_t> e{static_cast<uint8_t>(count >> 24), static_cast<uint8_t>(count >> 16),
                             static_cast<uint8_t>(count >> 8),  static_cast<uint8_t>(count),
                             0,                                 10,
                             static_cast<uint8_t>(n >> 24),     static_cast<uint8_t>(n >> 16),
                             static_cast<uint8_t>(n >> 8),      static_cast<uint8_t>(n)};
      for (const T &x : v) {
         uint8_t tmp[sizeof(T)];
         std::memcpy(tmp, &x, sizeof(T));
         for (size_t k = 0; k < sizeof(T); ++k)
            e.push_back(tmp[is_little() ? sizeof(T) - 1 - k : k]);
      }
      add(e.data(), e.size());
   }

   std::vector<Basket> finish()
   {
      flush();
      return std::move(out_);
   }

private:
   static bool is_little()
   {
      const uint16_t x = 1;
      uint8_t b;
      std::memcpy(&b, &x, 1);
      return b == 1;
   }

   void flush()
   {
      if (starts_.empty())
         return;
      Basket b;
      b.tree = "T";
      b.branch = branch_;
      b.index = static_cast<int>(out_.size());
      b.element_size = esize_;
      b.entries = starts_.size();
      b.data_bytes = data_.size();
      b.raw = data_;
      b.type_class = type_class_;
      if (variable_) {
         b.entry_offsets = starts_;
         append_offset_array(b.raw, starts_);
      }
      out_.push_back(std::move(b));
      data_.clear();
      starts_.clear();
   }

   std::string branch_;
   int esize_;
   bool variable_;
   size_t basket_size_;
   std::string type_class_;
   Bytes data_;
   std::vector<uint64_t> starts_;
   std::vector<Basket> out_;
};

// Approximately normal (Irwin-Hall, 12 uniforms), deterministic without libm.
double gauss(Xoshiro256 &r, double mean, double sigma)
{
   double s = 0;
   for (int i = 0; i < 12; ++i)
      s += r.uniform();
   return mean + sigma * (s - 6.0);
}

// NanoAOD stores many floats with a reduced mantissa; keep `bits` of the 23.
float truncate_mantissa(float f, int bits)
{
   uint32_t u;
   std::memcpy(&u, &f, 4);
   u &= ~((1u << (23 - bits)) - 1u);
   std::memcpy(&f, &u, 4);
   return f;
}

Dataset assemble(const std::string &name, std::vector<BranchWriter> &branches)
{
   Dataset d;
   d.name = name;
   d.source = "synthetic:" + name;
   d.files.push_back({"synthetic:" + name, 0, ""});
   for (auto &w : branches)
      for (auto &b : w.finish())
         d.baskets.push_back(std::move(b));
   return d;
}

Dataset make_event()
{
   Xoshiro256 r(0x45564e54); // "EVNT"
   std::vector<BranchWriter> br;
   br.emplace_back("fEventNumber", 4, false, kDefaultBasketSize);
   br.emplace_back("fNtrack", 4, false, kDefaultBasketSize);
   br.emplace_back("fTemperature", 4, false, kDefaultBasketSize);
   br.emplace_back("fMeasures[10]", 4, false, kDefaultBasketSize);
   br.emplace_back("fMatrix[4][4]", 4, false, kDefaultBasketSize);
   br.emplace_back("fTracks.fPx", 4, true, kDefaultBasketSize);
   br.emplace_back("fTracks.fPy", 4, true, kDefaultBasketSize);
   br.emplace_back("fTracks.fPz", 4, true, kDefaultBasketSize);
   br.emplace_back("fTracks.fNpoint", 4, true, kDefaultBasketSize);
   br.emplace_back("fTracks.fCharge", 1, true, kDefaultBasketSize);
   for (int ev = 0; ev < 2000; ++ev) {
      const int32_t ntrack = 20 + static_cast<int32_t>(r.below(41));
      br[0].add_values(std::vector<int32_t>{ev});
      br[1].add_values(std::vector<int32_t>{ntrack});
      br[2].add_values(std::vector<float>{static_cast<float>(20.0 + r.uniform())});
      std::vector<int32_t> measures(10);
      for (auto &m : measures)
         m = static_cast<int32_t>(r.below(100));
      br[3].add_values(measures);
      std::vector<float> matrix(16);
      for (int i = 0; i < 16; ++i)
         matrix[static_cast<size_t>(i)] = (i % 5 == 0) ? 1.0f : static_cast<float>(gauss(r, 0.0, 0.01));
      br[4].add_values(matrix);
      std::vector<float> px(static_cast<size_t>(ntrack)), py(px.size()), pz(px.size());
      std::vector<int32_t> npoint(px.size());
      std::vector<int8_t> charge(px.size());
      for (size_t t = 0; t < px.size(); ++t) {
         px[t] = static_cast<float>(gauss(r, 0.0, 1.0));
         py[t] = static_cast<float>(gauss(r, 0.0, 1.0));
         pz[t] = static_cast<float>(gauss(r, 0.0, 3.0));
         npoint[t] = 50 + static_cast<int32_t>(r.below(50));
         charge[t] = r.below(2) != 0 ? 1 : -1;
      }
      br[5].add_values(px);
      br[6].add_values(py);
      br[7].add_values(pz);
      br[8].add_values(npoint);
      br[9].add_values(charge);
   }
   return assemble("event", br);
}

Dataset make_nanoaod_offsets()
{
   Xoshiro256 r(0x4e414e4f); // "NANO"
   std::vector<BranchWriter> br;
   br.emplace_back("nJet", 4, false, kDefaultBasketSize);
   br.emplace_back("Jet_pt", 4, true, kDefaultBasketSize);
   br.emplace_back("Jet_eta", 4, true, kDefaultBasketSize);
   br.emplace_back("Jet_phi", 4, true, kDefaultBasketSize);
   br.emplace_back("Jet_jetId", 1, true, kDefaultBasketSize);
   br.emplace_back("nMuon", 4, false, kDefaultBasketSize);
   br.emplace_back("Muon_pt", 4, true, kDefaultBasketSize);
   br.emplace_back("Muon_charge", 4, true, kDefaultBasketSize);
   for (int ev = 0; ev < 20000; ++ev) {
      const size_t njet = static_cast<size_t>(r.below(4) + r.below(5) + r.below(4)); // 0..9, peaked
      const size_t nmu = static_cast<size_t>(r.below(3));
      br[0].add_values(std::vector<int32_t>{static_cast<int32_t>(njet)});
      std::vector<float> pt(njet), eta(njet), phi(njet);
      std::vector<uint8_t> id(njet);
      for (size_t j = 0; j < njet; ++j) {
         pt[j] = truncate_mantissa(static_cast<float>(15.0 + 200.0 * r.uniform() * r.uniform()), 10);
         eta[j] = truncate_mantissa(static_cast<float>(gauss(r, 0.0, 1.6)), 10);
         phi[j] = truncate_mantissa(static_cast<float>(6.2831853 * r.uniform() - 3.14159265), 10);
         id[j] = static_cast<uint8_t>(r.below(8) < 6 ? 6 : 2);
      }
      br[1].add_values(pt);
      br[2].add_values(eta);
      br[3].add_values(phi);
      br[4].add_values(id);
      br[5].add_values(std::vector<int32_t>{static_cast<int32_t>(nmu)});
      std::vector<float> mpt(nmu);
      std::vector<int32_t> mq(nmu);
      for (size_t m = 0; m < nmu; ++m) {
         mpt[m] = truncate_mantissa(static_cast<float>(5.0 + 80.0 * r.uniform()), 10);
         mq[m] = r.below(2) != 0 ? 1 : -1;
      }
      br[6].add_values(mpt);
      br[7].add_values(mq);
   }
   return assemble("nanoaod-offsets", br);
}

// Paper 001: a value drawn at random and repeated 6 times, until `count` floats are filled.
std::vector<float> repeated_floats(Xoshiro256 &r, size_t count)
{
   std::vector<float> v(count);
   float value = 0;
   for (size_t i = 0; i < count; ++i) {
      if (i % 6 == 0)
         value = static_cast<float>(r.uniform() * 1000.0);
      v[i] = value;
   }
   return v;
}

// Paper 001 used 64 kB baskets for its TFloat / TSmall / TLarge tree.
constexpr size_t kPaper001BasketSize = 64000;

Dataset make_paper001(const std::string &name, size_t floats_per_entry, size_t entries, uint64_t seed)
{
   Xoshiro256 r(seed);
   std::vector<BranchWriter> br;
   br.emplace_back(name, 4, false, kPaper001BasketSize);
   for (size_t e = 0; e < entries; ++e)
      br[0].add_values(repeated_floats(r, floats_per_entry));
   return assemble(name, br);
}

Dataset make_random()
{
   Xoshiro256 r(0x52414e44); // "RAND"
   std::vector<BranchWriter> br;
   br.emplace_back("random", 8, false, kDefaultBasketSize);
   for (int i = 0; i < 262144; ++i) // 2 MiB
      br[0].add_values(std::vector<uint64_t>{r.next()});
   return assemble("random", br);
}

Dataset make_zeros()
{
   std::vector<BranchWriter> br;
   br.emplace_back("zeros", 4, false, kDefaultBasketSize);
   const std::vector<int32_t> zero{0};
   for (int i = 0; i < 524288; ++i) // 2 MiB
      br[0].add_values(zero);
   return assemble("zeros", br);
}

// A skimmed analysis output (ROOT PR #21753's case): selected-object RVec branches where
// `empty_percent` % of the entries hold no object, the others 1..3 objects.
Dataset make_rvec_empty(int empty_percent)
{
   Xoshiro256 r(0x52564543u + static_cast<uint64_t>(empty_percent)); // "RVEC" + share
   std::vector<BranchWriter> br;
   br.emplace_back("Sel_pt", 4, true, kDefaultBasketSize, "float");
   br.emplace_back("Sel_eta", 4, true, kDefaultBasketSize, "float");
   br.emplace_back("Sel_charge", 4, true, kDefaultBasketSize, "integer");
   for (int ev = 0; ev < 20000; ++ev) {
      const bool empty = r.below(100) < static_cast<uint64_t>(empty_percent);
      const size_t n = empty ? 0 : static_cast<size_t>(1 + r.below(3));
      std::vector<float> pt(n), eta(n);
      std::vector<int32_t> q(n);
      for (size_t i = 0; i < n; ++i) {
         pt[i] = static_cast<float>(30.0 + 150.0 * r.uniform() * r.uniform());
         eta[i] = static_cast<float>(gauss(r, 0.0, 1.2));
         q[i] = r.below(2) != 0 ? 1 : -1;
      }
      br[0].add_rvec(pt);
      br[1].add_rvec(eta);
      br[2].add_rvec(q);
   }
   return assemble("rvec-empty-" + std::to_string(empty_percent), br);
}

const int kEmptyPercents[] = {0, 50, 60, 70, 80, 90, 95, 99, 100};

} // namespace

const std::vector<std::string> &synthetic_names()
{
   static const std::vector<std::string> names{"event", "nanoaod-offsets", "tfloat", "tsmall",
                                               "tlarge", "random",          "zeros"};
   return names;
}

const std::vector<std::string> &shape_names()
{
   static const std::vector<std::string> names = [] {
      std::vector<std::string> n;
      for (int p : kEmptyPercents)
         n.push_back("rvec-empty-" + std::to_string(p));
      return n;
   }();
   return names;
}

bool is_synthetic_name(const std::string &name)
{
   for (const auto &n : synthetic_names())
      if (n == name)
         return true;
   for (const auto &n : shape_names())
      if (n == name)
         return true;
   return false;
}

Dataset make_synthetic(const std::string &name)
{
   if (name == "event")
      return make_event();
   if (name == "nanoaod-offsets")
      return make_nanoaod_offsets();
   if (name == "tfloat")
      return make_paper001("tfloat", 6, 100000, 0x54464c54); // 2.4 MB of 24-byte entries
   if (name == "tsmall")
      return make_paper001("tsmall", 1000, 600, 0x54534d4c); // 2.4 MB of 4 kB entries
   if (name == "tlarge")
      return make_paper001("tlarge", 1000000, 2, 0x544c5247); // 8 MB: two 4 MB entries, one per basket
   if (name == "random")
      return make_random();
   if (name == "zeros")
      return make_zeros();
   for (int p : kEmptyPercents)
      if (name == "rvec-empty-" + std::to_string(p))
         return make_rvec_empty(p);
   throw std::invalid_argument("unknown synthetic dataset '" + name + "'");
}

} // namespace rzbench
