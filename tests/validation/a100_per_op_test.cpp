// The A100 profiles against the published per-operation times (validation/per-op/a100.json:
// Zero Bubble Table 9's T_F / T_B / T_W per stage, Korthikanti Table 4's one-layer forward and
// backward), priced as tools/fit-profile.py --per-op prices them: the middle stage of the run's
// own simulation, or one layer as the difference between the model cut to two layers and to
// one. The bounds are what validation/README.md ("Per-operation check on the A100") reports:
// the linear GEMMs (the weight-gradient pass, GEMMs alone) priced 14-21% slower than measured,
// the forward 0-12% faster (the host's dispatch included), the sum of the three within 6%.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/scenario/spec_cache.hpp"
#include "pipesim/validation/validation.hpp"

namespace pipesim::validation {
namespace {

std::filesystem::path source_root() {
  const char* root = std::getenv("PIPESIM_SOURCE_DIR");
  return std::filesystem::path(root ? root : ".");
}

struct OpRow {
  std::string id, source, op;
  double measured = 0, predicted = 0;
  // 1 − predicted / measured: + = pipesim faster, the suite's sign for a time.
  double error() const { return 1 - predicted / measured; }
};

double op_seconds(const cost::StageTimes& t, const std::string& op) {
  if (op == "forward") return t.forward;
  if (op == "backward_input") return t.backward_input;
  if (op == "backward_weight") return t.backward_weight;
  if (op == "backward") return t.backward_input + t.backward_weight + t.recompute;
  ADD_FAILURE() << "unknown op " << op;
  return 0;
}

scenario::Result run_with(const std::vector<std::pair<std::string, std::string>>& values,
                          scenario::SpecCache& cache,
                          std::shared_ptr<const models::ModelSpec> model = nullptr) {
  scenario::Scenario s = scenario::make_scenario(values);
  cache.attach(s);
  if (model) s.perf.model_spec = std::move(model);
  return scenario::simulate(s);
}

// Every measured op of the file, priced on the profile its run names.
const std::vector<OpRow>& rows() {
  static const std::vector<OpRow> out = [] {
    std::vector<OpRow> rs;
    std::ifstream in(source_root() / "validation" / "per-op" / "a100.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    scenario::SpecCache cache;
    for (const nlohmann::json& e : doc.at("ops")) {
      const ValidationRun run =
          load_validation_run((source_root() / e.at("run").get<std::string>()).string());
      std::vector<std::pair<std::string, std::string>> values = run.run;
      if (e.contains("override")) {
        for (const auto& [key, value] : e.at("override").items()) {
          bool found = false;
          for (auto& [name, text] : values) {
            if (name != key) continue;
            text = value.get<std::string>();
            found = true;
          }
          if (!found) values.emplace_back(key, value.get<std::string>());
        }
      }
      std::map<std::string, double> predicted;
      const std::string stage = e.at("stage").get<std::string>();
      if (stage == "middle") {
        const scenario::Result r = run_with(values, cache);
        bool seen = false;
        for (size_t s = 0; s < r.perf->partition.size() && !seen; ++s) {
          if (r.perf->partition[s].embedding || r.perf->partition[s].head) continue;
          seen = true;
          for (const auto& [op, ms] : e.at("measured_ms").items())
            predicted[op] = op_seconds(r.perf->stage_times[s], op);
        }
        EXPECT_TRUE(seen) << e.at("id");
      } else {
        EXPECT_EQ(stage, "layer");
        for (auto& [name, text] : values)
          if (name == "stages" || name == "micro_batches" || name == "data_parallel") text = "1";
        std::string model_name;
        for (const auto& [name, text] : values)
          if (name == "model") model_name = text;
        std::vector<cost::StageTimes> per_layers;
        for (int layers : {1, 2}) {
          models::ModelSpec cut = *cache.model(model_name);
          cut.layers = layers;
          per_layers.push_back(
              run_with(values, cache, std::make_shared<const models::ModelSpec>(cut))
                  .perf->stage_times[0]);
        }
        for (const auto& [op, ms] : e.at("measured_ms").items())
          predicted[op] = op_seconds(per_layers[1], op) - op_seconds(per_layers[0], op);
      }
      for (const auto& [op, ms] : e.at("measured_ms").items()) {
        rs.push_back(OpRow{e.at("id").get<std::string>(), e.at("source").get<std::string>(), op,
                           ms.get<double>() / 1e3, predicted[op]});
      }
    }
    return rs;
  }();
  return out;
}

TEST(A100PerOp, EveryPublishedOpIsPriced) {
  // Zero Bubble: 4 models x 3 runs x (F, B, W); Korthikanti: 5 variants x (forward, backward).
  std::map<std::string, int> count;
  for (const OpRow& r : rows()) {
    ++count[r.source];
    EXPECT_GT(r.predicted, 0) << r.id << " " << r.op;
  }
  EXPECT_EQ(count["zero-bubble"], 36);
  EXPECT_EQ(count["korthikanti"], 10);
}

// The per-op errors as validation/README.md reports them, each (source, op) group between its
// lowest and highest error, rounded out by a point or so.
TEST(A100PerOp, ErrorsAsReported) {
  struct Bound {
    const char* source;
    const char* op;
    double lo, hi;
  };
  for (const Bound& b : {Bound{"zero-bubble", "forward", 0.00, 0.13},
                         Bound{"zero-bubble", "backward_input", -0.06, 0.00},
                         Bound{"zero-bubble", "backward_weight", -0.22, -0.12},
                         Bound{"korthikanti", "forward", -0.02, 0.01},
                         Bound{"korthikanti", "backward", -0.09, 0.00}}) {
    int seen = 0;
    for (const OpRow& r : rows()) {
      if (r.source != b.source || r.op != b.op) continue;
      ++seen;
      EXPECT_GE(r.error(), b.lo) << r.id << " " << r.op;
      EXPECT_LE(r.error(), b.hi) << r.id << " " << r.op;
    }
    EXPECT_GT(seen, 0) << b.source << " " << b.op;
  }
}

// The compensation the suite's Zero Bubble and Korthikanti points rest on: a stage's three ops
// together within 6% of Table 9, although the weight-gradient GEMMs alone are 14-21% slow.
TEST(A100PerOp, StageSumWithinFivePercent) {
  std::map<std::string, std::pair<double, double>> sums;  // id → (measured, predicted)
  for (const OpRow& r : rows()) {
    if (r.source != "zero-bubble") continue;
    sums[r.id].first += r.measured;
    sums[r.id].second += r.predicted;
  }
  EXPECT_EQ(sums.size(), 12u);
  for (const auto& [id, s] : sums)
    EXPECT_LE(std::abs(1 - s.second / s.first), 0.06) << id;
}

}  // namespace
}  // namespace pipesim::validation
