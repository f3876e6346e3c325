// search over tensor, context, expert and expert-tensor parallelism: GPUs = T·C·D·W, the
// layouts in their documented order, and exactly the layouts the cost model accepts simulated
// (its own checks, through SearchLimits::refuse), with a per-GPU memory bound that stays a lower
// bound under expert folding.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/search_limits.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/search/search.hpp"
#include "pipesim/sweep/ranking.hpp"

namespace pipesim::search {
namespace {

int option(const Candidate& c, const std::string& name) {
  return std::stoi(c.options.at(name));
}

SearchRequest moe_request(const std::string& model, std::vector<std::string> schedules, int gpus) {
  SearchRequest r;
  r.model = model;
  r.hardware = "h100-dgx";
  r.gpus = gpus;
  r.mini_batch = 16;
  r.schedules = std::move(schedules);
  r.recompute = {"full"};
  return r;
}

TEST(SearchLayout, DegreesNestTensorOutermostAndSplitTheGpusBeforeTheStages) {
  SearchRequest r;
  r.model = "m";
  r.hardware = "h";
  r.gpus = 16;
  r.mini_batch = 16;
  r.schedules = {"1f1b"};
  r.recompute = {"none"};
  r.tensor_parallel = {1, 2};
  r.context_parallel = {1, 2, 3};
  r.expert_parallel = {1, 4};
  r.expert_tensor_parallel = {1, 2};
  const std::vector<Parallelism> layouts = parallel_layouts(r);
  ASSERT_EQ(layouts.size(), 2u * 3u * 2u * 2u);
  EXPECT_EQ(std::make_tuple(layouts[1].tensor, layouts[1].context, layouts[1].expert,
                            layouts[1].expert_tensor),
            std::make_tuple(1, 1, 1, 2));
  EXPECT_EQ(std::make_tuple(layouts[2].expert, layouts[4].context, layouts[12].tensor),
            std::make_tuple(4, 2, 2));
  // A refusal that depends on the layout and on the placement: search asks once per layout
  // (stages 0) and once per (layout, D, W).
  r.limits.refuse = [](const Parallelism& x, int stages, int width) -> std::string {
    if (stages == 0) return x.expert_tensor > x.tensor ? "expert_tensor_parallel: e_t > T" : "";
    return x.expert * x.expert_tensor > x.tensor * width ? "expert_parallel: no fold" : "";
  };
  std::set<std::tuple<int, int, int, int>> simulated;
  for (const Candidate& c : enumerate_candidates(r)) {
    const int t = option(c, "tensor_parallel"), cp = option(c, "context_parallel");
    const int e = option(c, "expert_parallel"), et = option(c, "expert_tensor_parallel");
    EXPECT_EQ(c.options.at("attention"), "flash") << "C varied: every row runs flash attention";
    if (cp == 3) {
      EXPECT_EQ(c.pruned, "T·C = " + std::to_string(t) + "·3 does not divide P = 16");
      continue;
    }
    if (et > t) {
      EXPECT_EQ(c.pruned, "expert_tensor_parallel: e_t > T");
      EXPECT_FALSE(c.options.contains("stages")) << "one row per refused layout";
      continue;
    }
    const int d = option(c, "stages"), w = option(c, "data_parallel");
    EXPECT_EQ(t * cp * d * w, 16);
    if (e * et > t * w) {
      EXPECT_EQ(c.pruned, "expert_parallel: no fold");
      EXPECT_FALSE(c.options.contains("micro_batch_size")) << "one row per refused (layout, D)";
      continue;
    }
    EXPECT_TRUE(c.pruned.empty()) << c.pruned;
    simulated.emplace(t, cp, e, et);
  }
  // T = 2, C = 1, E = 4, e_t = 2: folds over T·W = 16/D when D ≤ 2.
  EXPECT_TRUE(simulated.contains({2, 1, 4, 2}));
  EXPECT_FALSE(simulated.contains({1, 1, 1, 2}));
}

// The bound search prunes by is one stage's share of the model per GPU: with experts spread
// over E GPUs it must fall (a bound of static_bytes / T would prune layouts that fit).
TEST(SearchLayout, PerGpuStaticBytesFollowTheExpertFolding) {
  scenario::SpecCache specs;
  const SearchLimits l =
      scenario::search_limits(specs.model("mixtral-8x7b"), specs.hardware("h100-dgx"));
  const double whole = l.static_bytes_per_gpu({1, 1, 1, 1});
  EXPECT_NEAR(whole, l.static_bytes, 1e-9 * l.static_bytes) << "T = E = 1: the whole model";
  const double ep8 = l.static_bytes_per_gpu({1, 1, 8, 1});
  const double tp2 = l.static_bytes_per_gpu({2, 1, 1, 1});
  const double tp2_et2 = l.static_bytes_per_gpu({2, 1, 1, 2});
  EXPECT_LT(ep8, whole / 4) << "the experts are most of Mixtral's weights";
  EXPECT_GT(ep8, whole / 8) << "attention and embeddings stay whole on every GPU";
  EXPECT_GT(tp2, tp2_et2) << "e_t = 1 keeps each expert whole under T = 2";
  EXPECT_EQ(l.static_bytes_per_gpu({1, 4, 1, 1}), whole) << "context ranks replicate weights";
}

TEST(SearchLayout, RefusesWhatTheCostModelRefusesWithItsField) {
  scenario::SpecCache specs;
  const SearchLimits moe =
      scenario::search_limits(specs.model("mixtral-8x7b"), specs.hardware("h100-dgx"));
  EXPECT_EQ(moe.refuse({1, 1, 8, 1}, 0, 0), "");
  EXPECT_EQ(moe.refuse({1, 1, 3, 1}, 0, 0).rfind("expert_parallel:", 0), 0u)
      << moe.refuse({1, 1, 3, 1}, 0, 0);
  EXPECT_EQ(moe.refuse({1, 2, 2, 1}, 0, 0), "") << "the experts fold over T·C·W";
  EXPECT_EQ(moe.refuse({1, 1, 8, 1}, 4, 4).rfind("expert_parallel:", 0), 0u)
      << "E = 8 does not fold over T·W = 4";
  EXPECT_EQ(moe.refuse({1, 1, 8, 1}, 2, 8), "");
  const SearchLimits dense =
      scenario::search_limits(specs.model("llama2-7b"), specs.hardware("h100-dgx"));
  EXPECT_EQ(dense.refuse({1, 1, 2, 1}, 0, 0).rfind("expert_parallel:", 0), 0u);
  EXPECT_EQ(dense.refuse({1, 1, 1, 2}, 0, 0).rfind("expert_tensor_parallel:", 0), 0u);
  EXPECT_EQ(dense.refuse({2, 4, 1, 1}, 0, 0), "");
  EXPECT_EQ(dense.refuse({1, 3, 1, 1}, 0, 0).rfind("context_parallel:", 0), 0u)
      << "2C must divide the sequence of a causal model";
}

// Every layout search simulates is one the cost model accepts: a MoE search over all four
// degrees has no invalid row, and its pruned rows are the refused layouts.
TEST(SearchLayout, EverySimulatedLayoutIsAcceptedByTheCostModel) {
  SearchRequest r = moe_request("mixtral-8x7b", {"1f1b"}, 16);
  r.tensor_parallel = {1, 2};
  r.context_parallel = {1, 2};
  r.expert_parallel = {1, 2, 3, 8};
  r.expert_tensor_parallel = {1, 2};
  scenario::SpecCache specs;
  // Every row with its inputs and every candidate simulated (no bound decides which).
  const auto rows = run_search(r, specs, 2, {}, {}, nullptr, RowDetail::Full);
  const auto columns = scenario::input_columns();
  auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  int ok = 0;
  std::set<std::string> experts_ok;
  for (const scenario::SweepRow& row : rows) {
    EXPECT_NE(row.status.kind, scenario::Status::Kind::Invalid) << row.status.reason;
    if (row.ok()) {
      ++ok;
      experts_ok.insert(row.inputs[column("expert_parallel")]);
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_TRUE(experts_ok.contains("8")) << "E = 8 runs where it folds";
  EXPECT_FALSE(experts_ok.contains("3"));
}

// Pruning (the memory bound and the cost model's refusals) never drops the best configuration:
// the same candidates all simulated, with no pruning rule, give the same winner per schedule,
// and no candidate the memory bound prunes fits when simulated.
TEST(SearchLayout, PrunedSearchFindsTheExhaustiveSearchsWinners) {
  std::vector<std::string> every;  // each scheme's shape (chunks, pipelines) enters the bound
  for (const schedules::ScheduleEntry& e : schedules::all_schedules())
    every.push_back(e.name);
  SearchRequest r = moe_request("qwen3-30b-a3b", every, 16);
  r.tensor_parallel = {1, 2};
  r.expert_parallel = {1, 8};
  r.recompute = {"none", "full"};
  scenario::SpecCache specs;
  const std::vector<Candidate> pruned = search_candidates(r, specs);
  std::vector<Candidate> exhaustive = pruned;
  size_t skipped = 0;
  for (Candidate& c : exhaustive) {
    if (!c.options.contains("micro_batch_size")) continue;  // no configuration to simulate
    skipped += c.pruned.empty() ? 0 : 1;
    if (c.pruned.find("weights, gradients") == 0) c.pruned.clear();
    c.pruned_for_memory = false;
  }
  ASSERT_GT(skipped, 0u) << "the memory bound pruned something";
  const auto columns = scenario::input_columns();
  const auto schedule =
      static_cast<size_t>(std::find(columns.begin(), columns.end(), "schedule") - columns.begin());
  auto winners = [&](const std::vector<scenario::SweepRow>& rows) {
    std::vector<scenario::Point> out;
    for (size_t i : sweep::best_per_group(rows, schedule, sweep::default_rank_metric(rows)))
      out.push_back(rows[i].inputs);
    return out;
  };
  const auto rows = sweep::evaluate_all(pruned.size(), candidate_rows(pruned, specs), 2, {});
  const auto all = sweep::evaluate_all(exhaustive.size(), candidate_rows(exhaustive, specs), 2, {});
  int oom = 0;
  for (size_t i = 0; i < pruned.size(); ++i) {
    if (pruned[i].pruned_for_memory) {
      // Simulated, it runs out of memory or is refused by its scheme: never fits.
      EXPECT_FALSE(all[i].ok()) << "the bound is a lower bound: " << pruned[i].pruned << " "
                                << fmt::format("{}", fmt::join(all[i].inputs, " ")) << " | "
                                << fmt::format("{}", fmt::join(scenario::input_columns(), " "));
      oom += all[i].status.kind == scenario::Status::Kind::Oom ? 1 : 0;
    }
  }
  EXPECT_GT(oom, 0);
  EXPECT_FALSE(winners(rows).empty());
  EXPECT_EQ(winners(rows), winners(all));
}

}  // namespace
}  // namespace pipesim::search
