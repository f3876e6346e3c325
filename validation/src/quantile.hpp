#pragma once
// Order statistics shared by the validation summary and the prediction ranges.

#include <algorithm>
#include <cmath>
#include <vector>

namespace pipesim::validation::detail {

//! The q-quantile of an ascending, non-empty list, interpolated between neighbours (Hyndman
//! and Fan's type 7, the default of R and numpy); q = 0.5 is the median.
inline double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(pos));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (pos - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

}  // namespace pipesim::validation::detail
