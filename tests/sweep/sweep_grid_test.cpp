// The sweep grid: row order fixed by the option table, command line over file, defaults.

#include "pipesim/sweep/sweep_grid.hpp"

#include <gtest/gtest.h>

#include "../support/cli_invoke.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/wording.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::sweep {
namespace {

using scenario::Point;

size_t index_of(const std::string& name) {
  const auto& options = scenario::options();
  for (size_t i = 0; i < options.size(); ++i) {
    if (options[i].name() == name) return i;
  }
  ADD_FAILURE() << "no option " << name;
  return 0;
}

TEST(SweepGrid, LastOptionVariesFastestWhateverTheCommandLineOrder) {
  const SweepGrid grid =
      make_grid({{"micro_batches", "8,16"}, {"stages", "4,8"}, {"schedule", "gpipe"}}, "");
  ASSERT_EQ(grid.size(), 4u);
  const size_t d = index_of("stages"), n = index_of("micro_batches");
  ASSERT_LT(d, n) << "the table lists stages before micro_batches";
  const std::vector<std::pair<std::string, std::string>> expected{
      {"4", "8"}, {"4", "16"}, {"8", "8"}, {"8", "16"}};
  for (size_t i = 0; i < grid.size(); ++i) {
    const Point p = grid.point(i);
    EXPECT_EQ(p[d], expected[i].first) << i;
    EXPECT_EQ(p[n], expected[i].second) << i;
    EXPECT_EQ(p[index_of("schedule")], "gpipe");
  }
}

TEST(SweepGrid, OptionsNotGivenTakeTheirDefault) {
  const SweepGrid grid = make_grid({}, "");
  ASSERT_EQ(grid.size(), 1u);
  const Point p = grid.point(0);
  const auto& options = scenario::options();
  for (size_t i = 0; i < options.size(); ++i)
    EXPECT_EQ(p[i], options[i].spec.default_text);
}

TEST(SweepGrid, CommandLineWinsOverTheFile) {
  const testing::ScratchDir dir;
  const std::string file = dir.write("s.yaml", "stages: [2, 3]\nmicro-batches: 4:16:x2\n");
  const SweepGrid grid = make_grid({{"stages", "5"}}, file);
  EXPECT_EQ(grid.values()[index_of("stages")], std::vector<std::string>{"5"});
  EXPECT_EQ(grid.values()[index_of("micro_batches")], (std::vector<std::string>{"4", "8", "16"}));
  EXPECT_EQ(grid.size(), 3u);
}

TEST(SweepGrid, EveryValueIsCheckedBeforeAnythingRuns) {
  try {
    make_grid({{"stages", "4,0"}}, "");
    FAIL();
  } catch (const core::ConfigError& e) {
    // The library names the option; each front end spells it its own way.
    EXPECT_TRUE(e.is_option());
    EXPECT_EQ(std::string(e.what()), "stages: must be in [1, 4096], got 0");
    EXPECT_EQ(core::cli_wording(e), "command line: --stages: must be in [1, 4096], got 0");
    EXPECT_EQ(core::python_wording(e, "sweep()"), "sweep(): stages=: must be in [1, 4096], got 0");
  }
  try {
    make_grid({{"stages", "4,x"}}, "");
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(core::cli_wording(e),
              "command line: --stages: expected an integer in [1, 4096], got 'x'");
  }
}

TEST(SweepGrid, TooManyConfigurationsIsAnError) {
  EXPECT_THROW(
      make_grid({{"stages", "1:1000"}, {"micro_batches", "1:1000"}, {"t_comm", "0:100"}}, ""),
      core::ConfigError);
}

}  // namespace
}  // namespace pipesim::sweep

namespace pipesim::sweep {
namespace {

// A configuration's scenario comes from values parsed once, when the grid was made: the same
// as applying its texts, a refused text included (a grid built directly, not by make_grid).
TEST(SweepGrid, ParsedValuesGiveWhatTheTextsGive) {
  std::vector<std::vector<std::string>> values;
  for (const scenario::Option& o : scenario::options())
    values.push_back({o.spec.default_text});
  values[index_of("stages")] = {"4", "9"};
  values[index_of("micro_batches")] = {"8", "x"};
  values[index_of("t_comm")] = {"0", "0.25"};
  const SweepGrid grid(values);
  ASSERT_EQ(grid.size(), 8u);
  const auto& options = scenario::options();
  for (size_t i = 0; i < grid.size(); ++i) {
    const Point p = grid.point(i);
    scenario::Scenario parsed, bound;
    std::string parse_error, bind_error;
    try {
      for (size_t o = 0; o < options.size(); ++o)
        options[o].apply(parsed, p[o]);
    } catch (const core::ConfigError& e) {
      parse_error = e.what();
    }
    try {
      grid.apply(bound, i);
    } catch (const core::ConfigError& e) {
      bind_error = e.what();
    }
    EXPECT_EQ(bind_error, parse_error) << i;
    EXPECT_EQ(scenario::option_texts(bound), scenario::option_texts(parsed)) << i;
  }
}

}  // namespace
}  // namespace pipesim::sweep
