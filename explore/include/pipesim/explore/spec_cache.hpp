#pragma once
// The model and hardware files a sweep, search or validation loads once and shares read-only
// (scenario/spec_cache.hpp): explore's runs take one, and reach the model only through it.

#include "pipesim/scenario/spec_cache.hpp"

namespace pipesim::explore {

using scenario::SpecCache;

}  // namespace pipesim::explore
