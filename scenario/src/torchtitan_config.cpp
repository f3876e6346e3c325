#include "pipesim/scenario/torchtitan_config.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <set>
#include <sstream>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/text_file.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {
namespace {

// One value of the file: its dotted key and where it stands.
struct Leaf {
  std::string key;
  const toml::node* node = nullptr;
  long line = 0, column = 0;
};

void collect(const toml::table& table, const std::string& prefix, std::vector<Leaf>& out) {
  for (auto&& [k, v] : table) {
    const std::string key =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const toml::table* sub = v.as_table()) {
      collect(*sub, key, out);
    } else {
      out.push_back({key, &v, static_cast<long>(v.source().begin.line),
                     static_cast<long>(v.source().begin.column)});
    }
  }
}

std::string joined(const std::vector<std::string>& names, const char* sep = ", ") {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : sep) + n;
  return out;
}

std::string printed(const toml::node& n) {
  std::ostringstream os;
  n.visit([&](const auto& v) { os << v; });
  return os.str();
}

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date or time";
  }
}

// Keys of older torchtitan releases, read as today's.
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kRenamed = {{
    {"training.batch_size", "training.local_batch_size"},
    {"training.data_parallel_replicate_degree", "parallelism.data_parallel_replicate_degree"},
    {"training.data_parallel_shard_degree", "parallelism.data_parallel_shard_degree"},
    {"training.tensor_parallel_degree", "parallelism.tensor_parallel_degree"},
    {"training.enable_async_tensor_parallel", "parallelism.enable_async_tensor_parallel"},
    {"training.compile", "compile.enable"},
    {"experimental.pipeline_parallel_degree", "parallelism.pipeline_parallel_degree"},
    {"experimental.pipeline_parallel_schedule", "parallelism.pipeline_parallel_schedule"},
    {"experimental.context_parallel_degree", "parallelism.context_parallel_degree"},
    {"experimental.expert_parallel_degree", "parallelism.expert_parallel_degree"},
    {"float8.enable_fsdp_float8_all_gather",
     "quantize.linear.float8.enable_fsdp_float8_all_gather"},
}};

std::string canonical(const std::string& key) {
  for (const auto& [old, now] : kRenamed) {
    if (key == old) return std::string(now);
  }
  return key;
}

// Keys with no effect on time or memory: hyper-parameters, data, numerics that cost nothing,
// and the details of a quantization recipe whose GEMMs pipesim prices by the format alone.
constexpr std::array<std::string_view, 14> kIgnored = {
    "training.dataset",
    "training.dataset_path",
    "training.max_norm",
    "training.steps",
    "training.gc_freq",
    "training.gc_debug",
    "training.seed",
    "training.deterministic",
    "training.warmup_steps",
    "parallelism.disable_loss_parallel",
    "parallelism.context_parallel_load_balancer",
    "parallelism.context_parallel_rotate_method",
    "model.tokenizer_path",
    "model.print_after_conversion",
};

// Whole sections (and the rest of a section whose other keys are read) of that kind.
constexpr std::array<std::string_view, 19> kIgnoredPrefixes = {
    "job.",
    "profiling.",
    "metrics.",
    "optimizer.",
    "lr_scheduler.",
    "checkpoint.",
    "comm.",
    "memory_estimation.",
    "fault_tolerance.",
    "experimental.",
    "validation.",
    "debug.",
    "training.dataloader.",
    "activation_checkpoint.",
    "compile.",
    "quantize.",
    "float8.",
    "mx.",
    "model.norm_type",
};

bool is_ignored(const std::string& key) {
  if (std::find(kIgnored.begin(), kIgnored.end(), key) != kIgnored.end()) return true;
  return std::any_of(kIgnoredPrefixes.begin(), kIgnoredPrefixes.end(),
                     [&](std::string_view p) { return key.starts_with(p); });
}

class Reader {
 public:
  explicit Reader(TorchtitanRun& run) : run_(run) {}

