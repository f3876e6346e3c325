#include "pipesim/sweep/sweep_runner.hpp"

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/sweep/row_job.hpp"

namespace pipesim::sweep {

scenario::SweepRow evaluate(const scenario::Point& point, scenario::SpecCache& specs,
                            const DescribeError& describe, const std::vector<std::string>& given) {
  return evaluate(
      point,
      [&point](scenario::Scenario& s) {
        const auto& options = scenario::options();
        for (size_t i = 0; i < options.size(); ++i)
          options[i].apply(s, point[i]);
      },
      specs, describe, given);
}

scenario::SweepRow evaluate(const SweepGrid& grid, size_t index, scenario::SpecCache& specs,
                            const DescribeError& describe) {
  return evaluate(
      grid.point(index), [&](scenario::Scenario& s) { grid.apply(s, index); }, specs, describe,
      grid.given());
}

scenario::SweepRow evaluate(const scenario::Point& point,
                            const std::function<void(scenario::Scenario&)>& build,
                            scenario::SpecCache& specs, const DescribeError& describe,
                            const std::vector<std::string>& given) {
  return evaluate(
      point, build, [](const scenario::Scenario& s) { return scenario::simulate(s); }, specs,
      describe, given);
}

scenario::SweepRow evaluate(const scenario::Point& point,
                            const std::function<void(scenario::Scenario&)>& build,
                            const RunScenario& run, scenario::SpecCache& specs,
                            const DescribeError& describe, const std::vector<std::string>& given) {
  try {
    scenario::Scenario s;
    build(s);
    scenario::require_applicable(s, given);
    specs.attach(s);
    return scenario::make_row(point, run(s));
  } catch (const core::ConfigError& e) {
    return invalid_row(point, e, describe);
  }
}

scenario::SweepRow invalid_row(const scenario::Point& point, const core::ConfigError& error,
                               const DescribeError& describe) {
  scenario::SweepRow row;
  row.inputs = scenario::unresolved_point(point);
  row.status = {scenario::Status::Kind::Invalid,
                describe ? describe(error) : std::string(error.what())};
  return row;
}

std::vector<scenario::SweepRow> evaluate_all(
    size_t n, const std::function<scenario::SweepRow(size_t)>& make_row, int jobs,
    const std::function<void(size_t)>& on_progress, RowEvaluator* evaluator) {
  std::vector<scenario::SweepRow> rows(n);
  RowJob job;
  job.end = n;
  job.make_row = make_row;
  job.put = [&](size_t i, scenario::SweepRow row) { rows[i] = std::move(row); };
  job.jobs = jobs;
  job.on_progress = on_progress;
  run_rows(job, evaluator);
  return rows;
}

std::vector<scenario::SweepRow> run_grid(
    const SweepGrid& grid, int jobs, const DescribeError& describe,
    const std::function<void(size_t done, size_t total)>& on_progress) {
  scenario::SpecCache specs;
  return evaluate_all(
      grid.size(), [&](size_t i) { return evaluate(grid, i, specs, describe); }, jobs,
      [&](size_t done) {
        if (on_progress) on_progress(done, grid.size());
      });
}

}  // namespace pipesim::sweep
