// Deterministic synthetic datasets (fixed seeds, identical bytes everywhere).
#pragma once
#include "rzbench/dataset.hpp"

#include <string>
#include <vector>

namespace rzbench {

const std::vector<std::string> &synthetic_names(); // event, nanoaod-offsets, tfloat, tsmall, tlarge, random, zeros
bool is_synthetic_name(const std::string &name);
Dataset make_synthetic(const std::string &name); // throws std::invalid_argument for an unknown name

constexpr size_t kDefaultBasketSize = 32000; // ROOT's default basket buffer

} // namespace rzbench
