#pragma once
// `search` as a library call: enumerate the search space for a model on P GPUs and a
// mini-batch, simulate every candidate that is not pruned (in parallel, model and hardware
// loaded once through a SpecCache) and return one row per candidate in enumeration order.

#include <functional>
#include <vector>

#include "pipesim/explore/search_space.hpp"
#include "pipesim/explore/spec_cache.hpp"
#include "pipesim/explore/sweep_runner.hpp"

namespace pipesim::explore {

//! The point of a candidate: its options, every other option at its default.
scenario::Point to_point(const Candidate& candidate);

//! Fills request.limits from the model and hardware (loaded through `specs`), enumerates the
//! candidates and evaluates them. Throws core::ConfigError for a model or hardware that cannot
//! be loaded.
std::vector<scenario::SweepRow> run_search(
    SearchRequest& request, SpecCache& specs, int jobs, const DescribeError& describe = {},
    const std::function<void(size_t done, size_t total)>& on_progress = {});

}  // namespace pipesim::explore
