#pragma once
// Fitting a fraction-of-peak table against work size, as the hardware profile stores it
// (gpu.gemm_efficiency per dtype against GEMM FLOPs, gpu.hbm_efficiency against bytes moved):
// piecewise-linear in log10(size), clamped at both ends. Calculon keeps the same kind of step
// tables (matrix and HBM efficiency vs op size); a measured curve beats a single scalar.

#include <cstddef>
#include <utility>
#include <vector>

#include "pipesim/hardware/profile.hpp"

namespace pipesim::calibrate {

//! hardware/'s table (points + at()); calibrate/ only fits it.
using EfficiencyCurve = hardware::EfficiencyCurve;

//! A least-squares fit of an efficiency curve to measured (size, efficiency) pairs.
struct CurveFit {
  EfficiencyCurve curve;
  std::size_t samples = 0;
  double rms_error = 0.0;  //!< RMS of (fitted − measured) efficiency over the samples
  bool clamped = false;    //!< some knot was clamped into [kMinEfficiency, 1]
};

inline constexpr double kMinEfficiency = 1e-3;

//! Fits the table's values at knots at the smallest and largest measured size and every whole
//! decade between, by linear least squares on the piecewise-linear "hat" basis (Eigen,
//! column-pivoting QR). Knots without nearby samples are dropped so the system stays
//! well-posed. Needs at least 2 samples with 2 distinct sizes; throws std::invalid_argument.
CurveFit fit_efficiency_curve(const std::vector<std::pair<double, double>>& size_efficiency);

}  // namespace pipesim::calibrate
