// The validator rejects broken schedules with a reason naming the problem.

#include <gtest/gtest.h>

#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/simulator.hpp"

namespace pipesim::sim {
namespace {

Schedule valid_1f1b() {
  schedules::ScheduleParams p;
  p.stages = 4;
  p.micro_batches = 6;
  return schedules::make_schedule("1f1b", p);
}

bool erase_first(std::vector<Op>& ops, OpKind kind, int micro_batch) {
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    if (it->kind == kind && it->micro_batch == micro_batch) {
      ops.erase(it);
      return true;
    }
  }
  return false;
}

// The problem's text without its location; empty when the check passed.
std::string problem_of(const core::Check& c) {
  return c.ok() ? std::string() : c.problem().problem();
}

TEST(Validator, AcceptsGeneratedSchedules) {
  EXPECT_TRUE(validate(valid_1f1b()).ok());
}

TEST(Validator, RejectsMissingOp) {
  Schedule s = valid_1f1b();
  ASSERT_TRUE(erase_first(s.program[2], OpKind::Backward, 3));
  const core::Check v = validate(s);
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(problem_of(v), "missing B(stage 2, micro-batch 3) (expected on worker 2)");
}

TEST(Validator, RejectsDuplicateOp) {
  Schedule s = valid_1f1b();
  s.program[1].push_back(s.program[1].front());
  const core::Check v = validate(s);
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(problem_of(v), "duplicate F(stage 1, micro-batch 0) on worker 1");
}

TEST(Validator, RejectsCyclicProgramOrder) {
  // Worker 1 runs B(0) before F(0): B(0) on stage 1 needs F(0) on stage 1 first.
  Schedule s = valid_1f1b();
  auto& ops = s.program[1];
  ASSERT_TRUE(erase_first(ops, OpKind::Backward, 0));
  ops.insert(ops.begin(), Op{OpKind::Backward, 0, 1, 0, 0});
  const core::Check v = validate(s);
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(problem_of(v),
            "cyclic order (deadlock): worker 1 can never run B(stage 1, micro-batch 0)");
}

TEST(Validator, RejectsCrossWorkerDeadlock) {
  // Stage 0 waits for B(1) before sending F(1): stage 1 can never produce B(1).
  Schedule s = valid_1f1b();
  auto& ops = s.program[0];
  ASSERT_TRUE(erase_first(ops, OpKind::Forward, 1));
  ops.push_back(Op{OpKind::Forward, 0, 0, 0, 1});
  const core::Check v = validate(s);
  EXPECT_FALSE(v.ok());
  EXPECT_NE(problem_of(v).find("cyclic order (deadlock)"), std::string::npos) << problem_of(v);
}

TEST(Validator, RejectsOpOnWrongWorker) {
  Schedule s = valid_1f1b();
  s.program[0].push_back(Op{OpKind::Forward, 0, 3, 0, 0});
  const core::Check v = validate(s);
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(problem_of(v),
            "worker 0 lists F(stage 3, micro-batch 0), but that stage runs on worker 3");
}

TEST(Validator, RejectsKindsTheScheduleDoesNotUse) {
  Schedule s = valid_1f1b();
  s.program[0].push_back(Op{OpKind::BackwardWeight, 0, 0, 0, 0});
  const core::Check v = validate(s);
  EXPECT_FALSE(v.ok());
  EXPECT_NE(problem_of(v).find("does not allow"), std::string::npos) << problem_of(v);
}

TEST(Validator, ProblemsAreConfigErrorsAtTheCallersLocation) {
  Schedule s = valid_1f1b();
  s.program[1].push_back(s.program[1].front());
  const core::Check v = validate(s, "my.schedule", "schedule");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.problem().source(), "my.schedule");
  EXPECT_EQ(v.problem().field(), "schedule");
  EXPECT_STREQ(v.problem().what(),
               "my.schedule: schedule: duplicate F(stage 1, micro-batch 0) on worker 1");
  EXPECT_THROW(v.require(), core::ConfigError);
  EXPECT_NO_THROW(validate(valid_1f1b()).require());
}

