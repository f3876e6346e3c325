// Activation offload in sim: the copies lowering adds (OffloadOps), their replay as flows on a
// worker's host link, and the memory they move — against hand-computed timelines and the closed
// form of the prefetch rule (lowering.hpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/network.hpp"

namespace pipesim::sim {
namespace {

Schedule one_f_one_b(int d, int n) {
  schedules::ScheduleParams p;
  p.stages = d;
  p.micro_batches = n;
  return schedules::make_schedule("1f1b", p);
}

bool is_copy(OpKind k) {
  return k == OpKind::Offload || k == OpKind::Reload;
}

// Transfers take no time; an offload copy moves `copy` seconds of data over its worker's
// device-to-host resource (2w) and a reload over its host-to-device one (2w + 1).
class HostLinkNetwork final : public NetworkModel {
 public:
  HostLinkNetwork(int workers, double copy) : workers_(workers), copy_(copy) {}
  int num_resources() const override { return 2 * workers_; }
  Flow flow(const TaskGraph& g, TaskId id) const override {
    const Task& t = g.task(id);
    if (!is_copy(t.kind)) return {};
    const int resource = 2 * t.worker + (t.kind == OpKind::Reload ? 1 : 0);
    return Flow{0.0, copy_, {{resource, 1.0}}};
  }

