#include "search_limits.hpp"

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cli {

SearchLimits search_limits(const std::string& model, const std::string& hardware) {
  const models::ModelSpec spec = models::load_model(model);
  const hardware::HardwareProfile profile = hardware::load_profile(hardware);
  SearchLimits limits;
  limits.layers = spec.layers;
  // Weights, gradients and optimizer state of every parameter, at the bytes per parameter of
  // the model's precision (cost/static_memory.hpp).
  limits.static_bytes = models::model_params(spec) * cost::param_bytes(spec.precision).total();
  limits.capacity = profile.gpu.memory_bytes;
  return limits;
}

}  // namespace pipesim::cli
