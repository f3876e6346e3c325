#pragma once
// Evaluates many configurations in parallel; rows come back in index order, so the output is
// the same for any number of jobs.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/row.hpp"
#include "pipesim/scenario/spec_cache.hpp"
#include "pipesim/sweep/sweep_grid.hpp"

namespace pipesim::sweep {

//! How an error becomes the reason of an `invalid` row; a front end may re-word option names
//! in its own spelling. The default is the error's what().
using DescribeError = std::function<std::string(const core::ConfigError&)>;

//! Applies `point` through scenario::options(), shares model and hardware through `specs`,
//! simulates it and extracts its row. A core::ConfigError (bad combination, invalid schedule)
//! becomes status invalid with `describe(error)` as the reason; a run that does not fit in
//! memory becomes oom. An option of `given` (set explicitly by the user) that does not apply to
//! the point (scenario::require_applicable) makes it invalid too.
scenario::SweepRow evaluate(const scenario::Point& point, scenario::SpecCache& specs,
                            const DescribeError& describe = {},
                            const std::vector<std::string>& given = {});

//! The same, with the scenario made by `build` (values parsed once: SweepGrid::apply,
//! BoundValues) rather than by parsing the point's texts, which give the row's inputs.
scenario::SweepRow evaluate(const scenario::Point& point,
                            const std::function<void(scenario::Scenario&)>& build,
                            scenario::SpecCache& specs, const DescribeError& describe = {},
                            const std::vector<std::string>& given = {});

//! How a row's scenario is simulated: scenario::simulate, or a caller's equivalent (e.g.
//! scenario::simulate_generated with a schedule it already holds).
using RunScenario = std::function<scenario::Result(const scenario::Scenario&)>;

//! The same, simulated by `run`.
scenario::SweepRow evaluate(const scenario::Point& point,
                            const std::function<void(scenario::Scenario&)>& build,
                            const RunScenario& run, scenario::SpecCache& specs,
                            const DescribeError& describe = {},
                            const std::vector<std::string>& given = {});

//! The row evaluate() gives a point whose scenario is refused with `error`.
scenario::SweepRow invalid_row(const scenario::Point& point, const core::ConfigError& error,
                               const DescribeError& describe = {});

//! Configuration `index` of `grid`, from its parsed values.
scenario::SweepRow evaluate(const SweepGrid& grid, size_t index, scenario::SpecCache& specs,
                            const DescribeError& describe = {});

class RowEvaluator;

//! Every configuration of `grid` on `jobs` threads (model and hardware loaded once), rows by
//! index; `on_progress(done, total)` (optional) now and then from the calling thread.
std::vector<scenario::SweepRow> run_grid(
    const SweepGrid& grid, int jobs, const DescribeError& describe = {},
    const std::function<void(size_t done, size_t total)>& on_progress = {});

//! Calls make_row(i) for i in [0, n) on `jobs` threads (or with `evaluator`, row_job.hpp) and
//! returns the rows by index. `on_progress(done)` (optional) is called from the calling thread
//! now and then.
std::vector<scenario::SweepRow> evaluate_all(
    size_t n, const std::function<scenario::SweepRow(size_t)>& make_row, int jobs,
    const std::function<void(size_t)>& on_progress = {}, RowEvaluator* evaluator = nullptr);

}  // namespace pipesim::sweep
