#include "pipesim/scenario/options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <type_traits>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/names.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {
namespace {

using core::OptionSpec;
using core::OptionValue;

constexpr const char* kSchedule = "Schedule";
constexpr const char* kUnitCost = "Unit-cost mode";
constexpr const char* kRealCost = "Real-cost mode";

template <typename E, size_t Size>
std::vector<std::string> names_list(const NameTable<E, Size>& table) {
  std::vector<std::string> out;
  for (const auto& [name, _] : table)
    out.emplace_back(name);
  return out;
}

// An option stored in one field of the scenario: `field(s)` is the field. Its value converts
// to and from OptionValue by the field's type: int ↔ integer, double ↔ real, bool ↔ switch,
// std::string ↔ text.
template <class Field>
Option field_option(OptionSpec spec, std::string short_name, Scope scope, std::string group,
                    Field field) {
  Option o;
  o.spec = std::move(spec);
  o.short_name = std::move(short_name);
  o.scope = scope;
  o.group = std::move(group);
  o.get = [field](const Scenario& s) -> std::optional<OptionValue> {
    const auto& v = field(const_cast<Scenario&>(s));
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, int>) {
      return OptionValue{std::int64_t{v}};
    } else {
      return OptionValue{v};
    }
  };
  o.set = [field](Scenario& s, const std::optional<OptionValue>& value) {
    PIPESIM_ASSERT(value.has_value(), "an option with a default was unset");
    auto& f = field(s);
    using T = std::decay_t<decltype(f)>;
    if constexpr (std::is_same_v<T, int>) {
      f = static_cast<int>(std::get<std::int64_t>(*value));
    } else {
      f = std::get<T>(*value);
    }
  };
  return o;
}

// A byte count held as a double (the cost model's arithmetic) but given and shown as a whole
// number: a fraction of a byte is no setting.
template <class Field>
Option whole_bytes_option(OptionSpec spec, Scope scope, std::string group, Field field) {
  Option o;
  o.spec = std::move(spec);
  o.scope = scope;
  o.group = std::move(group);
  o.get = [field](const Scenario& s) -> std::optional<OptionValue> {
    return OptionValue{static_cast<std::int64_t>(field(const_cast<Scenario&>(s)))};
  };
  o.set = [field](Scenario& s, const std::optional<OptionValue>& value) {
    PIPESIM_ASSERT(value.has_value(), "an option with a default was unset");
    field(s) = static_cast<double>(std::get<std::int64_t>(*value));
  };
  return o;
}

// An enum field named by `table` (names.hpp): a choice of the table's names.
template <class Field, typename E, size_t Size>
Option named_option(std::string name, const NameTable<E, Size>& table, std::string default_text,
                    std::string help, Scope scope, std::string group, Field field) {
  Option o;
  o.spec = core::choice_option(std::move(name), names_list(table), std::move(default_text),
                               std::move(help));
  o.scope = scope;
  o.group = std::move(group);
  o.get = [field, &table](const Scenario& s) -> std::optional<OptionValue> {
    return OptionValue{std::string(name_of(table, field(const_cast<Scenario&>(s))))};
  };
  o.set = [field, &table](Scenario& s, const std::optional<OptionValue>& value) {
    PIPESIM_ASSERT(value.has_value(), "an option with a default was unset");
    field(s) = *value_of(table, std::get<std::string>(*value));
  };
  return o;
}

// A choice whose empty default means "derived" (the model file's, another option's): an
// optional field, unset when empty.
template <class Field, typename E, size_t Size>
Option model_default_option(std::string name, const NameTable<E, Size>& table, std::string help,
                            Field field) {
  Option o;
  o.spec = core::choice_option(std::move(name), names_list(table), "", std::move(help));
  o.scope = Scope::RealCost;
  o.group = kRealCost;
  o.get = [field, &table](const Scenario& s) -> std::optional<OptionValue> {
    const auto& v = field(const_cast<Scenario&>(s));
    if (!v) return std::nullopt;
    return OptionValue{std::string(name_of(table, *v))};
  };
  o.set = [field, &table](Scenario& s, const std::optional<OptionValue>& value) {
    auto& v = field(s);
    v.reset();
    if (value) v = *value_of(table, std::get<std::string>(*value));
  };
  return o;
}

