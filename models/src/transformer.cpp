#include "pipesim/models/transformer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/word_list.hpp"

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

// The functions without a layer kind describe the one layer every layer of a dense model is; the
// cost model prices the model through them, so refusing here is what makes it refuse models
// whose layers differ until it prices each kind.
void require_uniform_dense(const ModelSpec& m) {
  const std::string where = m.source.empty() ? m.name : m.source;
  if (m.is_moe()) {
    throw core::ConfigError(
        where, "moe",
        fmt::format("model {} has {} mixture-of-experts layers, which the cost model does not "
                    "price yet (models/ counts their parameters, FLOPs and kernels per layer kind)",
                    m.name, moe_layer_count(m)));
  }
  if (m.mtp_layers > 0) {
    throw core::ConfigError(
        where, "mtp_layers",
        fmt::format("model {} has {} multi-token prediction modules, which the cost model does "
                    "not price yet",
                    m.name, m.mtp_layers));
  }
}

double norm_params(const ModelSpec& m, double width) {
  return m.norm == Norm::LayerNorm ? 2.0 * width : width;
}

// Parameters of one block as one GPU of a t-way group holds them: `split` is divided over the
// group (GEMM weights, column-parallel biases), `whole` is on every GPU (row-parallel biases,
// norms, replicated projections) [S19].
struct Parts {
  double split = 0.0, whole = 0.0;
  double per_gpu(double t) const { return split / t + whole; }
};

// Q, K, V and the output projection (or the latent projections [DS2]); Megatron-Core runs the
// latent down-projections and their norms replicated on every tensor-parallel GPU.
Parts attention_parts(const ModelSpec& m) {
  const double h = d(m.hidden), a = d(m.heads);
  Parts p;
  if (m.is_mla()) {
    const double ql = m.mla.q_lora_rank, kvl = m.mla.kv_lora_rank, rope = m.mla.qk_rope_head_dim;
    const double qk = d(m.mla.qk_nope_head_dim) + rope, v = m.mla.v_head_dim;
    if (ql > 0) {
      p.whole += h * ql + norm_params(m, ql);
      p.split += ql * a * qk;
    } else {
      p.split += h * a * qk;
    }
    p.whole += h * (kvl + rope) + norm_params(m, kvl);
    p.split += kvl * a * (d(m.mla.qk_nope_head_dim) + v) + a * v * h;
    return p;
  }
  const double q = d(m.q_hidden()), kv = d(m.kv_hidden());
  p.split = 2 * h * q + 2 * h * kv;
  if (m.bias) {
    p.split += q + 2 * kv;  // column parallel
    p.whole += h;           // row parallel
  } else if (m.qkv_bias) {
    p.split += q + 2 * kv;  // Qwen2: Q, K, V biases only (column parallel)
  }
  if (m.qk_norm) p.whole += 2 * norm_params(m, d(m.head_dim()));
  return p;
}

// An FFN of inner size f: (2 or 3)·h·f weights, biases column-parallel except fc2's.
Parts ffn_parts(const ModelSpec& m, double f) {
  const double h = d(m.hidden);
  Parts p;
  p.split = (m.gated_mlp ? 3.0 : 2.0) * h * f;
  if (m.bias) {
    p.split += m.gated_mlp ? 2 * f : f;
    p.whole += h;
  }
  return p;
}

double shared_ffn(const ModelSpec& m) {
  return d(m.moe.shared_experts) * d(m.moe.shared_ffn_hidden);
}

// The router [MC]: E·h weights, E biases when linear layers have biases (gpt-oss), E expert
// biases for aux-loss-free balancing [DS3]; replicated on every GPU.
double router_params(const ModelSpec& m) {
  const double experts = m.moe.experts;
  return experts * d(m.hidden) + (m.bias ? experts : 0.0) + (m.moe.expert_bias ? experts : 0.0);
}

double attention_matmul_params(const ModelSpec& m) {
  const double h = d(m.hidden);
  if (!m.is_mla()) return 2 * h * d(m.q_hidden()) + 2 * h * d(m.kv_hidden());
  const double a = d(m.heads), ql = m.mla.q_lora_rank, kvl = m.mla.kv_lora_rank;
  const double rope = m.mla.qk_rope_head_dim, nope = m.mla.qk_nope_head_dim, v = m.mla.v_head_dim;
  const double q = ql > 0 ? h * ql + ql * a * (nope + rope) : h * a * (nope + rope);
  return q + h * (kvl + rope) + kvl * a * (nope + v) + a * v * h;
}

