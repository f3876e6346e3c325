// schedule files are checked against their declared sizes before any table is sized,
// a BOM is accepted like everywhere else, and estimate_tasks bounds a run before generating it.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "pipesim/core/budget.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/schedules/schedule_file.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::schedules {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ScheduleLimits, DeclaredSizesBeyondTheListedOpsAreRefusedBeforeAllocation) {
  // this allocated an 86 GB index (bad_alloc in 0.02 s).
  const std::string text = "workers 1\nmicro-batches 1048576\nstages 4096\nworker 0: F0@0\n";
  EXPECT_EQ(error_of([&] { parse_schedule_text(text, "big.txt"); }),
            "big.txt: schedule: declares 1048576 micro-batches x 4096 stages, which needs at "
            "least 8589934592 compute ops (a forward and a backward each), but lists 1");
  // a single cell asked for a 17 GB placement table.
  EXPECT_EQ(error_of([] { parse_pytorch_csv("4095F1048574", "one.csv"); }),
            "one.csv: rows: actions reach stage 4095 and micro-batch 1048574, which needs at "
            "least 8589926400 compute cells (a forward and a backward each), but the file has 1");
}

TEST(ScheduleLimits, TaskBudgetAppliesToFiles) {
  const std::string text =
      "workers 2\nmicro-batches 2\nworker 0: F0 F1 B0 B1\nworker 1: F0 B0 F1 B1\n";
  EXPECT_NO_THROW(parse_schedule_text(text, "ok.txt"));
  EXPECT_THROW(parse_schedule_text(text, "ok.txt", core::Budget{8}), core::BudgetError);
  EXPECT_THROW(parse_pytorch_csv("0F0,0B0\n1F0,1B0\n", "ok.csv", core::Budget{3}),
               core::BudgetError);
}

TEST(ScheduleLimits, ByteOrderMarkIsAcceptedInBothFormats) {
  // a BOM was rejected here but accepted in YAML; every reader now accepts it.
  const std::string text = "workers 2\nmicro-batches 1\nworker 0: F0 B0\nworker 1: F0 B0\n";
  const sim::Schedule a = parse_schedule_text("\xEF\xBB\xBF" + text, "bom.txt");
  const sim::Schedule b = parse_schedule_text(text, "plain.txt");
  EXPECT_EQ(a.program, b.program);
  const sim::Schedule c = parse_pytorch_csv(
      "\xEF\xBB\xBF"
      "0F0,0B0\n1F0,1B0\n",
      "bom.csv");
  EXPECT_EQ(c.workers, 2);
  const auto dir = std::filesystem::temp_directory_path() / "pipesim-bom-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "s.csv") << "\xEF\xBB\xBF"
                                  "0F0,0B0\n1F0,1B0\n";
  EXPECT_EQ(load_schedule_file(dir / "s.csv").program, c.program);
  EXPECT_NE(error_of([&] { load_schedule_file(dir); }).find("is a directory"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ScheduleLimits, EstimateBoundsEveryRegisteredSchemeFromAbove) {
  for (const ScheduleEntry& e : all_schedules()) {
    for (const auto& [d, n] : {std::pair{4, 8}, std::pair{8, 16}, std::pair{4, 4}}) {
      ScheduleParams p;
      p.stages = d;
      p.micro_batches = n;
      sim::Schedule s;
      try {
        s = make_schedule(e.name, p);
      } catch (const core::ConfigError&) {
        continue;  // this scheme does not take (D, N)
      }
      const double real = static_cast<double>(sim::build_task_graph(s).num_tasks());
      const double estimate = estimate_tasks(e.name, p);
      EXPECT_GE(estimate, real) << e.name << " D=" << d << " N=" << n;
      EXPECT_LE(estimate, 3.0 * real) << e.name << " D=" << d << " N=" << n;
    }
  }
}

TEST(ScheduleLimits, ARunOfAQuarterBillionTasksIsOverTheDefaultBudget) {
  // `simulate -D 64 -N 1000000` ran 23 s and died with bad_alloc.
  ScheduleParams p;
  p.stages = 64;
  p.micro_batches = 1000000;
  EXPECT_THROW(core::check_task_budget("command line", "run", estimate_tasks("1f1b", p), {}),
               core::BudgetError);
  p.micro_batches = 64;
  EXPECT_NO_THROW(core::check_task_budget("command line", "run", estimate_tasks("1f1b", p), {}));
}

}  // namespace
}  // namespace pipesim::schedules
