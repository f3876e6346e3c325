#pragma once
// A profiler trace's kernels grouped the way a user reads them: by phase (the innermost CPU
// annotation around each kernel's launch) and by kind (kernel_kind.hpp), with the streams they
// ran on and how much of each kind of communication ran while compute kernels ran.
//
// A kernel's phase: its launch (the cuda_runtime event of the same correlation id) lies inside
// CPU ranges; the innermost one on the launching thread names the phase, or, when that thread
// has none (PyTorch's autograd thread launches the backward while the main thread waits inside
// the annotation), the innermost range of the same process around the launch. Innermost = the
// latest-starting range that contains the time. A kernel with no launch or no range around it
// is in phase "" (reported as outside every annotation).
//
// An annotation names a phase pipesim can predict when it reads as <block>(<pass>), the form
// DeepSeek's DualPipe trace uses ("attn(F)", "mlp(W)", "dispatch(B)"): block attn / attention,
// mlp / moe / experts, dispatch, combine; pass F (forward), B (input gradient), W (weight
// gradient). Inside a dispatch or combine phase the expert-communication kernels count as the
// phase's kind: the backward of a dispatch runs DeepEP's combine kernel, and DeepEP's
// cached_notify serves both.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipesim/calibrate/kernel_kind.hpp"
#include "pipesim/calibrate/profiler_trace.hpp"

namespace pipesim::calibrate {

enum class Block : std::uint8_t { none, attention, mlp, dispatch, combine };
enum class Pass : std::uint8_t { none, forward, backward_input, backward_weight };

struct Phase {
  Block block = Block::none;
  Pass pass = Pass::none;
  bool recognised() const { return block != Block::none && pass != Pass::none; }
};

//! The phase an annotation names; {none, none} when it reads as none.
Phase parse_phase(std::string_view annotation);
std::string_view block_name(Block block);
std::string_view pass_name(Pass pass);  //!< "F", "B", "W"

//! The kernels of one kind inside one phase.
struct TraceOp {
  std::string phase;  //!< the annotation's name; "" = outside every annotation
  KernelKind kind = KernelKind::other;
  double seconds = 0;
  std::size_t kernels = 0;
};

struct PhaseSummary {
  std::string name;
  Phase phase;
  std::size_t ranges = 0;  //!< annotation ranges of this name (its occurrences)
  std::size_t kernels = 0;
  double seconds = 0;
};

struct StreamSummary {
  std::int64_t stream = -1;
  std::size_t kernels = 0;
  double compute_seconds = 0, communication_seconds = 0, other_seconds = 0;
};

//! One kind of communication beside the compute: `busy` is the time any of its kernels ran
//! (their union), `hidden` the part of it during which a compute kernel ran too.
struct CommOverlap {
  KernelKind kind = KernelKind::collective;
  double busy = 0, hidden = 0;
};

struct UnrecognisedKernel {
  std::string name;
  std::size_t kernels = 0;
  double seconds = 0;
};

struct TraceOps {
  std::vector<TraceOp> ops;  //!< phases in order of first occurrence, "" last; kinds in enum order
  std::vector<PhaseSummary> phases;              //!< the same order
  std::vector<StreamSummary> streams;            //!< by stream id
  std::vector<CommOverlap> overlap;              //!< communication kinds present, enum order
  std::vector<UnrecognisedKernel> unrecognised;  //!< `other` kernels, longest first
  std::size_t kernels = 0;
  double seconds = 0;  //!< Σ every GPU activity's duration
};

//! Groups every kernel of `trace` (seconds, not the file's µs).
TraceOps group_kernels(const ProfilerTrace& trace);

//! For each query (pid, tid, time), the index into `ranges` of the innermost range around it on
//! the same thread, else in the same process; -1 when none. Exposed for the shapes of GEMM ops.
struct RangeQuery {
  std::int64_t pid = 0, tid = 0;
  double time = 0;
};
struct TimedRange {
  std::int64_t pid = 0, tid = 0;
  double start = 0, end = 0;
};
std::vector<int> innermost_ranges(const std::vector<TimedRange>& ranges,
                                  const std::vector<RangeQuery>& queries, bool same_thread_only);

}  // namespace pipesim::calibrate
