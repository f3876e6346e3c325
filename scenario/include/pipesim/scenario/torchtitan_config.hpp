#pragma once
// torchtitan's job configuration (its train_configs/*.toml: [parallelism], [training],
// [activation_checkpoint], [model], [quantize], ...) read as pipesim options, the twin of the
// Megatron-LM reader (megatron_args.hpp). Every key, named `section.key` as torchtitan's
// JobConfig nests it, is one of three kinds:
// - used: it sets an option or decides one with others (`parallelism.tensor_parallel_degree`
//   → tensor_parallel and sequence parallelism, `model.flavor` → a shipped model, the batch
//   keys → micro-batches);
// - ignored: it has no effect on time or memory (learning rate, checkpoints, logging, data);
// - unknown: neither, or a value whose effect pipesim does not model (CPU offload): a front end
//   warns about each, or refuses them when strict.
// What torchtitan leaves to its defaults is read at those defaults (local batch 8, sequence
// 2048, selective checkpointing of every second layer, the 1F1B schedule), as torchtitan runs.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesim/scenario/read_settings.hpp"

namespace pipesim::scenario {

struct TorchtitanRun {
  std::string source;                 //!< the file's path
  std::vector<ReadSetting> settings;  //!< options the keys set, in the order they apply
  std::string model_name, flavor, hf_assets_path;  //!< [model]
  long dp_replicate = 1;
  long dp_shard = -1;  //!< -1: the world's GPUs left over
  long local_batch = 8;
  std::optional<long> global_batch;  //!< samples per optimizer step over every replica
  long microbatch_size = 1;
  std::optional<long> layers_per_stage;
  long first_less = 1, last_less = 1;
  //! Virtual stages per pipeline rank the schedule fixes (1; 2 for V-shaped ones); 0 when it
  //! takes any number (interleaved, looped BFS: 2 unless layers_per_stage says otherwise).
  int stages_per_rank = 1;
  //! module_fqns_per_model_part: each virtual stage's modules, in model order.
  std::vector<std::vector<std::string>> model_parts;
  int world_size = 0;              //!< merge_torchtitan() without a layout: P when known
  std::optional<long> mini_batch;  //!< ... and the samples per step when known
  std::vector<std::string> used, ignored, unknown;  //!< keys, each once, in file order
  std::map<std::string, std::string> unmodelled;    //!< unknown key → why (its value's effect)
  std::vector<std::string> warnings;
};

//! Reads the TOML file at `path`: a syntax error is refused as "PATH:LINE:COLUMN: ...", a key of
//! the wrong type or out of range as "PATH:LINE: section.key: must be ...".
TorchtitanRun read_torchtitan(const std::string& path);

//! The same from text; `source` names it in errors.
TorchtitanRun parse_torchtitan(std::string_view text, const std::string& source);

//! torchtitan's schedule names (torch.distributed.pipelining's get_schedule_class, matched
//! case-insensitively) that pipesim runs, each as PyTorch spells it.
std::vector<std::string> torchtitan_schedules();

//! Adds the run's settings to `texts` as merge_megatron() does (the user's options must agree;
//! an option this build does not have is skipped with a warning). Without a `model` in `texts`
//! the model is the shipped one of [model] name and flavor (or hf_assets_path's config.json);
//! with one, those keys move to `ignored`. Then, where `layout` (simulate, sweep): W =
//! replicate · shard degrees, the shard degree -1 being P/(replicate·T·C·D) with P = `gpus`;
//! B and N from the local and global batch (with a pipeline: B = the pipeline micro-batch
//! size); the virtual stages and their layers as torchtitan splits the model. Without
//! `layout` (search) the world size and mini-batch are set in the run where the file fixes
//! them. Returns the warnings to show.
std::vector<std::string> merge_torchtitan(std::map<std::string, std::string>& texts,
                                          TorchtitanRun& run, int gpus, bool layout);

//! torchtitan's split of L layers into `stages` virtual stages, the embedding weighing
//! `first_less` layers and the output `last_less`, as pipesim's layout text ("Et*3|t*4|t*3L").
//! Throws core::ConfigError (naming `source`) where torchtitan refuses the split.
std::string torchtitan_layout(int layers, int stages, long first_less, long last_less,
                              const std::string& source);

}  // namespace pipesim::scenario