double mlp_matmul_params(const ModelSpec& m, double f) {
  return (m.gated_mlp ? 3.0 : 2.0) * d(m.hidden) * f;
}

// The layer's shape without a kind: attention variant, dense FFN.
LayerShape base_shape(const ModelSpec& m, const LayerConfig& c) {
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
  s.context_parallel = c.context_parallel;
  s.flash = c.attention == Attention::Flash;
  s.causal = m.causal;
  s.attention_window = m.attention_window;
  s.window_share = m.layers > 0 ? static_cast<double>(m.window_layers) / m.layers : 0.0;
  s.head_dim = m.explicit_head_dim;
  s.qk_norm = m.qk_norm;
  s.q_lora_rank = m.mla.q_lora_rank;
  s.kv_lora_rank = m.mla.kv_lora_rank;
  s.qk_nope_head_dim = m.mla.qk_nope_head_dim;
  s.qk_rope_head_dim = m.mla.qk_rope_head_dim;
  s.v_head_dim = m.mla.v_head_dim;
  return s;
}

// Every layer of the model's main stack, counted by kind.
int dense_layer_count(const ModelSpec& m) {
  return m.layers - moe_layer_count(m);
}

}  // namespace

void validate_expert_layout(const ModelSpec& m, const LayerConfig& c) {
  const auto fail = [](const char* field, const std::string& problem) {
    throw core::ConfigError("command line", field, problem);
  };
  if (!m.is_moe()) {
    if (c.expert_parallel != 1 || c.expert_tensor_parallel != 0 || c.expert_imbalance != 1.0) {
      fail(c.expert_parallel != 1          ? "expert_parallel"
           : c.expert_tensor_parallel != 0 ? "expert_tensor_parallel"
                                           : "expert_imbalance",
           fmt::format("applies to mixture-of-experts models; model {} is dense", m.name));
    }
    return;
  }
  const int experts = m.moe.experts, e = c.expert_parallel;
  if (e < 1 || e > experts || experts % e != 0) {
    fail("expert_parallel",
         fmt::format("must divide the {} experts of model {}, got {}", experts, m.name, e));
  }
  const int et = c.expert_tensor_parallel > 0 ? c.expert_tensor_parallel : c.tensor_parallel;
  if (c.expert_tensor_parallel < 0 || m.moe.ffn_hidden % et != 0) {
    fail("expert_tensor_parallel",
         fmt::format("must divide the expert FFN size {} of model {}, got {}", m.moe.ffn_hidden,
                     m.name, c.expert_tensor_parallel));
  }
  const double shared = shared_ffn(m);
  if (shared > 0 && static_cast<long>(shared) % c.tensor_parallel != 0) {
    fail("tensor_parallel", fmt::format("{} must divide the shared experts' FFN size {} of model "
                                        "{}",
                                        c.tensor_parallel, static_cast<long>(shared), m.name));
  }
  // The busiest GPU gets at most min(k, E/e) of each token's k copies: e·min(k, E/e)/k times
  // the balanced k/e.
  const double most = d(e) * d(std::min(m.moe.top_k, experts / e)) / d(m.moe.top_k);
  if (!(c.expert_imbalance >= 1.0 && c.expert_imbalance <= most)) {
    fail("expert_imbalance",
         fmt::format("must be in [1, {}] (1: balanced; at most every token's copies on one GPU) "
                     "for model {} with expert_parallel = {}, got {}",
                     most, m.name, e, c.expert_imbalance));
  }
}

LayerKind layer_kind(const ModelSpec& m, int layer) {
  if (!m.is_moe() || layer < m.moe.first_dense_layers) return LayerKind::Dense;
  return layer % m.moe.layer_frequency == m.moe.layer_phase ? LayerKind::Moe : LayerKind::Dense;
}

int moe_layer_count(const ModelSpec& m) {
  if (!m.is_moe()) return 0;
  // The layers i in [first_dense_layers, layers) with i % k == phase: from the first such i,
  // one every k.
  const long k = m.moe.layer_frequency, from = m.moe.first_dense_layers;
  const long first = from + ((m.moe.layer_phase - from) % k + k) % k;
  return first >= m.layers ? 0 : static_cast<int>((m.layers - 1 - first) / k + 1);
}

