// The scenario option table and the metric table: names are the keys (no flags), every
// enum has exactly one name, errors name the option, defaults make a valid scenario, and the
// metric table's getters agree with the rows they read.

#include "pipesim/scenario/options.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "pipesim/scenario/names.hpp"
#include "pipesim/scenario/row.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {
namespace {

TEST(Options, NamesAreUniqueIdentifiersNotFlags) {
  std::set<std::string> names;
  for (const Option& o : options()) {
    EXPECT_TRUE(names.insert(o.name()).second) << o.name();
    EXPECT_EQ(o.name().find('-'), std::string::npos) << o.name() << " is a name, not a flag";
    EXPECT_EQ(find_option(o.name()), &o);
  }
  EXPECT_EQ(find_option("--stages"), nullptr);
  EXPECT_EQ(input_columns().size(), options().size());
}

TEST(Options, DefaultsMakeAScenarioThatSimulates) {
  const Scenario s = make_scenario({});
  EXPECT_EQ(s.schedule, "1f1b");
  EXPECT_EQ(s.params.stages, 4);
  EXPECT_EQ(s.params.micro_batches, 8);
  const Result r = simulate(s);
  // 1F1B in unit-cost mode: (N + D − 1)(t_F + t_B) = 11 · 3.
  EXPECT_DOUBLE_EQ(r.metrics.iteration_time, 33.0);
}

TEST(Options, ErrorsNameTheOptionAndTheRange) {
  try {
    make_scenario({{"stages", "0"}});
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_TRUE(e.is_option());
    EXPECT_EQ(e.field(), "stages");
    EXPECT_EQ(e.problem(), "must be in [1, 4096], got 0");
    EXPECT_EQ(std::string(e.what()), "stages: must be in [1, 4096], got 0");
  }
  try {
    make_scenario({{"recompute", "some"}});
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.problem(), "must be one of none|selective|full, got 'some'");
  }
  EXPECT_THROW(make_scenario({{"no_such_option", "1"}}), core::ConfigError);
  Scenario bad = make_scenario({{"t_weight", "3"}});  // > t_backward = 2
  try {
    simulate(bad);
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_TRUE(e.is_option());
    EXPECT_EQ(e.field(), "t_weight");
  }
}

// A value of `o` other than its default where one exists, from its declaration alone.
core::OptionValue sample(const Option& o) {
  switch (o.spec.kind) {
    case core::ValueKind::Integer:
      return std::int64_t(o.spec.hi);
    case core::ValueKind::Real:
      return o.spec.hi / 2;
    case core::ValueKind::Switch:
      return o.spec.default_text != "on";
    case core::ValueKind::Choice:
      return o.spec.choices.back() != o.spec.default_text ? o.spec.choices.back()
                                                          : o.spec.choices.front();
    case core::ValueKind::Text:
      return std::string("some-name");
  }
  return {};
}

// The typed accessor of every option reads back what it wrote, its text parses back to the
// value, and no other option changes.
TEST(Options, TypedAccessorsReadWhatTheyWriteAndNothingElse) {
  const Scenario base = make_scenario({});
  const auto base_texts = option_texts(base);
  for (size_t i = 0; i < options().size(); ++i) {
    const Option& o = options()[i];
    SCOPED_TRACE(o.name());
    const core::OptionValue v = sample(o);
    Scenario s = base;
    o.set(s, o.spec.check(v));
    ASSERT_TRUE(o.get(s).has_value());
    EXPECT_EQ(*o.get(s), v);
    EXPECT_EQ(o.spec.parse(o.text(s)), v);
    auto texts = option_texts(s);
    texts[i] = base_texts[i];
    EXPECT_EQ(texts, base_texts) << "setting " << o.name() << " changed another option";
  }
}

// A scheme's option is one of every front end's options, with each scheme's own default.
TEST(Options, SchemeOptionsComeFromTheRegistryWithEachSchemesDefault) {
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    for (const core::OptionSpec& declared : e.options) {
      const Option* o = find_option(declared.name);
      ASSERT_NE(o, nullptr) << declared.name;
      EXPECT_EQ(o->scope, Scope::Scheme);
      EXPECT_EQ(o->spec.kind, declared.kind);
      EXPECT_NE(default_help(*o).find(fmt::format("{} (", declared.default_text)),
                std::string::npos)
          << default_help(*o);
      EXPECT_NE(default_help(*o).find(e.name), std::string::npos) << default_help(*o);
    }
  }
  // Not given: the scheme's default applies and the scenario holds nothing.
  EXPECT_FALSE(find_option("pipelines")->get(make_scenario({})).has_value());
}

