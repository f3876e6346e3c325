// pipesim-layer-bench: runs one transformer layer's forward and backward kernels — exactly the
// list in pipesim/calibrate/layer_kernels.hpp — over a grid of (b, s, h) in bf16, and writes
//   b,s,h,heads,dtype,direction,kernel,seconds,spread,reps,flops,bytes
// with kernel = "total" for the whole forward or backward timed as one sequence, and one row per
// kernel timed alone. `pipesim calibrate layer-check` sets these beside the cost model.
//
// GEMMs go through cuBLAS (cublasGemmEx / cublasGemmStridedBatchedEx, fp32 accumulate). The
// memory-bound kernels are deliberately simple single-pass kernels (one read and one write of
// every element, 16-byte vector accesses), not a fused production implementation: the check
// asks whether the profile predicts the kernels a layer is made of, and the byte counts in
// layer_kernels.hpp are what these kernels really move.

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include "bench_common.cuh"
#include "pipesim/calibrate/layer_kernels.hpp"

namespace {

namespace pc = pipesim::calibrate;
using pipesim_bench::Stats;
using pipesim_bench::TimingPlan;
using bf16 = __nv_bfloat16;

const char* kUsage =
    "usage: pipesim-layer-bench --out layer_times.csv [--quick]\n"
    "  Times one transformer layer's forward and backward kernels (bf16) over a (b, s, h) grid.\n"
    "  --probe: list the CUDA devices and exit (status 3: no CUDA device, as for a run).\n";

#define CUBLAS_CHECK(call)                                                                   \
  do {                                                                                       \
    const cublasStatus_t st_ = (call);                                                       \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                      \
      std::fprintf(stderr, "FATAL %s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, \
                   static_cast<int>(st_));                                                   \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (false)

constexpr int kVec = 8;  // bf16 elements per 16-byte access

struct Vec8 {
  float v[kVec];
};

__device__ inline Vec8 load8(const bf16* p, size_t i) {
  const uint4 raw = reinterpret_cast<const uint4*>(p)[i];
  const bf16* e = reinterpret_cast<const bf16*>(&raw);
  Vec8 out;
#pragma unroll
  for (int j = 0; j < kVec; ++j)
    out.v[j] = __bfloat162float(e[j]);
  return out;
}

__device__ inline void store8(bf16* p, size_t i, const Vec8& x) {
  uint4 raw;
  bf16* e = reinterpret_cast<bf16*>(&raw);
#pragma unroll
  for (int j = 0; j < kVec; ++j)
    e[j] = __float2bfloat16(x.v[j]);
  reinterpret_cast<uint4*>(p)[i] = raw;
}

__device__ inline bool keep(size_t i) {  // dropout mask, p_keep = 0.9, from a hash
  return (pipesim_bench::mix64(i) & 0xFFFF) < 58982;
}

__device__ inline float gelu(float x) {  // tanh approximation (GPT-2)
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

__device__ inline float gelu_grad(float x) {
  const float t = tanhf(0.7978845608f * (x + 0.044715f * x * x * x));
  return 0.5f * (1.0f + t) +
         0.5f * x * (1.0f - t * t) * 0.7978845608f * (1.0f + 3.0f * 0.044715f * x * x);
}

// ---- elementwise (grid-stride over 8-element vectors) ----------------------------------------

#define GRID_STRIDE(i, n8)                                                              \
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < (n8); \
       i += static_cast<size_t>(gridDim.x) * blockDim.x)

__global__ void dropout_kernel(const bf16* x, bf16* y, uint2* mask, size_t n8) {
  GRID_STRIDE(i, n8) {
    Vec8 a = load8(x, i);
    unsigned char m[kVec];
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      m[j] = keep(i * kVec + j);
      a.v[j] = m[j] ? a.v[j] * (1.0f / 0.9f) : 0.0f;
    }
    store8(y, i, a);
    mask[i] = *reinterpret_cast<uint2*>(m);
  }
}

__global__ void dropout_residual_kernel(const bf16* x, const bf16* r, bf16* y, uint2* mask,
                                        size_t n8) {
  GRID_STRIDE(i, n8) {
    Vec8 a = load8(x, i);
    const Vec8 b = load8(r, i);
    unsigned char m[kVec];
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      m[j] = keep(i * kVec + j);
      a.v[j] = (m[j] ? a.v[j] * (1.0f / 0.9f) : 0.0f) + b.v[j];
    }
    store8(y, i, a);
    mask[i] = *reinterpret_cast<uint2*>(m);
  }
}

__global__ void dropout_backward_kernel(const bf16* dy, const uint2* mask, bf16* dx, size_t n8) {
  GRID_STRIDE(i, n8) {
    Vec8 a = load8(dy, i);
    const uint2 raw = mask[i];
    const unsigned char* m = reinterpret_cast<const unsigned char*>(&raw);
#pragma unroll
    for (int j = 0; j < kVec; ++j)
      a.v[j] = m[j] ? a.v[j] * (1.0f / 0.9f) : 0.0f;
    store8(dx, i, a);
  }
}

__global__ void gelu_kernel(const bf16* x, bf16* y, size_t n8) {
  GRID_STRIDE(i, n8) {
    Vec8 a = load8(x, i);
#pragma unroll
    for (int j = 0; j < kVec; ++j)
      a.v[j] = gelu(a.v[j]);
    store8(y, i, a);
  }
}

__global__ void gelu_backward_kernel(const bf16* x, const bf16* dy, bf16* dx, size_t n8) {
  GRID_STRIDE(i, n8) {
    const Vec8 a = load8(x, i);
    Vec8 g = load8(dy, i);
#pragma unroll
    for (int j = 0; j < kVec; ++j)
      g.v[j] *= gelu_grad(a.v[j]);
    store8(dx, i, g);
  }
}

// ---- row kernels: one block per row, the row held in registers (single pass) ------------------

// Each thread holds kMaxChunks 8-element chunks of its row in registers; the launch picks the
// smallest kMaxChunks in {1, 2, 4, 8} that covers the row (8 × 8 × 256 = 16384 columns at most),
// so short rows do not pay for long rows' register footprint.
constexpr int kRowThreads = 256;

__device__ inline float block_sum(float v, float* shared) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < kRowThreads / 32; ++w)
    total += shared[w];
  return total;
}

