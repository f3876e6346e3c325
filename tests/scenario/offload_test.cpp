// Activation offload end to end (scenario::simulate, the CLI): a free host link changes no time
// and leaves the closed form's activations resident, a real link costs time and saves memory,
// memory returns to its baseline, and the option is refused where it cannot apply.

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "../support/cli_invoke.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {
namespace {

constexpr int kD = 4, kN = 8;

Scenario one_f_one_b(double offload, std::shared_ptr<const hardware::HardwareProfile> hw) {
  Scenario s;
  s.schedule = "1f1b";
  s.params.stages = kD;
  s.params.micro_batches = kN;
  s.perf.model = "gpt2-1.3b";
  s.perf.hardware = "a100-dgx";
  s.perf.hardware_profile = std::move(hw);
  s.perf.setup.offload = offload;
  return s;
}

std::shared_ptr<const hardware::HardwareProfile> a100(std::optional<hardware::Hockney> host) {
  hardware::HardwareProfile p = hardware::load_profile("a100-dgx");
  p.host_link = host;
  return std::make_shared<const hardware::HardwareProfile>(std::move(p));
}

// Bytes of one micro-batch's stored activations on stage 0.
double stage0_activations(const Scenario& s, const Result& r) {
  const cost::TrainingCostModel costs(models::load_model(s.perf.model), *s.perf.hardware_profile,
                                      r.schedule, s.perf.setup);
  return costs.stage_memory()[0].activations;
}

TEST(ActivationOffload, AFreeHostLinkKeepsTheTimeAndHoldsTwoActivationSets) {
  // β = ∞, α = 0: every copy takes no time. f = 1 then changes no op's time, and worker 0
  // (stage 0, which holds min(N, D) = 4 sets without offload) peaks with the set of the op it
  // runs plus the one prefetched for its next backward: 2 sets (sim/lowering.hpp's rule).
  const auto free_link = a100(hardware::Hockney{0.0, std::numeric_limits<double>::infinity()});
  const Scenario s_off = one_f_one_b(0.0, free_link), s_on = one_f_one_b(1.0, free_link);
  const Result off = simulate(s_off);
  const Result on = simulate(s_on);
  EXPECT_DOUBLE_EQ(on.metrics.iteration_time, off.metrics.iteration_time);
  const double m_a = stage0_activations(s_on, on);
  ASSERT_GT(m_a, 0.0);
  EXPECT_NEAR(off.perf->memory[0].at_peak.activations, 4 * m_a, 1e-6 * m_a);
  EXPECT_NEAR(on.perf->memory[0].at_peak.activations, 2 * m_a, 1e-6 * m_a);
}

TEST(ActivationOffload, AFastLinkCostsTimeSavesMemoryAndGivesItAllBack) {
  // NVLink-C2C's 450 GB/s per direction (gb200-nvl72.yaml): a copy takes a fraction of a
  // forward, so the activations leave before the next ones arrive. (At the A100's PCIe
  // 25 GB/s a copy takes longer than a forward here: they queue and the peak does not fall.)
  const auto c2c = a100(hardware::load_profile("gb200-nvl72").host_link);
  ASSERT_TRUE(c2c->host_link.has_value());
  const Result off = simulate(one_f_one_b(0.0, c2c));
  const Result half = simulate(one_f_one_b(0.5, c2c));
  const Result all = simulate(one_f_one_b(1.0, c2c));
  EXPECT_GE(all.metrics.iteration_time, off.metrics.iteration_time);
  // Worker 0 holds the most activation sets (min(N, D)); the run's peak may be another worker's
  // (the last stage's logits), which offload cannot lower below one set.
  EXPECT_LT(all.perf->memory[0].peak, half.perf->memory[0].peak);
  EXPECT_LT(half.perf->memory[0].peak, off.perf->memory[0].peak);
  EXPECT_LE(all.perf->peak_memory, off.perf->peak_memory);
  for (size_t w = 0; w < off.perf->memory.size(); ++w) {
    // Every copy back has started and every backward has freed its activations.
    EXPECT_DOUBLE_EQ(all.perf->memory[w].final, off.perf->memory[w].final) << w;
    EXPECT_NEAR(all.perf->memory[w].final, all.perf->memory[w].static_memory.total(),
                1e-9 * all.perf->memory[w].final)
        << w;
    EXPECT_GE(all.perf->memory[w].minimum, all.perf->memory[w].static_memory.total() * (1 - 1e-12));
  }
}

TEST(ActivationOffload, RefusedWithoutAHostLinkOrACostModel) {
  try {
    simulate(one_f_one_b(0.5, a100(std::nullopt)));
    ADD_FAILURE() << "a profile without host_link was accepted";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("host_link"), std::string::npos) << e.what();
  }
  // Unit-cost mode has no bytes to copy.
  const auto unit = testing::invoke_cli({"simulate", "--schedule", "1f1b", "--offload", "0.5"});
  EXPECT_EQ(unit.code, 2);
  EXPECT_NE(unit.err.find("offload"), std::string::npos) << unit.err;
  const auto range = testing::invoke_cli({"simulate", "--schedule", "1f1b", "--model", "gpt2-1.3b",
                                          "--hardware", "a100-dgx", "--offload", "1.5"});
  EXPECT_EQ(range.code, 2);
  EXPECT_NE(range.err.find("offload"), std::string::npos) << range.err;
}

TEST(ActivationOffload, TheReportCarriesTheOptions) {
  const auto r = testing::invoke_cli({"simulate", "--schedule", "zb-h1", "--model", "gpt2-1.3b",
                                      "--hardware", "h100-dgx", "--offload", "0.5",
                                      "--offload-selective", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j.at("offload").get<double>(), 0.5);
  EXPECT_EQ(j.at("offload_selective"), true);
}

}  // namespace
}  // namespace pipesim::scenario
