// pipesim-calibrate-bench: the microbenchmarks behind a calibrated hardware profile.
// Writes one samples CSV (benchmark,dtype,m,n,k,bytes,gpus,seconds,spread,reps,note) that
// `pipesim calibrate --from-samples` fits. Groups (--only): gemm, memory, host, peer, nccl, launch.
//
// What each measures, and after whom:
//  gemm      cublasGemmEx, C = Aᵀ·B ("TN", Megatron's layout), over transformer shapes m = b·s,
//            (n, k) ∈ {(3h,h), (h,h), (4h,h), (h,4h), (V,h)} plus cubes; fp32, tf32 (fp32 data,
//            TF32 tensor cores), bf16 and fp16 (fp32 accumulate); fp8 through cublasLt (E4M3
//            operands with per-tensor scales, bf16 output, fp32 accumulate: Transformer
//            Engine's FP8 linear layers) where the GPU has FP8 tensor cores (8.9 and newer);
//            and, as rows "gemm_sm_target" (not fitted), the GEMMs of validated recipes in bf16
//            and fp8 on all SMs and with 16 or 24 held back (TE's GEMMs beside userbuffers).
//  memory    copy c=a and triad a=b+s·c (BabelStream, Deakin et al.), bytes = read + written,
//            from L2-resident arrays to GBs.
//  host      cudaMemcpyAsync pinned host→device and device→host (nvbandwidth-style CE copies).
//  peer      cudaMemcpyPeerAsync for every ordered pair of local GPUs.
//  nccl      all-reduce, all-gather, reduce-scatter, ring send/recv over all local GPUs, one
//            process (ncclCommInitAll); sizes as nccl-tests counts them.
//  launch    empty kernels back to back (per-kernel overhead inside a stream) and launch+sync.
// Anything this machine cannot measure is written as seconds = NA with a note, never invented.

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstring>
#include <optional>
#include <string>

#include "bench_common.cuh"

#if PIPESIM_HAVE_NCCL
#include <nccl.h>
#endif

