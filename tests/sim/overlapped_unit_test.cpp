// Overlapped units (Op::join, sim/README.md "Overlapped units"): a unit's compute back to back,
// its start once every input of both halves is there, every result released at its end, and
// each half's collectives beside the other half's compute, against closed forms on a
// one-worker schedule and as invariants on DualPipe's lowered graph.

#include <gtest/gtest.h>

#include <vector>

#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/time_breakdown.hpp"

namespace pipesim::sim {
namespace {

// Durations by kind, and a Collective's by the kind of the op that carries it.
class KindCosts final : public CostModel {
 public:
  double f = 2, b = 3, c_f = 0, c_b = 0;
  double duration(const TaskGraph& g, TaskId id) const override {
    const Task& t = g.task(id);
    if (t.kind == OpKind::Collective) return t.carrier == OpKind::Forward ? c_f : c_b;
    if (t.kind == OpKind::Forward) return f;
    if (t.kind == OpKind::Backward) return b;
    return 0.0;
  }
};

// One worker, one stage, two micro-batches: F0, then F1 overlapped with B0, then B1.
Schedule one_worker(bool fused) {
  Schedule s = make_linear_schedule("unit", 1, 2);
  const Join pair = fused ? Join::Pair : Join::None;
  s.program[0] = {Op{OpKind::Forward, 0, 0, 0, 0}, Op{OpKind::Forward, 0, 0, 0, 1},
                  Op{OpKind::Backward, 0, 0, 0, 0, pair}, Op{OpKind::Backward, 0, 0, 0, 1}};
  return s;
}

OpCollectives f_and_b_carry(bool overlap) {
  OpCollectives c;
  c.overlap = overlap;
  c.carries.assign(kNumComputeKinds, 0);
  c.carries[static_cast<size_t>(OpKind::Forward)] = 1;
  c.carries[static_cast<size_t>(OpKind::Backward)] = 1;
  return c;
}

TEST(OverlappedUnit, ExposesOnlyCommunicationLongerThanTheOtherHalfsCompute) {
  for (const double c_f : {0.0, 1.0, 3.0, 5.0}) {
    for (const double c_b : {0.0, 1.5, 2.0, 4.0}) {
      SCOPED_TRACE(::testing::Message() << "c_F=" << c_f << " c_B=" << c_b);
      KindCosts costs;
      costs.c_f = c_f;
      costs.c_b = c_b;
      const Schedule s = one_worker(true);
      ASSERT_TRUE(check_structure(s).ok());
      const TaskGraph g = build_task_graph(s, f_and_b_carry(false));
      const Trace t = simulate(g, costs);
      ASSERT_TRUE(t.completed);
      // Tasks 0..3 are the ops in program order; F0's collective is serialised after it.
      const double unit_start = costs.f + c_f;
      EXPECT_DOUBLE_EQ(t.timing[1].start, unit_start);
      const double unit_end =
          unit_start + std::max(costs.f, c_b) + std::max(costs.b, c_f);  // two phases
      EXPECT_DOUBLE_EQ(t.timing[3].start, unit_end);  // B1 needs F1's result: the unit's end
      const double iteration = unit_end + costs.b + c_b;
      const std::vector<WorkerTime> time = time_breakdown(g, t);
      EXPECT_DOUBLE_EQ(time[0].compute, 2 * costs.f + 2 * costs.b);
      // F0's and B1's serialised collectives, and what the unit's do not hide.
      EXPECT_DOUBLE_EQ(time[0].exposed_communication,
                       c_f + c_b + std::max(0.0, c_b - costs.f) + std::max(0.0, c_f - costs.b));
      EXPECT_DOUBLE_EQ(time[0].compute + time[0].exposed_communication + time[0].idle, iteration);
      // Unfused, every collective is exposed.
      const TaskGraph serial = build_task_graph(one_worker(false), f_and_b_carry(false));
      EXPECT_DOUBLE_EQ(time_breakdown(serial, simulate(serial, costs))[0].exposed_communication,
                       2 * (c_f + c_b));
    }
  }
}

TEST(OverlappedUnit, RefusesUnitsWithoutTwoHalves) {
  Schedule s = one_worker(false);
  s.program[0][2].join = Join::Half;  // a unit with one half
  EXPECT_FALSE(check_structure(s).ok());
  s.program[0][2].join = Join::Pair;
  s.program[0][3].join = Join::Pair;  // a third half
  EXPECT_FALSE(check_structure(s).ok());
  s = one_worker(false);
  s.program[0][0].join = Join::Pair;  // nothing before it to join
  EXPECT_FALSE(check_structure(s).ok());
}

// DualPipe's lowered graph, unit cost: within each unit the ops run back to back; nothing
// outside a unit that depends on one of its ops starts before the unit ends, and the unit
// starts no earlier than every input of every op in it.
TEST(OverlappedUnit, DualPipeUnitsStartWithAllInputsAndReleaseAtTheirEnd) {
  for (const char* name : {"dualpipe", "dualpipev"}) {
    schedules::ScheduleParams p;
    p.stages = 4;
    p.micro_batches = 16;
    const Schedule s = schedules::make_schedule(name, p);
    const TaskGraph g = build_task_graph(s);
    UnitCostModel costs({1.0, 2.0, 1.0, 0.5, 0.0});
    const Trace t = simulate(g, costs);
    ASSERT_TRUE(t.completed);
    std::vector<TaskId> unit_of(g.num_tasks(), ~TaskId{0});
    std::vector<std::pair<TaskId, TaskId>> units;  // first, last
    for (TaskId v = 0; v < g.num_tasks(); ++v) {
      const Task& task = g.task(v);
      if (!is_compute(task.kind) || !task.paired) continue;
      if (task.join == Join::None) units.emplace_back(v, v);
      ASSERT_FALSE(units.empty());
      units.back().second = v;
      unit_of[v] = static_cast<TaskId>(units.size() - 1);
    }
    ASSERT_GT(units.size(), 0u) << name;
    const auto offset = g.successor_offsets();
    for (TaskId v = 0; v < g.num_tasks(); ++v) {
      for (TaskId i = offset[v]; i < offset[v + 1]; ++i) {
        const TaskId w = g.successors()[i];
        if (unit_of[v] != ~TaskId{0} && unit_of[v] != unit_of[w]) {
          EXPECT_GE(t.timing[w].start, t.timing[units[unit_of[v]].second].end) << name;
        }
        if (unit_of[w] != ~TaskId{0} && unit_of[v] != unit_of[w]) {
          EXPECT_LE(t.timing[v].end, t.timing[units[unit_of[w]].first].start) << name;
        }
      }
    }
    for (const auto& [first, last] : units) {
      for (TaskId v = first; v < last; ++v)
        EXPECT_DOUBLE_EQ(t.timing[v].end, t.timing[v + 1].start) << name;
    }
  }
}

}  // namespace
}  // namespace pipesim::sim
