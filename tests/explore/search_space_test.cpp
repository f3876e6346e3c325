// The configurations search enumerates: T | P (when varied), D | P/T, W = P/(T·D), powers of two
// B dividing B̂/W,
// N = B̂/(W·B), recomputation modes, each schedule's options; pruned ones kept with a reason.

#include "pipesim/explore/search_space.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace pipesim::explore {
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

TEST(SearchSpace, ChimeraTriesPipelinesAndStrategiesInterleavedTriesChunks) {
  SearchRequest r = request({"chimera", "interleaved"});
  r.recompute = {"none"};
  r.limits.layers = 16;
  const auto cs = enumerate_candidates(r);
  std::set<std::string> chimera, interleaved;
  for (const Candidate& c : cs) {
    if (!c.pruned.empty()) continue;
    const int d = std::stoi(c.options.at("stages"));
    const int n = std::stoi(c.options.at("micro_batches"));
    if (c.options.at("schedule") == "chimera") {
      const int p = std::stoi(c.options.at("pipelines"));
      EXPECT_EQ(p % 2, 0);
      if (d >= 2) {
        EXPECT_EQ((d / 2) % (p / 2), 0) << "f divides D/2";
      }
      if (n <= d) {
        EXPECT_EQ(c.options.at("strategy"), "direct");
      }
      if (d == 8 && n == 16) chimera.insert(c.options.at("pipelines") + c.options.at("strategy"));
    } else {
      const int v = std::stoi(c.options.at("chunks"));
      EXPECT_LE(v * d, 16);
      if (d == 4) interleaved.insert(c.options.at("chunks"));
    }
  }
  EXPECT_EQ(chimera,
            (std::set<std::string>{"2direct", "2doubling", "2halving", "4direct", "4doubling",
                                   "4halving", "8direct", "8doubling", "8halving"}));
  EXPECT_EQ(interleaved, (std::set<std::string>{"2", "4"}));
  size_t too_deep = 0;  // D = 8 (2 chunks × 8 = 16 fits) has chunks; none above 8 here
  for (const Candidate& c : cs) {
    if (c.options.at("schedule") == "interleaved" && c.pruned.find("chunks") != std::string::npos) {
      ++too_deep;
    }
  }
  EXPECT_EQ(too_deep, 0u);
  r.limits.layers = 6;  // D = 4: 2 chunks × 4 = 8 > 6 layers, D = 8 > 6 layers
  std::set<std::string> reasons;
  for (const Candidate& c : enumerate_candidates(r)) {
    if (c.options.at("schedule") == "interleaved" && !c.pruned.empty()) {
      reasons.insert(c.options.at("stages") + " pruned: " + c.pruned);
    }
  }
  EXPECT_EQ(reasons, (std::set<std::string>{"4 pruned: 2 chunks × D = 8 > 6 layers",
                                            "8 pruned: D = 8 > 6 layers"}));
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
            "4 pruned: weights, gradients and optimizer state alone need 16.0 GiB "
            "per GPU > 15.0 GiB");
  EXPECT_EQ(pruned[3], "16 pruned: D = 16 > 8 layers");
  EXPECT_EQ(pruned[4], "32 pruned: D = 32 > 8 layers");
}

}  // namespace
}  // namespace pipesim::explore