namespace {

using pipesim_bench::Stats;
using pipesim_bench::TimingPlan;

const char* kUsage =
    "usage: pipesim-calibrate-bench --out samples.csv [--quick] [--only "
    "gemm,memory,host,peer,nccl,launch]\n"
    "  Measures this node for pipesim calibrate. --quick: < 3 min on one H200.\n"
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

#if PIPESIM_HAVE_NCCL
#define NCCL_CHECK(call)                                                       \
  do {                                                                         \
    const ncclResult_t r_ = (call);                                            \
    if (r_ != ncclSuccess) {                                                   \
      std::fprintf(stderr, "FATAL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   ncclGetErrorString(r_));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (false)
#endif

struct Csv {
  std::ostringstream rows;
  void add(const std::string& bench, const std::string& dtype, long long m, long long n,
           long long k, double bytes, int gpus, const Stats* s, std::string note = "") {
    std::replace(note.begin(), note.end(), ',', ';');  // one cell: the CSV has no quoting
    rows << bench << ',' << dtype << ',' << m << ',' << n << ',' << k << ',';
    rows.precision(17);
    rows << bytes << ',' << gpus << ',';
    rows.precision(6);
    if (s) {
      rows << s->median << ',' << s->spread << ',' << s->reps << ',' << note << '\n';
    } else {
      rows << "NA,NA,0," << note << '\n';
    }
  }
};

void progress(const char* fmt, double a, double b) {
  std::fprintf(stderr, fmt, a, b);
  std::fflush(stderr);
}

// ---- gemm -----------------------------------------------------------------------------------

struct GemmType {
  const char* name;
  cudaDataType_t data;
  cublasComputeType_t compute;
  size_t elem;
};

struct GemmShape {
  long long m, n, k;
};

struct GemmBuffers {
  void *a, *b, *c, *workspace;
  size_t workspace_bytes;
  cudaStream_t stream;
};

std::string fmt_sm_note(int used, int sms) {
  return "TN; sm_target=" + std::to_string(used) + " of " + std::to_string(sms);
}

// cublasLt GEMMs in Transformer Engine's layout (C = Aᵀ·B, "TN", fp32 accumulate, bf16 out):
// bf16 operands, or E4M3 operands with a per-tensor scale each (TE's FP8 linear layers; Hopper's
// FP8 tensor cores take only TN). `sm_target` > 0 asks cublasLt to run on that many SMs, as TE
// does for a GEMM beside its userbuffers communication kernels
// (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET).
class LtGemm {
 public:
  explicit LtGemm(const GemmBuffers& buf) : buf_(buf) {
    const float ones[2] = {1.0f, 1.0f};  // the values are already in range
    PIPESIM_CUDA_CHECK(cudaMalloc(&scales_, sizeof ones));
    PIPESIM_CUDA_CHECK(cudaMemcpy(scales_, ones, sizeof ones, cudaMemcpyHostToDevice));
    CUBLAS_CHECK(cublasLtCreate(&lt_));
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref_));
    CUBLAS_CHECK(
        cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &buf_.workspace_bytes, sizeof buf_.workspace_bytes));
  }
  ~LtGemm() {
    cublasLtMatmulPreferenceDestroy(pref_);
    cublasLtDestroy(lt_);
    cudaFree(scales_);
  }
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  //! Median seconds of one GEMM, or nullopt when cublasLt has no algorithm for it.
  std::optional<Stats> time(const GemmShape& s, bool fp8, int sm_target, const TimingPlan& plan) {
#if CUBLAS_VER_MAJOR < 12
    if (sm_target > 0) return std::nullopt;  // the SM target attribute needs cuBLAS 12
#endif
    cublasLtMatmulDesc_t op;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    set(op, CUBLASLT_MATMUL_DESC_TRANSA, transa);
    set(op, CUBLASLT_MATMUL_DESC_TRANSB, transb);
    if (fp8) {
      const float* a_scale = scales_;
      const float* b_scale = scales_ + 1;
      set(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a_scale);
      set(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b_scale);
    }
#if CUBLAS_VER_MAJOR >= 12
    if (sm_target > 0) set(op, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, sm_target);
#endif
    const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    // A stored k×m and B stored k×n, column-major; C m×n.
    cublasLtMatrixLayout_t la, lb, lc;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la, in, s.k, s.m, s.k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb, in, s.k, s.n, s.k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, s.m, s.n, s.m));
    cublasLtMatmulHeuristicResult_t best{};
    int found = 0;
    std::optional<Stats> st;
    if (cublasLtMatmulAlgoGetHeuristic(lt_, op, la, lb, lc, lc, pref_, 1, &best, &found) ==
            CUBLAS_STATUS_SUCCESS &&
        found > 0) {
      const float alpha = 1.0f, beta = 0.0f;
      st = pipesim_bench::time_on_stream(buf_.stream, plan, [&] {
        CUBLAS_CHECK(cublasLtMatmul(lt_, op, &alpha, buf_.a, la, buf_.b, lb, &beta, buf_.c, lc,
                                    buf_.c, lc, &best.algo, buf_.workspace, buf_.workspace_bytes,
                                    buf_.stream));
      });
    }
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(la));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(lb));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(lc));
    CUBLAS_CHECK(cublasLtMatmulDescDestroy(op));
    return st;
  }

 private:
  template <class T>
  static void set(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t attr, const T& value) {
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, attr, &value, sizeof value));
  }
  GemmBuffers buf_;
  float* scales_ = nullptr;  // the two per-tensor scales
  cublasLtHandle_t lt_{};
  cublasLtMatmulPreference_t pref_{};
};

double gemm_bytes(const GemmShape& s, bool fp8) {
  const long long e = fp8 ? 1 : 2;
  return static_cast<double>((s.m * s.k + s.k * s.n) * e + 2 * s.m * s.n);
}

bool has_fp8_tensor_cores() {
  cudaDeviceProp prop{};
  PIPESIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return prop.major * 10 + prop.minor >= 89;
}

// Random non-zero operands A and B, in fp8 or bf16, as large as the largest of `shapes` needs.
void fill_operands(const GemmBuffers& buf, const std::vector<GemmShape>& shapes, bool fp8) {
  size_t max_a = 0, max_b = 0;
  for (const GemmShape& s : shapes) {
    max_a = std::max(max_a, static_cast<size_t>(s.m * s.k));
    max_b = std::max(max_b, static_cast<size_t>(s.k * s.n));
  }
  if (fp8) {
    pipesim_bench::fill_random(static_cast<__nv_fp8_e4m3*>(buf.a), max_a, 1);
    pipesim_bench::fill_random(static_cast<__nv_fp8_e4m3*>(buf.b), max_b, 2);
  } else {
    pipesim_bench::fill_random(static_cast<__nv_bfloat16*>(buf.a), max_a, 1);
    pipesim_bench::fill_random(static_cast<__nv_bfloat16*>(buf.b), max_b, 2);
  }
}

