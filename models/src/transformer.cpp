#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

double d(int x) {
  return static_cast<double>(x);
}

// Kernel launches per layer and op: an unfused Megatron-LM GPT layer runs ~15 kernels forward
// (2 norms, 4 weight GEMMs, 2 batched attention GEMMs, softmax, dropouts, bias-GeLU, residual
// adds), about as many for the input gradient and 8 for the weight gradients (4 GEMMs and
// their bias reductions). An estimate; calibrated profiles absorb the error in kernel_launch.
constexpr double kForwardLaunches = 15, kInputLaunches = 15, kWeightLaunches = 8;

// The 16-bit activation inventory of [K22] with b samples, in elements of 2 bytes → bytes of
// this precision.
double act_scale(const ModelSpec& m) {
  return precision_bytes(m.precision) / 2.0;
}

double sbh(const ModelSpec& m, int b) {
  return d(m.sequence) * d(b) * d(m.hidden);
}

std::vector<Gemm> layer_weight_gemms(const ModelSpec& m, int b) {
  const double bs = d(b) * d(m.sequence), h = d(m.hidden), f = d(m.ffn_hidden);
  return {
      {2 * bs * h * (h + 2 * d(m.kv_hidden())), 1},  // fused QKV projection
      {2 * bs * h * h, 1},                           // attention output projection
      {2 * bs * h * f, m.gated_mlp ? 3.0 : 2.0},     // MLP up (and gate), down
  };
}

// QKᵀ and AV: 2bs²h each, batched over b·a heads.
Gemm attention_gemm(const ModelSpec& m, int b) {
  return {2 * d(b) * d(m.sequence) * d(m.sequence) * d(m.hidden), 1};
}

}  // namespace

core::Flops OpWork::gemm_flops() const {
  double f = 0;
  for (const Gemm& g : gemms)
    f += g.flops * g.count;
  return core::Flops(f);
}

OpWork& OpWork::operator+=(const OpWork& o) {
  gemms.insert(gemms.end(), o.gemms.begin(), o.gemms.end());
  memory += o.memory;
  launches += o.launches;
  return *this;
}

OpWork OpWork::scaled(double k) const {
  OpWork out = *this;
  for (Gemm& g : out.gemms)
    g.count *= k;
  out.memory = memory * k;
  out.launches = launches * k;
  return out;
}

double layer_matmul_params(const ModelSpec& m) {
  const double h = d(m.hidden), f = d(m.ffn_hidden);
  return 2 * h * h + 2 * h * d(m.kv_hidden()) + (m.gated_mlp ? 3.0 : 2.0) * h * f;
}

double layer_params(const ModelSpec& m) {
  // [N21]: 12h² + 13h for a GPT layer = QKV 3h²+3h, projection h²+h, MLP 8h²+5h, two
  // LayerNorms 4h. Generalised to grouped-query attention, gated MLPs, bias-free layers and
  // RMSNorm (Touvron et al., "Llama 2", arXiv 2307.09288, §2.2).
  const double h = d(m.hidden), f = d(m.ffn_hidden), kv = d(m.kv_hidden());
  double p = layer_matmul_params(m);
  if (m.bias) {
    p += (h + 2 * kv + h) + (m.gated_mlp ? 2 * f : f) + h;
  } else if (m.qkv_bias) {
    p += h + 2 * kv;  // Qwen2: Q, K, V biases only
  }
  p += 2 * (m.norm == Norm::LayerNorm ? 2 * h : h);
  return p;
}

double embedding_params(const ModelSpec& m) {
  return d(m.vocabulary) * d(m.hidden) + d(m.position_embeddings) * d(m.hidden);
}

double head_params(const ModelSpec& m) {
  const double final_norm = m.norm == Norm::LayerNorm ? 2.0 * d(m.hidden) : d(m.hidden);
  const double lm_head = m.tied_embeddings ? 0.0 : d(m.vocabulary) * d(m.hidden);
  return final_norm + lm_head + m.extra_parameters;
}

double model_params(const ModelSpec& m) {
  return d(m.layers) * layer_params(m) + embedding_params(m) + head_params(m);
}

OpWork layer_forward(const ModelSpec& m, int b) {
  OpWork w;
  w.gemms = layer_weight_gemms(m, b);
  w.gemms.push_back(attention_gemm(m, b));  // QKᵀ
  w.gemms.push_back(attention_gemm(m, b));  // AV
  // Memory-bound kernels (norms, softmax, dropout, GeLU, residuals) write the activations
  // they keep [K22] and read their inputs: about twice the stored bytes. An estimate.
  w.memory = 2.0 * layer_activation_bytes(m, b, Recompute::None);
  w.launches = kForwardLaunches;
  return w;
}

OpWork layer_backward_input(const ModelSpec& m, int b) {
  OpWork w;
  w.gemms = layer_weight_gemms(m, b);  // dgrad: same shapes as F
  for (int i = 0; i < 4; ++i)
    w.gemms.push_back(attention_gemm(m, b));  // 8bs²h [Q23]
  w.memory = 2.0 * layer_activation_bytes(m, b, Recompute::None);
  w.launches = kInputLaunches;
  return w;
}

