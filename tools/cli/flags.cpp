#include "flags.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pipesim/scenario/names.hpp"

namespace pipesim::cli {

std::string flag_of(const std::string& option) {
  std::string flag = "--" + option;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string cli_names(const scenario::Option& option) {
  const std::string flag = flag_of(option.name);
  return option.short_name.empty() ? flag : fmt::format("{},-{}", flag, option.short_name);
}

OptionHelp option_help(const scenario::Option& option) {
  using namespace scenario;
  const std::string& n = option.name;
  OptionHelp h{"", "Real-cost mode", option.default_value};
  if (shapes_schedule(n)) h.group = "Schedule";
  if (option.scope == Scope::UnitCost) {
    h.group = "Unit-cost mode";
    h.type = "SLOTS";  // unit-cost durations have no real length
  } else if (n == "schedule") {
    h.type = "NAME";
  } else if (n == "model" || n == "hardware") {
    h.type = "NAME|PATH";
  } else if (n == "strategy") {
    h.type = "direct|doubling|halving";
    h.default_value = "direct";
  } else if (n == "recompute") {
    h.type = names_of(kRecomputeNames);
  } else if (n == "partition") {
    h.type = names_of(kPartitionNames);
  } else if (n == "placement") {
    h.type = names_of(kPlacementNames);
  } else if (n == "grad_sync") {
    h.type = names_of(kGradSyncNames);
  } else if (n == "overlap_p2p" || n == "sequence_parallel" || n == "tp_comm_overlap" ||
             n == "distributed_optimizer" || n == "epoch_drain") {
    h.type = names_of(kOnOffNames);
  } else if (n == "precision") {
    h.type = names_of(kPrecisionNames);
  } else if (n == "attention") {
    h.type = names_of(kAttentionNames);
  } else if (n == "bytes_per_param" || n == "grad_bucket_bytes") {
    h.type = "NUMBER";
  } else {
    h.type = "INT";
  }
  // The option's 0 asks for the scheme's own default; help shows that value.
  if (n == "pipelines") h.default_value = "2 (chimera; others 1)";
  if (n == "chunks") h.default_value = "2 (interleaved; others 1)";
  if (n == "iterations") h.default_value = "4 (asynchronous schedules; others 1)";
  return h;
}

CLI::Option* add_scenario_option(CLI::App& cmd, const scenario::Option& option, std::string& text,
                                 bool list) {
  const OptionHelp h = option_help(option);
  CLI::Option* o = cmd.add_option(cli_names(option), text, option.help);
  o->type_name(list ? fmt::format("LIST<{}>", h.type) : h.type)->group(h.group);
  if (!h.default_value.empty()) o->default_str(h.default_value);
  return o;
}

const char* list_syntax_note() {
  return "LIST<T>: one value, a comma list a,b,c, or a range a:b (step 1), a:b:+step, "
         "a:b:xfactor (ascending, end included when on the grid), or a mix 1,4:16:x2.";
}

std::string describe_error(const core::ConfigError& error) {
  if (const auto* e = dynamic_cast<const scenario::OptionError*>(&error)) {
    return fmt::format("command line: {}: {}", flag_of(e->option()), e->problem());
  }
  return error.what();
}

}  // namespace pipesim::cli
