// `rzbench headroom`: what ROOT's framing costs. Per setting, on the same buffers, three paths
// run interleaved in one process on the thread's CPU clock:
//   framed       the linked RZip.h (R__zipMultipleAlgorithm / R__unzip): header, dispatch, a
//                fresh codec context per call, LZ4's XXH64;
//   bare_fresh   the codec library called directly with a fresh context / stream per buffer;
//   bare_reused  the same library with one context reused across buffers (deflateReset,
//                ZSTD_compressCCtx, LZ4 extState, a re-initialised lzma_stream).
// framed / bare_fresh isolates the framing, bare_fresh / bare_reused the context set-up, and
// framed / bare_reused is the headroom. The bare output is checked byte for byte against the
// payload inside ROOT's frame, so the ratios compare the same work. docs/perf/headroom.md.
#pragma once
#include "rzbench/ab.hpp"
#include "rzbench/dataset.hpp"
#include "rzbench/layer.hpp"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rzbench {

// One codec library called without ROOT's framing. Not thread-safe (holds the reused context).
class BareCodec {
public:
   virtual ~BareCodec() = default;
   // Bytes written (the payload ROOT puts after its header), 0 when it does not fit in cap.
   virtual size_t compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) = 0;
   // Decodes exactly n bytes; false on any error.
   virtual bool decompress(const uint8_t *src, size_t m, uint8_t *dst, size_t n) = 0;
   // The library calls of one buffer, for the document ("ZSTD_compressCCtx (reused ZSTD_CCtx)").
   virtual std::string compress_call() const = 0;
   virtual std::string decompress_call() const = 0;
};

// The bare library for a setting (algorithm 1, 2, 4 or 5, level 1..9), with a fresh context per
// buffer (reused = false) or one context for all (reused = true). Throws std::invalid_argument
// for a setting it has no bare path for.
std::unique_ptr<BareCodec> make_bare_codec(int setting, bool reused);

// Where the codec payload starts inside one of ROOT's blocks: 9 (header), 17 for LZ4 (+ XXH64).
size_t framed_payload_offset(int setting);

// What one cpuid instruction costs this thread, in microseconds (median of batches on the
// thread's CPU clock); nullopt off x86. A VM traps cpuid to the hypervisor: tens of
// microseconds instead of tens of nanoseconds, paid by every fresh zstd context.
std::optional<double> cpuid_cost_us();

struct HeadroomParams {
   AbParams ab;        // pairs, target_ms, seed, clock, limits, confidence
   bool count = false; // instruction counts under callgrind instead of timing
};

// {"results": [...], "interference": {...}} (docs/RZBENCH_CLI.md, `headroom`).
nlohmann::json run_headroom(const std::vector<Dataset> &datasets, const std::vector<int> &settings,
                            const ZipApi &api, const HeadroomParams &params, const AbProgress &progress = nullptr);

} // namespace rzbench