  // True when the key is one this mapping reads (used, or used unless its value is one
  // pipesim does not model: then unmodelled).
  bool map(const Leaf& l) {
    leaf_ = &l;
    const std::string k = canonical(l.key);
    if (k == "parallelism.data_parallel_replicate_degree") {
      run_.dp_replicate = integer(1);
    } else if (k == "parallelism.data_parallel_shard_degree") {
      run_.dp_shard = integer(-1);
      if (run_.dp_shard == 0) fail("must be -1 (the GPUs left over) or in [1, 1048576], got 0");
    } else if (k == "parallelism.tensor_parallel_degree") {
      tensor_ = integer(1);
    } else if (k == "parallelism.pipeline_parallel_degree") {
      stages_ = integer(1);
    } else if (k == "parallelism.context_parallel_degree") {
      set("context_parallel", std::to_string(integer(1)));
    } else if (k == "parallelism.expert_parallel_degree") {
      set("expert_parallel", std::to_string(integer(1)));
    } else if (k == "parallelism.expert_tensor_parallel_degree") {
      set("expert_tensor_parallel", std::to_string(integer(1)));
    } else if (k == "parallelism.expert_parallel_comm_backend") {
      if (choice({"standard", "deepep"}) == "deepep") set("moe_dispatcher", "deepep");
    } else if (k == "parallelism.pipeline_parallel_schedule") {
      schedule_ = text();
      schedule_key_ = l.key;
      schedule_line_ = l.line;
    } else if (k == "parallelism.pipeline_parallel_schedule_csv") {
      if (!text().empty()) {
        fail(
            "a CSV schedule is replayed by simulate's schedule file option, not read from the "
            "job config; leave it empty here");
      }
    } else if (k == "parallelism.pipeline_parallel_microbatch_size") {
      run_.microbatch_size = integer(1);
    } else if (k == "parallelism.pipeline_parallel_layers_per_stage") {
      run_.layers_per_stage = integer(1);
    } else if (k == "parallelism.pipeline_parallel_first_stage_less_layers") {
      run_.first_less = integer(0);
    } else if (k == "parallelism.pipeline_parallel_last_stage_less_layers") {
      run_.last_less = integer(0);
    } else if (k == "parallelism.module_fqns_per_model_part") {
      model_parts();
    } else if (k == "parallelism.enable_async_tensor_parallel") {
      async_tp_ = boolean();
    } else if (k == "parallelism.fsdp_reshard_after_forward") {
      // pipesim's sharded parameters are gathered again for the backward, torchtitan's default.
      if (choice({"default", "always", "never"}) != "default") unmodelled();
    } else if (k == "parallelism.pipeline_parallel_expert_parallel_overlap") {
      // pipesim's DualPipeV always overlaps a pair's all-to-alls with the other half.
      if (!boolean()) unmodelled();
    } else if (k == "training.local_batch_size") {
      run_.local_batch = integer(1);
    } else if (k == "training.global_batch_size") {
      const long g = integer(-1);
      if (g == 0) fail("must be -1 (local batch · data-parallel degree) or >= 1, got 0");
      if (g > 0) run_.global_batch = g;
    } else if (k == "training.seq_len") {
      sequence_ = integer(1, 1 << 24);
      sequence_key_ = l.key;
    } else if (k == "training.mixed_precision_param") {
      param_dtype_ = choice({"bfloat16", "float32"});
      param_key_ = l.key;
    } else if (k == "training.mixed_precision_reduce") {
      (void)choice({"float32"});  // pipesim's gradient reduce is fp32, as torchtitan's only one
    } else if (k == "training.dtype") {
      dtype_ = choice({"bfloat16", "float32"});
    } else if (k == "training.enable_cpu_offload") {
      if (boolean()) unmodelled();
    } else if (k == "training.enable_float8_linear") {
      if (boolean()) converters_.push_back("float8");
    } else if (k == "activation_checkpoint.mode") {
      ac_mode_ = choice({"none", "selective", "full"});
    } else if (k == "activation_checkpoint.selective_ac_option") {
      ac_option_ = text();
      if (*ac_option_ != "op" && parse_positive(*ac_option_) <= 0)
        fail(fmt::format("must be 'op' or a positive integer, got '{}'", *ac_option_));
    } else if (k == "model.name") {
      run_.model_name = text();
    } else if (k == "model.flavor") {
      run_.flavor = text();
    } else if (k == "model.hf_assets_path") {
      run_.hf_assets_path = text();
    } else if (k == "model.converters") {
      for (const std::string& c : strings()) {
        if (c != "float8" && c != "mx" && !c.starts_with("quantize.")) {
          fail(
              fmt::format("converter '{}' is not one pipesim prices; known: float8, mx, "
                          "quantize.linear.float8, quantize.linear.mx, "
                          "quantize.grouped_mm.float8, quantize.grouped_mm.mx",
                          c));
        }
        converters_.push_back(c);
      }
    } else if (k == "optimizer.name") {
      // pipesim's optimizer state is Adam's (two moments a parameter).
      const std::string name = text();
      if (name != "AdamW" && name != "Adam") unmodelled();
    } else if (k == "compile.enable") {
      compile_ = boolean();
      compile_keys_.push_back(l.key);
      return false;  // used only when it decides async tensor parallelism (finish)
    } else if (k == "compile.components") {
      components_ = strings();
      compile_keys_.push_back(l.key);
      return false;
    } else if (k == "quantize.linear.float8.enable_fsdp_float8_all_gather") {
      fp8_all_gather_ = boolean();
      all_gather_key_ = l.key;
      return false;
    } else {
      return false;
    }
    return true;
  }

