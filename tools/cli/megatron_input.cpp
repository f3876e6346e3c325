#include "megatron_input.hpp"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <iostream>

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
  cmd.add_flag("--strict", flags.strict,
               "With --megatron-*: an argument pipesim does not know is an error (exit 2), not a "
               "warning")
      ->group(group);
  if (with_gpus) {
    flags.gpus_flag =
        cmd.add_option("--gpus", flags.gpus,
                       "With --megatron-*: the world size P, data-parallel W = P/(T·C·D) "
                       "(default: the script's launcher: nodes x processes per node)")
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
  if (!script && !list) {
    if (flags.gpus_flag != nullptr && flags.gpus_flag->count() > 0) {
      throw core::ConfigError("command line", "--gpus",
                              "needs --megatron-script or --megatron-args (otherwise give "
                              "--data-parallel)");
    }
    if (flags.strict) {
      throw core::ConfigError("command line", "--strict",
                              "needs --megatron-script or --megatron-args");
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

nlohmann::ordered_json megatron_json(const scenario::MegatronRun& run) {
  nlohmann::ordered_json j;
  j["source"] = run.source;
  j["used"] = spelled(run.used);
  j["ignored"] = spelled(run.ignored);
  j["unknown"] = spelled(run.unknown);
  return j;
}

std::string megatron_text(const scenario::MegatronRun& run) {
  std::string out = fmt::format("Megatron-LM arguments ({})\n", run.source);
  const auto line = [&](const char* what, const std::vector<std::string>& names) {
    std::string list;
    for (const std::string& n : spelled(names))
      list += " " + n;
    out += fmt::format("  {:<8} {:>3}:{}\n", what, names.size(), list);
  };
  line("used", run.used);
  line("ignored", run.ignored);
  line("unknown", run.unknown);
  return out;
}

}  // namespace pipesim::cli
