#pragma once
// The one compute-time formula (docs/architecture.md §4; efficiency tables as in Calculon, Isaev et
// al., SC'23). The simulator's cost model prices every op with it and the calibration layer check
// predicts a measured layer with it, over the same kernel list (models/layer_kernels.hpp):
//   t = Σ_compute-bound kernels max(FLOPs / (peak[dtype] · gemm_eff[dtype](FLOPs)),
//                                   GEMM operand bytes / (HBM · hbm_eff(bytes)))
//     + Σ_memory-bound kernels bytes / (HBM · hbm_eff(bytes of that kernel))
//     + launches · (kernel_launch + per-launch host overhead)
// Every kernel at the efficiency of its own size: a memory-bound kernel reaches the HBM rate of
// its own transfer, not that of the layer's traffic together (DeepSeek's H800 trace: RMSNorm
// and casts of tens of MB reach 26-52% of the HBM peak, residual-sized elementwise ~90%).

#include <string>

#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/layer_kernels.hpp"

namespace pipesim::cost {

//! Seconds the kernels take on one GPU computing in `dtype`. `host_overhead`: seconds of
//! framework dispatch per launch (profile framework.op_overhead; 0 for bare kernels as the
//! layer benchmark runs them). Throws core::ConfigError when the profile lacks the dtype.
double kernel_time(const models::KernelList& kernels, const hardware::GpuSpec& gpu,
                   const std::string& dtype, double host_overhead = 0.0);

//! One kernel alone (the same formula with a one-element list).
double kernel_time(const models::LayerKernel& kernel, const hardware::GpuSpec& gpu,
                   const std::string& dtype, double host_overhead = 0.0);

}  // namespace pipesim::cost
