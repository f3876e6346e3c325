// The critical path and slack (sim/critical_path.hpp): on every registered schedule the path is
// a chain of DAG edges and stream hand-overs whose durations and waits add up to the run, its
// steps have no slack and no task has negative slack; delaying a task by its slack leaves a
// flushing schedule's iteration time alone and delaying it by one slot more lengthens it by
// exactly one slot (a replay, not the backward pass); 1F1B's path is the chain reasoned out
// below; a task that waited for its stream continues the path through the task that held it.

#include "pipesim/sim/critical_path.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <vector>

#include "../support/random_params.hpp"
#include "../support/run_helpers.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim {
namespace {

// Whether the graph has an edge from → to of that kind.
bool has_edge(const sim::TaskGraph& g, sim::TaskId from, sim::TaskId to, sim::EdgeKind kind) {
  const auto offset = g.successor_offsets();
  for (sim::TaskId i = offset[from]; i < offset[from + 1]; ++i) {
    if (g.successors()[i] == to && g.edge_kinds()[i].kind == kind) return true;
  }
  return false;
}

sim::EdgeKind edge_kind(sim::Release via) {
  switch (via) {
    case sim::Release::ProgramOrder:
      return sim::EdgeKind::ProgramOrder;
    case sim::Release::Sync:
      return sim::EdgeKind::Sync;
    default:
      return sim::EdgeKind::Data;
  }
}

// Unit-cost mode: compute ops and the optimizer hold their worker's stream, nothing else does
// (docs/architecture.md §5).
bool on_stream(sim::OpKind k) {
  return sim::is_compute(k) || k == sim::OpKind::Optimizer;
}

// The properties every path must have, whatever the schedule. `tolerance` is absolute.
void expect_valid_path(const scenario::Result& r, const sim::CriticalPath& path, bool unit_cost) {
  const auto& timing = r.trace.timing;
  const double total = r.metrics.total_time;
  const double tol = 1e-9 * total;
  ASSERT_FALSE(path.steps.empty());
  double sum = 0.0;
  for (const sim::CriticalStep& s : path.steps)
    sum += s.duration() + s.wait;
  EXPECT_NEAR(sum, total, tol) << "durations + waits";
  EXPECT_NEAR(path.compute + path.communication + path.waiting, total, tol);
  if (!r.schedule.asynchronous) {
    EXPECT_NEAR(sum, r.metrics.iteration_time, tol);
  }
  EXPECT_EQ(path.steps.back().end, path.run_end);
  const std::vector<sim::TaskId> in = r.graph.in_degrees();
  const sim::CriticalStep& first = path.steps.front();
  EXPECT_EQ(first.via, sim::Release::RunStart);
  EXPECT_EQ(in[first.task], 0u) << "the first step has no predecessor";
  for (size_t i = 0; i < path.steps.size(); ++i) {
    const sim::CriticalStep& s = path.steps[i];
    EXPECT_EQ(s.start, timing[s.task].start);
    EXPECT_EQ(s.end, timing[s.task].end);
    EXPECT_GE(s.wait, 0.0);
    if (unit_cost) {
      // Every task starts when a predecessor or its stream's previous task ends.
      EXPECT_NEAR(s.wait, 0.0, tol) << "step " << i;
    }
    if (i == 0) continue;
    const sim::CriticalStep& p = path.steps[i - 1];
    EXPECT_NEAR(s.start - s.wait, p.end, tol) << "step " << i;
    if (s.via == sim::Release::Stream) {
      // The previous task on the same stream: both on it, one worker, nothing of that stream
      // ran in between.
      const sim::Task& a = r.graph.task(p.task);
      const sim::Task& b = r.graph.task(s.task);
      EXPECT_EQ(a.worker, b.worker) << "step " << i;
      if (unit_cost) {
        EXPECT_TRUE(on_stream(a.kind) && on_stream(b.kind)) << "step " << i;
      }
      EXPECT_LE(p.end, s.start);
      for (sim::TaskId t = 0; t < r.graph.num_tasks(); ++t) {
        const sim::Task& x = r.graph.task(t);
        if (t == p.task || t == s.task || x.worker != b.worker || !on_stream(x.kind)) continue;
        const bool inside =
            timing[t].start >= p.end && timing[t].end <= s.start && timing[t].end > timing[t].start;
        EXPECT_FALSE(inside) << "task " << t << " ran on the stream between steps " << i - 1
                             << " and " << i;
      }
    } else {
      EXPECT_TRUE(has_edge(r.graph, p.task, s.task, edge_kind(s.via)))
          << "step " << i << " is not a successor of step " << i - 1;
    }
  }
  // A step with no wait after it may not slip: the run's end follows it without a gap.
  bool wait_follows = false;
  for (size_t i = path.steps.size(); i-- > 0;) {
    if (!wait_follows) {
      EXPECT_NEAR(path.steps[i].slack, 0.0, tol) << "step " << i;
    }
    wait_follows = wait_follows || path.steps[i].wait > 0.0;
  }
  for (sim::TaskId t = 0; t < r.graph.num_tasks(); ++t) {
    ASSERT_GE(path.slack[t], -tol) << "task " << t;
  }
}

TEST(CriticalPath, IsAChainThatAddsUpToTheRunOnEverySchedule) {
  std::mt19937 rng(20270114);
  for (int trial = 0; trial < 12; ++trial) {
    for (const auto& entry : schedules::all_schedules()) {
      const schedules::ScheduleParams p = testing::draw_valid(entry.name, rng);
      sim::UnitCosts c = testing::draw_costs(rng);
      if (trial % 2 == 0) c.comm = std::max(c.comm, 0.375);  // half the trials pay for transfers
      c.all_reduce = trial % 3 == 0 ? c.forward * 1.5 : 0.0;
      SCOPED_TRACE(::testing::Message()
                   << entry.name << " D=" << p.stages << " N=" << p.micro_batches
                   << " t_F=" << c.forward << " t_B=" << c.backward << " t_W=" << c.weight_part()
                   << " t_comm=" << c.comm << " t_allreduce=" << c.all_reduce);
      const scenario::Result r = testing::run_unit(std::string(entry.name), p, c);
      const sim::CriticalPath path = sim::critical_path(r.graph, r.trace, {});
      expect_valid_path(r, path, true);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// A cost model that delays one task's end by `extra`.
class Delayed final : public sim::CostModel {
 public:
  Delayed(const sim::CostModel& base, sim::TaskId task, double extra)
      : base_(base), task_(task), extra_(extra) {}
  double duration(const sim::TaskGraph& g, sim::TaskId id) const override {
    return base_.duration(g, id) + (id == task_ ? extra_ : 0.0);
  }

 private:
  const sim::CostModel& base_;
  sim::TaskId task_;
  double extra_;
};

// Flushing schedules in unit-cost mode: every stream runs in program order, so the replay is
// the DAG's earliest schedule and a task's slack is exactly how much later it may end. Checked
// by replaying with the task lengthened, independently of the backward pass.
TEST(CriticalPath, SlackIsHowMuchATaskMaySlipWithoutDelayingTheIteration) {
  std::mt19937 rng(20270115);
  int slipped = 0;
  for (const auto& entry : schedules::all_schedules()) {
    for (int trial = 0; trial < 2; ++trial) {
      const schedules::ScheduleParams p = testing::draw_valid(entry.name, rng);
      sim::UnitCosts c = testing::draw_costs(rng);
      c.comm = 0.25 * trial;
      const scenario::Result r = testing::run_unit(std::string(entry.name), p, c);
      if (r.schedule.asynchronous) break;
      SCOPED_TRACE(::testing::Message()
                   << entry.name << " D=" << p.stages << " N=" << p.micro_batches);
      const sim::CriticalPath path = sim::critical_path(r.graph, r.trace, {});
      const sim::UnitCostModel base(scenario::op_unit_costs(c, r.schedule));
      const double t = r.metrics.iteration_time;
      for (int k = 0; k < 6; ++k) {
        const auto task = static_cast<sim::TaskId>(rng() % r.graph.num_tasks());
        const double slack = path.slack[task];
        const sim::Trace same = sim::simulate(r.graph, Delayed(base, task, slack));
        const sim::Trace late = sim::simulate(r.graph, Delayed(base, task, slack + 1.0));
        const sim::Metrics m_same = sim::compute_metrics(r.schedule, r.graph, same);
        const sim::Metrics m_late = sim::compute_metrics(r.schedule, r.graph, late);
        EXPECT_NEAR(m_same.iteration_time, t, 1e-9 * t) << "task " << task << " slack " << slack;
        EXPECT_NEAR(m_late.iteration_time, t + 1.0, 1e-9 * t) << "task " << task;
        slipped += slack > 0.0;
      }
    }
  }
  EXPECT_GT(slipped, 0) << "some sampled task had slack";
}

// 1F1B, D = 4, N = 8, t_F = 1, t_B = 2, no communication cost. The last stage (worker 3) gets
// micro-batch 0 after the three forwards ahead of it (3 slots), then alternates F and B with no
// gap: stage 3 has no warm-up, and worker 2 finishes F(2, m+1) (right after its B(2, m−1)) no
// later than B(3, m) ends (from m = 1 on at the same instant: both chains are critical, and the
// walk keeps the worker's own previous op), so the worker runs back to back for
// N(t_F + t_B) = 24 slots. The last gradient then walks back through stages 2, 1, 0, each idle
// and waiting for it (their cool-down ends with that backward): 3 t_B = 6 slots. Then stage 0's
// all-reduce and worker 0's optimizer step, free in unit-cost mode. 3 + 24 + 6 = 33 slots =
// (N + D − 1)(t_F + t_B). Between workers the path crosses a transfer (a 0-slot task).
TEST(CriticalPath, OneFOneBFollowsTheLastStage) {
  schedules::ScheduleParams p;
  p.stages = 4;
  p.micro_batches = 8;
  const scenario::Result r = testing::run_unit("1f1b", p, {1, 2, 0, 0});
  const sim::CriticalPath path = sim::critical_path(r.graph, r.trace, {});
  std::vector<sim::Op> expected;
  using K = sim::OpKind;
  for (int s = 0; s < 4; ++s)
    expected.push_back({K::Forward, 0, s, 0, 0});
  expected.push_back({K::Backward, 0, 3, 0, 0});
  for (int m = 1; m < 8; ++m) {
    expected.push_back({K::Forward, 0, 3, 0, m});
    expected.push_back({K::Backward, 0, 3, 0, m});
  }
  for (int s = 2; s >= 0; --s)
    expected.push_back({K::Backward, 0, s, 0, 7});
  std::vector<sim::Op> compute;
  int transfers = 0;
  for (const sim::CriticalStep& s : path.steps) {
    const sim::Task& t = r.graph.task(s.task);
    if (sim::is_compute(t.kind)) compute.push_back(t.op());
    transfers += t.kind == K::Transfer;
    EXPECT_EQ(s.wait, 0.0);
    EXPECT_EQ(s.slack, 0.0);
  }
  EXPECT_EQ(compute, expected);
  EXPECT_EQ(transfers, 6);  // 3 forward hops, 3 backward hops
  EXPECT_EQ(r.graph.task(path.steps.back().task).kind, K::Optimizer);
  EXPECT_EQ(r.graph.task(path.steps.back().task).worker, 0);
  EXPECT_EQ(r.graph.task(path.steps[path.steps.size() - 2].task).kind, K::AllReduce);
  EXPECT_EQ(path.steps.size(), expected.size() + 6 + 2);
  EXPECT_EQ(path.compute, 33.0);
  EXPECT_EQ(path.communication, 0.0);
  EXPECT_EQ(path.waiting, 0.0);
  EXPECT_EQ(path.run_end, 33.0);
}

// A cost model of fixed durations by task id.
class Fixed final : public sim::CostModel {
 public:
  explicit Fixed(std::vector<double> d) : d_(std::move(d)) {}
  double duration(const sim::TaskGraph&, sim::TaskId id) const override { return d_[id]; }

 private:
  std::vector<double> d_;
};

// Worker 0 runs a forward a (2 slots) with an optimizer step o (1 slot) queued behind it and
// a backward b that needs a: when a ends at 2, o (ready since 0, queued first) takes the stream
// until 3, so b, ready at 2, starts at 3. Worker 1 runs c (1 slot), which b also needs.
// The path: a, o (waited for the stream), b (waited for the stream, ready at 2); c could end
// as late as b's start, 3: slack 2.
TEST(CriticalPath, ATaskThatWaitedForItsStreamContinuesThroughItsHolder) {
  sim::TaskGraphBuilder b(2);
  using K = sim::OpKind;
  const sim::TaskId a = b.add_task({K::Forward, K::Forward, sim::Join::None, false,
                                    sim::SyncPart::Whole, 0, -1, 0, 0, 0, 0, -1});
  const sim::TaskId o = b.add_task({K::Optimizer, K::Forward, sim::Join::None, false,
                                    sim::SyncPart::Whole, 0, -1, 0, 0, 0, -1, -1});
  const sim::TaskId bw = b.add_task({K::Backward, K::Forward, sim::Join::None, false,
                                     sim::SyncPart::Whole, 0, -1, 0, 0, 0, 0, -1});
  const sim::TaskId c = b.add_task({K::Forward, K::Forward, sim::Join::None, false,
                                    sim::SyncPart::Whole, 1, -1, 0, 1, 0, 0, -1});
  b.add_edge(a, bw, sim::EdgeKind::ProgramOrder);
  b.add_edge(c, bw, sim::EdgeKind::Data);
  const sim::TaskGraph g = std::move(b).build();
  const sim::Trace trace = sim::simulate(g, Fixed({2, 1, 2, 1}));
  ASSERT_TRUE(trace.completed);
  ASSERT_EQ(trace.timing[bw].start, 3.0);
  const sim::CriticalPath path = sim::critical_path(g, trace, {});
  ASSERT_EQ(path.steps.size(), 3u);
  EXPECT_EQ(path.steps[0].task, a);
  EXPECT_EQ(path.steps[0].via, sim::Release::RunStart);
  EXPECT_EQ(path.steps[1].task, o);
  EXPECT_EQ(path.steps[1].via, sim::Release::Stream);
  EXPECT_EQ(path.steps[1].ready, 0.0);
  EXPECT_EQ(path.steps[2].task, bw);
  EXPECT_EQ(path.steps[2].via, sim::Release::Stream);
  EXPECT_EQ(path.steps[2].ready, 2.0);
  EXPECT_EQ(path.steps[2].wait, 0.0);
  EXPECT_EQ(path.compute, 5.0);
  EXPECT_EQ(path.slack[c], 2.0);
  for (sim::TaskId t : {a, o, bw})
    EXPECT_EQ(path.slack[t], 0.0);
}

// One resource; every flow moves 1 second of data, no latency.
class OneLink final : public sim::NetworkModel {
 public:
  int num_resources() const override { return 1; }
  sim::Flow flow(const sim::TaskGraph&, sim::TaskId) const override {
    return {0.0, 1.0, {{0, 1.0}}};
  }
};

// A flushed gradient sync (GradSync::Flush) waits for every compute op of its holders, not only
// for its predecessor: worker 0 runs x (1 s) then y (3 s); the all-reduce needs x only but
// starts when y ends, at 4, then the optimizer step. The path: x, a wait of 3 s, the
// all-reduce (1 s), the step (0.5 s): 1 + 3 + 1 + 0.5 = 5.5 s. Neither x nor y may slip: y's
// end released the sync (though no edge says so), and x precedes y on the stream.
TEST(CriticalPath, AFlushedSyncWaitsWithoutAPredecessor) {
  sim::TaskGraphBuilder b(1);
  using K = sim::OpKind;
  const sim::TaskId x = b.add_task({K::Forward, K::Forward, sim::Join::None, false,
                                    sim::SyncPart::Whole, 0, -1, 0, 0, 0, 0, -1});
  const sim::TaskId y = b.add_task({K::Backward, K::Forward, sim::Join::None, false,
                                    sim::SyncPart::Whole, 0, -1, 0, 0, 0, 0, -1});
  sim::Task reduce{
      K::AllReduce, K::Forward, sim::Join::None, false, sim::SyncPart::Whole, 0, -1, 0, 0, 0,
      -1,           -1};
  reduce.group = b.add_group({0});
  const sim::TaskId a = b.add_task(reduce);
  const sim::TaskId o = b.add_task({K::Optimizer, K::Forward, sim::Join::None, false,
                                    sim::SyncPart::Whole, 0, -1, 0, 0, 0, -1, -1});
  b.add_edge(x, y, sim::EdgeKind::ProgramOrder);
  b.add_edge(x, a, sim::EdgeKind::Sync);
  b.add_edge(a, o, sim::EdgeKind::Sync);
  const sim::TaskGraph g = std::move(b).build();
  sim::EngineOptions options;
  options.grad_sync = sim::GradSync::Flush;
  const sim::Trace trace = sim::simulate_network(g, Fixed({1, 3, 0, 0.5}), OneLink(), options);
  ASSERT_TRUE(trace.completed);
  ASSERT_EQ(trace.timing[a].start, 4.0);
  const sim::CriticalPath path = sim::critical_path(g, trace, {});
  ASSERT_EQ(path.steps.size(), 3u);
  EXPECT_EQ(path.steps[0].task, x);
  EXPECT_EQ(path.steps[1].task, a);
  EXPECT_EQ(path.steps[1].via, sim::Release::Sync);
  EXPECT_EQ(path.steps[1].ready, 1.0);
  EXPECT_EQ(path.steps[1].wait, 3.0);
  EXPECT_EQ(path.steps[2].task, o);
  EXPECT_EQ(path.compute, 1.5);
  EXPECT_EQ(path.communication, 1.0);
  EXPECT_EQ(path.waiting, 3.0);
  EXPECT_EQ(path.slack[y], 0.0) << "y's end released the sync";
  EXPECT_EQ(path.slack[x], 0.0) << "y follows x on the stream";
}

// Real-cost mode: blocking sends (overlap_p2p off) hold the sender's stream, so on GPipe's
// last stage each backward after the first waits for the send of the previous one's gradient;
// a flushed gradient sync waits for its holders' compute (a gap, not a predecessor). Durations
// and waits still add up, and the path stays a chain.
TEST(CriticalPath, RealCostPathsAddUpWithBlockingSendsAndFlushedSync) {
  struct Case {
    const char* schedule;
    bool overlap;
    sim::GradSync sync;
  };
  for (const Case& k :
       {Case{"gpipe", false, sim::GradSync::Eager}, Case{"chimera", true, sim::GradSync::Flush},
        Case{"chimera", true, sim::GradSync::EagerOpt}}) {
    SCOPED_TRACE(k.schedule);
    scenario::Scenario s;
    s.schedule = k.schedule;
    s.params.stages = 4;
    s.params.micro_batches = 8;
    s.perf.model = "gpt2-32l";
    s.perf.hardware = "p100-daint";
    s.perf.setup.data_parallel = 2;
    s.perf.overlap_p2p = k.overlap;
    s.perf.grad_sync = k.sync;
    const scenario::Result r = scenario::simulate(s);
    const sim::CriticalPath path =
        sim::critical_path(r.graph, r.trace, sim::StreamRule{!k.overlap});
    expect_valid_path(r, path, false);
    if (!k.overlap) {
      const auto held = std::find_if(path.steps.begin(), path.steps.end(),
                                     [](const auto& st) { return st.via == sim::Release::Stream; });
      ASSERT_NE(held, path.steps.end());
      EXPECT_EQ(r.graph.task(std::prev(held)->task).kind, sim::OpKind::Transfer);
      EXPECT_GT(held->start, held->ready);
    }
  }
}

}  // namespace
}  // namespace pipesim
