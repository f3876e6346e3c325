#pragma once
// Hockney's latency-bandwidth model t(S) = α + S/β (R. W. Hockney, "The communication
// challenge for MPP: Intel Paragon and Meiko CS-2", Parallel Computing 20(3), 1994), fitted by
// least squares per link tier and per collective.
//
// Collectives are fitted in nccl-tests' "bus bandwidth" form (github NVIDIA/nccl-tests,
// doc/PERFORMANCE.md): t(S) = α + factor(op, n)·S/β_bus, with factor 2(n−1)/n for all-reduce,
// (n−1)/n for all-gather and reduce-scatter (S = the full gathered / scattered buffer) and 1 for
// send/recv and copies. β_bus is then comparable across GPU counts and with the link's β.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pipesim::calibrate {

//! nccl-tests' busbw factor for `benchmark` on `gpus` ranks (1 for point-to-point and copies).
double bus_factor(std::string_view benchmark, int gpus);

struct HockneyPoint {
  double bytes = 0.0;    //!< message size S
  double seconds = 0.0;  //!< measured time
  double factor = 1.0;   //!< bytes multiplier (bus_factor)
};

struct HockneyFit {
  double alpha = 0.0;  //!< seconds, ≥ 0
  double beta = 0.0;   //!< bytes/s (bus bandwidth for collectives), > 0
  std::size_t samples = 0;
  double rms_rel_error = 0.0;  //!< RMS of (model − measured)/measured
};

//! Minimises Σ((α + f·S/β − t)/t)² — relative error, so the latency of small messages counts as
//! much as the bandwidth of large ones (plain least squares would let GB transfers decide α).
//! If the unconstrained α comes out negative it is pinned at 0 and β refitted. Throws
//! std::invalid_argument with fewer than 2 distinct sizes or a non-positive bandwidth.
HockneyFit fit_hockney(const std::vector<HockneyPoint>& points);

}  // namespace pipesim::calibrate