double quantized_element_bytes(Precision p) {
  switch (p) {
    case Precision::FP8:
      return 1.0;
    case Precision::MXFP8:
      return 1.0 + 1.0 / 32;
    case Precision::NVFP4:
      return 0.5 + 1.0 / 16;
    default:
      return 0.0;
  }
}

double activation_element_bytes(Precision p) {
  return p == Precision::FP32 ? 4.0 : 2.0;
}

LayerShape layer_shape(const ModelSpec& m, const LayerConfig& c) {
  require_uniform_dense(m);
  return base_shape(m, c);
}

LayerShape layer_shape(const ModelSpec& m, const LayerConfig& c, LayerKind kind) {
  LayerShape s = base_shape(m, c);
  if (kind == LayerKind::Moe && m.is_moe()) {
    s.experts = m.moe.experts;
    s.top_k = m.moe.top_k;
    s.expert_ffn = m.moe.ffn_hidden;
    s.shared_ffn = static_cast<std::int64_t>(shared_ffn(m));
    s.shared_gate = m.moe.shared_expert_gate;
    s.expert_parallel = c.expert_parallel;
    s.expert_tensor_parallel = c.expert_tensor_parallel;
    // Tokens beyond capacity·average are dropped [MC].
    s.expert_load = m.moe.capacity_factor > 0.0
                        ? std::min(c.expert_imbalance, m.moe.capacity_factor)
                        : c.expert_imbalance;
    s.grouped_gemm = c.expert_grouped_gemm;
  }
  return s;
}

core::Flops kernel_flops(const KernelList& ks) {
  double f = 0;
  for (const LayerKernel& k : ks)
    f += k.flops();
  return core::Flops(f);
}

double layer_matmul_params(const ModelSpec& m) {
  require_uniform_dense(m);
  return layer_matmul_params(m, LayerKind::Dense);
}

double layer_matmul_params(const ModelSpec& m, LayerKind kind) {
  const double attention = attention_matmul_params(m);
  if (kind == LayerKind::Dense || !m.is_moe()) {
    return attention + mlp_matmul_params(m, d(m.ffn_hidden));
  }
  const double gate = m.moe.shared_expert_gate ? d(m.hidden) : 0.0;
  return attention + d(m.moe.experts) * d(m.hidden) +
         d(m.moe.top_k) * mlp_matmul_params(m, d(m.moe.ffn_hidden)) +
         mlp_matmul_params(m, shared_ffn(m)) + gate;
}

double layer_params(const ModelSpec& m) {
  return layer_params_per_gpu(m, 1);
}

double layer_params_per_gpu(const ModelSpec& m, int t) {
  require_uniform_dense(m);
  LayerConfig c;
  c.tensor_parallel = t;
  return layer_params_per_gpu(m, c, LayerKind::Dense).total();
}

LayerParameters layer_parameters(const ModelSpec& m, LayerKind kind) {
  // [N21]: 12h² + 13h for a GPT layer = QKV 3h²+3h, projection h²+h, MLP 8h²+5h, two
  // LayerNorms 4h. Generalised to grouped-query attention, gated MLPs, bias-free layers and
  // RMSNorm (Touvron et al., "Llama 2", arXiv 2307.09288, §2.2), explicit head dimensions and
  // query/key norms (Qwen3), latent attention [DS2] and experts [MC].
  LayerParameters p;
  p.attention = attention_parts(m).per_gpu(1);
  p.norms = 2 * norm_params(m, d(m.hidden));
  if (kind == LayerKind::Dense || !m.is_moe()) {
    p.mlp = ffn_parts(m, d(m.ffn_hidden)).per_gpu(1);
    return p;
  }
  p.router = router_params(m);
  if (m.moe.shared_experts > 0) {
    p.shared =
        ffn_parts(m, shared_ffn(m)).per_gpu(1) + (m.moe.shared_expert_gate ? d(m.hidden) : 0.0);
  }
  p.expert = ffn_parts(m, d(m.moe.ffn_hidden)).per_gpu(1);
  p.experts = m.moe.experts;
  p.top_k = m.moe.top_k;
  return p;
}

