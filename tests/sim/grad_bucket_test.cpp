// Bucketed data-parallel sync (lowering.hpp, GradBuckets; task_graph.hpp, StartRelease): closed
// forms on one worker whose last backward lasts t_B and whose k buckets take c each, contention
// of a released bucket with a transfer, and the critical path's accounting.

#include <gtest/gtest.h>

#include <algorithm>

#include "pipesim/sim/critical_path.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/network.hpp"

namespace pipesim::sim {
namespace {

// One stage on one worker, one micro-batch: F then B.
Schedule one_stage() {
  Schedule s;
  s.name = "one-stage";
  s.workers = 1;
  s.virtual_stages = 1;
  s.micro_batches = 1;
  s.stage_worker = {{0}};
  s.micro_batch_pipeline = {0};
  s.program = {{Op{OpKind::Forward, 0, 0, 0, 0}, Op{OpKind::Backward, 0, 0, 0, 0}}};
  return s;
}

// Every AllReduce task (a whole sync, or any bucket) is a flow of `c` on resource 0.
class SyncNetwork final : public NetworkModel {
 public:
  explicit SyncNetwork(double c) : c_(c) {}
  int num_resources() const override { return 1; }
  Flow flow(const TaskGraph&, TaskId) const override { return Flow{0.0, c_, {{0, 1.0}}}; }

