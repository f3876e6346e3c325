#pragma once
// Random valid inputs for property tests: schedule parameters every registered scheme accepts,
// and unit costs on a grid exact in binary.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/cost_model.hpp"

namespace pipesim::testing {

// Random parameters the scheme accepts, drawn from its registry entry alone: D and N (N often
// a multiple of D, as several schemes require), and a value of each of its own options within a
// few steps of the declared lower bound; points its constraints reject are drawn again.
inline schedules::ScheduleParams draw_valid(std::string_view name, std::mt19937& rng) {
  const schedules::ScheduleEntry* entry = schedules::find_schedule(name);
  std::uniform_int_distribution<int> stages(1, 24), micro(1, 48), small(1, 4);
  for (int attempt = 0; attempt < 100000; ++attempt) {
    schedules::ScheduleParams p;
    p.stages = stages(rng);
    p.micro_batches = rng() % 2 == 0 ? small(rng) * p.stages : micro(rng);
    for (const core::OptionSpec& o : entry->options) {
      switch (o.kind) {
        case core::ValueKind::Integer: {
          const auto lo = static_cast<std::int64_t>(o.lo);
          const auto hi = std::min(static_cast<std::int64_t>(o.hi), lo + 7);
          p.options.set(o.name, lo + static_cast<std::int64_t>(rng() % (hi - lo + 1)));
          break;
        }
        case core::ValueKind::Real:
          p.options.set(o.name, o.lo + (o.hi - o.lo) * static_cast<double>(rng() % 8) / 8.0);
          break;
        case core::ValueKind::Switch:
          p.options.set(o.name, rng() % 4 == 0);
          break;
        case core::ValueKind::Choice:
          p.options.set(o.name, o.choices[rng() % o.choices.size()]);
          break;
        case core::ValueKind::Text:
          break;
      }
    }
    if (schedules::check_params(name, p).ok()) return p;
  }
  ADD_FAILURE() << "no valid parameters drawn for " << name;
  return {};
}

// "D=8 N=16 pipelines=4 strategy=direct": a point for messages.
inline std::string describe_params(const schedules::ScheduleParams& p) {
  std::string out = "D=" + std::to_string(p.stages) + " N=" + std::to_string(p.micro_batches);
  for (const auto& [name, value] : p.options.items()) {
    out += " " + name + "=" + schedules::scheme_option(name)->format(value);
  }
  return out;
}

// Random unit costs on a grid of quarter slots (exact in binary).
inline sim::UnitCosts draw_costs(std::mt19937& rng) {
  std::uniform_int_distribution<int> ticks(1, 8), comm(0, 4);
  sim::UnitCosts c;
  c.forward = ticks(rng) * 0.25;
  c.backward = ticks(rng) * 0.5;
  c.weight = c.backward * (ticks(rng) - 1) / 8.0;
  c.comm = comm(rng) * 0.125;
  return c;
}

}  // namespace pipesim::testing
