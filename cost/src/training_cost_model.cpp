#include "pipesim/cost/training_cost_model.hpp"

#include <fmt/format.h>

#include <utility>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/domain_slice.hpp"
#include "pipesim/cost/gradient_sync.hpp"
#include "pipesim/models/layout.hpp"

namespace pipesim::cost {
namespace {

// The setup the ops run at. Chimera's backward halving (schedules/src/chimera.cpp) lists the
// doubled-forward order and runs every micro-batch at B/2: compute, activations, p2p messages
// and workspace all follow from this B. The registry's constraints cannot check B (it is a
// real-cost option, not a ScheduleParams field), so the check is here.
TrainingSetup op_setup(TrainingSetup s, const sim::Schedule& schedule) {
  const int d = schedule.micro_batch_divisor;
  if (d <= 1) return s;
  if (s.micro_batch_size % d != 0) {
    throw core::ConfigError::option(
        "micro_batch_size",
        fmt::format("must be {} for schedule {} with strategy halving (every micro-batch runs "
                    "at B/{}), got {}",
                    d == 2 ? std::string("even") : fmt::format("a multiple of {}", d),
                    schedule.name, d, s.micro_batch_size));
  }
  s.micro_batch_size /= d;
  return s;
}

// The setup checked (validate_setup, and an explicit bytes per parameter that holds at least
// the weights and gradients), then its bytes per parameter.
ParamBytes checked_param_bytes(const models::ModelSpec& model, const hardware::HardwareProfile& hw,
                               const TrainingSetup& setup) {
  validate_setup(model, hw, setup);
  const double elem = models::precision_bytes(model.precision);
  if (setup.bytes_per_param > 0 && setup.bytes_per_param < 2 * elem) {
    throw core::ConfigError::option(
        "bytes_per_param",
        fmt::format("must be at least {} (weights + gradients in {}), got {}", 2 * elem,
                    models::precision_name(model.precision), setup.bytes_per_param));
  }
  return setup_param_bytes(model.precision, setup);
}

// DeepSeek-V3's multi-token prediction modules (§2.2) run after the last layer: each is one more
// layer of its kind (layer_kind numbers them on from the model's layers) and one more pass
// through the shared head on the head's stage (StageCompute). Their small 2h → h projections
// and norms are not priced. The stages holding them (a layout's `m`s; a partition's last stage)
// take them as layers, every stage's range renumbered in order (they follow every transformer
// layer).
std::vector<models::StageLayers> with_mtp(std::vector<models::StageLayers> parts) {
  int next = 0;
  for (models::StageLayers& p : parts) {
    p.first_layer = next;
    p.layers += p.mtp_layers;
    p.mtp_layers = 0;
    next += p.layers;
  }
  return parts;
}

// The model's virtual stages, multi-token prediction modules placed: the hand-written layout
// when one is given, else the partition mode's split with the modules on its last stage.
std::vector<models::StageLayers> stage_partition(const models::ModelSpec& model, int stages,
                                                 const TrainingSetup& setup) {
  if (setup.layout.empty()) {
    std::vector<models::StageLayers> parts =
        models::partition_layers(model, stages, setup.partition, setup.micro_batch_size);
    if (!parts.empty()) parts.back().mtp_layers = model.mtp_layers;
    return with_mtp(std::move(parts));
  }
  if (setup.partition != models::PartitionMode::Uniform) {
    throw core::ConfigError::option(
        "layout", "places every layer itself; leave partition at uniform when a layout is given");
  }
  return with_mtp(models::layout_partition(model, setup.layout, stages));
}

// The synchronous global check before a step: an all-reduce of two fp32 scalars (the squared
// gradient norm and the NaN/Inf flag) over every GPU, all latency. It is part of the step:
// too small to load a link, it only delays every worker's step by the same time.
double step_sync_time(const hardware::HardwareProfile& hw, int gpus) {
  const int nodes = (gpus + hw.gpus_per_node - 1) / hw.gpus_per_node;
  return hardware::all_reduce_time(hw, gpus, nodes, core::Bytes(8.0)).total().value;
}

// A schedule with R ops recomputes whatever it stored; with recompute none that is a full
// recomputation (Chimera's forward doubling).
models::Recompute recompute_mode(const sim::Schedule& schedule, const TrainingSetup& setup) {
  return schedule.recompute && setup.recompute == models::Recompute::None ? models::Recompute::Full
                                                                          : setup.recompute;
}

// The stashing optimizer holds the versions the schedule counts; the module's own weights are
// one copy more. Booked as optimizer state: the optimizer wrapper owns the clones.
std::vector<sim::StageMemory> with_working_copy(std::vector<sim::StageMemory> stages,
                                                const sim::Schedule& schedule,
                                                const TrainingSetup& setup,
                                                const std::vector<double>& params,
                                                const ParamBytes& bytes) {
  if (!setup.stash_working_copy || schedule.weight_versions.empty()) return stages;
  for (size_t s = 0; s < stages.size(); ++s)
    stages[s].optimizer += params[s] * bytes.weights;
  return stages;
}

// Activation offload moves `offload` of each stage's stored activations (not the transient
// recomputation buffers) over the host link, which the profile must give.
std::vector<sim::StageMemory> with_offload(std::vector<sim::StageMemory> stages,
                                           const TrainingSetup& setup,
                                           const hardware::HardwareProfile& hw) {
  if (!(setup.offload > 0.0)) return stages;
  if (!(setup.offload <= 1.0)) {
    throw core::ConfigError::option("offload",
                                    fmt::format("must be in [0, 1], got {}", setup.offload));
  }
  if (!hw.host_link) {
    throw core::ConfigError::option(
        "offload", fmt::format("needs links.host_link (the GPU's link to host memory) in the "
                               "hardware profile, which {} does not give",
                               hw.name));
  }
  for (sim::StageMemory& m : stages)
    m.offloaded = setup.offload * m.activations;
  return stages;
}

// The groups sharded data parallelism gathers and reduce-scatters each stage's units over, as
// the stage's gradient sync reduces (flow): its holders in one replica × W·C ranks, the routed
// experts over holders × the expert data-parallel group. None without per-op traffic.
std::vector<ShardGroup> shard_groups(const sim::Schedule& schedule, const TrainingSetup& setup,
                                     const Topology& topology, const ExpertLayout& experts) {
  const DataParallelSharding level = sharding_of(setup);
  std::vector<ShardGroup> groups;
  if (!reduces_per_backward(level) && !gathers_per_op(level)) return groups;
  for (const std::vector<int>& holders : stage_holders(schedule)) {
    const int n = static_cast<int>(holders.size());
    groups.push_back({n * setup.data_parallel * setup.context_parallel,
                      topology.nodes_spanned(holders), n * experts.expert_data_parallel(),
                      experts.edp_nodes(holders)});
  }
  return groups;
}

}  // namespace

TrainingCostModel::TrainingCostModel(const models::ModelSpec& model,
                                     const hardware::HardwareProfile& hardware,
                                     const sim::Schedule& schedule, const TrainingSetup& given)
    : model_(trained_model(model, given)),
      hw_(job_hardware(hardware, given, gpu_count(given, schedule.workers))),
      setup_(op_setup(resolved_setup(given, model_), schedule)),
      param_bytes_(checked_param_bytes(model_, hw_, setup_)),
      rank_(rank_model(model_, setup_)),
      peak_(hw_.gpu.peak_flops.at(models::precision_name(model_.precision))),
      gpus_(gpu_count(setup_, schedule.workers)),
      partition_(stage_partition(rank_, schedule.virtual_stages, setup_)),
      experts_(rank_, hw_, setup_, schedule.workers),
      stage_params_(stage_params(rank_, partition_, layer_config(setup_))),
      expert_params_(stage_expert_params(rank_, partition_, layer_config(setup_))),
      shards_(optimizer_shards(schedule, setup_, stage_params_, expert_params_,
                               experts_.expert_data_parallel())),
      memory_(with_working_copy(
          with_offload(cost::stage_memory(rank_, setup_, partition_, stage_params_, shards_,
                                          param_bytes_, recompute_mode(schedule, setup_)),
                       setup_, hw_),
          schedule, setup_, stage_params_, param_bytes_)),
      topology_(hw_, job_placement(hw_, setup_, schedule.workers)),
      compute_(rank_, hw_, setup_, schedule, partition_, recompute_mode(schedule, setup_),
               stage_params_, shards_, param_bytes_, experts_,
               shard_groups(schedule, setup_, topology_, experts_)),
      message_bytes_(models::p2p_message_bytes(rank_, layer_config(setup_)).value),
      step_sync_(schedule.global_step_sync ? step_sync_time(hw_, gpus_) : 0.0) {}

sim::GradBuckets TrainingCostModel::grad_buckets() const {
  sim::GradBuckets b;
  if (!setup_.overlap_grad_reduce) return b;
  for (double params : stage_params_)
    b.buckets.push_back(gradient_buckets(setup_, param_bytes_, params));
  b.gather_apart = setup_.distributed_optimizer;
  b.overlap_gather = setup_.overlap_param_gather;
  return b;
}

bool TrainingCostModel::exchange_apart(const sim::Task& t) const {
  return t.paired || compute_.exchange_apart();
}

double TrainingCostModel::duration(const sim::TaskGraph& graph, sim::TaskId id) const {
  const sim::Task& t = graph.task(id);
  switch (t.kind) {
    case sim::OpKind::Forward:
    case sim::OpKind::Backward:
    case sim::OpKind::BackwardInput:
    case sim::OpKind::BackwardWeight:
    case sim::OpKind::Recompute:
      // An op whose exchange runs apart (the MoE overlap, an overlapped F&B unit's half) keeps
      // its tensor- and context-parallel collectives: no other micro-batch hides them.
      if (!graph.has_collectives()) return compute_.alone(t.stage, t.kind);
      return exchange_apart(t) ? compute_.with_own_collectives(t.stage, t.kind)
                               : compute_.kernels(t.stage, t.kind);
    case sim::OpKind::Optimizer:
      return compute_.optimizer(t.worker) + step_sync_;
    case sim::OpKind::Transfer:
    case sim::OpKind::AllReduce:
    case sim::OpKind::Collective:
    case sim::OpKind::Offload:
    case sim::OpKind::Reload: {
      const sim::Flow f = flow(graph, id);
      return f.latency + f.work;
    }
  }
  return 0.0;
}

std::uint64_t TrainingCostModel::flow_key(const sim::TaskGraph& graph, sim::TaskId id) const {
  const sim::Task& t = graph.task(id);
  if (t.kind == sim::OpKind::Transfer) {
    return 1 + (static_cast<std::uint64_t>(t.worker) << 32 | static_cast<std::uint32_t>(t.peer));
  }
  if (t.kind == sim::OpKind::Collective) {
    // Bit 63 apart from the transfers' keys (workers < 2³¹); then carrier, stage, worker.
    constexpr std::uint64_t kField = (1ull << 28) - 1;
    PIPESIM_ASSERT(static_cast<std::uint64_t>(t.stage) <= kField &&
                       static_cast<std::uint64_t>(t.worker) <= kField,
                   "stage or worker beyond a collective's flow key");
    return 1ull << 63 | static_cast<std::uint64_t>(t.carrier) << 56 |
           static_cast<std::uint64_t>(t.stage) << 28 | static_cast<std::uint64_t>(t.worker);
  }
  if (t.kind == sim::OpKind::Offload || t.kind == sim::OpKind::Reload) {
    // Bits 63 and 62 (collectives have 62 clear); then direction, stage, worker.
    constexpr std::uint64_t kField = (1ull << 28) - 1;
    PIPESIM_ASSERT(static_cast<std::uint64_t>(t.stage) <= kField &&
                       static_cast<std::uint64_t>(t.worker) <= kField,
                   "stage or worker beyond an offload copy's flow key");
    return 3ull << 62 | static_cast<std::uint64_t>(t.kind == sim::OpKind::Reload) << 56 |
           static_cast<std::uint64_t>(t.stage) << 28 | static_cast<std::uint64_t>(t.worker);
  }
  return 0;
}

sim::Flow TrainingCostModel::flow(const sim::TaskGraph& graph, sim::TaskId id) const {
  const sim::Task& t = graph.task(id);
  switch (t.kind) {
    case sim::OpKind::Transfer:
      return topology_.transfer(t.worker, t.peer, core::Bytes(message_bytes_));
    case sim::OpKind::AllReduce: {
      const std::vector<int>& holders = graph.group_workers()[static_cast<size_t>(t.group)];
      // The gradients are reduced over data- × context-parallel ranks (every CP rank computes
      // gradients of the same weights from its share of the tokens).
      const int ranks =
          static_cast<int>(holders.size()) * setup_.data_parallel * setup_.context_parallel;
      const auto s = static_cast<size_t>(t.stage);
      const double experts = expert_params_[s];
      const int expert_ranks = static_cast<int>(holders.size()) * experts_.expert_data_parallel();
      // The part of the sync this task is (sim::SyncPart): the whole sync, one of the k
      // buckets (1/k of the parameters, one call), or every bucket's gather (k calls).
      const int k = t.part == sim::SyncPart::Whole
                        ? 1
                        : gradient_buckets(setup_, param_bytes_, stage_params_[s]);
      const double share = t.part != sim::SyncPart::Whole && t.micro_batch >= 0 ? 1.0 / k : 1.0;
      const DataParallelSharding level = *setup_.data_parallel_sharding;
      const auto part = [&](double params, int r, int nodes) {
        switch (t.part) {
          case sim::SyncPart::Gradients:
            // Sharded gradients were reduce-scattered by each backward.
            if (reduces_per_backward(level)) return hardware::CommTime{};
            return gradient_reduce_time(hw_, setup_, param_bytes_, params * share, r, nodes);
          case sim::SyncPart::Parameters: {
            // Sharded parameters are gathered by each op.
            if (gathers_per_op(level)) return hardware::CommTime{};
            hardware::CommTime c = param_gather_time(hw_, param_bytes_, params * share, r, nodes);
            if (t.micro_batch < 0) c.latency = c.latency * static_cast<double>(k);
            return c;
          }
          case sim::SyncPart::Whole:
            break;
        }
        return gradient_sync_time(hw_, setup_, param_bytes_, params, r, nodes);
      };
      hardware::CommTime c =
          part(stage_params_[s] - experts, ranks, topology_.nodes_spanned(holders));
      // The routed experts' gradients: over the expert data-parallel group, after the rest.
      if (experts > 0) c = c + part(experts, expert_ranks, experts_.edp_nodes(holders));
      return topology_.collective(c, holders);
    }
    case sim::OpKind::Collective: {
      const int worker[] = {t.worker};
      return topology_.collective(exchange_apart(t) ? compute_.exchange_time(t.stage, t.carrier)
                                                    : compute_.collective_time(t.stage, t.carrier),
                                  worker);
    }
    case sim::OpKind::Offload:
    case sim::OpKind::Reload:
      return topology_.host_copy(t.worker,
                                 core::Bytes(memory_[static_cast<size_t>(t.stage)].offloaded),
                                 t.kind == sim::OpKind::Offload);
    default:
      return {};
  }
}

}  // namespace pipesim::cost