 private:
  double c_;
};

double run_end(const Trace& t) {
  double end = 0.0;
  for (const TaskTiming& x : t.timing)
    end = std::max(end, x.end);
  return end;
}

// Bucket j is released at t_F + (j+1)/k·t_B (the last at B's end) and follows bucket j−1, so
// the last ends at t_F + t_B + max(c, k·c − (k−1)/k·t_B): exposed = max(c, k·c − (k−1)·t_B/k).
double exposed_closed_form(int k, double c, double t_backward) {
  return std::max(c, k * c - (k - 1) * t_backward / k);
}

TEST(GradBuckets, ExposedSyncMatchesTheClosedForm) {
  const double tf = 1.0, tb = 2.0;
  const UnitCostModel compute({tf, tb, std::nullopt, 0, 0});
  for (int k : {1, 2, 4, 8}) {
    for (double c : {0.1, 0.25, 0.5, 1.0, 3.0}) {
      GradBuckets b;
      b.buckets = {k};
      const TaskGraph g = build_task_graph(one_stage(), {}, {}, b);
      const Trace t = simulate_network(g, compute, SyncNetwork(c), {});
      ASSERT_TRUE(t.completed);
      EXPECT_NEAR(run_end(t) - (tf + tb), exposed_closed_form(k, c, tb), 1e-12)
          << "k = " << k << ", c = " << c;
    }
  }
}

TEST(GradBuckets, WithoutBucketsTheWholeSyncFollowsTheBackward) {
  const UnitCostModel compute({1.0, 2.0, std::nullopt, 0, 0});
  const TaskGraph g = build_task_graph(one_stage());
  EXPECT_TRUE(g.releases().empty());
  const Trace t = simulate_network(g, compute, SyncNetwork(0.7), {});
  EXPECT_DOUBLE_EQ(run_end(t), 1.0 + 2.0 + 0.7);
}

TEST(GradBuckets, TheLoweringNumbersBucketsAndReleasesThemInOrder) {
  GradBuckets b;
  b.buckets = {4};
  const TaskGraph g = build_task_graph(one_stage(), {}, {}, b);
  std::vector<TaskId> buckets;
  for (TaskId v = 0; v < g.num_tasks(); ++v) {
    if (g.task(v).kind == OpKind::AllReduce) buckets.push_back(v);
  }
  ASSERT_EQ(buckets.size(), 4u);
  for (size_t j = 0; j < buckets.size(); ++j) {
    EXPECT_EQ(g.task(buckets[j]).part, SyncPart::Gradients);
    EXPECT_EQ(g.task(buckets[j]).micro_batch, static_cast<int>(j));
  }
  ASSERT_EQ(g.releases().size(), 3u);  // the last bucket follows the backward's end
  for (size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(g.releases()[j].task, buckets[j]);
    EXPECT_EQ(g.releases()[j].anchor, TaskId{1});  // B
    EXPECT_DOUBLE_EQ(g.releases()[j].fraction, static_cast<double>(j + 1) / 4.0);
  }
}

TEST(GradBuckets, AReleasedBucketSharesItsLinkMaxMin) {
  // A: a 2 s op on worker 0; bucket G released at half of it (t = 1), work 1 on r0; transfer X
  // from t = 0, work 2 on r0. X alone until 1 (1 left), then both at ½: both end at 3.
  TaskGraphBuilder b(2);
  const TaskId a = b.add_task(Task{.kind = OpKind::Forward, .worker = 0, .micro_batch = 0});
  const int group = b.add_group({0});
  const TaskId gb = b.add_task(Task{.kind = OpKind::AllReduce,
                                    .part = SyncPart::Gradients,
                                    .worker = 0,
                                    .micro_batch = 0,
                                    .group = group});
  const TaskId x = b.add_task(Task{.kind = OpKind::Transfer, .worker = 1, .peer = 0});
  b.add_release(StartRelease{gb, a, 0.5});
  const TaskGraph g = std::move(b).build();
  const UnitCostModel compute({2.0, 2.0, std::nullopt, 0, 0});
  class Net final : public NetworkModel {
   public:
    int num_resources() const override { return 1; }
    Flow flow(const TaskGraph& graph, TaskId id) const override {
      return Flow{0.0, graph.task(id).kind == OpKind::Transfer ? 2.0 : 1.0, {{0, 1.0}}};
    }
  };
  const Trace t = simulate_network(g, compute, Net(), {});
  ASSERT_TRUE(t.completed);
  EXPECT_DOUBLE_EQ(t.timing[gb].start, 1.0);
  EXPECT_DOUBLE_EQ(t.timing[gb].end, 3.0);
  EXPECT_DOUBLE_EQ(t.timing[x].end, 3.0);
  // Alone, the bucket would end at 2.
  const Trace alone = simulate_network(g, compute, SyncNetwork(1.0),
                                       {});  // every flow 1: X ends at 1, G alone from 1 to 2
  EXPECT_DOUBLE_EQ(alone.timing[gb].end, 2.0);
}

TEST(GradBuckets, ReleaseFollowsTheAnchorsActualStart) {
  // Two stages on two workers: stage 0's B waits for stage 1's gradient, so its buckets are
  // released from B(0)'s start, not from the end of the op before it.
  Schedule s;
  s.name = "two-stage";
  s.workers = 2;
  s.virtual_stages = 2;
  s.micro_batches = 1;
  s.stage_worker = {{0, 1}};
  s.micro_batch_pipeline = {0};
  s.program = {{Op{OpKind::Forward, 0, 0, 0, 0}, Op{OpKind::Backward, 0, 0, 0, 0}},
               {Op{OpKind::Forward, 0, 1, 0, 0}, Op{OpKind::Backward, 0, 1, 0, 0}}};
  GradBuckets b;
  b.buckets = {2, 2};
  const TaskGraph g = build_task_graph(s, {}, {}, b);
  const UnitCostModel compute({1.0, 2.0, std::nullopt, 0, 0});
  // Transfers free, buckets 0.1 each (no resource shared).
  class Net final : public NetworkModel {
   public:
    int num_resources() const override { return 0; }
    Flow flow(const TaskGraph& graph, TaskId id) const override {
      return Flow{0.0, graph.task(id).kind == OpKind::Transfer ? 0.0 : 0.1, {}};
    }
  };
  const Trace t = simulate_network(g, compute, Net(), {});
  ASSERT_TRUE(t.completed);
  // F0 0–1, F1 1–2, B1 2–4, B0 4–6: stage 0's first bucket released at 4 + 1 = 5.
  for (const StartRelease& r : g.releases()) {
    EXPECT_DOUBLE_EQ(t.timing[r.task].start, t.timing[r.anchor].start + r.fraction * 2.0);
  }
  EXPECT_DOUBLE_EQ(run_end(t), 6.0 + 0.1);
}

TEST(GradBuckets, CriticalPathAddsUpToTheIterationTime) {
  const UnitCostModel compute({1.0, 2.0, std::nullopt, 0, 0});
  for (double c : {0.1, 1.0}) {
    GradBuckets b;
    b.buckets = {4};
    const TaskGraph g = build_task_graph(one_stage(), {}, {}, b);
    const Trace t = simulate_network(g, compute, SyncNetwork(c), {});
    const CriticalPath p = critical_path(g, t, StreamRule{});
    double sum = 0.0;
    for (const CriticalStep& s : p.steps)
      sum += s.duration() + s.wait;
    EXPECT_NEAR(sum, p.run_end - p.run_start, 1e-12);
    EXPECT_NEAR(p.compute + p.communication + p.waiting, p.run_end - p.run_start, 1e-12);
    EXPECT_DOUBLE_EQ(p.run_end, run_end(t));
  }
}

TEST(GradBuckets, ParameterGatherGatesTheFirstForward) {
  // Distributed optimizer with gather overlap, k = 2, each bucket c: gather 0 at 0–c gates F;
  // gather 1 is released when F starts (c) and ends at 2c; B waits for it: B starts at
  // max(c + t_F, 2c).
  const double tf = 1.0, tb = 2.0;
  const UnitCostModel compute({tf, tb, std::nullopt, 0, 0});
  for (double c : {0.25, 2.0}) {
    GradBuckets b;
    b.buckets = {2};
    b.gather_apart = true;
    b.overlap_gather = true;
    const TaskGraph g = build_task_graph(one_stage(), {}, {}, b);
    const Trace t = simulate_network(g, compute, SyncNetwork(c), {});
    ASSERT_TRUE(t.completed);
    EXPECT_DOUBLE_EQ(t.timing[0].start, c);                        // F
    EXPECT_DOUBLE_EQ(t.timing[1].start, std::max(c + tf, 2 * c));  // B
  }
}

}  // namespace
}  // namespace pipesim::sim
