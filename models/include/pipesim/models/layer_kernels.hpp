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
//
// Variants (models/README.md cites each): an explicit head dimension d ≠ h/a (queries a·d wide,
// output projection a·d → h) and per-head query/key norms (Qwen3); multi-head latent attention
// (DeepSeek-V2 §2.1) in place of the fused QKV: down-projections to a query and a key/value
// latent, each normed, replicated on every GPU of the tensor-parallel group as Megatron-Core does,
// then column-parallel up-projections to a/t heads of d_qk = nope + rope query/key and d_v value
// dimensions; a mixture-of-experts FFN (Megatron-Core MoE) in place of the dense MLP: router GEMM
// over the E experts, top-k, permutation of each token's k copies, the grouped GEMMs of the E/e
// experts this GPU holds (each split over e_t), unpermutation, and shared experts as one
// tensor-parallel MLP. The expert-parallel all-to-all and the expert-tensor-parallel gathers are
// communication, not kernels.

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
  // Mixture of experts (bytes given, see moe_bytes): rows are this GPU's tokens, cols E or h.
  router_topk,             //!< read logits, write fp32 scores and the boolean routing map
  router_topk_backward,    //!< read scores and their gradient, write the logits' gradient
  moe_permute,             //!< read each token once, write its k copies in expert order
  moe_permute_backward,    //!< read the k copies' gradients, write their sum per token
  moe_unpermute,           //!< read the k expert outputs, write their weighted sum per token
  moe_unpermute_backward,  //!< read dy and the k expert outputs, write the k gradients
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
  //! c: context parallelism, `seq` is this GPU's 1/c of the sequence and its queries attend
  //! to the keys and values of all c·seq positions (ring attention, load-balanced causal).
  std::int64_t context_parallel = 1;
  bool flash = false;  //!< FlashAttention core instead of unfused QKᵀ/softmax/AV
  bool causal = true;  //!< causal mask (flash skips masked blocks)
  //! Sliding window (causal only): a query attends to at most this many positions on a share
  //! `window_share` of the layers; the layer is priced at their mean (flash skips the blocks
  //! outside the window). 0: none.
  std::int64_t attention_window = 0;
  double window_share = 0.0;
  std::int64_t head_dim = 0;  //!< d; 0 = h / a
  bool qk_norm = false;       //!< a norm over each head's query and key (Qwen3)
  // Multi-head latent attention (kv_lora_rank > 0) instead of the fused QKV.
  std::int64_t q_lora_rank = 0;       //!< query latent; 0: queries projected from h directly
  std::int64_t kv_lora_rank = 0;      //!< key/value latent
  std::int64_t qk_nope_head_dim = 0;  //!< per-head query/key dimensions without rotary
  std::int64_t qk_rope_head_dim = 0;  //!< per-head query/key rotary dimensions (key shared)
  std::int64_t v_head_dim = 0;        //!< per-head value dimensions
  // Mixture-of-experts FFN (experts > 0) instead of the dense MLP.
  std::int64_t experts = 0;                 //!< E routed experts
  std::int64_t top_k = 0;                   //!< k experts per token
  std::int64_t expert_ffn = 0;              //!< one routed expert's FFN size
  std::int64_t shared_ffn = 0;              //!< all shared experts as one FFN; 0 = none
  bool shared_gate = false;                 //!< sigmoid gate h → 1 on the shared output
  std::int64_t expert_parallel = 1;         //!< e: the experts are spread over e GPUs
  std::int64_t expert_tensor_parallel = 0;  //!< e_t: each expert split over e_t GPUs; 0 = t
  //! Tokens this GPU's experts receive relative to the average k·tokens/e (load imbalance,
  //! already capped by a capacity factor): 1 = perfectly balanced.
  double expert_load = 1.0;
  //! The local experts' GEMMs as one grouped GEMM each (Megatron-Core's GroupedMLP,
  //! --moe-grouped-gemm), or expert by expert (SequentialMLP: a plain GEMM per expert, the
  //! outputs copied into a zero-filled buffer).
  bool grouped_gemm = true;
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
  //! The local experts' linear layer in one launch: a batched linear GEMM.
  bool grouped_gemm() const { return is_gemm && linear && batch > 1; }

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
    case MemoryOp::router_topk:
    case MemoryOp::router_topk_backward:
    case MemoryOp::moe_permute:
    case MemoryOp::moe_permute_backward:
    case MemoryOp::moe_unpermute:
    case MemoryOp::moe_unpermute_backward:
      break;
  }
  return k;
}

