#pragma once
// Random valid inputs for property tests: schedule parameters every registered scheme accepts,
// and unit costs on a grid exact in binary.

#include <algorithm>
#include <random>
#include <string_view>
#include <vector>

#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/cost_model.hpp"

namespace pipesim::testing {

// Random parameters the scheme accepts: each generator's constraints (docs/architecture.md §3)
// applied to a random draw.
inline schedules::ScheduleParams draw_valid(std::string_view name, std::mt19937& rng) {
  std::uniform_int_distribution<int> stages(1, 24), micro(1, 48), small(1, 4);
  schedules::ScheduleParams p;
  p.stages = stages(rng);
  p.micro_batches = micro(rng);
  if (name == "chimera") {
    p.stages = 2 * std::max(1, p.stages / 2);
    std::vector<int> fs;
    for (int f = 1; f <= p.stages / 2; ++f) {
      if ((p.stages / 2) % f == 0) fs.push_back(f);
    }
    p.pipelines = 2 * fs[static_cast<size_t>(rng() % fs.size())];
    const int k = small(rng);
    p.micro_batches = k * p.stages;
    const char* strategies[] = {"direct", "doubling", "halving"};
    p.strategy = p.pipelines == 2 && k % 2 == 0 ? strategies[rng() % 3] : "direct";
  } else if (name == "interleaved") {
    p.chunks = small(rng);
    p.micro_batches = small(rng) * p.stages;
  } else if (name == "dualpipe") {
    p.stages = 2 * std::max(1, p.stages / 2);
    p.micro_batches = 2 * p.stages + 2 * (p.micro_batches % 8);
  } else if (name == "dualpipev") {
    p.micro_batches = 2 * p.stages + p.micro_batches % 8;
  } else if (name == "pipedream" || name == "pipedream-2bw") {
    p.iterations = 3 + small(rng) % 2;
  }
  return p;
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
