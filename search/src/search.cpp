#include "pipesim/search/search.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <unordered_map>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/huge_pages.hpp"
#include "pipesim/scenario/memory_screen.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/search_limits.hpp"
#include "pipesim/search/search_defaults.hpp"
#include "pipesim/search/search_diagnosis.hpp"
#include "pipesim/search/search_refine.hpp"
#include "pipesim/sweep/bound_values.hpp"
#include "pipesim/sweep/thread_pool.hpp"
#include "pipesim/sweep/value_range.hpp"

namespace pipesim::search {
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
    request.schedules = sweep::expand_option_values("schedule", *args.schedules);
    for (const std::string& name : request.schedules) {
      // The registry's error for an unknown name, with the known ones.
      if (schedules::find_schedule(name) == nullptr) (void)schedules::resolve(name, {});
    }
  }
  request.recompute = sweep::expand_option_values("recompute", args.recompute);
  (void)checked("recompute", request.recompute);
  // Each degree through its option's parser and range; the cost model's rules for the model
  // and hardware are applied per layout when the candidates are enumerated (search_limits).
  auto degrees = [](std::string_view name, const std::string& given, auto field) {
    std::vector<int> out;
    if (given.empty()) return out;
    for (const scenario::Scenario& s : checked(name, sweep::expand_option_values(name, given)))
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

scenario::Point to_point(const Candidate& c) {
  scenario::Point p;
  for (const scenario::Option& option : scenario::options()) {
    const auto it = c.options.find(option.name());
    p.push_back(it != c.options.end() ? it->second : option.spec.default_text);
  }
  return p;
}

namespace {

std::string joined(const std::vector<int>& values) {
  return fmt::format("{}", fmt::join(values, ", "));
}

double gib(double bytes) {
  return bytes / (1024.0 * 1024.0 * 1024.0);
}

// The candidates of the request's degrees, each with the fixed options.
std::vector<Candidate> fixed_candidates(const SearchRequest& request, int jobs) {
  std::vector<Candidate> candidates = enumerate_candidates(request, jobs);
  for (Candidate& c : candidates) {
    for (const auto& [name, text] : request.fixed)
      c.options.try_emplace(name, text);
  }
  return candidates;
}

// E for an MoE model, C where the sequence needs it and the refinement's knobs, where the
// request leaves them to search; each choice noted with its reason.
void choose_degrees(SearchRequest& request) {
  const SearchLimits& l = request.limits;
  if (l.experts > 0 && request.expert_parallel.empty()) {
    request.expert_parallel = default_expert_parallel(l.experts, request.gpus);
    if (!request.expert_parallel.empty()) {
      request.notes.push_back(
          fmt::format("expert_parallel {}: the divisors of the {} experts that divide the {} GPUs",
                      joined(request.expert_parallel), l.experts, request.gpus));
    }
  }
  if (request.context_parallel.empty()) {
    request.context_chosen = true;
    const ContextChoice c = least_context_parallel(request);
    if (c.context > 1) {
      request.context_parallel = {c.context};
      request.notes.push_back(fmt::format(
          "context_parallel {}: at C = 1 every layout needs at least {:.1f} GiB per GPU > {:.1f} "
          "GiB, one {}-token sequence's activations included; C = {} is the least that passes",
          c.context, gib(c.need_at_one), gib(l.capacity), l.sequence, c.context));
    } else if (c.context == 1) {
      request.notes.push_back(
          fmt::format("context_parallel 1: the memory bound passes without splitting the {}-token "
                      "sequence (C raised only when nothing fits)",
                      l.sequence));
    } else {
      // Splitting the sequence cannot help what binds without it.
      request.context_chosen = false;
      request.notes.push_back(fmt::format(
          "context_parallel 1: no C brings any layout under the GPU's memory bound (at C = 1 at "
          "least {:.1f} GiB per GPU > {:.1f} GiB)",
          gib(c.need_at_one), gib(l.capacity)));
    }
  }
  request.knobs = refinement_knobs(request);
}

}  // namespace

std::vector<Candidate> search_candidates(SearchRequest& request, scenario::SpecCache& specs,
                                         int jobs) {
  const scenario::Scenario fixed = fixed_scenario(request.fixed);
  const cost::TrainingSetup& setup = fixed.perf.setup;
  // The model as every candidate trains it (precision, sequence, vocabulary): a config.json
  // without a sequence is refused here, once, not in every row.
  const auto model = specs.model(request.model);
  const models::ModelSpec trained = scenario::trained_model(*model, setup);
  const auto hardware = specs.hardware(request.hardware);
  request.limits = scenario::search_limits(model, hardware, setup);
  if (request.tensor_parallel.empty()) {
    request.tensor_parallel = scenario::default_tensor_parallel(trained, *hardware, request.gpus);
  }
  choose_degrees(request);
  return fixed_candidates(request, jobs);
}

namespace {

// Each distinct text of each option is parsed once (BoundValues), not once per candidate; a
// candidate is its choice of text per option (the option's default where it sets none), and
// its point is built when a row needs it.
struct ParsedCandidates {
  const std::vector<Candidate>* candidates = nullptr;
  size_t columns = 0;
  std::vector<sweep::ValueIndex> choices;  // candidate-major: choices[c · columns + option]
  sweep::BoundValues values;

  std::span<const sweep::ValueIndex> choice(size_t c) const {
    return {choices.data() + c * columns, columns};
  }
  scenario::Point point(size_t c) const { return to_point((*candidates)[c]); }
};

// A candidate's (name, text) pairs as (column, index of the text), remembering at each position
// in its sorted options the pair the previous candidate had there: consecutive candidates share
// most of theirs, so most pairs cost two short comparisons instead of two lookups.
class PairReader {
 public:
  static constexpr size_t kNotAnOption = std::numeric_limits<size_t>::max();

  // `index_of(column, text)` gives a text's index (finding it, or adding it when new).
  template <class IndexOf, class Use>
  void read(const Candidate& c, const std::unordered_map<std::string, size_t>& columns,
            const IndexOf& index_of, const Use& use) {
    size_t j = 0;
    for (const auto& [name, text] : c.options) {
      if (j == memo_.size()) memo_.emplace_back();
      Memo& m = memo_[j++];
      if (!m.named || m.name != name) {
        const auto it = columns.find(name);
        m = {name, it != columns.end() ? it->second : kNotAnOption, {}, 0, true, false};
      }
      if (m.column == kNotAnOption) continue;  // not an option: to_point ignores it too
      if (!m.valued || m.text != text) {
        m.text = text;
        m.index = index_of(m.column, text);
        m.valued = true;
      }
      use(m.column, m.index);
    }
  }

 private:
  struct Memo {
    std::string name;
    size_t column = kNotAnOption;
    std::string text;
    sweep::ValueIndex index = 0;
    bool named = false;
    bool valued = false;
  };
  std::vector<Memo> memo_;
};

std::shared_ptr<const ParsedCandidates> parse_candidates(const std::vector<Candidate>& candidates,
                                                         int jobs) {
  const std::vector<scenario::Option>& options = scenario::options();
  ParsedCandidates parsed;
  parsed.candidates = &candidates;
  parsed.columns = options.size();
  // Text 0 of each option is its default; then each text a candidate gives, once.
  std::vector<std::vector<std::string>> texts(options.size());
  std::vector<std::map<std::string, sweep::ValueIndex, std::less<>>> seen(options.size());
  std::unordered_map<std::string, size_t> columns;
  for (size_t i = 0; i < options.size(); ++i) {
    texts[i].push_back(options[i].spec.default_text);
    seen[i].emplace(options[i].spec.default_text, 0);
    columns.emplace(options[i].name(), i);
  }
  {
    PairReader reader;
    const auto add = [&](size_t column, const std::string& text) {
      const auto [it, added] =
          seen[column].try_emplace(text, static_cast<sweep::ValueIndex>(texts[column].size()));
      if (added) texts[column].push_back(text);
      return it->second;
    };
    for (const Candidate& c : candidates)
      reader.read(c, columns, add, [](size_t, sweep::ValueIndex) {});
  }
  // Hundreds of MB for a large search, written once: huge pages spare most of its page faults.
  core::reserve_huge(parsed.choices, candidates.size() * parsed.columns);
  parsed.choices.assign(candidates.size() * parsed.columns, 0);
  constexpr size_t kChunk = 4096;  // candidates a reader takes at once
  sweep::parallel_for((candidates.size() + kChunk - 1) / kChunk, jobs, [&](size_t chunk) {
    PairReader reader;
    const auto find = [&](size_t column, const std::string& text) {
      return seen[column].find(text)->second;
    };
    for (size_t c = chunk * kChunk; c < std::min(candidates.size(), (chunk + 1) * kChunk); ++c) {
      reader.read(candidates[c], columns, find, [&](size_t column, sweep::ValueIndex index) {
        parsed.choices[c * parsed.columns + column] = index;
      });
    }
  });
  parsed.values = sweep::BoundValues(texts);
  return std::make_shared<const ParsedCandidates>(std::move(parsed));
}

scenario::SweepRow pruned_row(scenario::Point point, std::string reason, bool for_memory) {
  scenario::SweepRow row;
  row.inputs = std::move(point);
  row.status = {scenario::Status::Kind::Pruned, std::move(reason)};
  if (for_memory) row.metrics.fits_memory = false;
  return row;
}

// A row found out of memory without simulating it, without inputs (a table's settled row).
scenario::SweepRow inputless_oom_row() {
  scenario::SweepRow row;
  row.status.kind = scenario::Status::Kind::Oom;
  row.metrics.fits_memory = false;
  return row;
}

// Builds candidate i's scenario from its parsed values.
auto scenario_builder(const ParsedCandidates& parsed, size_t i, bool skip_oom) {
  return [&parsed, i, skip_oom](scenario::Scenario& s) {
    parsed.values.apply(s, parsed.choice(i));
    s.skip_replay_when_oom = skip_oom;
  };
}

// Builds candidate i's scenario into `s` with its model and hardware attached, and returns the
// screen's schedule for its parameters; null without a screen (`s` then stays unbuilt), when
// the screen does not model it, or when the scenario is refused (simulating it reports why).
std::shared_ptr<const scenario::GeneratedSchedule> screened_schedule(const ParsedCandidates& parsed,
                                                                     size_t i, bool skip_oom,
                                                                     scenario::MemoryScreen* screen,
                                                                     scenario::SpecCache& specs,
                                                                     scenario::Scenario& s) {
  if (screen == nullptr) return nullptr;
  try {
    scenario_builder(parsed, i, skip_oom)(s);
    specs.attach(s);
    return screen->generated(s);
  } catch (const core::ConfigError&) {
    return nullptr;
  }
}

// Candidate i simulated; from the screen's schedule when it holds one for its parameters (not
// generated again for every layout, B and recomputation).
scenario::SweepRow simulated_row(const ParsedCandidates& parsed, size_t i, bool skip_oom,
                                 scenario::MemoryScreen* screen, scenario::SpecCache& specs,
                                 const sweep::DescribeError& describe) {
  const auto build = scenario_builder(parsed, i, skip_oom);
  scenario::Scenario screened;  // evaluate() builds the run's own
  const auto generated = screened_schedule(parsed, i, skip_oom, screen, specs, screened);
  if (!generated) return sweep::evaluate(parsed.point(i), build, specs, describe);
  return sweep::evaluate(
      parsed.point(i), build,
      [&generated](const scenario::Scenario& s) {
        return scenario::simulate_generated(s, generated->schedule);
      },
      specs, describe);
}

}  // namespace

sweep::MakeRow candidate_rows(const std::vector<Candidate>& candidates, scenario::SpecCache& specs,
                              const sweep::DescribeError& describe, RowDetail detail) {
  auto parsed = parse_candidates(candidates, 1);
  const bool skip_oom = detail == RowDetail::FittingOnly;
  // The table needs only an oom row's status, so a run whose peak's lower bound is already
  // above the GPU's memory is not costed at all (memory_screen.hpp).
  auto screen = skip_oom ? std::make_shared<scenario::MemoryScreen>() : nullptr;
  return [&candidates, &specs, describe, parsed, skip_oom, screen](size_t i) {
    const Candidate& c = candidates[i];
    if (!c.pruned.empty()) return pruned_row(parsed->point(i), c.pruned, c.pruned_for_memory);
    if (screen) {
      scenario::Scenario s;
      if (auto generated = screened_schedule(*parsed, i, skip_oom, screen.get(), specs, s)) {
        if (auto row = scenario::MemoryScreen::screen(s, parsed->point(i), *generated))
          return *std::move(row);
      }
    }
    return simulated_row(*parsed, i, skip_oom, screen.get(), specs, describe);
  };
}

SearchPlan plan_search(const std::vector<Candidate>& candidates, scenario::SpecCache& specs,
                       const sweep::DescribeError& describe, RowDetail detail, int jobs) {
  auto parsed = parse_candidates(candidates, jobs);
  const bool skip_oom = detail == RowDetail::FittingOnly;
  auto screen = skip_oom ? std::make_shared<scenario::MemoryScreen>() : nullptr;
  const size_t n = candidates.size();
  SearchPlan plan;
  core::reserve_huge(plan.settled, n);  // a row per candidate, written once
  plan.settled.resize(n);
  std::vector<double> lower(n, 0.0);
  std::vector<char> settled(n, 0);  // per candidate: its row is known without simulating
  // The table reads the inputs of fitting rows only: a settled row gets none (most candidates
  // are settled, and a point is ~70 strings).
  const auto settled_inputs = [&](size_t i) {
    return skip_oom ? scenario::Point{} : parsed->point(i);
  };
  sweep::parallel_for(n, jobs, [&](size_t i) {
    const Candidate& c = candidates[i];
    if (!c.pruned.empty()) {
      plan.settled[i] = pruned_row(settled_inputs(i), c.pruned, c.pruned_for_memory);
      settled[i] = 1;
      return;
    }
    if (!screen) return;
    scenario::Scenario s;
    try {
      scenario_builder(*parsed, i, skip_oom)(s);
      specs.attach(s);
      // What simulate() checks before generating: a scheme's refusal needs no simulation.
      schedules::check_params(s.schedule, s.params).require();
    } catch (const core::ConfigError& e) {
      plan.settled[i] = sweep::invalid_row(parsed->point(i), e, describe);
      settled[i] = 1;
      return;
    }
    const auto generated = screen->generated(s);
    if (!generated) return;
    if (scenario::MemoryScreen::exceeds(s, *generated)) {
      plan.settled[i] = inputless_oom_row();
      settled[i] = 1;
      return;
    }
    try {
      // The streams' time bound alone: most runs are cut by it; the paths' bound
      // (plan.path_bound) and the memory verdict (plan.make_row) wait for the runs the search
      // reaches.
      s.skip_replay_when_oom = false;
      lower[i] = scenario::run_bounds(s, generated->schedule, &generated->precedence,
                                      scenario::BoundDepth::Streams)
                     .iteration_time;
    } catch (const core::ConfigError&) {
      // simulating it reports it
    }
  });
  // Enumeration runs schedule by schedule: each schedule's candidates are one range.
  for (size_t first = 0; first < n;) {
    const std::string& schedule = candidates[first].options.at("schedule");
    size_t end = first;
    while (end < n && candidates[end].options.at("schedule") == schedule)
      ++end;
    std::vector<size_t> part;
    for (size_t i = first; i < end; ++i) {
      if (!settled[i]) part.push_back(i);
    }
    std::stable_sort(part.begin(), part.end(),
                     [&](size_t a, size_t b) { return lower[a] < lower[b]; });
    for (const size_t i : part) {
      plan.order.push_back(i);
      plan.bound.push_back(lower[i]);
    }
    plan.schedule_end.push_back(plan.order.size());
    first = end;
  }
  plan.make_row = [&specs, describe, parsed, skip_oom, screen, order = plan.order](size_t k) {
    const size_t i = order[k];
    scenario::Scenario s;
    const auto generated = screened_schedule(*parsed, i, skip_oom, screen.get(), specs, s);
    if (generated) {
      try {
        // The replay's own verdict from the costs alone, without lowering the schedule.
        if (scenario::run_bounds(s, generated->schedule, &generated->precedence,
                                 scenario::BoundDepth::Streams)
                .out_of_memory) {
          return scenario::MemoryScreen::out_of_memory_row(s, parsed->point(i), *generated);
        }
      } catch (const core::ConfigError&) {
        // simulating it reports it
      }
    }
    return simulated_row(*parsed, i, skip_oom, screen.get(), specs, describe);
  };
  plan.path_bound = [&specs, parsed, skip_oom, screen, order = plan.order](size_t k) {
    scenario::Scenario s;
    const auto generated = screened_schedule(*parsed, order[k], skip_oom, screen.get(), specs, s);
    if (!generated) return 0.0;
    try {
      s.skip_replay_when_oom = false;  // the time bound alone
      return scenario::run_bounds(s, generated->schedule, &generated->precedence).iteration_time;
    } catch (const core::ConfigError&) {
      return 0.0;  // simulating it reports it
    }
  };
  plan.pruned_row = [&specs, parsed, skip_oom, screen, order = plan.order](size_t k,
                                                                           std::string reason) {
    if (skip_oom) return pruned_row({}, std::move(reason), false);
    const size_t i = order[k];
    scenario::Point inputs = parsed->point(i);
    // Only a bounded run is pruned: the screen generated its schedule when it was bounded.
    scenario::Scenario s;
    const auto generated = screened_schedule(*parsed, i, skip_oom, screen.get(), specs, s);
    if (generated) {
      try {
        inputs = scenario::MemoryScreen::used_inputs(s, inputs, *generated);
      } catch (const core::ConfigError&) {
        // the inputs as given
      }
    }
    return pruned_row(std::move(inputs), std::move(reason), false);
  };
  return plan;
}

namespace {

// Every candidate's row: plan_search's positions, a wave of kSearchWave at a time per schedule,
// the rest pruned by bound once they cannot win; `best` (by schedule): the fastest fitting
// iteration an earlier pass found, which bounds this one's from the start.
std::vector<scenario::SweepRow> evaluate_candidates(
    const std::vector<Candidate>& candidates, scenario::SpecCache& specs, int jobs,
    const sweep::DescribeError& describe, RowDetail detail, sweep::RowEvaluator* evaluator,
    int mini_batch, const std::map<std::string, double>& best_before,
    const std::function<void(size_t done)>& progress) {
  SearchPlan plan = plan_search(candidates, specs, describe, detail, jobs);
  std::vector<scenario::SweepRow> rows = std::move(plan.settled);
  size_t done = candidates.size() - plan.order.size();
  progress(done);
  struct Cut {
    size_t position;
    double bound;  // what the run takes at least
    double best;   // its schedule's best then
  };
  std::vector<Cut> cut;
  // A margin of rounding: the bound adds the same durations the replay does, in another order,
  // so a run with nothing but compute may come out a few ulps above its own time.
  const auto beyond = [](double bound, double best) { return bound > best * (1 + 1e-9); };
  size_t first = 0;
  for (const size_t end : plan.schedule_end) {
    // The schedule's fastest fitting iteration so far. Rows are compared by time only while
    // every fitting one trains the same B̂ samples (then time orders them as throughput does).
    double best = std::numeric_limits<double>::infinity();
    if (first < end) {
      const auto it = best_before.find(candidates[plan.order[first]].options.at("schedule"));
      if (it != best_before.end()) best = it->second;
    }
    bool comparable = true;
    size_t k = first;
    while (k < end) {
      if (comparable && beyond(plan.bound[k], best)) {
        done += end - k;
        progress(done);
        for (; k < end; ++k)
          cut.push_back({k, plan.bound[k], best});
        break;
      }
      const size_t stop = std::min(end, k + kSearchWave);
      // The wave's paths' bounds, once a best is known: a run already beyond it is cut
      // unsimulated; the others are simulated, each stretch of them as one job.
      std::vector<double> paths(stop - k, 0.0);
      if (comparable && std::isfinite(best)) {
        sweep::parallel_for(stop - k, jobs, [&](size_t j) { paths[j] = plan.path_bound(k + j); });
      }
      const auto cut_here = [&](size_t position) {
        return comparable && beyond(paths[position - k], best);
      };
      for (size_t from = k; from < stop;) {
        if (cut_here(from)) {
          cut.push_back({from, paths[from - k], best});
          ++from;
          continue;
        }
        size_t to = from + 1;
        while (to < stop && !cut_here(to))
          ++to;
        sweep::RowJob job;
        job.first = from;
        job.end = to;
        job.make_row = plan.make_row;
        job.put = [&](size_t position, scenario::SweepRow row) {
          rows[plan.order[position]] = std::move(row);
        };
        job.jobs = jobs;
        job.on_progress = [&, base = done + (from - k)](size_t finished) {
          progress(base + finished);
        };
        sweep::run_rows(job, evaluator);
        from = to;
      }
      for (size_t position = k; position < stop; ++position) {
        if (cut_here(position)) continue;
        const scenario::SweepRow& row = rows[plan.order[position]];
        const double t = row.metrics.iteration_time.value_or(0.0);
        if (!row.ok() || !(t > 0)) continue;
        const double samples = row.metrics.throughput.value_or(0.0) * t;
        if (std::abs(samples - mini_batch) > 1e-6 * mini_batch) comparable = false;
        best = std::min(best, t);
      }
      done += stop - k;
      k = stop;
    }
    first = end;
  }
  sweep::parallel_for(cut.size(), jobs, [&](size_t c) {
    rows[plan.order[cut[c].position]] = plan.pruned_row(
        cut[c].position,
        fmt::format("cannot beat the schedule's best: its compute alone takes {:.4g} s "
                    "per iteration > {:.4g} s",
                    cut[c].bound, cut[c].best));
  });
  return rows;
}

// Every pass's candidates and rows, in pass order.
struct SearchState {
  std::vector<Candidate> candidates;
  std::vector<scenario::SweepRow> rows;

  void append(std::vector<Candidate> more, std::vector<scenario::SweepRow> evaluated) {
    std::move(more.begin(), more.end(), std::back_inserter(candidates));
    std::move(evaluated.begin(), evaluated.end(), std::back_inserter(rows));
  }

  // Per schedule: the fitting candidate with the shortest iteration (the first on a tie).
  std::map<std::string, size_t> best() const {
    std::map<std::string, size_t> out;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].ok() || !rows[i].metrics.iteration_time) continue;
      const std::string& schedule = candidates[i].options.at("schedule");
      const auto it = out.find(schedule);
      if (it == out.end() || *rows[i].metrics.iteration_time < time(it->second)) {
        out[schedule] = i;
      }
    }
    return out;
  }
  double time(size_t i) const { return *rows[i].metrics.iteration_time; }

  // Per schedule, the refinement's starts: its best fitting candidate at each expert-parallel
  // degree, fastest first, at most `per_schedule` of them. A degree whose best is slower now
  // can win once its own knobs are tuned (DeepEP's dispatch, the overlap and the partition pay
  // off differently at each E), so each is refined from its own best; a dense model has one
  // degree and one start, the schedule's best.
  std::map<std::string, std::vector<size_t>> starts(size_t per_schedule) const {
    std::map<std::string, std::map<std::string, size_t>> by_degree;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].ok() || !rows[i].metrics.iteration_time) continue;
      const auto& options = candidates[i].options;
      const auto e = options.find("expert_parallel");
      auto& best = by_degree[options.at("schedule")];
      const auto [it, fresh] = best.try_emplace(e == options.end() ? "1" : e->second, i);
      if (!fresh && time(i) < time(it->second)) it->second = i;
    }
    std::map<std::string, std::vector<size_t>> out;
    for (const auto& [schedule, degrees] : by_degree) {
      std::vector<size_t>& list = out[schedule];
      for (const auto& [degree, i] : degrees)
        list.push_back(i);
      std::stable_sort(list.begin(), list.end(),
                       [&](size_t a, size_t b) { return time(a) < time(b); });
      if (list.size() > per_schedule) list.resize(per_schedule);
    }
    return out;
  }
};