// An on|off field.
template <class Field>
Option switch_field(std::string name, bool default_on, std::string help, Scope scope,
                    std::string group, Field field) {
  return field_option(core::switch_option(std::move(name), default_on, std::move(help)), "", scope,
                      std::move(group), field);
}

// A scheme's own option, declared by the schedule registry. The scenario holds it only when
// given; otherwise the scheme's default applies (each scheme's own: default_help()).
Option scheme_option(const OptionSpec& declared) {
  Option o;
  o.spec = declared;
  o.spec.default_text.clear();
  o.scope = Scope::Scheme;
  o.group = kSchedule;
  const std::string name = declared.name;
  o.get = [name](const Scenario& s) -> std::optional<OptionValue> {
    if (const OptionValue* v = s.params.options.find(name)) return *v;
    return std::nullopt;
  };
  o.set = [name](Scenario& s, const std::optional<OptionValue>& value) {
    if (value) {
      s.params.options.set(name, *value);
    } else {
      s.params.options.erase(name);
    }
  };
  return o;
}

// Megatron-LM's argument names for the same settings (megatron/training/arguments.py), so a
// Megatron user's command line reads as written: `--tensor-model-parallel-size 8` is `-T 8`.
void add_megatron_aliases(std::vector<Option>& table) {
  constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      {"tensor_parallel", "tensor_model_parallel_size"},
      {"stages", "pipeline_model_parallel_size"},
      {"chunks", "virtual_pipeline_model_parallel_size"},
      {"context_parallel", "context_parallel_size"},
      {"expert_parallel", "expert_model_parallel_size"},
      {"expert_tensor_parallel", "expert_tensor_parallel_size"},
      {"sequence", "seq_length"},
      {"distributed_optimizer", "use_distributed_optimizer"},
      {"recompute", "recompute_granularity"},
      {"moe_dispatcher", "moe_flex_dispatcher_backend"},
  };
  // A plain pair, not a structured binding: clang 14 cannot capture one in the lambda.
  for (const auto& entry : kAliases) {
    const auto o = std::find_if(table.begin(), table.end(),
                                [&](const Option& x) { return x.name() == entry.first; });
    PIPESIM_ASSERT(o != table.end(), "an alias for an option that is not in the table");
    o->aliases.emplace_back(entry.second);
  }
}

// Unit costs are slots: 1e9 keeps every sum over a run's tasks (≤ the task budget) finite
// and exact enough, where 1e308 overflowed to an infinite iteration time.
constexpr double kMaxSlots = 1e9;

OptionSpec slots(std::string name, double lo, bool lo_inclusive, std::string def,
                 std::string help) {
  OptionSpec o = core::real_option(std::move(name), lo, kMaxSlots, std::move(def), std::move(help),
                                   lo_inclusive);
  o.value_name = "SLOTS";  // unit-cost durations have no real length
  return o;
}

OptionSpec named(OptionSpec o, std::string value_name) {
  o.value_name = std::move(value_name);
  return o;
}

// What schedule to run: its name, D and N, then the schemes' own options.
std::vector<Option> schedule_options() {
  std::vector<Option> table{
      field_option(
          named(
              core::text_option("schedule", "1f1b", "Schedule name (see `pipesim list schedules`)"),
              "NAME"),
          "", Scope::Always, kSchedule, [](Scenario & s) -> auto& { return s.schedule; }),
      field_option(
          core::integer_option("stages", 1, schedules::kMaxStages, "4",
                               "Pipeline depth D (pipeline ranks)"),
          "D", Scope::Always, kSchedule, [](Scenario & s) -> auto& { return s.params.stages; }),
      field_option(
          core::integer_option("micro_batches", 1, schedules::kMaxMicroBatches, "8",
                               "Micro-batches per iteration N"),
          "N", Scope::Always, kSchedule,
          [](Scenario & s) -> auto& { return s.params.micro_batches; }),
  };
  // Schedule names are matched case-insensitively and PyTorch's class names are aliases
  // (schedules::find_schedule); the scenario keeps the registry's name, so every output spells
  // a scheme one way. An unknown name is kept as given and refused when the run is checked.
  Option& schedule = table.front();
  schedule.set = [set = schedule.set](Scenario& s, const std::optional<OptionValue>& value) {
    set(s, value);
    if (const schedules::ScheduleEntry* e = schedules::find_schedule(s.schedule)) {
      s.schedule = e->name;
    }
  };
  for (const OptionSpec* declared : schedules::scheme_options())
    table.push_back(scheme_option(*declared));
  return table;
}

