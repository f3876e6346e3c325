// The words other tools' users type: Megatron-LM's argument names, PyTorch's schedule class
// names, any case, bare switches, and a suggestion for a misspelt option.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/cli_invoke.hpp"
#include "cli/suggest.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/derived.hpp"
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

TEST(TheirWords, GlobalBatchSizeSetsMicroBatchesToGOverBW) {
  // Real-cost mode: N = G / (B·W) = 48 / (2·3) = 8.
  const std::vector<std::string> real = with(kRealRun, {"-D", "4", "-B", "2", "-W", "3"});
  const auto mine = invoke(with(real, {"-N", "8"}));
  const auto theirs = invoke(with(real, {"--global-batch-size", "48"}));
  ASSERT_EQ(mine.code, 0) << mine.err;
  EXPECT_EQ(theirs.code, 0) << theirs.err;
  EXPECT_EQ(theirs.out, mine.out);
  EXPECT_NE(invoke(with(real, {"-N", "4"})).out, mine.out);  // N matters
  // The same N given twice agrees; another N is refused with both values.
  EXPECT_EQ(invoke(with(real, {"--global-batch-size", "48", "-N", "8"})).out, mine.out);
  const auto conflict = invoke(with(real, {"--global-batch-size", "48", "-N", "4"}));
  EXPECT_EQ(conflict.code, 2);
  EXPECT_NE(conflict.err.find("--global-batch-size: gives micro_batches = 8"), std::string::npos)
      << conflict.err;
  // G not a multiple of B·W: the rule and the numbers.
  const auto odd = invoke(with(real, {"--global-batch-size", "50"}));
  EXPECT_EQ(odd.code, 2);
  EXPECT_NE(odd.err.find("must be a multiple of B·W = 2·3 = 6"), std::string::npos) << odd.err;
  EXPECT_EQ(pipesim::testing::count_lines(odd.err), 1u);
  // Unit-cost mode has no samples: N = G.
  const std::vector<std::string> unit = {"simulate", "-D", "4", "--format", "csv"};
  EXPECT_EQ(invoke(with(unit, {"--global-batch-size", "12"})).out,
            invoke(with(unit, {"-N", "12"})).out);
}

TEST(TheirWords, LayersPerVirtualStageSetsChunksToLOverDK) {
  const int layers = models::load_model("gpt2-1.3b").layers;
  const int d = 4, k = layers / (d * 2);  // v = L/(D·k) = 2
  ASSERT_EQ(layers % (d * 2), 0);
  const std::vector<std::string> real =
      with(kRealRun, {"--schedule", "interleaved", "-D", std::to_string(d), "-N", "8"});
  const auto mine = invoke(with(real, {"--chunks", "2"}));
  const auto theirs =
      invoke(with(real, {"--num-layers-per-virtual-pipeline-stage", std::to_string(k)}));
  ASSERT_EQ(mine.code, 0) << mine.err;
  EXPECT_EQ(theirs.code, 0) << theirs.err;
  EXPECT_EQ(theirs.out, mine.out);
  EXPECT_NE(invoke(with(real, {"--chunks", "4"})).out, mine.out);  // chunks matter
  // Megatron's own name for v agrees or conflicts the same way as --chunks.
  EXPECT_EQ(invoke(with(real, {"--num-layers-per-virtual-pipeline-stage", std::to_string(k),
                               "--virtual-pipeline-model-parallel-size", "2"}))
                .out,
            mine.out);
  const auto conflict = invoke(
      with(real, {"--num-layers-per-virtual-pipeline-stage", std::to_string(k), "--chunks", "4"}));
  EXPECT_EQ(conflict.code, 2);
  EXPECT_NE(conflict.err.find("chunks is also given as 4"), std::string::npos) << conflict.err;
  // D·k must divide L.
  const int bad = layers + 1;  // D·bad > L cannot divide it
  const auto odd =
      invoke(with(real, {"--num-layers-per-virtual-pipeline-stage", std::to_string(bad)}));
  EXPECT_EQ(odd.code, 2);
  EXPECT_NE(odd.err.find("must divide the model's " + std::to_string(layers) + " layers"),
            std::string::npos)
      << odd.err;
  // Only schedules that take chunks; only with a model.
  const auto flat = invoke(
      with(kRealRun, {"-D", "4", "-N", "8", "--num-layers-per-virtual-pipeline-stage", "8"}));
  EXPECT_EQ(flat.code, 2);
  EXPECT_NE(flat.err.find("does not apply to schedule 1f1b (only to "), std::string::npos)
      << flat.err;
  const auto unit = invoke({"simulate", "--schedule", "interleaved", "-D", "4", "-N", "8",
                            "--num-layers-per-virtual-pipeline-stage", "8"});
  EXPECT_EQ(unit.code, 2);
  EXPECT_NE(unit.err.find("needs a model"), std::string::npos) << unit.err;
}

TEST(TheirWords, ResolveDerivedIsPureAndLeavesOtherOptionsAlone) {
  scenario::Scenario s = scenario::make_scenario({{"stages", "4"}});
  const scenario::Scenario before = s;
  const scenario::Scenario r =
      scenario::resolve_derived(s, {"stages"}, {{"global_batch_size", "20"}});
  EXPECT_EQ(r.params.micro_batches, 20);
  EXPECT_EQ(s.params.micro_batches, before.params.micro_batches);  // the input is unchanged
  EXPECT_EQ(scenario::option_texts(scenario::resolve_derived(s, {}, {})),
            scenario::option_texts(s));
  EXPECT_THROW(scenario::resolve_derived(s, {}, {{"global_batch_size", "0"}}), core::ConfigError);
  EXPECT_THROW(scenario::resolve_derived(s, {}, {{"no_such", "1"}}), core::ConfigError);
  for (const core::OptionSpec& d : scenario::derived_options())
    EXPECT_EQ(scenario::find_option(d.name), nullptr) << d.name << " is also a table option";
}

}  // namespace
}  // namespace pipesim::cli
