#include "pipesim/models/model_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/shipped_files.hpp"
#include "pipesim/core/text_file.hpp"
#include "pipesim/core/yaml_reader.hpp"
#include "pipesim/models/hf_config.hpp"
#include "pipesim/models/registered_model.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

// Sane limits, ~100x above the largest published models (hidden 25600, ffn 102400, 1M-token
// context, 256k vocabularies, ~200 layers): beyond them the inputs are typos and FLOP counts
// overflow any plausible run.
constexpr long kMaxLayers = 1L << 14;
constexpr long kMaxHidden = 1L << 18;
constexpr long kMaxFfn = 1L << 20;
constexpr long kMaxSequence = 1L << 23;
constexpr long kMaxDim = 1L << 24;  // vocabulary
constexpr long kMaxExperts = 1L << 16;
constexpr long kMaxMtp = 64;

// The `moe` mapping (models/README.md, "Mixture of experts"); `layers` bounds the layer pattern.
MoeSpec parse_moe(core::YamlMap y, int layers) {
  MoeSpec moe;
  moe.experts = static_cast<int>(y.integer("experts", 1, kMaxExperts));
  moe.top_k = static_cast<int>(y.integer("top_k", 1, kMaxExperts));
  if (moe.top_k > moe.experts) {
    y.fail("top_k", fmt::format("must be at most experts = {} (the routed experts a token can be "
                                "sent to), got {}",
                                moe.experts, moe.top_k));
  }
  moe.ffn_hidden = static_cast<int>(y.integer("ffn_hidden", 1, kMaxFfn));
  if (y.has("shared_experts")) {
    moe.shared_experts = static_cast<int>(y.integer("shared_experts", 0, kMaxExperts));
  }
  for (const char* key : {"shared_ffn_hidden", "shared_expert_gate"}) {
    if (moe.shared_experts == 0 && y.has(key)) {
      y.fail(key, "needs shared_experts >= 1 (there is no shared expert)");
    }
  }
  moe.shared_ffn_hidden = y.has("shared_ffn_hidden")
                              ? static_cast<int>(y.integer("shared_ffn_hidden", 1, kMaxFfn))
                              : (moe.shared_experts > 0 ? moe.ffn_hidden : 0);
  if (y.has("shared_expert_gate")) moe.shared_expert_gate = y.boolean("shared_expert_gate");
  if (y.has("first_dense_layers")) {
    moe.first_dense_layers = static_cast<int>(y.integer("first_dense_layers", 0, layers - 1));
  }
  if (y.has("layer_frequency")) {
    moe.layer_frequency = static_cast<int>(y.integer("layer_frequency", 1, layers));
  }
  if (y.has("layer_phase")) {
    moe.layer_phase = static_cast<int>(y.integer("layer_phase", 0, moe.layer_frequency - 1));
  }
  if (y.has("capacity_factor")) moe.capacity_factor = y.positive("capacity_factor", 1000.0);
  if (y.has("expert_bias")) moe.expert_bias = y.boolean("expert_bias");
  if (y.has("router_groups") != y.has("router_group_topk")) {
    y.fail(y.has("router_groups") ? "router_group_topk" : "router_groups",
           "router_groups and router_group_topk come together (group-limited routing)");
  }
  if (y.has("router_groups")) {
    moe.router_groups = static_cast<int>(y.integer("router_groups", 1, moe.experts));
    if (moe.experts % moe.router_groups != 0) {
      y.fail("router_groups",
             fmt::format("must divide experts = {}, got {}", moe.experts, moe.router_groups));
    }
    moe.router_group_topk = static_cast<int>(y.integer("router_group_topk", 1, moe.router_groups));
  }
  y.finish();
  ModelSpec shape;
  shape.layers = layers;
  shape.moe = moe;
  if (moe_layer_count(shape) == 0) {
    y.fail(y.has("layer_frequency") ? "layer_frequency" : "first_dense_layers",
           fmt::format("leaves no mixture-of-experts layer among the {} layers", layers));
  }
  return moe;
}

