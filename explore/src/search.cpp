#include "pipesim/explore/search.hpp"

#include <map>
#include <memory>

#include "pipesim/cost/training_setup.hpp"
#include "pipesim/explore/bound_values.hpp"
#include "pipesim/explore/search_limits.hpp"
#include "pipesim/explore/value_range.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::explore {
namespace {

// Each value of a list, checked by option `name`'s own parser (a bad value is an error, not a
// search where every candidate is invalid); returns the scenario each one gives.
std::vector<scenario::Scenario> checked(std::string_view name,
                                        const std::vector<std::string>& list) {
  const scenario::Option* option = scenario::find_option(name);
  std::vector<scenario::Scenario> out;
  for (const std::string& value : list) {
    scenario::Scenario s;
    scenario::apply_given(*option, s, value);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

SearchRequest make_search_request(const SearchArgs& args) {
  SearchRequest request;
  request.model = args.model;
  request.hardware = args.hardware;
  request.gpus = core::parse_int("gpus", args.gpus, 1, 1 << 20);
  request.mini_batch = core::parse_int("mini_batch", args.mini_batch, 1, 1 << 24);
  if (args.schedules && args.schedules->empty()) {
    throw core::ConfigError::option("schedule",
                                    "empty value (leave it out to search every schedule)");
  }
  if (!args.schedules) {
    for (const schedules::ScheduleEntry& entry : schedules::all_schedules())
      request.schedules.push_back(entry.name);
  } else {
    request.schedules = expand_option_values("schedule", *args.schedules);
    for (const std::string& name : request.schedules) {
      // The registry's error for an unknown name, with the known ones.
      if (schedules::find_schedule(name) == nullptr) (void)schedules::resolve(name, {});
    }
  }
  request.recompute = expand_option_values("recompute", args.recompute);
  (void)checked("recompute", request.recompute);
  // Each degree through its option's parser and range; the cost model's rules for the model
  // and hardware are applied per layout when the candidates are enumerated (search_limits).
  auto degrees = [](std::string_view name, const std::string& given, auto field) {
    std::vector<int> out;
    if (given.empty()) return out;
    for (const scenario::Scenario& s : checked(name, expand_option_values(name, given)))
      out.push_back(s.perf.setup.*field);
    return out;
  };
  using Setup = cost::TrainingSetup;
  request.tensor_parallel =
      degrees("tensor_parallel", args.tensor_parallel, &Setup::tensor_parallel);
  request.context_parallel =
      degrees("context_parallel", args.context_parallel, &Setup::context_parallel);
  request.expert_parallel =
      degrees("expert_parallel", args.expert_parallel, &Setup::expert_parallel);
  request.expert_tensor_parallel = degrees("expert_tensor_parallel", args.expert_tensor_parallel,
                                           &Setup::expert_tensor_parallel);
  return request;
}

scenario::Point to_point(const Candidate& c) {
  scenario::Point p;
  for (const scenario::Option& option : scenario::options()) {
    const auto it = c.options.find(option.name());
    p.push_back(it != c.options.end() ? it->second : option.spec.default_text);
  }
  return p;
}

std::vector<Candidate> search_candidates(SearchRequest& request, SpecCache& specs) {
  request.limits = search_limits(specs.model(request.model), specs.hardware(request.hardware));
  return enumerate_candidates(request);
}

MakeRow candidate_rows(const std::vector<Candidate>& candidates, SpecCache& specs,
                       const DescribeError& describe, RowDetail detail) {
  // Each distinct text of each option is parsed once (BoundValues), not once per candidate.
  struct Bound {
    std::vector<scenario::Point> points;
    std::vector<std::vector<size_t>> choices;
    BoundValues values;
  };
  const size_t columns = scenario::options().size();
  std::vector<scenario::Point> points;
  points.reserve(candidates.size());
  std::vector<std::vector<size_t>> choices(candidates.size(), std::vector<size_t>(columns));
  std::vector<std::vector<std::string>> texts(columns);
  std::vector<std::map<std::string, size_t>> seen(columns);
  for (size_t c = 0; c < candidates.size(); ++c) {
    points.push_back(to_point(candidates[c]));
    for (size_t i = 0; i < columns; ++i) {
      const auto [it, added] = seen[i].emplace(points[c][i], texts[i].size());
      if (added) texts[i].push_back(points[c][i]);
      choices[c][i] = it->second;
    }
  }
  auto bound = std::make_shared<const Bound>(
      Bound{std::move(points), std::move(choices), BoundValues(texts)});
  const bool skip_oom = detail == RowDetail::FittingOnly;
  return [&candidates, &specs, describe, bound, skip_oom](size_t i) {
    const Candidate& c = candidates[i];
    if (c.pruned.empty()) {
      return evaluate(
          bound->points[i],
          [&](scenario::Scenario& s) {
            bound->values.apply(s, bound->choices[i]);
            s.skip_replay_when_oom = skip_oom;
          },
          specs, describe);
    }
    scenario::SweepRow row;
    row.inputs = bound->points[i];
    row.status = {scenario::Status::Kind::Pruned, c.pruned};
    if (c.pruned_for_memory) row.metrics.fits_memory = false;
    return row;
  };
}

std::vector<scenario::SweepRow> run_search(
    SearchRequest& request, SpecCache& specs, int jobs, const DescribeError& describe,
    const std::function<void(size_t done, size_t total)>& on_progress, RowEvaluator* evaluator,
    RowDetail detail) {
  const std::vector<Candidate> candidates = search_candidates(request, specs);
  return evaluate_all(
      candidates.size(), candidate_rows(candidates, specs, describe, detail), jobs,
      [&](size_t done) {
        if (on_progress) on_progress(done, candidates.size());
      },
      evaluator);
}

}  // namespace pipesim::explore