// A memory-bound kernel whose bytes are given.
inline LayerKernel memory_bytes(const char* name, MemoryOp op, std::int64_t rows, std::int64_t cols,
                                std::int64_t bytes) {
  LayerKernel k = memory(name, op, rows, cols, 0);
  k.bytes = bytes;
  return k;
}

// A linear layer's GEMM that is a grouped GEMM over `groups` experts (Transformer Engine's
// GroupedLinear, so fp8-capable like the other linear layers).
inline LayerKernel grouped(const char* name, std::int64_t m, std::int64_t n, std::int64_t k,
                           std::int64_t groups, bool ta, bool tb, std::int64_t e,
                           bool wgrad = false) {
  LayerKernel g = gemm(name, m, n, k, groups, ta, tb, e, wgrad);
  g.linear = true;
  return g;
}

// A GEMM outside Transformer Engine's modules (router, shared-expert gate): stays 16-bit.
inline LayerKernel plain_gemm(const char* name, std::int64_t m, std::int64_t n, std::int64_t k,
                              bool ta, bool tb, std::int64_t e, bool wgrad = false) {
  LayerKernel g = gemm(name, m, n, k, 1, ta, tb, e, wgrad);
  g.linear = false;
  return g;
}

// The share of a layer's query-key pairs attention computes: 1 unmasked, 1/2 causal (s²/2 of
// s² for large s); a causal window w over s keys leaves s·w − w²/2 pairs, w/s − (w/s)²/2,
// averaged with the full layers by the windowed share.
inline double attended_share(const LayerShape& shape, std::int64_t keys) {
  if (!shape.causal) return 1.0;
  if (shape.attention_window <= 0 || shape.attention_window >= keys) return 0.5;
  const double w = static_cast<double>(shape.attention_window) / static_cast<double>(keys);
  return shape.window_share * (w - 0.5 * w * w) + (1.0 - shape.window_share) * 0.5;
}

// The sizes one GPU works with, derived once from a LayerShape.
struct LayerDims {
  std::int64_t t, b, s, h, a, kv, d, bs, e, at, rows;
  std::int64_t skv;         // key/value positions each query row attends to: c·s
  std::int64_t f, fc1;      // dense FFN columns per GPU, [gate|up] or up
  std::int64_t q, k, v, o;  // per GPU: query, key, value widths; core output
  std::int64_t qkv;         // fused QKV columns per GPU (standard attention)
  std::int64_t dqk, dv;     // per-head query/key and value dimensions
  MemoryOp norm, norm_bwd, add;
  double causal, core;  // mask factor; QKᵀ + AV FLOPs unmasked
  bool mla, moe;
  // Mixture of experts: experts on this GPU, tokens (rows) per expert, FFN columns per GPU.
  std::int64_t local, per_expert, fe, fe1, fs, fs1;
};