// Starts per schedule and round: its best at each of this many expert-parallel degrees.
constexpr size_t kStartsPerSchedule = 3;

// Secondary knobs around each schedule's best, round after round (search_refine.hpp).
void refine(SearchState& state, SearchRequest& request, scenario::SpecCache& specs, int jobs,
            const sweep::DescribeError& describe, RowDetail detail) {
  if (request.knobs.empty()) return;
  std::set<std::string> seen;
  std::set<size_t> expanded;
  size_t tried = 0;
  int rounds = 0;
  // One start's round: its neighbours, then the knob values among them that beat it combined
  // into one candidate. Each start is evaluated against its own time, so that what another
  // start found cannot prune the neighbours this one combines.
  const auto refine_start = [&](size_t start) {
    const std::string schedule = state.candidates[start].options.at("schedule");
    std::vector<Candidate> batch = neighbours(state.candidates[start], request.knobs, seen);
    if (batch.empty()) return;
    tried += batch.size();
    const size_t offset = state.candidates.size();
    std::vector<scenario::SweepRow> evaluated =
        evaluate_candidates(batch, specs, jobs, describe, detail, nullptr, request.mini_batch,
                            {{schedule, state.time(start)}}, [](size_t) {});
    state.append(std::move(batch), std::move(evaluated));
    const Candidate& from = state.candidates[start];
    double best = state.time(start);
    std::map<std::string, std::pair<double, std::string>> better;  // knob → (time, value)
    for (size_t i = offset; i < state.candidates.size(); ++i) {
      if (!state.rows[i].ok() || !state.rows[i].metrics.iteration_time ||
          !(state.time(i) < state.time(start))) {
        continue;
      }
      best = std::min(best, state.time(i));
      const Candidate& c = state.candidates[i];
      for (const SearchKnob& knob : request.knobs) {
        const auto a = c.options.find(knob.option);
        const auto b = from.options.find(knob.option);
        const bool differs = (a == c.options.end()) != (b == from.options.end()) ||
                             (a != c.options.end() && a->second != b->second);
        if (!differs) continue;
        const std::string value = a == c.options.end() ? knob.values.front() : a->second;
        const auto known = better.find(knob.option);
        if (known == better.end() || state.time(i) < known->second.first) {
          better[knob.option] = {state.time(i), value};
        }
      }
    }
    if (better.size() < 2) return;  // one knob alone: already tried
    Candidate c = from;
    for (const SearchKnob& knob : request.knobs) {
      const auto it = better.find(knob.option);
      if (it != better.end() && knob_applies(c, knob.option)) {
        c = with_option(std::move(c), knob.option, it->second.second);
      }
    }
    if (!seen.insert(candidate_key(c)).second) return;
    ++tried;
    std::vector<Candidate> combined{std::move(c)};
    std::vector<scenario::SweepRow> more =
        evaluate_candidates(combined, specs, jobs, describe, detail, nullptr, request.mini_batch,
                            {{schedule, best}}, [](size_t) {});
    state.append(std::move(combined), std::move(more));
  };
  for (; rounds < request.refine_rounds; ++rounds) {
    const size_t before = tried;
    const auto all_starts = state.starts(kStartsPerSchedule);
    for (const std::string& schedule : request.schedules) {
      const auto it = all_starts.find(schedule);
      if (it == all_starts.end()) continue;
      for (const size_t start : it->second)
        if (expanded.insert(start).second) refine_start(start);
    }
    if (tried == before) break;
  }
  if (tried == 0) return;
  std::string names;
  for (const SearchKnob& knob : request.knobs)
    names += fmt::format("{}{}", names.empty() ? "" : ", ", knob.option);
  const std::string where =
      request.expert_parallel.size() > 1
          ? fmt::format("at each of its {} fastest expert-parallel degrees", kStartsPerSchedule)
          : std::string();
  request.notes.push_back(fmt::format(
      "refined around each schedule's best{}{}: {} ({} more configurations in {} round{}; each "
      "knob's values one at a time, then the improving ones together)",
      where.empty() ? "" : " ", where, names, tried, rounds, rounds == 1 ? "" : "s"));
}

