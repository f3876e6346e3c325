// The benchmarks' main(): Google Benchmark's, after the same allocator setting as pipesim's own
// main() (core/allocator.hpp), so that repeated runs reuse memory as a sweep does.
#include <benchmark/benchmark.h>

#include "pipesim/core/allocator.hpp"

int main(int argc, char** argv) {
  pipesim::core::keep_freed_memory_for_reuse();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
