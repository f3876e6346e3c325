#include "pipesim/cost/stage_memory.hpp"

#include <algorithm>
#include <set>

#include "pipesim/cost/sharded_data_parallel.hpp"

namespace pipesim::cost {

namespace {

// The layers of a stage by kind: the model's layers first_layer .. first_layer + layers − 1.
template <class F>
double over_layers(const models::ModelSpec& model, const models::StageLayers& part, F per_layer) {
  double dense = 0, moe = 0;
  for (int l = part.first_layer; l < part.first_layer + part.layers; ++l)
    (models::layer_kind(model, l) == models::LayerKind::Moe ? moe : dense) += 1;
  return (dense > 0 ? dense * per_layer(models::LayerKind::Dense) : 0.0) +
         (moe > 0 ? moe * per_layer(models::LayerKind::Moe) : 0.0);
}

// The head's parameters on a stage that holds it: a tied head on its own stage keeps a copy of
// the embedding, as Megatron-LM does.
double head_params(const models::ModelSpec& model, const models::StageLayers& part, int t) {
  double p = models::head_params_per_gpu(model, t);
  if (model.tied_embeddings && !part.embedding)
    p += static_cast<double>(model.vocabulary) * model.hidden / t;
  return p;
}

// The largest unit sharded data parallelism gathers at once on the stage: a layer of each kind
// it holds, the embedding, the head.
double largest_unit(const models::ModelSpec& model, const models::StageLayers& part,
                    const models::LayerConfig& cfg) {
  double unit = 0.0;
  for (int l = part.first_layer; l < part.first_layer + part.layers; ++l)
    unit = std::max(unit,
                    models::layer_params_per_gpu(model, cfg, models::layer_kind(model, l)).total());
  if (part.embedding)
    unit = std::max(unit, models::embedding_params_per_gpu(model, cfg.tensor_parallel));
  if (part.head) unit = std::max(unit, head_params(model, part, cfg.tensor_parallel));
  return unit;
}

}  // namespace

std::vector<double> stage_params(const models::ModelSpec& model,
                                 const std::vector<models::StageLayers>& partition,
                                 const models::LayerConfig& cfg) {
  const int t = cfg.tensor_parallel;
  std::vector<double> params;
  params.reserve(partition.size());
  for (const models::StageLayers& part : partition) {
    double p = over_layers(model, part, [&](models::LayerKind k) {
      return models::layer_params_per_gpu(model, cfg, k).total();
    });
    if (part.embedding) p += models::embedding_params_per_gpu(model, t);
    if (part.head) p += head_params(model, part, t);
    params.push_back(p);
  }
  return params;
}

std::vector<double> stage_expert_params(const models::ModelSpec& model,
                                        const std::vector<models::StageLayers>& partition,
                                        const models::LayerConfig& cfg) {
  std::vector<double> params;
  params.reserve(partition.size());
  for (const models::StageLayers& part : partition) {
    params.push_back(over_layers(model, part, [&](models::LayerKind k) {
      return models::layer_params_per_gpu(model, cfg, k).expert;
    }));
  }
  return params;
}

std::vector<std::vector<int>> stage_holders(const sim::Schedule& schedule) {
  const auto stages = static_cast<size_t>(schedule.virtual_stages);
  std::vector<std::set<int>> holders(stages);
  for (int p = 0; p < schedule.pipelines; ++p) {
    for (size_t s = 0; s < stages; ++s)
      holders[s].insert(schedule.stage_worker[static_cast<size_t>(p)][s]);
  }
  std::vector<std::vector<int>> out;
  out.reserve(stages);
  for (const std::set<int>& h : holders)
    out.emplace_back(h.begin(), h.end());
  return out;
}

std::vector<double> optimizer_shards(const sim::Schedule& schedule, const TrainingSetup& setup,
                                     const std::vector<double>& params,
                                     const std::vector<double>& expert_params, int expert_dp) {
  const std::vector<std::vector<int>> holders = stage_holders(schedule);
  const size_t stages = holders.size();
  std::vector<double> shards(stages, 1.0);
  if (sharding_of(setup) == DataParallelSharding::None) return shards;
  for (size_t s = 0; s < stages; ++s) {
    const double holders_s = static_cast<double>(holders[s].size());
    // Megatron shards over the data × context group.
    shards[s] = holders_s * setup.data_parallel * setup.context_parallel;
    const double experts = s < expert_params.size() ? expert_params[s] : 0.0;
    if (experts > 0 && params[s] > 0) {
      shards[s] =
          params[s] / ((params[s] - experts) / shards[s] + experts / (holders_s * expert_dp));
    }
  }
  return shards;
}

std::vector<sim::StageMemory> stage_memory(const models::ModelSpec& model,
                                           const TrainingSetup& setup,
                                           const std::vector<models::StageLayers>& partition,
                                           const std::vector<double>& params,
                                           const std::vector<double>& shards,
                                           const ParamBytes& bytes, models::Recompute recompute) {
  const models::LayerConfig cfg = layer_config(setup);
  const double message = models::p2p_message_bytes(model, cfg).value;
  const auto act = [&](models::Recompute r) {
    return [&model, &cfg, r](models::LayerKind k) {
      return models::layer_activation_bytes(model, cfg, r, k).value;
    };
  };
  const DataParallelSharding level = sharding_of(setup);
  std::vector<sim::StageMemory> memory(partition.size());
  for (size_t s = 0; s < partition.size(); ++s) {
    const models::StageLayers& part = partition[s];
    // Recomputation restores one layer at a time (Megatron-LM's uniform method, one layer per
    // checkpoint): the difference between that layer's full and stored activations, the
    // largest over the stage's layer kinds; or, stage-wide, that difference summed over the
    // stage's layers (the whole stage's forward rerun before its backward).
    double restored = 0.0;
    const auto missing = [&](models::LayerKind k) {
      return act(models::Recompute::None)(k) - act(recompute)(k);
    };
    if (recompute != models::Recompute::None && setup.recompute_stage) {
      restored = over_layers(model, part, missing);
    } else if (recompute != models::Recompute::None) {
      if (!model.is_moe()) restored = missing(models::LayerKind::Dense);
      for (int l = part.first_layer; model.is_moe() && l < part.first_layer + part.layers; ++l)
        restored = std::max(restored, missing(models::layer_kind(model, l)));
    }
    double activations = over_layers(model, part, act(recompute));
    double workspace = 2 * message;  // send and receive buffers
    if (part.embedding) activations += models::embedding_activation_bytes(model, cfg).value;
    if (part.head) {
      activations += models::head_activation_bytes(model, cfg).value;
      workspace += 4.0 * setup.micro_batch_size * model.sequence *
                   static_cast<double>(model.vocabulary) / setup.tensor_parallel;  // fp32 dlogits
    }
    sim::StageMemory& m = memory[s];
    // The low-precision recipes quantize the linear layers' weights only: the embedding and
    // the LM head compute in 16 bits and keep no quantized copies (DeepSeek-V3 report §3.3;
    // Megatron's output layer is not a Transformer Engine module). weights − gathered is those
    // copies' bytes per parameter (0 outside the recipes).
    double unquantized = 0.0;
    if (part.embedding) unquantized += models::embedding_params_per_gpu(model, cfg.tensor_parallel);
    if (part.head) unquantized += models::head_params_per_gpu(model, cfg.tensor_parallel);
    // Sharded data parallelism (sharded_data_parallel.hpp): the gradients and the parameters
    // over the optimizer's shards too, and the units held unsharded while the stage computes.
    const double grad_shards = reduces_per_backward(level) ? shards[s] : 1.0;
    const double param_shards = gathers_per_op(level) ? shards[s] : 1.0;
    m.weights =
        (params[s] * bytes.weights - unquantized * (bytes.weights - bytes.gathered)) / param_shards;
    m.gradients = params[s] * bytes.gradients / grad_shards;
    m.optimizer = params[s] * bytes.optimizer / shards[s];
    workspace += transient_unit_bytes(level, largest_unit(model, part, cfg), bytes);
    m.activations = activations;
    m.recompute = restored;
    m.workspace = workspace;
  }
  return memory;
}

void apply_memory_overheads(std::vector<sim::WorkerMemory>& workers,
                            const hardware::MemoryOverhead& overhead) {
  if (overhead.reserved_bytes == 0.0 && overhead.fragmentation == 0.0) return;
  auto grown = [&](double bytes) {
    return bytes + overhead.reserved_bytes + overhead.fragmentation * bytes;
  };
  for (sim::WorkerMemory& m : workers) {
    m.static_memory.other += grown(m.static_memory.total()) - m.static_memory.total();
    m.at_peak.other += grown(m.at_peak.total()) - m.at_peak.total();
    m.peak = grown(m.peak);
    m.minimum = grown(m.minimum);
    m.final = grown(m.final);
    for (sim::MemorySample& s : m.timeline)
      s.bytes = grown(s.bytes);
  }
}

}  // namespace pipesim::cost