// FP8 GEMMs over the curve's shapes (fitted against peak_flops.fp8). A GPU without FP8 tensor
// cores, or a shape cublasLt has no kernel for, is written as not measurable with the reason.
void bench_gemm_fp8(Csv& csv, const std::vector<GemmShape>& shapes, const TimingPlan& plan,
                    const GemmBuffers& buf) {
  if (!has_fp8_tensor_cores()) {
    for (const GemmShape& s : shapes)
      csv.add("gemm", "fp8", s.m, s.n, s.k, gemm_bytes(s, true), 1, nullptr,
              "TN; no FP8 tensor cores below compute capability 8.9");
    return;
  }
  fill_operands(buf, shapes, true);
  LtGemm gemm(buf);
  for (const GemmShape& s : shapes) {
    const std::optional<Stats> st = gemm.time(s, true, 0, plan);
    if (!st) {
      csv.add("gemm", "fp8", s.m, s.n, s.k, gemm_bytes(s, true), 1, nullptr,
              "TN; cublasLt offers no FP8 algorithm for this shape");
      continue;
    }
    csv.add("gemm", "fp8", s.m, s.n, s.k, gemm_bytes(s, true), 1, &*st, "TN E4M3 scaled; bf16 out");
    std::fprintf(stderr, "  gemm fp8  %6lld x %6lld x %6lld  %8.1f TFLOP/s\n", s.m, s.n, s.k,
                 2.0 * s.m * s.n * s.k / st->median / 1e12);
  }
}

// The linear GEMMs of validated recipes, per GPU: m tokens, n outputs, k inputs.
std::vector<GemmShape> recipe_gemm_shapes() {
  return {// GPT-3 175B, t 4, sequence parallelism gathers s·b = 2048 tokens: QKV, proj, fc1 (= fc2)
          {2048, 9216, 12288},
          {2048, 12288, 3072},
          {2048, 12288, 12288},
          // Llama 3 70B, t 4, c 2 (4096 tokens): QKV (GQA), proj, fc1 (SwiGLU), fc2
          {4096, 2560, 8192},
          {4096, 8192, 2048},
          {4096, 14336, 8192},
          {4096, 8192, 7168},
          // Llama 3 8B, t 1, c 2 (the FP8 curve's fit runs)
          {4096, 6144, 4096},
          {4096, 4096, 4096},
          {4096, 28672, 4096},
          {4096, 4096, 14336},
          // Grok-1 experts, expert tensor parallel 4: 2048 and 8192 rows per expert, fc1 and fc2
          {2048, 16384, 6144},
          {2048, 6144, 8192},
          {8192, 16384, 6144},
          {8192, 6144, 8192}};
}

// The recipes' GEMMs in bf16 and fp8 on all SMs and with 16 or 24 SMs held back, as Transformer
// Engine runs a GEMM beside its userbuffers kernels (NeMo's H100 configs give those 16-24 SMs).
// Rows "gemm_sm_target", note "sm_target=<SMs used> of <SMs>": not fitted; they show how the FP8
// and bf16 rates differ at these shapes and what the held SMs cost (the hardware profile's
// framework.tp_overlap_sm_fraction).
void bench_gemm_sm_target(Csv& csv, const TimingPlan& plan, const GemmBuffers& buf) {
  const std::vector<GemmShape> shapes = recipe_gemm_shapes();
  cudaDeviceProp prop{};
  PIPESIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const bool fp8_ok = has_fp8_tensor_cores();
  LtGemm gemm(buf);
  for (const bool fp8 : {false, true}) {
    const char* dtype = fp8 ? "fp8" : "bf16";
    if (!fp8 || fp8_ok) fill_operands(buf, shapes, fp8);
    for (const GemmShape& s : shapes) {
      for (const int held : {0, 16, 24}) {
        const std::string note = fmt_sm_note(sms - held, sms);
        if (fp8 && !fp8_ok) {
          csv.add("gemm_sm_target", dtype, s.m, s.n, s.k, gemm_bytes(s, fp8), 1, nullptr,
                  note + "; no FP8 tensor cores below compute capability 8.9");
          continue;
        }
        const std::optional<Stats> st = gemm.time(s, fp8, held > 0 ? sms - held : 0, plan);
        csv.add("gemm_sm_target", dtype, s.m, s.n, s.k, gemm_bytes(s, fp8), 1, st ? &*st : nullptr,
                st ? note : note + "; cublasLt offers no algorithm");
      }
    }
  }
}

