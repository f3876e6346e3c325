#include "pipesim/search/search_diagnosis.hpp"

#include <fmt/format.h>

#include <map>

namespace pipesim::search {
namespace {

double gib(double bytes) {
  return bytes / (1024.0 * 1024.0 * 1024.0);
}

// The layout and shape of a candidate, as the table's columns name them.
std::string describe(const Candidate& c) {
  static const std::pair<const char*, const char*> kShown[] = {
      {"tensor_parallel", "T"},          {"context_parallel", "C"}, {"expert_parallel", "E"},
      {"expert_tensor_parallel", "e_t"}, {"stages", "D"},           {"data_parallel", "W"},
      {"micro_batch_size", "B"},         {"micro_batches", "N"},    {"recompute", "recompute"}};
  std::string out;
  for (const auto& [option, symbol] : kShown) {
    const auto it = c.options.find(option);
    if (it == c.options.end()) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", symbol, it->second);
  }
  return out;
}

// The rule a candidate that did not run breaks, without its numbers.
std::string rule_of(const Candidate& c, const scenario::SweepRow& row) {
  if (!c.rule.empty()) return c.rule;
  const std::string& reason = row.status.reason;
  const auto colon = reason.find(':');
  if (row.status.kind == scenario::Status::Kind::Invalid && colon != std::string::npos) {
    return "the rule of " + reason.substr(0, colon);
  }
  return reason.empty() ? scenario::Status::kind_name(row.status.kind) : reason;
}

}  // namespace

double memory_need(const Candidate& c, const scenario::SweepRow& row) {
  if (c.pruned_for_memory) return c.memory_bound;
  if (row.status.kind != scenario::Status::Kind::Oom) return 0.0;
  return row.metrics.peak_memory_max.value_or(0.0);
}

std::string binding_limit(const std::vector<Candidate>& candidates,
                          const std::vector<scenario::SweepRow>& rows,
                          const std::vector<double>& needs, const std::vector<size_t>& subset,
                          const SearchRequest& request) {
  const double capacity = request.limits.capacity;
  size_t closest = candidates.size();
  size_t oom = 0;
  // The rules the others break: rule → (count, first candidate).
  std::map<std::string, std::pair<size_t, size_t>> rules;
  for (const size_t i : subset) {
    if (needs[i] <= 0.0) {
      auto [it, added] = rules.try_emplace(rule_of(candidates[i], rows[i]), 0, i);
      ++it->second.first;
      continue;
    }
    ++oom;
    if (closest == candidates.size() || needs[i] < needs[closest]) closest = i;
  }
  const std::pair<const std::string, std::pair<size_t, size_t>>* most = nullptr;
  for (const auto& entry : rules) {
    if (most == nullptr || entry.second.first > most->second.first) most = &entry;
  }
  const auto example = [&] {
    const size_t i = most->second.second;
    return candidates[i].pruned.empty() ? rows[i].status.reason : candidates[i].pruned;
  };
  if (closest < candidates.size()) {
    // Memory binds: the rules let these through (as far as they were checked) and memory not.
    std::string vary = "vary: more GPUs";
    const auto given = [&](const char* option) {
      const auto it = request.fixed.find(option);
      return it == request.fixed.end() ? std::string() : it->second;
    };
    const std::string sharding = given("data_parallel_sharding");
    if (given("distributed_optimizer") != "on" && sharding.empty()) {
      vary += ", distributed_optimizer on (the optimizer state sharded over W)";
    }
    if (sharding != "params") {
      vary += ", data_parallel_sharding params (parameters and gradients sharded over W too)";
    }
    if (request.limits.experts > 0 && !request.expert_parallel.empty()) {
      vary += fmt::format(", expert_parallel up to the {} experts", request.limits.experts);
    }
    vary += ", a shorter sequence or a model with fewer parameters";
    const std::string others = most == nullptr
                                   ? ""
                                   : fmt::format(" (the other {} break a rule, most often {})",
                                                 subset.size() - oom, most->first);
    return fmt::format(
        "memory binds: {} configurations exceed the GPU's memory{}; the closest, {}, needs at "
        "least {:.1f} GiB per GPU, {:.1f} GiB over the {:.1f} GiB; {}",
        oom, others, describe(candidates[closest]), gib(needs[closest]),
        gib(needs[closest] - capacity), gib(capacity), vary);
  }
  if (most == nullptr) return "no configuration to try";
  return fmt::format(
      "divisibility binds: {} of {} configurations break {} (e.g. {}); vary: a GPU count or "
      "mini-batch with more divisors (P = T·C·D·W, mini-batch = B·N·W)",
      most->second.first, subset.size(), most->first, example());
}

}  // namespace pipesim::search
