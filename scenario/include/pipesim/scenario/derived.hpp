#pragma once
// Options that other tools' users give as a total from which pipesim's own options follow:
// Megatron-LM's global batch size (samples per iteration over every replica, G = B·N·W) and
// layers per virtual pipeline stage (k, with v = L/(D·k) chunks). They are not columns of the
// option table: resolve_derived() turns them into micro_batches and chunks before the run, so a
// run given them is the run given the options they stand for, and every output shows those.

#include <string>
#include <utility>
#include <vector>

#include "pipesim/core/option_spec.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {

//! The derived options, neutral names as Megatron-LM spells them: global_batch_size,
//! num_layers_per_virtual_pipeline_stage (integers; help text states the rule).
const std::vector<core::OptionSpec>& derived_options();

//! `s` (its options applied, `given` the option names a user set) with each derived option in
//! `derived` (name → text) turned into the option it stands for:
//! - global_batch_size G: micro_batches N = G / (B·W) (B = micro_batch_size, W = data_parallel;
//!   1 each in unit-cost mode);
//! - num_layers_per_virtual_pipeline_stage k: chunks v = L / (D·k), L the model's layers (needs
//!   a model; only for schedules that take chunks).
//! Throws core::ConfigError::option naming the derived option when the division is not exact,
//! when the option it stands for is also given with another value, or when it does not apply.
Scenario resolve_derived(Scenario s, const std::vector<std::string>& given,
                         const std::vector<std::pair<std::string, std::string>>& derived);

}  // namespace pipesim::scenario
