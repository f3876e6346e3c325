#pragma once
// `--torchtitan FILE` on simulate, sweep and search: a torchtitan job config read as pipesim
// options (scenario/torchtitan_config.hpp), its keys listed as used, ignored or unknown in the
// output, each unknown one warned about on stderr (`--strict`: refused). It shares --gpus and
// --strict with the Megatron-LM reader's flags (megatron_input.hpp).

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "megatron_input.hpp"
#include "pipesim/scenario/torchtitan_config.hpp"

namespace pipesim::cli {

//! The config read, or nothing when --torchtitan is not given.
std::optional<scenario::TorchtitanRun> read_torchtitan_flags(const MegatronFlags& flags);

//! merge_torchtitan() into `texts`, its warnings printed on stderr.
void merge_torchtitan_texts(std::map<std::string, std::string>& texts, scenario::TorchtitanRun& run,
                            int gpus, bool layout);

//! `{source, used, ignored, unknown}`, each a list of dotted keys (`parallelism.
//! tensor_parallel_degree`).
nlohmann::ordered_json torchtitan_json(const scenario::TorchtitanRun& run);

//! The same as lines of text: "torchtitan config (FILE)" and "  used 12: training.seq_len ...".
std::string torchtitan_text(const scenario::TorchtitanRun& run);

}  // namespace pipesim::cli
