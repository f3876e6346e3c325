// The CLI in-process: the JSON contract parsed back, and one clear line + exit code 2 for bad
// input.

#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "../support/cli_invoke.hpp"
#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::cli {
namespace {

using pipesim::testing::CliResult;
// One in-process CLI runner for every test (tests/support/cli_invoke.hpp).
const auto invoke = &pipesim::testing::invoke_cli;

// The completion script is generated; this checks it against the help text instead: every
// subcommand and every flag that `--help-all` lists appears in the script.
TEST(Cli, BashCompletionMentionsEverySubcommandAndFlag) {
  const CliResult script = invoke({"--completion-bash"});
  ASSERT_EQ(script.code, 0) << script.err;
  EXPECT_NE(script.out.find("complete -o default -F _pipesim pipesim"), std::string::npos);
  const CliResult help = invoke({"--help-all"});
  ASSERT_EQ(help.code, 0);
  std::set<std::string> flags;
  // A flag is `-x` or `--name` at the start of a word (after a space or a comma). Scanned by
  // hand: std::regex trips g++ 12's -Wmaybe-uninitialized inside libstdc++ at -O2.
  const auto is_alpha = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  const auto is_name = [&](char c) {
    return is_alpha(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-';
  };
  const std::string& text = help.out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool word_start =
        i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == ',';
    if (!word_start || text[i] != '-') continue;
    std::size_t name = i + 1;
    if (name < text.size() && text[name] == '-') ++name;
    if (name >= text.size() || !is_alpha(text[name])) continue;
    std::size_t end = name;
    while (end < text.size() && is_name(text[end]))
      ++end;
    flags.insert(text.substr(i, end - i));
    i = end - 1;
  }
  EXPECT_GT(flags.size(), 60u);
  for (const std::string& f : flags)
    EXPECT_NE(script.out.find(" " + f), std::string::npos) << f;
  for (const char* sub : {"simulate", "sweep", "compare", "search", "plot", "list", "calibrate"})
    EXPECT_NE(script.out.find(std::string(":") + sub + "\")"), std::string::npos) << sub;
  // Values: the names of a choice option.
  EXPECT_NE(script.out.find("\"simulate:--recompute\") words=\"none selective full\""),
            std::string::npos);
}

// Out of memory is a result, reported in full, and its own exit code for scripts.
TEST(Cli, OutOfMemoryRunExitsFourWithTheFullReport) {
  const CliResult r =
      invoke({"simulate", "--schedule", "gpipe", "-D", "2", "-N", "64", "-B", "8", "--model",
              "gpt2-1.3b", "--hardware", "p100-daint", "--format", "json"});
  EXPECT_EQ(r.code, kExitOutOfMemory) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j.at("fits_memory").get<bool>());
  EXPECT_GT(j.at("peak_memory").get<std::int64_t>(), j.at("memory_capacity").get<std::int64_t>());
  const CliResult fits = invoke({"simulate", "--schedule", "1f1b", "-D", "4", "-N", "8", "--model",
                                 "gpt2-32l", "--hardware", "p100-daint"});
  EXPECT_EQ(fits.code, 0) << fits.err;
}

const auto lines = &pipesim::testing::count_lines;

