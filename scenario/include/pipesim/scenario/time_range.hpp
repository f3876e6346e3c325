#pragma once
// A prediction's iteration time with the spread validated runs like it showed
// (prediction_range.hpp makes it).

#include <string>

namespace pipesim::scenario {

//! Where a run's iteration time is expected to fall: between low and high seconds for
//! `coverage` of the validated runs of class `basis`.
struct TimeRange {
  double low = 0.0;
  double high = 0.0;
  double coverage = 0.0;
  std::string basis;  //!< the class of validated runs it comes from, e.g. "moe/hopper/multi-node"
};

}  // namespace pipesim::scenario
