#pragma once
// The compute part of a hardware profile that the fits start from and the layer check predicts
// with: peak FLOP/s per dtype, GEMM efficiency per dtype, HBM bandwidth and its efficiency,
// kernel-launch overhead — hardware/'s GpuSpec itself, so there is one definition.

#include "pipesim/hardware/profile.hpp"

namespace pipesim::calibrate {

using ComputeParameters = hardware::GpuSpec;

}  // namespace pipesim::calibrate