// Unit-cost mode's durations, in slots (t_weight is inserted later: unit_cost_weight).
std::vector<Option> unit_cost_options() {
  return {
      field_option(
          slots("t_forward", 0, false, "1", "Unit-cost mode: forward time t_F, in (0, 1e9]"), "",
          Scope::UnitCost, kUnitCost, [](Scenario & s) -> auto& { return s.unit.forward; }),
      field_option(
          slots("t_backward", 0, false, "2",
                "Unit-cost mode: whole backward time t_B = t_I + t_W, in (0, 1e9]"),
          "", Scope::UnitCost, kUnitCost, [](Scenario & s) -> auto& { return s.unit.backward; }),
      field_option(
          slots("t_comm", 0, true, "0",
                "Unit-cost mode: delay on every edge between two workers, in [0, 1e9]"),
          "", Scope::UnitCost, kUnitCost, [](Scenario & s) -> auto& { return s.unit.comm; }),
      field_option(
          slots("t_allreduce", 0, true, "0",
                "Unit-cost mode: duration of a stage's gradient all-reduce (a delay), "
                "in [0, 1e9]"),
          "", Scope::UnitCost, kUnitCost, [](Scenario & s) -> auto& { return s.unit.all_reduce; }),
  };
}

Option unit_cost_weight() {
  // Unset: half the backward (the Zero Bubble paper's t_I = t_W); only schedules with a split
  // backward have a W op.
  Option weight;
  weight.spec = slots("t_weight", 0, true, "",
                      "Unit-cost mode, split-backward schedules: W part of the backward, in [0, "
                      "t_B] (default t_B/2)");
  weight.scope = Scope::UnitCost;
  weight.group = kUnitCost;
  weight.get = [](const Scenario& s) -> std::optional<OptionValue> {
    if (!s.unit.weight) return std::nullopt;
    return OptionValue{*s.unit.weight};
  };
  weight.set = [](Scenario& s, const std::optional<OptionValue>& value) {
    s.unit.weight.reset();
    if (value) s.unit.weight = std::get<double>(*value);
  };
  return weight;
}

