#pragma once
// How far a prediction's iteration time is from what runs like it measured: the validation
// suite's residuals, as ratios measured / predicted iteration time, grouped by the class of the
// run (scenario::RunClass), and the central `coverage` share of each class's ratios as its
// range (the table every prediction reads, scenario/prediction_range.hpp). A class with too few
// runs falls back to a wider one (its generation and scale dropped, then everything), and says so
// in its basis. Leave-one-source-out coverage checks the ranges on runs whose source built none of
// them: the share of those runs inside their range.

#include <string>
#include <vector>

#include "pipesim/validation/validation.hpp"

namespace pipesim::validation {

using scenario::range_for;
using scenario::RangeTable;
using scenario::RatioRange;
using scenario::RunClass;

//! The class of a predicted point.
RunClass run_class(const PointResult& point);

//! Fewest runs a class needs for a range of its own.
inline constexpr size_t kMinRuns = 10;

//! Measured / predicted iteration time of a predicted speed point (a throughput point's inverse
//! ratio); none for memory points and points not predicted.
std::optional<double> time_ratio(const PointResult& point);

//! The table from `points` (one speed point per run id counts). `coverage` in (0, 1).
RangeTable prediction_ranges(const std::vector<PointResult>& points, double coverage);

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

}  // namespace pipesim::validation
