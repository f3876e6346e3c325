#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

double d(long x) {
  return static_cast<double>(x);
}

double sbh(const ModelSpec& m, int b) {
  return d(m.sequence) * d(b) * d(m.hidden);
}

KernelList select(const KernelList& ks, bool weight_gradient) {
  KernelList out;
  for (const LayerKernel& k : ks) {
    if (k.weight_gradient == weight_gradient) out.push_back(k);
  }
  return out;
}

// A memory-bound kernel outside the layer with its bytes given.
LayerKernel other(const char* name, double bytes) {
  LayerKernel k;
  k.name = name;
  k.op = MemoryOp::other;
  k.bytes = static_cast<std::int64_t>(bytes);
  return k;
}

// 1/t for tensors in the sequence-parallel region (norms, dropout, residual), else 1.
double sp_share(const LayerConfig& c) {
  return c.sequence_parallel ? 1.0 / c.tensor_parallel : 1.0;
}

}  // namespace

double activation_element_bytes(Precision p) {
  return p == Precision::FP32 ? 4.0 : 2.0;
}

LayerShape layer_shape(const ModelSpec& m, const LayerConfig& c) {
  LayerShape s;
  s.batch = c.micro_batch_size;
  s.seq = m.sequence;
  s.hidden = m.hidden;
  s.heads = m.heads;
  s.elem_bytes = static_cast<std::int64_t>(activation_element_bytes(m.precision));
  s.kv_heads = m.kv_heads;
  s.ffn = m.ffn_hidden;
  s.gated_mlp = m.gated_mlp;
  s.rmsnorm = m.norm == Norm::RMSNorm;
  s.dropout = m.dropout;
  s.tensor_parallel = c.tensor_parallel;
  s.sequence_parallel = c.sequence_parallel;
  s.flash = c.attention == Attention::Flash;
  s.causal = m.causal;
  return s;
}

core::Flops kernel_flops(const KernelList& ks) {
  double f = 0;
  for (const LayerKernel& k : ks)
    f += k.flops();
  return core::Flops(f);
}

core::Bytes kernel_memory_bytes(const KernelList& ks) {
  double b = 0;
  for (const LayerKernel& k : ks) {
    if (!k.compute_bound()) b += d(k.bytes);
  }
  return core::Bytes(b);
}

double layer_matmul_params(const ModelSpec& m) {
  const double h = d(m.hidden), f = d(m.ffn_hidden);
  return 2 * h * h + 2 * h * d(m.kv_hidden()) + (m.gated_mlp ? 3.0 : 2.0) * h * f;
}

double layer_params(const ModelSpec& m) {
  return layer_params_per_gpu(m, 1);
}

double layer_params_per_gpu(const ModelSpec& m, int t) {
  // [N21]: 12h² + 13h for a GPT layer = QKV 3h²+3h, projection h²+h, MLP 8h²+5h, two
  // LayerNorms 4h. Generalised to grouped-query attention, gated MLPs, bias-free layers and
  // RMSNorm (Touvron et al., "Llama 2", arXiv 2307.09288, §2.2); split over t as [S19].
  const double h = d(m.hidden), f = d(m.ffn_hidden), kv = d(m.kv_hidden()), tp = t;
  double p = layer_matmul_params(m) / tp;
  if (m.bias) {
    p += (h + 2 * kv + (m.gated_mlp ? 2 * f : f)) / tp + 2 * h;  // column / row parallel
  } else if (m.qkv_bias) {
    p += (h + 2 * kv) / tp;  // Qwen2: Q, K, V biases only (column parallel)
  }
  p += 2 * (m.norm == Norm::LayerNorm ? 2 * h : h);
  return p;
}

double embedding_params(const ModelSpec& m) {
  return embedding_params_per_gpu(m, 1);
}

double embedding_params_per_gpu(const ModelSpec& m, int t) {
  return d(m.vocabulary) * d(m.hidden) / t + d(m.position_embeddings) * d(m.hidden);
}

double head_params(const ModelSpec& m) {
  return head_params_per_gpu(m, 1);
}

double head_params_per_gpu(const ModelSpec& m, int t) {
  const double final_norm = m.norm == Norm::LayerNorm ? 2.0 * d(m.hidden) : d(m.hidden);
  const double lm_head = m.tied_embeddings ? 0.0 : d(m.vocabulary) * d(m.hidden) / t;
  return final_norm + lm_head + m.extra_parameters;
}

