#include <map>
#include <memory>

#include "commands.hpp"
#include "output.hpp"
#include "report.hpp"
#include "run.hpp"
#include "run_options.hpp"

namespace pipesim::cli {

Action add_simulate_command(CLI::App& app) {
  struct Options {
    RunSpec spec;
    std::string format = "text";
    bool ops = false;
    std::string output;
    std::map<std::string, std::string> values;  //!< flag → text as given
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("simulate", "Simulate one schedule and report its metrics");
  // Options are kept as text and parsed by run_options(), so every bad value gets the same
  // one-line message naming the flag and the allowed range.
  for (const RunOption& option : run_options()) {
    cmd->add_option(option.names, o->values[option.flag()], option.help)
        ->default_str(option.default_value);
  }
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  cmd->add_flag("--ops", o->ops, "JSON: list each worker's ops with start and end times");
  cmd->add_option("--output,-o", o->output, "Write to this file (atomically) instead of stdout");
  return [o] {
    for (const RunOption& option : run_options()) {
      const auto given = o->values.find(option.flag());
      option.apply(o->spec, given != o->values.end() && !given->second.empty()
                                ? given->second
                                : option.default_value);
    }
    const RunResult result = run(o->spec);
    std::string text;
    if (o->format == "json") {
      text = to_json(o->spec, result, o->ops).dump(2) + "\n";
    } else if (o->format == "csv") {
      text = to_csv(o->spec, result);
    } else {
      text = to_text(o->spec, result);
    }
    emit(o->output, text);
    return 0;
  };
}

}  // namespace pipesim::cli
