#pragma once
// A small mixture-of-experts run whose all-to-alls cross nodes, shared by the scenario tests:
// Qwen3-30B-A3B cut to 8 MoE layers on h100-dgx, D 4, N 8, T 1, W 16, E 16, so each
// expert-parallel group spans two 8-GPU nodes and every all-to-all crosses the NICs.

#include <memory>
#include <string>

#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario::testing {

inline Scenario cross_node_moe(const std::string& schedule) {
  models::ModelSpec m = models::load_model("qwen3-30b-a3b");
  m.layers = 8;
  Scenario s;
  s.schedule = schedule;
  s.params.stages = 4;
  s.params.micro_batches = 8;
  s.perf.model = m.name;
  s.perf.model_spec = std::make_shared<const models::ModelSpec>(m);
  s.perf.hardware = "h100-dgx";
  s.perf.setup.data_parallel = 16;
  s.perf.setup.expert_parallel = 16;
  return s;
}

}  // namespace pipesim::scenario::testing
