#pragma once
// Planted violation: report may not include search (ctest lint_includes_catch_planted).
#include "pipesim/report/table.hpp"
#include "pipesim/search/search.hpp"
