#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "flags.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::cli {
namespace {

void list_schedules() {
  for (const schedules::ScheduleEntry& e : schedules::all_schedules())
    std::cout << fmt::format("{:<14} {}  [{}]\n", e.name, e.description, e.citation);
}

void list_models() {
  for (const auto& name : models::shipped_models())
    std::cout << fmt::format("{:<14} {}\n", name, models::load_model(name).description);
}

// Each profile, and under it where its efficiency curves come from, kind by kind.
void list_hardware() {
  for (const auto& name : hardware::shipped_profiles()) {
    const hardware::HardwareProfile p = hardware::load_profile(name);
    std::cout << fmt::format("{:<14} {}\n", name, p.description);
    std::map<std::string, std::vector<std::string>> by_kind;
    for (const std::string& key : hardware::curve_keys(p))
      by_kind[hardware::curve_provenance_kind(p, key)].push_back(key);
    std::string line;
    for (const char* kind : {"measured", "derived", "fitted", "assumed", "unstated"}) {
      if (by_kind.count(kind) == 0) continue;
      line +=
          fmt::format("{}{}: {}", line.empty() ? "" : "; ", kind, fmt::join(by_kind[kind], ", "));
    }
    std::cout << fmt::format("{:<14} curves {}\n", "", line);
  }
}

// The option table as data, for tools that generate from it (tools/make-schema.py): name, kind,
// default, range, choices, help and help group, in CSV column order.
void list_options_json() {
  auto list = nlohmann::ordered_json::array();
  for (const scenario::Option& o : scenario::options()) {
    static constexpr const char* kKinds[] = {"integer", "real", "switch", "choice", "text"};
    nlohmann::ordered_json j;
    j["name"] = o.name();
    j["kind"] = kKinds[static_cast<size_t>(o.spec.kind)];
    j["default"] = o.spec.default_text;
    if (o.spec.kind == core::ValueKind::Integer || o.spec.kind == core::ValueKind::Real) {
      j["lo"] = o.spec.lo;
      j["hi"] = o.spec.hi;
      j["lo_inclusive"] = o.spec.lo_inclusive;
    }
    if (o.spec.kind == core::ValueKind::Choice) j["choices"] = o.spec.choices;
    j["help"] = o.spec.help;
    j["group"] = o.group;
    list.push_back(std::move(j));
  }
  std::cout << list.dump(2) << "\n";
}

// Every option of simulate and sweep: its flag, value type, default and help.
void list_options() {
  for (const scenario::Option& o : scenario::options()) {
    const std::string d = scenario::default_help(o);
    std::cout << fmt::format("{:<24} {:<26} {}{}\n", cli_names(o), o.spec.type_name(), o.spec.help,
                             d.empty() ? "" : fmt::format(" [default: {}]", d));
  }
}

}  // namespace

Action add_list_command(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand(
      "list", "List what pipesim knows: schedules, models, hardware, options (all without one)");
  cmd->add_option("what", *what, "What to list")
      ->check(CLI::IsMember({"schedules", "models", "hardware", "options"}));
  cmd->add_option("--format", *format, "Output format (json: the option table, for generators)")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("text|json")
      ->capture_default_str();
  return [what, format] {
    if (*format == "json") {
      if (*what != "options") {
        throw core::ConfigError("command line", "--format",
                                "json lists the options only: pipesim list options --format json");
      }
      list_options_json();
      return 0;
    }
    const std::pair<const char*, void (*)()> lists[] = {{"schedules", &list_schedules},
                                                        {"models", &list_models},
                                                        {"hardware", &list_hardware},
                                                        {"options", &list_options}};
    bool first = true;
    for (const auto& [name, list] : lists) {
      if (!what->empty() && *what != name) continue;
      if (what->empty()) std::cout << fmt::format("{}{}:\n", first ? "" : "\n", name);
      first = false;
      list();
    }
    return 0;
  };
}

}  // namespace pipesim::cli
