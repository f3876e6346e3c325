// The real-cost engine on hand-made graphs: max-min fair sharing against worked examples,
// latency, interference, blocking p2p, eager vs flush gradient synchronisation.

#include "pipesim/sim/network.hpp"

#include <gtest/gtest.h>

#include "../support/hand_chimera.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::sim {
namespace {

// Flows as a table: task id → flow; compute tasks take the unit costs.
class TableNetwork final : public NetworkModel {
 public:
  TableNetwork(int resources, std::vector<Flow> flows)
      : resources_(resources), flows_(std::move(flows)) {}
  int num_resources() const override { return resources_; }
  Flow flow(const TaskGraph&, TaskId id) const override { return flows_.at(id); }

 private:
  int resources_;
  std::vector<Flow> flows_;
};

// A network where every transfer or all-reduce is one fixed flow on its own resources.
class UniformNetwork final : public NetworkModel {
 public:
  UniformNetwork(double transfer, double reduce) : transfer_(transfer), reduce_(reduce) {}
  int num_resources() const override { return 1; }
  Flow flow(const TaskGraph& g, TaskId id) const override {
    return g.task(id).kind == OpKind::Transfer ? Flow{0.0, transfer_, {}} : Flow{0.0, reduce_, {}};
  }

 private:
  double transfer_, reduce_;
};

TaskGraph transfers(int count) {
  TaskGraphBuilder b(2);
  for (int i = 0; i < count; ++i)
    b.add_task(Task{.kind = OpKind::Transfer, .worker = 0, .peer = 1, .micro_batch = i});
  return std::move(b).build();
}

TEST(Network, TwoTransfersSharingOneLinkEachTakeTwiceAsLong) {
  const UnitCostModel compute({1, 2, 0, 0});
  const Flow f{0.0, 1.5, {{0, 1.0}}};
  const TaskGraph one = transfers(1), two = transfers(2);
  const Trace alone = simulate_network(one, compute, TableNetwork(1, {f}), {});
  const Trace shared = simulate_network(two, compute, TableNetwork(1, {f, f}), {});
  ASSERT_TRUE(alone.completed && shared.completed);
  EXPECT_DOUBLE_EQ(alone.timing[0].end, 1.5);
  for (TaskId t : {0u, 1u})
    EXPECT_DOUBLE_EQ(shared.timing[t].end, 2 * 1.5);
}

TEST(Network, LatencyIsNotSlowedBySharing) {
  const UnitCostModel compute({1, 2, 0, 0});
  const Flow f{0.25, 1.0, {{0, 1.0}}};
  const Trace t = simulate_network(transfers(2), compute, TableNetwork(1, {f, f}), {});
  EXPECT_DOUBLE_EQ(t.timing[0].end, 0.25 + 2.0);  // α, then half the bandwidth
}

TEST(Network, ShorterFlowLeavesAndTheOtherSpeedsUp) {
  // Works 1 and 3 on one link: both at ½ until t = 2, then the second alone: 2 + 2 = 4.
  const UnitCostModel compute({1, 2, 0, 0});
  const Trace t = simulate_network(
      transfers(2), compute, TableNetwork(1, {{0, 1.0, {{0, 1.0}}}, {0, 3.0, {{0, 1.0}}}}), {});
  EXPECT_DOUBLE_EQ(t.timing[0].end, 2.0);
  EXPECT_DOUBLE_EQ(t.timing[1].end, 4.0);
}

TEST(Network, MaxMinFairnessByProgressiveFilling) {
  // r0: f0, f1; r1: f1 and f2 (f2 uses 3× its share). Filling: r1 saturates at x = ¼
  // (x + 3x = 1), freezing f1 and f2 at ¼; f0 rises to ¾ (¼ + ¾ = 1 on r0).
  const UnitCostModel compute({1, 2, 0, 0});
  const std::vector<Flow> flows{
      {0, 0.75, {{0, 1.0}}}, {0, 0.25, {{0, 1.0}, {1, 1.0}}}, {0, 0.25, {{1, 3.0}}}};
  const Trace t = simulate_network(transfers(3), compute, TableNetwork(2, flows), {});
  for (TaskId i = 0; i < 3; ++i)
    EXPECT_NEAR(t.timing[i].end, 1.0, 1e-12) << i;
}

TEST(Network, CollectiveSlowsComputeByTheInterferenceFactor) {
  TaskGraphBuilder b(1);
  b.add_task(Task{.kind = OpKind::Forward, .worker = 0, .micro_batch = 0});
  Task reduce{.kind = OpKind::AllReduce, .worker = 0};
  reduce.group = b.add_group({0});
  b.add_task(reduce);
  const TaskGraph g = std::move(b).build();
  const UnitCostModel compute({1, 2, 0, 0});
  const TableNetwork net(1, {{}, {0.0, 0.5, {{0, 1.0}}}});
  EngineOptions options;
  options.interference = 0.2;
  const Trace t = simulate_network(g, compute, net, options);
  // 0.5 s at 0.8 (0.4 done), then 0.6 at full speed: ends at 1.1.
  EXPECT_NEAR(t.timing[0].end, 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(t.timing[1].end, 0.5);
  options.interference = 0.0;
  EXPECT_DOUBLE_EQ(simulate_network(g, compute, net, options).timing[0].end, 1.0);
}

TEST(Network, WithoutContentionItMatchesTheUnitEngine) {
  const Schedule s = testing::hand_chimera(4);
  validate(s).require();
  const TaskGraph g = build_task_graph(s);
  const UnitCostModel unit({1, 2, 0, 0.5});
  const Trace a = simulate(g, unit);
  const Trace b = simulate_network(g, unit, UniformNetwork(0.5, 0.0), {});
  for (TaskId t = 0; t < g.num_tasks(); ++t) {
    EXPECT_DOUBLE_EQ(a.timing[t].start, b.timing[t].start) << t;
    EXPECT_DOUBLE_EQ(a.timing[t].end, b.timing[t].end) << t;
  }
}

TEST(Network, BlockingP2PHoldsTheSendersStream) {
  Schedule s = make_linear_schedule("two", 2, 2);
  using K = OpKind;
  s.program[0] = {{K::Forward, 0, 0, 0, 0},
                  {K::Forward, 0, 0, 0, 1},
                  {K::Backward, 0, 0, 0, 0},
                  {K::Backward, 0, 0, 0, 1}};
  s.program[1] = {{K::Forward, 0, 1, 0, 0},
                  {K::Backward, 0, 1, 0, 0},
                  {K::Forward, 0, 1, 0, 1},
                  {K::Backward, 0, 1, 0, 1}};
  const TaskGraph g = build_task_graph(s);
  const UnitCostModel unit({1, 2, 0, 0});
  const UniformNetwork net(0.5, 0.0);
  EngineOptions blocking;
  blocking.overlap_p2p = false;
  const Trace on = simulate_network(g, unit, net, {});
  const Trace off = simulate_network(g, unit, net, blocking);
  // Task 1 is worker 0's F1: right after F0 when overlapping, after F0's send when blocking.
  EXPECT_DOUBLE_EQ(on.timing[1].start, 1.0);
  EXPECT_DOUBLE_EQ(off.timing[1].start, 1.5);
}

TEST(Network, FlushDelaysAllReducesUntilTheHoldersFinishComputing) {
  const Schedule s = testing::hand_chimera(4);
  const TaskGraph g = build_task_graph(s);
  const UnitCostModel unit({1, 2, 0, 0});
  const UniformNetwork net(0.0, 3.0);
  EngineOptions flush;
  flush.grad_sync = GradSync::Flush;
  const Trace eager = simulate_network(g, unit, net, {});
  const Trace flushed = simulate_network(g, unit, net, flush);
  std::vector<double> last_compute(4, 0.0);
  for (TaskId t = 0; t < g.num_tasks(); ++t) {
    if (is_compute(g.task(t).kind)) {
      auto& l = last_compute[static_cast<size_t>(g.task(t).worker)];
      l = std::max(l, flushed.timing[t].end);
    }
  }
  bool some_eager_overlap = false;
  for (TaskId t = 0; t < g.num_tasks(); ++t) {
    if (g.task(t).kind != OpKind::AllReduce) continue;
    for (int w : g.group_workers()[static_cast<size_t>(g.task(t).group)]) {
      EXPECT_GE(flushed.timing[t].start, last_compute[static_cast<size_t>(w)]);
      some_eager_overlap =
          some_eager_overlap || eager.timing[t].start < last_compute[static_cast<size_t>(w)];
    }
  }
  EXPECT_TRUE(some_eager_overlap);  // eager sync overlaps the other pipeline's backwards
}

}  // namespace
}  // namespace pipesim::sim