void bench_gemm(Csv& csv, bool quick, const TimingPlan& plan) {
  const std::vector<GemmType> types = {
      {"bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2},
      {"fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F, 2},
      {"tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4},
      {"fp32", CUDA_R_32F, CUBLAS_COMPUTE_32F, 4},
  };
  const long long vocab = 50304;  // GPT-2 vocabulary padded to a multiple of 128 (Megatron)
  const std::vector<long long> hiddens = quick ? std::vector<long long>{1024, 4096, 8192}
                                               : std::vector<long long>{1024, 2048, 4096, 8192};
  const std::vector<long long> tokens =
      quick ? std::vector<long long>{512, 4096} : std::vector<long long>{512, 2048, 8192};
  using Shape = GemmShape;
  std::vector<Shape> shapes;
  // Cubes a half-octave apart cover 4e6 .. 1e12 FLOPs, so every decade of the efficiency table
  // has samples of its own.
  for (long long c : {128LL, 192LL, 256LL, 384LL, 512LL, 768LL, 1024LL, 1536LL, 2048LL, 3072LL,
                      4096LL, 6144LL, 8192LL}) {
    shapes.push_back({c, c, c});
  }
  for (long long h : hiddens) {
    for (long long m : tokens) {
      shapes.push_back({m, 3 * h, h});
      shapes.push_back({m, h, h});
      shapes.push_back({m, 4 * h, h});
      shapes.push_back({m, h, 4 * h});
      if (h <= 4096 || !quick) shapes.push_back({m, vocab, h});
    }
  }
  size_t max_a = 0, max_b = 0, max_c = 0;
  std::vector<Shape> allocated = shapes;
  for (const Shape& s : recipe_gemm_shapes())
    allocated.push_back(s);
  for (const Shape& s : allocated) {
    max_a = std::max(max_a, static_cast<size_t>(s.m * s.k));
    max_b = std::max(max_b, static_cast<size_t>(s.k * s.n));
    max_c = std::max(max_c, static_cast<size_t>(s.m * s.n));
  }
  void *a = nullptr, *b = nullptr, *c = nullptr, *workspace = nullptr;
  const size_t workspace_bytes = 32u << 20;  // cuBLAS on Hopper wants 32 MiB for its best kernels
  PIPESIM_CUDA_CHECK(cudaMalloc(&a, max_a * 4));
  PIPESIM_CUDA_CHECK(cudaMalloc(&b, max_b * 4));
  PIPESIM_CUDA_CHECK(cudaMalloc(&c, max_c * 4));
  PIPESIM_CUDA_CHECK(cudaMalloc(&workspace, workspace_bytes));
  cudaStream_t stream;
  PIPESIM_CUDA_CHECK(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  CUBLAS_CHECK(cublasSetWorkspace(handle, workspace, workspace_bytes));

  for (const GemmType& t : types) {
    // Random non-zero data; fp16 gets smaller magnitudes so sums over k = 4h stay far below
    // its 65504 limit.
    if (t.elem == 2 && t.data == CUDA_R_16BF) {
      pipesim_bench::fill_random(static_cast<__nv_bfloat16*>(a), max_a, 1);
      pipesim_bench::fill_random(static_cast<__nv_bfloat16*>(b), max_b, 2);
    } else if (t.elem == 2) {
      pipesim_bench::fill_random(static_cast<__half*>(a), max_a, 1, 0.05f, 0.2f);
      pipesim_bench::fill_random(static_cast<__half*>(b), max_b, 2, 0.05f, 0.2f);
    } else {
      pipesim_bench::fill_random(static_cast<float*>(a), max_a, 1);
      pipesim_bench::fill_random(static_cast<float*>(b), max_b, 2);
    }
    const float alpha = 1.0f, beta = 0.0f;
    for (const Shape& s : shapes) {
      const double flops = 2.0 * s.m * s.n * s.k;
      if (quick && t.elem == 4 && flops > 2e12)
        continue;  // fp32/tf32: quick mode skips the largest
      // C[m×n] = Aᵀ·B with A stored k×m and B stored k×n (column-major), as Megatron's linear.
      const Stats st = pipesim_bench::time_on_stream(stream, plan, [&] {
        CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(s.m),
                                  static_cast<int>(s.n), static_cast<int>(s.k), &alpha, a, t.data,
                                  static_cast<int>(s.k), b, t.data, static_cast<int>(s.k), &beta, c,
                                  t.data, static_cast<int>(s.m), t.compute, CUBLAS_GEMM_DEFAULT));
      });
      const double bytes =
          static_cast<double>((s.m * s.k + s.k * s.n + s.m * s.n) * static_cast<long long>(t.elem));
      csv.add("gemm", t.name, s.m, s.n, s.k, bytes, 1, &st, "TN");
      std::fprintf(stderr, "  gemm %-4s %6lld x %6lld x %6lld  %8.1f TFLOP/s\n", t.name, s.m, s.n,
                   s.k, flops / st.median / 1e12);
    }
  }
  const GemmBuffers buffers{a, b, c, workspace, workspace_bytes, stream};
  bench_gemm_fp8(csv, shapes, plan, buffers);
  bench_gemm_sm_target(csv, plan, buffers);
  CUBLAS_CHECK(cublasDestroy(handle));
  PIPESIM_CUDA_CHECK(cudaStreamDestroy(stream));
  PIPESIM_CUDA_CHECK(cudaFree(a));
  PIPESIM_CUDA_CHECK(cudaFree(b));
  PIPESIM_CUDA_CHECK(cudaFree(c));
  PIPESIM_CUDA_CHECK(cudaFree(workspace));
}

// ---- device memory (BabelStream copy and triad) -----------------------------------------------

__global__ void copy_kernel(const float4* __restrict__ a, float4* __restrict__ c, size_t n4) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    c[i] = a[i];
  }
}