GpuLayerParameters layer_params_per_gpu(const ModelSpec& m, const LayerConfig& c, LayerKind kind) {
  const double t = c.tensor_parallel;
  GpuLayerParameters g;
  const Parts attention = attention_parts(m);
  const double norms = 2 * norm_params(m, d(m.hidden));
  if (kind == LayerKind::Dense || !m.is_moe()) {
    const Parts mlp = ffn_parts(m, d(m.ffn_hidden));
    g.dense = (attention.split + mlp.split) / t + attention.whole + mlp.whole + norms;
    return g;
  }
  Parts shared;
  if (m.moe.shared_experts > 0) shared = ffn_parts(m, shared_ffn(m));
  const double gate = m.moe.shared_expert_gate ? d(m.hidden) : 0.0;
  g.dense = (attention.split + shared.split) / t + attention.whole + shared.whole + norms +
            router_params(m) + gate;
  const int et = c.expert_tensor_parallel > 0 ? c.expert_tensor_parallel : c.tensor_parallel;
  const double local = d(m.moe.experts) / d(c.expert_parallel);
  g.expert = local * ffn_parts(m, d(m.moe.ffn_hidden)).per_gpu(et);
  return g;
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
  const double layers = d(dense_layer_count(m)) * layer_parameters(m, LayerKind::Dense).total() +
                        d(moe_layer_count(m)) * layer_parameters(m, LayerKind::Moe).total();
  return layers + embedding_params(m) + head_params(m);
}

double active_params(const ModelSpec& m) {
  const double layers = d(dense_layer_count(m)) * layer_parameters(m, LayerKind::Dense).active() +
                        d(moe_layer_count(m)) * layer_parameters(m, LayerKind::Moe).active();
  return layers + embedding_params(m) + head_params(m);
}

double mtp_params(const ModelSpec& m) {
  const double h = d(m.hidden);
  double p = 0.0;
  for (int j = 0; j < m.mtp_layers; ++j) {
    // [DS3 §2.2]: RMSNorm of the hidden state and of the embedding, M ∈ R^{h×2h}, the layer,
    // the shared head's norm.
    p += 3 * norm_params(m, h) + 2 * h * h +
         layer_parameters(m, layer_kind(m, m.layers + j)).total();
  }
  return p;
}

double forward_flops_per_token(const ModelSpec& m) {
  // Attention reads all s keys per query: QKᵀ 2·s·a·d_qk, AV 2·s·a·d_v.
  const double a = d(m.heads), s = d(m.sequence);
  const double dims = m.is_mla()
                          ? d(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim) + d(m.mla.v_head_dim)
                          : 2.0 * d(m.head_dim());
  const double core = 2 * s * a * dims;
  const double layers =
      d(dense_layer_count(m)) * (2 * layer_matmul_params(m, LayerKind::Dense) + core) +
      d(moe_layer_count(m)) * (2 * layer_matmul_params(m, LayerKind::Moe) + core);
  return layers + 2 * d(m.hidden) * d(m.vocabulary);
}