// The memory screen's lower bound on the peak of each candidate `subset` names (an oom row
// known without a replay has no peak of its own); 0 where the screen does not model it. Asked
// only where nothing fits, and computed here rather than kept from the replays so that the
// text does not depend on which process evaluated a row.
std::vector<double> screen_bounds(const std::vector<Candidate>& candidates,
                                  const std::vector<size_t>& subset, scenario::SpecCache& specs,
                                  int jobs) {
  std::vector<Candidate> chosen;
  chosen.reserve(subset.size());
  for (const size_t i : subset)
    chosen.push_back(candidates[i]);
  const auto parsed = parse_candidates(chosen, jobs);
  scenario::MemoryScreen screen;
  std::vector<double> bounds(chosen.size(), 0.0);
  sweep::parallel_for(chosen.size(), jobs, [&](size_t k) {
    scenario::Scenario s;
    if (const auto generated = screened_schedule(*parsed, k, true, &screen, specs, s)) {
      bounds[k] = scenario::MemoryScreen::peak_bound(s, *generated);
    }
  });
  return bounds;
}

report::SearchTally tally_candidates(const SearchRequest& request, const SearchState& state,
                                     scenario::SpecCache& specs, int jobs) {
  const std::vector<Candidate>& candidates = state.candidates;
  const std::vector<scenario::SweepRow>& rows = state.rows;
  report::SearchTally tally;
  for (size_t i = 0; i < candidates.size(); ++i)
    ++tally.statuses[candidates[i].options.at("schedule")][rows[i].status.kind];
  // Every layout is a candidate of every schedule (pruned when refused), so a degree some
  // candidate runs at above 1 is one the request lists.
  const auto varies = [](const std::vector<int>& degrees) {
    return std::any_of(degrees.begin(), degrees.end(), [](int d) { return d != 1; });
  };
  if (varies(request.tensor_parallel)) tally.varied_degrees.insert("tensor_parallel");
  if (varies(request.context_parallel)) tally.varied_degrees.insert("context_parallel");
  if (varies(request.expert_parallel)) tally.varied_degrees.insert("expert_parallel");
  if (varies(request.expert_tensor_parallel)) {
    tally.varied_degrees.insert("expert_tensor_parallel");
  }
  for (const SearchKnob& knob : request.knobs)
    tally.varied_degrees.insert(knob.option);
  tally.notes = request.notes;
  // Why a schedule (and the whole search) has nothing that fits.
  std::map<std::string, std::vector<size_t>> by_schedule;
  bool any_fits = false;
  for (size_t i = 0; i < candidates.size(); ++i) {
    by_schedule[candidates[i].options.at("schedule")].push_back(i);
    any_fits = any_fits || rows[i].ok();
  }
  std::vector<double> needs(candidates.size(), 0.0);
  std::vector<size_t> unknown;  // out of memory, by how much not known yet
  for (const auto& [schedule, subset] : by_schedule) {
    if (std::any_of(subset.begin(), subset.end(), [&](size_t i) { return rows[i].ok(); })) {
      continue;
    }
    for (const size_t i : subset) {
      needs[i] = memory_need(candidates[i], rows[i]);
      if (needs[i] <= 0.0 && rows[i].status.kind == scenario::Status::Kind::Oom) {
        unknown.push_back(i);
      }
    }
  }
  const std::vector<double> bounds = screen_bounds(candidates, unknown, specs, jobs);
  for (size_t k = 0; k < unknown.size(); ++k)
    needs[unknown[k]] = bounds[k];
  std::vector<size_t> all;
  for (const auto& [schedule, subset] : by_schedule) {
    const bool fits =
        std::any_of(subset.begin(), subset.end(), [&](size_t i) { return rows[i].ok(); });
    if (fits) continue;
    tally.binding[schedule] = binding_limit(candidates, rows, needs, subset, request);
    all.insert(all.end(), subset.begin(), subset.end());
  }
  if (!any_fits) tally.nothing_fits = binding_limit(candidates, rows, needs, all, request);
  return tally;
}

}  // namespace

