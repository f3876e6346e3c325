#include "pipesim/scenario/megatron_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <memory>
#include <set>
#include <string_view>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/registered_model.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {
namespace {

struct Arg {
  std::string name;
  std::vector<std::string> values;
};

std::string joined(const std::vector<std::string>& values, const char* sep = " ") {
  std::string out;
  for (const std::string& v : values)
    out += (out.empty() ? "" : sep) + v;
  return out;
}

// argparse's name of a word: dashes dropped, inner dashes as underscores.
std::string arg_name(std::string_view word) {
  std::string name(word.substr(word.find_first_not_of('-')));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

bool is_flag(const std::string& w) {
  return w.size() > 2 && w[0] == '-' && w[1] == '-' &&
         std::isalpha(static_cast<unsigned char>(w[2])) != 0;
}

// The words as arguments, each with the words up to the next argument as its values; an
// argument given twice must repeat its values.
std::vector<Arg> parse_args(const std::vector<std::string>& words, const std::string& source) {
  std::vector<Arg> args;
  for (const std::string& w : words) {
    if (is_flag(w)) {
      const size_t eq = w.find('=');
      Arg a{arg_name(w.substr(0, eq)), {}};
      if (eq != std::string::npos) a.values.push_back(w.substr(eq + 1));
      args.push_back(std::move(a));
    } else if (args.empty()) {
      throw core::ConfigError(source, w,
                              "a value before any argument (Megatron's arguments start with two "
                              "dashes)");
    } else {
      args.back().values.push_back(w);
    }
  }
  std::vector<Arg> merged;
  for (Arg& a : args) {
    const auto same =
        std::find_if(merged.begin(), merged.end(), [&](const Arg& m) { return m.name == a.name; });
    if (same == merged.end()) {
      merged.push_back(std::move(a));
    } else if (same->values != a.values) {
      throw core::ConfigError::option(
          a.name,
          fmt::format("given twice with different values: '{}' and '{}'", joined(same->values),
                      joined(a.values)),
          source);
    }
  }
  return merged;
}

// Arguments with no effect on time or memory: optimisation hyper-parameters, data and
// tokenizer files, logging, checkpoints, evaluation, seeds, initialisation, numerics that cost
// nothing, and Megatron's switches for code paths pipesim prices the same.
constexpr std::array<std::string_view, 78> kIgnored = {"adam_beta1",
                                                       "adam_beta2",
                                                       "adam_eps",
                                                       "apply_layernorm_1p",
                                                       "apply_query_key_layer_scaling",
                                                       "attention_softmax_in_fp32",
                                                       "bias_dropout_fusion",
                                                       "bias_gelu_fusion",
                                                       "bias_swiglu_fusion",
                                                       "calculate_per_token_loss",
                                                       "clip_grad",
                                                       "decoupled_lr",
                                                       "decoupled_min_lr",
                                                       "deterministic_mode",
                                                       "distributed_backend",
                                                       "distributed_timeout_minutes",
                                                       "empty_unused_memory_level",
                                                       "exit_duration_in_mins",
                                                       "exit_interval",
                                                       "exit_signal_handler",
                                                       "finetune",
                                                       "fp8_amax_compute_algo",
                                                       "fp8_amax_history_len",
                                                       "fp8_interval",
                                                       "fp8_margin",
                                                       "hysteresis",
                                                       "init_method_std",
                                                       "initial_loss_scale",
                                                       "kv_channels_scaling",
                                                       "load",
                                                       "loss_scale",
                                                       "loss_scale_window",
                                                       "lr",
                                                       "manual_gc",
                                                       "manual_gc_interval",
                                                       "min_lr",
                                                       "min_loss_scale",
                                                       "mmap_bin_files",
                                                       "mock_data",
                                                       "moe_aux_loss_coeff",
                                                       "moe_per_layer_logging",
                                                       "moe_router_bias_update_rate",
                                                       "moe_router_dtype",
                                                       "moe_router_fusion",
                                                       "moe_router_load_balancing_type",
                                                       "moe_router_pre_softmax",
                                                       "moe_router_score_function",
                                                       "moe_router_topk_scaling_factor",
                                                       "moe_z_loss_coeff",
                                                       "moe_permute_fusion",
                                                       "no_bias_dropout_fusion",
                                                       "no_bias_gelu_fusion",
                                                       "no_bias_swiglu_fusion",
                                                       "no_create_attention_mask_in_dataloader",
                                                       "no_load_optim",
                                                       "no_load_rng",
                                                       "no_masked_softmax_fusion",
                                                       "no_mmap_bin_files",
                                                       "no_rope_fusion",
                                                       "no_save_optim",
                                                       "no_save_rng",
                                                       "num_workers",
                                                       "override_opt_param_scheduler",
                                                       "reset_attention_mask",
                                                       "reset_position_ids",
                                                       "rotary_base",
                                                       "rotary_percent",
                                                       "rotary_scaling_factor",
                                                       "save",
                                                       "seed",
                                                       "split",
                                                       "step_batch_size_schedule",
                                                       "timing_log_level",
                                                       "train_iters",
                                                       "train_samples",
                                                       "transformer_impl",
                                                       "use_mcore_models",
                                                       "weight_decay"};

constexpr std::array<std::string_view, 17> kIgnoredPrefixes = {
    "adam_",      "ckpt_",     "data_",   "eval_",  "log_",         "lr_",
    "no_load_",   "no_save_",  "profile", "save_",  "tensorboard_", "tiktoken_",
    "tokenizer_", "use_rope_", "valid_",  "wandb_", "weight_decay_"};

bool is_ignored(const std::string& name) {
  if (std::find(kIgnored.begin(), kIgnored.end(), name) != kIgnored.end()) return true;
  return std::any_of(kIgnoredPrefixes.begin(), kIgnoredPrefixes.end(),
                     [&](std::string_view p) { return name.starts_with(p); });
}

// The launcher's world size: torchrun's nnodes × nproc_per_node (either spelling).
int launcher_world_size(const std::vector<std::string>& launcher) {
  long nodes = 1;
  long per_node = 0;
  for (size_t i = 0; i < launcher.size(); ++i) {
    const std::string& w = launcher[i];
    const size_t eq = w.find('=');
    const std::string name = is_flag(w) ? arg_name(w.substr(0, eq)) : "";
    std::string value = eq != std::string::npos   ? w.substr(eq + 1)
                        : i + 1 < launcher.size() ? launcher[i + 1]
                                                  : "";
    value = value.substr(0, value.find(':'));  // "1:4" elastic nodes: the first
    long v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || v <= 0) continue;
    if (name == "nnodes") nodes = v;
    if (name == "nproc_per_node") per_node = v;
  }
  return per_node > 0 ? static_cast<int>(nodes * per_node) : 0;
}

// Maps each argument to the options it sets, refusing two that set one option differently.
class Mapper {
 public:
  Mapper(MegatronRun& run) : run_(run) {}

