#include "pipesim/cost/training_cost_model.hpp"

#include <fmt/format.h>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/config_error.hpp"
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
  return param_bytes(model.precision, setup.bytes_per_param);
}

// The model's virtual stages: the hand-written layout when one is given, else the partition
// mode's split.
std::vector<models::StageLayers> stage_partition(const models::ModelSpec& model, int stages,
                                                 const TrainingSetup& setup) {
  if (setup.layout.empty()) {
    return models::partition_layers(model, stages, setup.partition, setup.micro_batch_size);
  }
  if (setup.partition != models::PartitionMode::Uniform) {
    throw core::ConfigError::option(
        "layout", "places every layer itself; leave partition at uniform when a layout is given");
  }
  return models::layout_partition(model, setup.layout, stages);
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

}  // namespace

TrainingCostModel::TrainingCostModel(const models::ModelSpec& model,
                                     const hardware::HardwareProfile& hardware,
                                     const sim::Schedule& schedule, const TrainingSetup& given)
    : model_(trained_model(model, given)),
      hw_(hardware),
      setup_(op_setup(given, schedule)),
      param_bytes_(checked_param_bytes(model_, hw_, setup_)),
      peak_(hw_.gpu.peak_flops.at(models::precision_name(model_.precision))),
      gpus_(gpu_count(setup_, schedule.workers)),
      partition_(stage_partition(model_, schedule.virtual_stages, setup_)),
      stage_params_(stage_params(model_, partition_, setup_.tensor_parallel)),
      shards_(optimizer_shards(schedule, setup_)),
      memory_(cost::stage_memory(model_, setup_, partition_, stage_params_, shards_, param_bytes_,
                                 recompute_mode(schedule, setup_))),
      compute_(model_, hw_, setup_, schedule, partition_, recompute_mode(schedule, setup_),
               stage_params_, shards_, param_bytes_),
      topology_(hw_,
                hardware::Placement{schedule.workers, setup_.data_parallel, hw_.gpus_per_node,
                                    hw_.nics_per_node, setup_.placement, setup_.tensor_parallel}),
      message_bytes_(models::p2p_message_bytes(model_, layer_config(setup_)).value),
      step_sync_(schedule.global_step_sync ? step_sync_time(hw_, gpus_) : 0.0) {}

double TrainingCostModel::duration(const sim::TaskGraph& graph, sim::TaskId id) const {
  const sim::Task& t = graph.task(id);
  switch (t.kind) {
    case sim::OpKind::Forward:
    case sim::OpKind::Backward:
    case sim::OpKind::BackwardInput:
    case sim::OpKind::BackwardWeight:
    case sim::OpKind::Recompute:
      return graph.has_collectives() ? compute_.kernels(t.stage, t.kind)
                                     : compute_.alone(t.stage, t.kind);
    case sim::OpKind::Optimizer:
      return compute_.optimizer(t.worker) + step_sync_;
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
  return 0;
}

sim::Flow TrainingCostModel::flow(const sim::TaskGraph& graph, sim::TaskId id) const {
  const sim::Task& t = graph.task(id);
  switch (t.kind) {
    case sim::OpKind::Transfer:
      return topology_.transfer(t.worker, t.peer, core::Bytes(message_bytes_));
    case sim::OpKind::AllReduce: {
      const std::vector<int>& holders = graph.group_workers()[static_cast<size_t>(t.group)];
      const int ranks = static_cast<int>(holders.size()) * setup_.data_parallel;
      const hardware::CommTime c =
          gradient_sync_time(hw_, setup_, param_bytes_, stage_params_[static_cast<size_t>(t.stage)],
                             ranks, topology_.nodes_spanned(holders));
      return topology_.collective(c, holders);
    }
    case sim::OpKind::Collective: {
      const int worker[] = {t.worker};
      return topology_.collective(compute_.collective_time(t.stage, t.carrier), worker);
    }
    default:
      return {};
  }
}

}  // namespace pipesim::cost
