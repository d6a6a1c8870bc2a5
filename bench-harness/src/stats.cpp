#include "rzbench/stats.hpp"

#include <algorithm>
#include <cmath>

namespace rzbench {

Stats compute_stats(const std::vector<double> &samples)
{
   Stats s;
   s.samples = samples;
   if (samples.empty())
      return s;
   std::vector<double> v = samples;
   std::sort(v.begin(), v.end());
   const size_t n = v.size();
   s.min = v.front();
   s.max = v.back();
   s.median = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
   double sum = 0;
   for (double x : v)
      sum += x;
   s.mean = sum / static_cast<double>(n);
   if (n > 1) {
      double ss = 0;
      for (double x : v)
         ss += (x - s.mean) * (x - s.mean);
      s.stddev = std::sqrt(ss / static_cast<double>(n - 1));
   }
   s.cv = s.mean > 0 ? s.stddev / s.mean : 0;
   return s;
}

} // namespace rzbench