  void set(const std::string& option, const std::string& text, const std::string& argument) {
    if (const MegatronSetting* s = conflicting_setting(run_.settings, option, text)) {
      throw core::ConfigError::option(
          argument,
          fmt::format("sets {} to {}, but {} sets it to {}", option, text, s->argument, s->text),
          run_.source);
    }
    if (std::none_of(run_.settings.begin(), run_.settings.end(),
                     [&](const MegatronSetting& s) { return s.option == option; }))
      run_.settings.push_back({option, text, argument});
  }

  static long integer(const Arg& a, const std::string& source, long lo = 1, long hi = 1L << 30) {
    const std::string text = joined(a.values);
    long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi) {
      throw core::ConfigError::option(
          a.name, fmt::format("must be an integer in [{}, {}], got '{}'", lo, hi, text), source);
    }
    return v;
  }

  static void values(const Arg& a, size_t lo, size_t hi, const std::string& source) {
    if (a.values.size() < lo || a.values.size() > hi) {
      throw core::ConfigError::option(
          a.name,
          hi == 0 ? fmt::format("is a switch and takes no value, got '{}'", joined(a.values))
                  : fmt::format("needs {} value{}, got {}",
                                lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi),
                                hi == 1 ? "" : "s", a.values.empty() ? "none" : joined(a.values)),
          source);
    }
  }

  static std::string choice(const Arg& a, const std::vector<std::string>& allowed,
                            const std::string& source) {
    values(a, 1, 1, source);
    if (std::find(allowed.begin(), allowed.end(), a.values[0]) == allowed.end()) {
      throw core::ConfigError::option(
          a.name, fmt::format("must be one of {}, got '{}'", joined(allowed, ", "), a.values[0]),
          source);
    }
    return a.values[0];
  }

  // True when the argument is one this mapping reads.
  bool map(const Arg& a) {
    const std::string& n = a.name;
    const std::string& src = run_.source;
    struct Plain {
      const char* argument;
      const char* option;
    };
    // One integer each, the option of the same meaning.
    static constexpr Plain kIntegers[] = {
        {"tensor_model_parallel_size", "tensor_parallel"},
        {"pipeline_model_parallel_size", "stages"},
        {"context_parallel_size", "context_parallel"},
        {"expert_model_parallel_size", "expert_parallel"},
        {"expert_tensor_parallel_size", "expert_tensor_parallel"},
        {"micro_batch_size", "micro_batch_size"},
        {"seq_length", "sequence"},
    };
    // Switches that turn an option on.
    static constexpr Plain kSwitches[] = {
        {"sequence_parallel", "sequence_parallel"},
        {"use_distributed_optimizer", "distributed_optimizer"},
        {"overlap_grad_reduce", "overlap_grad_reduce"},
        {"overlap_param_gather", "overlap_param_gather"},
        {"tp_comm_overlap", "tp_comm_overlap"},
        {"overlap_moe_expert_parallel_comm", "moe_overlap"},
        {"overlap_p2p_comm", "overlap_p2p"},
        {"fp8_param_gather", "fp8_param_gather"},
        {"grad_reduce_in_bf16", "grad_reduce_in_bf16"},
        {"moe_grouped_gemm", "moe_grouped_gemm"},
        {"no_gradient_accumulation_fusion", "unfused_grad_accumulation"},
    };
    for (const Plain& p : kIntegers) {
      if (n == p.argument) {
        values(a, 1, 1, src);
        set(p.option, std::to_string(integer(a, src)), n);
        if (n == "seq_length") run_.shape[n] = a.values[0];
        return true;
      }
    }
    for (const Plain& p : kSwitches) {
      if (n == p.argument) {
        values(a, 0, 0, src);
        set(p.option, "on", n);
        return true;
      }
    }
    if (n == "virtual_pipeline_model_parallel_size") {
      values(a, 1, 1, src);
      const long v = integer(a, src);
      // In Megatron a virtual pipeline is what selects the interleaved schedule.
      if (v > 1) set("schedule", "interleaved", n);
      set("chunks", std::to_string(v), n);
    } else if (n == "num_layers_per_virtual_pipeline_stage") {
      values(a, 1, 1, src);
      run_.layers_per_chunk = integer(a, src);
      set("schedule", "interleaved", n);
    } else if (n == "global_batch_size") {
      values(a, 1, 1, src);
      run_.global_batch_size = integer(a, src);
    } else if (n == "bf16" || n == "fp16") {
      values(a, 0, 0, src);
      set_base_precision(n, n);
    } else if (n == "fp8_format") {
      fp8_format_ = choice(a, {"e4m3", "hybrid"}, src);
    } else if (n == "fp8_recipe") {
      fp8_recipe_ = choice(a, {"delayed", "tensorwise", "blockwise", "mxfp8"}, src);
    } else if (n == "fp4_format") {
      fp4_ = choice(a, {"e2m1"}, src);
    } else if (n == "fp4_recipe") {
      (void)choice(a, {"nvfp4"}, src);
    } else if (n == "recompute_activations") {
      values(a, 0, 0, src);
      set("recompute", "selective", n);
    } else if (n == "recompute_granularity") {
      set("recompute", choice(a, {"full", "selective"}, src), n);
    } else if (n == "recompute_method") {
      recompute_method_ = choice(a, {"uniform", "block"}, src);
    } else if (n == "recompute_num_layers") {
      values(a, 1, 1, src);
      recompute_layers_ = integer(a, src);
    } else if (n == "recompute_modules") {
      values(a, 1, 16, src);
      set("recompute_modules", joined(a.values, ","), n);
    } else if (n == "pipeline_model_parallel_layout") {
      values(a, 1, 1, src);
      set("layout", a.values[0], n);
    } else if (n == "ddp_bucket_size") {
      values(a, 1, 1, src);
      bucket_elements_ = integer(a, src, 1, 1L << 40);
    } else if (n == "moe_token_dispatcher_type") {
      set("moe_token_dispatcher_type", choice(a, {"alltoall", "flex", "allgather"}, src), n);
    } else if (n == "moe_flex_dispatcher_backend") {
      set("moe_dispatcher", choice(a, {"deepep", "hybridep"}, src), n);
    } else if (n == "cuda_graph_impl") {
      graph_impl_ = choice(a, {"none", "local", "transformer_engine"}, src);
    } else if (n == "enable_cuda_graph" || n == "external_cuda_graph") {
      values(a, 0, 0, src);
      graph_impl_ = "local";
    } else if (n == "cuda_graph_scope") {
      values(a, 1, 8, src);
      graph_scope_ = a.values;
    } else if (n == "use_flash_attn") {
      values(a, 0, 0, src);
      set("attention", "flash", n);
      run_.shape[n] = "";
    } else if (n == "attention_backend") {
      const std::string b = choice(a, {"auto", "flash", "fused", "unfused", "local"}, src);
      set("attention", b == "unfused" || b == "local" ? "standard" : "flash", n);
      run_.shape[n] = b;
    } else if (n == "data_parallel_sharding_strategy") {
      sharding_strategy_ =
          choice(a, {"no_shard", "optim", "optim_grads", "optim_grads_params"}, src);
    } else if (n == "use_megatron_fsdp") {
      values(a, 0, 0, src);
      megatron_fsdp_ = true;
    } else if (n == "megatron_fsdp_main_grads_dtype") {
      // A 16-bit main-gradient buffer is what grad_reduce_in_bf16 prices (2 bytes, reduced in
      // them); auto and fp32 keep pipesim's fp32 main gradients.
      const std::string dtype = choice(a, {"fp32", "bf16", "fp16", "auto"}, src);
      if (dtype == "bf16" || dtype == "fp16") set("grad_reduce_in_bf16", "on", n);
    } else if (n == "use_torch_fsdp2") {
      values(a, 0, 0, src);
      set("data_parallel_sharding", "params", n);  // fully_shard: parameters sharded
    } else if (n == "cross_entropy_loss_fusion") {
      values(a, 0, 0, src);
      set("unfused_cross_entropy", "off", n);
    } else {
      return false;
    }
    return true;
  }

  // What several arguments decide together, once all are read.
  void finish() {
    const std::string& src = run_.source;
    std::string low;
    if (fp4_) {
      low = "nvfp4";
    } else if (fp8_format_) {
      low = fp8_recipe_.value_or("") == "mxfp8" ? "mxfp8" : "fp8";
    } else if (fp8_recipe_) {
      throw core::ConfigError::option("fp8_recipe", "needs fp8_format (e4m3 or hybrid)", src);
    }
    // The low-precision recipe's GEMMs run on a bf16 (or fp16) model: not a contradiction.
    if (!low.empty()) {
      run_.settings.erase(
          std::remove_if(run_.settings.begin(), run_.settings.end(),
                         [](const MegatronSetting& s) { return s.option == "precision"; }),
          run_.settings.end());
      set("precision", low, fp4_ ? "fp4_format" : "fp8_format");
    }
    if (recompute_method_ || recompute_layers_) {
      const bool full = std::any_of(run_.settings.begin(), run_.settings.end(), [](const auto& s) {
        return s.option == "recompute" && s.text == "full";
      });
      if (!full) {
        throw core::ConfigError::option(
            recompute_method_ ? "recompute_method" : "recompute_num_layers",
            "applies only with recompute_granularity full", src);
      }
      if (recompute_method_.value_or("uniform") == "block") {
        run_.warnings.push_back(fmt::format(
            "{}: recompute_method block ({} layers a stage): pipesim recomputes every layer", src,
            recompute_layers_.value_or(0)));
      }
    }
    // Megatron-FSDP shards what --data-parallel-sharding-strategy says, optim_grads_params by
    // default (arguments.py); without Megatron-FSDP the strategy is not read.
    if (megatron_fsdp_) {
      const std::string strategy = sharding_strategy_.value_or("optim_grads_params");
      const std::string level = strategy == "no_shard"      ? "none"
                                : strategy == "optim"       ? "optimizer"
                                : strategy == "optim_grads" ? "gradients"
                                                            : "params";
      set("data_parallel_sharding", level,
          sharding_strategy_ ? "data_parallel_sharding_strategy" : "use_megatron_fsdp");
    } else if (sharding_strategy_) {
      run_.warnings.push_back(fmt::format(
          "{}: data_parallel_sharding_strategy {} applies with use_megatron_fsdp only (Megatron "
          "reads it there), which is not given: no sharding from it",
          src, *sharding_strategy_));
    }
    if (bucket_elements_) {
      // Megatron counts a bucket in gradient elements: fp32, or bf16 when reduced in bf16.
      const bool bf16 = std::any_of(run_.settings.begin(), run_.settings.end(), [](const auto& s) {
        return s.option == "grad_reduce_in_bf16";
      });
      set("grad_bucket_bytes", std::to_string(*bucket_elements_ * (bf16 ? 2 : 4)),
          "ddp_bucket_size");
    }
    if (graph_impl_ && *graph_impl_ != "none") {
      // Megatron's scope "full" is every layer whole; pipesim's nearest is the fixed-shape
      // parts ("partial"); no scope is Megatron's default, "full".
      std::vector<std::string> scopes;
      for (const std::string& s :
           graph_scope_.empty() ? std::vector<std::string>{"full"} : graph_scope_) {
        scopes.push_back(s == "full" ? "partial" : s);
      }
      set("cuda_graphs", scopes.size() == 1 ? scopes[0] : joined(scopes, ","),
          graph_scope_.empty() ? "cuda_graph_impl" : "cuda_graph_scope");
    } else if (!graph_scope_.empty() && !graph_impl_) {
      throw core::ConfigError::option("cuda_graph_scope",
                                      "needs cuda_graph_impl local or transformer_engine", src);
    }
  }

 private:
  void set_base_precision(const std::string& precision, const std::string& argument) {
    set("precision", precision, argument);
  }

  MegatronRun& run_;
  std::optional<std::string> fp8_format_, fp8_recipe_, fp4_, recompute_method_, graph_impl_,
      sharding_strategy_;
  bool megatron_fsdp_ = false;
  std::optional<long> recompute_layers_, bucket_elements_;
  std::vector<std::string> graph_scope_;
};

