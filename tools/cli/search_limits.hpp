#pragma once
// The facts about a model and hardware that let search prune without simulating.

#include <string>

#include "search_space.hpp"

namespace pipesim::cli {

//! Layers, static bytes of the model and GPU capacity for `model` on `hardware` (names or
//! paths, as --model and --hardware take them), with the run options' default bytes per
//! parameter. Throws core::ConfigError for a model or hardware that cannot be loaded. Fields
//! this build cannot tell stay zero (unknown).
SearchLimits search_limits(const std::string& model, const std::string& hardware);

}  // namespace pipesim::cli