// Real-cost mode (with model and hardware).
std::vector<Option> real_cost_options() {
  return {
      field_option(
          named(core::text_option("model", "",
                                  "Real-cost mode: model name (`pipesim list models`), "
                                  "YAML path or Hugging Face config.json"),
                "NAME|PATH"),
          "", Scope::Always, kRealCost, [](Scenario & s) -> auto& { return s.perf.model; }),
      field_option(
          named(core::text_option("hardware", "",
                                  "Real-cost mode: hardware profile name (`pipesim list "
                                  "hardware`) or YAML path"),
                "NAME|PATH"),
          "", Scope::Always, kRealCost, [](Scenario & s) -> auto& { return s.perf.hardware; }),
      field_option(
          core::integer_option("micro_batch_size", 1, 1 << 16, "1",
                               "Real-cost mode: samples per micro-batch B"),
          "B", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.micro_batch_size; }),
      field_option(
          core::integer_option("data_parallel", 1, 1 << 16, "1",
                               "Real-cost mode: pipeline replicas W (GPUs = T·D·W)"),
          "W", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.data_parallel; }),
      named_option(
          "recompute", kRecomputeNames, "none",
          "Real-cost mode: activation recomputation none|selective|full", Scope::RealCost,
          kRealCost, [](Scenario & s) -> auto& { return s.perf.setup.recompute; }),
      field_option(
          named(core::text_option(
                    "recompute_modules", "core_attn",
                    "Real-cost mode, recompute selective: what is recomputed, comma-separated "
                    "(Megatron-Core's recompute-modules): core_attn, moe_act, layernorm, "
                    "mla_up_proj, mlp, moe, shared_experts"),
                "LIST"),
          "", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.recompute_modules; }),
      switch_field(
          "quantized_activations", false,
          "Real-cost mode, precision fp8/mxfp8/nvfp4: DeepSeek-V3's low-precision storage, "
          "the MoE activation's input kept in the recipe's format and one copy of the "
          "attention output (the linear layers' inputs are always kept quantized, as "
          "Transformer Engine does) on|off",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.quantized_activations; }),
      named_option(
          "recompute_scope", kRecomputeScopeNames, "layer",
          "Real-cost mode: recomputation restores one layer at a time (layer: Megatron-LM's "
          "per-layer checkpoints) or the whole stage before its backward (stage: the "
          "PipeDream-derived runtimes)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.recompute_stage; }),
      switch_field(
          "eager_autograd", false,
          "Real-cost mode: activations as PyTorch <= 1.10 eager autograd keeps them on|off "
          "(softmax and log_softmax keep their inputs; a Python tanh GeLU keeps three more "
          "FFN-wide tensors); off = fused kernels (Korthikanti et al.)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.eager_autograd; }),
      switch_field(
          "unfused_cross_entropy", false,
          "Real-cost mode: the loss as Megatron-LM's unfused vocab_parallel_cross_entropy on "
          "fp32 logits, one memory-bound pass per step (38 bytes per 16-bit logit forward, 14 "
          "backward) on|off; off = a fused loss (12 and 8)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.unfused_cross_entropy; }),
      switch_field(
          "unfused_grad_accumulation", false,
          "Real-cost mode: every micro-batch's weight gradients added into the gradient buffer "
          "by a pass of their own (Megatron-LM 2021's local DDP hook main_grad.add_(grad), 3 x "
          "the gradient bytes per parameter) on|off; off = accumulated by the weight-gradient "
          "GEMM",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.unfused_grad_accumulation; }),
      switch_field(
          "stash_working_copy", false,
          "Real-cost mode, weight-stashing schedules (pipedream, pipedream-2bw): the stashed "
          "versions are clones beside the module's working weights, one weight copy more "
          "(the PipeDream runtime's optimizer_with_stashing) on|off",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.stash_working_copy; }),
      named_option(
          "partition", kPartitionNames, "uniform",
          "Real-cost mode: layers to stages, uniform|balanced|account-ends|account-embedding|"
          "account-loss (account-*: the embedding and/or the loss count as a layer in the "
          "uniform split)",
          Scope::RealCost, kRealCost, [](Scenario & s) -> auto& { return s.perf.setup.partition; }),
      field_option(
          named(core::text_option("layout", "",
                                  "Real-cost mode: the virtual stages written out, Megatron-LM's "
                                  "pipeline layout (E embedding, t layer, m MTP layer, L loss, "
                                  "| between stages, x*n and (..)*n repeat; D·v stages), e.g. "
                                  "\"Et*3|(tt|)*29,m|L\"; empty = partition"),
                "TEXT"),
          "", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.layout; }),
      named_option(
          "placement", kPlacementNames, "data-major",
          "Real-cost mode: workers on GPUs, data-major (Megatron-Core's rank order "
          "tp-cp-ep-dp-pp: a stage's replicas on neighbouring GPUs) or pipeline-major (a "
          "replica's stages on neighbouring GPUs)",
          Scope::RealCost, kRealCost, [](Scenario & s) -> auto& { return s.perf.setup.placement; }),
      field_option(
          core::integer_option("gpus_per_domain", 0, 1024, "0",
                               "Real-cost mode: GPUs of the job in one NVLink domain, whole "
                               "hosts (an NVL72 rack's 4-GPU trays); 0 = the slice a scheduler "
                               "gives: the largest that divides the job's hosts and tiles its "
                               "groups (256 GPUs on NVL72: 64 a rack)"),
          "", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.gpus_per_domain; }),
      named_option(
          "grad_sync", kGradSyncNames, "eager",
          "Real-cost mode: gradient all-reduce eager (after a stage's last backward), "
          "flush (after all compute), eager-opt (eager only where holders idle at the "
          "end) or blocking (asynchronous schedules: eager, and the worker waits for it "
          "and its step, as with PyTorch DDP)",
          Scope::RealCost, kRealCost, [](Scenario & s) -> auto& { return s.perf.grad_sync; }),
      named_option(
          "optimizer_sync", kOptimizerSyncNames, "post-validation",
          "Real-cost mode, schedules that split the backward: the optimizer step after "
          "post-validation (each worker steps once its stages are reduced; Zero Bubble §4) or "
          "all-reduce (every step waits for a global all-reduce of the gradient norm and "
          "NaN/Inf check over all stages)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.optimizer_sync_all_reduce; }),
      switch_field(
          "overlap_p2p", true,
          "Real-cost mode: p2p transfers overlap compute (on) or block the sender (off)",
          Scope::RealCost, kRealCost, [](Scenario & s) -> auto& { return s.perf.overlap_p2p; }),
      field_option(
          core::real_option("bytes_per_param", 0, 1024, "0",
                            "Real-cost mode: static bytes per parameter, weights + "
                            "gradients + optimizer (0 = from the precision: fp32 16, "
                            "fp16 16, bf16 18, fp8 20, mxfp8 20.06, nvfp4 19.125)"),
          "", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.bytes_per_param; }),
  };
}