void add_once(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

}  // namespace

bool megatron_ignored(const std::string& argument) {
  return is_ignored(argument);
}

MegatronRun read_megatron(const LaunchCommand& command, const std::string& source,
                          const std::string& model_name) {
  MegatronRun run;
  run.source = source;
  run.model_name = model_name;
  run.warnings = command.warnings;
  for (std::string& w : run.warnings)
    w = source + ": " + w;
  run.world_size = launcher_world_size(command.launcher);
  const std::vector<Arg> args = parse_args(command.args, source);
  Mapper mapper(run);
  const auto& shape = models::megatron_shape_arguments();
  for (const Arg& a : args) {
    if (mapper.map(a)) {
      add_once(run.used, a.name);
    } else if (std::binary_search(shape.begin(), shape.end(), a.name)) {
      run.shape[a.name] = joined(a.values);
      add_once(run.used, a.name);
    } else if (is_ignored(a.name)) {
      add_once(run.ignored, a.name);
    } else {
      add_once(run.unknown, a.name);
    }
  }
  mapper.finish();
  return run;
}

std::vector<std::string> merge_megatron(std::map<std::string, std::string>& texts, MegatronRun& run,
                                        int gpus, bool layout) {
  std::vector<std::string> warnings = run.warnings;
  for (const MegatronSetting& s : run.settings) {
    const auto it = texts.find(s.option);
    // A schedule given with chunks of its own agrees with the virtual pipeline.
    if (s.option == "schedule" && it != texts.end() && schedules::accepts(it->second, "chunks"))
      continue;
    merge_setting(texts, s, "Megatron's", run.source);
  }
  // The model: the user's, or the one the shape arguments describe.
  if (texts.count("model") > 0 && !texts.at("model").empty()) {
    for (const auto& [name, _] : run.shape) {
      if (name == "seq_length" || name == "use_flash_attn" || name == "attention_backend") continue;
      run.used.erase(std::remove(run.used.begin(), run.used.end(), name), run.used.end());
      add_once(run.ignored, name);
    }
  } else {
    if (run.shape.count("num_layers") == 0) {
      throw core::ConfigError(run.source, "model",
                              "the arguments give no model shape (num_layers, hidden_size, "
                              "num_attention_heads, ...) and no model option is given");
    }
    const long t = single_integer(texts, "tensor_parallel");
    models::ModelSpec model =
        models::megatron_model(run.shape, run.source, run.model_name, static_cast<int>(t));
    models::register_model(run.model_name, std::move(model));
    texts["model"] = run.model_name;
  }
  if (layout) {
    // Megatron's defaults where pipesim's differ: no pipeline, one micro-batch per iteration.
    texts.emplace("stages", "1");
    if (!run.global_batch_size) texts.emplace("micro_batches", "1");
    const long t = single_integer(texts, "tensor_parallel");
    const long c = single_integer(texts, "context_parallel");
    const long d = single_integer(texts, "stages");
    const long p = gpus > 0 ? gpus : run.world_size;
    if (p > 0) {
      if (p % (t * c * d) != 0) {
        throw core::ConfigError::option(
            "data_parallel",
            fmt::format("the world size P = {} ({}) is not a multiple of T·C·D = {}·{}·{} = {} "
                        "(W = P/(T·C·D))",
                        p,
                        gpus > 0 ? "gpus"
                                 : "the launcher's nodes × processes per node; gpus "
                                   "sets another",
                        t, c, d, t * c * d),
            run.source);
      }
      derive_option(texts, "data_parallel", std::to_string(p / (t * c * d)),
                    fmt::format("the world size P/(T·C·D) = {}/({}·{}·{})", p, t, c, d));
    }
    if (run.global_batch_size) {
      const long b = single_integer(texts, "micro_batch_size");
      const long w = single_integer(texts, "data_parallel");
      if (*run.global_batch_size % (b * w) != 0) {
        throw core::ConfigError::option(
            "global_batch_size",
            fmt::format("must be a multiple of B·W = {}·{} = {} (micro-batches N = G/(B·W)), got "
                        "{}",
                        b, w, b * w, *run.global_batch_size),
            run.source);
      }
      derive_option(
          texts, "micro_batches", std::to_string(*run.global_batch_size / (b * w)),
          fmt::format("global_batch_size G/(B·W) = {}/({}·{})", *run.global_batch_size, b, w));
    }
    if (run.layers_per_chunk) {
      const int layers = models::load_model(texts.at("model")).layers;
      if (layers % (d * *run.layers_per_chunk) != 0) {
        throw core::ConfigError::option("num_layers_per_virtual_pipeline_stage",
                                        fmt::format("D·k = {}·{} must divide the model's {} layers",
                                                    d, *run.layers_per_chunk, layers),
                                        run.source);
      }
      derive_option(texts, "chunks", std::to_string(layers / (d * *run.layers_per_chunk)),
                    "num_layers_per_virtual_pipeline_stage");
    }
    // Megatron warns and turns sequence parallelism off without tensor parallelism.
    const auto sp = texts.find("sequence_parallel");
    if (sp != texts.end() && normal_text("sequence_parallel", sp->second) == "on" && t == 1) {
      const bool from_script =
          std::any_of(run.settings.begin(), run.settings.end(),
                      [](const auto& s) { return s.option == "sequence_parallel"; });
      if (from_script) {
        sp->second = "off";
        warnings.push_back(fmt::format(
            "{}: sequence_parallel at tensor_model_parallel_size 1 is turned off, as Megatron "
            "does",
            run.source));
      }
    }
  }
  return warnings;
}

}  // namespace pipesim::scenario
