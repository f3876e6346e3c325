#include "pipesim/explore/search_limits.hpp"

#include "pipesim/hardware/profile.hpp"
#include "pipesim/hardware/training_cost_model.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::explore {

SearchLimits search_limits(const models::ModelSpec& spec,
                           const hardware::HardwareProfile& profile) {
  SearchLimits limits;
  limits.layers = spec.layers;
  // Weights, gradients and optimizer state of every parameter, at the default bytes per
  // parameter (the option bytes_per_param; mixed-precision Adam: 16).
  limits.static_bytes = models::model_params(spec) * hardware::TrainingSetup{}.bytes_per_param;
  limits.capacity = profile.gpu.memory_bytes;
  return limits;
}

}  // namespace pipesim::explore
