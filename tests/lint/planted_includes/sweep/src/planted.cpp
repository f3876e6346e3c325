// Planted violation: sweep may not include search, which depends on it (ctest
// lint_includes_catch_planted).
#include "pipesim/search/search.hpp"
#include "pipesim/sweep/planted.hpp"