inline LayerDims dims(const LayerShape& shape) {
  LayerDims x{};
  x.t = shape.tensor_parallel > 0 ? shape.tensor_parallel : 1;
  x.b = shape.batch;
  x.s = shape.seq;
  x.skv = x.s * (shape.context_parallel > 0 ? shape.context_parallel : 1);
  x.h = shape.hidden;
  x.a = shape.heads;
  x.kv = shape.kv_heads > 0 ? shape.kv_heads : x.a;
  x.d = shape.head_dim > 0 ? shape.head_dim : x.h / x.a;
  x.f = (shape.ffn > 0 ? shape.ffn : 4 * x.h) / x.t;
  x.bs = x.b * x.s;
  x.e = shape.elem_bytes;
  x.at = x.a / x.t;
  x.fc1 = shape.gated_mlp ? 2 * x.f : x.f;
  x.rows = shape.sequence_parallel ? x.bs / x.t : x.bs;
  x.norm = shape.rmsnorm ? MemoryOp::rmsnorm : MemoryOp::layernorm;
  x.norm_bwd = shape.rmsnorm ? MemoryOp::rmsnorm_backward : MemoryOp::layernorm_backward;
  x.add = shape.dropout ? MemoryOp::dropout_residual : MemoryOp::residual;
  x.causal = attended_share(shape, x.skv);
  x.mla = shape.kv_lora_rank > 0;
  if (x.mla) {
    x.dqk = shape.qk_nope_head_dim + shape.qk_rope_head_dim;
    x.dv = shape.v_head_dim;
    x.q = x.at * x.dqk;
    x.k = x.at * x.dqk;
    x.v = x.at * x.dv;
    x.o = x.at * x.dv;
    x.core = 2.0 * static_cast<double>(x.bs) * static_cast<double>(x.skv) *
             static_cast<double>(x.a * (x.dqk + x.dv)) / static_cast<double>(x.t);
  } else {
    x.dqk = x.dv = x.d;
    x.q = x.o = x.a * x.d / x.t;
    x.k = x.v = x.kv * x.d / x.t;
    x.qkv = (x.a * x.d + 2 * x.kv * x.d) / x.t;
    x.core = 4.0 * static_cast<double>(x.bs) * static_cast<double>(x.skv) *
             static_cast<double>(x.a * x.d) / static_cast<double>(x.t);  // QKᵀ + AV
  }
  x.moe = shape.experts > 0;
  if (x.moe) {
    const std::int64_t ep = shape.expert_parallel > 0 ? shape.expert_parallel : 1;
    const std::int64_t et = shape.expert_tensor_parallel > 0 ? shape.expert_tensor_parallel : x.t;
    x.local = shape.experts / ep > 0 ? shape.experts / ep : 1;
    // The tokens an expert-tensor-parallel group's experts see: its e_t GPUs' sequence shards
    // gathered (with sequence parallelism), else the b·s tokens every GPU holds. Each token goes
    // to k experts; spread evenly, this GPU's E/e experts get k·tokens·load rows between them.
    const double tokens = shape.sequence_parallel
                              ? static_cast<double>(x.rows) * static_cast<double>(et)
                              : static_cast<double>(x.bs);
    const double routed = static_cast<double>(shape.top_k) * tokens * shape.expert_load;
    const double per = routed / static_cast<double>(x.local);
    x.per_expert = static_cast<std::int64_t>(per);
    if (static_cast<double>(x.per_expert) < per) ++x.per_expert;  // a partial tile still runs
    x.fe = shape.expert_ffn / et;
    x.fe1 = shape.gated_mlp ? 2 * x.fe : x.fe;
    x.fs = shape.shared_ffn / x.t;
    x.fs1 = shape.gated_mlp ? 2 * x.fs : x.fs;
  }
  return x;
}

// Bytes of the mixture-of-experts memory-bound kernels over `rows` local tokens: the router's
// fp32 scores and 1-byte routing map over E experts (Megatron-Core's router writes both dense),
// and the permutations that move each token's k copies of h elements.
inline std::int64_t moe_bytes(MemoryOp op, std::int64_t rows, std::int64_t experts, std::int64_t k,
                              std::int64_t h, std::int64_t e) {
  switch (op) {
    case MemoryOp::router_topk:
      return rows * experts * (e + 4 + 1);
    case MemoryOp::router_topk_backward:
      return rows * experts * (4 + 4 + e);
    case MemoryOp::moe_permute:
    case MemoryOp::moe_permute_backward:
    case MemoryOp::moe_unpermute:
      return (1 + k) * rows * h * e;
    case MemoryOp::moe_unpermute_backward:
      return (1 + 2 * k) * rows * h * e;
    default:
      return 0;
  }
}

inline LayerKernel moe_kernel(const char* name, MemoryOp op, const LayerDims& x,
                              const LayerShape& shape) {
  const bool router = op == MemoryOp::router_topk || op == MemoryOp::router_topk_backward;
  const std::int64_t cols = router ? shape.experts : x.h;
  return memory_bytes(name, op, x.rows, cols,
                      moe_bytes(op, x.rows, shape.experts, shape.top_k, x.h, x.e));
}

