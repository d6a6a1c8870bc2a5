// A rootbench-style Google Benchmark program for the ingest tests (issue 13): the
// argument is ROOT's compression setting (101 = ZLIB level 1); compression entries carry
// the documented user counters compressed_bytes and uncompressed_bytes.
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <cstdint>
#include <vector>

namespace {

// 1 MiB of half text-like, half noisy bytes: compresses to roughly half.
std::vector<unsigned char> Input() {
  std::vector<unsigned char> buf(1 << 20);
  std::uint32_t x = 12345;
  for (std::size_t i = 0; i < buf.size(); ++i) {
    x = x * 1664525u + 1013904223u;
    buf[i] = (i / 64) % 2 ? static_cast<unsigned char>(x >> 24)
                          : static_cast<unsigned char>('a' + (i % 7));
  }
  return buf;
}

void BM_Compress(benchmark::State& state) {
  const int level = static_cast<int>(state.range(0) % 100);
  const auto in = Input();
  std::vector<unsigned char> out(compressBound(in.size()));
  uLongf size = 0;
  for (auto _ : state) {
    size = out.size();
    compress2(out.data(), &size, in.data(), in.size(), level);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * in.size());
  state.counters["compressed_bytes"] = static_cast<double>(size);
  state.counters["uncompressed_bytes"] = static_cast<double>(in.size());
}

void BM_Decompress(benchmark::State& state) {
  const int level = static_cast<int>(state.range(0) % 100);
  const auto in = Input();
  std::vector<unsigned char> packed(compressBound(in.size()));
  uLongf packed_size = packed.size();
  compress2(packed.data(), &packed_size, in.data(), in.size(), level);
  std::vector<unsigned char> out(in.size());
  for (auto _ : state) {
    uLongf size = out.size();
    uncompress(out.data(), &size, packed.data(), packed_size);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * in.size());
}

}  // namespace

BENCHMARK(BM_Compress)->Arg(101);
BENCHMARK(BM_Decompress)->Arg(101);
BENCHMARK_MAIN();
