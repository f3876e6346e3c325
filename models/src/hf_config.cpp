#include "pipesim/models/hf_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr long kMaxDim = 1L << 24;

// Fields that only mixture-of-experts configs carry (Mixtral, Qwen2-MoE, DeepSeek, DBRX,
// OLMoE, ...); any key starting with "moe_" counts too. A dense family's config with one of them
// set is refused: its reader would ignore the experts.
constexpr std::array<std::string_view, 14> kExpertFields = {"num_local_experts",
                                                            "num_experts",
                                                            "n_routed_experts",
                                                            "num_experts_per_tok",
                                                            "experts_per_token",
                                                            "n_shared_experts",
                                                            "shared_expert_intermediate_size",
                                                            "first_k_dense_replace",
                                                            "decoder_sparse_step",
                                                            "router_aux_loss_coef",
                                                            "expert_interval",
                                                            "ffn_config",
                                                            "interleave_moe_layer_step",
                                                            "num_nextn_predict_layers"};

// Families whose reader takes the experts (and the layer pattern) from the file.
constexpr std::array<std::string_view, 7> kExpertModelTypes = {
    "deepseek_v2", "deepseek_v3", "gpt_oss", "llama4_text", "mixtral", "qwen2_moe", "qwen3_moe"};

// Configs that reuse an architecture under a model_type of their own (Kimi K2: "kimi_k2" with
// DeepseekV3ForCausalLM) are read as that architecture's family.
constexpr std::array<std::pair<std::string_view, std::string_view>, 1> kArchitectureFamilies = {
    {{"DeepseekV3ForCausalLM", "deepseek_v3"}}};

// Reads the fields of one JSON object, collecting every problem instead of stopping at the
// first, so that a file's errors are reported together. A null value counts as absent
// (config.json writes `"n_inner": null` for "the default").
class FieldReader {
 public:
  explicit FieldReader(const json& doc) : doc_(doc) {}

  const json* find(const std::string& key) const {
    const auto it = doc_.find(key);
    return it == doc_.end() || it->is_null() ? nullptr : &*it;
  }
  bool has(const std::string& key) const { return find(key) != nullptr; }

  void problem(const std::string& field, const std::string& what) {
    problems_.push_back(field + ": " + what);
  }
  const std::vector<std::string>& problems() const { return problems_; }

  //! An integer in [lo, hi]; nullopt when absent (a problem when `required`) or invalid.
  std::optional<int> integer(const std::string& key, bool required, long lo = 1,
                             long hi = kMaxDim) {
    const json* v = find(key);
    if (v == nullptr) {
      if (required) problem(key, fmt::format("required: an integer in [{}, {}]", lo, hi));
      return std::nullopt;
    }
    if (!v->is_number_integer() || v->get<long long>() < lo || v->get<long long>() > hi) {
      problem(key, fmt::format("must be an integer in [{}, {}], got {}", lo, hi, v->dump()));
      return std::nullopt;
    }
    return static_cast<int>(v->get<long long>());
  }

  bool boolean(const std::string& key, bool fallback) {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) {
      problem(key, fmt::format("must be true or false, got {}", v->dump()));
      return fallback;
    }
    return v->get<bool>();
  }

  std::optional<std::string> text(const std::string& key) {
    const json* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) {
      problem(key, fmt::format("must be a string, got {}", v->dump()));
      return std::nullopt;
    }
    return v->get<std::string>();
  }

  //! A positive number (epsilons): checked, not used.
  void positive_number(const std::string& key) {
    const json* v = find(key);
    if (v != nullptr && (!v->is_number() || v->get<double>() <= 0.0)) {
      problem(key, fmt::format("must be a number > 0, got {}", v->dump()));
    }
  }

 private:
  const json& doc_;
  std::vector<std::string> problems_;
};

// The shape fields shared by every family, under the family's names.
struct ShapeFields {
  const char* hidden;
  const char* layers;
  const char* heads;
  const char* vocabulary;
};

void read_shape(FieldReader& f, const ShapeFields& names, ModelSpec& m) {
  m.hidden = f.integer(names.hidden, true).value_or(0);
  m.layers = f.integer(names.layers, true).value_or(0);
  m.heads = f.integer(names.heads, true).value_or(0);
  m.kv_heads = m.heads;
  m.vocabulary = f.integer(names.vocabulary, true).value_or(0);
}

