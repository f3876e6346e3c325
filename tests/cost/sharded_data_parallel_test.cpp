// Sharded data parallelism against closed forms: bytes per parameter per GPU for each level
// (ZeRO §5: 16, 4 + 12/W, 2 + 14/W, 16/W with fp16 Adam) plus the unsharded units FSDP holds,
// the per-unit all-gathers and reduce-scatters of each op (bytes by hand from Llama 3 8B's
// shape, times by the ring formula), what of them shows beyond the compute beside them, the
// stage syncs that are left, and one clear error for a contradiction.

#include "pipesim/cost/sharded_data_parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/sim/lowering.hpp"
#include "schedule_helpers.hpp"

namespace pipesim::cost {
namespace {

using sim::OpKind;
using testing::one_f_one_b;

constexpr int kW = 8;
// Llama 3 8B by hand (models/llama3-8b.yaml): h 4096, 8 of 32 heads for K and V (d 128),
// SwiGLU FFN 14336, two RMSNorms a layer; untied head V·h plus the final norm.
constexpr double kH = 4096, kV = 128256;
constexpr double kLayer = 2 * kH * kH + 2 * kH * 8 * 128 + 3 * kH * 14336 + 2 * kH;
constexpr double kHead = kV * kH + kH;

// One DGX node of 8 GPUs whose collectives run as rings on one tier of latency `alpha` and
// bandwidth `beta` (no fitted curves), with free launches and host dispatch.
hardware::HardwareProfile ring_node(double alpha, double beta) {
  hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  hw.all_reduce = hardware::AllReduceAlgorithm::Ring;
  hw.fitted.clear();
  hw.intra_node = {alpha, beta};
  hw.inter_node = {alpha, beta};
  hw.gpu.kernel_launch = 0;
  hw.framework.op_overhead = 0;
  return hw;
}

// Ring all-gather or reduce-scatter of n bytes over r ranks: (r − 1)·α + (r − 1)/r · n/β.
double ring(double r, double alpha, double beta, double n) {
  return (r - 1) * alpha + (r - 1) / r * n / beta;
}

TrainingSetup fp16_setup(std::optional<DataParallelSharding> level) {
  TrainingSetup s;
  s.data_parallel = kW;
  s.precision = models::Precision::FP16;  // 2 + 2 + 12 bytes per parameter (ZeRO §3.1)
  s.data_parallel_sharding = level;
  return s;
}

sim::StageMemory memory_of(DataParallelSharding level) {
  const TrainingCostModel costs(models::load_model("llama3-8b"), ring_node(1e-6, 1e11),
                                one_f_one_b(1, 4), fp16_setup(level));
  return costs.stage_memory()[0];
}

TEST(ShardedDataParallel, BytesPerParameterFollowZeroStages) {
  const sim::StageMemory none = memory_of(DataParallelSharding::None);
  const double P = none.weights / 2;
  EXPECT_DOUBLE_EQ(P, 32 * kLayer + kV * kH + kHead);  // 8,030,261,248 parameters
  EXPECT_DOUBLE_EQ(none.gradients, 2 * P);
  EXPECT_DOUBLE_EQ(none.optimizer, 12 * P);
  // The largest unit is the head (V·h + h > a layer's 218M): gathered in 2 bytes, the one
  // computed and the one prefetched, and its gradient in 2 bytes.
  ASSERT_GT(kHead, kLayer);
  const struct {
    DataParallelSharding level;
    double weights, gradients, optimizer, transient;
  } levels[] = {
      {DataParallelSharding::Optimizer, 2, 2, 12.0 / kW, 0},
      {DataParallelSharding::Gradients, 2, 2.0 / kW, 12.0 / kW, 2 * kHead},
      {DataParallelSharding::Params, 2.0 / kW, 2.0 / kW, 12.0 / kW, 2 * 2 * kHead + 2 * kHead},
  };
  for (const auto& l : levels) {
    const sim::StageMemory m = memory_of(l.level);
    EXPECT_DOUBLE_EQ(m.weights, l.weights * P);
    EXPECT_DOUBLE_EQ(m.gradients, l.gradients * P);
    EXPECT_DOUBLE_EQ(m.optimizer, l.optimizer * P);
    EXPECT_DOUBLE_EQ(m.workspace - none.workspace, l.transient);
  }
  // ZeRO §5's totals: 4 + 12/W, 2 + 14/W, 16/W bytes per parameter.
  const auto per_param = [&](DataParallelSharding l) {
    const sim::StageMemory m = memory_of(l);
    return (m.weights + m.gradients + m.optimizer) / P;
  };
  EXPECT_DOUBLE_EQ(per_param(DataParallelSharding::None), 16);
  EXPECT_DOUBLE_EQ(per_param(DataParallelSharding::Optimizer), 4 + 12.0 / kW);
  EXPECT_DOUBLE_EQ(per_param(DataParallelSharding::Gradients), 2 + 14.0 / kW);
  EXPECT_DOUBLE_EQ(per_param(DataParallelSharding::Params), 16.0 / kW);
}

TEST(ShardedDataParallel, TheDistributedOptimizerSwitchIsTheOptimizerLevel) {
  TrainingSetup on = fp16_setup(std::nullopt);
  on.distributed_optimizer = true;
  EXPECT_EQ(sharding_of(on), DataParallelSharding::Optimizer);
  EXPECT_EQ(sharding_of(fp16_setup(std::nullopt)), DataParallelSharding::None);
  // Every level shards the optimizer state, so the switch agrees with all but none.
  on.data_parallel_sharding = DataParallelSharding::Params;
  EXPECT_EQ(sharding_of(on), DataParallelSharding::Params);
  const models::ModelSpec m = models::load_model("llama3-8b");
  EXPECT_TRUE(resolved_setup(on, m).distributed_optimizer);
  on.data_parallel_sharding = DataParallelSharding::None;
  try {
    (void)sharding_of(on);
    FAIL() << "none beside distributed_optimizer on was accepted";
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.field(), "data_parallel_sharding");
    EXPECT_NE(std::string(e.what()).find("distributed_optimizer"), std::string::npos);
  }
}

// The per-unit collectives of a one-stage Llama 3 8B (embedding, 32 layers, head) over W = 8.
struct Units {
  hardware::HardwareProfile hw;
  TrainingCostModel costs;
  Units(double alpha, double beta, DataParallelSharding level)
      : hw(ring_node(alpha, beta)),
        costs(models::load_model("llama3-8b"), hw, one_f_one_b(1, 4), fp16_setup(level)) {}
  const std::vector<OpCollective>& list(OpKind k) const {
    return costs.compute().collectives(0, k);
  }
};

TEST(ShardedDataParallel, EachOpMovesEveryUnitOnce) {
  const Units u(1e-6, 1e11, DataParallelSharding::Params);
  const double P = 32 * kLayer + kV * kH + kHead;
  const auto moved = [&](OpKind k) {
    double bytes = 0;
    for (const OpCollective& c : u.list(k))
      bytes += c.calls * c.bytes.value;
    return bytes;
  };
  EXPECT_DOUBLE_EQ(moved(OpKind::Forward), 2 * P);           // every unit gathered, 2 bytes
  EXPECT_DOUBLE_EQ(moved(OpKind::Backward), 2 * P + 2 * P);  // gathered and reduce-scattered
  EXPECT_TRUE(u.list(OpKind::Recompute).empty());            // the backward's gather serves it
  // The forward: the embedding's gather alone first (nothing to hide it), then, beside each
  // layer but the last, the next layer's: one window merged over 31 layers.
  const std::vector<OpCollective>& f = u.list(OpKind::Forward);
  ASSERT_GE(f.size(), 3u);
  EXPECT_DOUBLE_EQ(f[0].bytes.value, 2 * kV * kH);
  EXPECT_EQ(f[0].hidden, 0.0);
  EXPECT_DOUBLE_EQ(f[0].priced->total().value, ring(kW, 1e-6, 1e11, 2 * kV * kH));
  const auto layers =
      std::find_if(f.begin(), f.end(), [](const OpCollective& c) { return c.calls == 31; });
  ASSERT_NE(layers, f.end());
  EXPECT_DOUBLE_EQ(layers->bytes.value, 2 * kLayer);
  EXPECT_DOUBLE_EQ(layers->priced->total().value, ring(kW, 1e-6, 1e11, 2 * kLayer));
  EXPECT_GT(layers->hidden, 0.0);
  EXPECT_EQ(layers->ranks, kW);
  // Gradients only: each backward reduce-scatters every unit, nothing is gathered per op.
  const Units g(1e-6, 1e11, DataParallelSharding::Gradients);
  EXPECT_TRUE(g.list(OpKind::Forward).empty());
  double reduced = 0;
  for (const OpCollective& c : g.list(OpKind::Backward))
    reduced += c.calls * c.bytes.value;
  EXPECT_DOUBLE_EQ(reduced, 2 * P);
}

TEST(ShardedDataParallel, OnlyWhatTheComputeBesideItDoesNotHideIsCharged) {
  // A fast link: each layer's forward hides the next layer's gather; only the first unit's
  // gather (and the head's, beside the last layer, which is larger) can show.
  const Units fast(1e-6, 1e13, DataParallelSharding::Params);
  for (const OpCollective& c : fast.list(OpKind::Forward)) {
    if (c.calls == 31) {
      EXPECT_LT(c.priced->total().value, c.hidden);
      EXPECT_EQ(collectives_time(fast.hw, {c}).total().value, 0.0);
    }
  }
  // A slow link: each shows comm − compute.
  const Units slow(1e-5, 1e9, DataParallelSharding::Params);
  for (const OpCollective& c : slow.list(OpKind::Forward)) {
    const double comm = c.priced->total().value;
    const double expected = c.calls * std::max(0.0, comm - c.hidden);
    EXPECT_NEAR(collectives_time(slow.hw, {c}).total().value, expected, 1e-12 * comm);
    if (c.calls == 31) {
      EXPECT_GT(comm, c.hidden);
    }
  }
  // The first gather is charged whole, the windows after it net of their compute.
  const std::vector<OpCollective>& f = slow.list(OpKind::Forward);
  double net = 0;
  for (const OpCollective& c : f)
    net += c.calls * std::max(0.0, c.priced->total().value - c.hidden);
  EXPECT_NEAR(slow.costs.compute().collective_time(0, OpKind::Forward).total().value, net,
              1e-9 * net);
  EXPECT_DOUBLE_EQ(exposed_beyond(f[0].priced.value(), 0.0).total().value,
                   ring(kW, 1e-5, 1e9, 2 * kV * kH));
}

TEST(ShardedDataParallel, TheChargedPartFollowsItsOpAsItsCollectiveTask) {
  // T = 1: nothing but sharding gives the ops collectives, and the lowering adds their tasks.
  const Units slow(1e-5, 1e9, DataParallelSharding::Params);
  const sim::OpCollectives lowering = slow.costs.lowering();
  EXPECT_FALSE(lowering.carries.empty());
  EXPECT_FALSE(lowering.overlap);  // after the op, on its stream: exposed time
  const StageCompute& c = slow.costs.compute();
  for (const OpKind k : {OpKind::Forward, OpKind::Backward}) {
    EXPECT_GT(c.collective_time(0, k).total().value, 0.0);
    EXPECT_DOUBLE_EQ(c.alone(0, k), c.kernels(0, k) + c.collective_time(0, k).total().value);
  }
  const Units none(1e-5, 1e9, DataParallelSharding::Optimizer);
  EXPECT_TRUE(none.costs.lowering().carries.empty());
}

TEST(ShardedDataParallel, TheStageSyncKeepsWhatTheOpsDoNotMove) {
  const sim::Schedule s = one_f_one_b(1, 4);
  const sim::TaskGraph g = sim::build_task_graph(s);
  const hardware::HardwareProfile hw = ring_node(1e-6, 1e11);
  const models::ModelSpec m = models::load_model("llama3-8b");
  const TrainingCostModel opt(m, hw, s, fp16_setup(DataParallelSharding::Optimizer));
  const TrainingCostModel grads(m, hw, s, fp16_setup(DataParallelSharding::Gradients));
  const TrainingCostModel params(m, hw, s, fp16_setup(DataParallelSharding::Params));
  int seen = 0;
  for (sim::TaskId t = 0; t < g.num_tasks(); ++t) {
    if (g.task(t).kind != sim::OpKind::AllReduce) continue;
    // fp16: the reduce-scatter of 2-byte gradients and the gather of 2-byte parameters cost
    // the same; gradients keeps the gather, params neither.
    EXPECT_NEAR(grads.flow(g, t).work, 0.5 * opt.flow(g, t).work, 1e-12 * opt.flow(g, t).work);
    EXPECT_EQ(params.flow(g, t).work, 0.0);
    EXPECT_EQ(params.flow(g, t).latency, 0.0);
    ++seen;
  }
  EXPECT_EQ(seen, 1);
}

}  // namespace
}  // namespace pipesim::cost