double model_params(const ModelSpec& m) {
  return d(m.layers) * layer_params(m) + embedding_params(m) + head_params(m);
}

KernelList layer_forward(const ModelSpec& m, const LayerConfig& c) {
  return layer_kernels(layer_shape(m, c), LayerDirection::forward);
}

KernelList layer_backward_input(const ModelSpec& m, const LayerConfig& c) {
  return select(layer_kernels(layer_shape(m, c), LayerDirection::backward), false);
}

KernelList layer_backward_weight(const ModelSpec& m, const LayerConfig& c) {
  return select(layer_kernels(layer_shape(m, c), LayerDirection::backward), true);
}

KernelList layer_recompute(const ModelSpec& m, const LayerConfig& c, Recompute r) {
  switch (r) {
    case Recompute::None:
      return {};
    case Recompute::Full:
      return layer_forward(m, c);
    case Recompute::Selective:
      return attention_core_kernels(layer_shape(m, c));  // [K22 §5]
  }
  return {};
}

namespace {

// The head's dimensions on one GPU: b·s rows (b·s/t in the sequence-parallel region), V/t
// vocabulary columns (Megatron's vocabulary-parallel head; padding of V not modelled).
struct HeadDims {
  LayerShape sh;
  std::int64_t bs = 0, rows = 0, vt = 0;
  MemoryOp norm = MemoryOp::layernorm, norm_backward = MemoryOp::layernorm_backward;
};

// The LM head's GEMMs: Megatron's output layer is not a Transformer Engine module, so it stays
// in 16-bit under fp8 training (not `linear`).
LayerKernel head_gemm(const char* name, std::int64_t m, std::int64_t n, std::int64_t k, bool ta,
                      bool tb, std::int64_t e, bool wgrad) {
  LayerKernel g = layer_detail::gemm(name, m, n, k, 1, ta, tb, e, wgrad);
  g.linear = false;
  return g;
}

HeadDims head_dims(const ModelSpec& m, const LayerConfig& c) {
  HeadDims h;
  h.sh = layer_shape(m, c);
  h.bs = h.sh.batch * h.sh.seq;
  h.rows = c.sequence_parallel ? h.bs / h.sh.tensor_parallel : h.bs;
  h.vt = m.vocabulary / c.tensor_parallel;
  if (h.sh.rmsnorm) {
    h.norm = MemoryOp::rmsnorm;
    h.norm_backward = MemoryOp::rmsnorm_backward;
  }
  return h;
}

}  // namespace

KernelList head_forward(const ModelSpec& m, const LayerConfig& c) {
  const HeadDims h = head_dims(m, c);
  const std::int64_t e = h.sh.elem_bytes;
  // fp32 logits: write, softmax read and write (the loss is memory-bound over b·s·V/t).
  return {layer_detail::memory("final_norm", h.norm, h.rows, h.sh.hidden, e),
          head_gemm("logits", h.bs, h.vt, h.sh.hidden, false, true, e, false),
          other("cross_entropy", 3.0 * 4.0 * d(h.bs) * d(h.vt))};
}

KernelList head_backward_input(const ModelSpec& m, const LayerConfig& c) {
  const HeadDims h = head_dims(m, c);
  const std::int64_t e = h.sh.elem_bytes;
  return {other("cross_entropy_bwd", 2.0 * 4.0 * d(h.bs) * d(h.vt)),
          head_gemm("logits_dgrad", h.bs, h.sh.hidden, h.vt, false, false, e, false),
          layer_detail::memory("final_norm_bwd", h.norm_backward, h.rows, h.sh.hidden, e)};
}

KernelList head_backward_weight(const ModelSpec& m, const LayerConfig& c) {
  const HeadDims h = head_dims(m, c);
  return {head_gemm("logits_wgrad", h.vt, h.sh.hidden, h.bs, true, false, h.sh.elem_bytes, true)};
}

KernelList embedding_forward(const ModelSpec& m, const LayerConfig& c) {
  const double e = activation_element_bytes(m.precision);
  KernelList ks{other("embedding", 2 * sbh(m, c.micro_batch_size) * e)};  // gather + positions
  if (m.dropout)
    ks.push_back(
        other("embedding_dropout", sbh(m, c.micro_batch_size) * sp_share(c) * (2 * e + 1)));
  return ks;
}