// The names every family but GPT-2 uses, with the FFN size and the context length.
void read_standard_shape(FieldReader& f, ModelSpec& m) {
  read_shape(f, {"hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size"}, m);
  m.ffn_hidden = f.integer("intermediate_size", true).value_or(0);
  m.context = f.integer("max_position_embeddings", true).value_or(0);
}

// An explicit head_dim (Qwen3, Mistral-Nemo, gpt-oss): the queries are heads · head_dim wide.
// Null or absent: hidden / heads.
void read_head_dim(FieldReader& f, ModelSpec& m) {
  if (const auto head_dim = f.integer("head_dim", false)) {
    if (m.heads == 0 || m.hidden % m.heads != 0 || *head_dim != m.hidden / m.heads) {
      m.explicit_head_dim = *head_dim;
    }
  }
}

// Sliding-window attention: sliding_window positions (null or absent: none) on the layers that
// use it: those layer_types names "sliding_attention"; else with Qwen's use_sliding_window (false
// by default) the layers from max_window_layers on; else every layer (Mistral).
void read_sliding_window(FieldReader& f, ModelSpec& m) {
  const auto window = f.integer("sliding_window", false);
  int windowed = m.layers;
  if (const json* types = f.find("layer_types")) {
    const auto known = [](const json& t) {
      return t == "sliding_attention" || t == "full_attention";
    };
    if (!types->is_array() || static_cast<int>(types->size()) != m.layers ||
        !std::all_of(types->begin(), types->end(), known)) {
      f.problem("layer_types", fmt::format("must list num_hidden_layers = {} entries, each "
                                           "'full_attention' or 'sliding_attention'",
                                           m.layers));
      return;
    }
    windowed = static_cast<int>(std::count(types->begin(), types->end(), "sliding_attention"));
    if (windowed > 0 && !window) {
      f.problem("sliding_window",
                "required by layer_types' sliding_attention layers: an integer "
                ">= 1");
    }
  } else if (f.has("use_sliding_window")) {
    if (!f.boolean("use_sliding_window", false)) return;
    windowed = m.layers - f.integer("max_window_layers", false, 0, m.layers).value_or(0);
  }
  if (!window || windowed == 0) return;
  m.attention_window = *window;
  m.window_layers = windowed;
}

// Llama's and Nemotron's attention_bias and mlp_bias: biases on every linear layer or on none.
bool read_paired_biases(FieldReader& f) {
  const bool attention = f.boolean("attention_bias", false);
  const bool mlp = f.boolean("mlp_bias", false);
  if (attention != mlp) {
    f.problem(attention ? "attention_bias" : "mlp_bias",
              "true only together with the other of attention_bias and mlp_bias (pipesim models "
              "biases on every linear layer, on Q/K/V only, or on none)");
  }
  return attention && mlp;
}

// Llama, Mistral, Qwen2, Qwen3 (and the attention of Mixtral, Qwen-MoE, Llama 4): SwiGLU MLP
// (gate, up, down: HF's LlamaMLP has the gate whatever hidden_act says), RMSNorm, rotary
// positions, untied head unless the file ties it.
void read_llama_family(FieldReader& f, const std::string& type, ModelSpec& m) {
  read_standard_shape(f, m);
  m.kv_heads = f.integer("num_key_value_heads", false).value_or(m.heads);
  m.norm = Norm::RMSNorm;
  m.gated_mlp = true;
  m.dropout = false;  // trained without dropout (their configs' attention_dropout is 0.0)
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  f.positive_number("rms_norm_eps");
  f.text("hidden_act");
  read_head_dim(f, m);
  read_sliding_window(f, m);
  if (type == "qwen2" || type == "qwen2_moe") {  // q, k, v projections with bias, o_proj without
    m.bias = false;
    m.qkv_bias = true;
  } else if (type == "qwen3" || type == "qwen3_moe") {
    // Qwen3Attention: per-head RMSNorm of q and k; attention_bias would add biases to the four
    // attention projections only, which pipesim does not model.
    m.bias = false;
    m.qk_norm = true;
    if (f.boolean("attention_bias", false)) {
      f.problem("attention_bias", "true is not supported for " + type +
                                      " (biases on the attention projections only are not "
                                      "modelled)");
    }
  } else if (type == "llama") {
    m.bias = read_paired_biases(f);
  } else {  // mistral: no biases
    m.bias = false;
  }
}

