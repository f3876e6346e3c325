#pragma once
// Shared pieces of the calibration benchmarks: error checks that fail loudly, the timing
// protocol, random non-zero data, provenance, and an atomic CSV writer. Standalone: CUDA
// toolkit and the C++ standard library only.
//
// Timing protocol (as nccl-tests and BabelStream do it): warm up, size a batch of `inner`
// back-to-back launches so that one batch takes ~1–2 ms (event resolution is ~0.5 µs), time
// `reps` batches, keep the median per-operation time and the spread (max − min) / median.

#include <cuda_runtime.h>
#if PIPESIM_HAVE_NVML
#include <nvml.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#define PIPESIM_CUDA_CHECK(call)                                               \
  do {                                                                         \
    const cudaError_t err_ = (call);                                           \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "FATAL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                                  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (false)

namespace pipesim_bench {

struct Stats {
  double median = 0.0;  //!< seconds per operation
  double spread = 0.0;  //!< (max − min) / median over the repetitions
  int reps = 0;
  int inner = 0;
};

inline Stats summarize(std::vector<double> per_op, int inner) {
  std::sort(per_op.begin(), per_op.end());
  Stats s;
  const size_t h = per_op.size() / 2;
  s.median = per_op.size() % 2 ? per_op[h] : 0.5 * (per_op[h - 1] + per_op[h]);
  s.spread = (per_op.back() - per_op.front()) / s.median;
  s.reps = static_cast<int>(per_op.size());
  s.inner = inner;
  return s;
}

struct TimingPlan {
  int reps = 7;
  double batch_seconds = 2e-3;  //!< target length of one timed batch
  int max_inner = 1000;
};

//! Times `op` (which enqueues one operation on `stream`) with CUDA events.
inline Stats time_on_stream(cudaStream_t stream, const TimingPlan& plan,
                            const std::function<void()>& op) {
  cudaEvent_t start, stop;
  PIPESIM_CUDA_CHECK(cudaEventCreate(&start));
  PIPESIM_CUDA_CHECK(cudaEventCreate(&stop));
  op();  // warm-up: first-call setup (cuBLAS heuristics, lazy module loading) is not timed
  op();
  PIPESIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  PIPESIM_CUDA_CHECK(cudaEventRecord(start, stream));
  op();
  PIPESIM_CUDA_CHECK(cudaEventRecord(stop, stream));
  PIPESIM_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  PIPESIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  const double once = std::max(1e-7, ms * 1e-3);
  const int inner =
      std::clamp(static_cast<int>(std::ceil(plan.batch_seconds / once)), 1, plan.max_inner);
  std::vector<double> per_op;
  for (int r = 0; r < plan.reps; ++r) {
    PIPESIM_CUDA_CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < inner; ++i)
      op();
    PIPESIM_CUDA_CHECK(cudaEventRecord(stop, stream));
    PIPESIM_CUDA_CHECK(cudaEventSynchronize(stop));
    PIPESIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    per_op.push_back(ms * 1e-3 / inner);
  }
  PIPESIM_CUDA_CHECK(cudaGetLastError());
  PIPESIM_CUDA_CHECK(cudaEventDestroy(start));
  PIPESIM_CUDA_CHECK(cudaEventDestroy(stop));
  return summarize(per_op, inner);
}

//! Times `op` with the host clock; `sync` waits for everything `op` enqueued (multi-GPU work,
//! where no single stream's events cover all devices).
inline Stats time_on_host(const TimingPlan& plan, const std::function<void()>& op,
                          const std::function<void()>& sync) {
  using clock = std::chrono::steady_clock;
  op();
  op();
  sync();
  auto t0 = clock::now();
  op();
  sync();
  const double once = std::max(1e-7, std::chrono::duration<double>(clock::now() - t0).count());
  const int inner =
      std::clamp(static_cast<int>(std::ceil(plan.batch_seconds / once)), 1, plan.max_inner);
  std::vector<double> per_op;
  for (int r = 0; r < plan.reps; ++r) {
    t0 = clock::now();
    for (int i = 0; i < inner; ++i)
      op();
    sync();
    per_op.push_back(std::chrono::duration<double>(clock::now() - t0).count() / inner);
  }
  return summarize(per_op, inner);
}

// splitmix64: a deterministic per-element hash, so data is random-looking, never zero, and the
// same on every run.
__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

//! Uniform in ±[lo, hi] with a random sign: never zero (zeros make GEMMs draw less power and run
//! faster than real training data).
__device__ inline float random_nonzero(std::uint64_t seed, std::uint64_t i, float lo, float hi) {
  const std::uint64_t r = mix64(seed ^ mix64(i));
  const float u = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
  const float mag = lo + (hi - lo) * u;
  return (r & 1u) ? mag : -mag;
}

template <class T>
__global__ void fill_random_kernel(T* p, std::size_t n, std::uint64_t seed, float lo, float hi) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    p[i] = static_cast<T>(random_nonzero(seed, i, lo, hi));
  }
}

template <class T>
void fill_random(T* p, std::size_t n, std::uint64_t seed, float lo = 0.25f, float hi = 1.0f) {
  fill_random_kernel<T><<<1024, 256>>>(p, n, seed, lo, hi);
  PIPESIM_CUDA_CHECK(cudaGetLastError());
  PIPESIM_CUDA_CHECK(cudaDeviceSynchronize());
}

inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

