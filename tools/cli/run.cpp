#include "run.hpp"

#include <fmt/format.h>

#include "pipesim/core/config_error.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::cli {
namespace {

void check_unit_costs(const sim::UnitCosts& u) {
  auto fail = [](std::string_view flag, std::string_view problem) {
    throw core::ConfigError("command line", flag, problem);
  };
  if (!(u.forward > 0.0)) fail("--t-forward", fmt::format("must be > 0, got {}", u.forward));
  if (!(u.backward > 0.0)) fail("--t-backward", fmt::format("must be > 0, got {}", u.backward));
  if (!(u.weight >= 0.0 && u.weight <= u.backward)) {
    fail("--t-weight", fmt::format("must be in [0, t-backward = {}], got {}", u.backward, u.weight));
  }
  if (!(u.comm >= 0.0)) fail("--t-comm", fmt::format("must be >= 0, got {}", u.comm));
}

}  // namespace

RunResult run(const RunSpec& spec) {
  check_unit_costs(spec.unit);
  return run_schedule(spec, schedules::make_schedule(spec.schedule, spec.params),
                      fmt::format("schedule {}", spec.schedule));
}

RunResult run_schedule(const RunSpec& spec, sim::Schedule schedule, const std::string& source) {
  check_unit_costs(spec.unit);
  RunResult r;
  r.schedule = std::move(schedule);
  if (std::string why = sim::check_structure(r.schedule); !why.empty()) {
    throw core::ConfigError(source, "generated order", why);
  }
  r.graph = sim::build_task_graph(r.schedule);
  if (std::string why = sim::check_acyclic(r.graph); !why.empty()) {
    throw core::ConfigError(source, "generated order", why);
  }
  r.trace = sim::simulate(r.graph, sim::UnitCostModel(spec.unit));
  r.metrics = sim::compute_metrics(r.schedule, r.graph, r.trace);
  return r;
}

}  // namespace pipesim::cli
