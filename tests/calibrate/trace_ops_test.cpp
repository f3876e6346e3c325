// A trace's kernels grouped by phase and kind: the innermost annotation around each launch,
// per-(phase, kind) and per-stream sums, communication hidden under compute, and the phase
// names pipesim reads; every expected value summed here by hand from the trace below.

#include "pipesim/calibrate/trace_ops.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pipesim::calibrate {
namespace {

TEST(TraceOpsPhase, ReadsBlockAndPass) {
  const auto is = [](std::string_view text, Block block, Pass pass) {
    const Phase p = parse_phase(text);
    EXPECT_EQ(p.block, block) << text;
    EXPECT_EQ(p.pass, pass) << text;
    EXPECT_EQ(p.recognised(), block != Block::none) << text;
  };
  is("attn(F)", Block::attention, Pass::forward);
  is("attention(B)", Block::attention, Pass::backward_input);
  is("mlp(W)", Block::mlp, Pass::backward_weight);
  is("moe(F)", Block::mlp, Pass::forward);
  is("experts(B)", Block::mlp, Pass::backward_input);
  is("dispatch(B)", Block::dispatch, Pass::backward_input);
  is("combine(F)", Block::combine, Pass::forward);
  is("MLP(w)", Block::mlp, Pass::backward_weight);  // case does not matter
  // Not phases: a step, a block without a pass, an unknown block or pass, a longer pass.
  for (const char* text : {"ProfilerStep#1", "attn", "attn()", "attn(X)", "attn(FW)", "router(F)",
                           "attn(F) ", "(F)", "", "Optimizer.step#AdamW.step"}) {
    is(text, Block::none, Pass::none);
  }
}

TEST(TraceOpsPhase, NamesOfBlocksAndPasses) {
  EXPECT_EQ(block_name(Block::attention), "attention");
  EXPECT_EQ(block_name(Block::mlp), "mlp");
  EXPECT_EQ(block_name(Block::dispatch), "dispatch");
  EXPECT_EQ(block_name(Block::combine), "combine");
  EXPECT_EQ(block_name(Block::none), "");
  EXPECT_EQ(pass_name(Pass::forward), "F");
  EXPECT_EQ(pass_name(Pass::backward_input), "B");
  EXPECT_EQ(pass_name(Pass::backward_weight), "W");
  EXPECT_EQ(pass_name(Pass::none), "");
}

// Ranges: thread (1, 1) nests 0 ⊃ 1 ⊃ 2; thread (1, 2) has 3 and 4 inside it; process 3 has two
// ranges starting together; process 4 two ranges that touch.
const std::vector<TimedRange> kRanges = {
    {1, 1, 0.0, 100.0},  // 0
    {1, 1, 10.0, 50.0},  // 1
    {1, 1, 20.0, 30.0},  // 2
    {1, 2, 0.0, 100.0},  // 3
    {1, 2, 60.0, 70.0},  // 4
    {3, 1, 0.0, 10.0},   // 5
    {3, 1, 0.0, 5.0},    // 6
    {4, 1, 0.0, 10.0},   // 7
    {4, 1, 10.0, 20.0},  // 8
};

TEST(TraceOpsInnermost, InnermostRangeOnTheSameThread) {
  const std::vector<RangeQuery> queries = {
      {1, 1, 25.0},  // inside 0, 1, 2
      {1, 1, 40.0},  // inside 0, 1
      {1, 1, 80.0},  // inside 0
      {1, 1, 65.0},  // thread 1 has 0; thread 2's 4 is further in but on another thread
      {1, 2, 65.0},  // 3 and 4 on its own thread
      {3, 1, 3.0},   // 5 and 6 start together: the shorter is the inner one
      {4, 1, 15.0},  // only 8
      {2, 1, 25.0},  // another process: no range
  };
  const std::vector<int> expected = {2, 1, 0, 0, 4, 6, 8, -1};
  EXPECT_EQ(innermost_ranges(kRanges, queries, false), expected);
  EXPECT_EQ(innermost_ranges(kRanges, queries, true), expected);
}

TEST(TraceOpsInnermost, BoundariesAreInside) {
  const std::vector<RangeQuery> queries = {
      {1, 1, 10.0},   // start of 1
      {1, 1, 50.0},   // end of 1
      {1, 1, 30.0},   // end of 2
      {1, 1, 20.0},   // start of 2
      {1, 1, 0.0},    // start of 0
      {1, 1, 100.0},  // end of 0
      {3, 1, 5.0},    // end of 6
      {3, 1, 10.0},   // end of 5 (6 ended before)
      {4, 1, 10.0},   // end of 7 and start of 8: the later-starting one
      {1, 1, 100.5},  // past everything
      {1, 1, -0.5},   // before everything
  };
  const std::vector<int> expected = {1, 1, 2, 2, 0, 0, 6, 5, 8, -1, -1};
  EXPECT_EQ(innermost_ranges(kRanges, queries, true), expected);
}

TEST(TraceOpsInnermost, OtherThreadsOfTheProcessOnlyAsFallback) {
  const std::vector<RangeQuery> queries = {
      {1, 3, 65.0},   // thread 3 has no range: the process's innermost, 4
      {1, 3, 25.0},   // thread 3 again: of 0, 1, 2 and 3, range 2 starts last
      {1, 3, 100.0},  // ends of 0 and 3 together: the later-starting wins, 0 and 3 tie: 0 first
      {1, 1, 65.0},   // its own thread has 0: 4 of thread 2 is not taken
      {5, 1, 65.0},   // no range in the process at all
  };
  const std::vector<int> fallback = innermost_ranges(kRanges, queries, false);
  const std::vector<int> own = innermost_ranges(kRanges, queries, true);
  EXPECT_EQ(fallback[0], 4);
  EXPECT_EQ(fallback[1], 2);
  EXPECT_TRUE(fallback[2] == 0 || fallback[2] == 3) << fallback[2];
  EXPECT_EQ(fallback[3], 0);
  EXPECT_EQ(fallback[4], -1);
  EXPECT_EQ(own, (std::vector<int>{-1, -1, -1, 0, -1}));
}

TEST(TraceOpsInnermost, EmptyInputs) {
  EXPECT_TRUE(innermost_ranges(kRanges, {}, false).empty());
  EXPECT_EQ(innermost_ranges({}, {{1, 1, 5.0}, {2, 2, 0.0}}, false), (std::vector<int>{-1, -1}));
}

// A trace assembled record by record (µs, as in the file).
class TraceBuilder {
 public:
  std::uint32_t name(const std::string& text) {
    for (std::size_t i = 0; i < trace_.names.size(); ++i) {
      if (trace_.names[i] == text) return static_cast<std::uint32_t>(i);
    }
    trace_.names.push_back(text);
    return static_cast<std::uint32_t>(trace_.names.size() - 1);
  }
  void range(const std::string& phase, double start, double end, std::int64_t tid = 1) {
    trace_.ranges.push_back({name(phase), 1, tid, start, end - start});
  }
  // A kernel launched at `launch` (< 0: no launch recorded) from thread `tid` of process 1.
  void kernel(const std::string& kernel_name, double launch, double start, double duration,
              std::int64_t stream, std::int64_t tid = 1, const std::string& cat = "kernel") {
    TraceKernel k;
    k.name = name(kernel_name);
    k.kind = classify_kernel(kernel_name, cat);
    k.start = start;
    k.duration = duration;
    k.stream = stream;
    k.device = 0;
    k.correlation = next_++;
    if (launch >= 0) trace_.launches.push_back({k.correlation, 1, tid, launch});
    trace_.kernels.push_back(k);
  }
  ProfilerTrace& trace() { return trace_; }

