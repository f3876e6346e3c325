// The scenario option table and the metric table: names are the keys (no flags), every
// enum has exactly one name, errors name the option, defaults make a valid scenario, and the
// metric table's getters agree with the rows they read.

#include "pipesim/scenario/options.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "pipesim/scenario/names.hpp"
#include "pipesim/scenario/row.hpp"

namespace pipesim::scenario {
namespace {

TEST(Options, NamesAreUniqueIdentifiersNotFlags) {
  std::set<std::string> names;
  for (const Option& o : options()) {
    EXPECT_TRUE(names.insert(o.name).second) << o.name;
    EXPECT_EQ(o.name.find('-'), std::string::npos) << o.name << " is a name, not a flag";
    EXPECT_EQ(find_option(o.name), &o);
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
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "stages");
    EXPECT_EQ(e.problem(), "must be in [1, 4096], got 0");
    EXPECT_EQ(std::string(e.what()), "stages: must be in [1, 4096], got 0");
  }
  try {
    make_scenario({{"recompute", "some"}});
    FAIL();
  } catch (const OptionError& e) {
    EXPECT_EQ(e.problem(), "must be one of none|selective|full, got 'some'");
  }
  EXPECT_THROW(make_scenario({{"no_such_option", "1"}}), OptionError);
  Scenario bad = make_scenario({{"t_weight", "3"}});  // > t_backward = 2
  try {
    simulate(bad);
    FAIL();
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "t_weight");
  }
}

TEST(Names, EveryEnumHasOneNameAndRoundTrips) {
  for (const auto& [name, value] : kRecomputeNames) {
    EXPECT_EQ(value_of(kRecomputeNames, name), value);
    EXPECT_EQ(name_of(kRecomputeNames, value), name);
  }
  for (const auto& [name, value] : kPlacementNames) {
    EXPECT_EQ(name_of(kPlacementNames, value), name);
  }
  EXPECT_EQ(names_of(kPartitionNames), "uniform|balanced|account-ends");
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
    values.emplace_back(options()[i].name, texts[i]);
  EXPECT_EQ(option_texts(make_scenario(values)), texts);
  EXPECT_EQ(option_text(s, "t_forward"), "1.5");
  EXPECT_EQ(option_text(s, "placement"), "data-major");
  // Defaults print as the table's default texts.
  const auto defaults = option_texts(make_scenario({}));
  for (size_t i = 0; i < options().size(); ++i)
    EXPECT_EQ(defaults[i], options()[i].default_value);
}

}  // namespace
}  // namespace pipesim::scenario
