// One run, one story: text, JSON and CSV say the same about every field, every output names
// what ran, a command's files are written all or none, and input that would be ignored or
// mis-written is refused with one line.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/cli_invoke.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::cli {
namespace {

using pipesim::testing::count_lines;
using pipesim::testing::ScratchDir;
const auto invoke = &pipesim::testing::invoke_cli;

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// The CSV row of `csv` as column → text.
std::map<std::string, std::string> csv_row(const std::string& csv) {
  const report::CsvTable t = report::parse_csv("csv", csv);
  EXPECT_EQ(t.rows.size(), 1u);
  std::map<std::string, std::string> row;
  for (size_t i = 0; i < t.header.size() && !t.rows.empty(); ++i)
    row[t.header[i]] = t.rows[0][i];
  return row;
}

// Where a CSV cell and the JSON value of the same name disagree: numbers to 1e-9 relative,
// booleans as true/on and false/off, text exactly. A cell left empty (the option does not
// apply, or a value the run has not) agrees with a JSON null or a missing key.
std::vector<std::string> disagreements(const std::string& json_text, const std::string& csv) {
  const nlohmann::json j = nlohmann::json::parse(json_text);
  std::vector<std::string> out;
  for (const auto& [column, cell] : csv_row(csv)) {
    if (!j.contains(column) || j.at(column).is_null()) continue;
    // The CSV's input columns show an option left unset as empty (precision and attention:
    // the model file's; t_weight: t_B/2, or no W op; data_parallel_sharding:
    // distributed_optimizer's), so that captions and sweeps tell what was chosen from what was
    // defaulted; JSON and text show the value resolved.
    const bool unset = cell.empty() && (column == "precision" || column == "attention" ||
                                        column == "t_weight" || column == "data_parallel_sharding");
    if (unset) continue;
    const nlohmann::json& v = j.at(column);
    bool same = false;
    if (v.is_boolean()) {
      same = v.get<bool>() ? (cell == "true" || cell == "on") : (cell == "false" || cell == "off");
    } else if (v.is_number()) {
      const double x = v.get<double>();
      const double y = cell.empty() ? std::nan("") : std::stod(cell);
      same = std::abs(x - y) <= 1e-9 * std::max(1.0, std::abs(x));
    } else if (v.is_string()) {
      same = v.get<std::string>() == cell;
    } else {
      continue;  // arrays and objects have no cell
    }
    if (!same) out.push_back(column + ": json " + v.dump() + ", csv '" + cell + "'");
  }
  return out;
}

// The number after `key` at the start of a line of the text report ("iteration_time   1.2 s").
double text_value(const std::string& text, const std::string& key) {
  const size_t at = text.find("\n" + key + " ");
  if (at == std::string::npos) return std::nan("");
  return std::stod(text.substr(at + key.size() + 2));
}

TEST(OutputsAgree, TextJsonAndCsvAgreeOnEveryFieldForEverySchedule) {
  const std::vector<std::vector<std::string>> modes = {
      {"simulate", "-D", "4", "-N", "8"},
      {"simulate", "-D", "4", "-N", "8", "--model", "gpt2-1.3b", "--hardware", "a100-dgx"},
  };
  size_t compared = 0;
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    for (const auto& mode : modes) {
      const auto base = with(mode, {"--schedule", e.name});
      const auto json = invoke(with(base, {"--format", "json"}));
      if (json.code != 0 && json.code != 4) continue;  // D=4, N=8 outside the scheme's rules
      const auto csv = invoke(with(base, {"--format", "csv"}));
      ASSERT_EQ(csv.code, json.code) << e.name << ": " << csv.err;
      const auto bad = disagreements(json.out, csv.out);
      EXPECT_TRUE(bad.empty()) << e.name << (mode.size() > 5 ? " real-cost" : " unit-cost") << ": "
                               << ::testing::PrintToString(bad);
      // The text report prints the same figures (to its 6 significant digits).
      const auto text = invoke(base);
      const auto j = nlohmann::json::parse(json.out);
      for (const char* key : {"iteration_time", "bubble_ratio", "peak_activations"}) {
        const double shown = text_value(text.out, key);
        const double x = j.at(key).get<double>();
        EXPECT_NEAR(shown, x, 1e-5 * std::max(1.0, std::abs(x))) << e.name << ": " << key;
      }
      if (j.contains("mfu")) {
        EXPECT_NEAR(text_value(text.out, "mfu"), 100 * j.at("mfu").get<double>(), 0.01) << e.name;
      }
      // Real cost: the JSON carries every option the CSV row has a value for (unit-cost
      // slots aside), and the iteration time's range.
      if (j.at("mode") == "real-cost") {
        const auto row = csv_row(csv.out);
        for (const scenario::Option& o : scenario::options()) {
          if (o.scope == scenario::Scope::UnitCost || row.at(o.name()).empty()) continue;
          EXPECT_TRUE(j.contains(o.name())) << e.name << ": " << o.name();
        }
        EXPECT_TRUE(j.contains("iteration_time_range")) << e.name;
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, schedules::all_schedules().size());
}

TEST(OutputsAgree, ChimeraDoublingSaysItRecomputedFully) {
  // Forward doubling recomputes every forward (R ops): under recompute none it runs full
  // recomputation, and every output says so.
  const std::vector<std::string> run = {"simulate", "--schedule",  "chimera",   "-D",
                                        "4",        "-N",          "8",         "--strategy",
                                        "doubling", "--model",     "gpt2-1.3b", "--hardware",
                                        "a100-dgx", "--recompute", "none"};
  const auto text = invoke(run);
  ASSERT_TRUE(text.code == 0 || text.code == 4) << text.err;
  EXPECT_NE(text.out.find("recompute=full"), std::string::npos) << text.out;
  const auto json = invoke(with(run, {"--format", "json"}));
  EXPECT_EQ(nlohmann::json::parse(json.out).at("recompute"), "full");
  EXPECT_EQ(csv_row(invoke(with(run, {"--format", "csv"})).out).at("recompute"), "full");
  // Direct has no R ops: none stays none.
  const auto direct = invoke({"simulate", "--schedule", "chimera", "-D", "4", "-N", "8", "--model",
                              "gpt2-1.3b", "--hardware", "a100-dgx", "--format", "csv"});
  EXPECT_EQ(csv_row(direct.out).at("recompute"), "none");
}

TEST(OutputsAgree, GradBucketBytesIsAWholeNumber) {
  const std::vector<std::string> run = {
      "simulate", "-D",        "4",          "-N",       "8",        "-W",   "2",
      "--model",  "gpt2-1.3b", "--hardware", "a100-dgx", "--format", "json", "--grad-bucket-bytes"};
  const auto whole = invoke(with(run, {"26214400"}));
  ASSERT_EQ(whole.code, 0) << whole.err;
  const auto v = nlohmann::json::parse(whole.out).at("grad_bucket_bytes");
  EXPECT_TRUE(v.is_number_integer()) << v.dump();
  EXPECT_EQ(v.get<std::int64_t>(), 26214400);
  const auto half = invoke(with(run, {"1.5"}));
  EXPECT_EQ(half.code, 2);
  EXPECT_NE(half.err.find("--grad-bucket-bytes"), std::string::npos) << half.err;
}

TEST(OutputsAgree, OptionsThatWouldBeIgnoredAreRefused) {
  const auto ops = invoke({"simulate", "--ops"});
  EXPECT_EQ(ops.code, 2);
  EXPECT_NE(ops.err.find("--ops: prints with --format json only"), std::string::npos) << ops.err;
  EXPECT_EQ(count_lines(ops.err), 1u);
  // A schedule without a W op has nothing for t_weight to price.
  const auto weight = invoke({"simulate", "--schedule", "1f1b", "--t-weight", "0.5"});
  EXPECT_EQ(weight.code, 2);
  EXPECT_NE(weight.err.find("--t-weight"), std::string::npos) << weight.err;
  // One iteration has no steady state to drain.
  const auto once =
      invoke({"simulate", "--schedule", "pipedream", "--iterations", "1", "--epoch-drain", "on"});
  EXPECT_EQ(once.code, 2);
  EXPECT_NE(once.err.find("--iterations"), std::string::npos) << once.err;
}

TEST(OutputsAgree, AFailingOutputLeavesNoneOfTheOthers) {
  ScratchDir dir;
  const std::string csv = dir.file("s.csv");
  const std::string trace = dir.file("no-such-dir/t.json");
  const auto r = invoke({"simulate", "--export-csv", csv, "--trace", trace});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(csv)) << "the CSV was written before the trace failed";
  // And a bad extension is refused before anything runs or is written.
  const auto svg = invoke({"simulate", "--export-csv", csv, "--timeline", dir.file("t.png")});
  EXPECT_EQ(svg.code, 2);
  EXPECT_FALSE(std::filesystem::exists(csv));
  // Both good: both written.
  const auto ok = invoke({"simulate", "--export-csv", csv, "--trace", dir.file("t.json")});
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(std::filesystem::exists(csv));
  EXPECT_TRUE(std::filesystem::exists(dir.file("t.json")));
}

TEST(OutputsAgree, ARunAboveTheTaskBudgetIsRefusedBeforeItIsBuilt) {
  // 64 stages × 1e6 micro-batches is ~2.6e8 tasks, ~50 GB: refused at once with the estimate.
  const auto r = invoke({"simulate", "-D", "64", "-N", "1000000"});
  EXPECT_EQ(r.code, kExitOutOfBudget);
  EXPECT_EQ(count_lines(r.err), 1u);
  EXPECT_NE(r.err.find("above the task budget of 2e+07"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--max-tasks"), std::string::npos) << r.err;
  // The budget is the option's: a small run under a smaller budget is refused too.
  const auto small = invoke({"simulate", "-D", "4", "-N", "8", "--max-tasks", "10"});
  EXPECT_EQ(small.code, kExitOutOfBudget) << small.err;
  EXPECT_EQ(invoke({"simulate", "-D", "4", "-N", "8", "--max-tasks", "1000"}).code, 0);
  EXPECT_EQ(invoke({"simulate", "--max-tasks", "nan"}).code, 2);
  EXPECT_EQ(invoke({"simulate", "--max-tasks", ""}).code, 2);
}

}  // namespace
}  // namespace pipesim::cli

namespace pipesim::cli {
namespace {

TEST(OutputsAgree, WorkerTimesSumToTheTimeTheyCover) {
  // Synchronous: one iteration, iteration_time. Asynchronous (PipeDream, 2BW): every listed
  // iteration, total_time (README, per worker).
  struct Case {
    std::string schedule;
    bool asynchronous;
  };
  for (const Case& c :
       {Case{"1f1b", false}, Case{"pipedream", true}, Case{"pipedream-2bw", true}}) {
    // A synchronous schedule always drains: only the asynchronous ones take --epoch-drain.
    for (const std::string drain : {"off", "on"}) {
      if (!c.asynchronous && drain == "on") continue;
      std::vector<std::string> run = {
          "simulate",  "--schedule", c.schedule, "-D", "4", "-N",       "8",   "--model",
          "gpt2-1.3b", "--hardware", "a100-dgx", "-W", "2", "--format", "json"};
      if (c.asynchronous) run = with(run, {"--epoch-drain", drain});
      const auto r = invoke(run);
      ASSERT_TRUE(r.code == 0 || r.code == 4) << r.err;
      const auto j = nlohmann::json::parse(r.out);
      const double total = j.at("total_time").get<double>();
      if (!c.asynchronous) {
        EXPECT_DOUBLE_EQ(total, j.at("iteration_time").get<double>());
      }
      for (const auto& w : j.at("per_worker")) {
        const double sum = w.at("compute_time").get<double>() +
                           w.at("exposed_communication_time").get<double>() +
                           w.at("idle_time").get<double>();
        EXPECT_NEAR(sum, total, 1e-9 * total) << c.schedule << " drain " << drain;
      }
    }
  }
}

}  // namespace
}  // namespace pipesim::cli

namespace pipesim::cli {
namespace {

TEST(OutputsAgree, FiguresGnuplotCannotWriteAreRefusedBeforeAnyOutput) {
  ScratchDir dir;
  const std::string csv = dir.file("c.csv");
  const auto bad = invoke({"compare", "--schedule", "1f1b,gpipe", "-D", "4", "-N", "8", "--csv",
                           csv, "--plot", dir.file("x.bad")});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--plot: extension must be .svg, .png or .pdf, got '.bad'"),
            std::string::npos)
      << bad.err;
  EXPECT_FALSE(std::filesystem::exists(csv));
  EXPECT_EQ(bad.out, "");
  // A name that is only an extension is a hidden file, not a figure.
  const std::string table = dir.write("s.csv", invoke({"sweep", "-D", "2:4", "-N", "8"}).out);
  const auto stemless =
      invoke({"plot", table, "--x", "stages", "--y", "iteration_time", "-o", dir.file(".pdf")});
  EXPECT_EQ(stemless.code, 2);
  EXPECT_NE(stemless.err.find("has no name before the extension"), std::string::npos)
      << stemless.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file(".gp")));
}

TEST(OutputsAgree, APlotOfNonFiniteValuesIsRefused) {
  ScratchDir dir;
  for (const std::string cell : {"nan", "NaN", "inf", "-inf"}) {
    const std::string table = dir.write("n.csv", "x,y\n1," + cell + "\n2,3\n");
    const auto r = invoke({"plot", table, "--x", "x", "--y", "y", "-o", dir.file("n.svg")});
    EXPECT_EQ(r.code, 2) << cell;
    EXPECT_NE(r.err.find(": y: row 1 (line 2) is '" + cell + "'"), std::string::npos) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u);
    EXPECT_FALSE(std::filesystem::exists(dir.file("n.svg")));
  }
}

}  // namespace
}  // namespace pipesim::cli
