#pragma once
// pipesim's embedding API: `#include <pipesim/pipesim.hpp>`, link pipesim::pipesim
// (find_package(pipesim)). A handful of calls over the types they return; every option is named
// as on the command line without its dashes (`micro_batches`), and a bad one throws
// pipesim::ConfigError naming it. The CLI and the Python module are thin shells over the same
// library.
//
//   const pipesim::Result r =
//       pipesim::simulate(pipesim::Options{{"schedule", "1f1b"}, {"stages", "4"}});
//   r.metrics.iteration_time;          // 33 slots (unit-cost mode: (N + D - 1)(t_F + t_B))
//
// Headers below this one are installed because these types reach them; they are not a
// separate API.

#include <string>
#include <utility>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/version.hpp"
#include "pipesim/scenario/row.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim {

using core::ConfigError;
using scenario::Result;
using scenario::Scenario;
using scenario::SweepRow;

//! Option name → value as text ("stages" → "8"); for run_sweep() a list or range ("4,8",
//! "8:64:x2").
using Options = std::vector<std::pair<std::string, std::string>>;

//! The scenario `options` describe, every other option at its default. Throws ConfigError for
//! an unknown option, a bad value, or an option that does not apply (pipelines for 1f1b).
Scenario make_scenario(const Options& options);

//! One run: the schedule generated, replayed and measured (unit-cost mode, or real-cost mode
//! with a model and hardware). Throws ConfigError for an invalid configuration.
Result simulate(const Scenario& scenario);
Result simulate(const Options& options);

//! The cartesian product of the options' lists, run on `jobs` threads (0: one per hardware
//! thread), one row per configuration in a fixed order; a configuration that cannot run is a
//! row with its reason.
std::vector<SweepRow> run_sweep(const Options& lists, int jobs = 0);

//! `pipesim search`: the configurations of a model on `gpus` GPUs for a mini-batch, every row
//! (simulated, oom, invalid or pruned) in the documented order.
struct SearchOptions {
  std::string model;
  std::string hardware;
  int gpus = 0;
  int mini_batch = 0;
  std::vector<std::string> schedules;  //!< empty: every schedule
  std::vector<std::string> recompute{"none", "selective", "full"};
  std::vector<int> tensor_parallel;  //!< empty: each power of two a node and the model split
  int jobs = 0;
};
std::vector<SweepRow> run_search(const SearchOptions& options);

//! The validation suite (published measured runs) re-predicted: `format` text, csv or json.
//! No files: every shipped run.
std::string validate(const std::vector<std::string>& files = {},
                     const std::string& format = "text");

//! What `pipesim simulate --format json` prints for a run; `ops` lists each worker's ops.
std::string to_json(const Scenario& scenario, const Result& result, bool ops = false);
//! What `pipesim sweep` writes for rows.
std::string to_csv(const std::vector<SweepRow>& rows);

}  // namespace pipesim
