// What another micro-batch's compute hides (cost/stage_compute.hpp, exchange_time and
// with_own_collectives): the expert exchange, in DualPipe's overlapped F&B units and with the
// MoE overlap; never the tensor- or context-parallel collectives inside the op, which stay with
// its kernels (after them, or beside them with the TP overlap).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli_invoke.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::cost {
namespace {

sim::Schedule schedule(const std::string& name, int d, int n) {
  schedules::ScheduleParams p;
  p.stages = d;
  p.micro_batches = n;
  return schedules::make_schedule(name, p);
}

TEST(ExchangeOverlap, AnOverlappedUnitKeepsItsTensorParallelCollectives) {
  // Llama 3 70B at T = 8 (dense: no exchange): DualPipeV's paired ops run their TP collectives
  // after their kernels, and their Collective tasks carry nothing.
  const models::ModelSpec m = models::load_model("llama3-70b");
  const hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  TrainingSetup setup;
  setup.tensor_parallel = 8;
  setup.sequence_parallel = true;
  const sim::Schedule s = schedule("dualpipev", 4, 16);
  const TrainingCostModel costs(m, hw, s, setup);
  const sim::TaskGraph g = sim::build_task_graph(s, costs.lowering());
  int paired = 0;
  for (sim::TaskId id = 0; id < static_cast<sim::TaskId>(g.num_tasks()); ++id) {
    const sim::Task& t = g.task(id);
    if (!t.paired) continue;
    if (t.kind == sim::OpKind::Collective) {
      const sim::Flow f = costs.flow(g, id);
      EXPECT_EQ(f.latency + f.work, 0.0);
      continue;
    }
    const double kernels = costs.compute().kernels(t.stage, t.kind);
    const double tp = costs.compute().collective_time(t.stage, t.kind).total().value;
    paired += tp > 0 ? 1 : 0;  // a weight-gradient op has none
    EXPECT_DOUBLE_EQ(costs.duration(g, id), kernels + tp);
  }
  EXPECT_GT(paired, 0);
}

TEST(ExchangeOverlap, DualPipeVOnADenseModelIsNoFasterThan1F1BWithTheTpOverlap) {
  const auto time = [](std::vector<std::string> extra) {
    std::vector<std::string> args = {"simulate", "--model",    "llama3-70b", "--hardware",
                                     "h100-dgx", "-T",         "8",          "--sequence-parallel",
                                     "on",       "-D",         "4",          "-N",
                                     "16",       "--sequence", "8192",       "--recompute",
                                     "full",     "--format",   "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const pipesim::testing::CliResult r = pipesim::testing::invoke_cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out).at("iteration_time").get<double>();
  };
  const double dualpipev = time({"--schedule", "dualpipev"});
  EXPECT_GE(dualpipev, time({"--schedule", "1f1b", "--tp-comm-overlap", "on"}));
  // It still has the smaller bubble of the two at equal settings.
  EXPECT_LT(dualpipev, time({"--schedule", "1f1b"}));
}

TEST(ExchangeOverlap, TheMoeOverlapHidesTheExchangeAloneAlsoWithTensorParallelism) {
  // Mixtral 8x7B at T = 2, E = 4 on one DGX H100 node per stage, MoE overlap on, TP overlap off
  // (Megatron allows the pair): the op's kernels carry the TP collectives, its Collective the
  // all-to-all alone.
  const models::ModelSpec m = models::load_model("mixtral-8x7b");
  const hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  TrainingSetup setup;
  setup.tensor_parallel = 2;
  setup.sequence_parallel = true;
  setup.data_parallel = 4;
  setup.expert_parallel = 4;
  setup.moe_overlap = true;
  validate_setup(trained_model(m, setup), hw, setup);
  const sim::Schedule s = schedule("1f1b", 2, 8);
  const TrainingCostModel costs(m, hw, s, setup);
  const StageCompute& c = costs.compute();
  ASSERT_TRUE(c.exchange_apart());
  const sim::TaskGraph g = sim::build_task_graph(s, costs.lowering());
  int checked = 0;
  for (sim::TaskId id = 0; id < static_cast<sim::TaskId>(g.num_tasks()); ++id) {
    const sim::Task& t = g.task(id);
    if (t.kind == sim::OpKind::Forward) {
      const double all = c.collective_time(t.stage, t.kind).total().value;
      const double exchange = c.exchange_time(t.stage, t.kind).total().value;
      ASSERT_GT(exchange, 0.0);
      ASSERT_GT(all, exchange);
      EXPECT_NEAR(costs.duration(g, id), c.kernels(t.stage, t.kind) + (all - exchange),
                  1e-12 * all);
      EXPECT_DOUBLE_EQ(c.alone(t.stage, t.kind),
                       std::max(c.with_own_collectives(t.stage, t.kind), exchange));
      ++checked;
    } else if (t.kind == sim::OpKind::Collective && t.carrier == sim::OpKind::Forward) {
      const sim::Flow f = costs.flow(g, id);
      EXPECT_NEAR(f.latency + f.work, c.exchange_time(t.stage, t.carrier).total().value, 1e-15);
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace pipesim::cost