// Parallelism and numerics of real runs (cost/training_setup.hpp).
std::vector<Option> parallel_options() {
  return {
      field_option(
          core::integer_option("tensor_parallel", 1, 1024, "1",
                               "Real-cost mode: tensor-parallel GPUs t per worker, "
                               "within a node (GPUs = t·c·D·W)"),
          "T", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.tensor_parallel; }),
      field_option(
          core::integer_option("context_parallel", 1, 1024, "1",
                               "Real-cost mode: context-parallel GPUs c per worker, each "
                               "holding 1/c of the sequence (ring attention; GPUs = "
                               "t·c·D·W; needs flash attention)"),
          "C", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.context_parallel; }),
      switch_field(
          "sequence_parallel", false, "Real-cost mode: sequence parallelism on|off (needs t > 1)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.sequence_parallel; }),
      switch_field(
          "tp_comm_overlap", false,
          "Real-cost mode: tensor-parallel collectives overlap the GEMMs on|off "
          "(Megatron-Core's tp-comm-overlap; needs sequence parallelism)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.tp_comm_overlap; }),
      switch_field(
          "distributed_optimizer", false,
          "Real-cost mode: optimizer state sharded over data-parallel ranks (ZeRO-1) "
          "on|off",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.distributed_optimizer; }),
      model_default_option(
          "data_parallel_sharding", kDataParallelShardingNames,
          "Real-cost mode: what the data-parallel ranks shard: none, optimizer (ZeRO-1, the "
          "same as distributed_optimizer on), gradients (ZeRO-2: each backward reduce-scatters "
          "its gradients) or params (ZeRO-3, FSDP: each layer's parameters all-gathered before "
          "its forward and backward, prefetched; empty = optimizer when distributed_optimizer "
          "is on, else none)",
          [](Scenario & s) -> auto& { return s.perf.setup.data_parallel_sharding; }),
      whole_bytes_option(
          core::integer_option("grad_bucket_bytes", 0, 2'147'483'647, "0",
                               "Real-cost mode: gradient buckets of this many bytes (a whole "
                               "number), each its own collective call paying the algorithm's "
                               "latency (PyTorch DDP's bucket_cap_mb: 25 MiB = 26214400); 0 = "
                               "one flat buffer per stage; at most 2^31 - 1"),
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.grad_bucket_bytes; }),
      switch_field(
          "overlap_grad_reduce", false,
          "Real-cost mode: each gradient bucket's all-reduce/reduce-scatter starts as soon as "
          "the last backward has computed it on|off (Megatron-Core's overlap-grad-reduce; "
          "buckets of grad_bucket_bytes, else max(4e7, 1e6 x d) parameters)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.overlap_grad_reduce; }),
      switch_field(
          "fp8_param_gather", false,
          "Real-cost mode, fp8/mxfp8/nvfp4: the parameters kept only in the low-precision "
          "format (row- and column-wise copies, no 16-bit copy) and all-gathered in it "
          "(Megatron's fp8-param-gather) on|off",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.fp8_param_gather; }),
      switch_field(
          "grad_reduce_in_bf16", false,
          "Real-cost mode: the gradient buffer and its reduce in bf16 instead of fp32 (Megatron's "
          "grad-reduce-in-bf16) on|off",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.grad_reduce_in_bf16; }),
      switch_field(
          "overlap_param_gather", false,
          "Real-cost mode: the updated parameters' all-gather overlaps the first forward, "
          "bucket by bucket on|off (Megatron-Core's overlap-param-gather; needs "
          "distributed_optimizer and overlap_grad_reduce)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.overlap_param_gather; }),
  };
}

