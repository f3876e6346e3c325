// The configurations search enumerates: T | P (when varied), D | P/T, W = P/(T·D), powers of two
// B dividing B̂/W,
// N = B̂/(W·B), recomputation modes, each schedule's options; pruned ones kept with a reason.

#include "pipesim/search/search_space.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "pipesim/schedules/registry.hpp"

namespace pipesim::search {
namespace {

SearchRequest request(std::vector<std::string> schedules) {
  SearchRequest r;
  r.model = "m";
  r.hardware = "h";
  r.gpus = 8;
  r.mini_batch = 16;
  r.schedules = std::move(schedules);
  r.recompute = {"none", "full"};
  return r;
}

TEST(SearchSpace, EveryDivisorPowerOfTwoBatchAndRecomputeModeInOrder) {
  const auto cs = enumerate_candidates(request({"1f1b"}));
  // D = 1, 2, 4, 8 → W = 8, 4, 2, 1 → B̂/W = 2, 4, 8, 16 → B ∈ 2, 3, 4, 5 powers of two;
  // × 2 recomputation modes.
  ASSERT_EQ(cs.size(), (2u + 3u + 4u + 5u) * 2u);
  std::vector<std::string> seen;
  for (const Candidate& c : cs) {
    EXPECT_TRUE(c.pruned.empty());
    const int d = std::stoi(c.options.at("stages"));
    const int w = std::stoi(c.options.at("data_parallel"));
    const int b = std::stoi(c.options.at("micro_batch_size"));
    const int n = std::stoi(c.options.at("micro_batches"));
    EXPECT_EQ(d * w, 8);
    EXPECT_EQ(b * n * w, 16);
    EXPECT_EQ(b & (b - 1), 0) << "B is a power of two";
    EXPECT_EQ(c.options.at("model"), "m");
    seen.push_back(fmt::format("{}/{}/{}", d, b, c.options.at("recompute")));
  }
  EXPECT_EQ(seen[0], "1/1/none");
  EXPECT_EQ(seen[1], "1/1/full");
  EXPECT_EQ(seen[2], "1/2/none");
  EXPECT_EQ(seen.back(), "8/16/full");
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), seen.size());
}

TEST(SearchSpace, TensorParallelDegreesSplitTheGpusBeforeTheStages) {
  SearchRequest r = request({"1f1b"});
  r.recompute = {"none"};
  EXPECT_EQ(enumerate_candidates(r).front().options.count("tensor_parallel"), 0u)
      << "not varied: the option is left at its default";
  r.tensor_parallel = {1, 2, 3};
  r.limits.static_bytes = 64.0;
  r.limits.capacity = 10.0;  // weights alone: 64 / (D·T) > 10 for D·T < 8
  const auto cs = enumerate_candidates(r);
  std::vector<std::pair<int, int>> seen;  // (T, D)
  for (const Candidate& c : cs) {
    const int t = std::stoi(c.options.at("tensor_parallel"));
    if (t == 3) {
      EXPECT_NE(c.pruned.find("does not divide P = 8"), std::string::npos) << c.pruned;
      continue;
    }
    const int d = std::stoi(c.options.at("stages"));
    const int w = std::stoi(c.options.at("data_parallel"));
    EXPECT_EQ(t * d * w, 8);
    EXPECT_EQ(c.pruned_for_memory, d * t < 8) << t << " " << d;
    seen.emplace_back(t, d);
  }
  // T as given, then D ascending.
  EXPECT_EQ(seen.front(), std::make_pair(1, 1));
  EXPECT_EQ(seen.back(), std::make_pair(2, 4));
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(cs.back().options.at("tensor_parallel"), "3");
}

// For each (schedule, D, B, recomputation) search tries exactly the variants the scheme's
// registry entry gives for that (D, N), in its order and with its pruned reasons.
TEST(SearchSpace, EachSchemesVariantsComeFromItsRegistryEntry) {
  std::vector<std::string> all;
  for (const schedules::ScheduleEntry& e : schedules::all_schedules())
    all.push_back(e.name);
  SearchRequest r = request(all);
  r.gpus = 16;
  r.mini_batch = 32;
  r.recompute = {"none"};
  r.limits.layers = 12;
  std::map<std::string, std::vector<std::string>> seen;  // (schedule D B) → variants in order
  for (const Candidate& c : enumerate_candidates(r)) {
    if (!c.options.contains("micro_batch_size")) continue;  // a pruned (schedule, D) pair
    std::string variant = c.pruned;
    for (const core::OptionSpec* o : schedules::scheme_options()) {
      if (const auto it = c.options.find(o->name); it != c.options.end()) {
        variant += " " + o->name + "=" + it->second;
      }
    }
    seen[c.options.at("schedule") + " " + c.options.at("stages") + " " +
         c.options.at("micro_batch_size") + " " + c.options.at("micro_batches") + " " +
         c.options.at("data_parallel")]
        .push_back(variant);
  }
  ASSERT_FALSE(seen.empty());
  size_t with_variants = 0;
  for (const auto& [key, variants] : seen) {
    std::istringstream in(key);
    std::string schedule;
    int d = 0, b = 0, n = 0, w = 0;
    in >> schedule >> d >> b >> n >> w;
    const schedules::ScheduleEntry* e = schedules::find_schedule(schedule);
    std::vector<std::string> expected;
    if (e->variants != nullptr) {
      for (const schedules::SearchVariant& v : e->variants({d, n, r.limits.layers})) {
        // A variant whose ops run at B / divisor is given the B that trains the mini-batch.
        if (b % v.micro_batch_divisor != 0 || (b / v.micro_batch_divisor) * n * w != r.mini_batch) {
          continue;
        }
        std::string text = v.pruned;
        for (const auto& [name, value] : v.options.items())
          text += " " + name + "=" + schedules::scheme_option(name)->format(value);
        expected.push_back(text);
      }
      ++with_variants;
    }
    if (expected.empty()) expected.emplace_back();
    EXPECT_EQ(variants, expected) << key;
  }
  EXPECT_GT(with_variants, 0u);
}

TEST(SearchSpace, PrunedConfigurationsAreKeptWithTheReason) {
  SearchRequest r = request({"1f1b"});
  r.gpus = 32;
  r.mini_batch = 8;     // W = 32, 16 do not divide 8
  r.limits.layers = 8;  // D = 16, 32 exceed the layers
  r.limits.static_bytes = 64.0 * (1 << 30);
  r.limits.capacity = 15.0 * (1 << 30);  // D ≤ 4 does not fit
  r.recompute = {"none"};
  std::vector<std::string> pruned;
  for (const Candidate& c : enumerate_candidates(r)) {
    if (!c.pruned.empty()) pruned.push_back(c.options.at("stages") + " pruned: " + c.pruned);
  }
  ASSERT_EQ(pruned.size(), 5u);
  EXPECT_EQ(pruned[0], "1 pruned: W = 32 does not divide the mini-batch 8");
  EXPECT_EQ(pruned[1], "2 pruned: W = 16 does not divide the mini-batch 8");
  EXPECT_EQ(pruned[2],
            "4 pruned: weights, gradients, optimizer state and one micro-batch's activations "
            "need at least 16.0 GiB per GPU > 15.0 GiB");
  EXPECT_EQ(pruned[3], "16 pruned: D = 16 > 8 layers");
  EXPECT_EQ(pruned[4], "32 pruned: D = 32 > 8 layers");
}

}  // namespace
}  // namespace pipesim::search
