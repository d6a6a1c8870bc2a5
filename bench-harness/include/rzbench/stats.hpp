#pragma once
#include <vector>

namespace rzbench {

struct Stats {
   double median = 0, min = 0, max = 0, mean = 0, stddev = 0, cv = 0;
   std::vector<double> samples;
};

// Sample standard deviation (n-1); cv = stddev / mean (0 for a single sample).
Stats compute_stats(const std::vector<double> &samples);

} // namespace rzbench
