#pragma once
// One transformer layer as the ordered list of kernels one GPU launches for its forward and its
// backward: the single definition of "one layer" in pipesim. The simulator's cost model
// (cost/, through models/transformer.hpp), the calibration layer check (calibrate/) and the
// CUDA layer benchmark (calibrate/bench/layer_bench.cu, which runs exactly these kernels) all
// read this list, so they cannot disagree on what a layer is.
//
// Plain C++17 with no dependencies: it compiles under nvcc on a bare GPU node and under the
// pipesim warning set (-Wconversion) on the host.
//
// The layer is a Megatron-LM block (Shoeybi et al., arXiv 1909.08053, §3): fused QKV (grouped
// KV heads allowed), attention core, output projection, MLP (GeLU with 2 matrices, or SwiGLU
// with a fused gate+up matrix), two norms, residuals. Tensor parallelism over t GPUs splits
// QKV/fc1 by columns and proj/fc2 by rows, so each GPU runs the GEMMs with one dimension / t
// and a/t heads; sequence parallelism (Korthikanti et al., arXiv 2205.05198, §4.2.2) also
// splits the norm/dropout/residual region by sequence, so those kernels see b·s/t rows. The
// TP collectives are communication, not kernels: cost/ prices them.
//
// FLOP counts reproduce Narayanan et al. (SC'21) for a GPT layer at t = 1: forward
// 24·b·s·h² + 4·b·s²·h, backward 2×. Memory-bound kernels move the bytes counted here and no
// more: each reads and writes every element once (single-pass row kernels for softmax and the
// norms), masks are one byte. Bias adds are fused into the GEMM epilogues (no kernel).
// FlashAttention (Dao, arXiv 2307.08691, FlashAttention-2, §3): one fused forward kernel of
// 4·b·s²·h/t FLOPs storing only the fp32 log-sum-exp per row; its backward recomputes QKᵀ
// (5 products: 10·b·s²·h/t, 2.5× the forward, §3.1.2); with a causal mask it skips the blocks
// above the diagonal (half the FLOPs, block-diagonal remainder neglected).

#include <cstdint>
#include <string>
#include <vector>

namespace pipesim::models {

enum class LayerDirection { forward, backward };

//! Which memory-bound or fused kernel a LayerKernel is (the benchmark dispatches on it).
enum class MemoryOp {
  none,
  layernorm,                 //!< y = LN(x) per row of h: read x, write y, write mean/rstd
  softmax,                   //!< row softmax over s: read, write
  dropout,                   //!< y = mask ? x/p : 0: read x, write y, write 1-byte mask
  dropout_residual,          //!< y = dropout(x) + r: read x, r, write y, mask
  gelu,                      //!< y = gelu(x): read, write
  layernorm_backward,        //!< dx = LN'(x, dy) + dr: read x, dy, dr, mean/rstd, write dx
  softmax_backward,          //!< dx = y ⊙ (dy − Σ y·dy): read y, dy, write dx
  dropout_backward,          //!< dx = mask ? dy/p : 0: read dy, mask, write dx
  gelu_backward,             //!< dx = gelu'(x)·dy: read x, dy, write dx
  rmsnorm,                   //!< y = RMSNorm(x): read x, write y, write rstd
  rmsnorm_backward,          //!< read x, dy, dr, rstd, write dx
  residual,                  //!< y = x + r (no dropout): read 2, write 1
  swiglu,                    //!< y = silu(g)·u from [g|u] (cols = f): read 2f, write f per row
  swiglu_backward,           //!< read [g|u] and dy, write [dg|du]
  flash_attention,           //!< fused attention forward: read Q, K, V, write O and fp32 LSE
  flash_attention_backward,  //!< read Q, K, V, O, dO, LSE, write dQ, dK, dV
  other,  //!< a memory-bound kernel outside the layer (embedding, loss): bytes given
};

struct LayerShape {
  std::int64_t batch = 1;            //!< b, micro-batch size
  std::int64_t seq = 2048;           //!< s
  std::int64_t hidden = 4096;        //!< h
  std::int64_t heads = 32;           //!< a; head dim d = h / a
  std::int64_t elem_bytes = 2;       //!< activation element bytes (bf16/fp16: 2, fp32: 4)
  std::int64_t kv_heads = 0;         //!< key/value heads (grouped-query attention); 0 = heads
  std::int64_t ffn = 0;              //!< FFN inner size f; 0 = 4h
  bool gated_mlp = false;            //!< SwiGLU: fc1 is the fused [gate|up] of 2f columns
  bool rmsnorm = false;              //!< RMSNorm instead of LayerNorm
  bool dropout = true;               //!< dropout after attention probs, projection and MLP
  std::int64_t tensor_parallel = 1;  //!< t: GEMM columns/rows and heads split over t GPUs
  bool sequence_parallel = false;    //!< norm/dropout/residual region split by sequence over t
  bool flash = false;                //!< FlashAttention core instead of unfused QKᵀ/softmax/AV
  bool causal = true;                //!< causal mask (flash skips masked blocks)
};

//! One kernel launch. GEMMs are C[m×n] = op(A)·op(B) (cuBLAS column-major terms), `batch`
//! independent products of that size (strided batched GEMM for attention).
struct LayerKernel {
  std::string name;
  bool is_gemm = false;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool trans_a = false, trans_b = false;
  MemoryOp op = MemoryOp::none;
  std::int64_t rows = 0, cols = 0;  //!< memory-bound kernels: rows × cols elements
  std::int64_t bytes = 0;           //!< memory traffic; for GEMMs the minimum A + B + C bytes
  double fused_flops = 0.0;         //!< FLOPs of a fused attention kernel (priced as a GEMM)
  bool weight_gradient = false;     //!< a backward kernel of the weight-gradient part (W)
  //! A linear layer's GEMM (QKV, projection, MLP: weights × activations and their gradients),
  //! the GEMMs Transformer Engine runs in fp8; attention products and the LM head are not.
  bool linear = false;