// GPT-2: learned positions, LayerNorm, biases everywhere, GeLU MLP of n_inner (4h when null),
// head tied to the token embedding.
void read_gpt2(FieldReader& f, ModelSpec& m) {
  read_shape(f, {"n_embd", "n_layer", "n_head", "vocab_size"}, m);
  m.ffn_hidden = f.integer("n_inner", false).value_or(4 * m.hidden);
  m.position_embeddings = f.integer("n_positions", true).value_or(0);
  m.context = m.position_embeddings;
  m.norm = Norm::LayerNorm;
  m.bias = true;
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);
  f.positive_number("layer_norm_epsilon");
  f.text("activation_function");
  if (f.boolean("add_cross_attention", false)) {
    f.problem("add_cross_attention", "true is not supported (decoder-only models)");
  }
}

// GPT-NeoX (Pythia, GPT-NeoX-20B): rotary, LayerNorm and biases, untied "embed_out" head.
void read_gpt_neox(FieldReader& f, ModelSpec& m) {
  read_standard_shape(f, m);
  m.norm = Norm::LayerNorm;
  m.bias = true;
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  f.positive_number("layer_norm_eps");
  f.text("hidden_act");
  if (!f.boolean("attention_bias", true)) {
    f.problem("attention_bias",
              "false is not supported (pipesim models biases on every linear "
              "layer, on Q/K/V only, or on none)");
  }
}

// BERT: the encoder with its pooler (HF BertModel). Post-LN layers have the same parameters as
// a GPT layer; the embedding LayerNorm (2h) takes the place of the final norm in the count; the
// token-type table and the pooler are extra parameters. The MLM logits are priced through a
// head tied to the word embedding; the pretraining heads' own weights (MLM transform h² + 3h,
// decoder bias V, NSP 2h + 2) are not counted.
void read_bert(FieldReader& f, ModelSpec& m) {
  read_standard_shape(f, m);
  m.position_embeddings = m.context;  // learned positions
  m.causal = false;                   // bidirectional encoder
  m.norm = Norm::LayerNorm;
  m.bias = true;
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);
  const int types = f.integer("type_vocab_size", false, 0).value_or(2);
  const double h = m.hidden;
  m.extra_parameters = static_cast<double>(types) * h + h * h + h;  // token types, pooler
  f.positive_number("layer_norm_eps");
  f.text("hidden_act");
  if (const auto pos = f.text("position_embedding_type"); pos && *pos != "absolute") {
    f.problem("position_embedding_type",
              fmt::format("must be 'absolute' (relative distance tables are not modelled), got "
                          "'{}'",
                          *pos));
  }
  if (f.boolean("add_cross_attention", false)) {
    f.problem("add_cross_attention", "true is not supported (encoder-only models)");
  }
}

// The mixture-of-experts fields every MoE family names its own way.
struct ExpertFields {
  const char* experts;
  const char* top_k;
  const char* ffn;
};

// Reads experts, top-k and the expert FFN size; top-k must not exceed the experts.
void read_experts(FieldReader& f, const ExpertFields& names, ModelSpec& m) {
  const auto experts = f.integer(names.experts, true, 1, 1L << 16);
  const auto top_k = f.integer(names.top_k, true, 1, 1L << 16);
  const auto ffn = f.integer(names.ffn, true);
  if (experts && top_k && *top_k > *experts) {
    f.problem(names.top_k, fmt::format("must be at most {} = {} (the routed experts a token can "
                                       "be sent to), got {}",
                                       names.experts, *experts, *top_k));
  } else if (experts && top_k && ffn) {
    m.moe.experts = *experts;
    m.moe.top_k = *top_k;
    m.moe.ffn_hidden = *ffn;
  }
}

// Every k-th layer is MoE (Qwen's decoder_sparse_step, Llama 4's interleave_moe_layer_step:
// layers k−1, 2k−1, ...).
void read_moe_step(FieldReader& f, const char* step_key, ModelSpec& m) {
  const int step = f.integer(step_key, false, 1, std::max(m.layers, 1)).value_or(1);
  m.moe.layer_frequency = step;
  m.moe.layer_phase = step - 1;
}

