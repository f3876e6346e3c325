#pragma once
// A PyTorch profiler (Kineto) trace in Chrome trace format, as torch.profiler's
// export_chrome_trace and Megatron-LM's --profile --use-pytorch-profiler write it: `.json`, or
// `.json.gz` (read through zlib, which also reads an uncompressed file as it is). The file is
// streamed through nlohmann's SAX reader, so a trace of hundreds of MB never becomes a JSON tree:
// only what calibration uses is kept, in compact records.
//
// What is kept (Kineto's event categories):
//  - GPU activity (`cat` kernel, gpu_memcpy, gpu_memset; `ph` X): name, start, duration,
//    stream, device, the correlation id of the launch;
//  - launches (`cat` cuda_runtime / cuda_driver with args.correlation): the CPU thread and time
//    of each, which ties a kernel to the CPU ranges around its launch;
//  - CPU ranges (`cat` user_annotation: record_function, Megatron's and DeepSeek's annotations,
//    NVTX ranges Kineto records; `ph` X);
//  - CPU ops that record their operands' shapes (`Input Dims`, with record_shapes=True) for the
//    GEMM ops aten::mm, addmm, bmm, baddbmm, linear;
//  - deviceProperties' GPU names and distributedInfo's rank and world size.
// Times are microseconds, as in the file.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipesim/calibrate/kernel_kind.hpp"

namespace pipesim::calibrate {

struct TraceKernel {
  std::uint32_t name = 0;  //!< index into ProfilerTrace::names
  KernelKind kind = KernelKind::other;
  double start = 0, duration = 0;  //!< µs
  std::int64_t stream = -1, device = -1;
  std::int64_t correlation = -1;  //!< -1: the event carried none
};

struct TraceLaunch {
  std::int64_t correlation = 0;
  std::int64_t pid = 0, tid = 0;
  double time = 0;  //!< µs
};

struct TraceRange {
  std::uint32_t name = 0;
  std::int64_t pid = 0, tid = 0;
  double start = 0, duration = 0;
};

//! A GEMM op with its operands' shapes: C[m×n] = A[m×k]·B[k×n], `batch` such products.
struct ShapedGemm {
  std::int64_t pid = 0, tid = 0;
  double start = 0, duration = 0;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string dtype;  //!< from `Input type` when recorded (bf16, fp16, fp32), else ""
};

struct ProfilerTrace {
  std::string source;                //!< the file, for messages
  std::vector<std::string> names;    //!< kernel and range names, each once
  std::vector<TraceKernel> kernels;  //!< in file order
  std::vector<TraceLaunch> launches;
  std::vector<TraceRange> ranges;  //!< user annotations
  std::vector<ShapedGemm> gemms;
  //! deviceProperties: (id, name) as listed.
  std::vector<std::pair<std::int64_t, std::string>> devices;
  int rank = -1, world_size = -1;  //!< distributedInfo; -1 when absent
  std::uint64_t events = 0;        //!< every trace event read

  //! The GPU the kernels ran on: the name of the device most kernels ran on, else the first
  //! listed; "" when the trace lists none.
  std::string gpu() const;
  //! Σ duration of every GPU activity, µs.
  double kernel_time() const;
};

//! Called while reading with (bytes read, file size), at most every 64 MiB.
using ReadProgress = std::function<void(std::uint64_t read, std::uint64_t total)>;

//! Reads a trace. Throws core::ConfigError naming the file: unreadable, not JSON or cut short
//! (with the byte offset), not a trace (no traceEvents), a trace without GPU kernels.
ProfilerTrace read_profiler_trace(const std::filesystem::path& path,
                                  const ReadProgress& progress = {});
//! The same from text in memory (tests, fuzzing); `source` names it in errors.
ProfilerTrace parse_profiler_trace(std::string_view text, const std::string& source);

}  // namespace pipesim::calibrate
