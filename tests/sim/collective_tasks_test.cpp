// Collective tasks (the collectives inside an op's layers, lowering.hpp OpCollectives): how
// lowering numbers and connects them, checked edge by edge against the graph lowered without
// them; and replays against the closed forms of 1F1B with each op's collectives after it on the
// stream (serialised) or beside it (overlapped), with the metrics' accounting.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "../../sim/src/uncontended.hpp"
#include "../support/run_helpers.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/metrics.hpp"
#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/time_breakdown.hpp"

namespace pipesim::sim {
namespace {

sim::Schedule make(const char* name, int stages, int micro_batches) {
  schedules::ScheduleParams p;
  p.stages = stages;
  p.micro_batches = micro_batches;
  return schedules::make_schedule(name, p);
}

// F and the input-gradient backward (B, or I when split) carry collectives, as with tensor
// parallelism; W does not.
OpCollectives tp_like(const Schedule& s, bool overlap) {
  OpCollectives c;
  c.overlap = overlap;
  c.carries.assign(static_cast<size_t>(s.virtual_stages) * kNumComputeKinds, 0);
  for (int st = 0; st < s.virtual_stages; ++st) {
    for (OpKind k : {OpKind::Forward, OpKind::Backward, OpKind::BackwardInput}) {
      c.carries[static_cast<size_t>(st) * kNumComputeKinds + static_cast<size_t>(k)] = 1;
    }
  }
  return c;
}

using EdgeList = std::vector<std::tuple<TaskId, TaskId, EdgeKind>>;

EdgeList edges_of(const TaskGraph& g) {
  EdgeList out;
  const auto offset = g.successor_offsets();
  for (TaskId v = 0; v < g.num_tasks(); ++v) {
    for (TaskId i = offset[v]; i < offset[v + 1]; ++i)
      out.emplace_back(v, g.successors()[i], g.edge_kinds()[i].kind);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The graph with collectives against the plain one: the same compute tasks first, then one
// Collective per carried op (worker by worker, program order), then the plain graph's other
// tasks; and the plain graph's edges rewired as OpCollectives says.
void expect_lowered_with_collectives(const Schedule& s, bool overlap) {
  const OpCollectives carries = tp_like(s, overlap);
  const TaskGraph plain = build_task_graph(s);
  const TaskGraph g = build_task_graph(s, carries);
  size_t ops = 0;
  for (const auto& program : s.program)
    ops += program.size();
  std::vector<TaskId> collective_of(ops, std::numeric_limits<TaskId>::max());
  TaskId next = static_cast<TaskId>(ops);
  for (TaskId v = 0; v < ops; ++v) {
    const Task& t = plain.task(v);
    ASSERT_EQ(g.task(v).kind, t.kind);
    ASSERT_EQ(g.task(v).worker, t.worker);
    ASSERT_EQ(g.task(v).micro_batch, t.micro_batch);
    if (!carries.carried(t.stage, t.kind)) continue;
    const Task& c = g.task(next);
    EXPECT_EQ(c.kind, OpKind::Collective);
    EXPECT_EQ(c.carrier, t.kind);
    EXPECT_EQ(c.worker, t.worker);
    EXPECT_EQ(c.stage, t.stage);
    EXPECT_EQ(c.micro_batch, t.micro_batch);
    EXPECT_EQ(g.hands_stream_over(v), !overlap);
    collective_of[v] = next++;
  }
  const TaskId added = next - static_cast<TaskId>(ops);
  ASSERT_GT(added, 0u);
  ASSERT_EQ(g.num_tasks(), plain.num_tasks() + added);
  const auto moved = [&](TaskId v) { return v < ops ? v : v + added; };
  for (TaskId v = static_cast<TaskId>(ops); v < plain.num_tasks(); ++v) {
    EXPECT_EQ(g.task(moved(v)).kind, plain.task(v).kind);
    EXPECT_EQ(g.task(moved(v)).worker, plain.task(v).worker);
  }
  EdgeList expected;
  const auto carried = [&](TaskId v) {
    return v < ops && collective_of[v] != std::numeric_limits<TaskId>::max();
  };
  for (TaskId v = 0; v < ops; ++v) {
    if (carried(v) && !overlap) expected.emplace_back(v, collective_of[v], EdgeKind::Data);
  }
  for (const auto& [u, v, kind] : edges_of(plain)) {
    std::vector<TaskId> from{moved(u)}, to{moved(v)};
    if (carried(u))
      from = overlap ? std::vector<TaskId>{u, collective_of[u]}
                     : std::vector<TaskId>{collective_of[u]};
    if (carried(v) && overlap) to.push_back(collective_of[v]);
    for (TaskId f : from) {
      for (TaskId t : to)
        expected.emplace_back(f, t, kind);
    }
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(edges_of(g), expected);
  EXPECT_TRUE(g.has_collectives());
  EXPECT_EQ(g.collectives_overlap(), overlap);
  EXPECT_TRUE(check_acyclic(g).ok());
}

TEST(CollectiveTasks, SerialisedOnesFollowTheirOpAndTakeItsEdges) {
  expect_lowered_with_collectives(make("1f1b", 3, 5), false);
  expect_lowered_with_collectives(make("zb-h1", 3, 6), false);
  expect_lowered_with_collectives(make("interleaved", 2, 4), false);
}

TEST(CollectiveTasks, OverlappedOnesShareTheirOpsPredecessorsAndSuccessors) {
  expect_lowered_with_collectives(make("1f1b", 3, 5), true);
  expect_lowered_with_collectives(make("zb-h1", 3, 6), true);
  expect_lowered_with_collectives(make("interleaved", 2, 4), true);
}

TEST(CollectiveTasks, NoneCarriedLowersTheSameGraph) {
  const Schedule s = make("1f1b", 4, 8);
  OpCollectives none;
  none.carries.assign(static_cast<size_t>(s.virtual_stages) * kNumComputeKinds, 0);
  none.overlap = true;
  const TaskGraph plain = build_task_graph(s), g = build_task_graph(s, none);
  EXPECT_FALSE(g.has_collectives());
  EXPECT_EQ(g.num_tasks(), plain.num_tasks());
  EXPECT_EQ(edges_of(g), edges_of(plain));
}

// F = 1, B = 2 and every Collective `c` slots; everything else free.
class OpCosts final : public CostModel {
 public:
  explicit OpCosts(double collective) : collective_(collective) {}
  double duration(const TaskGraph& g, TaskId id) const override {
    switch (g.task(id).kind) {
      case OpKind::Forward:
        return 1.0;
      case OpKind::Backward:
        return 2.0;
      case OpKind::Collective:
        return collective_;
      default:
        return 0.0;
    }
  }

 private:
  double collective_;
};

using pipesim::testing::expect_same_trace;

TEST(CollectiveTasks, SerialisedOnesLengthenEveryOpOnItsStream) {
  // 1F1B, no transfer delay: (N + D − 1)(t_F + t_B) with each op followed by its collective,
  // t_F = 1 + c, t_B = 2 + c. busy counts compute ops only (N · 3 per worker); the collectives
  // are exposed communication (N · 2c per worker: they never overlap their worker's compute).
  const int d = 4, n = 8;
  const double c = 0.5;
  const Schedule s = make("1f1b", d, n);
  const TaskGraph g = build_task_graph(s, tp_like(s, false));
  const OpCosts costs(c);
  const Trace t = simulate(g, costs);
  ASSERT_TRUE(t.completed);
  expect_same_trace(t, detail::replay_events(g, costs));
  ASSERT_TRUE(detail::replay_uncontended(g, costs).has_value());  // nothing waits: the shortcut
  const Metrics m = compute_metrics(s, g, t);
  EXPECT_EQ(m.iteration_time, (n + d - 1) * (1 + c + 2 + c));
  for (const WorkerMetrics& w : m.workers)
    EXPECT_EQ(w.busy, n * 3.0);
  EXPECT_DOUBLE_EQ(m.bubble_ratio, 1 - d * n * 3.0 / (d * m.span));
  for (const WorkerTime& w : time_breakdown(g, t)) {
    EXPECT_EQ(w.compute, n * 3.0);
    EXPECT_EQ(w.exposed_communication, n * 2 * c);
    EXPECT_DOUBLE_EQ(w.compute + w.exposed_communication + w.idle, m.iteration_time);
  }
}

TEST(CollectiveTasks, OverlappedOnesCostOnlyWhatOutlastsTheirOp) {
  // Beside its op, a collective costs max(op, collective): nothing when shorter than F = 1,
  // F = c when longer (B = 2 stays the longer).
  const int d = 4, n = 8;
  const Schedule s = make("1f1b", d, n);
  const TaskGraph g = build_task_graph(s, tp_like(s, true));
  for (double c : {0.5, 1.5}) {
    SCOPED_TRACE(c);
    const OpCosts costs(c);
    const Trace t = simulate(g, costs);
    ASSERT_TRUE(t.completed);
    expect_same_trace(t, detail::replay_events(g, costs));
    const Metrics m = compute_metrics(s, g, t);
    EXPECT_EQ(m.iteration_time, (n + d - 1) * (std::max(1.0, c) + 2));
    for (const WorkerMetrics& w : m.workers)
      EXPECT_EQ(w.busy, n * 3.0);
    for (const WorkerTime& w : time_breakdown(g, t)) {
      // Exposed: only the part of a forward's collective past its forward, N (c − 1) at most.
      EXPECT_LE(w.exposed_communication, n * std::max(0.0, c - 1) + 1e-12);
      EXPECT_DOUBLE_EQ(w.compute + w.exposed_communication + w.idle, m.iteration_time);
    }
    // Each collective starts with its op.
    for (TaskId v = 0; v < g.num_tasks(); ++v) {
      if (g.task(v).kind != OpKind::Collective) continue;
      const auto op = std::find_if(g.tasks().begin(), g.tasks().end(), [&](const Task& o) {
        return o.kind == g.task(v).carrier && o.stage == g.task(v).stage &&
               o.micro_batch == g.task(v).micro_batch;
      });
      EXPECT_EQ(t.timing[v].start, t.timing[static_cast<size_t>(op - g.tasks().begin())].start);
    }
  }
}

}  // namespace
}  // namespace pipesim::sim
