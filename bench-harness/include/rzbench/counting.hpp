// Instruction-count mode: the codec passes run under valgrind's callgrind, which is told through
// its client requests to instrument only the counted region and to dump the counters of each
// region to a file of its own (read by basketbench/measure/rzbench/counting.py). Outside valgrind, and in
// builds without valgrind's headers, the requests are no-ops and counting is refused.
#pragma once
#include <functional>
#include <string>

namespace rzbench {

bool counting_compiled();    // built with <valgrind/callgrind.h>
bool running_under_valgrind();

// Runs op once with callgrind's instrumentation on, counters zeroed before and dumped after under
// the given label; set-up and I/O outside op are not instrumented, so they count nothing.
void counted_region(const std::string &label, const std::function<void()> &op);

} // namespace rzbench