// Mixture-of-experts layers (cost/expert_parallel.hpp).
std::vector<Option> moe_options() {
  return {
      field_option(
          core::integer_option("expert_parallel", 1, 1 << 16, "1",
                               "Real-cost mode, MoE models: expert-parallel GPUs e, dividing the "
                               "experts; the expert layers fold e_t·e·(T·W/(e·e_t)) over the "
                               "attention's GPUs (no extra GPUs)"),
          "E", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.expert_parallel; }),
      field_option(
          core::integer_option("expert_tensor_parallel", 1, 1024, "1",
                               "Real-cost mode, MoE models: GPUs e_t each expert's FFN is split "
                               "over, within a node"),
          "", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.expert_tensor_parallel; }),
      field_option(
          core::real_option("moe_imbalance", 1, 1024, "1",
                            "Real-cost mode, MoE models: the busiest expert's tokens over the "
                            "mean (1 = balanced routing); the busiest rank sets the time"),
          "", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.moe_imbalance; }),
      switch_field(
          "moe_overlap", false,
          "Real-cost mode, MoE models: expert-parallel all-to-alls overlap another "
          "micro-batch's compute on|off (Megatron-Core's 1F1B all-to-all overlap)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.moe_overlap; }),
      named_option(
          "moe_dispatcher", kMoeDispatcherNames, "alltoall",
          "Real-cost mode, MoE models: how tokens reach the experts, alltoall (Megatron-Core's "
          "alltoall dispatcher: every routed copy, in the activations' precision), deepep or "
          "hybridep (its flex dispatcher: a token once to each node holding one of its "
          "experts, forwarded over NVLink; fp8 dispatch, bf16 combine)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.moe_dispatcher; }),
      model_default_option(
          "moe_token_dispatcher_type", kMoeTokenDispatcherNames,
          "Real-cost mode, MoE models: Megatron-Core's name for the dispatcher, alltoall or flex "
          "(its backend is moe_dispatcher, deepep unless given); allgather is refused (not "
          "modelled)",
          [](Scenario & s) -> auto& { return s.perf.setup.moe_token_dispatcher_type; }),
      field_option(
          named(core::text_option(
                    "cuda_graphs", "none",
                    "Real-cost mode: what runs as CUDA graphs, replayed for one host dispatch "
                    "each: none, partial (attn, mlp, moe_router, moe_preprocess: the parts of "
                    "fixed shape), full (full_iteration), or Megatron-Core's cuda-graph-scope "
                    "names comma-separated: attn, mlp, moe, moe_router, moe_preprocess, "
                    "full_iteration; only matters with the profile's framework.op_overhead"),
                "SCOPES"),
          "", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.cuda_graphs; }),
      switch_field(
          "moe_grouped_gemm", true,
          "Real-cost mode, MoE models: the local experts' GEMMs as one grouped GEMM on|off "
          "(off: one plain GEMM per expert, Megatron-Core's SequentialMLP)",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.moe_grouped_gemm; }),
  };
}