OpWork layer_backward_weight(const ModelSpec& m, int b) {
  OpWork w;
  w.gemms = layer_weight_gemms(m, b);  // wgrad: 2bs·P_mm = 24sbh² for GPT [Q23]
  w.memory = 0.5 * layer_activation_bytes(m, b, Recompute::None);  // GEMM inputs re-read
  w.launches = kWeightLaunches;
  return w;
}

OpWork layer_recompute(const ModelSpec& m, int b, Recompute r) {
  switch (r) {
    case Recompute::None:
      return {};
    case Recompute::Full:
      return layer_forward(m, b);
    case Recompute::Selective: {
      // [K22 §5]: recompute QKᵀ, softmax, dropout and AV: 4bs²h FLOPs, the 5as²b-byte part.
      OpWork w;
      w.gemms = {attention_gemm(m, b), attention_gemm(m, b)};
      w.memory = 2.0 * (layer_activation_bytes(m, b, Recompute::None) -
                        layer_activation_bytes(m, b, Recompute::Selective));
      w.launches = 4;
      return w;
    }
  }
  return {};
}

OpWork head_forward(const ModelSpec& m, int b) {
  OpWork w;
  const double bs = d(b) * d(m.sequence);
  w.gemms = {{2 * bs * d(m.hidden) * d(m.vocabulary), 1}};  // logits 2bshV [N21]
  w.memory = core::Bytes(3 * 4 * bs * d(m.vocabulary));     // fp32 logits: write, softmax r/w
  w.launches = 5;
  return w;
}

OpWork head_backward_input(const ModelSpec& m, int b) {
  OpWork w = head_forward(m, b);
  w.memory = core::Bytes(2 * 4 * d(b) * d(m.sequence) * d(m.vocabulary));
  return w;
}

OpWork head_backward_weight(const ModelSpec& m, int b) {
  OpWork w;
  w.gemms = {{2 * d(b) * d(m.sequence) * d(m.hidden) * d(m.vocabulary), 1}};
  w.launches = 2;
  return w;
}

OpWork embedding_forward(const ModelSpec& m, int b) {
  OpWork w;
  w.memory = core::Bytes(2 * sbh(m, b) * precision_bytes(m.precision));  // gather + add
  w.launches = 3;
  return w;
}

core::Bytes layer_activation_bytes(const ModelSpec& m, int b, Recompute r) {
  // [K22] §4.1, 16-bit bytes for one layer, itemised so that grouped-query attention, gated
  // MLPs and FFN sizes other than 4h are counted, and a GPT layer gives sbh(34 + 5as/h):
  //   attention: QKV input 2sbh, Q 2sbh, K and V 2sb·h_kv each, output-projection input
  //              2sbh, dropout mask sbh = 7sbh + 4sb·h_kv; scores, softmax, dropout 5as²b;
  //   MLP: input 2sbh, dropout mask sbh, activations 2sbf per FFN-wide tensor kept
  //        (GeLU input and fc2 input: 2; SwiGLU gate, up and product: 3) = 3sbh + 2·k·sbf;
  //   two norms: 4sbh.
  const double a = d(m.heads), s = d(m.sequence), sb = s * d(b), f = d(m.ffn_hidden);
  const double sbh_ = sbh(m, b);
  const double linear = 7 * sbh_ + 4 * sb * d(m.kv_hidden()) + 3 * sbh_ +
                        2.0 * (m.gated_mlp ? 3.0 : 2.0) * sb * f + 4 * sbh_;
  const double scores = 5 * a * s * sb;  // 5as²b
  double bytes = 0;
  switch (r) {
    case Recompute::None: bytes = linear + scores; break;  // sbh(34 + 5as/h) for GPT
    case Recompute::Selective: bytes = linear; break;      // [K22] §5: 34sbh for GPT
    case Recompute::Full: bytes = 2.0 * sbh_; break;       // [K22] §4.4: the layer input
  }
  return core::Bytes(bytes * act_scale(m));
}

core::Bytes embedding_activation_bytes(const ModelSpec& m, int b) {
  return core::Bytes(sbh(m, b) * act_scale(m));  // dropout mask, 1 byte per element [K22 §4.3]
}

core::Bytes head_activation_bytes(const ModelSpec& m, int b) {
  // [K22 §4.3]: final norm input 2sbh, head input 2sbh (16-bit), fp32 logits 4sbV.
  return core::Bytes(4.0 * sbh(m, b) * act_scale(m) + 4.0 * d(m.sequence) * d(b) * d(m.vocabulary));
}

core::Bytes p2p_message_bytes(const ModelSpec& m, int b) {
  return core::Bytes(sbh(m, b) * precision_bytes(m.precision));
}

core::Flops model_flops_per_iteration(const ModelSpec& m, double samples) {
  const double forward =
      d(m.layers) * layer_forward(m, 1).gemm_flops().value + head_forward(m, 1).gemm_flops().value;
  return core::Flops(3.0 * forward * samples);  // backward = 2 × forward [N21]
}

}  // namespace pipesim::models
