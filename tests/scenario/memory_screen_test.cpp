// The memory screen search's table uses to call a run out of memory without costing it: its
// bound never exceeds the simulated peak (every registered scheme, a grid of small dense and
// mixture-of-experts runs), and its op-order profile matches the schedules' closed forms.

#include "pipesim/scenario/memory_screen.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/spec_cache.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {
namespace {

using Values = std::vector<std::pair<std::string, std::string>>;

// The most sets worker w has live at once: what the profile recorded.
int live_sets(const ActivationProfile& p, size_t w) {
  int n = 0;
  for (const auto& [stage, sets] : p.live[w])
    n += sets;
  return n;
}

TEST(MemoryScreen, ProfilesMatchTheClosedFormsOfGpipeAnd1F1B) {
  for (const int d : {2, 4, 8}) {
    for (const int n : {1, 3, 8, 16}) {
      const ActivationProfile gpipe =
          activation_profile(schedules::make_schedule("gpipe", {d, n, {}}));
      const ActivationProfile one =
          activation_profile(schedules::make_schedule("1f1b", {d, n, {}}));
      for (size_t w = 0; w < static_cast<size_t>(d); ++w) {
        // GPipe keeps all N; 1F1B min(N, D − s) on stage s (schedules/README.md).
        EXPECT_EQ(live_sets(gpipe, w), n) << "D = " << d << " N = " << n << " w = " << w;
        EXPECT_EQ(live_sets(one, w), std::min(n, d - static_cast<int>(w)))
            << "D = " << d << " N = " << n << " w = " << w;
        ASSERT_EQ(one.held[w].size(), 1u);
        EXPECT_EQ(one.held[w][0], static_cast<int>(w));
      }
      EXPECT_TRUE(gpipe.shape.program.empty());  // the profile keeps no op list
    }
  }
}

// Every registered scheme, each of its search variants, at a few (D, N, B, recomputation)
// points of a dense model and a mixture-of-experts one: the bound is at most the peak
// simulate() reports, and above the static part's zero.
TEST(MemoryScreen, TheBoundNeverExceedsTheSimulatedPeak) {
  const std::vector<Values> setups = {{{"model", "gpt2-1.3b"}, {"hardware", "p100-daint"}},
                                      {{"model", "mixtral-8x7b"},
                                       {"hardware", "h100-dgx"},
                                       {"tensor_parallel", "2"},
                                       {"expert_parallel", "2"},
                                       {"data_parallel", "2"}}};
  SpecCache specs;
  int checked = 0;
  for (const schedules::ScheduleEntry& entry : schedules::all_schedules()) {
    for (const Values& setup : setups) {
      for (const int d : {2, 4}) {
        for (const int n : {4, 8}) {
          std::vector<schedules::SearchVariant> variants;
          if (entry.variants != nullptr) variants = entry.variants({d, n, 24});
          if (variants.empty()) variants.emplace_back();
          for (const schedules::SearchVariant& variant : variants) {
            if (!variant.pruned.empty()) continue;
            for (const char* recompute : {"none", "selective", "full"}) {
              Values values = setup;
              values.insert(values.end(), {{"schedule", entry.name},
                                           {"stages", fmt::format("{}", d)},
                                           {"micro_batches", fmt::format("{}", n)},
                                           {"micro_batch_size", "2"},
                                           {"recompute", recompute}});
              for (const auto& [name, value] : variant.options.items())
                values.emplace_back(name, schedules::scheme_option(name)->format(value));
              Scenario s = make_scenario(values);
              specs.attach(s);
              if (!schedules::check_params(s.schedule, s.params).ok()) continue;
              Result r;
              try {
                r = simulate(s);
              } catch (const core::ConfigError&) {
                continue;  // a run the cost model refuses has no peak to bound
              }
              const ActivationProfile p = activation_profile(r.schedule);
              const double bound = peak_lower_bound(p, stage_memory_lower_bound(s, r.schedule),
                                                    s.perf.hardware_profile->memory);
              const std::string where =
                  fmt::format("{} {} D={} N={} {}", entry.name, setup[0].second, d, n, recompute);
              EXPECT_GT(bound, 0.0) << where;
              EXPECT_LE(bound, r.perf->peak_memory) << where;
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// A run the screen calls out of memory gets the row simulate() would give it, less the
// metrics: its used inputs, status oom.
TEST(MemoryScreen, ScreensARunThatCannotFitAndLeavesOneThatFits) {
  SpecCache specs;
  auto scenario_of = [&](const std::string& gpus_model, const std::string& stages) {
    Scenario s = make_scenario({{"model", gpus_model},
                                {"hardware", "h100-dgx"},
                                {"schedule", "gpipe"},
                                {"stages", stages},
                                {"micro_batches", "8"},
                                {"micro_batch_size", "1"}});
    specs.attach(s);
    return s;
  };
  MemoryScreen screen;
  // Mixtral 8x22B's weights, gradients and optimizer state alone are ~2 TB: on 2 GPUs they
  // cannot fit; GPT-2 1.3B on 2 GPUs fits easily.
  const Scenario big = scenario_of("mixtral-8x22b", "2");
  const auto row = screen.screen(big, Point(options().size()));
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->status.kind, Status::Kind::Oom);
  EXPECT_EQ(row->metrics.fits_memory, false);
  const Result r = simulate(big);
  EXPECT_FALSE(r.perf->fits_memory);
  EXPECT_FALSE(screen.screen(scenario_of("gpt2-1.3b", "2"), {}).has_value());
}

}  // namespace
}  // namespace pipesim::scenario
