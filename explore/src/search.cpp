#include "pipesim/explore/search.hpp"

#include <map>

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

std::vector<scenario::SweepRow> run_search(
    SearchRequest& request, SpecCache& specs, int jobs, const DescribeError& describe,
    const std::function<void(size_t done, size_t total)>& on_progress) {
  request.limits = search_limits(*specs.model(request.model), *specs.hardware(request.hardware));
  const std::vector<Candidate> candidates = enumerate_candidates(request, has_option);
  // Each distinct text of each option is parsed once (BoundValues), not once per candidate.
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
  const BoundValues bound(texts);
  return evaluate_all(
      candidates.size(),
      [&](size_t i) {
        const Candidate& c = candidates[i];
        if (c.pruned.empty()) {
          return evaluate(
              points[i], [&](scenario::Scenario& s) { bound.apply(s, choices[i]); }, specs,
              describe);
        }
        scenario::SweepRow row;
        row.inputs = points[i];
        row.status = {scenario::Status::Kind::Pruned, c.pruned};
        if (c.pruned_for_memory) row.metrics.fits_memory = false;
        return row;
      },
      jobs,
      [&](size_t done) {
        if (on_progress) on_progress(done, candidates.size());
      });
}

}  // namespace pipesim::explore
