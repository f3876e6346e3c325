#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::cli {

Action add_list_command(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("list", "List what pipesim knows");
  cmd->add_option("what", *what, "What to list")
      ->required()
      ->check(CLI::IsMember({"schedules", "models", "hardware"}));
  return [what] {
    if (*what == "models") {
      for (const auto& name : models::shipped_models()) {
        std::cout << fmt::format("{:<14} {}\n", name, models::load_model(name).description);
      }
    } else if (*what == "hardware") {
      for (const auto& name : hardware::shipped_profiles()) {
        std::cout << fmt::format("{:<14} {}\n", name, hardware::load_profile(name).description);
      }
    } else {
      for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
        std::cout << fmt::format("{:<14} {}  [{}]\n", e.name, e.description, e.citation);
      }
    }
    return 0;
  };
}

}  // namespace pipesim::cli
