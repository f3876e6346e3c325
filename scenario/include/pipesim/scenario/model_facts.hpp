#pragma once
// What callers above scenario (validation, report's text) ask of a loaded model, so
// that they reach models/ only through scenario.

#include <memory>
#include <string>

#include "pipesim/models/model_spec.hpp"

namespace pipesim::scenario {

//! The layers of `model` that are mixture-of-experts layers (0 for a dense model).
int moe_layers(const models::ModelSpec& model);

//! `model` cut to its first `layers` layers (a proxy of it; its FLOP counts read the cut model
//! too). Throws core::ConfigError (`source`, model_override.layers) when `layers` exceeds the
//! model's, or when the cut of an MoE model holds no mixture-of-experts layer.
std::shared_ptr<const models::ModelSpec> model_with_layers(
    const std::shared_ptr<const models::ModelSpec>& model, int layers, const std::string& source);

}  // namespace pipesim::scenario
