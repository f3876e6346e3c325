#pragma once
// A Chimera basic unit built by hand from docs/architecture.md §3's slot rule (N = D, two
// pipelines): down pipeline stage s on worker s, up pipeline stage s on worker D−1−s; micro-batch x
// of a pipeline runs stage s forward at slot s + 2x and backward at slot 2D − s − 1 + 2x; each
// worker runs its ops in slot order. For tests until schedules/chimera.cpp is registered.

#include <algorithm>
#include <utility>

#include "pipesim/sim/schedule.hpp"

namespace pipesim::testing {

inline sim::Schedule hand_chimera(int d) {
  sim::Schedule s;
  s.name = "chimera-hand";
  s.workers = d;
  s.virtual_stages = d;
  s.pipelines = 2;
  s.micro_batches = d;
  s.stage_worker.assign(2, std::vector<int>(static_cast<size_t>(d)));
  for (int st = 0; st < d; ++st) {
    s.stage_worker[0][static_cast<size_t>(st)] = st;
    s.stage_worker[1][static_cast<size_t>(st)] = d - 1 - st;
  }
  // Down pipeline: micro-batches 0 … D/2−1; up pipeline: D/2 … D−1 (docs/architecture.md §7).
  for (int m = 0; m < d; ++m)
    s.micro_batch_pipeline.push_back(m < d / 2 ? 0 : 1);
  std::vector<std::vector<std::pair<int, sim::Op>>> slotted(static_cast<size_t>(d));
  for (int p = 0; p < 2; ++p) {
    for (int x = 0; x < d / 2; ++x) {
      const int m = p * (d / 2) + x;
      for (int st = 0; st < d; ++st) {
        auto& list = slotted[static_cast<size_t>(
            s.stage_worker[static_cast<size_t>(p)][static_cast<size_t>(st)])];
        list.push_back({st + 2 * x, sim::Op{sim::OpKind::Forward, p, st, 0, m}});
        list.push_back({2 * d - st - 1 + 2 * x, sim::Op{sim::OpKind::Backward, p, st, 0, m}});
      }
    }
  }
  s.program.resize(static_cast<size_t>(d));
  for (int w = 0; w < d; ++w) {
    auto& list = slotted[static_cast<size_t>(w)];
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [slot, op] : list)
      s.program[static_cast<size_t>(w)].push_back(op);
  }
  return s;
}

}  // namespace pipesim::testing
