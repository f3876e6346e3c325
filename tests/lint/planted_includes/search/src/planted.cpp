// Planted violations: check_includes.py must report the models and sim includes, and accept the
// rest (ctest lint_includes_catch_planted).
#include "pipesim/search/planted.hpp"

#include <pipesim/sim/schedule.hpp>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sweep/sweep_runner.hpp"
