// A search reads each model and hardware YAML once: run_search through a SpecCache
// whose loaders count their calls, and compare with the number of configurations simulated.

#include "pipesim/scenario/spec_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>

#include "pipesim/scenario/options.hpp"
#include "pipesim/search/search.hpp"

namespace pipesim::search {
namespace {

struct CountingLoaders {
  std::mutex mutex;
  std::map<std::string, int> calls;

  scenario::SpecCache cache() {
    return scenario::SpecCache(
        [this](const std::string& name) {
          count(name);
          return models::load_model(name);
        },
        [this](const std::string& name) {
          count(name);
          return hardware::load_profile(name);
        });
  }
  void count(const std::string& name) {
    std::lock_guard lock(mutex);
    ++calls[name];
  }
};

TEST(SpecCache, SearchLoadsEachFileOnce) {
  CountingLoaders loaders;
  scenario::SpecCache specs = loaders.cache();
  SearchRequest request;
  request.model = "gpt2-32l";
  request.hardware = "p100-daint";
  request.gpus = 16;
  request.mini_batch = 32;
  request.schedules = {"1f1b", "chimera", "interleaved"};
  request.recompute = {"none", "full"};
  const auto rows = run_search(request, specs, 4);
  size_t simulated = 0;
  for (const auto& row : rows)
    simulated += row.status.kind != scenario::Status::Kind::Pruned;
  ASSERT_GT(simulated, 10u);  // many configurations share the two files
  EXPECT_EQ(loaders.calls, (std::map<std::string, int>{{"gpt2-32l", 1}, {"p100-daint", 1}}));
  // Every configuration that ran used the shared specs, so it has real-cost figures.
  for (const auto& row : rows) {
    if (row.ok()) {
      EXPECT_TRUE(row.metrics.throughput.has_value());
    }
  }
}

TEST(SpecCache, SameNameSameObjectAndFailuresNotCached) {
  CountingLoaders loaders;
  scenario::SpecCache specs = loaders.cache();
  EXPECT_EQ(specs.model("gpt2-32l").get(), specs.model("gpt2-32l").get());
  EXPECT_EQ(loaders.calls["gpt2-32l"], 1);
  EXPECT_THROW(specs.model("no-such-model"), core::ConfigError);
  EXPECT_THROW(specs.model("no-such-model"), core::ConfigError);
  EXPECT_EQ(loaders.calls["no-such-model"], 2);
  // attach() leaves a scenario whose files do not load to simulate(), which names the error.
  scenario::Scenario s =
      scenario::make_scenario({{"model", "no-such-model"}, {"hardware", "p100-daint"}});
  specs.attach(s);
  EXPECT_EQ(s.perf.model_spec, nullptr);
  EXPECT_THROW(scenario::simulate(s), core::ConfigError);
}

}  // namespace
}  // namespace pipesim::search