  // What several keys decide together, once all are read.
  void finish() {
    const std::string& src = run_.source;
    set("tensor_parallel", std::to_string(tensor_), "parallelism.tensor_parallel_degree");
    // torchtitan's tensor-parallel plan shards the norms' sequence (SequenceParallel).
    if (tensor_ > 1) set("sequence_parallel", "on", "parallelism.tensor_parallel_degree");
    set("stages", std::to_string(stages_), "parallelism.pipeline_parallel_degree");
    // torchtitan's attention is PyTorch's SDPA: fused, no s² scores kept.
    set("attention", "flash", "model.name");
    set("sequence", std::to_string(sequence_), sequence_key_);
    precision();
    recompute();
    if (async_tp_ && tensor_ > 1) {
      const bool compiled = compile_ && std::find(components_.begin(), components_.end(),
                                                  "model") != components_.end();
      if (compiled) {
        set("tp_comm_overlap", "on", "parallelism.enable_async_tensor_parallel");
        for (const std::string& key : compile_keys_)
          mark_used(key);
      } else {
        run_.warnings.push_back(fmt::format(
            "{}: parallelism.enable_async_tensor_parallel takes effect only with compile.enable "
            "and \"model\" in compile.components (torchtitan applies it to the compiled model): "
            "not applied",
            src));
      }
    }
    schedule();
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw core::ConfigError(fmt::format("{}:{}", run_.source, leaf_->line), leaf_->key, problem);
  }

  std::string shown() const {
    std::string s = printed(*leaf_->node);
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
  }

  long integer(long lo, long hi = 1 << 20) const {
    const auto v = leaf_->node->value<std::int64_t>();
    if (!leaf_->node->is_integer() || !v) {
      fail(fmt::format("must be an integer in [{}, {}], got {} ({})", lo, hi,
                       type_name(*leaf_->node), shown()));
    }
    if (*v < lo || *v > hi) fail(fmt::format("must be in [{}, {}], got {}", lo, hi, *v));
    return static_cast<long>(*v);
  }

  bool boolean() const {
    if (!leaf_->node->is_boolean()) {
      fail(fmt::format("must be a boolean (true or false), got {} ({})", type_name(*leaf_->node),
                       shown()));
    }
    return leaf_->node->value<bool>().value_or(false);
  }

  std::string text() const {
    if (!leaf_->node->is_string())
      fail(fmt::format("must be a string, got {} ({})", type_name(*leaf_->node), shown()));
    return leaf_->node->value<std::string>().value_or("");
  }

  std::string choice(const std::vector<std::string>& allowed) const {
    const std::string v = text();
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
      fail(fmt::format("must be one of {}, got '{}'", joined(allowed), v));
    return v;
  }

  static std::vector<std::string> strings_of(const toml::node& n, bool& ok) {
    std::vector<std::string> out;
    const toml::array* a = n.as_array();
    ok = a != nullptr;
    if (a == nullptr) return out;
    for (const toml::node& e : *a) {
      if (!e.is_string()) {
        ok = false;
        return out;
      }
      out.push_back(e.value<std::string>().value_or(""));
    }
    return out;
  }

