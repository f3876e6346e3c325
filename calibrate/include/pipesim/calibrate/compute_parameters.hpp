#pragma once
// The compute part of a hardware profile (schema_version 1, gpu: section) that the fits start
// from and the layer check predicts with: peak FLOP/s per dtype, GEMM efficiency per dtype,
// HBM bandwidth and its efficiency, kernel-launch overhead.

#include <map>
#include <string>

#include "pipesim/calibrate/efficiency_curve.hpp"

namespace pipesim::calibrate {

struct ComputeParameters {
  std::map<std::string, double> peak_flops;                //!< dtype → dense FLOP/s
  std::map<std::string, EfficiencyCurve> gemm_efficiency;  //!< dtype → fraction vs FLOPs
  double hbm_bandwidth = 0.0;                              //!< bytes/s, datasheet
  EfficiencyCurve hbm_efficiency;                          //!< fraction vs bytes moved
  double kernel_launch = 0.0;                              //!< seconds per launch
};

}  // namespace pipesim::calibrate
