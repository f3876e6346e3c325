#include "pipesim/models/model_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/shipped_files.hpp"
#include "pipesim/core/text_file.hpp"
#include "pipesim/core/yaml_reader.hpp"
#include "pipesim/models/hf_config.hpp"

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
  }
  return "?";
}

Precision parse_precision(const std::string& name, const std::string& source,
                          const std::string& field) {
  for (Precision p : {Precision::FP16, Precision::BF16, Precision::FP32, Precision::FP8}) {
    if (name == precision_name(p)) return p;
  }
  throw core::ConfigError(source, field,
                          fmt::format("must be one of fp32|fp16|bf16|fp8, got '{}'", name));
}

double precision_bytes(Precision p) {
  switch (p) {
    case Precision::FP32:
      return 4.0;
    case Precision::FP8:
      return 1.0;
    default:
      return 2.0;
  }
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
  if (m.hidden % m.heads != 0) {
    y.fail("heads", fmt::format("must divide hidden = {}, got {}", m.hidden, m.heads));
  }
  m.kv_heads = y.has("kv_heads") ? static_cast<int>(y.integer("kv_heads", 1, m.heads)) : m.heads;
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
  if (y.has("dropout")) m.dropout = y.boolean("dropout");
  if (y.has("causal")) m.causal = y.boolean("causal");
  if (y.has("extra_parameters")) {
    m.extra_parameters = static_cast<double>(y.integer("extra_parameters", 0, 1L << 50));
  }
  y.finish();
  return m;
}

std::vector<std::string> shipped_models() {
  return core::shipped_names_in("models");
}

ModelSpec load_model(const std::string& name_or_path) {
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
