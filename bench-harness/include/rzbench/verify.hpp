// `rzbench verify`: decode every basket's ROOT-compressed bytes, compare with the raw payload,
// recompress at the file's own setting and compare total sizes with ROOT's.
#pragma once
#include "rzbench/dataset.hpp"

#include <nlohmann/json.hpp>

namespace rzbench {

// The verify document (see docs/RZBENCH_CLI.md); failures go to "failures", old "CS" baskets to
// "unsupported".
nlohmann::json verify_dataset(const Dataset &d);

} // namespace rzbench