__device__ inline float block_max(float v, float* shared) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  float m = -INFINITY;
  for (int w = 0; w < kRowThreads / 32; ++w)
    m = fmaxf(m, shared[w]);
  return m;
}

// Softmax over a row of `cols` (scale fused, as a scaled-masked softmax would).
template <int kMaxChunks>
__global__ void softmax_kernel(const bf16* x, bf16* y, int cols, float scale) {
  __shared__ float shared[kRowThreads / 32];
  const size_t row = blockIdx.x, chunks = static_cast<size_t>(cols) / kVec;
  const bf16* in = x + row * cols;
  bf16* out = y + row * cols;
  Vec8 r[kMaxChunks];
  float m = -INFINITY;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      r[c] = load8(in, idx);
      for (int j = 0; j < kVec; ++j)
        m = fmaxf(m, r[c].v[j] * scale);
    }
  }
  m = block_max(m, shared);
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      for (int j = 0; j < kVec; ++j) {
        r[c].v[j] = __expf(r[c].v[j] * scale - m);
        s += r[c].v[j];
      }
    }
  }
  const float inv = 1.0f / block_sum(s, shared);
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      for (int j = 0; j < kVec; ++j)
        r[c].v[j] *= inv;
      store8(out, idx, r[c]);
    }
  }
}

