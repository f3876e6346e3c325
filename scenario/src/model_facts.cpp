#include "pipesim/scenario/model_facts.hpp"

#include <fmt/format.h>

#include <utility>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::scenario {

int moe_layers(const models::ModelSpec& model) {
  return models::moe_layer_count(model);
}

std::shared_ptr<const models::ModelSpec> model_with_layers(
    const std::shared_ptr<const models::ModelSpec>& model, int layers, const std::string& source) {
  models::ModelSpec cut = *model;
  if (layers > model->layers) {
    throw core::ConfigError(source, "model_override.layers",
                            fmt::format("{} exceeds the {} layers of model {}: a proxy has at "
                                        "most the model's layers, in [1, {}]",
                                        layers, model->layers, model->name, model->layers));
  }
  cut.layers = layers;
  if (model->is_moe() && models::moe_layer_count(cut) == 0) {
    throw core::ConfigError(
        source, "model_override.layers",
        fmt::format("{} layers of model {} hold no mixture-of-experts layer", layers, model->name));
  }
  return std::make_shared<const models::ModelSpec>(std::move(cut));
}

}  // namespace pipesim::scenario