// Appends the attention projections before the core (forward).
inline void attention_in_forward(KernelList& ks, const LayerShape& shape, const LayerDims& x) {
  if (!x.mla) {
    ks.push_back(gemm("qkv", x.bs, x.qkv, x.h, 1, false, true, x.e));
    if (shape.qk_norm) {
      ks.push_back(memory("q_head_norm", x.norm, x.bs * x.at, x.d, x.e));
      ks.push_back(memory("k_head_norm", x.norm, x.bs * (x.k / x.d), x.d, x.e));
    }
    return;
  }
  const std::int64_t ql = shape.q_lora_rank, kvl = shape.kv_lora_rank;
  if (ql > 0) {
    ks.push_back(gemm("q_down", x.bs, ql, x.h, 1, false, true, x.e));
    ks.push_back(memory("q_norm", x.norm, x.bs, ql, x.e));
    ks.push_back(gemm("q_up", x.bs, x.q, ql, 1, false, true, x.e));
  } else {
    ks.push_back(gemm("q_proj", x.bs, x.q, x.h, 1, false, true, x.e));
  }
  ks.push_back(gemm("kv_down", x.bs, kvl + shape.qk_rope_head_dim, x.h, 1, false, true, x.e));
  ks.push_back(memory("kv_norm", x.norm, x.bs, kvl, x.e));
  ks.push_back(gemm("kv_up", x.bs, x.at * shape.qk_nope_head_dim + x.v, kvl, 1, false, true, x.e));
}

// Appends the gradients of the attention projections before the core (backward, reversed).
inline void attention_in_backward(KernelList& ks, const LayerShape& shape, const LayerDims& x) {
  if (!x.mla) {
    if (shape.qk_norm) {
      ks.push_back(memory("k_head_norm_bwd", x.norm_bwd, x.bs * (x.k / x.d), x.d, x.e));
      ks.push_back(memory("q_head_norm_bwd", x.norm_bwd, x.bs * x.at, x.d, x.e));
    }
    ks.push_back(gemm("qkv_dgrad", x.bs, x.h, x.qkv, 1, false, false, x.e));
    ks.push_back(gemm("qkv_wgrad", x.qkv, x.h, x.bs, 1, true, false, x.e, true));
    return;
  }
  const std::int64_t ql = shape.q_lora_rank, kvl = shape.kv_lora_rank;
  const std::int64_t kv_up = x.at * shape.qk_nope_head_dim + x.v;
  const std::int64_t kv_down = kvl + shape.qk_rope_head_dim;
  ks.push_back(gemm("kv_up_dgrad", x.bs, kvl, kv_up, 1, false, false, x.e));
  ks.push_back(gemm("kv_up_wgrad", kv_up, kvl, x.bs, 1, true, false, x.e, true));
  ks.push_back(memory("kv_norm_bwd", x.norm_bwd, x.bs, kvl, x.e));
  ks.push_back(gemm("kv_down_dgrad", x.bs, x.h, kv_down, 1, false, false, x.e));
  ks.push_back(gemm("kv_down_wgrad", kv_down, x.h, x.bs, 1, true, false, x.e, true));
  if (ql > 0) {
    ks.push_back(gemm("q_up_dgrad", x.bs, ql, x.q, 1, false, false, x.e));
    ks.push_back(gemm("q_up_wgrad", x.q, ql, x.bs, 1, true, false, x.e, true));
    ks.push_back(memory("q_norm_bwd", x.norm_bwd, x.bs, ql, x.e));
    ks.push_back(gemm("q_down_dgrad", x.bs, x.h, ql, 1, false, false, x.e));
    ks.push_back(gemm("q_down_wgrad", ql, x.h, x.bs, 1, true, false, x.e, true));
  } else {
    ks.push_back(gemm("q_proj_dgrad", x.bs, x.h, x.q, 1, false, false, x.e));
    ks.push_back(gemm("q_proj_wgrad", x.q, x.h, x.bs, 1, true, false, x.e, true));
  }
}

// Appends an FFN of `cols` columns per GPU (fc1 `cols1`) over `rows` tokens: the dense MLP, or
// the shared experts under their own names.
inline void mlp_forward(KernelList& ks, const LayerShape& shape, std::int64_t rows,
                        std::int64_t cols, std::int64_t cols1, std::int64_t h, std::int64_t e,
                        const char* const names[3]) {
  ks.push_back(gemm(names[0], rows, cols1, h, 1, false, true, e));
  ks.push_back(shape.gated_mlp ? memory(names[1], MemoryOp::swiglu, rows, cols, e)
                               : memory(names[1], MemoryOp::gelu, rows, cols, e));
  ks.push_back(gemm(names[2], rows, h, cols, 1, false, true, e));
}

