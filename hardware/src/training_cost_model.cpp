#include "pipesim/hardware/training_cost_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "pipesim/core/config_error.hpp"

namespace pipesim::hardware {
namespace {

using models::OpWork;

}  // namespace

TrainingCostModel::TrainingCostModel(const models::ModelSpec& model,
                                     const HardwareProfile& hardware, const sim::Schedule& schedule,
                                     const TrainingSetup& setup)
    : model_(model), hw_(hardware), setup_(setup) {
  const std::string dtype = models::precision_name(model.precision);
  const auto peak = hw_.gpu.peak_flops.find(dtype);
  if (peak == hw_.gpu.peak_flops.end()) {
    throw core::ConfigError(hw_.source, "gpu.peak_flops." + dtype,
                            fmt::format("missing, and model {} computes in {}", model.name, dtype));
  }
  peak_ = peak->second;
  if (const auto eff = hw_.gpu.gemm_efficiency.find(dtype); eff != hw_.gpu.gemm_efficiency.end()) {
    gemm_eff_ = &eff->second;
  } else {
    throw core::ConfigError(hw_.source, "gpu.gemm_efficiency." + dtype,
                            fmt::format("missing, and model {} computes in {}", model.name, dtype));
  }
  const double elem = models::precision_bytes(model.precision);
  if (setup.bytes_per_param < 2 * elem) {
    throw core::ConfigError("command line", "--bytes-per-param",
                            fmt::format("must be at least {} (weights + gradients in {}), got {}",
                                        2 * elem, dtype, setup.bytes_per_param));
  }
  placement_ = Placement{schedule.workers, setup.data_parallel, hw_.gpus_per_node,
                         hw_.nics_per_node, setup.placement};
  const int b = setup.micro_batch_size;
  partition_ = models::partition_layers(model, schedule.stages, setup.partition, b);
  schedule_recomputes_ = schedule.recompute;
  // A schedule with R ops recomputes whatever it stored; with --recompute none that is a full
  // recomputation (Chimera's forward doubling).
  const models::Recompute mode = schedule.recompute && setup.recompute == models::Recompute::None
                                     ? models::Recompute::Full
                                     : setup.recompute;

  const OpWork layer_f = models::layer_forward(model, b);
  const OpWork layer_i = models::layer_backward_input(model, b);
  const OpWork layer_w = models::layer_backward_weight(model, b);
  const OpWork layer_r = models::layer_recompute(model, b, mode);
  const double param_bytes_other = setup.bytes_per_param - 2 * elem;
  message_bytes_ = models::p2p_message_bytes(model, b).value;
  const auto stages = static_cast<size_t>(schedule.stages);
  times_.resize(stages);
  backward_extra_.assign(stages, 0.0);
  stage_params_.assign(stages, 0.0);
  memory_.resize(stages);
  for (size_t s = 0; s < stages; ++s) {
    const models::StageLayers& part = partition_[s];
    const double L = part.layers;
    OpWork f = layer_f.scaled(L), i = layer_i.scaled(L), w = layer_w.scaled(L),
           r = layer_r.scaled(L);
    double params = L * models::layer_params(model);
    double activations = L * models::layer_activation_bytes(model, b, mode).value;
    double workspace = 2 * message_bytes_;  // send and receive buffers
    if (part.embedding) {
      f += models::embedding_forward(model, b);
      w += models::embedding_forward(model, b);  // scatter-add into the embedding gradient
      params += models::embedding_params(model);
      activations += models::embedding_activation_bytes(model, b).value;
    }
    if (part.head) {
      f += models::head_forward(model, b);
      i += models::head_backward_input(model, b);
      w += models::head_backward_weight(model, b);
      params += models::head_params(model);
      // A tied head on its own stage keeps a copy of the embedding (Megatron-LM does).
      if (model.tied_embeddings && !part.embedding) {
        params += static_cast<double>(model.vocabulary) * model.hidden;
      }
      activations += models::head_activation_bytes(model, b).value;
      workspace +=
          4.0 * b * model.sequence * static_cast<double>(model.vocabulary);  // fp32 dlogits
    }
    times_[s] = {compute_time(f), compute_time(i), compute_time(w), compute_time(r)};
    if (!schedule.recompute) backward_extra_[s] = times_[s].recompute;
    stage_params_[s] = params;
    sim::StageMemory& m = memory_[s];
    m.weights = params * elem;
    m.gradients = params * elem;
    m.optimizer = params * param_bytes_other;
    m.activations = activations;
    // Recomputation restores one layer at a time (Megatron-LM's uniform method, one layer per
    // checkpoint): the difference between that layer's full and stored activations.
    m.recompute = mode == models::Recompute::None
                      ? 0.0
                      : (models::layer_activation_bytes(model, b, models::Recompute::None) -
                         models::layer_activation_bytes(model, b, mode))
                            .value;
    m.workspace = workspace;
  }

  // Optimizer step: memory-bound Adam over the parameters the worker holds. Per parameter it
  // reads and writes the optimizer state (fp32 master, m, v) and reads the gradient and writes
  // the 16-bit weight (Micikevicius et al., Mixed Precision Training, ICLR 2018; Kingma & Ba,
  // Adam, ICLR 2015): 2·(bytes_per_param − 2e) + 2e bytes. Fused multi-tensor: 2 launches per
  // stage copy (Apex FusedAdam).
  optimizer_time_.assign(static_cast<size_t>(schedule.workers), 0.0);
  std::vector<double> held(static_cast<size_t>(schedule.workers), 0.0), copies(held);
  for (int p = 0; p < schedule.pipelines; ++p) {
    for (int s = 0; s < schedule.stages; ++s) {
      const auto w = static_cast<size_t>(
          schedule.stage_worker[static_cast<size_t>(p)][static_cast<size_t>(s)]);
      held[w] += stage_params_[static_cast<size_t>(s)];
      copies[w] += 1;
    }
  }
  for (size_t w = 0; w < held.size(); ++w) {
    OpWork adam;
    adam.memory = core::Bytes(held[w] * (2 * param_bytes_other + 2 * elem));
    adam.launches = 2 * copies[w];
    optimizer_time_[w] = compute_time(adam);
  }

  // Resources: per replica-0 worker a send and a receive engine (its intra-node link ports),
  // per NIC an outgoing and an incoming direction (inter-node).
  std::map<int, int> nics;
  nic_index_.resize(static_cast<size_t>(schedule.workers));
  for (int w = 0; w < schedule.workers; ++w) {
    const auto [it, inserted] = nics.emplace(placement_.nic(0, w), static_cast<int>(nics.size()));
    nic_index_[static_cast<size_t>(w)] = it->second;
  }
  nics_ = static_cast<int>(nics.size());
  resources_ = 2 * schedule.workers + 2 * nics_;
}

double TrainingCostModel::compute_time(const OpWork& work) const {
  double t = 0;
  for (const models::Gemm& g : work.gemms) {
    if (g.flops <= 0 || g.count <= 0) continue;
    t += g.count * g.flops / (peak_ * gemm_eff_->at(g.flops));
  }
  if (work.memory.value > 0) {
    t += work.memory.value / (hw_.gpu.hbm_bandwidth * hw_.gpu.hbm_efficiency.at(work.memory.value));
  }
  return t + work.launches * hw_.gpu.kernel_launch;
}

double TrainingCostModel::gradient_bytes(int stage) const {
  return stage_params_[static_cast<size_t>(stage)] * models::precision_bytes(model_.precision);
}

double TrainingCostModel::duration(const sim::TaskGraph& graph, sim::TaskId id) const {
  const sim::Task& t = graph.task(id);
  const auto s = static_cast<size_t>(t.stage);
  switch (t.kind) {
    case sim::OpKind::Forward:
      return times_[s].forward;
    case sim::OpKind::Recompute:
      return times_[s].recompute;
    case sim::OpKind::Backward:
      return times_[s].backward_input + times_[s].backward_weight + backward_extra_[s];
    case sim::OpKind::BackwardInput:
      return times_[s].backward_input + backward_extra_[s];
    case sim::OpKind::BackwardWeight:
      return times_[s].backward_weight;
    case sim::OpKind::Optimizer:
      return optimizer_time_[static_cast<size_t>(t.worker)];
    case sim::OpKind::Transfer:
    case sim::OpKind::AllReduce: {
      const sim::Flow f = flow(graph, id);
      return f.latency + f.work;
    }
  }
  return 0.0;
}

sim::Flow TrainingCostModel::flow(const sim::TaskGraph& graph, sim::TaskId id) const {
  const sim::Task& t = graph.task(id);
  const int workers = graph.workers();
  auto port_out = [](int w) { return w; };
  auto port_in = [workers](int w) { return workers + w; };
  auto nic_out = [&](int w) { return 2 * workers + nic_index_[static_cast<size_t>(w)]; };
  auto nic_in = [&](int w) { return 2 * workers + nics_ + nic_index_[static_cast<size_t>(w)]; };
  sim::Flow f;
  if (t.kind == sim::OpKind::Transfer) {
    const bool inter = placement_.node(0, t.worker) != placement_.node(0, t.peer);
    const CommTime c =
        p2p_time(inter ? hw_.inter_node : hw_.intra_node, core::Bytes(message_bytes_), inter);
    f.latency = c.latency.value;
    f.work = c.intra.value + c.inter.value;
    if (inter) {
      f.uses = {{nic_out(t.worker), static_cast<double>(placement_.replicas_on_nic(t.worker))},
                {nic_in(t.peer), static_cast<double>(placement_.replicas_on_nic(t.peer))}};
    } else {
      f.uses = {{port_out(t.worker), 1.0}, {port_in(t.peer), 1.0}};
    }
    return f;
  }
  if (t.kind != sim::OpKind::AllReduce) return f;
  const std::vector<int>& holders = graph.group_workers()[static_cast<size_t>(t.group)];
  std::set<int> spanned;
  for (int r = 0; r < setup_.data_parallel; ++r) {
    for (int w : holders)
      spanned.insert(placement_.node(r, w));
  }
  const int ranks = static_cast<int>(holders.size()) * setup_.data_parallel;
  const CommTime c = all_reduce_time(hw_, ranks, static_cast<int>(spanned.size()),
                                     core::Bytes(gradient_bytes(t.stage)));
  f.latency = c.latency.value;
  f.work = c.intra.value + c.inter.value;
  if (f.work <= 0) return f;
  std::map<int, double> share;  // the collective's own phases never compete with each other
  auto use = [&share](int r, double x) { share[r] = std::max(share[r], x); };
  for (int w : holders) {
    if (c.intra.value > 0) {
      use(port_out(w), c.intra.value / f.work);
      use(port_in(w), c.intra.value / f.work);
    }
    if (c.inter.value > 0) {
      use(nic_out(w), c.inter.value / f.work);
      use(nic_in(w), c.inter.value / f.work);
    }
  }
  for (const auto& [r, x] : share)
    f.uses.push_back({r, x});
  return f;
}

}  // namespace pipesim::hardware
