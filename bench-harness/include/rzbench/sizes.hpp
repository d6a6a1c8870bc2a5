// Exact compressed sizes per branch and setting: one compression of every basket, no timing.
// Sizes are exact and cheap, so they are measured for every branch; speeds (noisy, costly)
// are measured per dataset by `bench`. Stored baskets (a codec that could not shrink them)
// count at their raw size, as ROOT stores them and as `bench` counts them.
#pragma once
#include "rzbench/dataset.hpp"
#include "rzbench/precondition.hpp"

#include <nlohmann/json.hpp>
#include <vector>

namespace rzbench {

struct SizeConfig {
   int setting;
   Preconditioner preconditioner;
};

// {"dataset", "branches": [{"file", "tree", "branch", "type_class", "baskets", "entries", "raw_bytes",
//   "sizes": [{"setting", "preconditioner", "compressed_bytes", "stored_baskets"}]}]}
// Progress callback (may be empty) is called once per branch done, with (done, total).
nlohmann::json branch_sizes(const Dataset &d, const std::vector<SizeConfig> &configs,
                            void (*progress)(size_t done, size_t total) = nullptr);

} // namespace rzbench