template <int kMaxChunks>
__global__ void softmax_backward_kernel(const bf16* y, const bf16* dy, bf16* dx, int cols) {
  __shared__ float shared[kRowThreads / 32];
  const size_t row = blockIdx.x, chunks = static_cast<size_t>(cols) / kVec;
  Vec8 a[kMaxChunks], g[kMaxChunks];
  float dot = 0.0f;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      a[c] = load8(y + row * cols, idx);
      g[c] = load8(dy + row * cols, idx);
      for (int j = 0; j < kVec; ++j)
        dot += a[c].v[j] * g[c].v[j];
    }
  }
  dot = block_sum(dot, shared);
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      for (int j = 0; j < kVec; ++j)
        g[c].v[j] = a[c].v[j] * (g[c].v[j] - dot);
      store8(dx + row * cols, idx, g[c]);
    }
  }
}

template <int kMaxChunks>
__global__ void layernorm_kernel(const bf16* x, bf16* y, float* mean_out, float* rstd_out,
                                 int cols) {
  __shared__ float shared[kRowThreads / 32];
  const size_t row = blockIdx.x, chunks = static_cast<size_t>(cols) / kVec;
  Vec8 r[kMaxChunks];
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      r[c] = load8(x + row * cols, idx);
      for (int j = 0; j < kVec; ++j)
        s += r[c].v[j];
    }
  }
  const float mean = block_sum(s, shared) / static_cast<float>(cols);
  float q = 0.0f;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      for (int j = 0; j < kVec; ++j)
        q += (r[c].v[j] - mean) * (r[c].v[j] - mean);
    }
  }
  const float rstd = rsqrtf(block_sum(q, shared) / static_cast<float>(cols) + 1e-5f);
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      for (int j = 0; j < kVec; ++j)
        r[c].v[j] = (r[c].v[j] - mean) * rstd;
      store8(y + row * cols, idx, r[c]);
    }
  }
  if (threadIdx.x == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
}

// dx = rstd·(dy − mean(dy) − x̂·mean(dy·x̂)) + dres (unit gain; the residual branch's gradient
// is added here, so the kernel reads x, dy, dres and the row statistics and writes dx).
template <int kMaxChunks>
__global__ void layernorm_backward_kernel(const bf16* x, const bf16* dy, const bf16* dres,
                                          const float* mean_in, const float* rstd_in, bf16* dx,
                                          int cols) {
  __shared__ float shared[kRowThreads / 32];
  const size_t row = blockIdx.x, chunks = static_cast<size_t>(cols) / kVec;
  const float mean = mean_in[row], rstd = rstd_in[row];
  Vec8 xh[kMaxChunks], g[kMaxChunks];
  float sg = 0.0f, sgx = 0.0f;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      xh[c] = load8(x + row * cols, idx);
      g[c] = load8(dy + row * cols, idx);
      for (int j = 0; j < kVec; ++j) {
        xh[c].v[j] = (xh[c].v[j] - mean) * rstd;
        sg += g[c].v[j];
        sgx += g[c].v[j] * xh[c].v[j];
      }
    }
  }
  const float mg = block_sum(sg, shared) / static_cast<float>(cols);
  const float mgx = block_sum(sgx, shared) / static_cast<float>(cols);
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const size_t idx = threadIdx.x + static_cast<size_t>(c) * kRowThreads;
    if (idx < chunks) {
      const Vec8 r = load8(dres + row * cols, idx);
      for (int j = 0; j < kVec; ++j)
        g[c].v[j] = rstd * (g[c].v[j] - mg - xh[c].v[j] * mgx) + r.v[j];
      store8(dx + row * cols, idx, g[c]);
    }
  }
}

// ---- one layer ------------------------------------------------------------------------------

struct Buffers {
  bf16 *x = nullptr, *y = nullptr, *z = nullptr, *w = nullptr;  // activations: max elements each
  bf16 *ga = nullptr, *gb = nullptr, *gc = nullptr;             // GEMM operands
  uint2* mask = nullptr;
  float *mean = nullptr, *rstd = nullptr;
};