 private:
  int workers_;
  double copy_;
};

double end_of_run(const Trace& t) {
  double end = 0.0;
  for (const TaskTiming& x : t.timing)
    end = std::max(end, x.end);
  return end;
}

TEST(Offload, EveryActivationGetsOneCopyEachWayAroundItsForwardAndBackward) {
  const Schedule s = one_f_one_b(4, 8);
  const TaskGraph plain = build_task_graph(s);
  const TaskGraph g = build_task_graph(s, {}, OffloadOps{true, false});
  ASSERT_TRUE(check_acyclic(g).ok());
  EXPECT_EQ(g.num_tasks(), plain.num_tasks() + 2 * 4 * 8);
  std::map<std::pair<int, int>, int> out, back;  // (stage, micro-batch) → count
  const auto offset = g.successor_offsets();
  const auto succ = g.successors();
  for (TaskId v = 0; v < g.num_tasks(); ++v) {
    const Task& t = g.task(v);
    for (TaskId i = offset[v]; i < offset[v + 1]; ++i) {
      const Task& next = g.task(succ[i]);
      const bool same = next.stage == t.stage && next.micro_batch == t.micro_batch;
      // F → D, D → H, H → B of the same activation, on the worker that holds the stage.
      if (t.kind == OpKind::Forward && next.kind == OpKind::Offload) {
        EXPECT_TRUE(same);
        EXPECT_EQ(next.worker, t.worker);
        ++out[{t.stage, t.micro_batch}];
      }
      if (t.kind == OpKind::Reload && next.kind == OpKind::Backward) {
        EXPECT_TRUE(same);
        EXPECT_EQ(next.worker, t.worker);
        ++back[{t.stage, t.micro_batch}];
      }
      if (t.kind == OpKind::Offload) {
        EXPECT_EQ(next.kind, OpKind::Reload);
        EXPECT_TRUE(same);
      }
    }
  }
  EXPECT_EQ(out.size(), 32u);
  EXPECT_EQ(back.size(), 32u);
  for (const auto& [key, n] : out)
    EXPECT_EQ(n, 1);
  for (const auto& [key, n] : back)
    EXPECT_EQ(n, 1);
}

TEST(Offload, SelectiveKeepsWhatTheNextBackwardReuses) {
  // 1F1B, D = 4, N = 8. The reload of B(m) is issued at the end of the op before the worker's
  // previous backward. Stage 3 (F0 B0 F1 B1 ...) and stage 2 (F0 F1 B0 F2 B1 ...): that op is
  // F(m) itself or earlier, so nothing is offloaded; stages 0 and 1 have at least two forwards
  // between F(m) and B(m)'s predecessor backward, so every activation is.
  const TaskGraph g = build_task_graph(one_f_one_b(4, 8), {}, OffloadOps{true, true});
  ASSERT_TRUE(check_acyclic(g).ok());
  std::vector<int> per_stage(4, 0);
  for (const Task& t : g.tasks()) {
    if (t.kind == OpKind::Offload) ++per_stage[static_cast<size_t>(t.stage)];
  }
  EXPECT_EQ(per_stage, (std::vector<int>{8, 8, 0, 0}));
}

TEST(Offload, EverySchemeLowersAcyclicWithItsCopies) {
  int ran = 0;
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    schedules::ScheduleParams p;
    p.stages = 4;
    p.micro_batches = 8;
    if (!schedules::check_params(e.name, p).ok()) continue;  // a scheme that needs other parameters
    const Schedule s = schedules::make_schedule(e.name, p);
    ++ran;
    for (bool selective : {false, true}) {
      const TaskGraph g = build_task_graph(s, {}, OffloadOps{true, selective});
      EXPECT_TRUE(check_acyclic(g).ok()) << e.name;
      const Trace t =
          simulate_network(g, UnitCostModel({1, 2, 0, 0}), HostLinkNetwork(s.workers, 0.5), {});
      EXPECT_TRUE(t.completed) << e.name;
    }
  }
  EXPECT_GT(ran, 0);
}

TEST(Offload, AFreeLinkKeepsTheTimeAndLeavesTwoActivationsResident) {
  // With copies that take no time, f = 1 changes no compute time, and a worker holds at most
  // the activation of the op it runs plus the one prefetched for its next backward: min(2, D−s)
  // sets on stage s (1F1B holds min(N, D−s) without offload), and none at the end.
  constexpr int kD = 4, kN = 8;
  const Schedule s = one_f_one_b(kD, kN);
  const UnitCostModel unit({1, 2, 0, 0});
  const TaskGraph plain = build_task_graph(s);
  const TaskGraph g = build_task_graph(s, {}, OffloadOps{true, false});
  const Trace base = simulate_network(plain, unit, HostLinkNetwork(kD, 0.0), {});
  const Trace t = simulate_network(g, unit, HostLinkNetwork(kD, 0.0), {});
  ASSERT_TRUE(base.completed && t.completed);
  EXPECT_DOUBLE_EQ(end_of_run(t), end_of_run(base));
  const std::vector<StageMemory> without(kD, StageMemory{.activations = 1.0});
  const std::vector<StageMemory> with(kD, StageMemory{.activations = 1.0, .offloaded = 1.0});
  const auto before = track_memory(s, plain, base, without);
  const auto after = track_memory(s, g, t, with, true);
  for (int w = 0; w < kD; ++w) {
    const auto i = static_cast<size_t>(w);
    EXPECT_DOUBLE_EQ(before[i].peak, std::min(kN, kD - w)) << w;
    EXPECT_DOUBLE_EQ(after[i].peak, std::min(2, kD - w)) << w;
    EXPECT_DOUBLE_EQ(after[i].final, 0.0) << w;
    EXPECT_DOUBLE_EQ(after[i].timeline.back().bytes, 0.0) << w;
    EXPECT_GE(after[i].minimum, 0.0) << w;
  }
}

TEST(Offload, ASlowLinkDelaysTheBackwardByTheRoundTrip) {
  // 1F1B, D = 2, N = 1, t_F = 1, t_B = 2, free transfers, each copy c = 3 s alone:
  //   P1: F [1, 2], D [2, 5], H [5, 8], B [8, 10]  (no op between its F and B: no prefetch
  //   slack); P0: D [1, 4], H [4, 7], B waits for P1's B: [10, 12].
  // Without offload the run ends at 6: the last stage's round trip 2c = 6 is exposed in full.
  const Schedule s = one_f_one_b(2, 1);
  const UnitCostModel unit({1, 2, 0, 0});
  const TaskGraph g = build_task_graph(s, {}, OffloadOps{true, false});
  const Trace base = simulate_network(build_task_graph(s), unit, HostLinkNetwork(2, 3.0), {});
  const Trace t = simulate_network(g, unit, HostLinkNetwork(2, 3.0), {});
  ASSERT_TRUE(t.completed);
  EXPECT_DOUBLE_EQ(end_of_run(base), 6.0);
  EXPECT_DOUBLE_EQ(end_of_run(t), 6.0 + 2 * 3.0);
  for (TaskId v = 0; v < g.num_tasks(); ++v) {
    const Task& task = g.task(v);
    const double f_end = task.worker == 0 ? 1.0 : 2.0;
    if (task.kind == OpKind::Offload) {
      EXPECT_DOUBLE_EQ(t.timing[v].start, f_end);
      EXPECT_DOUBLE_EQ(t.timing[v].end, f_end + 3.0);
    }
    if (task.kind == OpKind::Reload) {
      EXPECT_DOUBLE_EQ(t.timing[v].end, f_end + 6.0);
    }
    if (task.kind == OpKind::Backward) {
      EXPECT_DOUBLE_EQ(t.timing[v].start, task.worker == 1 ? 8.0 : 10.0);
    }
  }
}

TEST(Offload, TwoCopiesOnOneLinkShareItMaxMin) {
  // GPipe, D = 1, N = 2: F0 [0, 1], F1 [1, 2]. With c = 2 the first offload runs alone on
  // the device-to-host link from 1 to 2 (1 s of work left), then both share it at half speed:
  // the first ends at 4, when the second has done 1 s of its work; the rest alone ends at 5.
  schedules::ScheduleParams p;
  p.stages = 1;
  p.micro_batches = 2;
  const Schedule s = schedules::make_schedule("gpipe", p);
  const TaskGraph g = build_task_graph(s, {}, OffloadOps{true, false});
  const Trace t = simulate_network(g, UnitCostModel({1, 2, 0, 0}), HostLinkNetwork(1, 2.0), {});
  ASSERT_TRUE(t.completed);
  std::map<int, TaskTiming> offload;
  for (TaskId v = 0; v < g.num_tasks(); ++v) {
    if (g.task(v).kind == OpKind::Offload) offload[g.task(v).micro_batch] = t.timing[v];
  }
  ASSERT_EQ(offload.size(), 2u);
  EXPECT_DOUBLE_EQ(offload[0].start, 1.0);
  EXPECT_DOUBLE_EQ(offload[0].end, 4.0);
  EXPECT_DOUBLE_EQ(offload[1].start, 2.0);
  EXPECT_DOUBLE_EQ(offload[1].end, 5.0);
}

}  // namespace
}  // namespace pipesim::sim