  std::vector<std::string> strings() const {
    bool ok = false;
    std::vector<std::string> out = strings_of(*leaf_->node, ok);
    if (!ok)
      fail(fmt::format("must be an array of strings, got {} ({})", type_name(*leaf_->node),
                       shown()));
    return out;
  }

  void model_parts() {
    const toml::array* a = leaf_->node->as_array();
    bool ok = a != nullptr && !a->empty();
    std::vector<std::vector<std::string>> parts;
    if (ok) {
      for (const toml::node& e : *a) {
        parts.push_back(strings_of(e, ok));
        if (!ok) break;
      }
    }
    if (!ok) fail(fmt::format("must be a non-empty array of arrays of strings, got {}", shown()));
    run_.model_parts = std::move(parts);
  }

  static long parse_positive(const std::string& s) {
    long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() ? v : 0;
  }

  void unmodelled() {
    run_.unmodelled[leaf_->key] =
        fmt::format("its value {} changes time or memory in a way pipesim does not model", shown());
  }

  void set(const std::string& option, const std::string& value, const std::string& argument = "") {
    const std::string& by = argument.empty() ? leaf_->key : argument;
    if (const ReadSetting* s = conflicting_setting(run_.settings, option, value)) {
      throw core::ConfigError(
          run_.source, by,
          fmt::format("sets {} to {}, but {} sets it to {}", option, value, s->argument, s->text));
    }
    if (std::none_of(run_.settings.begin(), run_.settings.end(),
                     [&](const ReadSetting& s) { return s.option == option; }))
      run_.settings.push_back({option, value, by});
  }

  void mark_used(const std::string& key) { promoted_.insert(key); }

  void precision() {
    bool fp8 = false, mx = false;
    for (const std::string& c : converters_) {
      fp8 = fp8 || c == "float8" || c.ends_with(".float8");
      mx = mx || c == "mx" || c.ends_with(".mx");
    }
    if (fp8 && mx) {
      throw core::ConfigError(run_.source, "model.converters",
                              "float8 and mx converters together: pipesim prices one recipe");
    }
    if (fp8 || mx) {
      // The low-precision GEMMs run on the bf16 mixed-precision model.
      set("precision", fp8 ? "fp8" : "mxfp8", "model.converters");
      if (fp8 && fp8_all_gather_) {
        set("fp8_param_gather", "on", all_gather_key_);
        mark_used(all_gather_key_);
      }
    } else if (dtype_ == "bfloat16") {
      // Parameters, gradients and both Adam moments in bf16, no fp32 master copy.
      set("precision", "bf16", "training.dtype");
      set("bytes_per_param", "8", "training.dtype");
    } else {
      set("precision", param_dtype_ == "float32" ? "fp32" : "bf16", param_key_);
    }
  }

  void recompute() {
    const std::string& src = run_.source;
    if (ac_mode_ == "none" || ac_mode_ == "full") {
      set("recompute", ac_mode_, "activation_checkpoint.mode");
      return;
    }
    const std::string option = ac_option_.value_or("2");
    if (option == "op") {
      set("recompute", "selective", "activation_checkpoint.selective_ac_option");
      return;
    }
    // Every k-th layer checkpointed whole: pipesim checkpoints all or none of a stage's layers.
    set("recompute", "full", "activation_checkpoint.selective_ac_option");
    if (option != "1") {
      run_.warnings.push_back(fmt::format(
          "{}: activation_checkpoint.selective_ac_option {} (every {}th layer checkpointed{}): "
          "pipesim recomputes every layer",
          src, option, option, ac_option_ ? "" : ", torchtitan's default"));
    }
  }

