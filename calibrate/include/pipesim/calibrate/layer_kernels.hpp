#pragma once
// One transformer layer (GPT block as in Megatron-LM, no tensor parallelism) written as the
// ordered list of kernels its forward and its backward launch. This header is the single source
// of truth shared by the CUDA layer benchmark (which runs exactly these kernels) and the CPU
// layer check (which predicts each of them with the cost model's formulas), so the two can
// never disagree on what "one layer" is.
//
// Plain C++17 with no dependencies: it compiles under nvcc on a bare GPU node and under the
// pipesim warning set (-Wconversion) on the host.
//
// FLOP counts reproduce Narayanan et al. (SC'21): forward 24·b·s·h² + 4·b·s²·h, backward 2×.
// Memory-bound kernels move the bytes counted here and no more: each reads and writes every
// element once (single-pass row kernels for softmax and layer norm), masks are one byte.

#include <cstdint>
#include <string>
#include <vector>

namespace pipesim::calibrate {

enum class LayerDirection { forward, backward };

//! Which memory-bound kernel a LayerKernel is (the benchmark dispatches on it).
enum class MemoryOp {
  none,
  layernorm,           //!< y = LN(x) per row of h: read x, write y, write mean/rstd
  softmax,             //!< row softmax over s: read, write
  dropout,             //!< y = mask ? x/p : 0: read x, write y, write 1-byte mask
  dropout_residual,    //!< y = dropout(x) + r: read x, r, write y, mask
  gelu,                //!< y = gelu(x): read, write
  layernorm_backward,  //!< dx = LN'(x, dy) + dr: read x, dy, dr, mean/rstd, write dx
  softmax_backward,    //!< dx = y ⊙ (dy − Σ y·dy): read y, dy, write dx
  dropout_backward,    //!< dx = mask ? dy/p : 0: read dy, mask, write dx
  gelu_backward,       //!< dx = gelu'(x)·dy: read x, dy, write dx
};

struct LayerShape {
  std::int64_t batch = 1;       //!< b, micro-batch size
  std::int64_t seq = 2048;      //!< s
  std::int64_t hidden = 4096;   //!< h
  std::int64_t heads = 32;      //!< a; head dim d = h / a
  std::int64_t elem_bytes = 2;  //!< bf16 activations and weights
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

  double flops() const {
    return is_gemm ? 2.0 * static_cast<double>(m) * static_cast<double>(n) *
                         static_cast<double>(k) * static_cast<double>(batch)
                   : 0.0;
  }
};

namespace layer_detail {

inline LayerKernel gemm(const char* name, std::int64_t m, std::int64_t n, std::int64_t k,
                        std::int64_t batch, bool ta, bool tb, std::int64_t e) {
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
    case MemoryOp::softmax:
      k.bytes = 2 * n * e;
      break;
    case MemoryOp::dropout:
      k.bytes = n * (2 * e + 1);
      break;
    case MemoryOp::dropout_residual:
      k.bytes = n * (3 * e + 1);
      break;
    case MemoryOp::gelu:
      k.bytes = 2 * n * e;
      break;
    case MemoryOp::layernorm_backward:
      k.bytes = 4 * n * e + stats;
      break;
    case MemoryOp::softmax_backward:
      k.bytes = 3 * n * e;
      break;
    case MemoryOp::dropout_backward:
      k.bytes = n * (2 * e + 1);
      break;
    case MemoryOp::gelu_backward:
      k.bytes = 3 * n * e;
      break;
    case MemoryOp::none:
      break;
  }
  return k;
}

}  // namespace layer_detail

//! The kernels of one layer's forward or backward, in launch order.
inline std::vector<LayerKernel> layer_kernels(const LayerShape& shape, LayerDirection direction) {
  using layer_detail::gemm;
  using layer_detail::memory;
  const std::int64_t b = shape.batch, s = shape.seq, h = shape.hidden, a = shape.heads;
  const std::int64_t d = h / a, bs = b * s, e = shape.elem_bytes;
  std::vector<LayerKernel> ks;
  if (direction == LayerDirection::forward) {
    ks.push_back(memory("ln1", MemoryOp::layernorm, bs, h, e));
    ks.push_back(gemm("qkv", bs, 3 * h, h, 1, false, true, e));
    ks.push_back(gemm("scores", s, s, d, b * a, true, false, e));
    ks.push_back(memory("softmax", MemoryOp::softmax, b * a * s, s, e));
    ks.push_back(memory("attn_dropout", MemoryOp::dropout, b * a * s, s, e));
    ks.push_back(gemm("context", s, d, s, b * a, false, false, e));
    ks.push_back(gemm("proj", bs, h, h, 1, false, true, e));
    ks.push_back(memory("proj_dropout_residual", MemoryOp::dropout_residual, bs, h, e));
    ks.push_back(memory("ln2", MemoryOp::layernorm, bs, h, e));
    ks.push_back(gemm("fc1", bs, 4 * h, h, 1, false, true, e));
    ks.push_back(memory("gelu", MemoryOp::gelu, bs, 4 * h, e));
    ks.push_back(gemm("fc2", bs, h, 4 * h, 1, false, true, e));
    ks.push_back(memory("mlp_dropout_residual", MemoryOp::dropout_residual, bs, h, e));
  } else {
    // Reverse order; every weight GEMM splits into a data-gradient and a weight-gradient GEMM.
    ks.push_back(memory("mlp_dropout_bwd", MemoryOp::dropout_backward, bs, h, e));
    ks.push_back(gemm("fc2_dgrad", bs, 4 * h, h, 1, false, false, e));
    ks.push_back(gemm("fc2_wgrad", h, 4 * h, bs, 1, true, false, e));
    ks.push_back(memory("gelu_bwd", MemoryOp::gelu_backward, bs, 4 * h, e));
    ks.push_back(gemm("fc1_dgrad", bs, h, 4 * h, 1, false, false, e));
    ks.push_back(gemm("fc1_wgrad", 4 * h, h, bs, 1, true, false, e));
    ks.push_back(memory("ln2_bwd", MemoryOp::layernorm_backward, bs, h, e));
    ks.push_back(memory("proj_dropout_bwd", MemoryOp::dropout_backward, bs, h, e));
    ks.push_back(gemm("proj_dgrad", bs, h, h, 1, false, false, e));
    ks.push_back(gemm("proj_wgrad", h, h, bs, 1, true, false, e));
    ks.push_back(gemm("context_dprobs", s, s, d, b * a, false, true, e));
    ks.push_back(gemm("context_dv", s, d, s, b * a, true, false, e));
    ks.push_back(memory("attn_dropout_bwd", MemoryOp::dropout_backward, b * a * s, s, e));
    ks.push_back(memory("softmax_bwd", MemoryOp::softmax_backward, b * a * s, s, e));
    ks.push_back(gemm("scores_dq", s, d, s, b * a, false, false, e));
    ks.push_back(gemm("scores_dk", s, d, s, b * a, true, false, e));
    ks.push_back(gemm("qkv_dgrad", bs, h, 3 * h, 1, false, false, e));
    ks.push_back(gemm("qkv_wgrad", 3 * h, h, bs, 1, true, false, e));
    ks.push_back(memory("ln1_bwd", MemoryOp::layernorm_backward, bs, h, e));
  }
  return ks;
}

}  // namespace pipesim::calibrate
