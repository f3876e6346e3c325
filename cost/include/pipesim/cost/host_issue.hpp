#pragma once
// The host side of an op (cost/README.md, "Host dispatch"). The framework issues every kernel
// from the host (PyTorch eager: Python, operator dispatch, autograd bookkeeping, the launch
// call) before the GPU can run it. The host runs ahead of the GPU, so its dispatch costs nothing
// while the GPU is the busier of the two; the GPU waits where the host falls behind: over a run
// of kernels shorter than their dispatch, and after a point where the host waits for the GPU (a
// device-to-host copy that the next kernels' shapes need, as the MoE dispatchers' token counts),
// when the GPU's queue is empty:
//   host_i = (waits_i ? max(host_{i-1}, gpu_{i-1}) : host_{i-1}) + dispatch_i
//   gpu_i  = max(gpu_{i-1}, host_i) + seconds_i
// An op starts with the host and the GPU together: Megatron synchronizes the device around each
// pipeline transfer (batch_p2p_sync). A CUDA graph replays a captured run of kernels for one
// dispatch (CudaGraphScopes).

#include <string>
#include <vector>

#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/layer_kernels.hpp"

namespace pipesim::cost {

//! One kernel as the host issues it.
struct IssuedKernel {
  double seconds = 0;     //!< its time on the GPU
  double dispatches = 1;  //!< host dispatches it costs (0 inside a replayed graph)
  bool waits = false;     //!< the host waits for the GPU's queue to drain before issuing it
};

//! Seconds the GPU waits on the host over `layers` back-to-back repetitions of `layer`, issued
//! from a synchronized start at `dispatch` host seconds per dispatched kernel: the finish time
//! of the recurrence above less the kernels' own seconds. 0 when `dispatch` is 0.
double host_stall(const std::vector<IssuedKernel>& layer, int layers, double dispatch);

//! The parts of a layer Megatron-Core captures in CUDA graphs (cuda_graph_scope): TE's per-layer
//! graphs of the attention, the dense MLP, the MoE router, the dispatcher's preprocessing and
//! the whole MoE layer, or one graph of the whole forward and backward (full_iteration).
struct CudaGraphScopes {
  bool attn = false, mlp = false, moe = false, moe_router = false, moe_preprocess = false;
  bool full_iteration = false;
  bool any() const { return attn || mlp || moe || moe_router || moe_preprocess || full_iteration; }
  bool operator==(const CudaGraphScopes&) const = default;
};

//! `text`: none, partial (every part whose shapes are fixed: attn, mlp, moe_router,
//! moe_preprocess), full (full_iteration) or a comma-separated list of Megatron's scope names.
//! Throws core::ConfigError::option(`field`) naming an unknown scope and the allowed ones.
CudaGraphScopes parse_cuda_graph_scopes(const std::string& text, const std::string& field);

//! The kernels of one layer (in launch order, priced `seconds`) as the host issues them: each
//! eager kernel costs the framework's launches per listed kernel of its part (attention or MLP),
//! a captured part one dispatch at the head of its run; a grouped GEMM the framework issues
//! per expert (FrameworkOverhead::grouped_gemm_per_expert) its launches once per local expert,
//! eager; the host waiting
//! before the first kernel that moves routed tokens when `dispatch_syncs` (the MoE dispatchers
//! size their buffers from token counts copied to the host) unless that part is captured whole
//! (moe, full_iteration: fixed-shape buffers).
std::vector<IssuedKernel> issued_kernels(const models::KernelList& kernels,
                                         const std::vector<double>& seconds,
                                         const hardware::FrameworkOverhead& framework,
                                         const CudaGraphScopes& graphs, bool dispatch_syncs);

}  // namespace pipesim::cost