class LayerRunner {
 public:
  LayerRunner(const pc::LayerShape& shape, cudaStream_t stream, cublasHandle_t handle)
      : shape_(shape), stream_(stream), handle_(handle) {
    PIPESIM_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, 0));
    size_t act = 0, a = 0, b = 0, c = 0, rows = 0;
    for (auto dir : {pc::LayerDirection::forward, pc::LayerDirection::backward}) {
      for (const pc::LayerKernel& k : pc::layer_kernels(shape, dir)) {
        if (k.is_gemm) {
          a = std::max(a, static_cast<size_t>(k.m * k.k * k.batch));
          b = std::max(b, static_cast<size_t>(k.k * k.n * k.batch));
          c = std::max(c, static_cast<size_t>(k.m * k.n * k.batch));
        } else {
          // The kernels move 8 bf16 at a time and keep a row in registers (≤ 16384 columns).
          if (k.cols % kVec != 0 || k.cols > kVec * 8 * kRowThreads) {
            std::fprintf(stderr,
                         "FATAL: %s: %lld columns unsupported (need a multiple of 8, <= 16384)\n",
                         k.name.c_str(), static_cast<long long>(k.cols));
            std::exit(1);
          }
          act = std::max(act, static_cast<size_t>(k.rows * k.cols));
          rows = std::max(rows, static_cast<size_t>(k.rows));
        }
      }
    }
    alloc(&buf_.x, act);
    alloc(&buf_.y, act);
    alloc(&buf_.z, act);
    alloc(&buf_.w, act);
    alloc(&buf_.ga, a);
    alloc(&buf_.gb, b);
    alloc(&buf_.gc, c);
    PIPESIM_CUDA_CHECK(cudaMalloc(&buf_.mask, act));  // 1 byte per element
    PIPESIM_CUDA_CHECK(cudaMemset(buf_.mask, 0x5b, act));
    PIPESIM_CUDA_CHECK(cudaMalloc(&buf_.mean, rows * sizeof(float)));
    PIPESIM_CUDA_CHECK(cudaMalloc(&buf_.rstd, rows * sizeof(float)));
    pipesim_bench::fill_random(buf_.mean, rows, 31, 0.0f, 0.1f);
    pipesim_bench::fill_random(buf_.rstd, rows, 32, 0.5f, 1.5f);
  }
  ~LayerRunner() {
    for (void* p : allocations_)
      cudaFree(p);
    cudaFree(buf_.mask);
    cudaFree(buf_.mean);
    cudaFree(buf_.rstd);
  }
  LayerRunner(const LayerRunner&) = delete;
  LayerRunner& operator=(const LayerRunner&) = delete;

  void launch(const pc::LayerKernel& k) {
    if (k.is_gemm) {
      gemm(k);
      return;
    }
    const size_t n = static_cast<size_t>(k.rows * k.cols), n8 = n / kVec;
    const unsigned blocks =
        static_cast<unsigned>(std::min<size_t>((n8 + 255) / 256, static_cast<size_t>(sms_) * 16));
    const int cols = static_cast<int>(k.cols);
    const unsigned rows = static_cast<unsigned>(k.rows);
    const float scale = 1.0f / sqrtf(static_cast<float>(shape_.hidden / shape_.heads));
    const int chunks = (cols / kVec + kRowThreads - 1) / kRowThreads;
#define PIPESIM_ROW_LAUNCH(kernel, ...)                          \
  do {                                                           \
    if (chunks <= 1) {                                           \
      kernel<1><<<rows, kRowThreads, 0, stream_>>>(__VA_ARGS__); \
    } else if (chunks <= 2) {                                    \
      kernel<2><<<rows, kRowThreads, 0, stream_>>>(__VA_ARGS__); \
    } else if (chunks <= 4) {                                    \
      kernel<4><<<rows, kRowThreads, 0, stream_>>>(__VA_ARGS__); \
    } else {                                                     \
      kernel<8><<<rows, kRowThreads, 0, stream_>>>(__VA_ARGS__); \
    }                                                            \
  } while (false)
    switch (k.op) {
      case pc::MemoryOp::layernorm:
        PIPESIM_ROW_LAUNCH(layernorm_kernel, buf_.x, buf_.y, buf_.mean, buf_.rstd, cols);
        break;
      case pc::MemoryOp::softmax:
        PIPESIM_ROW_LAUNCH(softmax_kernel, buf_.x, buf_.y, cols, scale);
        break;
      case pc::MemoryOp::dropout:
        dropout_kernel<<<blocks, 256, 0, stream_>>>(buf_.x, buf_.y, buf_.mask, n8);
        break;
      case pc::MemoryOp::dropout_residual:
        dropout_residual_kernel<<<blocks, 256, 0, stream_>>>(buf_.x, buf_.z, buf_.y, buf_.mask, n8);
        break;
      case pc::MemoryOp::gelu:
        gelu_kernel<<<blocks, 256, 0, stream_>>>(buf_.x, buf_.y, n8);
        break;
      case pc::MemoryOp::layernorm_backward:
        PIPESIM_ROW_LAUNCH(layernorm_backward_kernel, buf_.x, buf_.y, buf_.z, buf_.mean, buf_.rstd,
                           buf_.w, cols);
        break;
      case pc::MemoryOp::softmax_backward:
        PIPESIM_ROW_LAUNCH(softmax_backward_kernel, buf_.x, buf_.y, buf_.w, cols);
        break;
      case pc::MemoryOp::dropout_backward:
        dropout_backward_kernel<<<blocks, 256, 0, stream_>>>(buf_.y, buf_.mask, buf_.w, n8);
        break;
      case pc::MemoryOp::gelu_backward:
        gelu_backward_kernel<<<blocks, 256, 0, stream_>>>(buf_.x, buf_.y, buf_.w, n8);
        break;
      case pc::MemoryOp::none:
        break;
    }
#undef PIPESIM_ROW_LAUNCH
  }

 private:
  void alloc(bf16** p, size_t elems) {
    PIPESIM_CUDA_CHECK(cudaMalloc(p, std::max<size_t>(elems, kVec) * sizeof(bf16)));
    pipesim_bench::fill_random(*p, elems, 100 + allocations_.size());
    allocations_.push_back(*p);
  }

  void gemm(const pc::LayerKernel& k) {
    const float alpha = 1.0f, beta = 0.0f;
    const int m = static_cast<int>(k.m), n = static_cast<int>(k.n), kk = static_cast<int>(k.k);
    const int lda = k.trans_a ? kk : m, ldb = k.trans_b ? n : kk;
    const cublasOperation_t ta = k.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = k.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (k.batch == 1) {
      CUBLAS_CHECK(cublasGemmEx(handle_, ta, tb, m, n, kk, &alpha, buf_.ga, CUDA_R_16BF, lda,
                                buf_.gb, CUDA_R_16BF, ldb, &beta, buf_.gc, CUDA_R_16BF, m,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    } else {
      CUBLAS_CHECK(cublasGemmStridedBatchedEx(
          handle_, ta, tb, m, n, kk, &alpha, buf_.ga, CUDA_R_16BF, lda, k.m * k.k, buf_.gb,
          CUDA_R_16BF, ldb, k.k * k.n, &beta, buf_.gc, CUDA_R_16BF, m, k.m * k.n,
          static_cast<int>(k.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
  }

  pc::LayerShape shape_;
  cudaStream_t stream_;
  cublasHandle_t handle_;
  Buffers buf_;
  std::vector<void*> allocations_;
  int sms_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const pipesim_bench::Args args = pipesim_bench::parse_args(argc, argv, kUsage);
  if (args.probe) pipesim_bench::probe_devices("pipesim-layer-bench");
  pipesim_bench::require_cuda_device("pipesim-layer-bench");
  TimingPlan plan;
  plan.reps = args.quick ? 5 : 9;
  plan.batch_seconds = args.quick ? 1e-3 : 3e-3;
  cudaStream_t stream;
  PIPESIM_CUDA_CHECK(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  void* workspace = nullptr;
  const size_t workspace_bytes = 32u << 20;
  PIPESIM_CUDA_CHECK(cudaMalloc(&workspace, workspace_bytes));
  CUBLAS_CHECK(cublasSetWorkspace(handle, workspace, workspace_bytes));

  std::vector<pc::LayerShape> grid;
  const std::vector<long long> batches =
      args.quick ? std::vector<long long>{1, 4} : std::vector<long long>{1, 2, 4, 8};
  const std::vector<long long> seqs = args.quick ? std::vector<long long>{1024, 2048}
                                                 : std::vector<long long>{512, 1024, 2048, 4096};
  const std::vector<long long> hiddens = args.quick
                                             ? std::vector<long long>{1024, 2048, 4096}
                                             : std::vector<long long>{1024, 2048, 4096, 8192};
  for (long long b : batches) {
    for (long long s : seqs) {
      for (long long h : hiddens) {
        pc::LayerShape shape;
        shape.batch = b;
        shape.seq = s;
        shape.hidden = h;
        shape.heads = h / 128;  // head dimension 128, as in GPT-3 and Llama
        // Skip shapes whose attention scores alone exceed 8 GiB (b·a·s² bf16 elements).
        if (static_cast<double>(b * shape.heads) * s * s * 2 > 8.0 * (1ull << 30)) continue;
        grid.push_back(shape);
      }
    }
  }

  std::ostringstream rows;
  rows.precision(6);
  const auto started = std::chrono::steady_clock::now();
  for (const pc::LayerShape& shape : grid) {
    LayerRunner runner(shape, stream, handle);
    for (auto dir : {pc::LayerDirection::forward, pc::LayerDirection::backward}) {
      const auto kernels = pc::layer_kernels(shape, dir);
      const char* dname = dir == pc::LayerDirection::forward ? "forward" : "backward";
      double flops = 0.0, bytes = 0.0;
      for (const auto& k : kernels) {
        flops += k.flops();
        bytes += static_cast<double>(k.bytes);
      }
      const Stats total = pipesim_bench::time_on_stream(stream, plan, [&] {
        for (const auto& k : kernels)
          runner.launch(k);
      });
      rows << shape.batch << ',' << shape.seq << ',' << shape.hidden << ',' << shape.heads
           << ",bf16," << dname << ",total," << total.median << ',' << total.spread << ','
           << total.reps << ',' << flops << ',' << bytes << '\n';
      for (const auto& k : kernels) {
        const Stats one = pipesim_bench::time_on_stream(stream, plan, [&] { runner.launch(k); });
        rows << shape.batch << ',' << shape.seq << ',' << shape.hidden << ',' << shape.heads
             << ",bf16," << dname << ',' << k.name << ',' << one.median << ',' << one.spread << ','
             << one.reps << ',' << k.flops() << ',' << k.bytes << '\n';
      }
      std::fprintf(
          stderr, "  layer b=%lld s=%lld h=%lld %-8s %9.3f ms  (%.0f s)\n",
          static_cast<long long>(shape.batch), static_cast<long long>(shape.seq),
          static_cast<long long>(shape.hidden), dname, total.median * 1e3,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    }
  }
  PIPESIM_CUDA_CHECK(cudaDeviceSynchronize());
  CUBLAS_CHECK(cublasDestroy(handle));
  PIPESIM_CUDA_CHECK(cudaFree(workspace));
  const std::string text =
      pipesim_bench::provenance_lines("pipesim-layer-bench 0.1.0", args.quick) +
      "b,s,h,heads,dtype,direction,kernel,seconds,spread,reps,flops,bytes\n" + rows.str();
  pipesim_bench::write_atomically(args.out, text);
  std::fprintf(stderr, "[pipesim-layer-bench] wrote %s\n", args.out.c_str());
  return 0;
}