inline void mlp_backward(KernelList& ks, const LayerShape& shape, std::int64_t rows,
                         std::int64_t cols, std::int64_t cols1, std::int64_t h, std::int64_t e,
                         const char* const names[5]) {
  ks.push_back(gemm(names[0], rows, cols, h, 1, false, false, e));
  ks.push_back(gemm(names[1], h, cols, rows, 1, true, false, e, true));
  ks.push_back(shape.gated_mlp ? memory(names[2], MemoryOp::swiglu_backward, rows, cols, e)
                               : memory(names[2], MemoryOp::gelu_backward, rows, cols, e));
  ks.push_back(gemm(names[3], rows, h, cols1, 1, false, false, e));
  ks.push_back(gemm(names[4], cols1, h, rows, 1, true, false, e, true));
}

// The mixture-of-experts FFN (forward): router, permutation, the local experts' grouped GEMMs,
// unpermutation, shared experts.
inline void moe_forward(KernelList& ks, const LayerShape& shape, const LayerDims& x) {
  const std::int64_t m = x.per_expert, n = x.local, expert_rows = m * n;
  ks.push_back(plain_gemm("router", x.rows, shape.experts, x.h, false, true, x.e));
  ks.push_back(moe_kernel("router_topk", MemoryOp::router_topk, x, shape));
  ks.push_back(moe_kernel("moe_permute", MemoryOp::moe_permute, x, shape));
  if (!shape.grouped_gemm) {
    // SequentialMLP zero-fills the output buffer, runs each expert's MLP on its slice of rows
    // and copies the expert's output into it (Megatron-Core SequentialMLP.forward).
    ks.push_back(memory_bytes("expert_output_zero", MemoryOp::other, expert_rows, x.h,
                              expert_rows * x.h * x.e));
    for (std::int64_t i = 0; i < n; ++i) {
      ks.push_back(grouped("expert_fc1", m, x.fe1, x.h, 1, false, true, x.e));
      ks.push_back(shape.gated_mlp ? memory("expert_swiglu", MemoryOp::swiglu, m, x.fe, x.e)
                                   : memory("expert_gelu", MemoryOp::gelu, m, x.fe, x.e));
      ks.push_back(grouped("expert_fc2", m, x.h, x.fe, 1, false, true, x.e));
      ks.push_back(memory_bytes("expert_output_copy", MemoryOp::other, m, x.h, 2 * m * x.h * x.e));
    }
  } else {
    ks.push_back(grouped("expert_fc1", m, x.fe1, x.h, n, false, true, x.e));
    ks.push_back(shape.gated_mlp ? memory("expert_swiglu", MemoryOp::swiglu, expert_rows, x.fe, x.e)
                                 : memory("expert_gelu", MemoryOp::gelu, expert_rows, x.fe, x.e));
    ks.push_back(grouped("expert_fc2", m, x.h, x.fe, n, false, true, x.e));
  }
  ks.push_back(moe_kernel("moe_unpermute", MemoryOp::moe_unpermute, x, shape));
  if (x.fs > 0) {
    const char* const names[3] = {"shared_fc1", shape.gated_mlp ? "shared_swiglu" : "shared_gelu",
                                  "shared_fc2"};
    mlp_forward(ks, shape, x.bs, x.fs, x.fs1, x.h, x.e, names);
    if (shape.shared_gate) ks.push_back(plain_gemm("shared_gate", x.bs, 1, x.h, false, true, x.e));
  }
}