// Mixtral: Mistral's attention, every layer a mixture of num_local_experts SwiGLU experts of
// intermediate_size, top num_experts_per_tok.
void read_mixtral(FieldReader& f, ModelSpec& m) {
  read_llama_family(f, "mistral", m);
  read_experts(f, {"num_local_experts", "num_experts_per_tok", "intermediate_size"}, m);
}

// Qwen2-MoE and Qwen3-MoE: Qwen2 / Qwen3 attention; MoE on every decoder_sparse_step-th layer
// (dense layers keep intermediate_size), num_experts of moe_intermediate_size; Qwen2-MoE adds one
// shared expert of shared_expert_intermediate_size behind a sigmoid gate.
void read_qwen_moe(FieldReader& f, const std::string& type, ModelSpec& m) {
  read_llama_family(f, type, m);
  read_experts(f, {"num_experts", "num_experts_per_tok", "moe_intermediate_size"}, m);
  read_moe_step(f, "decoder_sparse_step", m);
  if (const json* dense = f.find("mlp_only_layers");
      dense != nullptr && !(dense->is_array() && dense->empty())) {
    f.problem("mlp_only_layers",
              fmt::format("must be an empty list (pipesim places the dense layers by "
                          "decoder_sparse_step), got {}",
                          dense->dump()));
  }
  if (type == "qwen2_moe") {
    if (const auto shared = f.integer("shared_expert_intermediate_size", false)) {
      m.moe.shared_experts = 1;
      m.moe.shared_ffn_hidden = *shared;
      m.moe.shared_expert_gate = true;  // Qwen2MoeSparseMoeBlock.shared_expert_gate, h → 1
    }
  }
}

// DeepSeek-V2/V3 (and configs reusing DeepseekV3ForCausalLM): multi-head latent attention,
// first_k_dense_replace dense layers of intermediate_size, then MoE on every moe_layer_freq-th
// layer: n_routed_experts of moe_intermediate_size, top num_experts_per_tok, n_shared_experts of
// the same size; topk_method "noaux_tc" is the aux-loss-free bias; num_nextn_predict_layers MTP
// modules.
void read_deepseek(FieldReader& f, ModelSpec& m) {
  read_standard_shape(f, m);
  m.norm = Norm::RMSNorm;
  m.gated_mlp = true;
  m.bias = false;
  m.dropout = false;
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  f.positive_number("rms_norm_eps");
  f.text("hidden_act");
  if (const auto kv = f.integer("num_key_value_heads", false); kv && *kv != m.heads) {
    f.problem("num_key_value_heads",
              fmt::format("must equal num_attention_heads = {} (latent attention gives every "
                          "head its own keys and values), got {}",
                          m.heads, *kv));
  }
  if (f.boolean("attention_bias", false)) {
    f.problem("attention_bias", "true is not supported with multi-head latent attention");
  }
  m.mla.q_lora_rank = f.integer("q_lora_rank", false, 0).value_or(0);
  m.mla.kv_lora_rank = f.integer("kv_lora_rank", true).value_or(0);
  m.mla.qk_nope_head_dim = f.integer("qk_nope_head_dim", true).value_or(0);
  m.mla.qk_rope_head_dim = f.integer("qk_rope_head_dim", true, 0).value_or(0);
  m.mla.v_head_dim = f.integer("v_head_dim", true).value_or(0);
  if (const auto qk = f.integer("qk_head_dim", false);
      qk && *qk != m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim) {
    f.problem("qk_head_dim", fmt::format("must be qk_nope_head_dim + qk_rope_head_dim = {}, got {}",
                                         m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim, *qk));
  }
  const long q = static_cast<long>(m.heads) * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
  const long kv = static_cast<long>(m.heads) * (m.mla.qk_nope_head_dim + m.mla.v_head_dim);
  if (m.mla.kv_lora_rank > 0 && m.mla.kv_lora_rank >= kv && m.heads > 0) {
    f.problem("kv_lora_rank", fmt::format("must be below num_attention_heads · (qk_nope_head_dim + "
                                          "v_head_dim) = {}, got {}",
                                          kv, m.mla.kv_lora_rank));
  }
  if (m.mla.q_lora_rank >= q && m.heads > 0) {
    f.problem("q_lora_rank", fmt::format("must be below num_attention_heads · (qk_nope_head_dim + "
                                         "qk_rope_head_dim) = {}, got {}",
                                         q, m.mla.q_lora_rank));
  }
  read_experts(f, {"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size"}, m);
  m.moe.shared_experts = f.integer("n_shared_experts", false, 0, 1L << 10).value_or(0);
  m.moe.shared_ffn_hidden = m.moe.shared_experts > 0 ? m.moe.ffn_hidden : 0;
  m.moe.first_dense_layers =
      f.integer("first_k_dense_replace", false, 0, std::max(m.layers - 1, 0)).value_or(0);
  m.moe.layer_frequency = f.integer("moe_layer_freq", false, 1, std::max(m.layers, 1)).value_or(1);
  m.moe.expert_bias = f.text("topk_method").value_or("") == "noaux_tc";
  // Group-limited routing (n_group groups, a token's experts from its topk_group best ones); one
  // group is no limit.
  const int groups =
      static_cast<int>(f.integer("n_group", false, 1, std::max(m.moe.experts, 1)).value_or(1));
  const int group_topk =
      static_cast<int>(f.integer("topk_group", false, 1, groups).value_or(groups));
  if (groups > 1 && m.moe.experts % groups == 0 && group_topk < groups) {
    m.moe.router_groups = groups;
    m.moe.router_group_topk = group_topk;
  }
  m.mtp_layers = f.integer("num_nextn_predict_layers", false, 0, 64).value_or(0);
}