// The `mla` mapping; `heads` bounds the latent ranks (a latent as wide as what it projects to
// compresses nothing: a typo).
MlaSpec parse_mla(core::YamlMap y, int heads) {
  MlaSpec mla;
  if (y.has("q_lora_rank"))
    mla.q_lora_rank = static_cast<int>(y.integer("q_lora_rank", 0, kMaxHidden));
  mla.kv_lora_rank = static_cast<int>(y.integer("kv_lora_rank", 1, kMaxHidden));
  mla.qk_nope_head_dim = static_cast<int>(y.integer("qk_nope_head_dim", 1, kMaxHidden));
  mla.qk_rope_head_dim = static_cast<int>(y.integer("qk_rope_head_dim", 0, kMaxHidden));
  mla.v_head_dim = static_cast<int>(y.integer("v_head_dim", 1, kMaxHidden));
  y.finish();
  const long q = static_cast<long>(heads) * (mla.qk_nope_head_dim + mla.qk_rope_head_dim);
  const long kv = static_cast<long>(heads) * (mla.qk_nope_head_dim + mla.v_head_dim);
  if (mla.q_lora_rank >= q) {
    y.fail("q_lora_rank", fmt::format("must be below heads · (qk_nope_head_dim + qk_rope_head_dim) "
                                      "= {} (the queries it is projected to), got {}",
                                      q, mla.q_lora_rank));
  }
  if (mla.kv_lora_rank >= kv) {
    y.fail("kv_lora_rank", fmt::format("must be below heads · (qk_nope_head_dim + v_head_dim) = {} "
                                       "(the keys and values it is projected to), got {}",
                                       kv, mla.kv_lora_rank));
  }
  return mla;
}

}  // namespace

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::FP16:
      return "fp16";
    case Precision::BF16:
      return "bf16";
    case Precision::FP32:
      return "fp32";
    case Precision::FP8:
      return "fp8";
    case Precision::MXFP8:
      return "mxfp8";
    case Precision::NVFP4:
      return "nvfp4";
  }
  return "?";
}

Precision parse_precision(const std::string& name, const std::string& source,
                          const std::string& field) {
  for (Precision p : {Precision::FP16, Precision::BF16, Precision::FP32, Precision::FP8,
                      Precision::MXFP8, Precision::NVFP4}) {
    if (name == precision_name(p)) return p;
  }
  throw core::ConfigError(
      source, field, fmt::format("must be one of fp32|fp16|bf16|fp8|mxfp8|nvfp4, got '{}'", name));
}

double precision_bytes(Precision p) {
  switch (p) {
    case Precision::FP32:
      return 4.0;
    case Precision::FP8:
    case Precision::MXFP8:
      return 1.0;
    case Precision::NVFP4:
      return 0.5;
    default:
      return 2.0;
  }
}

bool low_precision_gemms(Precision p) {
  return p == Precision::FP8 || p == Precision::MXFP8 || p == Precision::NVFP4;
}

