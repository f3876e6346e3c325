#pragma once
// The schedule drawn like the papers' figures: one row per worker, one box per compute op
// labelled with its micro-batch, a colour per op kind (two shades: down/up pipeline, or the
// second model chunk), idle time as the grey row behind, all-reduce launches as red ticks, and
// a time axis. Pure function of the run: byte-identical output for equal input.

#include <string>

#include "pipesim/scenario/scenario.hpp"

namespace pipesim::report {

using scenario::PerfResult;
using scenario::Result;
using scenario::Scenario;

std::string svg_timeline(const Result& run, const std::string& title);

}  // namespace pipesim::report
