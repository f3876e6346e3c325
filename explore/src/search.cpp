#include "pipesim/explore/search.hpp"

#include <map>
#include <memory>
#include <set>

#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/explore/bound_values.hpp"
#include "pipesim/explore/memory_screen.hpp"
#include "pipesim/explore/search_limits.hpp"
#include "pipesim/explore/value_range.hpp"
#include "pipesim/models/transformer.hpp"
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

// The scenario every candidate starts from: each option at its default, then the fixed ones.
scenario::Scenario fixed_scenario(const std::map<std::string, std::string>& fixed) {
  std::vector<std::pair<std::string, std::string>> values(fixed.begin(), fixed.end());
  return scenario::make_scenario(values);
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
  std::vector<std::string> given;
  for (const auto& [name, text] : args.fixed) {
    const scenario::Option* option = scenario::find_option(name);
    if (option == nullptr) throw core::ConfigError::option(name, "unknown option");
    if (search_chooses(*option)) {
      throw core::ConfigError::option(
          name,
          "search chooses it itself (every D dividing P/T, W = P/(T·D), power-of-two B, N = "
          "B̂/(W·B), each schedule's own variants); to fix it, run a sweep");
    }
    (void)checked(option->name(), {text});
    request.fixed[option->name()] = text;
    given.push_back(option->name());
  }
  // Search runs in real-cost mode: an option that applies only to unit costs is refused.
  scenario::Scenario real = fixed_scenario(request.fixed);
  real.perf.model = args.model;
  real.perf.hardware = args.hardware;
  scenario::require_applicable(real, given);
  return request;
}

bool search_chooses(const scenario::Option& option) {
  // A fixed value would contradict the enumeration (the parallel degrees are search's own
  // arguments, and GPUs = T·C·D·W).
  static const std::set<std::string, std::less<>> kChosen{
      "schedule",         "model",           "hardware",
      "stages",           "micro_batches",   "micro_batch_size",
      "data_parallel",    "recompute",       "tensor_parallel",
      "context_parallel", "expert_parallel", "expert_tensor_parallel"};
  return option.scope == scenario::Scope::Scheme || kChosen.count(option.name()) > 0;
}

std::vector<int> default_tensor_parallel(const models::ModelSpec& model,
                                         const hardware::HardwareProfile& hardware, int gpus) {
  std::vector<int> degrees;
  const int node = hardware.gpus_per_node;
  for (int t = 1; t <= gpus && t <= node; t *= 2) {
    const bool splits = gpus % t == 0 && node % t == 0 && model.heads % t == 0 &&
                        model.kv_heads % t == 0 && model.ffn_hidden % t == 0;
    if (splits) degrees.push_back(t);
  }
  if (degrees.size() <= 1) degrees.clear();
  return degrees;
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
  const scenario::Scenario fixed = fixed_scenario(request.fixed);
  const cost::TrainingSetup& setup = fixed.perf.setup;
  // The model as every candidate trains it (precision, sequence, vocabulary): a config.json
  // without a sequence is refused here, once, not in every row.
  const auto model = specs.model(request.model);
  const models::ModelSpec trained = cost::trained_model(*model, setup);
  const auto hardware = specs.hardware(request.hardware);
  request.limits = search_limits(model, hardware, setup);
  if (request.tensor_parallel.empty()) {
    request.tensor_parallel = default_tensor_parallel(trained, *hardware, request.gpus);
  }
  std::vector<Candidate> candidates = enumerate_candidates(request);
  for (Candidate& c : candidates) {
    for (const auto& [name, text] : request.fixed)
      c.options.try_emplace(name, text);
  }
  return candidates;
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
  // The table needs only an oom row's status, so a run whose peak's lower bound is already
  // above the GPU's memory is not costed at all (memory_screen.hpp).
  auto screen = skip_oom ? std::make_shared<MemoryScreen>() : nullptr;
  return [&candidates, &specs, describe, bound, skip_oom, screen](size_t i) {
    const Candidate& c = candidates[i];
    if (c.pruned.empty()) {
      const auto build = [&](scenario::Scenario& s) {
        bound->values.apply(s, bound->choices[i]);
        s.skip_replay_when_oom = skip_oom;
      };
      std::shared_ptr<const GeneratedSchedule> generated;
      if (screen) {
        try {
          scenario::Scenario s;
          build(s);
          specs.attach(s);
          generated = screen->generated(s);
          if (generated) {
            if (auto row = MemoryScreen::screen(s, bound->points[i], *generated))
              return *std::move(row);
          }
        } catch (const core::ConfigError&) {
          // evaluate() reports it
        }
      }
      if (!generated) return evaluate(bound->points[i], build, specs, describe);
      // The screen's schedule, not generated again for every layout, B and recomputation.
      return evaluate(
          bound->points[i], build,
          [&generated](const scenario::Scenario& s) {
            return scenario::simulate_generated(s, generated->schedule);
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
