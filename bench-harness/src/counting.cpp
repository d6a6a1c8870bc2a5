#include "rzbench/counting.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define RZBENCH_HAVE_CALLGRIND 1
#else
#define RZBENCH_HAVE_CALLGRIND 0
#endif

namespace rzbench {

bool counting_compiled()
{
   return RZBENCH_HAVE_CALLGRIND != 0;
}

bool running_under_valgrind()
{
#if RZBENCH_HAVE_CALLGRIND
   return RUNNING_ON_VALGRIND != 0;
#else
   return false;
#endif
}

void counted_region(const std::string &label, const std::function<void()> &op)
{
#if RZBENCH_HAVE_CALLGRIND
   // Instrumentation starts with the simulated caches as the last instrumented region left them;
   // the zeroing drops the few instructions of the requests themselves.
   CALLGRIND_START_INSTRUMENTATION;
   CALLGRIND_ZERO_STATS;
   op();
   CALLGRIND_DUMP_STATS_AT(label.c_str());
   CALLGRIND_STOP_INSTRUMENTATION;
#else
   (void)label;
   op();
#endif
}

} // namespace rzbench
