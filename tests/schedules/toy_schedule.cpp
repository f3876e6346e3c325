// A test-only scheme, registered from outside the catalogue in this one file: GPipe in groups.
// Every worker runs the forwards of `toy_group` micro-batches, then their backwards, group by
// group (toy_group = N is GPipe). It exists to show that a scheme is one file and one registry
// entry: the toy tests find it in every front end with no other file changed.

#include <fmt/format.h>

#include <algorithm>

#include "pipesim/schedules/registry.hpp"

namespace pipesim::testing {
namespace {

using schedules::ScheduleParams;

int group_of(const ScheduleParams& p) {
  return static_cast<int>(p.options.integer("toy_group"));
}

sim::Schedule make_toy(const ScheduleParams& p) {
  sim::Schedule s = sim::make_linear_schedule("toy", p.stages, p.micro_batches);
  const int g = group_of(p);
  for (int stage = 0; stage < p.stages; ++stage) {
    auto& ops = s.program[static_cast<size_t>(stage)];
    for (int first = 0; first < p.micro_batches; first += g) {
      for (int m = first; m < first + g; ++m)
        ops.push_back({sim::OpKind::Forward, 0, stage, 0, m});
      for (int m = first; m < first + g; ++m)
        ops.push_back({sim::OpKind::Backward, 0, stage, 0, m});
    }
  }
  return s;
}

const schedules::ScheduleEntry& toy_entry() {
  static const schedules::ScheduleEntry entry = [] {
    schedules::ScheduleEntry e;
    e.name = "toy";
    e.description = "test-only: GPipe in groups of toy_group micro-batches";
    e.citation = "pipesim's tests";
    e.options = {core::integer_option("toy_group", 1, 64, "1",
                                      "toy: micro-batches per forward-then-backward group")};
    e.constraints = {schedules::Constraint{
        "toy_group", [](const ScheduleParams& p) { return p.micro_batches % group_of(p) == 0; },
        [](const ScheduleParams& p) {
          return fmt::format("must divide N = {}, got {}", p.micro_batches, group_of(p));
        }}};
    e.make = &make_toy;
    e.variants = [](const schedules::SearchContext& c) {
      std::vector<schedules::SearchVariant> variants;
      for (const int g : {1, std::min(c.micro_batches, 64)}) {
        schedules::SearchVariant v;
        v.options.set("toy_group", std::int64_t{g});
        variants.push_back(std::move(v));
      }
      return variants;
    };
    return e;
  }();
  return entry;
}

const schedules::Registration kToy(&toy_entry);

}  // namespace
}  // namespace pipesim::testing
