#include "pipesim/explore/search.hpp"

#include <map>
#include <memory>

#include "pipesim/explore/bound_values.hpp"
#include "pipesim/explore/search_limits.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::explore {
namespace {

bool has_option(const std::string& name) {
  return scenario::find_option(name) != nullptr;
}

}  // namespace

scenario::Point to_point(const Candidate& c) {
  scenario::Point p;
  for (const scenario::Option& option : scenario::options()) {
    const auto it = c.options.find(option.name);
    p.push_back(it != c.options.end() ? it->second : option.default_value);
  }
  return p;
}

std::vector<Candidate> search_candidates(SearchRequest& request, SpecCache& specs) {
  request.limits = search_limits(*specs.model(request.model), *specs.hardware(request.hardware));
  return enumerate_candidates(request, has_option);
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
