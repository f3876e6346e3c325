#pragma once
// Megatron-LM's argument list (a launch script's training command or a pasted list) read as
// pipesim options. Every argument is one of three kinds:
// - used: it sets an option (`tensor_model_parallel_size` → tensor_parallel, `bf16` →
//   precision, `recompute_activations` → recompute selective, a virtual pipeline size → the
//   interleaved schedule and its chunks, ...) or the model's shape (models/megatron_model.hpp);
// - ignored: it has no effect on time or memory (learning rate, data paths, logging,
//   checkpointing, tokenizer files, seeds, evaluation): megatron_ignored();
// - unknown: neither; a front end warns about each, or refuses them when strict.
// Arguments are named by argparse's names (`num_layers`); an argument's values are the words
// up to the next argument, so `recompute_modules mlp moe` has two. An argument given twice
// with one value is fine, with two values it is refused naming both, and so are two arguments
// that set one option differently (`bf16` and `fp16`).

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipesim/models/megatron_model.hpp"
#include "pipesim/scenario/launch_script.hpp"
#include "pipesim/scenario/read_settings.hpp"

namespace pipesim::scenario {

//! An option a Megatron argument sets (`argument`: its argparse name).
using MegatronSetting = ReadSetting;

struct MegatronRun {
  std::string source;                     //!< the script's path, or "megatron arguments"
  std::string model_name;                 //!< the name the built model is registered under
  models::MegatronValues shape;           //!< the model-shape arguments given (megatron_model)
  std::vector<MegatronSetting> settings;  //!< in the order the options apply
  std::optional<long> global_batch_size;  //!< samples per iteration over every replica
  std::optional<long> layers_per_chunk;   //!< num_layers_per_virtual_pipeline_stage
  int world_size = 0;  //!< the launcher's nnodes × nproc_per_node; 0 when it does not say
  //! argparse names, each once, in the order first given.
  std::vector<std::string> used, ignored, unknown;
  std::vector<std::string> warnings;  //!< the script reader's and the mapping's
};

//! The arguments that have no effect on time or memory, and the prefixes that mark whole
//! families of them (`log_`, `wandb_`, ...).
bool megatron_ignored(const std::string& argument);

//! Reads `command`'s arguments (and its launcher's world size); `source` names the script in
//! errors ("SCRIPT: argument: problem", core::ConfigError::option with the source as context).
MegatronRun read_megatron(const LaunchCommand& command, const std::string& source,
                          const std::string& model_name);

//! Adds the run's settings to `texts` (option name → text: the options a user gave, one value
//! each, or a sweep's lists): an option the user gave must agree with the script (the same
//! value), else it is refused naming both. Then, where `layout` (simulate, sweep):
//! data_parallel W = P/(T·C·D) from `gpus` (or else the launcher's world size) and
//! micro_batches N = G/(B·W) from the global batch size, refused when they do not divide;
//! a sequence_parallel at T = 1 is turned off with a warning, as Megatron does. Without a
//! `model` in `texts`, the shape arguments build one (registered with models::register_model
//! under run.model_name, so every run of a sweep or search finds it); with one, the shape
//! arguments move to `ignored`. Returns the warnings to show.
std::vector<std::string> merge_megatron(std::map<std::string, std::string>& texts, MegatronRun& run,
                                        int gpus, bool layout);

}  // namespace pipesim::scenario
