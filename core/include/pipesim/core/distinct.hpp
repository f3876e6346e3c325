#pragma once
// How many distinct values a list holds: sorted in place, for the short integer lists (nodes a
// group spans, workers that hold a stage) the cost model counts per run, where a std::set's node
// per value costs more than the counting.

#include <algorithm>
#include <vector>

namespace pipesim::core {

//! The number of distinct values of `values` (left sorted and deduplicated).
inline int count_distinct(std::vector<int>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return static_cast<int>(values.size());
}

}  // namespace pipesim::core
