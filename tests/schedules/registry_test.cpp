// The registry is the one description of each scheme: check_params() rejects exactly the points
// make_schedule() throws on, with the same error; an option a scheme does not declare is refused
// naming it; a declared one changes what the scheme generates; the shape an entry states before
// generating is the generated schedule's; search variants are valid points; the task estimate
// bounds the real count.

#include "pipesim/schedules/registry.hpp"

#include <gtest/gtest.h>

#include <random>

#include "../support/random_params.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::schedules {
namespace {

// Values around an option's declared range: below, at and above each end, every choice and
// one that is not, both switch positions.
std::vector<core::OptionValue> edge_values(const core::OptionSpec& o) {
  switch (o.kind) {
    case core::ValueKind::Integer: {
      const auto lo = static_cast<std::int64_t>(o.lo), hi = static_cast<std::int64_t>(o.hi);
      return {lo - 1, lo, lo + 1, lo + 2, lo + 3, hi, hi + 1};
    }
    case core::ValueKind::Real:
      return {o.lo - 1, o.lo, (o.lo + o.hi) / 2, o.hi, o.hi + 1};
    case core::ValueKind::Switch:
      return {true, false};
    case core::ValueKind::Choice: {
      std::vector<core::OptionValue> out(o.choices.begin(), o.choices.end());
      out.emplace_back(std::string("no-such-choice"));
      return out;
    }
    case core::ValueKind::Text:
      return {std::string("x")};
  }
  return {};
}

// Parameter points around every constraint's edges: odd and even D, N below, at and above
// multiples of D and 2D, and each declared option at the edges of its range.
std::vector<ScheduleParams> grid(const ScheduleEntry& e) {
  std::vector<ScheduleParams> points;
  for (int d : {0, 1, 2, 3, 4, 6, 8}) {
    for (int n : {-1, 1, 2, 3, 4, 6, 8, 12, 16}) {
      points.push_back(ScheduleParams{d, n, {}});
      for (const core::OptionSpec& o : e.options) {
        for (const core::OptionValue& v : edge_values(o)) {
          ScheduleParams p{d, n, {}};
          p.options.set(o.name, v);
          points.push_back(p);
        }
      }
    }
  }
  return points;
}

TEST(Registry, CheckParamsRejectsExactlyWhatMakeScheduleRejects) {
  int accepted = 0, rejected = 0;
  for (const ScheduleEntry& e : all_schedules()) {
    for (const ScheduleParams& p : grid(e)) {
      SCOPED_TRACE(::testing::Message() << e.name << " " << testing::describe_params(p));
      const core::Check verdict = check_params(e.name, p);
      try {
        const sim::Schedule s = make_schedule(e.name, p);
        EXPECT_TRUE(verdict.ok()) << verdict.problem().what();
        EXPECT_EQ(s.name, e.name);
        sim::validate(s).require();
        ++accepted;
      } catch (const core::ConfigError& thrown) {
        ASSERT_FALSE(verdict.ok()) << "generator threw " << thrown.what();
        EXPECT_STREQ(verdict.problem().what(), thrown.what());
        EXPECT_TRUE(thrown.is_option()) << thrown.what();
        ++rejected;
      }
    }
  }
  EXPECT_GT(accepted, 500);
  EXPECT_GT(rejected, 500);
}

TEST(Registry, NamesTheOptionAtFault) {
  auto field = [](std::string_view name, ScheduleParams p) {
    const core::Check v = check_params(name, p);
    return v.ok() ? std::string("none") : v.problem().field();
  };
  const auto with = [](int d, int n, const char* option, core::OptionValue v) {
    ScheduleParams p{d, n, {}};
    p.options.set(option, std::move(v));
    return p;
  };
  EXPECT_EQ(field("chimera", {5, 10, {}}), "stages");
  EXPECT_EQ(field("chimera", with(4, 4, "pipelines", std::int64_t{6})), "pipelines");
  EXPECT_EQ(field("chimera", {4, 6, {}}), "micro_batches");
  EXPECT_EQ(field("chimera", with(4, 4, "strategy", "doubling")), "strategy");
  EXPECT_EQ(field("interleaved", {4, 6, {}}), "micro_batches");
  EXPECT_EQ(field("interleaved", with(4, 8, "chunks", std::int64_t{65})), "chunks");
  EXPECT_EQ(field("dualpipe", {3, 12, {}}), "stages");
  EXPECT_EQ(field("dualpipev", {4, 7, {}}), "micro_batches");
  EXPECT_EQ(field("pipedream", with(4, 8, "iterations", std::int64_t{2})), "iterations");
  EXPECT_EQ(field("1f1b", {0, 8, {}}), "stages");
  EXPECT_EQ(field("1f1b", {4, 8, {}}), "none");
  EXPECT_EQ(field("1f1b", with(4, 8, "chunks", std::int64_t{2})), "chunks");
  const core::Check unknown = check_params("zigzag", {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.problem().field(), "schedule");
  EXPECT_NE(unknown.problem().problem().find("unknown schedule 'zigzag'"), std::string::npos);
}

TEST(Registry, AcceptsExactlyWhatEachSchemeDeclares) {
  EXPECT_FALSE(accepts("zigzag", "stages"));
  for (const ScheduleEntry& e : all_schedules()) {
    EXPECT_TRUE(accepts(e.name, "stages")) << e.name;
    EXPECT_TRUE(accepts(e.name, "micro_batches")) << e.name;
    EXPECT_FALSE(accepts(e.name, "colour")) << e.name;
    for (const core::OptionSpec* o : scheme_options()) {
      const bool declared =
          std::any_of(e.options.begin(), e.options.end(),
                      [&](const core::OptionSpec& d) { return d.name == o->name; });
      EXPECT_EQ(accepts(e.name, o->name), declared) << e.name << " " << o->name;
    }
  }
}

// Schemes that share an option name mean one thing by it: the same kind of value.
TEST(Registry, SharedOptionNamesHaveOneKind) {
  for (const ScheduleEntry& e : all_schedules()) {
    for (const core::OptionSpec& o : e.options) {
      ASSERT_NE(scheme_option(o.name), nullptr);
      EXPECT_EQ(scheme_option(o.name)->kind, o.kind) << e.name << " " << o.name;
    }
  }
}

// An option a scheme does not declare is refused, naming it and the schemes that take it; a
// declared one changes the schedule for some valid value (so the declaration is neither
// missing nor spurious).
TEST(Registry, UndeclaredOptionsAreRefusedDeclaredOnesChangeTheSchedule) {
  auto same = [](const sim::Schedule& a, const sim::Schedule& b) {
    return a.program == b.program && a.stage_worker == b.stage_worker &&
           a.micro_batch_pipeline == b.micro_batch_pipeline && a.iterations == b.iterations &&
           a.drains_each_run == b.drains_each_run && a.micro_batch_divisor == b.micro_batch_divisor;
  };
  for (const ScheduleEntry& e : all_schedules()) {
    for (const core::OptionSpec* o : scheme_options()) {
      SCOPED_TRACE(::testing::Message() << e.name << " " << o->name);
      if (!accepts(e.name, o->name)) {
        ScheduleParams p{8, 16, {}};
        p.options.set(o->name, o->parse(o->default_text.empty() ? "1" : o->default_text));
        const core::Check c = check_params(e.name, p);
        ASSERT_FALSE(c.ok());
        EXPECT_EQ(c.problem().field(), o->name);
        EXPECT_NE(c.problem().problem().find("does not apply"), std::string::npos);
        continue;
      }
      bool changed = false;
      for (int d : {4, 8}) {
        const ScheduleParams base{d, 4 * d, {}};
        if (!check_params(e.name, base).ok()) continue;
        const sim::Schedule reference = make_schedule(e.name, base);
        for (const core::OptionValue& v : edge_values(*o)) {
          ScheduleParams p = base;
          p.options.set(o->name, v);
          if (!check_params(e.name, p).ok()) continue;
          changed = changed || !same(reference, make_schedule(e.name, p));
        }
      }
      EXPECT_TRUE(changed);
    }
  }
}

// The shape an entry states without generating (for estimates and search) is the shape of
// what it generates.
TEST(Registry, StatedShapeIsTheGeneratedSchedules) {
  std::mt19937 rng(20261203);
  for (int trial = 0; trial < 20; ++trial) {
    for (const ScheduleEntry& e : all_schedules()) {
      const ScheduleParams p = testing::draw_valid(e.name, rng);
      SCOPED_TRACE(::testing::Message() << e.name << " " << testing::describe_params(p));
      const sim::Schedule s = make_schedule(e.name, p);
      const core::OptionValues generated = shape_of(s);
      const Shape stated = shape_of(e.name, p);
      EXPECT_EQ(stated.chunks, generated.integer("chunks"));
      EXPECT_EQ(s.virtual_stages, s.workers * stated.chunks);  // search prunes D·chunks > L
      EXPECT_EQ(stated.pipelines, generated.integer("pipelines"));
      EXPECT_EQ(stated.iterations, generated.integer("iterations"));
      EXPECT_EQ(s.split_backward, e.traits.split_backward);
      EXPECT_EQ(s.asynchronous, e.traits.asynchronous);
    }
  }
}

// The variants search is given are values of options the scheme takes, and some of them run.
TEST(Registry, SearchVariantsAreOptionsTheSchemeTakes) {
  for (const ScheduleEntry& e : all_schedules()) {
    if (e.variants == nullptr) continue;
    for (int d : {2, 4, 8}) {
      for (int n : {d, 2 * d, 4 * d}) {
        int runs = 0;
        for (const SearchVariant& v : e.variants({d, n, 64})) {
          const ScheduleParams p{d, n, v.options};
          EXPECT_NO_THROW((void)resolve(e.name, p)) << e.name;
          runs += v.pruned.empty() && check_params(e.name, p).ok() ? 1 : 0;
        }
        EXPECT_GT(runs, 0) << e.name << " D=" << d << " N=" << n;
      }
    }
  }
}

}  // namespace
}  // namespace pipesim::schedules
