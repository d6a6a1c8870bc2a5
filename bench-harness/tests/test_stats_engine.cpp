#include "rzbench/engine.hpp"
#include "rzbench/stats.hpp"

#include <gtest/gtest.h>

using namespace rzbench;

TEST(Stats, KnownValues)
{
   const Stats s = compute_stats({4, 1, 3, 2});
   EXPECT_DOUBLE_EQ(s.median, 2.5);
   EXPECT_DOUBLE_EQ(s.min, 1);
   EXPECT_DOUBLE_EQ(s.max, 4);
   EXPECT_DOUBLE_EQ(s.mean, 2.5);
   EXPECT_NEAR(s.stddev, 1.2909944487358056, 1e-12); // sample stddev (n-1)
   EXPECT_NEAR(s.cv, 1.2909944487358056 / 2.5, 1e-12);
   EXPECT_EQ(s.samples, (std::vector<double>{4, 1, 3, 2})) << "raw samples kept in order";
   const Stats one = compute_stats({7});
   EXPECT_DOUBLE_EQ(one.median, 7);
   EXPECT_DOUBLE_EQ(one.cv, 0);
}

TEST(Engine, InterleavesCalibratesAndDrops)
{
   std::vector<char> trace;
   volatile double sink = 0;
   auto work = [&](char tag) {
      return [&, tag] {
         trace.push_back(tag);
         for (int i = 0; i < 2000; ++i)
            sink = sink + i;
      };
   };
   std::vector<TimedOp> ops{{work('a'), 1000}, {work('b'), 1000}, {work('c'), 1000}};
   EngineParams p;
   p.min_samples = 4;
   p.target_ms = 2;
   int c_samples = 0;
   const EngineResult r = run_interleaved(ops, p, [&](size_t op) {
      if (op == 2)
         return ++c_samples < 2; // calibration + 1 sample, then dropped
      return true;
   });
   EXPECT_EQ(r.mbps[0].size(), 4u);
   EXPECT_EQ(r.mbps[1].size(), 4u);
   EXPECT_EQ(r.mbps[2].size(), 1u);
   EXPECT_GT(r.loops[0], 1) << "a fast op runs several passes per sample";
   for (double v : r.mbps[0])
      EXPECT_GT(v, 0.0);
   // After calibration the order is a..b..c..a..b.. : each sample block starts after the other op's.
   size_t first_b_after_cal = 0;
   for (size_t i = 0; i < trace.size(); ++i)
      if (trace[i] == 'c') {
         first_b_after_cal = i;
         break;
      }
   ASSERT_GT(first_b_after_cal, 0u);
   std::string order;
   for (size_t i = first_b_after_cal; i < trace.size(); ++i)
      if (order.empty() || order.back() != trace[i])
         order.push_back(trace[i]);
   EXPECT_EQ(order.substr(0, 7), "cabcaba") << order;
}
