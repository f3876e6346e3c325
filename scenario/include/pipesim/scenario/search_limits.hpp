#pragma once
// The facts about a model and hardware that let search prune without simulating: the cost
// model's own figures and checks, so that search reaches the model only through
// scenario.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"

namespace pipesim::scenario {

//! How a configuration splits its GPUs besides the pipeline: a worker is tensor·context GPUs;
//! the expert layers fold expert_tensor × expert over a stage's tensor·W GPUs.
struct Parallelism {
  int tensor = 1;         //!< T
  int context = 1;        //!< C
  int expert = 1;         //!< E (e)
  int expert_tensor = 1;  //!< e_t
  int gpus_per_worker() const { return tensor * context; }
};

//! An option search tries around its best configurations instead of in the whole product (a
//! secondary knob: search.hpp, "Refinement"); values.front() is the one every first-pass
//! candidate runs with, the option's default.
struct SearchKnob {
  std::string option;
  std::vector<std::string> values;
};

//! What search knows about the model and hardware, from the performance model; a zero or an
//! empty function means unknown and switches that pruning rule off.
struct SearchLimits {
  int experts = 0;        //!< routed experts per MoE layer (0: a dense model)
  int expert_ffn = 0;     //!< FFN size of one routed expert
  int gpus_per_node = 0;  //!< GPUs of one NVLink domain
  int sequence = 0;       //!< tokens per sample, as trained
  //! The secondary knobs that apply to the model and hardware, in the order they are tried.
  std::vector<SearchKnob> knobs;
  int layers = 0;  //!< transformer layers L (D ≤ L)
  //! The most virtual stages (D · chunks) the partition mode splits the layers into.
  int virtual_stages = 0;
  double static_bytes = 0.0;  //!< weights + gradients + optimizer of the whole model, bytes
  double capacity = 0.0;      //!< memory per GPU, bytes
  //! Weights + gradients + optimizer one GPU holds of the whole model under a layout (summed
  //! over the stages, so the fullest of D stages holds at least 1/D of it); empty:
  //! static_bytes / T.
  std::function<double(const Parallelism&)> static_bytes_per_gpu;
  //! Activations one GPU stores of the whole model for one micro-batch of `micro_batch`
  //! samples with full recomputation (the least any mode stores), summed over the layers;
  //! empty: 0 (no activation term in the bound).
  std::function<double(const Parallelism&, int micro_batch)> activation_bytes_per_gpu;
  //! The profile's overheads on a peak (hardware MemoryOverhead): peak + reserved + frag·peak.
  double reserved_bytes = 0.0;
  double fragmentation = 0.0;
  //! Why the cost model refuses a layout ("" when it accepts it): with stages = 0 the checks
  //! that hold for any D and W, else those of the placement of D stages × W replicas.
  std::function<std::string(const Parallelism&, int stages, int width)> refuse;
};

//! Layers, static bytes of the model and GPU capacity for `model` on `hardware` under `fixed`
//! (the options every candidate shares: precision, sequence, attention, bytes per parameter,
//! distributed optimizer, ...; its parallel degrees are replaced by each layout's); the
//! per-layout static bytes and the layout checks are the cost model's own
//! (cost::validate_setup, cost::ExpertLayout), so search refuses exactly what a simulation
//! would, and keeps `model` and `hardware` alive for them. A distributed optimizer shards the
//! state over W, which the whole-state bound does not know: it then prunes on activations only.
SearchLimits search_limits(std::shared_ptr<const models::ModelSpec> model,
                           std::shared_ptr<const hardware::HardwareProfile> hardware,
                           const cost::TrainingSetup& fixed = {});

//! The model as every candidate trains it (precision, sequence, vocabulary from `setup`);
//! throws core::ConfigError for a model file without a sequence that `setup` does not give.
using cost::trained_model;

//! The tensor-parallel degrees search tries when none are given: the powers of two T <= P that
//! divide P, the GPUs of a node, the heads, the key/value heads and the FFN size (what one
//! tensor-parallel group can split); {} when that is only T = 1.
std::vector<int> default_tensor_parallel(const models::ModelSpec& model,
                                         const hardware::HardwareProfile& hardware, int gpus);

}  // namespace pipesim::scenario