TEST(Names, EveryEnumHasOneNameAndRoundTrips) {
  for (const auto& [name, value] : kRecomputeNames) {
    EXPECT_EQ(value_of(kRecomputeNames, name), value);
    EXPECT_EQ(name_of(kRecomputeNames, value), name);
  }
  for (const auto& [name, value] : kPlacementNames) {
    EXPECT_EQ(name_of(kPlacementNames, value), name);
  }
  EXPECT_EQ(names_of(kPartitionNames),
            "uniform|balanced|account-ends|account-embedding|account-loss");
  EXPECT_FALSE(value_of(kGradSyncNames, "lazy").has_value());
  const Scenario s = make_scenario({{"recompute", "selective"},
                                    {"placement", "data-major"},
                                    {"grad_sync", "flush"},
                                    {"overlap_p2p", "off"}});
  EXPECT_EQ(s.perf.setup.recompute, models::Recompute::Selective);
  EXPECT_EQ(s.perf.setup.placement, hardware::PlacementMode::DataMajor);
  EXPECT_EQ(s.perf.grad_sync, sim::GradSync::Flush);
  EXPECT_FALSE(s.perf.overlap_p2p);
}

TEST(Metrics, TableGettersReadTheRowAndCellsAlignWithColumns) {
  SweepRow row;
  row.metrics.throughput = 12.5;
  row.metrics.workers = 8;
  row.metrics.fits_memory = false;
  row.status = {Status::Kind::Invalid, "why"};
  EXPECT_EQ(metric_value(row, "throughput"), 12.5);
  EXPECT_EQ(metric_value(row, "workers"), 8.0);
  EXPECT_FALSE(metric_value(row, "mfu").has_value());
  EXPECT_FALSE(metric_value(row, "no_such_metric").has_value());
  const auto cells = metric_cells(row);
  const auto names = metric_columns();
  ASSERT_EQ(cells.size(), names.size());
  EXPECT_EQ(names.back(), "status");
  EXPECT_EQ(cells.back(), "invalid: why");
  std::map<std::string, std::string> by_name;
  for (size_t i = 0; i < names.size(); ++i)
    by_name[names[i]] = cells[i];
  EXPECT_EQ(by_name.at("throughput"), "12.5");
  EXPECT_EQ(by_name.at("workers"), "8");
  EXPECT_EQ(by_name.at("fits_memory"), "false");
  EXPECT_EQ(by_name.at("mfu"), "");
  for (const Metric& m : metrics())
    EXPECT_EQ(find_metric(m.name), &m);
  EXPECT_EQ(find_metric("throughput")->direction, +1);
  EXPECT_EQ(find_metric("iteration_time")->direction, -1);
}

}  // namespace
}  // namespace pipesim::scenario

namespace pipesim::scenario {
namespace {

TEST(Options, TextOfEveryOptionParsesBackToTheSameScenario) {
  const Scenario s = make_scenario({{"schedule", "chimera"},
                                    {"stages", "8"},
                                    {"pipelines", "4"},
                                    {"strategy", "halving"},
                                    {"t_forward", "1.5"},
                                    {"recompute", "full"},
                                    {"placement", "data-major"},
                                    {"bytes_per_param", "12"},
                                    {"model", "gpt2-1.3b"}});
  const auto texts = option_texts(s);
  std::vector<std::pair<std::string, std::string>> values;
  for (size_t i = 0; i < options().size(); ++i)
    values.emplace_back(options()[i].name(), texts[i]);
  EXPECT_EQ(option_texts(make_scenario(values)), texts);
  EXPECT_EQ(option_text(s, "t_forward"), "1.5");
  EXPECT_EQ(option_text(s, "placement"), "data-major");
  // Defaults print as the table's default texts (a scheme option not given: nothing).
  const auto defaults = option_texts(make_scenario({}));
  for (size_t i = 0; i < options().size(); ++i)
    EXPECT_EQ(defaults[i], options()[i].spec.default_text);
}

}  // namespace
}  // namespace pipesim::scenario