  double flops() const {
    return is_gemm ? 2.0 * static_cast<double>(m) * static_cast<double>(n) *
                         static_cast<double>(k) * static_cast<double>(batch)
                   : fused_flops;
  }
  //! Priced at GEMM efficiency (FLOP-bound) rather than HBM bandwidth.
  bool compute_bound() const { return is_gemm || fused_flops > 0.0; }

  bool operator==(const LayerKernel& o) const {
    return name == o.name && is_gemm == o.is_gemm && m == o.m && n == o.n && k == o.k &&
           batch == o.batch && trans_a == o.trans_a && trans_b == o.trans_b && op == o.op &&
           rows == o.rows && cols == o.cols && bytes == o.bytes && fused_flops == o.fused_flops &&
           weight_gradient == o.weight_gradient && linear == o.linear;
  }
};

using KernelList = std::vector<LayerKernel>;

namespace layer_detail {

inline LayerKernel gemm(const char* name, std::int64_t m, std::int64_t n, std::int64_t k,
                        std::int64_t batch, bool ta, bool tb, std::int64_t e, bool wgrad = false) {
  LayerKernel g;
  g.name = name;
  g.is_gemm = true;
  g.m = m;
  g.n = n;
  g.k = k;
  g.batch = batch;
  g.trans_a = ta;
  g.trans_b = tb;
  g.bytes = (m * k + k * n + m * n) * batch * e;
  g.weight_gradient = wgrad;
  g.linear = batch == 1;  // the layer's only unbatched GEMMs are its linear layers
  return g;
}

inline LayerKernel memory(const char* name, MemoryOp op, std::int64_t rows, std::int64_t cols,
                          std::int64_t e) {
  LayerKernel k;
  k.name = name;
  k.op = op;
  k.rows = rows;
  k.cols = cols;
  const std::int64_t n = rows * cols;
  const std::int64_t stats = 2 * 4 * rows;  // fp32 mean and rstd per row
  switch (op) {
    case MemoryOp::layernorm:
      k.bytes = 2 * n * e + stats;
      break;
    case MemoryOp::rmsnorm:
      k.bytes = 2 * n * e + stats / 2;  // rstd only
      break;
    case MemoryOp::softmax:
    case MemoryOp::gelu:
      k.bytes = 2 * n * e;
      break;
    case MemoryOp::dropout:
    case MemoryOp::dropout_backward:
      k.bytes = n * (2 * e + 1);
      break;
    case MemoryOp::dropout_residual:
      k.bytes = n * (3 * e + 1);
      break;
    case MemoryOp::residual:
    case MemoryOp::softmax_backward:
    case MemoryOp::gelu_backward:
      k.bytes = 3 * n * e;
      break;
    case MemoryOp::layernorm_backward:
      k.bytes = 4 * n * e + stats;
      break;
    case MemoryOp::rmsnorm_backward:
      k.bytes = 4 * n * e + stats / 2;
      break;
    case MemoryOp::swiglu:
      k.bytes = 3 * n * e;  // read gate and up (2n), write n
      break;
    case MemoryOp::swiglu_backward:
      k.bytes = 5 * n * e;  // read gate, up, dy; write dgate, dup
      break;
    case MemoryOp::flash_attention:
    case MemoryOp::flash_attention_backward:
    case MemoryOp::other:
    case MemoryOp::none:
      break;
  }
  return k;
}

}  // namespace layer_detail

//! The kernels of one layer's forward or backward on one GPU, in launch order. In the backward,
//! the weight-gradient GEMMs carry `weight_gradient` (a split backward runs them as W).
inline KernelList layer_kernels(const LayerShape& shape, LayerDirection direction) {
  using layer_detail::gemm;
  using layer_detail::memory;
  const std::int64_t t = shape.tensor_parallel > 0 ? shape.tensor_parallel : 1;
  const std::int64_t b = shape.batch, s = shape.seq, h = shape.hidden, a = shape.heads;
  const std::int64_t kv = shape.kv_heads > 0 ? shape.kv_heads : a;
  const std::int64_t f = (shape.ffn > 0 ? shape.ffn : 4 * h) / t;
  const std::int64_t d = h / a, bs = b * s, e = shape.elem_bytes, at = a / t;
  const std::int64_t qkv = (h + 2 * kv * d) / t;         // fused QKV output columns per GPU
  const std::int64_t fc1 = shape.gated_mlp ? 2 * f : f;  // [gate|up] or up
  const std::int64_t rows = shape.sequence_parallel ? bs / t : bs;  // norm/residual region
  const MemoryOp norm = shape.rmsnorm ? MemoryOp::rmsnorm : MemoryOp::layernorm;
  const MemoryOp norm_bwd =
      shape.rmsnorm ? MemoryOp::rmsnorm_backward : MemoryOp::layernorm_backward;
  const MemoryOp add = shape.dropout ? MemoryOp::dropout_residual : MemoryOp::residual;
  const double causal = shape.causal ? 0.5 : 1.0;
  const double core = 4.0 * static_cast<double>(bs) * static_cast<double>(s) *
                      static_cast<double>(h) / static_cast<double>(t);  // QKᵀ + AV
  const std::int64_t q_bytes = bs * (h / t) * e, kv_bytes = 2 * bs * (kv * d / t) * e;
  const std::int64_t lse = 4 * b * at * s;  // fp32 log-sum-exp per query row
  KernelList ks;
  if (direction == LayerDirection::forward) {
    ks.push_back(memory("ln1", norm, rows, h, e));
    ks.push_back(gemm("qkv", bs, qkv, h, 1, false, true, e));
    if (shape.flash) {
      LayerKernel fa = memory("flash_attn", MemoryOp::flash_attention, b * at * s, d, e);
      fa.fused_flops = causal * core;
      fa.bytes = 2 * q_bytes + kv_bytes + lse;  // Q, K, V in; O and LSE out
      ks.push_back(fa);
    } else {
      ks.push_back(gemm("scores", s, s, d, b * at, true, false, e));
      ks.push_back(memory("softmax", MemoryOp::softmax, b * at * s, s, e));
      if (shape.dropout) ks.push_back(memory("attn_dropout", MemoryOp::dropout, b * at * s, s, e));
      ks.push_back(gemm("context", s, d, s, b * at, false, false, e));
    }
    ks.push_back(gemm("proj", bs, h, h / t, 1, false, true, e));
    ks.push_back(memory("proj_dropout_residual", add, rows, h, e));
    ks.push_back(memory("ln2", norm, rows, h, e));
    ks.push_back(gemm("fc1", bs, fc1, h, 1, false, true, e));
    ks.push_back(shape.gated_mlp ? memory("swiglu", MemoryOp::swiglu, bs, f, e)
                                 : memory("gelu", MemoryOp::gelu, bs, f, e));
    ks.push_back(gemm("fc2", bs, h, f, 1, false, true, e));
    ks.push_back(memory("mlp_dropout_residual", add, rows, h, e));
  } else {
    // Reverse order; every weight GEMM splits into a data-gradient and a weight-gradient GEMM.
    // Without dropout the residual's gradient passes through (no kernel).
    if (shape.dropout) {
      ks.push_back(memory("mlp_dropout_bwd", MemoryOp::dropout_backward, rows, h, e));
    }
    ks.push_back(gemm("fc2_dgrad", bs, f, h, 1, false, false, e));
    ks.push_back(gemm("fc2_wgrad", h, f, bs, 1, true, false, e, true));
    ks.push_back(shape.gated_mlp ? memory("swiglu_bwd", MemoryOp::swiglu_backward, bs, f, e)
                                 : memory("gelu_bwd", MemoryOp::gelu_backward, bs, f, e));
    ks.push_back(gemm("fc1_dgrad", bs, h, fc1, 1, false, false, e));
    ks.push_back(gemm("fc1_wgrad", fc1, h, bs, 1, true, false, e, true));
    ks.push_back(memory("ln2_bwd", norm_bwd, rows, h, e));
    if (shape.dropout) {
      ks.push_back(memory("proj_dropout_bwd", MemoryOp::dropout_backward, rows, h, e));
    }
    ks.push_back(gemm("proj_dgrad", bs, h / t, h, 1, false, false, e));
    ks.push_back(gemm("proj_wgrad", h, h / t, bs, 1, true, false, e, true));
    if (shape.flash) {
      LayerKernel fa =
          memory("flash_attn_bwd", MemoryOp::flash_attention_backward, b * at * s, d, e);
      fa.fused_flops = 2.5 * causal * core;
      fa.bytes = 4 * q_bytes + 2 * kv_bytes + lse;  // Q,K,V,O,dO,LSE in; dQ,dK,dV out
      ks.push_back(fa);
    } else {
      ks.push_back(gemm("context_dprobs", s, s, d, b * at, false, true, e));
      ks.push_back(gemm("context_dv", s, d, s, b * at, true, false, e));
      if (shape.dropout) {
        ks.push_back(memory("attn_dropout_bwd", MemoryOp::dropout_backward, b * at * s, s, e));
      }
      ks.push_back(memory("softmax_bwd", MemoryOp::softmax_backward, b * at * s, s, e));
      ks.push_back(gemm("scores_dq", s, d, s, b * at, false, false, e));
      ks.push_back(gemm("scores_dk", s, d, s, b * at, true, false, e));
    }
    ks.push_back(gemm("qkv_dgrad", bs, h, qkv, 1, false, false, e));
    ks.push_back(gemm("qkv_wgrad", qkv, h, bs, 1, true, false, e, true));
    ks.push_back(memory("ln1_bwd", norm_bwd, rows, h, e));
  }
  return ks;
}

//! The attention-core kernels of the forward (what selective recomputation re-runs [K22 §5]):
//! QKᵀ, softmax, dropout and AV, or the fused flash kernel.
inline KernelList attention_core_kernels(const LayerShape& shape) {
  KernelList out;
  for (const LayerKernel& k : layer_kernels(shape, LayerDirection::forward)) {
    if (k.name == "scores" || k.name == "softmax" || k.name == "attn_dropout" ||
        k.name == "context" || k.name == "flash_attn") {
      out.push_back(k);
    }
  }
  return out;
}

}  // namespace pipesim::models