// Activation offload (cost/training_setup.hpp, sim/lowering.hpp OffloadOps).
std::vector<Option> offload_options() {
  return {
      field_option(
          core::real_option("offload", 0, 1, "0",
                            "Real-cost mode: fraction of each micro-batch's stored activations "
                            "copied to host memory after its forward and back before its "
                            "backward, over the profile's host link (PipeOffload); 0 = off"),
          "", Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.offload; }),
      switch_field(
          "offload_selective", false,
          "Real-cost mode, with offload: keep resident the activations whose backward is the "
          "worker's next backward after their forward (PipeOffload's selective rule) on|off",
          Scope::RealCost, kRealCost,
          [](Scenario & s) -> auto& { return s.perf.setup.offload_selective; }),
  };
}

// What overrides the model file's own values.
std::vector<Option> model_file_options() {
  std::vector<Option> out;
  // Unset: the model file's (ModelSpec::precision, ModelSpec::attention).
  out.push_back(model_default_option(
      "precision", kPrecisionNames,
      "Real-cost mode: training precision fp32|fp16|bf16|fp8|mxfp8|nvfp4 (fp8 family: "
      "Transformer Engine, 8/4-bit GEMMs, bf16 activations; empty = the model file's)",
      [](Scenario & s) -> auto& { return s.perf.setup.precision; }));
  out.push_back(model_default_option(
      "attention", kAttentionNames,
      "Real-cost mode: attention kernels standard|flash (empty = the model file's: flash for "
      "the shipped Llama, Mistral, Qwen, DeepSeek and Nemotron models and Hugging Face "
      "decoders, standard for GPT-2, BERT and the papers' GPT shapes)",
      [](Scenario & s) -> auto& { return s.perf.setup.attention; }));
  out.push_back(field_option(
      core::integer_option("vocabulary", 0, 1 << 24, "0",
                           "Real-cost mode: vocabulary size V (0 = the model file's)"),
      "", Scope::RealCost, kRealCost,
      [](Scenario & s) -> auto& { return s.perf.setup.vocabulary; }));
  out.push_back(field_option(
      core::integer_option("sequence", 0, 1 << 24, "0",
                           "Real-cost mode: sequence length s (0 = the model file's)"),
      "", Scope::RealCost, kRealCost, [](Scenario & s) -> auto& { return s.perf.setup.sequence; }));
  return out;
}

std::vector<Option> make_options() {
  std::vector<Option> table = schedule_options();
  for (auto* group : {&unit_cost_options, &real_cost_options, &parallel_options, &moe_options,
                      &offload_options, &model_file_options}) {
    for (Option& o : group())
      table.push_back(std::move(o));
  }
  // After t_backward, where tables have always shown it.
  const auto at = std::find_if(table.begin(), table.end(),
                               [](const Option& o) { return o.name() == "t_backward"; });
  table.insert(at + 1, unit_cost_weight());
  add_megatron_aliases(table);
  return table;
}

}  // namespace

void Option::apply(Scenario& s, const std::string& text_value) const {
  if (text_value.empty() && spec.kind != core::ValueKind::Text) {
    set(s, std::nullopt);
    return;
  }
  set(s, spec.parse(text_value));
}

std::function<void(Scenario&)> Option::bind(const std::string& text_value) const {
  std::optional<OptionValue> value;
  if (!text_value.empty() || spec.kind == core::ValueKind::Text) value = spec.parse(text_value);
  return [setter = set, value = std::move(value)](Scenario& s) { setter(s, value); };
}

std::string Option::text(const Scenario& s) const {
  const std::optional<OptionValue> v = get(s);
  return v ? spec.format(*v) : std::string();
}

