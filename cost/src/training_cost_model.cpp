#include "pipesim/cost/training_cost_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/kernel_time.hpp"
#include "pipesim/cost/tensor_parallel.hpp"

namespace pipesim::cost {
namespace {

hardware::CommTime sum(hardware::CommTime a, const hardware::CommTime& b) {
  a.latency += b.latency;
  a.intra += b.intra;
  a.inter += b.inter;
  return a;
}

// The setup the ops run at. Chimera's backward halving (schedules/src/chimera.cpp) lists the
// doubled-forward order and runs every micro-batch at B/2: compute, activations, p2p messages
// and workspace all follow from this B. The registry's constraints cannot check B (it is a
// real-cost option, not a ScheduleParams field), so the check is here.
TrainingSetup op_setup(TrainingSetup s, const sim::Schedule& schedule) {
  const int d = schedule.micro_batch_divisor;
  if (d <= 1) return s;
  if (s.micro_batch_size % d != 0) {
    throw core::ConfigError(
        "command line", "micro_batch_size",
        fmt::format("must be {} for schedule {} with strategy halving (every micro-batch runs "
                    "at B/{}), got {}",
                    d == 2 ? std::string("even") : fmt::format("a multiple of {}", d),
                    schedule.name, d, s.micro_batch_size));
  }
  s.micro_batch_size /= d;
  return s;
}

}  // namespace

TrainingCostModel::TrainingCostModel(const models::ModelSpec& model,
                                     const hardware::HardwareProfile& hardware,
                                     const sim::Schedule& schedule, const TrainingSetup& given)
    : model_(trained_model(model, given)), hw_(hardware), setup_(op_setup(given, schedule)) {
  const TrainingSetup& setup = setup_;
  validate_setup(model_, hw_, setup_);
  const std::string dtype = models::precision_name(model_.precision);
  peak_ = hw_.gpu.peak_flops.at(dtype);
  const double elem = models::precision_bytes(model_.precision);
  if (setup.bytes_per_param > 0 && setup.bytes_per_param < 2 * elem) {
    throw core::ConfigError("command line", "--bytes-per-param",
                            fmt::format("must be at least {} (weights + gradients in {}), got {}",
                                        2 * elem, dtype, setup.bytes_per_param));
  }
  param_bytes_ = param_bytes(model_.precision, setup.bytes_per_param);
  const int t = setup.tensor_parallel;
  placement_ = hardware::Placement{schedule.workers,  setup.data_parallel, hw_.gpus_per_node,
                                   hw_.nics_per_node, setup.placement,     t};
  const models::LayerConfig cfg = layer_config(setup);
  partition_ = models::partition_layers(model_, schedule.virtual_stages, setup.partition,
                                        setup.micro_batch_size);
  // A schedule with R ops recomputes whatever it stored; with recompute none that is a full
  // recomputation (Chimera's forward doubling).
  const models::Recompute mode = schedule.recompute && setup.recompute == models::Recompute::None
                                     ? models::Recompute::Full
                                     : setup.recompute;

  // One layer on one GPU: its kernels, plus its tensor-parallel collectives on the critical
  // path (tensor_parallel.hpp) — or, overlapped with the GEMMs (tp_comm_overlap), whichever of
  // the two takes longer.
  const double tp = tp_collective_time(hw_, model_, cfg);
  const auto with_tp = [&](double kernels, int collectives) {
    const double comm = collectives * tp;
    return setup.tp_comm_overlap ? std::max(kernels, comm) : kernels + comm;
  };
  const double layer_f =
      with_tp(compute_time(models::layer_forward(model_, cfg)), kTpCollectivesForward);
  const double layer_i =
      with_tp(compute_time(models::layer_backward_input(model_, cfg)), kTpCollectivesBackward);
  const double layer_w = compute_time(models::layer_backward_weight(model_, cfg));
  const double layer_r = with_tp(compute_time(models::layer_recompute(model_, cfg, mode)),
                                 mode == models::Recompute::Full ? kTpCollectivesForward : 0);
  const double layer_act = models::layer_activation_bytes(model_, cfg, mode).value;
  message_bytes_ = models::p2p_message_bytes(model_, cfg).value;
  const auto stages = static_cast<size_t>(schedule.virtual_stages);
  times_.resize(stages);
  backward_extra_.assign(stages, 0.0);
  stage_params_.assign(stages, 0.0);
  memory_.resize(stages);

  // Ranks of each stage's gradient sync in one replica (Chimera: 2 per replica).
  std::vector<std::set<int>> holders(stages);
  for (int p = 0; p < schedule.pipelines; ++p) {
    for (size_t s = 0; s < stages; ++s) {
      holders[s].insert(schedule.stage_worker[static_cast<size_t>(p)][s]);
    }
  }
  auto optimizer_shards = [&](size_t s) {
    return setup.distributed_optimizer
               ? static_cast<double>(holders[s].size()) * setup.data_parallel
               : 1.0;
  };

  for (size_t s = 0; s < stages; ++s) {
    const models::StageLayers& part = partition_[s];
    const double L = part.layers;
    StageTimes st{L * layer_f, L * layer_i, L * layer_w, L * layer_r};
    double params = L * models::layer_params_per_gpu(model_, t);
    double activations = L * layer_act;
    double workspace = 2 * message_bytes_;  // send and receive buffers
    if (part.embedding) {
      // The vocabulary-parallel embedding sums its t partial lookups: one collective.
      st.forward += compute_time(models::embedding_forward(model_, cfg)) + tp;
      st.backward_weight += compute_time(models::embedding_backward_weight(model_, cfg));
      params += models::embedding_params_per_gpu(model_, t);
      activations += models::embedding_activation_bytes(model_, cfg).value;
    }
    if (part.head) {
      st.forward += compute_time(models::head_forward(model_, cfg));
      // The head's input gradient sums over the t vocabulary slices: one collective.
      st.backward_input += compute_time(models::head_backward_input(model_, cfg)) + tp;
      st.backward_weight += compute_time(models::head_backward_weight(model_, cfg));
      params += models::head_params_per_gpu(model_, t);
      // A tied head on its own stage keeps a copy of the embedding (Megatron-LM does).
      if (model_.tied_embeddings && !part.embedding) {
        params += static_cast<double>(model_.vocabulary) * model_.hidden / t;
      }
      activations += models::head_activation_bytes(model_, cfg).value;
      workspace += 4.0 * setup.micro_batch_size * model_.sequence *
                   static_cast<double>(model_.vocabulary) / t;  // fp32 dlogits
    }
    times_[s] = st;
    if (!schedule.recompute) backward_extra_[s] = st.recompute;
    stage_params_[s] = params;
    sim::StageMemory& m = memory_[s];
    m.weights = params * param_bytes_.weights;
    m.gradients = params * param_bytes_.gradients;
    m.optimizer = params * param_bytes_.optimizer / optimizer_shards(s);
    m.activations = activations;
    // Recomputation restores one layer at a time (Megatron-LM's uniform method, one layer per
    // checkpoint): the difference between that layer's full and stored activations.
    m.recompute = mode == models::Recompute::None
                      ? 0.0
                      : (models::layer_activation_bytes(model_, cfg, models::Recompute::None) -
                         models::layer_activation_bytes(model_, cfg, mode))
                            .value;
    m.workspace = workspace;
  }

  // Optimizer step: memory-bound Adam over the parameters (or, sharded, the slice) the worker
  // updates. Per parameter it reads and writes the optimizer state, reads the gradient and
  // writes the weight (Micikevicius et al., Mixed Precision Training, ICLR 2018; Kingma & Ba,
  // Adam, ICLR 2015). Fused multi-tensor: 2 launches per stage copy (Apex FusedAdam).
  const double adam_bytes =
      2 * param_bytes_.optimizer + param_bytes_.gradients + param_bytes_.weights;
  std::vector<models::KernelList> adam(static_cast<size_t>(schedule.workers));
  for (int p = 0; p < schedule.pipelines; ++p) {
    for (size_t s = 0; s < stages; ++s) {
      const auto w = static_cast<size_t>(schedule.stage_worker[static_cast<size_t>(p)][s]);
      models::LayerKernel k;
      k.name = "adam";
      k.op = models::MemoryOp::other;
      k.bytes =
          static_cast<std::int64_t>(0.5 * stage_params_[s] * adam_bytes / optimizer_shards(s));
      adam[w].push_back(k);
      adam[w].push_back(k);
    }
  }
  optimizer_time_.assign(adam.size(), 0.0);
  for (size_t w = 0; w < adam.size(); ++w)
    optimizer_time_[w] = compute_time(adam[w]);

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

double TrainingCostModel::compute_time(const models::KernelList& kernels) const {
  if (model_.precision != models::Precision::FP8) {
    return kernel_time(kernels, hw_.gpu, models::precision_name(model_.precision),
                       hw_.framework.op_overhead);
  }
  // fp8 training (Transformer Engine): the linear layers' GEMMs run in fp8, everything else
  // (attention, LM head, memory-bound kernels) in bf16.
  models::KernelList fp8, bf16;
  for (const models::LayerKernel& k : kernels)
    (k.linear ? fp8 : bf16).push_back(k);
  return kernel_time(fp8, hw_.gpu, "fp8", hw_.framework.op_overhead) +
         kernel_time(bf16, hw_.gpu, "bf16", hw_.framework.op_overhead);
}

hardware::CommTime TrainingCostModel::gradient_sync(int ranks, int nodes, int stage) const {
  const double params = stage_params_[static_cast<size_t>(stage)];
  const core::Bytes grads(params * param_bytes_.gradients);
  hardware::CommTime c =
      !setup_.distributed_optimizer
          ? hardware::all_reduce_time(hw_, ranks, nodes, grads)
          // ZeRO-1: reduce-scatter the gradients, all-gather the updated parameters.
          : sum(hardware::reduce_scatter_time(hw_, ranks, nodes, grads),
                hardware::all_gather_time(hw_, ranks, nodes,
                                          core::Bytes(params * param_bytes_.gathered)));
  // k equal buckets: every formula is α-terms + bytes-linear terms, so k calls of G/k bytes
  // cost k times the latency and the same bandwidth time.
  if (setup_.grad_bucket_bytes > 0 && grads.value > 0)
    c.latency = c.latency * std::ceil(grads.value / setup_.grad_bucket_bytes);
  return c;
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
    case sim::OpKind::AllReduce:
    case sim::OpKind::Collective: {
      const sim::Flow f = flow(graph, id);
      return f.latency + f.work;
    }
  }
  return 0.0;
}

std::uint64_t TrainingCostModel::flow_key(const sim::TaskGraph& graph, sim::TaskId id) const {
  const sim::Task& t = graph.task(id);
  if (t.kind != sim::OpKind::Transfer) return 0;
  return 1 + (static_cast<std::uint64_t>(t.worker) << 32 | static_cast<std::uint32_t>(t.peer));
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
    const hardware::CommTime c = hardware::p2p_time(inter ? hw_.inter_node : hw_.intra_node,
                                                    core::Bytes(message_bytes_), inter);
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
  const hardware::CommTime c = gradient_sync(ranks, static_cast<int>(spanned.size()), t.stage);
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
