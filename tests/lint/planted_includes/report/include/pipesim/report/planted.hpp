#pragma once
// Planted violation: report may not include explore (ctest lint_includes_catch_planted).
#include "pipesim/explore/search.hpp"
#include "pipesim/report/table.hpp"