 private:
  ProfilerTrace trace_;
  std::int64_t next_ = 1;
};

constexpr const char* kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
constexpr const char* kFlash = "void flash::compute_attn_ws<Flash_fwd_kernel_traits>()";
constexpr const char* kDispatch = "void deep_ep::internode::dispatch<true, 8>()";
constexpr const char* kCombine = "void deep_ep::internode::combine<8>()";
constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";

ProfilerTrace example_trace() {
  TraceBuilder b;
  b.range("ProfilerStep#1", 0, 1000);
  b.range("attn(F)", 10, 100);
  b.range("dispatch(F)", 110, 150);
  b.range("combine(B)", 200, 250);
  b.range("mlp(B)", 300, 400);
  b.range("attn(F)", 600, 700);      // a second occurrence, no kernels
  b.range("attn(W)", 800, 850);      // a phase pipesim reads, no kernels
  b.range("optimizer", 900, 950);    // neither read nor with kernels
  b.kernel(kGemm, 20, 1000, 10, 7);  // attn(F)
  b.kernel(kGemm, 30, 1010, 20, 7);
  b.kernel(kFlash, 40, 1030, 40, 7);
  b.kernel(kCombine, 120, 1100, 50, 20);   // dispatch(F): counts as dispatch
  b.kernel(kDispatch, 210, 1160, 30, 20);  // combine(B): counts as combine
  // mlp(B): launched by the autograd thread (2), which has no range of its own.
  b.kernel(kAllReduce, 310, 1200, 100, 30, 2);
  b.kernel(kGemm, 320, 1250, 100, 7, 2);
  b.kernel(kAllReduce, 325, 1280, 40, 31, 2);
  b.kernel(kDispatch, 330, 1310, 10, 20);  // outside a dispatch phase: its own kind
  b.kernel("mystery_a", 500, 1400, 5, 7);  // ProfilerStep#1
  b.kernel("mystery_b", 510, 1410, 15, 7);
  b.kernel("mystery_a", -1, 1430, 3, 7);  // no launch: outside every annotation
  b.kernel("Memcpy DtoD (Device -> Device)", -1, 1500, 4, 7, 1, "gpu_memcpy");
  b.kernel(kCombine, 2000, 1600, 6, 20);  // launched after every range
  return b.trace();
}

const TraceOp* find_op(const TraceOps& ops, const std::string& phase, KernelKind kind) {
  for (const TraceOp& op : ops.ops) {
    if (op.phase == phase && op.kind == kind) return &op;
  }
  return nullptr;
}

TEST(TraceOpsGroup, SumsPerPhaseAndKind) {
  const TraceOps ops = group_kernels(example_trace());
  struct Want {
    const char* phase;
    KernelKind kind;
    std::size_t kernels;
    double us;
  };
  // Phases by their first range, "" last; kinds in enum order within each.
  const std::vector<Want> want = {
      {"ProfilerStep#1", KernelKind::other, 2, 5 + 15},
      {"attn(F)", KernelKind::gemm, 2, 10 + 20},
      {"attn(F)", KernelKind::attention, 1, 40},
      {"dispatch(F)", KernelKind::dispatch, 1, 50},
      {"combine(B)", KernelKind::combine, 1, 30},
      {"mlp(B)", KernelKind::gemm, 1, 100},
      {"mlp(B)", KernelKind::collective, 2, 100 + 40},
      {"mlp(B)", KernelKind::dispatch, 1, 10},
      {"", KernelKind::combine, 1, 6},
      {"", KernelKind::memcpy, 1, 4},
      {"", KernelKind::other, 1, 3},
  };
  ASSERT_EQ(ops.ops.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const TraceOp& op = ops.ops[i];
    EXPECT_EQ(op.phase, want[i].phase) << i;
    EXPECT_EQ(op.kind, want[i].kind) << i << " " << op.phase;
    EXPECT_EQ(op.kernels, want[i].kernels) << i << " " << op.phase;
    EXPECT_NEAR(op.seconds, want[i].us * 1e-6, 1e-15) << i << " " << op.phase;
  }
  EXPECT_EQ(ops.kernels, 14u);
  EXPECT_NEAR(ops.seconds, 433e-6, 1e-15);
  // No expert kernel in a dispatch or combine phase kept the kind its name gave it.
  EXPECT_EQ(find_op(ops, "dispatch(F)", KernelKind::combine), nullptr);
  EXPECT_EQ(find_op(ops, "combine(B)", KernelKind::dispatch), nullptr);
}

TEST(TraceOpsGroup, PhaseSummaries) {
  const TraceOps ops = group_kernels(example_trace());
  struct Want {
    const char* name;
    std::size_t ranges, kernels;
    double us;
    bool recognised;
  };
  // optimizer: no kernels and not a phase pipesim reads, so left out; attn(W) is kept.
  const std::vector<Want> want = {
      {"ProfilerStep#1", 1, 2, 20, false},
      {"attn(F)", 2, 3, 70, true},
      {"dispatch(F)", 1, 1, 50, true},
      {"combine(B)", 1, 1, 30, true},
      {"mlp(B)", 1, 4, 250, true},
      {"attn(W)", 1, 0, 0, true},
      {"", 0, 3, 13, false},
  };
  ASSERT_EQ(ops.phases.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const PhaseSummary& p = ops.phases[i];
    EXPECT_EQ(p.name, want[i].name) << i;
    EXPECT_EQ(p.ranges, want[i].ranges) << p.name;
    EXPECT_EQ(p.kernels, want[i].kernels) << p.name;
    EXPECT_NEAR(p.seconds, want[i].us * 1e-6, 1e-15) << p.name;
    EXPECT_EQ(p.phase.recognised(), want[i].recognised) << p.name;
  }
  EXPECT_EQ(ops.phases[1].phase.block, Block::attention);
  EXPECT_EQ(ops.phases[1].phase.pass, Pass::forward);
}

TEST(TraceOpsGroup, SumsPerStream) {
  const TraceOps ops = group_kernels(example_trace());
  ASSERT_EQ(ops.streams.size(), 4u);
  // Stream 7: gemms, flash, the unrecognised kernels (compute) and the copy (other).
  EXPECT_EQ(ops.streams[0].stream, 7);
  EXPECT_EQ(ops.streams[0].kernels, 8u);
  EXPECT_NEAR(ops.streams[0].compute_seconds, (10 + 20 + 40 + 100 + 5 + 15 + 3) * 1e-6, 1e-15);
  EXPECT_NEAR(ops.streams[0].other_seconds, 4e-6, 1e-15);
  EXPECT_EQ(ops.streams[0].communication_seconds, 0.0);
  // Stream 20: the expert kernels.
  EXPECT_EQ(ops.streams[1].stream, 20);
  EXPECT_EQ(ops.streams[1].kernels, 4u);
  EXPECT_NEAR(ops.streams[1].communication_seconds, (50 + 30 + 10 + 6) * 1e-6, 1e-15);
  EXPECT_EQ(ops.streams[1].compute_seconds, 0.0);
  // Streams 30 and 31: one all-reduce each.
  EXPECT_EQ(ops.streams[2].stream, 30);
  EXPECT_NEAR(ops.streams[2].communication_seconds, 100e-6, 1e-15);
  EXPECT_EQ(ops.streams[3].stream, 31);
  EXPECT_NEAR(ops.streams[3].communication_seconds, 40e-6, 1e-15);
  double total = 0;
  for (const StreamSummary& s : ops.streams)
    total += s.compute_seconds + s.communication_seconds + s.other_seconds;
  EXPECT_NEAR(total, ops.seconds, 1e-15);
}

TEST(TraceOpsGroup, CommunicationHiddenUnderCompute) {
  const TraceOps ops = group_kernels(example_trace());
  // Compute busy: [1000, 1070], [1250, 1350], [1400, 1405], [1410, 1425], [1430, 1433].
  ASSERT_EQ(ops.overlap.size(), 3u);
  // All-reduces [1200, 1300] and [1280, 1320]: busy 120, under compute [1250, 1320].
  EXPECT_EQ(ops.overlap[0].kind, KernelKind::collective);
  EXPECT_NEAR(ops.overlap[0].busy, 120e-6, 1e-15);
  EXPECT_NEAR(ops.overlap[0].hidden, 70e-6, 1e-15);
  // Dispatch [1100, 1150] and [1310, 1320]: only the second under compute.
  EXPECT_EQ(ops.overlap[1].kind, KernelKind::dispatch);
  EXPECT_NEAR(ops.overlap[1].busy, 60e-6, 1e-15);
  EXPECT_NEAR(ops.overlap[1].hidden, 10e-6, 1e-15);
  // Combine [1160, 1190] and [1600, 1606]: nothing computes then.
  EXPECT_EQ(ops.overlap[2].kind, KernelKind::combine);
  EXPECT_NEAR(ops.overlap[2].busy, 36e-6, 1e-15);
  EXPECT_EQ(ops.overlap[2].hidden, 0.0);
}

TEST(TraceOpsGroup, PartialOverlapAcrossComputeKernels) {
  // One all-reduce [100, 200] under three compute kernels [90, 120], [110, 130] (they
  // overlap each other) and [150, 170], and a copy [130, 150] that is not compute:
  // hidden = (130 − 100) + (170 − 150) = 50 of its 100.
  TraceBuilder b;
  b.kernel(kAllReduce, -1, 100, 100, 30);
  b.kernel(kGemm, -1, 90, 30, 7);
  b.kernel(kFlash, -1, 110, 20, 8);
  b.kernel("Memcpy DtoD (Device -> Device)", -1, 130, 20, 7, 1, "gpu_memcpy");
  b.kernel(kGemm, -1, 150, 20, 7);
  const TraceOps ops = group_kernels(b.trace());
  ASSERT_EQ(ops.overlap.size(), 1u);
  EXPECT_NEAR(ops.overlap[0].busy, 100e-6, 1e-15);
  EXPECT_NEAR(ops.overlap[0].hidden, 50e-6, 1e-15);
  // No ranges: every kernel is outside every annotation.
  ASSERT_EQ(ops.phases.size(), 1u);
  EXPECT_EQ(ops.phases[0].name, "");
  EXPECT_EQ(ops.phases[0].kernels, 5u);
}

TEST(TraceOpsGroup, UnrecognisedKernelsLongestFirst) {
  const TraceOps ops = group_kernels(example_trace());
  ASSERT_EQ(ops.unrecognised.size(), 2u);
  EXPECT_EQ(ops.unrecognised[0].name, "mystery_b");
  EXPECT_EQ(ops.unrecognised[0].kernels, 1u);
  EXPECT_NEAR(ops.unrecognised[0].seconds, 15e-6, 1e-15);
  EXPECT_EQ(ops.unrecognised[1].name, "mystery_a");
  EXPECT_EQ(ops.unrecognised[1].kernels, 2u);  // in two phases, one name
  EXPECT_NEAR(ops.unrecognised[1].seconds, 8e-6, 1e-15);
}

}  // namespace
}  // namespace pipesim::calibrate
