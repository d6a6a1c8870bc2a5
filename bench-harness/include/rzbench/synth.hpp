// Deterministic synthetic datasets (fixed seeds, identical bytes everywhere).
#pragma once
#include "rzbench/dataset.hpp"

#include <string>
#include <vector>

namespace rzbench {

const std::vector<std::string> &synthetic_names(); // event, nanoaod-offsets, tfloat, tsmall, tlarge, random, zeros
// Data shapes measured on request only (not part of `all`): rvec-empty-0/50/60/70/80/90/95/99/100, skimmed
// RVec branches with that share of empty entries (ROOT PR #21753).
const std::vector<std::string> &shape_names();
bool is_synthetic_name(const std::string &name);
Dataset make_synthetic(const std::string &name); // throws std::invalid_argument for an unknown name

constexpr size_t kDefaultBasketSize = 32000; // ROOT's default basket buffer

} // namespace rzbench
