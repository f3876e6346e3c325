#pragma once
// Time intervals [start, end) as sets: their union, its length, the length two unions share.
// What the simulator's time breakdown measures (compute, exposed communication) and what a
// profiler trace's overlap figures are.

#include <utility>
#include <vector>

namespace pipesim::core {

using Intervals = std::vector<std::pair<double, double>>;

//! The union of the intervals, sorted and disjoint (the same whatever order they come in; empty
//! intervals dropped).
Intervals merged(Intervals v);
//! Σ (end − start) of merged intervals.
double measure(const Intervals& merged_intervals);
//! |A ∩ B| for two merged interval lists.
double overlap(const Intervals& a, const Intervals& b);

}  // namespace pipesim::core
