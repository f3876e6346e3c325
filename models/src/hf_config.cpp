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

#include "pipesim/core/config_error.hpp"

namespace pipesim::models {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr long kMaxDim = 1L << 24;

// Fields that only mixture-of-experts configs carry (Mixtral, Qwen2-MoE, DeepSeek, DBRX,
// OLMoE, ...); any key starting with "moe_" counts too.
constexpr std::array<std::string_view, 11> kExpertFields = {
    "num_local_experts",     "num_experts",         "n_routed_experts",
    "num_experts_per_tok",   "n_shared_experts",    "shared_expert_intermediate_size",
    "first_k_dense_replace", "decoder_sparse_step", "router_aux_loss_coef",
    "expert_interval",       "ffn_config"};

// model_type values of mixture-of-experts families, refused with the same message.
constexpr std::array<std::string_view, 10> kExpertModelTypes = {
    "dbrx",  "deepseek_v2", "deepseek_v3", "jamba",     "mixtral",
    "olmoe", "phimoe",      "qwen2_moe",   "qwen3_moe", "switch_transformers"};

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
  m.sequence = f.integer("max_position_embeddings", true).value_or(0);
}

// Llama, Mistral, Qwen2: SwiGLU MLP (gate, up, down: HF's LlamaMLP has the gate whatever
// hidden_act says), RMSNorm, rotary positions, untied head unless the file ties it.
void read_llama_family(FieldReader& f, const std::string& type, ModelSpec& m) {
  read_standard_shape(f, m);
  m.kv_heads = f.integer("num_key_value_heads", false).value_or(m.heads);
  m.norm = Norm::RMSNorm;
  m.gated_mlp = true;
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  f.positive_number("rms_norm_eps");
  f.text("hidden_act");
  if (m.hidden > 0 && m.heads > 0) {
    const auto head_dim = f.integer("head_dim", false);
    if (head_dim && m.hidden % m.heads == 0 && *head_dim != m.hidden / m.heads) {
      f.problem("head_dim", fmt::format("must be hidden_size / num_attention_heads = {} (pipesim "
                                        "derives it), got {}",
                                        m.hidden / m.heads, *head_dim));
    }
  }
  if (type == "qwen2") {  // Qwen2Attention: q, k, v projections with bias, o_proj without
    m.bias = false;
    m.qkv_bias = true;
  } else if (type == "llama") {
    const bool attention = f.boolean("attention_bias", false);
    const bool mlp = f.boolean("mlp_bias", false);
    if (attention != mlp) {
      f.problem(attention ? "attention_bias" : "mlp_bias",
                "true only together with the other of attention_bias and mlp_bias (pipesim models "
                "biases on every linear layer, on Q/K/V only, or on none)");
    }
    m.bias = attention && mlp;
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
  m.sequence = m.position_embeddings;
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
  m.position_embeddings = m.sequence;  // learned positions
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

bool refuse_experts(FieldReader& f, const json& doc, const std::string& type) {
  std::vector<std::string> found;
  for (const auto& [key, value] : doc.items()) {
    const bool expert_key =
        key.starts_with("moe_") ||
        std::find(kExpertFields.begin(), kExpertFields.end(), key) != kExpertFields.end();
    const bool set = !value.is_null() && value != json(0) && value != json(false);
    if (expert_key && set) found.push_back(key);
  }
  const bool expert_type = std::find(kExpertModelTypes.begin(), kExpertModelTypes.end(), type) !=
                           kExpertModelTypes.end();
  if (found.empty() && !expert_type) return false;
  const std::string problem =
      "mixture-of-experts (MoE) models are not supported yet; pipesim "
      "models dense transformers";
  if (found.empty()) {
    f.problem("model_type", fmt::format("'{}': {}", type, problem));
  } else {
    f.problem(found.front(),
              fmt::format("{} (expert fields: {})", problem, fmt::join(found, ", ")));
  }
  return true;
}

void check_heads(FieldReader& f, const std::string& heads_key, const ModelSpec& m) {
  if (m.hidden > 0 && m.heads > 0 && m.hidden % m.heads != 0) {
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

}  // namespace

const std::vector<std::string>& hf_model_types() {
  static const std::vector<std::string> types = {"bert",  "gpt2",    "gpt_neox",
                                                 "llama", "mistral", "qwen2"};
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
  const std::optional<std::string> type = f.text("model_type");
  if (!type) {
    if (!f.has("model_type")) f.problem("model_type", "required (supported: " + supported + ")");
  } else if (!refuse_experts(f, doc, *type)) {
    const auto& types = hf_model_types();
    if (std::find(types.begin(), types.end(), *type) == types.end()) {
      f.problem("model_type", fmt::format("unsupported '{}' (supported: {})", *type, supported));
    }
  }
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
  } else {
    read_llama_family(f, *type, m);
  }
  check_heads(f, *type == "gpt2" ? "n_head" : "num_attention_heads", m);
  read_precision(f, m);
  if (!f.problems().empty()) {
    throw core::ConfigError(fmt::format("{}: {}", source, fmt::join(f.problems(), "; ")));
  }
  m.description = fmt::format("{} from a Hugging Face config ({} layers, h {}, {} heads, s {})",
                              *type, m.layers, m.hidden, m.heads, m.sequence);
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
