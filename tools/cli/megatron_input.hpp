#pragma once
// `--megatron-script FILE` and `--megatron-args "..."` on simulate, sweep and search: a
// Megatron-LM launch script or argument list read as pipesim options
// (scenario/megatron_args.hpp), the arguments it used, ignored or did not know listed in the
// output, and each unknown one warned about on stderr (`--strict`: refused).

#include <CLI/CLI.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pipesim/scenario/megatron_args.hpp"

namespace pipesim::cli {

// The flags of the readers of other frameworks' configurations: Megatron-LM's and
// torchtitan's (torchtitan_input.hpp), which share --gpus and --strict.
struct MegatronFlags {
  std::string script, args, torchtitan, gpus;
  bool strict = false;
  const CLI::Option* script_flag = nullptr;
  const CLI::Option* args_flag = nullptr;
  const CLI::Option* torchtitan_flag = nullptr;
  const CLI::Option* gpus_flag = nullptr;  //!< nullptr where the command has its own --gpus
};

//! Registers the flags on `cmd`, --torchtitan's too (--gpus when `with_gpus`).
void add_megatron_flags(CLI::App& cmd, MegatronFlags& flags, bool with_gpus);

//! The script and/or list read (the list's arguments after the script's), or nothing when
//! neither flag is given. --gpus or --strict without either (or --torchtitan) is refused, and
//! so is --torchtitan with either. Unknown arguments are
//! warned about on stderr, or refused with --strict.
std::optional<scenario::MegatronRun> read_megatron_flags(const MegatronFlags& flags);

//! --gpus as given (0 when not).
int megatron_gpus(const MegatronFlags& flags);

//! merge_megatron() into `texts`, its warnings printed on stderr.
void merge_megatron_texts(std::map<std::string, std::string>& texts, scenario::MegatronRun& run,
                          int gpus, bool layout);

//! `{used, ignored, unknown}`, each a list of the arguments as Megatron spells them.
nlohmann::ordered_json megatron_json(const scenario::MegatronRun& run);

//! The same as lines of text: "Megatron arguments (FILE): used 31: --num-layers ...".
std::string megatron_text(const scenario::MegatronRun& run);

}  // namespace pipesim::cli
