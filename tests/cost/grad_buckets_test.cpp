// Bucketed gradient sync (PyTorch DDP's bucket_cap_mb): a stage's G gradient bytes go out as
// ⌈G/b⌉ collective calls, each paying the algorithm's latency, with the bandwidth term of one
// flat call. Checked against the ring closed form 2(r−1)α per call (Thakur et al. 2005).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/sim/lowering.hpp"
#include "schedule_helpers.hpp"

namespace pipesim::cost {
namespace {

TEST(GradBuckets, EachBucketPaysTheRingLatencyAndTheBandwidthTermIsUnchanged) {
  const models::ModelSpec m = models::load_model("gpt2-1.3b");
  hardware::HardwareProfile hw = hardware::load_profile("p100-daint");  // one GPU per node
  hw.all_reduce = hardware::AllReduceAlgorithm::Ring;
  hw.inter_node.alpha = 4e-5;
  const sim::Schedule s = testing::one_f_one_b(8, 8);
  TrainingSetup setup;
  setup.data_parallel = 8;  // r = 8 ranks per stage, on 8 nodes
  const TrainingCostModel flat(m, hw, s, setup);
  const sim::TaskGraph g = sim::build_task_graph(s);
  for (double bucket : {1e6, 26214400.0, 1e12}) {
    setup.grad_bucket_bytes = bucket;
    const TrainingCostModel bucketed(m, hw, s, setup);
    int seen = 0;
    for (sim::TaskId t = 0; t < g.num_tasks(); ++t) {
      if (g.task(t).kind != sim::OpKind::AllReduce) continue;
      const double grads = flat.stage_memory()[static_cast<size_t>(g.task(t).stage)].gradients;
      const double calls = std::ceil(grads / bucket);
      const sim::Flow a = flat.flow(g, t), b = bucketed.flow(g, t);
      EXPECT_NEAR(a.latency, 2 * (8 - 1) * 4e-5, 1e-15);
      EXPECT_NEAR(b.latency, calls * 2 * (8 - 1) * 4e-5, 1e-12 * b.latency);
      EXPECT_DOUBLE_EQ(b.work, a.work);
      if (bucket == 26214400.0) {
        EXPECT_GT(calls, 10);  // ~600 MB stages: dozens of buckets
      }
      if (bucket == 1e12) {
        EXPECT_EQ(calls, 1);
      }
      ++seen;
    }
    EXPECT_EQ(seen, 8);
  }
}

// Megatron-Core's default bucket (DistributedDataParallelConfig.bucket_size): max(4·10⁷,
// 10⁶·d) parameters; each bucket of an overlapped sync is one call on 1/k of the gradients.
TEST(GradBuckets, OverlappedSyncUsesMegatronsDefaultBucketAndSplitsTheCallEvenly) {
  const models::ModelSpec m = models::load_model("gpt2-1.3b");
  hardware::HardwareProfile hw = hardware::load_profile("p100-daint");
  hw.all_reduce = hardware::AllReduceAlgorithm::Ring;
  hw.inter_node.alpha = 4e-5;
  const sim::Schedule s = testing::one_f_one_b(2, 4);
  for (int d : {8, 64}) {
    TrainingSetup setup;
    setup.data_parallel = d;
    const TrainingCostModel whole(m, hw, s, setup);
    EXPECT_FALSE(whole.grad_buckets().enabled());  // off: one sync task per stage
    setup.overlap_grad_reduce = true;
    const TrainingCostModel over(m, hw, s, setup);
    const sim::GradBuckets b = over.grad_buckets();
    ASSERT_EQ(b.buckets.size(), 2u);
    EXPECT_FALSE(b.gather_apart);
    const sim::TaskGraph flat = sim::build_task_graph(s);
    const sim::TaskGraph split = sim::build_task_graph(s, {}, {}, b);
    for (int st = 0; st < 2; ++st) {
      // fp32 gradients: 4 bytes per parameter.
      const double params = whole.stage_memory()[static_cast<size_t>(st)].gradients / 4;
      const int k = static_cast<int>(std::ceil(params / std::max(4e7, 1e6 * d)));
      EXPECT_EQ(b.of(st), k);
      double flat_work = 0, split_work = 0, flat_latency = 0, split_latency = 0;
      int buckets = 0;
      for (sim::TaskId t = 0; t < flat.num_tasks(); ++t) {
        if (flat.task(t).kind != sim::OpKind::AllReduce || flat.task(t).stage != st) continue;
        flat_work += whole.flow(flat, t).work;
        flat_latency += whole.flow(flat, t).latency;
      }
      for (sim::TaskId t = 0; t < split.num_tasks(); ++t) {
        if (split.task(t).kind != sim::OpKind::AllReduce || split.task(t).stage != st) continue;
        EXPECT_EQ(split.task(t).part, sim::SyncPart::Gradients);
        split_work += over.flow(split, t).work;
        split_latency += over.flow(split, t).latency;
        ++buckets;
      }
      EXPECT_EQ(buckets, k);
      EXPECT_NEAR(split_work, flat_work, 1e-9 * flat_work);
      EXPECT_NEAR(split_latency, k * flat_latency, 1e-9 * split_latency);
    }
  }
}

}  // namespace
}  // namespace pipesim::cost
