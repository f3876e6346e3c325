#include "pipesim/models/megatron_model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <utility>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

constexpr long kMaxDim = 1L << 24;

// Reads the arguments, collecting every problem so that a script's errors come together.
class ArgReader {
 public:
  explicit ArgReader(const MegatronValues& args) : args_(args) {}

  bool has(const std::string& key) const { return args_.count(key) > 0; }
  void problem(const std::string& key, const std::string& what) {
    problems_.push_back(key + ": " + what);
  }
  const std::vector<std::string>& problems() const { return problems_; }

  std::optional<long> integer(const std::string& key, bool required, long lo = 1,
                              long hi = kMaxDim) {
    const auto it = args_.find(key);
    if (it == args_.end()) {
      if (required) problem(key, fmt::format("required: an integer in [{}, {}]", lo, hi));
      return std::nullopt;
    }
    long v = 0;
    const std::string& t = it->second;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size() || v < lo || v > hi) {
      problem(key, fmt::format("must be an integer in [{}, {}], got '{}'", lo, hi, t));
      return std::nullopt;
    }
    return v;
  }

  std::optional<double> real(const std::string& key) {
    const auto it = args_.find(key);
    if (it == args_.end()) return std::nullopt;
    try {
      size_t used = 0;
      const double v = std::stod(it->second, &used);
      if (used == it->second.size() && v >= 0) return v;
    } catch (const std::exception&) {
    }
    problem(key, fmt::format("must be a number >= 0, got '{}'", it->second));
    return std::nullopt;
  }

  std::optional<std::string> choice(const std::string& key,
                                    const std::vector<std::string>& allowed) {
    const auto it = args_.find(key);
    if (it == args_.end()) return std::nullopt;
    if (std::find(allowed.begin(), allowed.end(), it->second) == allowed.end()) {
      problem(key,
              fmt::format("must be one of {}, got '{}'", fmt::join(allowed, ", "), it->second));
      return std::nullopt;
    }
    return it->second;
  }

 private:
  const MegatronValues& args_;
  std::vector<std::string> problems_;
};

// Megatron's FFN default: 4h, or for SwiGLU 8h/3 rounded down to a multiple of 64.
int default_ffn(int hidden, bool swiglu) {
  return swiglu ? static_cast<int>(4L * hidden * 2 / 3 / 64 * 64) : 4 * hidden;
}

// The vocabulary: given, or fixed by the tokenizer; then padded to a multiple of
// make_vocab_size_divisible_by × T (Megatron's _vocab_size_with_padding).
int read_vocabulary(ArgReader& f, const MegatronValues& args, int tensor_parallel) {
  std::optional<long> size = f.integer("vocab_size", false);
  if (!size) {
    const auto type = args.find("tokenizer_type");
    const std::string t = type == args.end() ? "" : type->second;
    if (t == "GPT2BPETokenizer" || (t.empty() && args.count("merge_file") > 0)) {
      size = 50257;  // the GPT-2 BPE vocabulary that vocab_file/merge_file name
    } else if (t == "Llama2Tokenizer") {
      size = 32000;
    } else {
      f.problem("vocab_size",
                fmt::format("required: the vocabulary of tokenizer '{}' is not known here (known: "
                            "GPT2BPETokenizer 50257, Llama2Tokenizer 32000)",
                            t.empty() ? "none given" : t));
      return 0;
    }
  }
  const long divisible = f.integer("make_vocab_size_divisible_by", false).value_or(128);
  const long multiple = divisible * std::max(tensor_parallel, 1);
  return static_cast<int>((*size + multiple - 1) / multiple * multiple);
}

// "([0]*a+[1]*b)" (parentheses optional): a dense layers, then b MoE ones.
std::optional<std::pair<int, int>> dense_then_sparse(std::string_view text) {
  if (text.starts_with("(") && text.ends_with(")")) text = text.substr(1, text.size() - 2);
  const auto count = [&](std::string_view prefix) -> std::optional<int> {
    if (!text.starts_with(prefix)) return std::nullopt;
    text.remove_prefix(prefix.size());
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || v < 0) return std::nullopt;
    text.remove_prefix(static_cast<size_t>(end - text.data()));
    return v;
  };
  const auto dense = count("[0]*");
  if (!dense || !text.starts_with("+")) return std::nullopt;
  text.remove_prefix(1);
  const auto sparse = count("[1]*");
  if (!sparse || !text.empty()) return std::nullopt;
  return std::pair{*dense, *sparse};
}

