// merge_torchtitan(): a read torchtitan config joined with the user's options, and the numbers
// torchtitan derives at launch: the shard degree from the world size, micro-batches from the
// batch sizes, and the split of the model into pipeline stages.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/torchtitan_config.hpp"

namespace pipesim::scenario {
namespace {

// torchtitan's [model] name and flavor → pipesim's shipped model of the same shape
// (torchtitan/models/<name>/__init__.py's flavors; DeepSeek-V3 671B trains without MTP there).
struct Flavor {
  std::string_view name, flavor, model;
};
constexpr std::array<Flavor, 9> kFlavors = {{
    {"llama3", "8B", "llama3-8b"},
    {"llama3", "8B_flex", "llama3-8b"},
    {"llama3", "8B_varlen", "llama3-8b"},
    {"llama3", "70B", "llama3-70b"},
    {"llama3", "405B", "llama3.1-405b"},
    {"deepseek_v3", "671B", "deepseek-v3-nomtp"},
    {"qwen3", "8B", "qwen3-8b"},
    {"qwen3", "30B-A3B", "qwen3-30b-a3b"},
    {"qwen3", "235B-A22B", "qwen3-235b-a22b"},
}};

constexpr long kMaxWorld = 1L << 24;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

void move_to_ignored(TorchtitanRun& run, const std::string& key) {
  const auto it = std::find(run.used.begin(), run.used.end(), key);
  if (it == run.used.end()) return;
  run.used.erase(it);
  if (std::find(run.ignored.begin(), run.ignored.end(), key) == run.ignored.end())
    run.ignored.push_back(key);
}

// The shipped model of [model] name and flavor, or the config.json under hf_assets_path.
std::string model_of(const TorchtitanRun& run) {
  std::vector<std::string> names, flavors;
  for (const Flavor& f : kFlavors) {
    if (std::find(names.begin(), names.end(), f.name) == names.end()) names.emplace_back(f.name);
    if (f.name != run.model_name) continue;
    if (f.flavor == run.flavor) return std::string(f.model);
    flavors.emplace_back(f.flavor);
  }
  if (!run.hf_assets_path.empty()) {
    const std::filesystem::path config = std::filesystem::path(run.hf_assets_path) / "config.json";
    if (std::filesystem::is_regular_file(config)) return config.string();
  }
  const std::string tail = "; or give the model option (a name, YAML or config.json)";
  if (run.model_name.empty()) {
    throw core::ConfigError(run.source, "model.name",
                            fmt::format("not given; pipesim knows {}{}", joined(names), tail));
  }
  if (flavors.empty()) {
    throw core::ConfigError(run.source, "model.name",
                            fmt::format("'{}' is not a model pipesim ships; known: {}{}",
                                        run.model_name, joined(names), tail));
  }
  throw core::ConfigError(
      run.source, "model.flavor",
      fmt::format("'{}' is not a {} flavor pipesim ships; known: {} (an hf_assets_path with a "
                  "config.json also gives the model){}",
                  run.flavor, run.model_name, joined(flavors), tail));
}

// i of "layers.i", or -1.
long layer_index(const std::string& module) {
  long i = -1;
  const char* end = module.data() + module.size();
  const auto [last, ec] = std::from_chars(module.data() + 7, end, i);
  return ec == std::errc() && last == end ? i : -1;
}

// module_fqns_per_model_part as a layout: tok_embeddings → E, layers.i → t (in order), norm
// and output → L.
std::string parts_layout(const TorchtitanRun& run, int layers) {
  const char* key = "parallelism.module_fqns_per_model_part";
  std::string layout;
  int next = 0;
  for (const auto& part : run.model_parts) {
    std::string stage;
    int count = 0;
    bool loss = false;
    for (const std::string& m : part) {
      if (m == "tok_embeddings") {
        stage += "E";
      } else if (m == "norm" || m == "output") {
        loss = true;
      } else if (m.starts_with("layers.") && layer_index(m) == next) {
        ++next;
        ++count;
      } else {
        throw core::ConfigError(run.source, key,
                                fmt::format("'{}' is not the next module: the parts list "
                                            "tok_embeddings, layers.0 .. layers.{} in order, norm "
                                            "and output",
                                            m, layers - 1));
      }
    }
    if (count > 0) stage += fmt::format("t*{}", count);
    if (loss) stage += "L";
    layout += (layout.empty() ? "" : "|") + stage;
  }
  if (next != layers) {
    throw core::ConfigError(run.source, key,
                            fmt::format("places {} layers, the model has {}", next, layers));
  }
  return layout;
}

}  // namespace

std::string torchtitan_layout(int layers, int stages, long first_less, long last_less,
                              const std::string& source) {
  const long effective = layers + first_less + last_less;
  if (stages > effective) {
    throw core::ConfigError(source, "parallelism.pipeline_parallel_degree",
                            fmt::format("{} virtual stages for {} layers and the ends' {} + {}: "
                                        "at most {}",
                                        stages, layers, first_less, last_less, effective));
  }
  const long per = effective / stages, extra = effective % stages;
  const auto less = [&](const char* which, long v) {
    if (v > per) {
      throw core::ConfigError(
          source, fmt::format("parallelism.pipeline_parallel_{}_stage_less_layers", which),
          fmt::format("must be at most the layers a stage gets, (L + first + last) / stages = "
                      "{} / {} = {}, got {}",
                      effective, stages, per, v));
    }
  };
  less("first", first_less);
  less("last", last_less);
  std::string layout;
  for (int i = 0; i < stages; ++i) {
    long count = per + (i < extra ? 1 : 0);
    std::string stage;
    if (i == 0) {
      stage = "E";
      count -= first_less;
    }
    if (i == stages - 1 && stages > 1) count -= last_less;
    if (i == stages - 1 && stages == 1) count = layers;
    if (count > 0) stage += fmt::format("t*{}", count);
    if (i == stages - 1) stage += "L";
    layout += (i == 0 ? "" : "|") + stage;
  }
  return layout;
}

std::vector<std::string> merge_torchtitan(std::map<std::string, std::string>& texts,
                                          TorchtitanRun& run, int gpus, bool layout) {
  std::vector<std::string> warnings = run.warnings;
  for (const ReadSetting& s : run.settings)
    merge_setting(texts, s, "torchtitan's", run.source);
  if (texts.count("model") > 0 && !texts.at("model").empty()) {
    for (const char* key : {"model.name", "model.flavor", "model.hf_assets_path"})
      move_to_ignored(run, key);
  } else {
    texts["model"] = model_of(run);
  }
  const long t = single_integer(texts, "tensor_parallel");
  const long c = single_integer(texts, "context_parallel");
  const long d = single_integer(texts, "stages");
  const long r = run.dp_replicate;
  const char* shard_key = "parallelism.data_parallel_shard_degree";
  // GPU counts as products of the degrees, refused past any real job before they overflow.
  const auto gpus_of = [&](std::initializer_list<long> degrees) {
    long product = 1;
    for (const long v : degrees) {
      if (product > kMaxWorld / v) {
        throw core::ConfigError(
            run.source, shard_key,
            fmt::format("the degrees multiply to more than {} GPUs", kMaxWorld));
      }
      product *= v;
    }
    return product;
  };
  long p = gpus;
  if (run.dp_shard > 0) {
    const long fixed = gpus_of({r, run.dp_shard, t, c, d});
    if (gpus > 0 && fixed != gpus) {
      throw core::ConfigError(
          run.source, shard_key,
          fmt::format("replicate · shard · T · C · D = {}·{}·{}·{}·{} = {} GPUs, but gpus is {} "
                      "(-1 takes the GPUs left over)",
                      r, run.dp_shard, t, c, d, fixed, gpus));
    }
    p = fixed;
  }
  long shard = run.dp_shard;
  if (p > 0 && shard < 0) {
    const long others = gpus_of({r, t, c, d});
    if (p % others != 0) {
      throw core::ConfigError(run.source, shard_key,
                              fmt::format("-1 takes P/(replicate·T·C·D), but the world size P = "
                                          "{} (gpus) is not a multiple of {}·{}·{}·{} = {}",
                                          p, r, t, c, d, others));
    }
    shard = p / others;
  }
  if (shard > 1) {
    merge_setting(texts, {"data_parallel_sharding", "params", shard_key}, "torchtitan's",
                  run.source);
    if (r > 1) {
      warnings.push_back(fmt::format(
          "{}: HSDP (replicate {} × shard {}): pipesim shards over all {} data-parallel ranks",
          run.source, r, shard, r * shard));
    }
  }
  const long w = shard > 0 ? r * shard : 0;
  if (!layout) {
    // search chooses the layout itself; it takes the world size and the batch.
    run.world_size = static_cast<int>(p);
    if (run.global_batch) {
      run.mini_batch = run.global_batch;
    } else if (w > 0) {
      run.mini_batch = run.local_batch * w;
    }
    return warnings;
  }
  if (p <= 0) {
    throw core::ConfigError(run.source, shard_key,
                            "-1 takes the GPUs left over: give the world size (gpus)");
  }
  derive_option(texts, "data_parallel", std::to_string(w),
                fmt::format("torchtitan's replicate · shard degrees {}·{}", r, shard));
  // Without a pipeline the local batch runs as one; with one it is cut into micro-batches.
  long b = run.local_batch, n = 1;
  if (d > 1) {
    if (run.local_batch % run.microbatch_size != 0) {
      throw core::ConfigError(run.source, "parallelism.pipeline_parallel_microbatch_size",
                              fmt::format("must divide training.local_batch_size {}, got {}",
                                          run.local_batch, run.microbatch_size));
    }
    b = run.microbatch_size;
    n = run.local_batch / run.microbatch_size;
  }
  if (run.global_batch) {
    // Gradient accumulation: the steps that make up the global batch.
    if (*run.global_batch % (run.local_batch * w) != 0) {
      throw core::ConfigError(
          run.source, "training.global_batch_size",
          fmt::format("must be a multiple of local_batch_size · data-parallel "
                      "degree = {}·{} = {}, got {}",
                      run.local_batch, w, run.local_batch * w, *run.global_batch));
    }
    n *= *run.global_batch / (run.local_batch * w);
  }
  derive_option(texts, "micro_batch_size", std::to_string(b), "torchtitan's batch sizes");
  derive_option(texts, "micro_batches", std::to_string(n), "torchtitan's batch sizes");
  if (d > 1) {
    const int layers = models::load_model(texts.at("model")).layers;
    const char* lps_key = "parallelism.pipeline_parallel_layers_per_stage";
    long v = run.stages_per_rank == 0 ? 2 : run.stages_per_rank;
    if (!run.model_parts.empty()) {
      const long parts = static_cast<long>(run.model_parts.size());
      if (parts % d != 0 || (run.stages_per_rank > 0 && parts / d != run.stages_per_rank) ||
          (run.stages_per_rank == 0 && parts / d < 2)) {
        throw core::ConfigError(
            run.source, "parallelism.module_fqns_per_model_part",
            fmt::format(
                "{} parts on D = {} pipeline ranks: the schedule takes {} per rank", parts, d,
                run.stages_per_rank == 0 ? "2 or more" : std::to_string(run.stages_per_rank)));
      }
      v = parts / d;
    } else if (run.layers_per_stage) {
      const long effective = layers + run.first_less + run.last_less;
      const long stages = (effective + *run.layers_per_stage - 1) / *run.layers_per_stage;
      if (stages % d != 0) {
        throw core::ConfigError(
            run.source, lps_key,
            fmt::format("gives ceil((L + first + last) / {}) = {} virtual stages, not a multiple "
                        "of D = {}",
                        *run.layers_per_stage, stages, d));
      }
      v = stages / d;
      if ((run.stages_per_rank > 0 && v != run.stages_per_rank) ||
          (run.stages_per_rank == 0 && v < 2)) {
        throw core::ConfigError(
            run.source, lps_key,
            fmt::format(
                "gives {} stages per rank; the schedule takes {}", v,
                run.stages_per_rank == 0 ? "2 or more" : std::to_string(run.stages_per_rank)));
      }
    }
    if (run.stages_per_rank == 0) derive_option(texts, "chunks", std::to_string(v), lps_key);
    const std::string text = run.model_parts.empty()
                                 ? torchtitan_layout(layers, static_cast<int>(d * v),
                                                     run.first_less, run.last_less, run.source)
                                 : parts_layout(run, layers);
    derive_option(texts, "layout", text, "torchtitan's split of the layers into stages");
  }
  return warnings;
}

}  // namespace pipesim::scenario
