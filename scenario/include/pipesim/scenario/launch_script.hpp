#pragma once
// The training command of a launch script, read without running a shell: Megatron-LM's
// examples build their arguments in bash arrays (`GPT_MODEL_ARGS=( --num-layers 96 ... )`) from
// variables (`NUM_LAYERS=32`, `${MASTER_PORT:-29500}`) and run
// `torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py ${GPT_MODEL_ARGS[@]} ...`. The reader
// follows the subset of bash those scripts are written in:
// - words: single and double quotes, backslash escapes, comments, line continuations;
// - assignments `NAME=value`, `export NAME=value`, arrays `NAME=( ... )` and `NAME+=( ... )`;
// - expansion: `$NAME`, `${NAME}`, `${NAME:-default}` (also `-`, `:=`, `:+`), `${A[@]}`,
//   `${A[*]}`, `${A[i]}`, `${#A[@]}`, `$((arithmetic))`; unquoted expansions split into words
//   (a quoted array element "--fp8-format hybrid" expanded unquoted gives two words, as in
//   bash); positional parameters and the environment are empty, so defaults apply; a command
//   substitution `$(...)` is not run and expands to nothing;
// - `if`/`elif`/`else`/`fi` over `[[ ]]`, `[ ]` tests (`==`, `=`, `!=`, `-n`, `-z`, integer
//   comparisons, `!`, `&&`, `||`; file tests are taken as true: the script runs where its files
//   are); loops, `case` and functions are skipped with a warning.
// The training command is the last one whose first word is a launcher (torchrun, python*, srun,
// mpirun, deepspeed, accelerate, uv) or a .py file, and that names a .py entry point: the words
// before the entry point are the launcher's, those after it the training arguments.

#include <string>
#include <string_view>
#include <vector>

namespace pipesim::scenario {

struct LaunchCommand {
  std::vector<std::string> launcher;  //!< words before the entry point (torchrun and its own)
  std::string entry_point;            //!< "pretrain_gpt.py"; "" for a list without one
  std::vector<std::string> args;      //!< the entry point's arguments
  std::vector<std::string> warnings;  //!< what the reader skipped (loops, an unknown test)
};

//! `text` split into words as bash splits one command line (quotes, escapes, comments, line
//! continuations), with no expansion. Throws core::ConfigError(source, "quoting", ...) for an
//! unclosed quote.
std::vector<std::string> split_words(std::string_view text, const std::string& source);

//! A pasted argument list: its words; when one ends in .py, the words before it are the
//! launcher's and those after it the arguments.
LaunchCommand parse_argument_list(std::string_view text, const std::string& source);

//! The training command of a launch script's text (see above); `source` names it in errors.
//! Throws core::ConfigError(source, ...) when it has none or cannot be read as bash.
LaunchCommand parse_launch_script(std::string_view text, const std::string& source);

//! parse_launch_script() of the file at `path` (ConfigError "PATH: file: no such file").
LaunchCommand read_launch_script(const std::string& path);

}  // namespace pipesim::scenario