// moe_layer_freq: every k-th layer from layer 0, or a pattern "([0]*a+[1]*b)": a dense layers,
// then b MoE ones.
void read_layer_pattern(ArgReader& f, const MegatronValues& args, ModelSpec& m) {
  const auto it = args.find("moe_layer_freq");
  if (it == args.end()) return;
  if (const auto pattern = dense_then_sparse(it->second)) {
    const auto [dense, sparse] = *pattern;
    if (dense + sparse != m.layers) {
      f.problem("moe_layer_freq", fmt::format("the pattern lists {} layers, but num_layers is {}",
                                              dense + sparse, m.layers));
    }
    m.moe.first_dense_layers = dense;
    return;
  }
  m.moe.layer_frequency =
      static_cast<int>(f.integer("moe_layer_freq", false, 1, std::max(m.layers, 1)).value_or(1));
}

void read_experts(ArgReader& f, const MegatronValues& args, ModelSpec& m) {
  const auto experts = f.integer("num_experts", false, 1, 1L << 16);
  if (!experts) return;
  m.moe.experts = static_cast<int>(*experts);
  m.moe.top_k = static_cast<int>(f.integer("moe_router_topk", false, 1, *experts).value_or(2));
  m.moe.ffn_hidden =
      static_cast<int>(f.integer("moe_ffn_hidden_size", false).value_or(m.ffn_hidden));
  if (const auto shared = f.integer("moe_shared_expert_intermediate_size", false)) {
    m.moe.shared_experts = 1;
    m.moe.shared_ffn_hidden = static_cast<int>(*shared);
  }
  read_layer_pattern(f, args, m);
  m.moe.expert_bias = args.count("moe_router_enable_expert_bias") > 0;
  const int groups = static_cast<int>(
      f.integer("moe_router_num_groups", false, 1, std::max(m.moe.experts, 1)).value_or(1));
  const int group_topk =
      static_cast<int>(f.integer("moe_router_group_topk", false, 1, groups).value_or(groups));
  if (groups > 1 && m.moe.experts % groups == 0 && group_topk < groups) {
    m.moe.router_groups = groups;
    m.moe.router_group_topk = group_topk;
  }
  m.moe.capacity_factor = f.real("moe_expert_capacity_factor").value_or(0.0);
  if (moe_layer_count(m) == 0) {
    f.problem("moe_layer_freq",
              fmt::format("leaves no mixture-of-experts layer among the {} layers", m.layers));
  }
}

// Multi-head latent attention, with Megatron's defaults (MLATransformerConfig).
void read_latent_attention(ArgReader& f, ModelSpec& m) {
  m.mla.q_lora_rank = static_cast<int>(f.integer("q_lora_rank", false, 0).value_or(0));
  m.mla.kv_lora_rank = static_cast<int>(f.integer("kv_lora_rank", false).value_or(32));
  m.mla.qk_nope_head_dim = static_cast<int>(f.integer("qk_head_dim", false).value_or(128));
  m.mla.qk_rope_head_dim =
      static_cast<int>(f.integer("qk_pos_emb_head_dim", false, 0).value_or(64));
  m.mla.v_head_dim = static_cast<int>(f.integer("v_head_dim", false).value_or(128));
}

void check_heads(ArgReader& f, const ModelSpec& m) {
  if (m.heads > 0 && m.hidden % m.heads != 0 && m.explicit_head_dim == 0 && !m.is_mla()) {
    f.problem("num_attention_heads",
              fmt::format("must divide hidden_size = {} (or give kv_channels), got {}", m.hidden,
                          m.heads));
  }
  if (m.heads > 0 && (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)) {
    f.problem("num_query_groups",
              fmt::format("must divide num_attention_heads = {}, got {}", m.heads, m.kv_heads));
  }
}

}  // namespace