double mtp_forward_flops_per_token(const ModelSpec& m) {
  const double h = d(m.hidden), a = d(m.heads), s = d(m.sequence);
  const double dims = m.is_mla()
                          ? d(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim) + d(m.mla.v_head_dim)
                          : 2.0 * d(m.head_dim());
  double f = 0.0;
  for (int j = 0; j < m.mtp_layers; ++j) {
    f += 2 * (2 * h * h) + 2 * layer_matmul_params(m, layer_kind(m, m.layers + j)) +
         2 * s * a * dims + 2 * h * d(m.vocabulary);
  }
  return f;
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

KernelList layer_forward(const ModelSpec& m, const LayerConfig& c, LayerKind kind) {
  return layer_kernels(layer_shape(m, c, kind), LayerDirection::forward);
}

KernelList layer_backward_input(const ModelSpec& m, const LayerConfig& c, LayerKind kind) {
  return select(layer_kernels(layer_shape(m, c, kind), LayerDirection::backward), false);
}

KernelList layer_backward_weight(const ModelSpec& m, const LayerConfig& c, LayerKind kind) {
  return select(layer_kernels(layer_shape(m, c, kind), LayerDirection::backward), true);
}

KernelList layer_recompute(const ModelSpec& m, const LayerConfig& c, Recompute r) {
  require_uniform_dense(m);
  return layer_recompute(m, c, r, LayerKind::Dense);
}

KernelList layer_recompute(const ModelSpec& m, const LayerConfig& c, Recompute r, LayerKind kind) {
  switch (r) {
    case Recompute::None:
      return {};
    case Recompute::Full:
      return layer_forward(m, c, kind);
    case Recompute::Selective:
      break;
  }
  // Fine-grained recomputation [MCR]: each module re-runs its own forward kernels (a whole
  // MoE FFN covers its activation and shared experts; the all-to-alls it repeats are the cost
  // model's, expert_parallel.hpp).
  const RecomputeModules& rm = c.recompute_modules;
  const bool moe = kind == LayerKind::Moe && m.is_moe();
  std::vector<std::string> names;
  const auto add = [&names](std::initializer_list<const char*> list) {
    names.insert(names.end(), list.begin(), list.end());
  };
  if (rm.layernorm) add({"ln1", "ln2"});
  if (rm.mla_up_proj && m.is_mla()) add({"q_up", "kv_up"});
  if (rm.mlp && !moe) add({"fc1", "swiglu", "gelu", "fc2"});
  if (rm.moe && moe) {
    add({"router", "router_topk", "moe_permute", "expert_output_zero", "expert_fc1",
         "expert_swiglu", "expert_gelu", "expert_fc2", "expert_output_copy", "moe_unpermute"});
  } else if (rm.moe_act && moe) {
    add({"expert_swiglu", "expert_gelu"});
  }
  if ((rm.moe || rm.shared_experts) && moe)
    add({"shared_fc1", "shared_swiglu", "shared_gelu", "shared_fc2", "shared_gate"});
  KernelList out =
      rm.core_attn ? attention_core_kernels(layer_shape(m, c, kind)) : KernelList{};  // [K22 §5]
  for (const LayerKernel& k : layer_forward(m, c, kind)) {
    if (std::find(names.begin(), names.end(), k.name) != names.end()) out.push_back(k);
  }
  return out;
}

RecomputeModules parse_recompute_modules(const std::string& text, const std::string& field) {
  constexpr std::pair<const char*, bool RecomputeModules::*> kModules[] = {
      {"core_attn", &RecomputeModules::core_attn},
      {"moe_act", &RecomputeModules::moe_act},
      {"layernorm", &RecomputeModules::layernorm},
      {"mla_up_proj", &RecomputeModules::mla_up_proj},
      {"mlp", &RecomputeModules::mlp},
      {"moe", &RecomputeModules::moe},
      {"shared_experts", &RecomputeModules::shared_experts}};
  RecomputeModules out{};
  out.core_attn = false;
  for (const std::string& word : core::split_words(text, ", ")) {
    const auto* it = std::find_if(std::begin(kModules), std::end(kModules),
                                  [&](const auto& mod) { return word == mod.first; });
    if (it == std::end(kModules)) {
      throw core::ConfigError::option(
          field, fmt::format("unknown module '{}'; allowed: core_attn, moe_act, layernorm, "
                             "mla_up_proj, mlp, moe, shared_experts (comma-separated)",
                             word));
    }
    if (out.*(it->second)) {
      throw core::ConfigError::option(field, fmt::format("module '{}' given twice", word));
    }
    out.*(it->second) = true;
  }
  return out;
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
  h.sh = base_shape(m, c);
  h.bs = h.sh.batch * h.sh.seq;
  h.rows = c.sequence_parallel ? h.bs / h.sh.tensor_parallel : h.bs;
  h.vt = m.vocabulary / c.tensor_parallel;
  if (h.sh.rmsnorm) {
    h.norm = MemoryOp::rmsnorm;
    h.norm_backward = MemoryOp::rmsnorm_backward;
  }
  return h;
}

// HBM bytes per logit of Megatron's unfused `vocab_parallel_cross_entropy` on the e-byte logits
// of the output GEMM (`.float()` of them, then one elementwise kernel per step; the GEMM's own
// write is the GEMM's). Forward: the cast (e read, 4 written; none for fp32 logits), max (4),
// subtract the max (4 + 4), exp in place (4 + 4), sum (4), divide by the sum in place (4 + 4).
// Backward: the gradient multiply in place (4 + 4) and the cast's backward to e bytes (4 + e).
// A fused loss: the fp32 logits written, read and the softmax written back; backward: read
// and written once.
double cross_entropy_forward_bytes(const LayerConfig& c, std::int64_t e) {
  if (!c.unfused_cross_entropy) return 3.0 * 4.0;
  const double cast = e < 4 ? d(e) + 4.0 : 0.0;
  return cast + 4.0 + 8.0 + 8.0 + 4.0 + 8.0;
}

double cross_entropy_backward_bytes(const LayerConfig& c, std::int64_t e) {
  if (!c.unfused_cross_entropy) return 2.0 * 4.0;
  const double cast = e < 4 ? 4.0 + d(e) : 0.0;
  return 8.0 + cast;
}

}  // namespace

