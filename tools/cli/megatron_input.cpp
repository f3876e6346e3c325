#include "megatron_input.hpp"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <iostream>

#include "argument_lists.hpp"
#include "flags.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/option_spec.hpp"
#include "pipesim/scenario/launch_script.hpp"

namespace pipesim::cli {
namespace {

std::vector<std::string> spelled(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names)
    out.push_back(flag_of(n));
  return out;
}

}  // namespace

void add_megatron_flags(CLI::App& cmd, MegatronFlags& flags, bool with_gpus) {
  const char* group = "Megatron-LM";
  flags.script_flag =
      cmd.add_option("--megatron-script", flags.script,
                     "A Megatron-LM launch script (bash: arrays, variables, the torchrun ... "
                     "pretrain_gpt.py command): its arguments set the options and, without "
                     "--model, the model's shape; options given here must agree with it")
          ->type_name("FILE")
          ->group(group);
  flags.args_flag =
      cmd.add_option(
             "--megatron-args", flags.args,
             "Megatron-LM's arguments as one quoted text, as on its command line (read after "
             "--megatron-script's when both are given)")
          ->type_name("TEXT")
          ->group(group);
  flags.torchtitan_flag =
      cmd.add_option("--torchtitan", flags.torchtitan,
                     "A torchtitan job config (TOML: [parallelism], [training], "
                     "[activation_checkpoint], [model] name and flavor, ...): its keys set the "
                     "options and the model; options given here must agree with it")
          ->type_name("FILE")
          ->group("torchtitan");
  cmd.add_flag("--strict", flags.strict,
               "With --megatron-* or --torchtitan: an argument or key pipesim does not know is an "
               "error (exit 2), not a warning")
      ->group(group);
  if (with_gpus) {
    flags.gpus_flag =
        cmd.add_option("--gpus", flags.gpus,
                       "With --megatron-* or --torchtitan: the world size P, data-parallel W = "
                       "P/(T·C·D) (default: the script's launcher, nodes x processes per node; "
                       "torchtitan's degrees when none is -1)")
            ->type_name("INT")
            ->group(group);
  }
}

int megatron_gpus(const MegatronFlags& flags) {
  if (flags.gpus_flag == nullptr || flags.gpus_flag->count() == 0) return 0;
  return static_cast<int>(core::parse_int("gpus", flags.gpus, 1, 1 << 20));
}

std::optional<scenario::MegatronRun> read_megatron_flags(const MegatronFlags& flags) {
  const bool script = flags.script_flag->count() > 0;
  const bool list = flags.args_flag->count() > 0;
  const bool torchtitan = flags.torchtitan_flag->count() > 0;
  if ((script || list) && torchtitan) {
    throw core::ConfigError("command line", "--torchtitan",
                            "reads a torchtitan config; give it or a Megatron-LM script or list, "
                            "not both");
  }
  if (!script && !list) {
    if (torchtitan) return std::nullopt;
    if (flags.gpus_flag != nullptr && flags.gpus_flag->count() > 0) {
      throw core::ConfigError("command line", "--gpus",
                              "needs --megatron-script, --megatron-args or --torchtitan "
                              "(otherwise give --data-parallel)");
    }
    if (flags.strict) {
      throw core::ConfigError("command line", "--strict",
                              "needs --megatron-script, --megatron-args or --torchtitan");
    }
    return std::nullopt;
  }
  scenario::LaunchCommand command;
  std::string source = "megatron arguments";
  std::string model = "megatron-args";
  if (script) {
    command = scenario::read_launch_script(flags.script);
    source = flags.script;
    // A model name is a value of sweep lists and ranges: no ',' or ':' in it.
    model = "megatron-" + std::filesystem::path(flags.script).stem().string();
    for (char& c : model) {
      if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_' && c != '.')
        c = '_';
    }
  }
  if (list) {
    const scenario::LaunchCommand pasted =
        scenario::parse_argument_list(flags.args, "--megatron-args");
    if (!script) command.launcher = pasted.launcher;
    command.args.insert(command.args.end(), pasted.args.begin(), pasted.args.end());
  }
  scenario::MegatronRun run = scenario::read_megatron(command, source, model);
  for (const std::string& name : run.unknown) {
    if (flags.strict) {
      throw core::ConfigError(source, flag_of(name),
                              "unknown Megatron-LM argument (--strict refuses it; pipesim reads "
                              "the arguments that set its options or the model, and ignores those "
                              "with no effect on time or memory)");
    }
    std::cerr << fmt::format(
        "pipesim: warning: {}: {}: unknown Megatron-LM argument, not read (--strict refuses "
        "it)\n",
        source, flag_of(name));
  }
  return run;
}

void merge_megatron_texts(std::map<std::string, std::string>& texts, scenario::MegatronRun& run,
                          int gpus, bool layout) {
  for (const std::string& w : scenario::merge_megatron(texts, run, gpus, layout))
    std::cerr << "pipesim: warning: " << w << "\n";
}

ArgumentLists megatron_lists(const scenario::MegatronRun& run) {
  return {"Megatron-LM arguments", run.source, spelled(run.used), spelled(run.ignored),
          spelled(run.unknown)};
}

nlohmann::ordered_json megatron_json(const scenario::MegatronRun& run) {
  return argument_lists_json(megatron_lists(run));
}

std::string megatron_text(const scenario::MegatronRun& run) {
  return argument_lists_text(megatron_lists(run));
}

}  // namespace pipesim::cli