TEST(Cli, DoneWhenExampleReports33And3Over11) {
  const CliResult r = invoke({"simulate", "--schedule", "1f1b", "--stages", "4", "--micro-batches",
                              "8", "--t-forward", "1", "--t-backward", "2", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schedule"), "1f1b");
  EXPECT_EQ(j.at("stages"), 4);
  EXPECT_EQ(j.at("micro_batches"), 8);
  EXPECT_EQ(j.at("workers"), 4);
  EXPECT_DOUBLE_EQ(j.at("iteration_time").get<double>(), 33.0);
  EXPECT_DOUBLE_EQ(j.at("bubble_ratio").get<double>(), 3.0 / 11.0);
  ASSERT_EQ(j.at("per_worker").size(), 4u);
  for (int w = 0; w < 4; ++w) {
    const auto& pw = j.at("per_worker")[static_cast<size_t>(w)];
    EXPECT_EQ(pw.at("worker"), w);
    EXPECT_DOUBLE_EQ(pw.at("busy").get<double>(), 24.0);
    EXPECT_EQ(pw.at("peak_activations"), 4 - w);
    EXPECT_FALSE(pw.contains("ops"));
  }
}

TEST(Cli, OpsListEachWorkersOpsInExecutionOrder) {
  const CliResult r = invoke(
      {"simulate", "--schedule", "gpipe", "-D", "3", "-N", "4", "--format", "json", "--ops"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& pw : j.at("per_worker")) {
    const auto& ops = pw.at("ops");
    ASSERT_EQ(ops.size(), 8u);
    for (size_t i = 0; i < ops.size(); ++i) {
      EXPECT_EQ(ops[i].at("kind"), i < 4 ? "F" : "B");
      EXPECT_EQ(ops[i].at("micro_batch"), static_cast<int>(i % 4));
      EXPECT_EQ(ops[i].at("stage"), pw.at("worker"));
      if (i > 0) {
        EXPECT_LE(ops[i - 1].at("end").get<double>(), ops[i].at("start").get<double>());
      }
    }
  }
}

TEST(Cli, OutputIsByteIdenticalAcrossRuns) {
  const std::vector<std::string> args{"simulate", "--schedule", "1f1b", "-D",
                                      "5",        "-N",         "7",    "--t-comm",
                                      "0.25",     "--format",   "json", "--ops"};
  EXPECT_EQ(invoke(args).out, invoke(args).out);
}

TEST(Cli, CsvHasHeaderAndOneRow) {
  const CliResult r = invoke({"simulate", "--schedule", "1f1b", "--format", "csv"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(lines(r.out), 2u);
  EXPECT_EQ(r.out.rfind("schedule,stages,micro_batches,", 0), 0u);
}

TEST(Cli, TextShowsTimelineRows) {
  const CliResult r = invoke({"simulate", "--schedule", "1f1b", "-D", "4", "-N", "8"});
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("P0   F0 F1 F2 F3 .."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("P3   .. .. .. F0 B0 -- F1"), std::string::npos) << r.out;
}

struct BadInput {
  std::vector<std::string> args;
  std::string expect;  // part of the one error line
};

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, OneClearLineAndExitCode2) {
  const CliResult r = invoke(GetParam().args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(GetParam().expect), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    ::testing::Values(BadInput{{"simulate", "--stages", "0"}, "--stages"},
                      BadInput{{"simulate", "--micro-batches", "0"}, "--micro-batches"},
                      BadInput{{"simulate", "--stages", "abc"}, "--stages"},
                      BadInput{{"simulate", "--stages", "-3"}, "--stages"},
                      BadInput{{"simulate", "--t-forward", "-1"}, "--t-forward"},
                      BadInput{{"simulate", "--t-backward", "x"}, "--t-backward"},
                      BadInput{{"simulate", "--t-weight", "3", "--t-backward", "2"}, "--t-weight"},
                      BadInput{{"simulate", "--schedule", "zigzag"}, "unknown schedule 'zigzag'"},
                      BadInput{{"simulate", "--format", "xml"}, "--format"},
                      BadInput{{"simulate", "--no-such-flag"}, "--no-such-flag"},
                      BadInput{{"simulate", "--overlap-p2p="}, "--overlap-p2p: '=' with no value"},
                      BadInput{{"simulate", "--stages="}, "--stages: '=' with no value"},
                      BadInput{{"list", "cats"}, "cats"}, BadInput{{}, "subcommand"}));

TEST(Cli, HelpExitsZero) {
  const CliResult r = invoke({"simulate", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--micro-batches"), std::string::npos);
}

TEST(Cli, ListSchedulesNamesEachWithDescription) {
  const CliResult r = invoke({"list", "schedules"});
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("gpipe"), std::string::npos);
  EXPECT_NE(r.out.find("1f1b"), std::string::npos);
}

TEST(Cli, ListHardwareSaysWhereEachProfilesCurvesComeFrom) {
  const CliResult r = invoke({"list", "hardware"});
  ASSERT_EQ(r.code, 0);
  // One description line and one curves line per profile.
  size_t profiles = 0, curves = 0;
  std::istringstream text(r.out);
  for (std::string line; std::getline(text, line);)
    (line.find(" curves ") != std::string::npos ? curves : profiles) += 1;
  EXPECT_EQ(profiles, curves);
  EXPECT_GT(profiles, 0u);
  EXPECT_EQ(r.out.find("unstated"), std::string::npos) << r.out;
  const size_t h800 = r.out.find("h800-dgx");
  ASSERT_NE(h800, std::string::npos);
  EXPECT_NE(r.out.find("derived: gemm_efficiency.bf16", h800), std::string::npos) << r.out;
}

// Regressions, each with the exact input of a bug report: exit 2 and one line.
struct StrictCase {
  std::vector<std::string> args;
  std::string expect;  // part of the one error line
};

TEST(CliStrict, SilentAcceptsAreErrors) {
  const std::vector<StrictCase> cases = {
      {{"simulate", "--stages", ""}, "command line: --stages: empty value"},
      {{"simulate", "--t-forward", ""}, "command line: --t-forward: empty value"},
      {{"simulate", "--t-forward", "1e308"}, "--t-forward: must be in (0, 1000000000]"},
      {{"simulate", "--schedule", "1f1b", "--pipelines", "4"},
       "--pipelines: does not apply to schedule 1f1b (only to chimera"},
      {{"simulate", "--schedule", "gpipe", "--chunks", "2"},
       "--chunks: does not apply to schedule gpipe"},
      {{"simulate", "--schedule", "1f1b", "--strategy", "doubling"},
       "--strategy: does not apply to schedule 1f1b"},
      {{"simulate", "-B", "2"}, "--micro-batch-size: applies only in real-cost mode"},
      {{"simulate", "--model", "gpt2-1.3b", "--hardware", "p100-daint", "--t-forward", "2"},
       "--t-forward: applies only in unit-cost mode"},
      {{"simulate", "--stages", "0x10"}, "--stages: expected an integer"},
      {{"sweep", "--jobs", "0x10"}, "--jobs: expected an integer"},
      {{"sweep", "--jobs", "4096"}, "--jobs: must be in [0, 256]"},
      {{"search", "--model", "gpt2-1.3b", "--hardware", "p100-daint", "-P", "8", "--mini-batch",
        "8", "--recompute", "bogus"},
       "--recompute: must be one of"},
      {{"search", "--model", "gpt2-1.3b", "--hardware", "p100-daint", "-P", "8", "--mini-batch",
        "8", "--schedules", ""},
       "--schedule: empty value"},
      {{"sweep", "--file", "/tmp"}, "/tmp: file: is a directory"},
      {{"frobnicate"}, "command line: 'frobnicate': unknown command (known: simulate"},
  };
  for (const auto& c : cases) {
    const CliResult r = invoke(c.args);
    EXPECT_EQ(r.code, 2) << c.args[0] << " " << c.expect << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
  }
}

// Every option of one mode, given in the other, is refused by name: none is silently ignored
// (--tensor-parallel, --precision and the other real-cost options once were, in unit-cost
// mode).
TEST(CliStrict, EveryOptionOfOneModeIsRefusedInTheOther) {
  int real = 0, unit = 0;
  for (const scenario::Option& o : scenario::options()) {
    if (o.scope != scenario::Scope::RealCost && o.scope != scenario::Scope::UnitCost) continue;
    const std::string& d = o.spec.default_text;
    const std::string value = !d.empty() ? d : o.spec.choices.empty() ? "1" : o.spec.choices[0];
    std::vector<std::string> args{"simulate", flag_of(o.name()), value};
    if (o.scope == scenario::Scope::UnitCost) {
      args.insert(args.end(), {"--model", "gpt2-1.3b", "--hardware", "p100-daint"});
    }
    ++(o.scope == scenario::Scope::RealCost ? real : unit);
    const CliResult r = invoke(args);
    const std::string expect = flag_of(o.name()) + (o.scope == scenario::Scope::RealCost
                                                        ? ": applies only in real-cost mode"
                                                        : ": applies only in unit-cost mode");
    EXPECT_EQ(r.code, 2) << o.name() << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
  }
  EXPECT_GT(real, 0);
  EXPECT_GT(unit, 0);
}

TEST(CliStrict, MinusZeroIsPrintedAsZero) {
  const CliResult r = invoke({"simulate", "--t-comm", "-0", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("-0"), std::string::npos) << r.out;
}

TEST(CliStrict, SweepRowForAScheduleThatDoesNotTakeAGivenOptionIsInvalid) {
  const CliResult r =
      invoke({"sweep", "--schedule", "chimera,1f1b", "--pipelines", "2", "--jobs", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("invalid: command line: --pipelines: does not apply to schedule 1f1b"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",ok"), std::string::npos) << r.out;  // the chimera row ran
}

}  // namespace
}  // namespace pipesim::cli