const std::vector<Option>& options() {
  // Built on first use, after every scheme has registered; immutable after.
  static const std::vector<Option> table = make_options();
  return table;
}

const Option* find_option(std::string_view name) {
  for (const Option& o : options()) {
    if (o.name() == name) return &o;
  }
  return nullptr;
}

std::string option_text(const Scenario& s, std::string_view name) {
  const Option* o = find_option(name);
  if (o == nullptr) throw core::ConfigError::option(name, "unknown option");
  return o->text(s);
}

std::vector<std::string> option_texts(const Scenario& s) {
  std::vector<std::string> texts;
  for (const Option& o : options())
    texts.push_back(o.text(s));
  return texts;
}

Scenario make_scenario(const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, _] : values) {
    if (find_option(name) == nullptr) throw core::ConfigError::option(name, "unknown option");
  }
  Scenario s;
  for (const Option& o : options()) {
    const std::string* text = &o.spec.default_text;
    for (const auto& [name, value] : values) {
      if (name == o.name()) text = &value;
    }
    o.apply(s, *text);
  }
  return s;
}

void apply_given(const Option& option, Scenario& s, const std::string& text) {
  if (text.empty()) {
    const std::string& d = option.spec.default_text;
    throw core::ConfigError::option(
        option.name(), fmt::format("empty value (leave the option out for its default{})",
                                   d.empty() ? std::string() : fmt::format(", {}", d)));
  }
  option.apply(s, text);
}

bool shapes_schedule(std::string_view name) {
  const Option* o = find_option(name);
  return name == "schedule" || name == "stages" || name == "micro_batches" ||
         (o != nullptr && o->scope == Scope::Scheme);
}

namespace {

bool applies(const Scenario& s, Scope scope, std::string_view name) {
  switch (scope) {
    case Scope::Scheme:
      return schedules::accepts(s.schedule, name);
    case Scope::UnitCost:
      return !s.perf.enabled();
    case Scope::RealCost:
      return s.perf.enabled();
    case Scope::Always:
      break;
  }
  return true;
}

}  // namespace

bool applies(const Scenario& s, std::string_view name) {
  const Option* o = find_option(name);
  return applies(s, o ? o->scope : Scope::Always, name);
}

void require_applicable(const Scenario& s, const std::vector<std::string>& given) {
  for (const Option& o : options()) {
    if (std::find(given.begin(), given.end(), o.name()) == given.end() ||
        applies(s, o.scope, o.name())) {
      continue;
    }
    if (o.scope == Scope::Scheme) {
      // The registry says why (an unknown schedule, with the known names; or which schemes
      // take the option).
      schedules::ScheduleParams probe;
      probe.options.set(o.name(), *o.get(s));
      const core::Check check = schedules::check_params(s.schedule, probe);
      if (!check.ok() && check.problem().field() == "schedule") return;
      if (!check.ok()) throw check.problem();
    }
    if (o.scope == Scope::UnitCost) {
      throw core::ConfigError::option(
          o.name(), "applies only in unit-cost mode (without model and hardware)");
    }
    throw core::ConfigError::option(o.name(),
                                    "applies only in real-cost mode (with model and hardware)");
  }
}

std::string default_help(const Option& option) {
  if (option.scope != Scope::Scheme) return option.spec.default_text;
  // Each scheme's own default, schemes with the same default together: "4 (pipedream,
  // pipedream-2bw)".
  std::vector<std::pair<std::string, std::string>> defaults;  // default → schemes
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    for (const OptionSpec& o : e.options) {
      if (o.name != option.name()) continue;
      auto it = std::find_if(defaults.begin(), defaults.end(),
                             [&](const auto& d) { return d.first == o.default_text; });
      if (it == defaults.end()) {
        defaults.emplace_back(o.default_text, e.name);
      } else {
        it->second += ", " + e.name;
      }
    }
  }
  std::string out;
  for (const auto& [value, schemes] : defaults)
    out += fmt::format("{}{} ({})", out.empty() ? "" : "; ", value, schemes);
  return out;
}

}  // namespace pipesim::scenario
