#include "pipesim/schedules/registry.hpp"

#include <fmt/format.h>

#include <array>

#include "pipesim/core/config_error.hpp"
#include "pipesim/schedules/generators.hpp"

namespace pipesim::schedules {
namespace {

constexpr std::array kCatalogue{
    ScheduleEntry{"gpipe", "all forwards, then all backwards; flush every iteration",
                  "Huang et al., GPipe, NeurIPS 2019", &make_gpipe},
    ScheduleEntry{"1f1b", "PipeDream-Flush: D-s-1 warm-up forwards, one-forward-one-backward",
                  "Narayanan et al., PipeDream-2BW/Flush, ICML 2021", &make_1f1b},
};

}  // namespace

std::span<const ScheduleEntry> all_schedules() { return kCatalogue; }

const ScheduleEntry* find_schedule(std::string_view name) {
  for (const ScheduleEntry& e : kCatalogue) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

sim::Schedule make_schedule(std::string_view name, const ScheduleParams& params) {
  const ScheduleEntry* entry = find_schedule(name);
  if (entry == nullptr) {
    std::string known;
    for (const ScheduleEntry& e : kCatalogue) known += fmt::format("{}{}", known.empty() ? "" : ", ", e.name);
    throw core::ConfigError("command line", "--schedule",
                            fmt::format("unknown schedule '{}' (known: {})", name, known));
  }
  return entry->make(params);
}

}  // namespace pipesim::schedules
