#include "pipesim/explore/search_limits.hpp"

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::explore {

SearchLimits search_limits(const models::ModelSpec& spec,
                           const hardware::HardwareProfile& profile) {
  SearchLimits limits;
  limits.layers = spec.layers;
  // Weights, gradients and optimizer state of every parameter, at the bytes per parameter of
  // the model's precision (cost/static_memory.hpp).
  limits.static_bytes = models::model_params(spec) * cost::param_bytes(spec.precision).total();
  limits.capacity = profile.gpu.memory_bytes;
  return limits;
}

}  // namespace pipesim::explore