__global__ void triad_kernel(float4* __restrict__ a, const float4* __restrict__ b,
                             const float4* __restrict__ c, float scalar, size_t n4) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float4 x = b[i], y = c[i];
    a[i] =
        make_float4(x.x + scalar * y.x, x.y + scalar * y.y, x.z + scalar * y.z, x.w + scalar * y.w);
  }
}

void bench_memory(Csv& csv, bool quick, const TimingPlan& plan) {
  const size_t max_array = quick ? (1ull << 30) : (2ull << 30);  // bytes per array
  float *a, *b, *c;
  PIPESIM_CUDA_CHECK(cudaMalloc(&a, max_array));
  PIPESIM_CUDA_CHECK(cudaMalloc(&b, max_array));
  PIPESIM_CUDA_CHECK(cudaMalloc(&c, max_array));
  pipesim_bench::fill_random(a, max_array / 4, 3);
  pipesim_bench::fill_random(b, max_array / 4, 4);
  pipesim_bench::fill_random(c, max_array / 4, 5);
  int sms = 0;
  PIPESIM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t stream;
  PIPESIM_CUDA_CHECK(cudaStreamCreate(&stream));
  for (size_t array = 256u << 10; array <= max_array; array *= quick ? 4 : 2) {
    const size_t n4 = array / 16;
    const unsigned blocks =
        static_cast<unsigned>(std::min<size_t>((n4 + 255) / 256, static_cast<size_t>(sms) * 8));
    const Stats copy = pipesim_bench::time_on_stream(stream, plan, [&] {
      copy_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const float4*>(a),
                                              reinterpret_cast<float4*>(c), n4);
    });
    csv.add("copy", "fp32", 0, 0, 0, 2.0 * array, 1, &copy, "array_bytes=" + std::to_string(array));
    const Stats triad = pipesim_bench::time_on_stream(stream, plan, [&] {
      triad_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<float4*>(a),
                                               reinterpret_cast<const float4*>(b),
                                               reinterpret_cast<const float4*>(c), 0.4f, n4);
    });
    csv.add("triad", "fp32", 0, 0, 0, 3.0 * array, 1, &triad,
            "array_bytes=" + std::to_string(array));
    progress("  copy/triad %10.0f KiB  copy %7.1f GB/s\n", array / 1024.0,
             2.0 * array / copy.median / 1e9);
  }
  PIPESIM_CUDA_CHECK(cudaStreamDestroy(stream));
  PIPESIM_CUDA_CHECK(cudaFree(a));
  PIPESIM_CUDA_CHECK(cudaFree(b));
  PIPESIM_CUDA_CHECK(cudaFree(c));
}

