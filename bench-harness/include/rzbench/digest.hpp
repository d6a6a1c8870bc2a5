// What a codec build writes, independent of how fast: every buffer of a dataset compressed at
// each setting and preconditioner, its output hashed. Two builds (e.g. x86_64 and aarch64 under
// qemu-user) that produce the same digests wrote the same bytes (make test-aarch64).
#pragma once
#include "rzbench/dataset.hpp"
#include "rzbench/precondition.hpp"

#include <nlohmann/json.hpp>
#include <vector>

namespace rzbench {

// {"dataset", "buffers", "raw_bytes", "results": [{"setting", "preconditioner",
//  "compressed_bytes", "stored_buffers", "xxh64", "roundtrip_ok", "error"}]}; no timing.
nlohmann::json digest_dataset(const Dataset &d, const std::vector<int> &settings,
                              const std::vector<Preconditioner> &preconditioners);

} // namespace rzbench