inline void moe_backward(KernelList& ks, const LayerShape& shape, const LayerDims& x) {
  const std::int64_t m = x.per_expert, n = x.local, expert_rows = m * n;
  if (x.fs > 0) {
    if (shape.shared_gate) {
      ks.push_back(plain_gemm("shared_gate_dgrad", x.bs, x.h, 1, false, false, x.e));
      ks.push_back(plain_gemm("shared_gate_wgrad", 1, x.h, x.bs, true, false, x.e, true));
    }
    const char* const names[5] = {"shared_fc2_dgrad", "shared_fc2_wgrad",
                                  shape.gated_mlp ? "shared_swiglu_bwd" : "shared_gelu_bwd",
                                  "shared_fc1_dgrad", "shared_fc1_wgrad"};
    mlp_backward(ks, shape, x.bs, x.fs, x.fs1, x.h, x.e, names);
  }
  ks.push_back(moe_kernel("moe_unpermute_bwd", MemoryOp::moe_unpermute_backward, x, shape));
  if (!shape.grouped_gemm) {
    // SequentialMLP, expert by expert; each expert's input is a slice of the permuted rows, so
    // autograd's slice backward zero-fills a full-size gradient and copies the slice into it,
    // and the n gradients are summed (PyTorch SliceBackward0, autograd input accumulation).
    for (std::int64_t i = 0; i < n; ++i) {
      ks.push_back(grouped("expert_fc2_dgrad", m, x.fe, x.h, 1, false, false, x.e));
      ks.push_back(grouped("expert_fc2_wgrad", x.h, x.fe, m, 1, true, false, x.e, true));
      ks.push_back(shape.gated_mlp
                       ? memory("expert_swiglu_bwd", MemoryOp::swiglu_backward, m, x.fe, x.e)
                       : memory("expert_gelu_bwd", MemoryOp::gelu_backward, m, x.fe, x.e));
      ks.push_back(grouped("expert_fc1_dgrad", m, x.h, x.fe1, 1, false, false, x.e));
      ks.push_back(grouped("expert_fc1_wgrad", x.fe1, x.h, m, 1, true, false, x.e, true));
      ks.push_back(memory_bytes("expert_slice_bwd", MemoryOp::other, expert_rows, x.h,
                                (expert_rows + 2 * m) * x.h * x.e));
      if (i > 0) {
        ks.push_back(memory_bytes("expert_grad_sum", MemoryOp::other, expert_rows, x.h,
                                  3 * expert_rows * x.h * x.e));
      }
    }
  } else {
    ks.push_back(grouped("expert_fc2_dgrad", m, x.fe, x.h, n, false, false, x.e));
    ks.push_back(grouped("expert_fc2_wgrad", x.h, x.fe, m, n, true, false, x.e, true));
    ks.push_back(
        shape.gated_mlp
            ? memory("expert_swiglu_bwd", MemoryOp::swiglu_backward, expert_rows, x.fe, x.e)
            : memory("expert_gelu_bwd", MemoryOp::gelu_backward, expert_rows, x.fe, x.e));
    ks.push_back(grouped("expert_fc1_dgrad", m, x.h, x.fe1, n, false, false, x.e));
    ks.push_back(grouped("expert_fc1_wgrad", x.fe1, x.h, m, n, true, false, x.e, true));
  }
  ks.push_back(moe_kernel("moe_permute_bwd", MemoryOp::moe_permute_backward, x, shape));
  ks.push_back(moe_kernel("router_topk_bwd", MemoryOp::router_topk_backward, x, shape));
  ks.push_back(plain_gemm("router_dgrad", x.rows, x.h, shape.experts, false, false, x.e));
  ks.push_back(plain_gemm("router_wgrad", shape.experts, x.h, x.rows, true, false, x.e, true));
}

}  // namespace layer_detail