// ---- host <-> device -------------------------------------------------------------------------

void bench_host(Csv& csv, bool quick, const TimingPlan& plan) {
  const size_t max_bytes = quick ? (256u << 20) : (1u << 30);
  void *host, *dev;
  PIPESIM_CUDA_CHECK(cudaMallocHost(&host, max_bytes));
  PIPESIM_CUDA_CHECK(cudaMalloc(&dev, max_bytes));
  std::memset(host, 0x3c, max_bytes);  // non-zero bytes (content does not change copy speed)
  cudaStream_t stream;
  PIPESIM_CUDA_CHECK(cudaStreamCreate(&stream));
  for (size_t bytes = 4096; bytes <= max_bytes; bytes *= quick ? 16 : 4) {
    const Stats h2d = pipesim_bench::time_on_stream(stream, plan, [&] {
      PIPESIM_CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream));
    });
    csv.add("h2d", "", 0, 0, 0, static_cast<double>(bytes), 1, &h2d, "pinned");
    const Stats d2h = pipesim_bench::time_on_stream(stream, plan, [&] {
      PIPESIM_CUDA_CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream));
    });
    csv.add("d2h", "", 0, 0, 0, static_cast<double>(bytes), 1, &d2h, "pinned");
    progress("  h2d/d2h %12.0f B  h2d %6.1f GB/s\n", static_cast<double>(bytes),
             bytes / h2d.median / 1e9);
  }
  PIPESIM_CUDA_CHECK(cudaStreamDestroy(stream));
  PIPESIM_CUDA_CHECK(cudaFreeHost(host));
  PIPESIM_CUDA_CHECK(cudaFree(dev));
}

// ---- peer copies ----------------------------------------------------------------------------

void bench_peer(Csv& csv, bool quick, const TimingPlan& plan) {
  int devices = 0;
  PIPESIM_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices < 2) {
    csv.add("peer_copy", "", 0, 0, 0, 0, 1, nullptr, "not measurable: 1 GPU");
    std::fprintf(stderr, "  peer copies: not measurable with 1 GPU (recorded as NA)\n");
    return;
  }
  const size_t max_bytes = quick ? (256u << 20) : (1u << 30);
  std::vector<void*> buf(static_cast<size_t>(devices));
  for (int d = 0; d < devices; ++d) {
    PIPESIM_CUDA_CHECK(cudaSetDevice(d));
    PIPESIM_CUDA_CHECK(cudaMalloc(&buf[static_cast<size_t>(d)], max_bytes));
    pipesim_bench::fill_random(static_cast<float*>(buf[static_cast<size_t>(d)]), max_bytes / 4,
                               10u + static_cast<unsigned>(d));
  }
  for (int src = 0; src < devices; ++src) {
    for (int dst = 0; dst < devices; ++dst) {
      if (src == dst) continue;
      int can = 0;
      PIPESIM_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, src, dst));
      PIPESIM_CUDA_CHECK(cudaSetDevice(src));
      if (can) {
        const cudaError_t e = cudaDeviceEnablePeerAccess(dst, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) PIPESIM_CUDA_CHECK(e);
        (void)cudaGetLastError();
      }
      cudaStream_t stream;
      PIPESIM_CUDA_CHECK(cudaStreamCreate(&stream));
      const std::string pair =
          std::to_string(src) + "->" + std::to_string(dst) + (can ? " p2p" : " staged");
      for (size_t bytes = 4096; bytes <= max_bytes; bytes *= quick ? 16 : 4) {
        const Stats st = pipesim_bench::time_on_stream(stream, plan, [&] {
          PIPESIM_CUDA_CHECK(cudaMemcpyPeerAsync(buf[static_cast<size_t>(dst)], dst,
                                                 buf[static_cast<size_t>(src)], src, bytes,
                                                 stream));
        });
        csv.add("peer_copy", "", 0, 0, 0, static_cast<double>(bytes), 2, &st, pair);
      }
      std::fprintf(stderr, "  peer copy %s done\n", pair.c_str());
      PIPESIM_CUDA_CHECK(cudaStreamDestroy(stream));
    }
  }
  for (int d = 0; d < devices; ++d) {
    PIPESIM_CUDA_CHECK(cudaSetDevice(d));
    PIPESIM_CUDA_CHECK(cudaFree(buf[static_cast<size_t>(d)]));
  }
  PIPESIM_CUDA_CHECK(cudaSetDevice(0));
}