KernelList head_forward(const ModelSpec& m, const LayerConfig& c) {
  const HeadDims h = head_dims(m, c);
  const std::int64_t e = h.sh.elem_bytes;
  return {layer_detail::memory("final_norm", h.norm, h.rows, h.sh.hidden, e),
          head_gemm("logits", h.bs, h.vt, h.sh.hidden, false, true, e, false),
          other("cross_entropy", cross_entropy_forward_bytes(c, e) * d(h.bs) * d(h.vt))};
}

KernelList head_backward_input(const ModelSpec& m, const LayerConfig& c) {
  const HeadDims h = head_dims(m, c);
  const std::int64_t e = h.sh.elem_bytes;
  return {other("cross_entropy_bwd", cross_entropy_backward_bytes(c, e) * d(h.bs) * d(h.vt)),
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
  require_uniform_dense(m);
  return layer_activation_bytes(m, c, r, LayerKind::Dense);
}

core::Bytes layer_activation_bytes(const ModelSpec& m, const LayerConfig& c, Recompute r,
                                   LayerKind kind) {
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
  // Variants (transformer.hpp): "full" tensors are whole on every GPU (outputs of replicated
  // projections); the routed experts' tensors are sized per GPU by the kernels' grouped GEMMs.
  // A linear GEMM's input is stored at `lin` bytes per element: e, or a low-precision recipe's
  // quantized bytes q, the column-wise copy its cast made for the weight gradient [TE]; the
  // attention projection's copy sits beside the 16-bit attention output the attention backward
  // reads. DeepSeek's storage (quantized_activations) shares one copy of that output and keeps
  // the experts' activation input quantized too [DS3 §3.3.3]. Selective recomputation drops
  // what its modules re-run [MCR].
  const int b = c.micro_batch_size;
  const double e = activation_element_bytes(m.precision), t = c.tensor_parallel;
  const double a = d(m.heads), s = d(m.sequence), sb = s * d(b);
  const double x = sbh(m, b), rep = sp_share(c), mask = m.dropout ? 1.0 : 0.0;
  const bool moe = kind == LayerKind::Moe && m.is_moe();
  if (r == Recompute::Full) return core::Bytes(e * x * rep);  // [K22 §4.4]: the layer input
  RecomputeModules rm{};
  rm.core_attn = false;
  if (r == Recompute::Selective) rm = c.recompute_modules;
  const double q = quantized_element_bytes(m.precision);
  const double lin = q > 0 ? q : e;
  const bool deepseek_storage = c.quantized_activations && q > 0;
  const double expert_act_in = deepseek_storage ? q : e;
  const double projection_copy = q > 0 && !deepseek_storage ? q : 0.0;
  // Norm region: both norms' inputs, their outputs (the attention's and the FFN's inputs; an
  // MoE layer's FFN input is also the router's, a 16-bit GEMM, so it stays e; a recomputed
  // MLP or MoE keeps it as its checkpoint's 16-bit input), the dropout masks.
  const double ffn_input = moe || rm.mlp ? e : lin;
  double region = 2 * e * x + 2 * mask * x;
  if (!rm.layernorm) region += lin * x + ffn_input * x;
  if (moe && !rm.moe) region += 4.0 * sb * d(m.moe.experts);  // the router's fp32 scores
  double attention = 0.0, full = 0.0;
  if (m.is_mla()) {
    // Q, K (a·d_qk) and V split over t (recomputed by mla_up_proj); the projection input
    // (a·d_v), which the attention backward reads too; on every GPU the latents before their
    // norms and the rotary key (e) and the normed latents, the up-projections' inputs (lin).
    const double qk = d(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim), v = m.mla.v_head_dim;
    const double ql = m.mla.q_lora_rank, kvl = m.mla.kv_lora_rank;
    attention =
        (rm.mla_up_proj ? 0.0 : e * sb * a * (2 * qk + v)) + (e + projection_copy) * sb * a * v;
    full = e * sb * (ql + kvl + d(m.mla.qk_rope_head_dim)) + lin * sb * (ql + kvl);
  } else {
    const double qd = d(m.q_hidden()), kv = d(m.kv_hidden());
    attention = e * (2 * sb * qd + 2 * sb * kv) + projection_copy * sb * qd;
    if (m.qk_norm) attention += e * sb * (qd + kv);  // the norms' inputs
  }
  // An MLP's FFN-wide tensors: the activation's input (2f for SwiGLU's [gate|up], f for GeLU)
  // and its output, fc2's input; eager autograd: the Python tanh GeLU's three intermediates.
  const double widths_in = m.gated_mlp ? 2.0 : 1.0;
  const double eager_gelu = c.eager_autograd && !m.gated_mlp ? 3.0 * e : 0.0;
  const auto mlp_wide = [&](double f) { return sb * f * (widths_in * e + lin + eager_gelu); };
  double split = attention;
  if (!moe && !rm.mlp) split += mlp_wide(d(m.ffn_hidden));
  if (moe && !rm.moe && !rm.shared_experts) split += mlp_wide(shared_ffn(m));
  double routed = 0.0;
  if (moe && !rm.moe) {
    // Per routed token copy on this GPU: its expert input (fc1's), the activation's input
    // (DeepSeek-V3 keeps it quantized too) and output (fc2's; recomputed by moe_act). The
    // routing probabilities multiply inside the activation [MCR], so the experts' outputs are
    // not kept for the probabilities' gradient.
    const layer_detail::LayerDims dims = layer_detail::dims(layer_shape(m, c, LayerKind::Moe));
    const double copies = d(dims.per_expert) * d(dims.local);
    const double fe = d(dims.fe);
    routed = copies *
             (lin * d(m.hidden) + expert_act_in * widths_in * fe + (rm.moe_act ? 0.0 : lin * fe));
  }
  // Eager autograd: the softmax keeps its input as well (e·as²b more).
  const double scores = (m.dropout ? 2 * e + 1 : e) + (c.eager_autograd ? e : 0.0);
  const double core =
      rm.core_attn ? 0.0 : (c.attention == Attention::Flash ? 4.0 * a * sb : scores * a * s * sb);
  return core::Bytes(region * rep + (split + core) / t + full + routed);
}

core::Bytes embedding_activation_bytes(const ModelSpec& m, const LayerConfig& c) {
  if (!m.dropout) return core::Bytes(0.0);
  return core::Bytes(sbh(m, c.micro_batch_size) * sp_share(c));  // 1-byte dropout mask
}

core::Bytes head_activation_bytes(const ModelSpec& m, const LayerConfig& c) {
  // [K22 §4.3]: final norm input and head input (e·sbh each), fp32 logits 4sbV (/ t: the
  // vocabulary-parallel head); eager autograd: the log_softmax keeps its input logits too.
  const double e = activation_element_bytes(m.precision);
  const double logits = c.eager_autograd ? 2.0 : 1.0;
  return core::Bytes(2.0 * e * sbh(m, c.micro_batch_size) * sp_share(c) +
                     logits * 4.0 * d(m.sequence) * d(c.micro_batch_size) * d(m.vocabulary) /
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
  const double head = kernel_flops(head_forward(plain, one)).value;
  const auto layer = [&](LayerKind kind) {
    return kernel_flops(layer_forward(plain, one, kind)).value;
  };
  double forward = 0.0;
  if (!m.is_moe() && m.mtp_layers == 0) {
    forward = d(m.layers) * kernel_flops(layer_forward(plain, one)).value + head;
  } else {
    forward = d(dense_layer_count(m)) * layer(LayerKind::Dense) +
              d(moe_layer_count(m)) * layer(LayerKind::Moe) + head;
    const double h = d(m.hidden), tokens = d(m.sequence);
    for (int j = 0; j < m.mtp_layers; ++j) {
      // [DS3 §2.2]: the 2h → h projection, the module's layer, its logits.
      forward += 2 * tokens * 2 * h * h + layer(layer_kind(m, m.layers + j)) + head;
    }
  }
  return core::Flops(3.0 * forward * samples);  // backward = 2 × forward [N21]
}

}  // namespace pipesim::models
