// The words other tools' users type: Megatron-LM's argument names, PyTorch's schedule class
// names, any case, bare switches, and a suggestion for a misspelt option.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/cli_invoke.hpp"
#include "cli/suggest.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::cli {
namespace {

const auto invoke = &pipesim::testing::invoke_cli;

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

const std::vector<std::string> kRealRun = {"simulate", "--model",  "gpt2-1.3b", "--hardware",
                                           "a100-dgx", "--format", "json"};

TEST(TheirWords, EveryMegatronAliasRunsAsPipesimsOwnFlag) {
  // Alias, pipesim's own spelling, a value; chunks needs an interleaved schedule.
  struct Case {
    std::string alias, own, value;
    std::vector<std::string> context;
  };
  const std::vector<Case> cases = {
      {"--tensor-model-parallel-size", "--tensor-parallel", "2", {"-D", "4", "-N", "8"}},
      {"--pipeline-model-parallel-size", "--stages", "8", {"-N", "8"}},
      {"--virtual-pipeline-model-parallel-size",
       "--chunks",
       "4",
       {"--schedule", "interleaved", "-D", "4", "-N", "8"}},
      {"--seq-length", "--sequence", "512", {"-D", "4", "-N", "8"}},
      {"--use-distributed-optimizer",
       "--distributed-optimizer",
       "on",
       {"-D", "4", "-N", "8", "-W", "2"}},
      {"--recompute-granularity", "--recompute", "selective", {"-D", "4", "-N", "8"}},
  };
  for (const Case& c : cases) {
    const auto mine = invoke(with(with(kRealRun, c.context), {c.own, c.value}));
    const auto theirs = invoke(with(with(kRealRun, c.context), {c.alias, c.value}));
    ASSERT_EQ(mine.code, 0) << c.own << ": " << mine.err;
    EXPECT_EQ(theirs.code, 0) << c.alias << ": " << theirs.err;
    EXPECT_EQ(theirs.out, mine.out) << c.alias;
    // And the value matters: the default run differs, so the alias is not ignored.
    EXPECT_NE(invoke(with(kRealRun, c.context)).out, mine.out) << c.own;
  }
}

TEST(TheirWords, EveryAliasNamesAnOptionOfTheTable) {
  size_t aliases = 0;
  for (const scenario::Option& o : scenario::options()) {
    for (const std::string& a : o.aliases) {
      ++aliases;
      EXPECT_EQ(scenario::find_option(a), nullptr) << a << " is also an option's own name";
    }
  }
  EXPECT_GE(aliases, 6u);
}

TEST(TheirWords, ABareSwitchMeansOn) {
  const std::vector<std::string> base = with(kRealRun, {"-D", "4", "-N", "8", "-T", "2"});
  const auto bare = invoke(with(base, {"--sequence-parallel"}));
  const auto on = invoke(with(base, {"--sequence-parallel", "on"}));
  const auto off = invoke(with(base, {"--sequence-parallel", "off"}));
  ASSERT_EQ(on.code, 0) << on.err;
  EXPECT_EQ(bare.code, 0) << bare.err;
  EXPECT_EQ(bare.out, on.out);
  EXPECT_NE(off.out, on.out);
  // A bare switch followed by another option leaves that option its value.
  const auto before =
      invoke(with(with(kRealRun, {"--sequence-parallel"}), {"-D", "4", "-N", "8", "-T", "2"}));
  EXPECT_EQ(before.out, on.out);
}

TEST(TheirWords, ScheduleNamesIgnoreCaseAndTakePyTorchClassNames) {
  const std::vector<std::string> unit = {"simulate", "-D", "4", "-N", "8", "--format", "csv"};
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    const auto own = invoke(with(unit, {"--schedule", e.name}));
    if (own.code != 0) continue;  // a scheme whose constraints D=4, N=8 do not meet
    std::string upper = e.name;
    for (char& ch : upper)
      ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    EXPECT_EQ(invoke(with(unit, {"--schedule", upper})).out, own.out) << upper;
    for (const std::string& alias : e.aliases)
      EXPECT_EQ(invoke(with(unit, {"--schedule", alias})).out, own.out) << alias;
  }
  EXPECT_EQ(schedules::find_schedule("Schedule1F1B"), schedules::find_schedule("1f1b"));
  EXPECT_EQ(schedules::find_schedule("ScheduleInterleaved1F1B")->name, "interleaved");
  EXPECT_EQ(schedules::find_schedule("schedulezbvzerobubble")->name, "zb-v");
  EXPECT_EQ(schedules::find_schedule("Schedule2F2B"), nullptr);
}

TEST(TheirWords, NamesAndAliasesAreUniqueIgnoringCase) {
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    EXPECT_EQ(schedules::find_schedule(e.name), &e) << e.name;
    for (const std::string& a : e.aliases)
      EXPECT_EQ(schedules::find_schedule(a), &e) << a;
  }
}

TEST(TheirWords, AMisspeltOptionGetsTheNearestSpelling) {
  const auto r = invoke({"simulate", "--tensor-paralel", "2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "pipesim: error: command line: --tensor-paralel: unknown option of simulate; did you "
            "mean --tensor-parallel?\n");
  const auto far = invoke({"simulate", "--frobnicate", "2"});
  EXPECT_EQ(far.code, 2);
  EXPECT_NE(far.err.find("--frobnicate: unknown option of simulate (`pipesim simulate --help`"),
            std::string::npos)
      << far.err;
  EXPECT_EQ(
      closest_spelling("--micro-batchs", {"--stages", "--micro-batches", "--micro-batch-size"}),
      "--micro-batches");
  EXPECT_EQ(closest_spelling("--x", {"--stages"}), "");
}

}  // namespace
}  // namespace pipesim::cli