// ---- NCCL collectives -----------------------------------------------------------------------

void bench_nccl(Csv& csv, bool quick, const TimingPlan& plan) {
  int devices = 0;
  PIPESIM_CUDA_CHECK(cudaGetDeviceCount(&devices));
  const char* collectives[] = {"all_reduce", "all_gather", "reduce_scatter", "send_recv"};
#if !PIPESIM_HAVE_NCCL
  for (const char* c : collectives)
    csv.add(c, "fp32", 0, 0, 0, 0, devices, nullptr, "not measurable: built without NCCL");
  std::fprintf(stderr, "  nccl: built without NCCL (recorded as NA)\n");
  (void)quick;
  (void)plan;
#else
  if (devices < 2) {
    for (const char* c : collectives)
      csv.add(c, "fp32", 0, 0, 0, 0, 1, nullptr, "not measurable: 1 GPU");
    std::fprintf(stderr, "  nccl collectives: not measurable with 1 GPU (recorded as NA)\n");
    return;
  }
  const size_t n = static_cast<size_t>(devices);
  const size_t max_bytes = quick ? (256u << 20) : (1u << 30);
  std::vector<ncclComm_t> comms(n);
  NCCL_CHECK(ncclCommInitAll(comms.data(), devices, nullptr));
  std::vector<float*> send(n), recv(n);
  std::vector<cudaStream_t> streams(n);
  for (size_t d = 0; d < n; ++d) {
    PIPESIM_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
    PIPESIM_CUDA_CHECK(cudaMalloc(&send[d], max_bytes));
    PIPESIM_CUDA_CHECK(cudaMalloc(&recv[d], max_bytes));
    PIPESIM_CUDA_CHECK(cudaStreamCreate(&streams[d]));
    pipesim_bench::fill_random(send[d], max_bytes / 4, 20 + d);
  }
  const auto sync = [&] {
    for (size_t d = 0; d < n; ++d)
      PIPESIM_CUDA_CHECK(cudaStreamSynchronize(streams[d]));
  };
  for (const char* name : collectives) {
    const std::string coll = name;
    // Sizes are nccl-tests' S: the all-reduce buffer, the full gathered output, the full
    // scattered input, the per-rank message for send/recv. Divisible by n·4 bytes.
    for (size_t bytes = 1024 * n; bytes <= max_bytes; bytes *= quick ? 8 : 4) {
      const size_t count = bytes / 4;
      const Stats st = pipesim_bench::time_on_host(
          plan,
          [&] {
            NCCL_CHECK(ncclGroupStart());
            for (size_t d = 0; d < n; ++d) {
              if (coll == "all_reduce") {
                NCCL_CHECK(ncclAllReduce(send[d], recv[d], count, ncclFloat, ncclSum, comms[d],
                                         streams[d]));
              } else if (coll == "all_gather") {
                NCCL_CHECK(
                    ncclAllGather(send[d], recv[d], count / n, ncclFloat, comms[d], streams[d]));
              } else if (coll == "reduce_scatter") {
                NCCL_CHECK(ncclReduceScatter(send[d], recv[d], count / n, ncclFloat, ncclSum,
                                             comms[d], streams[d]));
              } else {  // ring: every rank sends to the next and receives from the previous
                NCCL_CHECK(ncclSend(send[d], count, ncclFloat, static_cast<int>((d + 1) % n),
                                    comms[d], streams[d]));
                NCCL_CHECK(ncclRecv(recv[d], count, ncclFloat, static_cast<int>((d + n - 1) % n),
                                    comms[d], streams[d]));
              }
            }
            NCCL_CHECK(ncclGroupEnd());
          },
          sync);
      csv.add(coll, "fp32", 0, 0, 0, static_cast<double>(bytes), devices, &st, "ncclCommInitAll");
    }
    std::fprintf(stderr, "  nccl %s over %d GPUs done\n", name, devices);
  }
  for (size_t d = 0; d < n; ++d) {
    PIPESIM_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
    NCCL_CHECK(ncclCommDestroy(comms[d]));
    PIPESIM_CUDA_CHECK(cudaFree(send[d]));
    PIPESIM_CUDA_CHECK(cudaFree(recv[d]));
    PIPESIM_CUDA_CHECK(cudaStreamDestroy(streams[d]));
  }
  PIPESIM_CUDA_CHECK(cudaSetDevice(0));
#endif
}

