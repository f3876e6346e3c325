#include "pipesim/explore/search.hpp"

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
                       const DescribeError& describe) {
  return [&candidates, &specs, describe](size_t i) {
    const Candidate& c = candidates[i];
    if (c.pruned.empty()) return evaluate(to_point(c), specs, describe);
    scenario::SweepRow row;
    row.inputs = to_point(c);
    row.status = {scenario::Status::Kind::Pruned, c.pruned};
    if (c.pruned_for_memory) row.metrics.fits_memory = false;
    return row;
  };
}

std::vector<scenario::SweepRow> run_search(
    SearchRequest& request, SpecCache& specs, int jobs, const DescribeError& describe,
    const std::function<void(size_t done, size_t total)>& on_progress, RowEvaluator* evaluator) {
  const std::vector<Candidate> candidates = search_candidates(request, specs);
  return evaluate_all(
      candidates.size(), candidate_rows(candidates, specs, describe), jobs,
      [&](size_t done) {
        if (on_progress) on_progress(done, candidates.size());
      },
      evaluator);
}

}  // namespace pipesim::explore
