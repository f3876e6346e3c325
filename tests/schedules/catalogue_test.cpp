// The other schemes of docs/architecture.md §3 against their closed forms in unit-cost mode:
// DAPPLE, PipeDream and PipeDream-2BW (steady state), GEMS, Megatron interleaved; and the catalogue
// itself (every scheme registered, described and cited).

#include <gtest/gtest.h>

#include <algorithm>

#include "../support/run_helpers.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/text_file.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim {
namespace {

using schedules::ScheduleParams;

ScheduleParams params(int d, int n) {
  ScheduleParams p;
  p.stages = d;
  p.micro_batches = n;
  return p;
}

// Every registered scheme is described, cited, and documented: schedules/README.md and the
// catalogue of docs/architecture.md name it, so the docs cannot fall behind the registry.
TEST(Catalogue, EverySchemeIsDescribedCitedAndDocumented) {
  const std::string readme = core::read_text_file(PIPESIM_TEST_SOURCE_DIR "/schedules/README.md");
  const std::string design = core::read_text_file(PIPESIM_TEST_SOURCE_DIR "/docs/architecture.md");
  ASSERT_FALSE(schedules::all_schedules().empty());
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    SCOPED_TRACE(e.name);
    EXPECT_FALSE(e.description.empty());
    EXPECT_FALSE(e.citation.empty());
    EXPECT_EQ(schedules::find_schedule(e.name), &e);
    EXPECT_NE(readme.find("**" + e.name + "**"), std::string::npos);
    EXPECT_NE(design.find("`" + e.name + "`"), std::string::npos);
  }
}

TEST(Dapple, IsOneFOneBsOrderAndClosedForm) {
  for (int d : {1, 2, 4, 7}) {
    for (int n : {1, 3, 8, 16}) {
      const auto r = testing::run_unit("dapple", params(d, n), {1, 2, 0, 0});
      EXPECT_EQ(r.schedule.program, schedules::make_schedule("1f1b", params(d, n)).program);
      EXPECT_NEAR(r.metrics.bubble_ratio, (d - 1.0) / (n + d - 1.0), 1e-12);
      for (const auto& w : r.metrics.workers) {
        EXPECT_GE(w.peak_activations, 1);
        EXPECT_LE(w.peak_activations, d);
      }
    }
  }
}

TEST(PipeDream, SteadyStateHasNoBubbleAndStashesDMinusSVersions) {
  for (const char* name : {"pipedream", "pipedream-2bw"}) {
    for (int d : {1, 2, 4, 8}) {
      for (int n : {1, 4, 8, 16}) {
        for (sim::UnitCosts c : {sim::UnitCosts{1, 2, 0, 0}, sim::UnitCosts{1, 1, 0, 0}}) {
          SCOPED_TRACE(::testing::Message() << name << " D=" << d << " N=" << n);
          ScheduleParams p = params(d, n);
          p.options.set("iterations", std::int64_t{5});
          const auto r = testing::run_unit(name, p, c);
          EXPECT_TRUE(r.schedule.asynchronous);
          EXPECT_EQ(r.schedule.iterations, 5);
          // A micro-batch every t_F + t_B on every worker once the pipeline is full.
          if (n >= d) {
            EXPECT_DOUBLE_EQ(r.metrics.iteration_time, n * (c.forward + c.backward));
            EXPECT_NEAR(r.metrics.bubble_ratio, 0.0, 1e-12);
          }
          EXPECT_GT(r.metrics.total_time, r.metrics.iteration_time);
          for (int w = 0; w < d; ++w) {
            const int versions = r.schedule.weight_versions[static_cast<size_t>(w)];
            EXPECT_EQ(versions, std::string(name) == "pipedream" ? std::min(d - w, 5 * n) : 2);
            EXPECT_LE(r.metrics.workers[static_cast<size_t>(w)].peak_activations, d);
          }
        }
      }
    }
  }
}

TEST(PipeDream, RejectsFewerThanThreeIterations) {
  ScheduleParams p = params(4, 8);
  p.options.set("iterations", std::int64_t{2});
  EXPECT_THROW(schedules::make_schedule("pipedream", p), core::ConfigError);
}

TEST(Gems, AtMostTwoMicroBatchesInFlightAndBubbleNearThePapers) {
  // Chimera Table 2: bubble ≈ (D−1)/(D+½) (t_B = 2t_F, large N). pipesim replays GEMS' ideal
  // timeline as soon as dependencies allow, which lands within 0.025 of it.
  for (int d : {2, 4, 8, 16}) {
    for (int n : {16, 32, 64}) {
      SCOPED_TRACE(::testing::Message() << "D=" << d << " N=" << n);
      const auto r = testing::run_unit("gems", params(d, n), {1, 2, 0, 0});
      EXPECT_NEAR(r.metrics.bubble_ratio, (d - 1.0) / (d + 0.5), 0.025);
      for (const auto& w : r.metrics.workers)
        EXPECT_LE(w.peak_activations, 2);
    }
  }
}

TEST(Interleaved, BubbleIsDMinusOneOverVNPlusDMinusOne) {
  for (int d : {2, 3, 4, 5, 8}) {
    for (int v : {1, 2, 3, 4}) {
      for (int k : {1, 2, 3, 4}) {
        for (sim::UnitCosts c : {sim::UnitCosts{1, 1, 0, 0}, sim::UnitCosts{1, 2, 0, 0},
                                 sim::UnitCosts{0.5, 1.25, 0, 0}}) {
          const int n = k * d;
          SCOPED_TRACE(::testing::Message() << "D=" << d << " v=" << v << " N=" << n);
          ScheduleParams p = params(d, n);
          p.options.set("chunks", std::int64_t{v});
          const auto r = testing::run_unit("interleaved", p, c);
          EXPECT_NEAR(r.metrics.bubble_ratio, (d - 1.0) / (v * n + d - 1.0), 1e-12);
        }
      }
    }
  }
}

// Search explores 2, 4, 8 chunks while chunks · D fits the layers, and says why when none does.
TEST(Interleaved, SearchVariantsAreChunksThatFitTheLayers) {
  const schedules::ScheduleEntry* e = schedules::find_schedule("interleaved");
  ASSERT_NE(e->variants, nullptr);
  auto chunks = [&](int d, int layers) {
    std::vector<std::string> out;
    for (const schedules::SearchVariant& v : e->variants({d, 4 * d, layers}))
      out.push_back(std::to_string(v.options.integer("chunks")) + v.pruned);
    return out;
  };
  EXPECT_EQ(chunks(4, 16), (std::vector<std::string>{"2", "4"}));
  EXPECT_EQ(chunks(2, 64), (std::vector<std::string>{"2", "4", "8"}));
  EXPECT_EQ(chunks(2, 0), (std::vector<std::string>{"2", "4", "8"}));  // layers unknown
  EXPECT_EQ(chunks(4, 6), (std::vector<std::string>{"22 chunks × D = 8 > 6 layers"}));
}

TEST(Interleaved, RejectsNNotAMultipleOfD) {
  try {
    schedules::make_schedule("interleaved", params(4, 6));
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_TRUE(e.is_option());
    EXPECT_EQ(e.field(), "micro_batches");
  }
}

}  // namespace
}  // namespace pipesim
