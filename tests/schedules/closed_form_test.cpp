// GPipe and 1F1B against their closed forms (docs/architecture.md §3) over a grid of D, N and
// costs.

#include <gtest/gtest.h>

#include <algorithm>

#include "../support/run_helpers.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim {
namespace {

using schedules::ScheduleParams;
using sim::UnitCosts;

struct GridPoint {
  std::string schedule;
  int stages;
  int micro_batches;
  UnitCosts costs;
};

std::vector<GridPoint> grid() {
  std::vector<GridPoint> points;
  const int stages[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 64};
  const int micro[] = {1, 2, 3, 7, 8, 16, 33, 64, 128, 256};
  // Binary fractions keep every sum exact, so the closed forms must hold to the last bit.
  const UnitCosts costs[] = {{1, 1, 0, 0}, {1, 2, 0, 0}, {1, 3, 0, 0}, {0.5, 1.25, 0, 0}};
  for (const char* name : {"gpipe", "1f1b"}) {
    for (int d : stages) {
      for (int n : micro) {
        // The full cross product is large for D=64; sample every cost at small sizes and one
        // (rotating) cost at large ones.
        for (size_t c = 0; c < std::size(costs); ++c) {
          if (d * n > 2048 && c != static_cast<size_t>(d + n) % std::size(costs)) continue;
          points.push_back({name, d, n, costs[c]});
        }
      }
    }
  }
  return points;
}

void PrintTo(const GridPoint& p, std::ostream* os) {
  *os << p.schedule << " D=" << p.stages << " N=" << p.micro_batches << " t_F=" << p.costs.forward
      << " t_B=" << p.costs.backward;
}

class ClosedForm : public ::testing::TestWithParam<GridPoint> {};

TEST_P(ClosedForm, IterationTimeBubbleAndActivationsMatch) {
  const GridPoint& p = GetParam();
  ScheduleParams params;
  params.stages = p.stages;
  params.micro_batches = p.micro_batches;
  const testing::UnitRun r = testing::run_unit(p.schedule, params, p.costs);
  const double d = p.stages, n = p.micro_batches;
  const double slot = p.costs.forward + p.costs.backward;
  EXPECT_DOUBLE_EQ(r.metrics.iteration_time, (n + d - 1) * slot);
  // The ratio is 1 − Σbusy/(D·span): exact inputs, but a division and a subtraction apart from
  // the closed form, so equal to within rounding.
  EXPECT_NEAR(r.metrics.bubble_ratio, (d - 1) / (n + d - 1), 1e-12);
  ASSERT_EQ(static_cast<int>(r.metrics.workers.size()), p.stages);
  for (int s = 0; s < p.stages; ++s) {
    const int expected =
        p.schedule == "gpipe" ? p.micro_batches : std::min(p.micro_batches, p.stages - s);
    EXPECT_EQ(r.metrics.workers[static_cast<size_t>(s)].peak_activations, expected)
        << "stage " << s;
    EXPECT_DOUBLE_EQ(r.metrics.workers[static_cast<size_t>(s)].busy, n * slot);
  }
}

INSTANTIATE_TEST_SUITE_P(GpipeAnd1f1b, ClosedForm, ::testing::ValuesIn(grid()),
                         [](const ::testing::TestParamInfo<GridPoint>& param_info) {
                           const auto& p = param_info.param;
                           return (p.schedule == "1f1b" ? std::string("OneFOneB") : "GPipe") +
                                  "_D" + std::to_string(p.stages) + "_N" +
                                  std::to_string(p.micro_batches) + "_idx" +
                                  std::to_string(param_info.index);
                         });

TEST(OneFOneB, WarmUpDepthIsStagesMinusStageMinusOne) {
  ScheduleParams params;
  params.stages = 5;
  params.micro_batches = 10;
  const sim::Schedule s = schedules::make_schedule("1f1b", params);
  for (int stage = 0; stage < 5; ++stage) {
    const auto& ops = s.program[static_cast<size_t>(stage)];
    const auto first_backward = std::find_if(
        ops.begin(), ops.end(), [](const sim::Op& op) { return op.kind == sim::OpKind::Backward; });
    // Warm-up forwards plus the first steady-state forward precede the first backward.
    EXPECT_EQ(first_backward - ops.begin(), 5 - stage) << "stage " << stage;
  }
}

TEST(Registry, UnknownScheduleNamesTheKnownOnes) {
  try {
    schedules::make_schedule("nope", ScheduleParams{});
    FAIL();
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown schedule 'nope'"), std::string::npos) << what;
    EXPECT_NE(what.find("1f1b"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace pipesim