TEST(Validator, RejectsOutOfRangeIdsAndBadMaps) {
  Schedule s = valid_1f1b();
  s.program[0].push_back(Op{OpKind::Forward, 0, 0, 0, 99});
  EXPECT_NE(problem_of(validate(s)).find("outside"), std::string::npos);
  Schedule t = valid_1f1b();
  t.stage_worker[0][2] = 7;
  EXPECT_EQ(problem_of(validate(t)), "pipeline 0 stage 2 is mapped to worker 7, outside [0, 3]");
  Schedule u = valid_1f1b();
  u.program.pop_back();
  EXPECT_EQ(problem_of(validate(u)), "program lists 3 workers, expected 4");
}

TEST(Lowering, InsertsOneTransferPerCrossWorkerEdgeAndSyncTasks) {
  const Schedule s = valid_1f1b();
  const TaskGraph g = build_task_graph(s);
  size_t compute = 0, transfers = 0, reduces = 0, steps = 0;
  for (TaskId t = 0; t < g.num_tasks(); ++t) {
    switch (g.task(t).kind) {
      case OpKind::Transfer:
        ++transfers;
        break;
      case OpKind::AllReduce:
        ++reduces;
        break;
      case OpKind::Optimizer:
        ++steps;
        break;
      default:
        ++compute;
    }
  }
  // D=4, N=6: 2·D·N compute ops; activations and gradients cross D−1 boundaries each way.
  EXPECT_EQ(compute, 2u * 4 * 6);
  EXPECT_EQ(transfers, 2u * 3 * 6);
  EXPECT_EQ(reduces, 4u);
  EXPECT_EQ(steps, 4u);
}

// A network where every transfer and all-reduce is a short flow on one shared link.
class OneLink final : public NetworkModel {
 public:
  int num_resources() const override { return 1; }
  Flow flow(const TaskGraph&, TaskId) const override { return Flow{0.1, 0.5, {{0, 1.0}}}; }
};

// The replay doubles as the deadlock check: a cyclic schedule's replay stops with unfinished
// tasks and names the same worker and op as the validator, in both cost modes.
TEST(Validator, ReplayOfACyclicScheduleNamesTheSameDeadlock) {
  Schedule same_worker = valid_1f1b();
  ASSERT_TRUE(erase_first(same_worker.program[1], OpKind::Backward, 0));
  same_worker.program[1].insert(same_worker.program[1].begin(), Op{OpKind::Backward, 0, 1, 0, 0});
  Schedule cross_worker = valid_1f1b();
  ASSERT_TRUE(erase_first(cross_worker.program[0], OpKind::Forward, 1));
  cross_worker.program[0].push_back(Op{OpKind::Forward, 0, 0, 0, 1});
  for (const Schedule& s : {same_worker, cross_worker}) {
    ASSERT_TRUE(check_structure(s).ok());
    const TaskGraph g = build_task_graph(s);
    const std::string expected = problem_of(check_acyclic(g));
    ASSERT_FALSE(expected.empty());
    const Trace unit = simulate(g, UnitCostModel({1, 2, 0, 0.5}));
    EXPECT_FALSE(unit.completed);
    EXPECT_EQ(unit.deadlock, expected);
    for (bool overlap : {true, false}) {
      const Trace real = simulate_network(
          g, UnitCostModel({1, 2, 0, 0}), OneLink(),
          EngineOptions{overlap, overlap ? GradSync::Eager : GradSync::Flush, 0.25});
      EXPECT_FALSE(real.completed);
      EXPECT_EQ(real.deadlock, expected);
    }
  }
  const Trace sound = simulate(build_task_graph(valid_1f1b()), UnitCostModel({1, 2, 0, 0}));
  EXPECT_TRUE(sound.completed);
  EXPECT_TRUE(sound.deadlock.empty());
}

}  // namespace
}  // namespace pipesim::sim