const std::vector<std::string>& megatron_shape_arguments() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"add_qkv_bias",
                                  "attention_backend",
                                  "attention_dropout",
                                  "disable_bias_linear",
                                  "ffn_hidden_size",
                                  "group_query_attention",
                                  "hidden_dropout",
                                  "hidden_size",
                                  "kv_channels",
                                  "kv_lora_rank",
                                  "make_vocab_size_divisible_by",
                                  "max_position_embeddings",
                                  "merge_file",
                                  "moe_expert_capacity_factor",
                                  "moe_ffn_hidden_size",
                                  "moe_layer_freq",
                                  "moe_router_enable_expert_bias",
                                  "moe_router_group_topk",
                                  "moe_router_num_groups",
                                  "moe_router_topk",
                                  "moe_shared_expert_intermediate_size",
                                  "mtp_num_layers",
                                  "multi_latent_attention",
                                  "no_position_embedding",
                                  "normalization",
                                  "num_attention_heads",
                                  "num_experts",
                                  "num_layers",
                                  "num_query_groups",
                                  "position_embedding_type",
                                  "q_lora_rank",
                                  "qk_head_dim",
                                  "qk_layernorm",
                                  "qk_pos_emb_head_dim",
                                  "seq_length",
                                  "swiglu",
                                  "tokenizer_type",
                                  "untie_embeddings_and_output_weights",
                                  "use_flash_attn",
                                  "v_head_dim",
                                  "vocab_file",
                                  "vocab_size"};
    std::sort(n.begin(), n.end());
    return n;
  }();
  return names;
}

ModelSpec megatron_model(const MegatronValues& args, const std::string& source,
                         const std::string& name, int tensor_parallel) {
  ArgReader f(args);
  ModelSpec m;
  m.name = name;
  m.source = source;
  m.layers = static_cast<int>(f.integer("num_layers", true).value_or(0));
  m.hidden = static_cast<int>(f.integer("hidden_size", true).value_or(0));
  m.heads = static_cast<int>(f.integer("num_attention_heads", true).value_or(0));
  m.gated_mlp = f.has("swiglu");
  m.ffn_hidden = static_cast<int>(
      f.integer("ffn_hidden_size", false).value_or(default_ffn(m.hidden, m.gated_mlp)));
  m.kv_heads = m.heads;
  if (f.has("group_query_attention")) {
    m.kv_heads = static_cast<int>(f.integer("num_query_groups", false).value_or(1));
  }
  if (const auto kv = f.integer("kv_channels", false);
      kv && m.heads > 0 && *kv * m.heads != m.hidden) {
    m.explicit_head_dim = static_cast<int>(*kv);
  }
  m.sequence = static_cast<int>(f.integer("seq_length", false).value_or(0));
  m.context = static_cast<int>(f.integer("max_position_embeddings", false).value_or(m.sequence));
  const std::string positions =
      f.choice("position_embedding_type", {"learned_absolute", "rope", "mrope", "relative", "none"})
          .value_or("learned_absolute");
  if (positions == "learned_absolute" && !f.has("no_position_embedding")) {
    m.position_embeddings = m.context;
  }
  m.norm = f.choice("normalization", {"LayerNorm", "RMSNorm"}).value_or("LayerNorm") == "RMSNorm"
               ? Norm::RMSNorm
               : Norm::LayerNorm;
  m.tied_embeddings = !f.has("untie_embeddings_and_output_weights");
  m.bias = !f.has("disable_bias_linear");
  if (f.has("add_qkv_bias") && !m.bias) m.qkv_bias = true;
  m.qk_norm = f.has("qk_layernorm");
  // Dropout layers run unless both probabilities are 0 (Megatron's default is 0.1 each).
  m.dropout =
      f.real("attention_dropout").value_or(0.1) > 0 || f.real("hidden_dropout").value_or(0.1) > 0;
  // Megatron-Core's attention backend: Transformer Engine's fused or flash kernels unless the
  // unfused or local one is asked for.
  const std::string backend =
      f.choice("attention_backend", {"auto", "flash", "fused", "unfused", "local"})
          .value_or("auto");
  m.attention = backend == "unfused" || backend == "local" ? Attention::Standard : Attention::Flash;
  if (f.has("use_flash_attn")) m.attention = Attention::Flash;
  m.vocabulary = read_vocabulary(f, args, tensor_parallel);
  if (f.has("multi_latent_attention")) read_latent_attention(f, m);
  read_experts(f, args, m);
  m.mtp_layers = static_cast<int>(f.integer("mtp_num_layers", false, 0, 64).value_or(0));
  check_heads(f, m);
  if (!f.problems().empty()) {
    throw core::ConfigError(fmt::format("{}: {}", source, fmt::join(f.problems(), "; ")));
  }
  m.description = fmt::format(
      "Megatron-LM arguments ({} layers, h {}, {} heads, vocabulary {}{})", m.layers, m.hidden,
      m.heads, m.vocabulary,
      m.is_moe() ? fmt::format(", {} experts, top-{}", m.moe.experts, m.moe.top_k) : "");
  m.references = {"Megatron-LM arguments " + source};
  return m;
}

}  // namespace pipesim::models