ModelSpec parse_model(const std::string& yaml_text, const std::string& source) {
  core::YamlMap y = core::YamlMap::parse(yaml_text, source);
  ModelSpec m;
  m.source = source;
  m.name = y.string("name");
  if (y.has("description")) m.description = y.string("description");
  if (y.has("references")) m.references = y.string_list("references");
  m.layers = static_cast<int>(y.integer("layers", 1, kMaxLayers));
  m.hidden = static_cast<int>(y.integer("hidden", 1, kMaxHidden));
  m.heads = static_cast<int>(y.integer("heads", 1, m.hidden));
  const bool mla = y.has("mla");
  if (y.has("head_dim")) {
    if (mla) {
      y.fail("head_dim",
             "must not be given with mla (latent attention takes its head dimensions "
             "from mla.qk_nope_head_dim, mla.qk_rope_head_dim and mla.v_head_dim)");
    }
    m.explicit_head_dim = static_cast<int>(y.integer("head_dim", 1, kMaxHidden));
  } else if (!mla && m.hidden % m.heads != 0) {
    y.fail("heads",
           fmt::format("must divide hidden = {} (or give head_dim), got {}", m.hidden, m.heads));
  }
  m.kv_heads = y.has("kv_heads") ? static_cast<int>(y.integer("kv_heads", 1, m.heads)) : m.heads;
  if (mla && m.kv_heads != m.heads) {
    y.fail("kv_heads", fmt::format("must equal heads = {} with mla (every head has its own keys "
                                   "and values, projected from the shared latent), got {}",
                                   m.heads, m.kv_heads));
  }
  if (m.heads % m.kv_heads != 0) {
    y.fail("kv_heads", fmt::format("must divide heads = {}, got {}", m.heads, m.kv_heads));
  }
  m.sequence = static_cast<int>(y.integer("sequence", 1, kMaxSequence));
  m.vocabulary = static_cast<int>(y.integer("vocabulary", 1, kMaxDim));
  m.ffn_hidden = static_cast<int>(y.integer("ffn_hidden", 1, kMaxFfn));
  if (y.has("gated_mlp")) m.gated_mlp = y.boolean("gated_mlp");
  if (y.has("bias")) m.bias = y.boolean("bias");
  if (y.has("qkv_bias")) m.qkv_bias = y.boolean("qkv_bias");
  if (y.has("norm")) {
    m.norm =
        y.choice("norm", {"layernorm", "rmsnorm"}) == "rmsnorm" ? Norm::RMSNorm : Norm::LayerNorm;
  }
  if (y.has("position_embeddings")) {
    m.position_embeddings = static_cast<int>(y.integer("position_embeddings", 0, kMaxSequence));
  }
  m.tied_embeddings = y.boolean("tied_embeddings");
  m.precision =
      parse_precision(y.choice("precision", {"fp16", "bf16", "fp32", "fp8"}), source, "precision");
  if (y.has("attention")) {
    m.attention = y.choice("attention", {"standard", "flash"}) == "flash" ? Attention::Flash
                                                                          : Attention::Standard;
  }
  if (y.has("dropout")) m.dropout = y.boolean("dropout");
  if (y.has("causal")) m.causal = y.boolean("causal");
  if (y.has("extra_parameters")) {
    m.extra_parameters = static_cast<double>(y.integer("extra_parameters", 0, 1L << 50));
  }
  if (y.has("qk_norm")) m.qk_norm = y.boolean("qk_norm");
  if (y.has("attention_window")) {
    if (!m.causal) y.fail("attention_window", "applies to causal models only (causal: true)");
    m.attention_window = static_cast<int>(y.integer("attention_window", 1, kMaxSequence));
    m.window_layers = y.has("window_layers")
                          ? static_cast<int>(y.integer("window_layers", 1, m.layers))
                          : m.layers;
  } else if (y.has("window_layers")) {
    y.fail("window_layers", "needs attention_window (the window those layers attend over)");
  }
  if (y.has("moe")) m.moe = parse_moe(y.map("moe"), m.layers);
  if (mla) {
    const std::pair<const char*, bool> unmodelled[] = {
        {"bias", m.bias}, {"qkv_bias", m.qkv_bias}, {"qk_norm", m.qk_norm}};
    for (const auto& [key, set] : unmodelled) {
      if (set) {
        y.fail(key,
               "must be false with mla (biases and query/key norms of the latent "
               "projections are not modelled; bias defaults to true)");
      }
    }
    m.mla = parse_mla(y.map("mla"), m.heads);
  }
  if (y.has("mtp_layers")) m.mtp_layers = static_cast<int>(y.integer("mtp_layers", 0, kMaxMtp));
  y.finish();
  return m;
}

std::vector<std::string> shipped_models() {
  return core::shipped_names_in("models");
}

namespace {

struct Registered {
  std::mutex mutex;
  std::map<std::string, ModelSpec> models;
};

Registered& registered() {
  static Registered r;
  return r;
}

}  // namespace

void register_model(const std::string& name, ModelSpec spec) {
  Registered& r = registered();
  std::lock_guard lock(r.mutex);
  r.models.insert_or_assign(name, std::move(spec));
}

ModelSpec load_model(const std::string& name_or_path) {
  {
    Registered& r = registered();
    std::lock_guard lock(r.mutex);
    if (const auto it = r.models.find(name_or_path); it != r.models.end()) return it->second;
  }
  const std::string ext = std::filesystem::path(name_or_path).extension().string();
  if (ext == ".json") return load_hf_config(name_or_path);
  const bool yaml = ext == ".yaml" || ext == ".yml";
  if (!yaml && name_or_path.find('/') != std::string::npos) {
    throw core::ConfigError(name_or_path, "file",
                            "a model file must end in .yaml or .yml (pipesim model) or .json "
                            "(Hugging Face config.json)");
  }
  if (yaml && !std::filesystem::exists(name_or_path)) {
    throw core::ConfigError(name_or_path, "file", "no such file");
  }
  const std::string path = core::resolve_shipped_yaml(name_or_path, "models", "model", "model");
  return parse_model(core::read_text_file(path), path);
}

}  // namespace pipesim::models
