// The subcommands of rzbench (docs/RZBENCH_CLI.md), each run on options parsed by
// parse_options. They return the exit code (0 ok, 1 a result failed) and throw UsageError or
// CorpusError for bad input (exit 2).
#pragma once
#include "rzbench/options.hpp"

#include <string>

namespace rzbench {

int run_bench(const Options &o);
int run_ab_command(const Options &o);
int run_headroom_command(const Options &o);
int run_verify(const Options &o);
int run_sizes(const Options &o);
int run_digest(const Options &o);
int run_synth(const Options &o);

// Writes atomically (temp file + rename), or to stdout for "-".
void write_output(const std::string &path, const std::string &text);

} // namespace rzbench
