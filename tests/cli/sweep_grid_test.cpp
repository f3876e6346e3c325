// The sweep grid: row order fixed by the option table, command line over file, defaults.

#include "cli/sweep_grid.hpp"

#include <gtest/gtest.h>

#include "../support/cli_invoke.hpp"
#include "cli/run_options.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim::cli {
namespace {

size_t index_of(const std::string& flag) {
  const auto& options = run_options();
  for (size_t i = 0; i < options.size(); ++i) {
    if (options[i].flag() == flag) return i;
  }
  ADD_FAILURE() << "no option " << flag;
  return 0;
}

TEST(SweepGrid, LastOptionVariesFastestWhateverTheCommandLineOrder) {
  const SweepGrid grid =
      make_grid({{"--micro-batches", "8,16"}, {"--stages", "4,8"}, {"--schedule", "gpipe"}}, "");
  ASSERT_EQ(grid.size(), 4u);
  const size_t d = index_of("--stages"), n = index_of("--micro-batches");
  ASSERT_LT(d, n) << "the table lists --stages before --micro-batches";
  const std::vector<std::pair<std::string, std::string>> expected{
      {"4", "8"}, {"4", "16"}, {"8", "8"}, {"8", "16"}};
  for (size_t i = 0; i < grid.size(); ++i) {
    const Point p = grid.point(i);
    EXPECT_EQ(p[d], expected[i].first) << i;
    EXPECT_EQ(p[n], expected[i].second) << i;
    EXPECT_EQ(p[index_of("--schedule")], "gpipe");
  }
}

TEST(SweepGrid, OptionsNotGivenTakeTheirDefault) {
  const SweepGrid grid = make_grid({}, "");
  ASSERT_EQ(grid.size(), 1u);
  const Point p = grid.point(0);
  const auto& options = run_options();
  for (size_t i = 0; i < options.size(); ++i)
    EXPECT_EQ(p[i], options[i].default_value);
}

TEST(SweepGrid, CommandLineWinsOverTheFile) {
  const testing::ScratchDir dir;
  const std::string file = dir.write("s.yaml", "stages: [2, 3]\nmicro-batches: 4:16:x2\n");
  const SweepGrid grid = make_grid({{"--stages", "5"}}, file);
  EXPECT_EQ(grid.values()[index_of("--stages")], std::vector<std::string>{"5"});
  EXPECT_EQ(grid.values()[index_of("--micro-batches")], (std::vector<std::string>{"4", "8", "16"}));
  EXPECT_EQ(grid.size(), 3u);
}

TEST(SweepGrid, EveryValueIsCheckedBeforeAnythingRuns) {
  try {
    make_grid({{"--stages", "4,0"}}, "");
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "command line: --stages: must be in [1, 4096], got 0");
  }
}

TEST(SweepGrid, TooManyConfigurationsIsAnError) {
  EXPECT_THROW(
      make_grid({{"--stages", "1:1000"}, {"--micro-batches", "1:1000"}, {"--t-comm", "0:100"}}, ""),
      core::ConfigError);
}

}  // namespace
}  // namespace pipesim::cli
