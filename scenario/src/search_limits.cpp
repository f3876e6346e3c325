#include "pipesim/scenario/search_limits.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/expert_parallel.hpp"
#include "pipesim/cost/stage_memory.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::scenario {
namespace {

// The setup a candidate of this layout runs (the shared options, the layout's degrees; flash
// attention with context parallelism, as the candidate sets it), attention resolved from the
// model file where not given.
cost::TrainingSetup setup_of(const cost::TrainingSetup& fixed, const models::ModelSpec& model,
                             const Parallelism& x) {
  cost::TrainingSetup s = fixed;
  s.tensor_parallel = x.tensor;
  s.context_parallel = x.context;
  s.expert_parallel = x.expert;
  s.expert_tensor_parallel = x.expert_tensor;
  if (x.context > 1) s.attention = models::Attention::Flash;
  return cost::resolved_setup(s, model);
}

// The secondary knobs that apply to `m`: where its workers sit, how its layers split, and for
// an MoE model how tokens reach the experts and whether that overlaps; which modules a
// selective recomputation re-runs (growing sets, each one Megatron-Core accepts for `m`).
std::vector<SearchKnob> knobs_of(const models::ModelSpec& m) {
  std::vector<SearchKnob> knobs;
  knobs.push_back({"placement", {"data-major", "pipeline-major"}});
  SearchKnob partition{"partition",
                       {"uniform", "account-ends", "account-embedding", "account-loss"}};
  if (!m.is_moe()) partition.values.push_back("balanced");  // refused for MoE models
  knobs.push_back(std::move(partition));
  SearchKnob modules{"recompute_modules", {"core_attn"}};
  if (m.is_moe()) {
    knobs.push_back({"moe_dispatcher", {"alltoall", "deepep", "hybridep"}});
    knobs.push_back({"moe_overlap", {"off", "on"}});
    std::string most = "core_attn,moe_act,layernorm";
    if (m.is_mla()) most += ",mla_up_proj";
    if (m.moe.shared_experts > 0) most += ",shared_experts";
    modules.values.insert(modules.values.end(),
                          {"core_attn,moe_act", "core_attn,moe_act,layernorm", most});
  } else {
    modules.values.insert(modules.values.end(),
                          {"core_attn,layernorm", "core_attn,mlp", "core_attn,layernorm,mlp"});
  }
  modules.values.erase(std::unique(modules.values.begin(), modules.values.end()),
                       modules.values.end());
  knobs.push_back(std::move(modules));
  return knobs;
}

}  // namespace

SearchLimits search_limits(std::shared_ptr<const models::ModelSpec> model,
                           std::shared_ptr<const hardware::HardwareProfile> hardware,
                           const cost::TrainingSetup& fixed) {
  SearchLimits limits;
  const models::ModelSpec trained = cost::trained_model(*model, fixed);
  limits.layers = trained.layers;
  limits.experts = trained.is_moe() ? trained.moe.experts : 0;
  limits.expert_ffn = trained.is_moe() ? trained.moe.ffn_hidden : 0;
  limits.gpus_per_node = hardware->gpus_per_node;
  limits.sequence = trained.sequence;
  limits.knobs = knobs_of(trained);
  // A layout places the layers itself (and is checked when simulated).
  if (fixed.layout.empty()) {
    limits.virtual_stages = models::max_partition_stages(trained, fixed.partition);
  }
  limits.capacity = hardware->gpu.memory_bytes;
  // Weights, gradients and optimizer state of every parameter, at the bytes per parameter
  // given or those of the precision trained (cost/static_memory.hpp).
  const double bytes_per_param = fixed.bytes_per_param > 0
                                     ? fixed.bytes_per_param
                                     : cost::setup_param_bytes(trained.precision, fixed).total();
  if (cost::sharding_of(fixed) == cost::DataParallelSharding::None) {
    limits.static_bytes = models::model_params(trained) * bytes_per_param;
    limits.static_bytes_per_gpu = [model, fixed, bytes_per_param](const Parallelism& x) {
      const cost::TrainingSetup setup = setup_of(fixed, *model, x);
      const models::ModelSpec m = cost::trained_model(*model, setup);
      // The whole model as one stage, per GPU: the cost model's stage parameters (dense parts
      // over T, routed experts over E·e_t). A tied head on another stage only adds to a stage.
      const std::vector<models::StageLayers> whole{{0, m.layers, true, true}};
      return cost::stage_params(m, whole, cost::layer_config(setup)).front() * bytes_per_param;
    };
  }
  limits.activation_bytes_per_gpu = [model, fixed](const Parallelism& x, int micro_batch) {
    cost::TrainingSetup setup = setup_of(fixed, *model, x);
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
  limits.refuse = [model, hardware, fixed](const Parallelism& x, int stages,
                                           int width) -> std::string {
    const cost::TrainingSetup setup = setup_of(fixed, *model, x);
    try {
      if (stages == 0) {
        cost::validate_setup(cost::trained_model(*model, setup), *hardware, setup);
      } else if (model->is_moe()) {
        cost::TrainingSetup job = setup;
        job.data_parallel = width;
        const models::ModelSpec as_trained = cost::trained_model(*model, job);
        (void)cost::ExpertLayout(cost::rank_model(as_trained, job),
                                 cost::job_hardware(*hardware, job, cost::gpu_count(job, stages)),
                                 job, stages);
      }
    } catch (const core::ConfigError& e) {
      return e.field() + ": " + e.problem();
    }
    return {};
  };
  return limits;
}

std::vector<int> default_tensor_parallel(const models::ModelSpec& model,
                                         const hardware::HardwareProfile& hardware, int gpus) {
  std::vector<int> degrees;
  const int node = hardware.gpus_per_node;
  for (int t = 1; t <= gpus && t <= node; t *= 2) {
    const bool splits = gpus % t == 0 && node % t == 0 && model.heads % t == 0 &&
                        model.kv_heads % t == 0 && model.ffn_hidden % t == 0;
    if (splits) degrees.push_back(t);
  }
  if (degrees.size() <= 1) degrees.clear();
  return degrees;
}

}  // namespace pipesim::scenario
