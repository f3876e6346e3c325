#include "pipesim/core/intervals.hpp"

#include <algorithm>

namespace pipesim::core {

Intervals merged(Intervals v) {
  // Callers mostly pass intervals in time order (a worker's ops, a stream's kernels): mostly
  // nothing to sort.
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& [a, b] : v) {
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second) {
      out.back().second = std::max(out.back().second, b);
    } else {
      out.emplace_back(a, b);
    }
  }
  return out;
}

double measure(const Intervals& merged_intervals) {
  double m = 0;
  for (const auto& [a, b] : merged_intervals)
    m += b - a;
  return m;
}

double overlap(const Intervals& a, const Intervals& b) {
  double m = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) m += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return m;
}

}  // namespace pipesim::core
