#include "pipesim/pipesim.hpp"

#include <fmt/format.h>

#include "pipesim/report/rows_csv.hpp"
#include "pipesim/report/run_report.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/spec_cache.hpp"
#include "pipesim/search/search.hpp"
#include "pipesim/sweep/sweep_grid.hpp"
#include "pipesim/sweep/sweep_runner.hpp"
#include "pipesim/sweep/thread_pool.hpp"
#include "pipesim/validation/validation.hpp"
#include "pipesim/validation/validation_report.hpp"

namespace pipesim {
namespace {

template <class T>
std::string comma_list(const std::vector<T>& items) {
  return fmt::format("{}", fmt::join(items, ","));
}

}  // namespace

Scenario make_scenario(const Options& options) {
  Scenario s = scenario::make_scenario(options);
  std::vector<std::string> given;
  for (const auto& [name, _] : options)
    given.push_back(name);
  scenario::require_applicable(s, given);
  return s;
}

Result simulate(const Scenario& scenario) {
  return scenario::simulate(scenario);
}

Result simulate(const Options& options) {
  return scenario::simulate(make_scenario(options));
}

std::vector<SweepRow> run_sweep(const Options& lists, int jobs) {
  sweep::OptionTexts given;
  for (const auto& [name, text] : lists)
    given[name] = text;
  return sweep::run_grid(sweep::make_grid(given), sweep::job_count(jobs));
}

std::vector<SweepRow> run_search(const SearchOptions& options) {
  search::SearchArgs args;
  args.model = options.model;
  args.hardware = options.hardware;
  args.gpus = std::to_string(options.gpus);
  args.mini_batch = std::to_string(options.mini_batch);
  if (!options.schedules.empty()) args.schedules = comma_list(options.schedules);
  args.recompute = comma_list(options.recompute);
  args.tensor_parallel = comma_list(options.tensor_parallel);
  search::SearchRequest request = search::make_search_request(args);
  scenario::SpecCache specs;
  return search::run_search(request, specs, sweep::job_count(options.jobs));
}

std::string validate(const std::vector<std::string>& files, const std::string& format) {
  const validation::Validation v = validation::validate(files);
  if (format == "json") return validation::validation_json(v.points, v.summary);
  if (format == "csv") return validation::validation_csv(v.points);
  if (format != "text") {
    throw ConfigError::option("format",
                              fmt::format("must be one of text|csv|json, got '{}'", format));
  }
  return validation::validation_text(v.points, v.summary);
}

std::string to_json(const Scenario& scenario, const Result& result, bool ops) {
  return report::to_json(scenario, result, ops).dump(2) + "\n";
}

std::string to_csv(const std::vector<SweepRow>& rows) {
  return report::rows_to_csv(rows);
}

}  // namespace pipesim