std::vector<scenario::SweepRow> run_search(
    SearchRequest& request, scenario::SpecCache& specs, int jobs,
    const sweep::DescribeError& describe,
    const std::function<void(size_t done, size_t total)>& on_progress,
    sweep::RowEvaluator* evaluator, RowDetail detail, report::SearchTally* tally) {
  SearchState state;
  {
    std::vector<Candidate> candidates = search_candidates(request, specs, jobs);
    const size_t total = candidates.size();
    auto progress = [&](size_t done) {
      if (on_progress) on_progress(done, total);
    };
    std::vector<scenario::SweepRow> evaluated = evaluate_candidates(
        candidates, specs, jobs, describe, detail, evaluator, request.mini_batch, {}, progress);
    progress(total);
    state.append(std::move(candidates), std::move(evaluated));
  }
  // C raised while nothing fits (its rounds on this process's threads).
  const auto fits = [&] {
    return std::any_of(state.rows.begin(), state.rows.end(),
                       [](const scenario::SweepRow& r) { return r.ok(); });
  };
  while (request.context_chosen && !fits()) {
    const int now = request.context_parallel.empty() ? 1 : request.context_parallel.front();
    const int next = next_context_parallel(request, now);
    if (next == 0) break;
    request.context_parallel = {next};
    request.notes.push_back(
        fmt::format("context_parallel raised to {}: nothing fit at C = {}", next, now));
    std::vector<Candidate> more = fixed_candidates(request, jobs);
    std::vector<scenario::SweepRow> evaluated = evaluate_candidates(
        more, specs, jobs, describe, detail, nullptr, request.mini_batch, {}, [](size_t) {});
    state.append(std::move(more), std::move(evaluated));
  }
  refine(state, request, specs, jobs, describe, detail);
  if (tally != nullptr) *tally = tally_candidates(request, state, specs, jobs);
  if (detail == RowDetail::FittingOnly) {
    for (scenario::SweepRow& row : state.rows) {
      if (!row.ok()) row.inputs.clear();
    }
  }
  return std::move(state.rows);
}

}  // namespace pipesim::search
