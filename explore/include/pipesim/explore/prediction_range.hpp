#pragma once
// How far a prediction's iteration time is from what runs like it measured: the validation
// suite's residuals, as ratios measured / predicted iteration time, grouped by the class of the
// run (workload: dense, moe or context-parallel; GPU generation; one node or several), and the
// central `coverage` share of each class's ratios as its range. A class with too few runs falls
// back to a wider one (its generation and scale dropped, then everything), and says so in its
// basis. Leave-one-source-out coverage checks the ranges on runs whose source built none of
// them: the share of those runs inside their range.

#include <string>
#include <vector>

#include "pipesim/explore/validation.hpp"

namespace pipesim::explore {

//! A run's class: what it trains, on which GPUs, at what scale.
struct RunClass {
  std::string workload;    //!< "dense", "moe" or "context-parallel" (PointResult::workload)
  std::string generation;  //!< gpu_generation()
  std::string scale;       //!< "one node" (at most 8 GPUs) or "multi-node"
};

//! The class of a predicted point.
RunClass run_class(const PointResult& point);

//! A class's range of measured / predicted iteration time: a prediction t means the run takes
//! between low·t and high·t with the table's coverage.
struct RatioRange {
  double low = 1.0;
  double high = 1.0;
  size_t runs = 0;    //!< runs the range comes from
  std::string basis;  //!< the class it comes from, "moe/hopper/multi-node", or "all runs"
};

struct RangeTable {
  double coverage = 0.8;
  //! Ranges with at least kMinRuns runs, by basis; the last is "all runs".
  std::vector<RatioRange> ranges;
};

//! Fewest runs a class needs for a range of its own.
inline constexpr size_t kMinRuns = 10;

//! Measured / predicted iteration time of a predicted speed point (a throughput point's inverse
//! ratio); none for memory points and points not predicted.
std::optional<double> time_ratio(const PointResult& point);

//! The table from `points` (one speed point per run id counts). `coverage` in (0, 1).
RangeTable prediction_ranges(const std::vector<PointResult>& points, double coverage);

//! The range for a run of class `c`: its own class's, else its workload and generation's, else
//! its workload's, else all runs'.
const RatioRange& range_for(const RangeTable& table, const RunClass& c);

struct Coverage {
  size_t runs = 0;    //!< runs checked
  size_t inside = 0;  //!< of them, measured within the range of their class
  double share() const {
    return runs == 0 ? 0.0 : static_cast<double>(inside) / static_cast<double>(runs);
  }
};

//! Each source's runs checked against the table built from every other source's.
Coverage leave_one_source_out(const std::vector<PointResult>& points, double coverage);

//! The table and its leave-one-source-out coverage as text (`pipesim validate --ranges`).
std::string ranges_text(const RangeTable& table, const Coverage& held_out);

}  // namespace pipesim::explore