//! `# key: value` lines naming the machine, read back by pipesim's samples parser.
inline std::string provenance_lines(const std::string& tool, bool quick) {
  int device = 0, devices = 0, runtime = 0, driver_api = 0;
  PIPESIM_CUDA_CHECK(cudaGetDevice(&device));
  PIPESIM_CUDA_CHECK(cudaGetDeviceCount(&devices));
  PIPESIM_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  PIPESIM_CUDA_CHECK(cudaDriverGetVersion(&driver_api));
  cudaDeviceProp prop{};
  PIPESIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::string driver = "unknown";
#if PIPESIM_HAVE_NVML
  if (nvmlInit_v2() == NVML_SUCCESS) {
    char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
    if (nvmlSystemGetDriverVersion(v, sizeof v) == NVML_SUCCESS) driver = v;
    nvmlShutdown();
  }
#else
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  <date>"
  std::ifstream proc("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(proc, line)) {
    const size_t at = line.find("Kernel Module");
    if (at != std::string::npos) {
      std::istringstream words(line.substr(at + 13));
      words >> driver;
    }
  }
#endif
  std::ostringstream o;
  o << "# tool: " << tool << "\n"
    << "# mode: " << (quick ? "quick" : "full") << "\n"
    << "# gpu: " << prop.name << "\n"
    << "# gpus: " << devices << "\n"
    << "# sms: " << prop.multiProcessorCount << "\n"
    << "# l2_bytes: " << prop.l2CacheSize << "\n"
    << "# memory_bytes: " << prop.totalGlobalMem << "\n"
    << "# driver: " << driver << "\n"
    << "# cuda_runtime: " << runtime / 1000 << "." << (runtime % 1000) / 10 << "\n"
    << "# cuda_driver_api: " << driver_api / 1000 << "." << (driver_api % 1000) / 10 << "\n"
    << "# date: " << utc_now() << "\n";
  return o.str();
}

//! Writes `content` to a temporary file beside `path`, then renames it over `path`, so an
//! interrupted run never leaves a half-written CSV.
inline void write_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      std::fprintf(stderr, "FATAL: cannot write %s\n", tmp.c_str());
      std::exit(1);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "FATAL: cannot rename %s to %s\n", tmp.c_str(), path.c_str());
    std::exit(1);
  }
}

//! Exit status of a benchmark run on a machine without a usable CUDA device (documented in
//! calibrate/README.md; `pipesim calibrate` tells it apart from a failed measurement).
constexpr int kExitNoDevice = 3;

//! Device 0 selected, or one line on stderr saying why there is no CUDA device and exit
//! kExitNoDevice. The runtime's own wording ("CUDA driver version is insufficient for CUDA
//! runtime version") is what it says when there is no NVIDIA driver at all, which misleads on a
//! machine without a GPU; a driver that is present but too old is named as such.
inline int require_cuda_device(const char* tool) {
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err == cudaSuccess && devices > 0) {
    PIPESIM_CUDA_CHECK(cudaSetDevice(0));
    return devices;
  }
  const bool driver = std::filesystem::exists("/proc/driver/nvidia/version");
  if (err == cudaErrorInsufficientDriver && driver) {
    std::fprintf(stderr, "%s: the NVIDIA driver is older than this CUDA runtime (%s)\n", tool,
                 cudaGetErrorString(err));
  } else if (err == cudaSuccess || err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
    std::fprintf(stderr, "%s: no CUDA device found (%s)\n", tool,
                 driver ? "the NVIDIA driver sees no GPU" : "no NVIDIA driver loaded");
  } else {
    std::fprintf(stderr, "%s: no CUDA device found (cudaGetDeviceCount: %s)\n", tool,
                 cudaGetErrorString(err));
  }
  std::exit(kExitNoDevice);
}

//! --probe: the devices found, one line each on stdout, exit 0 (kExitNoDevice without one).
inline void probe_devices(const char* tool) {
  const int devices = require_cuda_device(tool);
  for (int d = 0; d < devices; ++d) {
    cudaDeviceProp prop{};
    PIPESIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    std::printf("%d: %s (sm_%d%d)\n", d, prop.name, prop.major, prop.minor);
  }
  std::exit(0);
}

//! Minimal flag parsing shared by both benchmarks: --quick, --out FILE, --only LIST, --probe,
//! --help.
struct Args {
  bool quick = false;
  bool help = false;
  bool probe = false;
  std::string out;
  std::string only;  //!< comma-separated groups; empty = all
  bool wants(const std::string& group) const {
    return only.empty() || ("," + only + ",").find("," + group + ",") != std::string::npos;
  }
};

inline Args parse_args(int argc, char** argv, const char* usage) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--quick") {
      a.quick = true;
    } else if (s == "--help" || s == "-h") {
      a.help = true;
    } else if (s == "--probe") {
      a.probe = true;
    } else if ((s == "--out" || s == "--only") && i + 1 < argc) {
      (s == "--out" ? a.out : a.only) = argv[++i];
    } else {
      std::fprintf(stderr, "error: unknown or incomplete argument '%s'\n%s", s.c_str(), usage);
      std::exit(2);
    }
  }
  if (a.help) {
    std::printf("%s", usage);
    std::exit(0);
  }
  if (a.probe) return a;
  if (a.out.empty()) {
    std::fprintf(stderr, "error: --out FILE is required\n%s", usage);
    std::exit(2);
  }
  return a;
}

}  // namespace pipesim_bench
