// The registry's declared options and constraints are the generators' own: check_params()
// rejects exactly the points make_schedule() throws on, with the same message, and an option a
// scheme does not declare never changes what it generates.

#include "pipesim/schedules/registry.hpp"

#include <gtest/gtest.h>

#include "pipesim/schedules/params_check.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::schedules {
namespace {

// Parameter points around every constraint's edges: odd and even D, N below, at and above
// multiples of D and 2D, and out-of-range values of each option.
std::vector<ScheduleParams> grid(const ScheduleEntry& e) {
  std::vector<ScheduleParams> points;
  for (int d : {0, 1, 2, 3, 4, 6, 8}) {
    for (int n : {-1, 1, 2, 3, 4, 6, 8, 12, 16}) {
      ScheduleParams p;
      p.stages = d;
      p.micro_batches = n;
      points.push_back(p);
      if (accepts(e.name, "pipelines")) {
        for (int f2 : {1, 2, 3, 4, 8})
          points.push_back(ScheduleParams{d, n, f2, 0, "", 0});
      }
      if (accepts(e.name, "strategy")) {
        for (const char* s : {"direct", "doubling", "halving", "tripling"}) {
          points.push_back(ScheduleParams{d, n, 0, 0, s, 0});
          points.push_back(ScheduleParams{d, n, 4, 0, s, 0});
        }
      }
      if (accepts(e.name, "chunks")) {
        for (int v : {-1, 1, 3, 64, 65})
          points.push_back(ScheduleParams{d, n, 0, v, "", 0});
      }
      if (accepts(e.name, "iterations")) {
        for (int i : {-3, 2, 3, 256, 257})
          points.push_back(ScheduleParams{d, n, 0, 0, "", i});
      }
    }
  }
  return points;
}

TEST(Registry, CheckParamsRejectsExactlyWhatTheGeneratorRejects) {
  int accepted = 0, rejected = 0;
  for (const ScheduleEntry& e : all_schedules()) {
    for (const ScheduleParams& p : grid(e)) {
      SCOPED_TRACE(::testing::Message() << e.name << " D=" << p.stages << " N=" << p.micro_batches
                                        << " f2=" << p.pipelines << " v=" << p.chunks
                                        << " s=" << p.strategy << " i=" << p.iterations);
      const std::optional<ParamError> verdict = check_params(e.name, p);
      try {
        const sim::Schedule s = make_schedule(e.name, p);
        EXPECT_FALSE(verdict) << verdict->error().what();
        EXPECT_TRUE(sim::validate(s).ok) << sim::validate(s).reason;
        ++accepted;
      } catch (const core::ConfigError& thrown) {
        ASSERT_TRUE(verdict) << "generator threw " << thrown.what();
        EXPECT_STREQ(verdict->error().what(), thrown.what());
        EXPECT_EQ(verdict->source, "schedule " + std::string(e.name));
        ++rejected;
      }
    }
  }
  EXPECT_GT(accepted, 500);
  EXPECT_GT(rejected, 500);
}

TEST(Registry, NamesTheOptionAtFault) {
  auto field = [](std::string_view name, ScheduleParams p) {
    const auto v = check_params(name, p);
    return v ? v->field : std::string("none");
  };
  EXPECT_EQ(field("chimera", {5, 10, 0, 0, "", 0}), option_field("stages"));
  EXPECT_EQ(field("chimera", {4, 4, 6, 0, "", 0}), option_field("pipelines"));
  EXPECT_EQ(field("chimera", {4, 6, 0, 0, "", 0}), option_field("micro_batches"));
  EXPECT_EQ(field("chimera", {4, 4, 0, 0, "doubling", 0}), option_field("strategy"));
  EXPECT_EQ(field("interleaved", {4, 6, 0, 0, "", 0}), option_field("micro_batches"));
  EXPECT_EQ(field("interleaved", {4, 8, 0, 65, "", 0}), option_field("chunks"));
  EXPECT_EQ(field("dualpipe", {3, 12, 0, 0, "", 0}), option_field("stages"));
  EXPECT_EQ(field("dualpipev", {4, 7, 0, 0, "", 0}), option_field("micro_batches"));
  EXPECT_EQ(field("pipedream", {4, 8, 0, 0, "", 2}), option_field("iterations"));
  EXPECT_EQ(field("1f1b", {0, 8, 0, 0, "", 0}), option_field("stages"));
  EXPECT_EQ(field("1f1b", {4, 8, 0, 0, "", 0}), "none");
  const auto unknown = check_params("zigzag", {});
  ASSERT_TRUE(unknown);
  EXPECT_NE(unknown->problem.find("unknown schedule 'zigzag'"), std::string::npos);
}

TEST(Registry, AcceptsOnlyTheOptionsThatShapeTheScheme) {
  EXPECT_TRUE(accepts("chimera", "pipelines"));
  EXPECT_TRUE(accepts("chimera", "strategy"));
  EXPECT_TRUE(accepts("interleaved", "chunks"));
  EXPECT_TRUE(accepts("pipedream", "iterations"));
  EXPECT_FALSE(accepts("1f1b", "pipelines"));
  EXPECT_FALSE(accepts("interleaved", "pipelines"));
  EXPECT_FALSE(accepts("chimera", "chunks"));
  EXPECT_FALSE(accepts("zigzag", "stages"));
  EXPECT_FALSE(accepts("1f1b", "colour"));
  for (const ScheduleEntry& e : all_schedules()) {
    EXPECT_TRUE(accepts(e.name, "stages")) << e.name;
    EXPECT_TRUE(accepts(e.name, "micro_batches")) << e.name;
  }
}

// An option a scheme does not declare leaves its schedule unchanged; a declared one changes it
// for some valid value (so the declaration is neither missing nor spurious).
TEST(Registry, UndeclaredOptionsChangeNothingDeclaredOnesDo) {
  auto same = [](const sim::Schedule& a, const sim::Schedule& b) {
    return a.program == b.program && a.stage_worker == b.stage_worker &&
           a.micro_batch_pipeline == b.micro_batch_pipeline && a.iterations == b.iterations;
  };
  const ScheduleParams base{8, 16, 0, 0, "", 0};
  const std::vector<std::pair<std::string_view, ScheduleParams>> variants{
      {"pipelines", {8, 16, 4, 0, "", 0}},
      {"chunks", {8, 16, 0, 4, "", 0}},
      {"strategy", {8, 16, 0, 0, "halving", 0}},
      {"iterations", {8, 16, 0, 0, "", 5}},
  };
  for (const ScheduleEntry& e : all_schedules()) {
    const sim::Schedule reference = make_schedule(e.name, base);
    for (const auto& [option, p] : variants) {
      SCOPED_TRACE(::testing::Message() << e.name << " " << option);
      const sim::Schedule varied = make_schedule(e.name, p);
      EXPECT_EQ(!same(reference, varied), accepts(e.name, option));
    }
  }
}

}  // namespace
}  // namespace pipesim::schedules