  void schedule() {
    // PyTorch's schedule classes are "Schedule" + the name torchtitan takes; pipesim's registry
    // knows them by those class names.
    const schedules::ScheduleEntry* e = schedules::find_schedule("Schedule" + schedule_);
    if (e == nullptr || schedule_.empty()) {
      throw core::ConfigError(
          schedule_line_ > 0 ? fmt::format("{}:{}", run_.source, schedule_line_) : run_.source,
          schedule_key_,
          fmt::format("'{}' has no pipesim schedule; allowed (case-insensitive): {}", schedule_,
                      joined(torchtitan_schedules())));
    }
    if (stages_ == 1) {
      // Without a pipeline torchtitan runs no schedule: its keys change nothing.
      for (const char* key :
           {"pipeline_parallel_schedule", "pipeline_parallel_microbatch_size",
            "pipeline_parallel_layers_per_stage", "pipeline_parallel_first_stage_less_layers",
            "pipeline_parallel_last_stage_less_layers", "module_fqns_per_model_part"}) {
        demoted_.insert(std::string("parallelism.") + key);
      }
      demoted_.insert("experimental.pipeline_parallel_schedule");
      return;
    }
    set("schedule", e->name, schedule_key_);
    if (schedules::accepts(e->name, "chunks")) {
      run_.stages_per_rank = 0;
    } else if (e->shape != nullptr) {
      const core::OptionValues shape = e->shape(schedules::ScheduleParams{});
      if (shape.contains("chunks"))
        run_.stages_per_rank = static_cast<int>(shape.integer("chunks"));
    }
  }

 public:
  std::set<std::string> demoted_;   //!< keys read but of no effect in this configuration
  std::set<std::string> promoted_;  //!< keys of ignored sections that decided a setting

 private:
  TorchtitanRun& run_;
  const Leaf* leaf_ = nullptr;
  long tensor_ = 1, stages_ = 1, sequence_ = 2048;
  std::string sequence_key_ = "training.seq_len";
  std::string schedule_ = "1F1B", schedule_key_ = "parallelism.pipeline_parallel_schedule";
  long schedule_line_ = 0;
  std::string param_dtype_ = "bfloat16", param_key_ = "training.mixed_precision_param";
  std::string dtype_ = "float32", ac_mode_ = "selective", all_gather_key_;
  std::optional<std::string> ac_option_;
  std::vector<std::string> converters_, compile_keys_;
  std::vector<std::string> components_ = {"model", "loss"};  // torchtitan's default
  bool async_tp_ = false, compile_ = false, fp8_all_gather_ = false;
};

void add_once(std::vector<std::string>& list, const std::string& key) {
  if (std::find(list.begin(), list.end(), key) == list.end()) list.push_back(key);
}

}  // namespace

std::vector<std::string> torchtitan_schedules() {
  std::vector<std::string> names;
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    for (const std::string& alias : e.aliases) {
      if (alias.starts_with("Schedule")) names.push_back(alias.substr(8));
    }
  }
  return names;
}

TorchtitanRun parse_torchtitan(std::string_view text, const std::string& source) {
  TorchtitanRun run;
  run.source = source;
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw core::ConfigError(fmt::format("{}:{}:{}: TOML syntax: {}", source, e.source().begin.line,
                                        e.source().begin.column, e.description()));
  }
  std::vector<Leaf> leaves;
  collect(table, "", leaves);
  std::stable_sort(leaves.begin(), leaves.end(), [](const Leaf& a, const Leaf& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  // A key and its older spelling given with different values would leave one unread.
  std::map<std::string, const Leaf*> seen;
  for (const Leaf& l : leaves) {
    const auto [it, fresh] = seen.emplace(canonical(l.key), &l);
    if (!fresh && printed(*it->second->node) != printed(*l.node)) {
      throw core::ConfigError(fmt::format("{}:{}", source, l.line), l.key,
                              fmt::format("gives another value than {} (line {}), which it "
                                          "renames",
                                          it->second->key, it->second->line));
    }
  }
  Reader reader(run);
  std::vector<bool> mapped(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i)
    mapped[i] = reader.map(leaves[i]);
  reader.finish();
  // The lists in file order, once every key has been read and its effect decided.
  for (size_t i = 0; i < leaves.size(); ++i) {
    const std::string& key = leaves[i].key;
    if (run.unmodelled.count(key) > 0) {
      add_once(run.unknown, key);
    } else if ((mapped[i] && reader.demoted_.count(key) == 0) || reader.promoted_.count(key) > 0) {
      add_once(run.used, key);
    } else if (mapped[i] || is_ignored(key) || is_ignored(canonical(key))) {
      add_once(run.ignored, key);
    } else {
      add_once(run.unknown, key);
    }
  }
  return run;
}

TorchtitanRun read_torchtitan(const std::string& path) {
  if (!std::filesystem::exists(path)) throw core::ConfigError(path, "file", "no such file");
  return parse_torchtitan(core::read_text_file(path), path);
}

}  // namespace pipesim::scenario