// gpt-oss: every layer a mixture of num_local_experts SwiGLU experts of intermediate_size;
// biases on every linear layer (attention, experts, router), explicit head_dim.
void read_gpt_oss(FieldReader& f, ModelSpec& m) {
  read_standard_shape(f, m);
  m.kv_heads = f.integer("num_key_value_heads", false).value_or(m.heads);
  m.norm = Norm::RMSNorm;
  m.gated_mlp = true;
  m.bias = true;
  m.dropout = false;
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  f.positive_number("rms_norm_eps");
  if (!f.has("head_dim")) f.problem("head_dim", "required for gpt_oss: an integer >= 1");
  read_head_dim(f, m);
  read_sliding_window(f, m);
  if (!f.boolean("attention_bias", true)) {
    f.problem("attention_bias",
              "false is not supported for gpt_oss (its experts and router "
              "carry biases; pipesim models biases on every linear layer or "
              "on none)");
  }
  const char* top_k = f.has("num_experts_per_tok") ? "num_experts_per_tok" : "experts_per_token";
  read_experts(f, {"num_local_experts", top_k, "intermediate_size"}, m);
}

// Llama 4 text (Llama4ForCausalLM): MoE on every interleave_moe_layer_step-th layer with
// num_local_experts routed experts and one shared expert, both of intermediate_size; the dense
// layers have intermediate_size_mlp. The query/key L2 norm has no weights.
void read_llama4_text(FieldReader& f, ModelSpec& m) {
  read_llama_family(f, "mistral", m);
  m.ffn_hidden = f.integer("intermediate_size_mlp", true).value_or(0);
  read_experts(f, {"num_local_experts", "num_experts_per_tok", "intermediate_size"}, m);
  m.moe.shared_experts = 1;
  m.moe.shared_ffn_hidden = m.moe.ffn_hidden;
  read_moe_step(f, "interleave_moe_layer_step", m);
  if (f.boolean("attention_bias", false)) {
    f.problem("attention_bias",
              "true is not supported for llama4_text (biases on the "
              "attention projections only are not modelled)");
  }
  if (const json* listed = f.find("moe_layers"); listed != nullptr) {
    json expected = json::array();
    for (int i = 0; i < m.layers; ++i) {
      if (m.moe.layer_frequency > 0 && i % m.moe.layer_frequency == m.moe.layer_phase) {
        expected.push_back(i);
      }
    }
    if (*listed != expected) {
      f.problem("moe_layers",
                fmt::format("must list every interleave_moe_layer_step-th layer ({} of {} "
                            "layers, from layer {}), as pipesim places them",
                            expected.size(), m.layers, m.moe.layer_phase));
    }
  }
}

// Nemotron (NemotronForCausalLM): squared-ReLU MLP without a gate (up, down), LayerNorm1P (a
// LayerNorm with weight and bias), rotary, untied head; head_dim may differ from hidden / heads.
void read_nemotron(FieldReader& f, ModelSpec& m) {
  read_standard_shape(f, m);
  m.kv_heads = f.integer("num_key_value_heads", false).value_or(m.heads);
  m.norm = Norm::LayerNorm;
  m.gated_mlp = false;
  m.dropout = false;
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  f.positive_number("norm_eps");
  f.text("hidden_act");
  read_head_dim(f, m);
  m.bias = read_paired_biases(f);
}

