// Reading a profiler trace: `calibrate --from-trace` streams the file through nlohmann's SAX
// reader (zlib for .gz), keeping compact records of the kernels, launches and annotations only,
// then groups the kernels by phase. Benchmarked on synthetic Kineto-style traces of 4 events per
// kernel (annotation every 64 kernels, a cpu_op, the launch, the kernel): 16k and 256k kernels,
// i.e. 64k and 1M events. Counters: events and MB of JSON per second.
// Run: build/release/bench/pipesim_trace_bench  (results/bench/README.md, "Profiler traces")

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "pipesim/calibrate/profiler_trace.hpp"
#include "pipesim/calibrate/trace_ops.hpp"

namespace {

namespace fs = std::filesystem;

// A trace of `kernels` kernels written once per size into the temporary folder.
fs::path synthetic_trace(std::int64_t kernels) {
  static std::map<std::int64_t, fs::path> written;
  if (const auto it = written.find(kernels); it != written.end()) return it->second;
  const fs::path path =
      fs::temp_directory_path() / fmt::format("pipesim-bench-trace-{}.json", kernels);
  std::ofstream out(path, std::ios::binary);
  out << R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],)"
      << R"("traceEvents":[)";
  constexpr const char* kNames[] = {
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
      "void flash::compute_attn_ws<Flash_fwd_kernel_traits<128, 128, 128, 12, 2>>",
      "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"};
  const char* phases[] = {"attn(F)", "mlp(F)", "attn(B)", "mlp(B)"};
  double t = 0;
  for (std::int64_t k = 0; k < kernels; ++k) {
    if (k % 64 == 0) {
      out << fmt::format(R"({{"ph":"X","cat":"user_annotation","name":"{}","pid":1,"tid":1,)"
                         R"("ts":{:.3f},"dur":{:.3f}}},)",
                         phases[(k / 64) % 4], t, 64 * 5.0);
    }
    out << fmt::format(
        R"({{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,)"
        R"("ts":{:.3f},"dur":2.0,"args":{{"External id":{},"Input Dims":)"
        R"([[4096,4096],[4096,1024]],"Input type":["c10::BFloat16","c10::BFloat16"]}}}},)",
        t + 0.1, k);
    out << fmt::format(R"({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,)"
                       R"("tid":1,"ts":{:.3f},"dur":1.5,"args":{{"correlation":{}}}}},)",
                       t + 0.5, k);
    out << fmt::format(R"({{"ph":"X","cat":"kernel","name":"{}","pid":0,"tid":7,"ts":{:.3f},)"
                       R"("dur":4.0,"args":{{"correlation":{},"stream":{},"device":0,)"
                       R"("grid":[132,1,1],"block":[128,1,1]}}}})",
                       kNames[k % 4], t + 1.0, k, k % 4 == 2 ? 23 : 7);
    out << (k + 1 < kernels ? ",\n" : "\n");
    t += 5.0;
  }
  out << "]}\n";
  out.close();
  written[kernels] = path;
  return path;
}

void BM_ReadAndGroupTrace(benchmark::State& state) {
  const fs::path path = synthetic_trace(state.range(0));
  const double bytes = static_cast<double>(fs::file_size(path));
  std::uint64_t events = 0;
  for (auto _ : state) {
    const pipesim::calibrate::ProfilerTrace trace = pipesim::calibrate::read_profiler_trace(path);
    const pipesim::calibrate::TraceOps ops = pipesim::calibrate::group_kernels(trace);
    events = trace.events;
    benchmark::DoNotOptimize(ops.seconds);
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["events_per_second"] = benchmark::Counter(
      static_cast<double>(events), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB_per_second"] =
      benchmark::Counter(bytes / 1e6, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReadAndGroupTrace)->Arg(16384)->Arg(262144)->Unit(benchmark::kMillisecond);

}  // namespace