// ---- kernel launch --------------------------------------------------------------------------

__global__ void empty_kernel() {}

void bench_launch(Csv& csv, const TimingPlan& plan) {
  cudaStream_t stream;
  PIPESIM_CUDA_CHECK(cudaStreamCreate(&stream));
  TimingPlan many = plan;
  many.max_inner = 10000;
  // Back to back in one stream: the per-kernel cost a sequence of small kernels pays.
  const Stats queued =
      pipesim_bench::time_on_stream(stream, many, [&] { empty_kernel<<<1, 1, 0, stream>>>(); });
  csv.add("launch", "", 0, 0, 0, 0, 1, &queued, "empty kernel back to back");
  // Launch then wait: the round trip a host-synchronised step pays.
  const Stats round_trip = pipesim_bench::time_on_host(
      plan,
      [&] {
        empty_kernel<<<1, 1, 0, stream>>>();
        PIPESIM_CUDA_CHECK(cudaStreamSynchronize(stream));
      },
      [&] { PIPESIM_CUDA_CHECK(cudaStreamSynchronize(stream)); });
  csv.add("launch_sync", "", 0, 0, 0, 0, 1, &round_trip, "empty kernel + cudaStreamSynchronize");
  progress("  launch %.2f us back to back, %.2f us with sync\n", queued.median * 1e6,
           round_trip.median * 1e6);
  PIPESIM_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) {
  const pipesim_bench::Args args = pipesim_bench::parse_args(argc, argv, kUsage);
  if (args.probe) pipesim_bench::probe_devices("pipesim-calibrate-bench");
  pipesim_bench::require_cuda_device("pipesim-calibrate-bench");
  TimingPlan plan;
  plan.reps = args.quick ? 5 : 11;
  plan.batch_seconds = args.quick ? 1e-3 : 2e-3;
  Csv csv;
  const auto started = std::chrono::steady_clock::now();
  const auto step = [&](const char* group, const std::function<void()>& run) {
    if (!args.wants(group)) return;
    std::fprintf(stderr, "[pipesim-calibrate-bench] %s ...\n", group);
    run();
    std::fprintf(stderr, "[pipesim-calibrate-bench] %s done at %.0f s\n", group,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  step("launch", [&] { bench_launch(csv, plan); });
  step("memory", [&] { bench_memory(csv, args.quick, plan); });
  step("gemm", [&] { bench_gemm(csv, args.quick, plan); });
  step("host", [&] { bench_host(csv, args.quick, plan); });
  step("peer", [&] { bench_peer(csv, args.quick, plan); });
  step("nccl", [&] { bench_nccl(csv, args.quick, plan); });
  std::string nccl_version = "none";
#if PIPESIM_HAVE_NCCL
  int v = 0;
  if (ncclGetVersion(&v) == ncclSuccess) nccl_version = std::to_string(v);
#endif
  const std::string text =
      pipesim_bench::provenance_lines("pipesim-calibrate-bench 0.1.0", args.quick) +
      "# nccl: " + nccl_version + "\n" +
      "benchmark,dtype,m,n,k,bytes,gpus,seconds,spread,reps,note\n" + csv.rows.str();
  pipesim_bench::write_atomically(args.out, text);
  std::fprintf(stderr, "[pipesim-calibrate-bench] wrote %s\n", args.out.c_str());
  return 0;
}