void read_precision(FieldReader& f, ModelSpec& m) {
  // transformers >= 4.56 writes "dtype", older versions "torch_dtype".
  const std::string key = f.has("torch_dtype") || !f.has("dtype") ? "torch_dtype" : "dtype";
  const auto dtype = f.text(key);
  if (!dtype) return;  // absent: bf16, mixed-precision training's usual choice
  if (*dtype == "float16") {
    m.precision = Precision::FP16;
  } else if (*dtype == "bfloat16") {
    m.precision = Precision::BF16;
  } else if (*dtype == "float32") {
    m.precision = Precision::FP32;
  } else {
    f.problem(key, fmt::format("must be float16, bfloat16 or float32, got '{}'", *dtype));
  }
}

// A dense family's reader ignores expert fields: one that is set means the file is not what
// its model_type says.
void refuse_expert_fields(FieldReader& f, const json& doc, const std::string& type) {
  for (const auto& [key, value] : doc.items()) {
    const bool expert_key =
        key.starts_with("moe_") ||
        std::find(kExpertFields.begin(), kExpertFields.end(), key) != kExpertFields.end();
    const bool set = !value.is_null() && value != json(0) && value != json(false);
    if (expert_key && set) {
      f.problem(key, fmt::format("a mixture-of-experts field, but model_type '{}' is dense "
                                 "(mixture-of-experts types: {})",
                                 type, fmt::join(kExpertModelTypes, ", ")));
    }
  }
}

void check_heads(FieldReader& f, const std::string& heads_key, const ModelSpec& m, bool latent) {
  // With an explicit head_dim or latent attention the heads need not divide the hidden size.
  if (m.hidden > 0 && m.heads > 0 && m.hidden % m.heads != 0 && m.explicit_head_dim == 0 &&
      !latent) {
    f.problem(heads_key, fmt::format("must divide the hidden size {}, got {}", m.hidden, m.heads));
  }
  if (m.heads > 0 && m.kv_heads > m.heads) {
    f.problem("num_key_value_heads",
              fmt::format("must be at most num_attention_heads = {}, got {}", m.heads, m.kv_heads));
  } else if (m.heads > 0 && m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    f.problem("num_key_value_heads",
              fmt::format("must divide num_attention_heads = {}, got {}", m.heads, m.kv_heads));
  }
}

// The MoE layer pattern must leave at least one MoE layer (first_k_dense_replace or the step
// larger than the model).
void check_layer_pattern(FieldReader& f, const std::string& type, const ModelSpec& m) {
  if (!m.is_moe() || m.layers <= 0 || moe_layer_count(m) > 0) return;
  const char* key = type.starts_with("deepseek") ? "first_k_dense_replace"
                    : type == "llama4_text"      ? "interleave_moe_layer_step"
                                                 : "decoder_sparse_step";
  f.problem(key, fmt::format("leaves no mixture-of-experts layer among the {} layers", m.layers));
}

}  // namespace

const std::vector<std::string>& hf_model_types() {
  static const std::vector<std::string> types = {
      "bert",     "deepseek_v2", "deepseek_v3", "gpt2",    "gpt_neox",
      "gpt_oss",  "llama",       "llama4_text", "mistral", "mixtral",
      "nemotron", "qwen2",       "qwen2_moe",   "qwen3",   "qwen3_moe"};
  return types;
}

