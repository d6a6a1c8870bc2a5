// One configuration of the experiment dimensions, prepared for timing: its buffers (re-chunked,
// split per entry for RAC), its codec, and the compress / decompress passes the engine times.
#pragma once
#include "rzbench/codecs.hpp"
#include "rzbench/dataset.hpp"
#include "rzbench/layer.hpp"
#include "rzbench/precondition.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rzbench {

enum class Mode { kBasket, kRacSequential, kRacRandom };
const char *mode_name(Mode m);
bool parse_mode(const std::string &s, Mode &out);

struct Config {
   bool memcpy_baseline = false;
   int setting = 0;
   // The level handed to the layer when it is not setting % 100 (ab's --b-codecs: a candidate
   // layer's native level, which may be negative or above 9).
   std::optional<int> level;
   Preconditioner preconditioner = Preconditioner::kNone;
   size_t dictionary_size = 0;
   size_t basket_size = 0; // 0 = baskets as in the dataset
   Mode mode = Mode::kBasket;
   int threads = 1;
};

// Re-chunk: concatenate each branch's entries (in dataset order) and refill baskets of at most
// basket_size bytes (whole entries; an entry larger than a basket gets a basket of its own),
// appending a fresh offset array for variable-size branches.
std::vector<Basket> rechunk(const std::vector<Basket> &baskets, size_t basket_size);

struct TrialTestAccess; // unit tests only: reaches the compressed arena to damage it

// Thrown when a configuration cannot apply to a dataset (e.g. too few baskets to train a dictionary).
struct SkipConfig : std::runtime_error {
   using std::runtime_error::runtime_error;
};

class Trial {
public:
   // Builds everything outside timing; throws std::runtime_error for a codec / training failure.
   // The framed codecs run through `api`: the layer linked into rzbench unless given another.
   Trial(const Dataset &d, const Config &c, const ZipApi &api = linked_zip_api());
   ~Trial();
   Trial(const Trial &) = delete;
   Trial &operator=(const Trial &) = delete;

   void compress_pass();
   void decompress_pass();
   // Byte-exact check of every decompressed unit after the last pass; message on failure.
   std::optional<std::string> check() const;
   // A/B: decode what `written` (a Trial of the same dataset and configuration, through another
   // layer) compressed with this Trial's codec and compare with the raw data; message on failure.
   std::optional<std::string> check_decodes(const Trial &written) const;
   // Moves the compressed and output arenas to freshly allocated memory (contents kept). `ab`
   // calls it between pairs so that where each side's buffers happen to sit (cache sets,
   // physical pages) is redrawn instead of favouring one side for the whole run.
   void relocate();
   // Whether `other` (same dataset and configuration) wrote exactly the same compressed bytes.
   bool same_output(const Trial &other) const;

   const Config &config() const { return config_; }
   uint64_t uncompressed_bytes() const { return uncompressed_; }
   uint64_t compressed_bytes() const;
   std::optional<double> dictionary_train_ms() const { return train_ms_; }

private:
   friend struct TrialTestAccess;
   struct Unit {
      const uint8_t *src;
      size_t size;
      size_t esize;
      size_t comp_off;  // slot in comp_
      size_t out_off;   // slot in out_
      size_t comp_size; // after compress_pass; == size when stored
      bool stored;
   };
   void decompress_range(const std::vector<size_t> &order, size_t begin, size_t end, uint8_t *scratch,
                         std::string *error);

   Config config_;
   std::vector<Basket> owned_; // re-chunked baskets, if any
   std::vector<Unit> units_;
   std::vector<size_t> order_;                 // decompression order (random for rac-random)
   std::vector<std::pair<size_t, size_t>> ranges_; // per thread [begin, end) of order_
   std::unique_ptr<Codec> codec_;
   Bytes dictionary_;
   std::optional<double> train_ms_;
   Bytes comp_, out_;
   std::vector<Bytes> scratch_; // per thread, for preconditioning
   uint64_t uncompressed_ = 0;
   std::vector<std::string> errors_; // per thread, last pass
};

} // namespace rzbench
