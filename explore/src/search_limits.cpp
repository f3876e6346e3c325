#include "pipesim/explore/search_limits.hpp"

#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/expert_parallel.hpp"
#include "pipesim/cost/stage_memory.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::explore {
namespace {

// The setup a candidate of this layout runs (every other option at its default; flash
// attention with context parallelism, as the candidate sets it).
cost::TrainingSetup setup_of(const Parallelism& x) {
  cost::TrainingSetup s;
  s.tensor_parallel = x.tensor;
  s.context_parallel = x.context;
  s.expert_parallel = x.expert;
  s.expert_tensor_parallel = x.expert_tensor;
  if (x.context > 1) s.attention = models::Attention::Flash;
  return s;
}

}  // namespace

SearchLimits search_limits(std::shared_ptr<const models::ModelSpec> model,
                           std::shared_ptr<const hardware::HardwareProfile> hardware) {
  SearchLimits limits;
  limits.layers = model->layers;
  // Weights, gradients and optimizer state of every parameter, at the bytes per parameter of
  // the model's precision (cost/static_memory.hpp).
  const double bytes_per_param = cost::param_bytes(model->precision).total();
  limits.static_bytes = models::model_params(*model) * bytes_per_param;
  limits.capacity = hardware->gpu.memory_bytes;
  limits.static_bytes_per_gpu = [model, bytes_per_param](const Parallelism& x) {
    // The whole model as one stage, per GPU: the cost model's stage parameters (dense parts
    // over T, routed experts over E·e_t). A tied head on another stage only adds to a stage.
    const std::vector<models::StageLayers> whole{{0, model->layers, true, true}};
    return cost::stage_params(*model, whole, cost::layer_config(setup_of(x))).front() *
           bytes_per_param;
  };
  limits.activation_bytes_per_gpu = [model](const Parallelism& x, int micro_batch) {
    cost::TrainingSetup setup = setup_of(x);
    setup.micro_batch_size = micro_batch;
    // Full recomputation keeps the least of any mode, and a scheme may recompute whatever the
    // option says (Chimera's forward doubling does).
    setup.recompute = models::Recompute::Full;
    // One context-parallel rank's share of the sequence, as the cost model prices it.
    const models::ModelSpec rank = cost::rank_model(cost::trained_model(*model, setup), setup);
    const models::LayerConfig cfg = cost::layer_config(setup);
    const int moe = models::moe_layer_count(rank);
    double bytes = models::embedding_activation_bytes(rank, cfg).value +
                   models::head_activation_bytes(rank, cfg).value;
    if (moe > 0) {
      bytes +=
          moe *
          models::layer_activation_bytes(rank, cfg, setup.recompute, models::LayerKind::Moe).value;
    }
    if (rank.layers > moe) {
      bytes += (rank.layers - moe) *
               models::layer_activation_bytes(rank, cfg, setup.recompute, models::LayerKind::Dense)
                   .value;
    }
    return bytes;
  };
  limits.reserved_bytes = hardware->memory.reserved_bytes;
  limits.fragmentation = hardware->memory.fragmentation;
  limits.refuse = [model, hardware](const Parallelism& x, int stages, int width) -> std::string {
    const cost::TrainingSetup setup = setup_of(x);
    try {
      if (stages == 0) {
        cost::validate_setup(cost::trained_model(*model, setup), *hardware, setup);
      } else if (model->is_moe()) {
        const hardware::Placement placement{
            stages,   width,    hardware->gpus_per_node, hardware->nics_per_node, setup.placement,
            x.tensor, x.context};
        (void)cost::ExpertLayout(cost::rank_model(*model, setup), placement, setup);
      }
    } catch (const core::ConfigError& e) {
      return e.field() + ": " + e.problem();
    }
    return {};
  };
  return limits;
}

}  // namespace pipesim::explore