ModelSpec parse_hf_config(const std::string& json_text, const std::string& source,
                          const std::string& name) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw core::ConfigError(source, "json", e.what());
  }
  if (!doc.is_object()) throw core::ConfigError(source, "document", "must be a JSON object");

  FieldReader f(doc);
  const std::string supported = fmt::format("{}", fmt::join(hf_model_types(), ", "));
  std::optional<std::string> type = f.text("model_type");
  const auto& types = hf_model_types();
  if (!type) {
    if (!f.has("model_type")) f.problem("model_type", "required (supported: " + supported + ")");
  } else if (std::find(types.begin(), types.end(), *type) == types.end()) {
    // The first listed architecture names the model class; a reused one picks its family.
    const json* archs = f.find("architectures");
    const std::string arch =
        archs != nullptr && archs->is_array() && !archs->empty() && archs->front().is_string()
            ? archs->front().get<std::string>()
            : "";
    const auto family = std::find_if(kArchitectureFamilies.begin(), kArchitectureFamilies.end(),
                                     [&](const auto& entry) { return entry.first == arch; });
    if (family != kArchitectureFamilies.end()) {
      type = std::string(family->second);
    } else if (*type == "llama4") {
      f.problem("model_type",
                "'llama4' is the multimodal Llama4ForConditionalGeneration; give its "
                "text_config (model_type llama4_text) as the config.json (the "
                "vision encoder is not modelled)");
    } else {
      f.problem("model_type", fmt::format("unsupported '{}'{} (supported: {})", *type,
                                          arch.empty() ? "" : ", architecture " + arch, supported));
    }
  }
  // A supported dense family must not carry expert fields (an unsupported type is refused as a
  // whole above).
  const bool known = type && std::find(types.begin(), types.end(), *type) != types.end();
  const bool experts = known && std::find(kExpertModelTypes.begin(), kExpertModelTypes.end(),
                                          *type) != kExpertModelTypes.end();
  if (known && !experts) refuse_expert_fields(f, doc, *type);
  if (!f.problems().empty()) {
    throw core::ConfigError(fmt::format("{}: {}", source, fmt::join(f.problems(), "; ")));
  }

  ModelSpec m;
  m.source = source;
  m.name = name;
  const auto hub_name = f.text("_name_or_path");
  if (*type == "gpt2") {
    read_gpt2(f, m);
  } else if (*type == "gpt_neox") {
    read_gpt_neox(f, m);
  } else if (*type == "bert") {
    read_bert(f, m);
  } else if (*type == "mixtral") {
    read_mixtral(f, m);
  } else if (*type == "qwen2_moe" || *type == "qwen3_moe") {
    read_qwen_moe(f, *type, m);
  } else if (*type == "deepseek_v2" || *type == "deepseek_v3") {
    read_deepseek(f, m);
  } else if (*type == "gpt_oss") {
    read_gpt_oss(f, m);
  } else if (*type == "llama4_text") {
    read_llama4_text(f, m);
  } else if (*type == "nemotron") {
    read_nemotron(f, m);
  } else {
    read_llama_family(f, *type, m);
  }
  check_heads(f, *type == "gpt2" ? "n_head" : "num_attention_heads", m,
              type->starts_with("deepseek"));
  check_layer_pattern(f, *type, m);
  read_precision(f, m);
  // A config.json describes the model, not its training run: its context length is the longest
  // sequence the positions serve (131072 for Qwen2-7B), not what it trains at. Only a
  // `seq_length` (Megatron-style configs) fixes the sequence; otherwise the user gives it.
  m.sequence = f.integer("seq_length", false, 1, 1 << 24).value_or(0);
  // The families FlashAttention-era recipes train (Llama, Mistral, Qwen, DeepSeek, ...); GPT-2,
  // GPT-NeoX and BERT configs keep the unfused kernels they were published with.
  if (*type != "gpt2" && *type != "gpt_neox" && *type != "bert") m.attention = Attention::Flash;
  if (!f.problems().empty()) {
    throw core::ConfigError(fmt::format("{}: {}", source, fmt::join(f.problems(), "; ")));
  }
  m.description = fmt::format(
      "{} from a Hugging Face config ({} layers, h {}, {} heads, context {}{})", *type, m.layers,
      m.hidden, m.heads, m.context,
      m.is_moe() ? fmt::format(", {} experts, top-{}", m.moe.experts, m.moe.top_k) : "");
  m.references = {"Hugging Face config.json " + source};
  if (hub_name && !hub_name->empty()) m.references.push_back("huggingface.co/" + *hub_name);
  return m;
}

ModelSpec load_hf_config(const std::string& path) {
  const fs::path p(path);
  if (!fs::exists(p)) throw core::ConfigError(path, "file", "no such file");
  std::ifstream in(p);
  if (!in) throw core::ConfigError(path, "file", "cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  const std::string stem = p.stem().string();
  const std::string folder = fs::absolute(p).parent_path().filename().string();
  return parse_hf_config(text.str(), path, stem == "config" && !folder.empty() ? folder : stem);
}

}  // namespace pipesim::models