//! The kernels of one layer's forward or backward on one GPU, in launch order. In the backward,
//! the weight-gradient GEMMs carry `weight_gradient` (a split backward runs them as W).
inline KernelList layer_kernels(const LayerShape& shape, LayerDirection direction) {
  using layer_detail::gemm;
  using layer_detail::memory;
  const layer_detail::LayerDims x = layer_detail::dims(shape);
  const std::int64_t b = x.b, s = x.s, h = x.h, bs = x.bs, e = x.e, at = x.at, rows = x.rows;
  const std::int64_t skv = x.skv;
  const std::int64_t q_bytes = bs * x.q * e, o_bytes = bs * x.o * e;
  const std::int64_t kv_bytes = bs * x.k * e + bs * x.v * e;
  const std::int64_t lse = 4 * b * at * s;  // fp32 log-sum-exp per query row
  const char* const mlp_fwd[3] = {"fc1", shape.gated_mlp ? "swiglu" : "gelu", "fc2"};
  const char* const mlp_bwd[5] = {"fc2_dgrad", "fc2_wgrad",
                                  shape.gated_mlp ? "swiglu_bwd" : "gelu_bwd", "fc1_dgrad",
                                  "fc1_wgrad"};
  KernelList ks;
  if (direction == LayerDirection::forward) {
    ks.push_back(memory("ln1", x.norm, rows, h, e));
    layer_detail::attention_in_forward(ks, shape, x);
    if (shape.flash) {
      LayerKernel fa = memory("flash_attn", MemoryOp::flash_attention, b * at * s, x.dqk, e);
      fa.fused_flops = x.causal * x.core;
      // Q, K, V in (the K, V of all c chunks with context parallelism); O and LSE out
      fa.bytes = q_bytes + o_bytes + kv_bytes * (skv / s) + lse;
      ks.push_back(fa);
    } else {
      ks.push_back(gemm("scores", s, skv, x.dqk, b * at, true, false, e));
      ks.push_back(memory("softmax", MemoryOp::softmax, b * at * s, skv, e));
      if (shape.dropout) {
        ks.push_back(memory("attn_dropout", MemoryOp::dropout, b * at * s, skv, e));
      }
      ks.push_back(gemm("context", s, x.dv, skv, b * at, false, false, e));
    }
    ks.push_back(gemm("proj", bs, h, x.o, 1, false, true, e));
    ks.push_back(memory("proj_dropout_residual", x.add, rows, h, e));
    ks.push_back(memory("ln2", x.norm, rows, h, e));
    if (x.moe) {
      layer_detail::moe_forward(ks, shape, x);
    } else {
      layer_detail::mlp_forward(ks, shape, bs, x.f, x.fc1, h, e, mlp_fwd);
    }
    ks.push_back(memory("mlp_dropout_residual", x.add, rows, h, e));
  } else {
    // Reverse order; every weight GEMM splits into a data-gradient and a weight-gradient GEMM.
    // Without dropout the residual's gradient passes through (no kernel).
    if (shape.dropout) {
      ks.push_back(memory("mlp_dropout_bwd", MemoryOp::dropout_backward, rows, h, e));
    }
    if (x.moe) {
      layer_detail::moe_backward(ks, shape, x);
    } else {
      layer_detail::mlp_backward(ks, shape, bs, x.f, x.fc1, h, e, mlp_bwd);
    }
    ks.push_back(memory("ln2_bwd", x.norm_bwd, rows, h, e));
    if (shape.dropout) {
      ks.push_back(memory("proj_dropout_bwd", MemoryOp::dropout_backward, rows, h, e));
    }
    ks.push_back(gemm("proj_dgrad", bs, x.o, h, 1, false, false, e));
    ks.push_back(gemm("proj_wgrad", h, x.o, bs, 1, true, false, e, true));
    if (shape.flash) {
      LayerKernel fa =
          memory("flash_attn_bwd", MemoryOp::flash_attention_backward, b * at * s, x.dqk, e);
      fa.fused_flops = 2.5 * x.causal * x.core;
      // Q, K, V, O, dO, LSE in; dQ, dK, dV out
      fa.bytes = 2 * q_bytes + 2 * o_bytes + 2 * kv_bytes * (skv / s) + lse;
      ks.push_back(fa);
    } else {
      ks.push_back(gemm("context_dprobs", s, skv, x.dv, b * at, false, true, e));
      ks.push_back(gemm("context_dv", skv, x.dv, s, b * at, true, false, e));
      if (shape.dropout) {
        ks.push_back(memory("attn_dropout_bwd", MemoryOp::dropout_backward, b * at * s, skv, e));
      }
      ks.push_back(memory("softmax_bwd", MemoryOp::softmax_backward, b * at * s, skv, e));
      ks.push_back(gemm("scores_dq", s, x.dqk, skv, b * at, false, false, e));
      ks.push_back(gemm("scores_dk", skv, x.dqk, s, b * at, true, false, e));
    }
    layer_detail::attention_in_backward(ks, shape, x);
    ks.push_back(memory("ln1_bwd", x.norm_bwd, rows, h, e));
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
