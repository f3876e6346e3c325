#pragma once
// Models built in memory and loaded by name like the shipped ones (model_spec.hpp load_model):
// a model read from a Megatron-LM launch script reaches every run of a sweep or search, which
// load their models by name.

#include <string>

#include "pipesim/models/model_spec.hpp"

namespace pipesim::models {

//! Makes `spec` what load_model() returns for `name` for the rest of the process; a name
//! registered again is replaced. Thread-safe.
void register_model(const std::string& name, ModelSpec spec);

}  // namespace pipesim::models
