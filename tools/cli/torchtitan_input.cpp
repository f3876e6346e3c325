#include "torchtitan_input.hpp"

#include <fmt/format.h>

#include <iostream>

#include "argument_lists.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim::cli {
namespace {

ArgumentLists torchtitan_lists(const scenario::TorchtitanRun& run) {
  return {"torchtitan config", run.source, run.used, run.ignored, run.unknown};
}

}  // namespace

std::optional<scenario::TorchtitanRun> read_torchtitan_flags(const MegatronFlags& flags) {
  if (flags.torchtitan_flag->count() == 0) return std::nullopt;
  scenario::TorchtitanRun run = scenario::read_torchtitan(flags.torchtitan);
  for (const std::string& key : run.unknown) {
    const auto why = run.unmodelled.find(key);
    const std::string problem =
        why != run.unmodelled.end()
            ? why->second
            : std::string(
                  "unknown torchtitan key (pipesim reads the keys that set its options "
                  "or the model, and ignores those with no effect on time or memory)");
    if (flags.strict) {
      throw core::ConfigError(run.source, key, problem + "; --strict refuses it");
    }
    std::cerr << fmt::format("pipesim: warning: {}: {}: {}, not read (--strict refuses it)\n",
                             run.source, key, problem);
  }
  return run;
}

void merge_torchtitan_texts(std::map<std::string, std::string>& texts, scenario::TorchtitanRun& run,
                            int gpus, bool layout) {
  for (const std::string& w : scenario::merge_torchtitan(texts, run, gpus, layout))
    std::cerr << "pipesim: warning: " << w << "\n";
}

nlohmann::ordered_json torchtitan_json(const scenario::TorchtitanRun& run) {
  return argument_lists_json(torchtitan_lists(run));
}

std::string torchtitan_text(const scenario::TorchtitanRun& run) {
  return argument_lists_text(torchtitan_lists(run));
}

}  // namespace pipesim::cli