KernelList embedding_backward_weight(const ModelSpec& m, const LayerConfig& c) {
  const double e = activation_element_bytes(m.precision);
  KernelList ks{other("embedding_wgrad", 2 * sbh(m, c.micro_batch_size) * e)};  // scatter-add
  ks.back().weight_gradient = true;
  return ks;
}

core::Bytes layer_activation_bytes(const ModelSpec& m, const LayerConfig& c, Recompute r) {
  // [K22] §4.1–4.2 itemised per GPU, e = element bytes, masks 1 byte; "rep" = the norm /
  // dropout / residual region (replicated over t, or / t with sequence parallelism), "tp" =
  // tensors split over t by the column/row-parallel GEMMs:
  //   attention: QKV input e·sbh (rep), Q e·sbh and K, V e·sb·h_kv each (tp), projection input
  //              e·sbh (tp), projection dropout mask sbh (rep); core: softmax output e·as²b,
  //              dropout mask as²b and output e·as²b (tp; 5as²b at e = 2) — without dropout the
  //              softmax output only; FlashAttention: the fp32 log-sum-exp 4·asb (tp);
  //   MLP: input e·sbh (rep), FFN-wide tensors e·sbf each (tp; GeLU input and fc2 input: 2;
  //        SwiGLU [gate|up] and product: 3), dropout mask sbh (rep);
  //   two norms: input e·sbh each (rep).
  // A 16-bit GPT layer: rep 10sbh, tp 24sbh + 5as²b → sbh(10 + 24/t + 5as/(ht)) [K22 Table 2].
  const int b = c.micro_batch_size;
  const double e = activation_element_bytes(m.precision), t = c.tensor_parallel;
  const double a = d(m.heads), s = d(m.sequence), sb = s * d(b), f = d(m.ffn_hidden);
  const double x = sbh(m, b), rep = sp_share(c), mask = m.dropout ? 1.0 : 0.0;
  const double replicated = (e * x + mask * x) + (e * x + mask * x) + 2 * e * x;
  const double split =
      e * (2 * x + 2 * sb * d(m.kv_hidden())) + (m.gated_mlp ? 3.0 : 2.0) * e * sb * f;
  const double core =
      c.attention == Attention::Flash ? 4.0 * a * sb : (m.dropout ? 2 * e + 1 : e) * a * s * sb;
  const double linear = replicated * rep + split / t;
  switch (r) {
    case Recompute::None:
      return core::Bytes(linear + core / t);
    case Recompute::Selective:
      return core::Bytes(linear);  // [K22 §5]
    case Recompute::Full:
      return core::Bytes(e * x * rep);  // [K22 §4.4]: the layer input
  }
  return core::Bytes(0.0);
}

core::Bytes embedding_activation_bytes(const ModelSpec& m, const LayerConfig& c) {
  if (!m.dropout) return core::Bytes(0.0);
  return core::Bytes(sbh(m, c.micro_batch_size) * sp_share(c));  // 1-byte dropout mask
}

core::Bytes head_activation_bytes(const ModelSpec& m, const LayerConfig& c) {
  // [K22 §4.3]: final norm input and head input (e·sbh each), fp32 logits 4sbV (/ t: the
  // vocabulary-parallel head).
  const double e = activation_element_bytes(m.precision);
  return core::Bytes(2.0 * e * sbh(m, c.micro_batch_size) * sp_share(c) +
                     4.0 * d(m.sequence) * d(c.micro_batch_size) * d(m.vocabulary) /
                         c.tensor_parallel);
}

core::Bytes p2p_message_bytes(const ModelSpec& m, const LayerConfig& c) {
  return core::Bytes(sbh(m, c.micro_batch_size) * activation_element_bytes(m.precision) /
                     c.tensor_parallel);
}

core::Flops model_flops_per_iteration(const ModelSpec& m, double samples) {
  ModelSpec plain = m;
  plain.causal = false;  // model FLOPs count the full s² attention [N21]
  const LayerConfig one{};
  const double forward = d(m.layers) * kernel_flops(layer_forward(plain, one)).value +
                         kernel_flops(head_forward(plain, one)).value;
  return core::Flops(3.0 * forward * samples);  // backward = 2 × forward [N21]
}

}  // namespace pipesim::models
