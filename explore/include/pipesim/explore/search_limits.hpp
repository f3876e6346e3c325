#pragma once
// The facts about a model and hardware that let search prune without simulating.

#include <string>

#include "pipesim/explore/search_space.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"

namespace pipesim::explore {

//! Layers, static bytes of the model and GPU capacity for `model` on `hardware`, with the
//! options' default bytes per parameter.
SearchLimits search_limits(const models::ModelSpec& model,
                           const hardware::HardwareProfile& hardware);

}  // namespace pipesim::explore
