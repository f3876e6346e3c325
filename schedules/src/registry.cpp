#include "pipesim/schedules/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <span>

#include "entries.hpp"

namespace pipesim::schedules {
namespace {

// The shipped catalogue, in the order `pipesim list schedules` shows it: one line per scheme,
// each entry defined beside its generator in schedules/src/<name>.cpp.
constexpr std::array kCatalogue{
    &gpipe_entry,         &one_f_one_b_entry, &dapple_entry,         &pipedream_entry,
    &pipedream_2bw_entry, &gems_entry,        &chimera_entry,        &interleaved_entry,
    &zb_h1_entry,         &zb_h2_entry,       &zb_v_entry,           &dualpipe_entry,
    &dualpipev_entry,     &v_half_entry,      &v_min_entry,          &hanayo_entry,
    &bitpipe_entry,       &bfs_entry,         &interleaved_zb_entry,
};

// Schemes registered from outside the catalogue, in registration order. Filled by static
// Registration objects before main() and only read after.
std::vector<const ScheduleEntry& (*)()>& registrations() {
  static std::vector<const ScheduleEntry& (*)()> list;
  return list;
}

// Built on first use, after every static registration.
const std::vector<const ScheduleEntry*>& entries() {
  static const std::vector<const ScheduleEntry*> all = [] {
    std::vector<const ScheduleEntry*> out;
    for (const auto entry : kCatalogue)
      out.push_back(&entry());
    for (const auto entry : registrations())
      out.push_back(&entry());
    return out;
  }();
  return all;
}

std::string known_names() {
  std::string known;
  for (const ScheduleEntry* e : entries())
    known += fmt::format("{}{}", known.empty() ? "" : ", ", e->name);
  return known;
}

const ScheduleEntry& require_entry(std::string_view name) {
  const ScheduleEntry* e = find_schedule(name);
  if (e == nullptr) {
    throw core::ConfigError::option(
        "schedule", fmt::format("unknown schedule '{}' (known: {})", name, known_names()));
  }
  return *e;
}

const core::OptionSpec* declared(const ScheduleEntry& e, std::string_view option) {
  for (const core::OptionSpec& o : e.options) {
    if (o.name == option) return &o;
  }
  return nullptr;
}

// "chimera" or "zb-v, dualpipev": the schemes that take `option`.
std::string accepted_by(std::string_view option) {
  std::string names;
  for (const ScheduleEntry* e : entries()) {
    if (declared(*e, option) != nullptr)
      names += fmt::format("{}{}", names.empty() ? "" : ", ", e->name);
  }
  return names;
}

std::string context(const ScheduleEntry& e) {
  return fmt::format("schedule {}", e.name);
}

// stages and micro_batches in range: every scheme's first rules (the scheme's own divide by D
// and compare with N).
core::Check basic_ranges(const ScheduleEntry& e, const ScheduleParams& p) {
  if (p.stages < 1 || p.stages > kMaxStages) {
    return core::ConfigError::option(
        "stages", fmt::format("must be in [1, {}], got {}", kMaxStages, p.stages), context(e));
  }
  if (p.micro_batches < 1 || p.micro_batches > kMaxMicroBatches) {
    return core::ConfigError::option(
        "micro_batches",
        fmt::format("must be in [1, {}], got {}", kMaxMicroBatches, p.micro_batches), context(e));
  }
  return {};
}

// The scheme's defaults filled in; a problem for an option it does not take or a bad value.
core::Check resolved(const ScheduleEntry& e, const ScheduleParams& given, ScheduleParams& out) {
  out.stages = given.stages;
  out.micro_batches = given.micro_batches;
  out.options = {};
  for (const auto& [name, value] : given.options.items()) {
    const core::OptionSpec* spec = declared(e, name);
    if (spec == nullptr) {
      return core::ConfigError::option(
          name, fmt::format("does not apply to schedule {} (only to {})", e.name,
                            accepted_by(name).empty() ? "none" : accepted_by(name)));
    }
    try {
      out.options.set(name, spec->check(value));
    } catch (const core::ConfigError& error) {
      return error;
    }
  }
  for (const core::OptionSpec& spec : e.options) {
    if (!out.options.contains(spec.name)) out.options.set(spec.name, spec.parse(spec.default_text));
  }
  return {};
}

core::Check broken_rule(const ScheduleEntry& e, const ScheduleParams& p) {
  for (const Constraint& c : e.constraints) {
    if (!c.holds(p)) return core::ConfigError::option(c.option, c.problem(p), context(e));
  }
  return {};
}

// Checks `given` for scheme `e`, leaving the resolved params in `out` when they pass.
core::Check checked(const ScheduleEntry& e, const ScheduleParams& given, ScheduleParams& out) {
  if (core::Check c = resolved(e, given, out); !c.ok()) return c;
  if (core::Check c = basic_ranges(e, out); !c.ok()) return c;
  return broken_rule(e, out);
}

int shape_field(const core::OptionValues& shape, std::string_view name) {
  const core::OptionValue* v = shape.find(name);
  return v != nullptr ? static_cast<int>(std::get<std::int64_t>(*v)) : 1;
}

}  // namespace

Registration::Registration(const ScheduleEntry& (*entry)()) {
  registrations().push_back(entry);
}

Catalogue all_schedules() {
  const std::span<const ScheduleEntry* const> all(entries());
  return {all.data(), all.data() + all.size()};
}

const ScheduleEntry* find_schedule(std::string_view name) {
  const auto same = [name](std::string_view known) {
    return std::ranges::equal(name, known, [](char a, char b) {
      return std::tolower(static_cast<unsigned char>(a)) ==
             std::tolower(static_cast<unsigned char>(b));
    });
  };
  for (const ScheduleEntry* e : entries()) {
    if (same(e->name) || std::ranges::any_of(e->aliases, same)) return e;
  }
  return nullptr;
}

bool accepts(std::string_view name, std::string_view option) {
  const ScheduleEntry* e = find_schedule(name);
  if (e == nullptr) return false;
  return option == "stages" || option == "micro_batches" || declared(*e, option) != nullptr;
}

const core::OptionSpec* scheme_option(std::string_view option) {
  for (const ScheduleEntry* e : entries()) {
    if (const core::OptionSpec* o = declared(*e, option)) return o;
  }
  return nullptr;
}

std::vector<const core::OptionSpec*> scheme_options() {
  // The shipped schemes' options in the order tables have always shown them; options of other
  // schemes follow in catalogue order of first declaration.
  constexpr std::array<std::string_view, 5> kShippedOrder{"pipelines", "chunks", "strategy",
                                                          "iterations", "epoch_drain"};
  std::vector<const core::OptionSpec*> out;
  for (const std::string_view name : kShippedOrder) {
    if (const core::OptionSpec* o = scheme_option(name)) out.push_back(o);
  }
  for (const ScheduleEntry* e : entries()) {
    for (const core::OptionSpec& o : e->options) {
      if (std::none_of(out.begin(), out.end(), [&](const auto* k) { return k->name == o.name; }))
        out.push_back(&o);
    }
  }
  return out;
}

ScheduleParams resolve(std::string_view name, const ScheduleParams& params) {
  const ScheduleEntry& e = require_entry(name);
  ScheduleParams out;
  resolved(e, params, out).require();
  return out;
}

core::Check check_params(std::string_view name, const ScheduleParams& params) {
  const ScheduleEntry* e = find_schedule(name);
  if (e == nullptr) {
    try {
      require_entry(name);
    } catch (const core::ConfigError& error) {
      return error;
    }
  }
  ScheduleParams out;
  return checked(*e, params, out);
}

Shape shape_of(std::string_view name, const ScheduleParams& params) {
  const ScheduleEntry& e = require_entry(name);
  if (e.shape == nullptr) return {};
  const core::OptionValues shape = e.shape(resolve(name, params));
  return {shape_field(shape, "chunks"), shape_field(shape, "pipelines"),
          shape_field(shape, "iterations")};
}

core::OptionValues shape_of(const sim::Schedule& schedule) {
  core::OptionValues shape;
  shape.set("chunks",
            std::int64_t{schedule.workers > 0 ? schedule.virtual_stages / schedule.workers : 1});
  shape.set("pipelines", std::int64_t{schedule.pipelines});
  shape.set("iterations", std::int64_t{schedule.iterations});
  return shape;
}

double estimate_tasks(std::string_view name, const ScheduleParams& params) {
  const ScheduleEntry* e = find_schedule(name);
  Shape shape;
  bool split = false;
  if (e != nullptr && check_params(name, params).ok()) {
    shape = shape_of(name, params);
    split = e->traits.split_backward;
  }
  const double d = std::max(params.stages, 1);
  const double micro = static_cast<double>(std::max(params.micro_batches, 1)) * shape.iterations;
  const double stages = d * shape.chunks;
  const double kinds = split ? 3.0 : 2.0;
  // Compute ops, at most one transfer after each, and a few per stage and worker at the ends.
  return micro * stages * kinds * 2.0 + 2.0 * (stages + d);
}

sim::Schedule make_schedule(std::string_view name, const ScheduleParams& params) {
  const ScheduleEntry& e = require_entry(name);
  ScheduleParams p;
  checked(e, params, p).require();
  sim::Schedule s = e.make(p);
  s.name = e.name;
  return s;
}

}  // namespace pipesim::schedules
