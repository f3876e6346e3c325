#pragma once
// The facts about a model and hardware that let search prune without simulating.

#include <memory>
#include <string>

#include "pipesim/cost/training_setup.hpp"
#include "pipesim/explore/search_space.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"

namespace pipesim::explore {

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

}  // namespace pipesim::explore
