#include "pipesim/explore/search_space.hpp"

#include <fmt/format.h>

namespace pipesim::explore {
namespace {

std::string text(long v) {
  return fmt::format("{}", v);
}

// A variant entry that is not an option: why the variant cannot run.
constexpr const char* kPrunedKey = "pruned";

double gib(double bytes) {
  return bytes / (1024.0 * 1024.0 * 1024.0);
}

using Variants = std::vector<std::map<std::string, std::string>>;

// What a schedule's own options span for one (D, N): a list of option → value assignments.
struct VariantSpace {
  const char* option;  //!< the option the space varies; skipped when this build lacks it
  Variants (*variants)(int stages, int micro_batches, const SearchLimits& limits,
                       bool (*has)(const std::string&));
};

// Chimera: 2f pipelines, f dividing D/2 (Li & Hoefler §3.6; odd D is left to the generator),
// and with N > D each strategy of scaling to N micro-batches.
Variants chimera_variants(int stages, int micro_batches, const SearchLimits&,
                          bool (*has)(const std::string&)) {
  Variants variants;
  const int half = stages / 2;
  for (int f = 1; f <= std::max(half, 1); ++f) {
    if (half > 0 && half % f != 0) continue;
    std::vector<std::string> strategies{"direct"};
    if (micro_batches > stages && has("strategy")) strategies = {"direct", "doubling", "halving"};
    for (const auto& s : strategies) {
      std::map<std::string, std::string> v{{"pipelines", text(2 * f)}};
      if (has("strategy")) v["strategy"] = s;
      variants.push_back(std::move(v));
    }
  }
  return variants;
}

// Interleaved: 2, 4, 8 model chunks per worker while chunks · D ≤ layers.
Variants interleaved_variants(int stages, int, const SearchLimits& limits,
                              bool (*)(const std::string&)) {
  Variants variants;
  for (int chunks = 2; chunks <= 8; chunks *= 2) {
    if (limits.layers > 0 && chunks * stages > limits.layers) break;
    variants.push_back({{"chunks", text(chunks)}});
  }
  if (variants.empty()) {  // not even two chunks per worker fit the layers
    variants.push_back(
        {{"chunks", "2"},
         {kPrunedKey, fmt::format("2 chunks × D = {} > {} layers", 2 * stages, limits.layers)}});
  }
  return variants;
}

// The per-schedule table: schedules with options of their own that search varies. A schedule
// not listed has none (one variant: the defaults).
const std::map<std::string, VariantSpace>& variant_spaces() {
  static const std::map<std::string, VariantSpace> table{
      {"chimera", {"pipelines", &chimera_variants}},
      {"interleaved", {"chunks", &interleaved_variants}},
  };
  return table;
}

Variants schedule_variants(const std::string& schedule, int stages, int micro_batches,
                           const SearchLimits& limits, bool (*has)(const std::string&)) {
  Variants variants;
  const auto space = variant_spaces().find(schedule);
  if (space != variant_spaces().end() && has(space->second.option)) {
    variants = space->second.variants(stages, micro_batches, limits, has);
  }
  if (variants.empty()) variants.emplace_back();
  return variants;
}

}  // namespace

std::vector<Candidate> enumerate_candidates(const SearchRequest& request,
                                            bool (*has)(const std::string& name)) {
  std::vector<Candidate> out;
  const SearchLimits& limits = request.limits;
  const std::vector<std::string> recompute =
      request.recompute.empty() ? std::vector<std::string>{""} : request.recompute;
  const bool vary_t = !request.tensor_parallel.empty();
  const std::vector<int> degrees = vary_t ? request.tensor_parallel : std::vector<int>{1};
  for (const std::string& schedule : request.schedules) {
    for (const int t : degrees) {
      auto with_t = [&](Candidate c) {
        if (vary_t) c.options["tensor_parallel"] = text(t);
        return c;
      };
      if (t < 1 || request.gpus % t != 0) {
        Candidate c;
        c.options = {
            {"schedule", schedule}, {"model", request.model}, {"hardware", request.hardware}};
        c.pruned = fmt::format("T = {} does not divide P = {}", t, request.gpus);
        out.push_back(with_t(std::move(c)));
        continue;
      }
      const int pipeline_gpus = request.gpus / t;  // D·W
      for (int stages = 1; stages <= pipeline_gpus; ++stages) {
        if (pipeline_gpus % stages != 0) continue;
        const int width = pipeline_gpus / stages;
        auto base = [&] {
          Candidate c;
          c.options = {{"schedule", schedule},
                       {"model", request.model},
                       {"hardware", request.hardware},
                       {"stages", text(stages)},
                       {"data_parallel", text(width)}};
          return with_t(std::move(c));
        };
        // Rules that hold for every B: one pruned row for the (schedule, D) pair.
        std::string why;
        if (limits.layers > 0 && stages > limits.layers) {
          why = fmt::format("D = {} > {} layers", stages, limits.layers);
        } else if (request.mini_batch % width != 0) {
          why = fmt::format("W = {} does not divide the mini-batch {}", width, request.mini_batch);
        }
        if (!why.empty()) {
          Candidate c = base();
          c.pruned = why;
          out.push_back(std::move(c));
          continue;
        }
        const int per_replica = request.mini_batch / width;  // B·N
        for (int b = 1; b <= per_replica; b *= 2) {
          if (per_replica % b != 0) break;  // powers of two dividing B̂/W
          const int n = per_replica / b;
          for (const std::string& mode : recompute) {
            for (auto& variant : schedule_variants(schedule, stages, n, limits, has)) {
              Candidate c = base();
              c.options["micro_batch_size"] = text(b);
              c.options["micro_batches"] = text(n);
              if (!mode.empty()) c.options["recompute"] = mode;
              int copies = 1;  // weight copies a worker holds at least (Chimera: 2f stages)
              if (auto p = variant.find("pipelines"); p != variant.end()) {
                copies = std::stoi(p->second);
              }
              if (auto p = variant.find(kPrunedKey); p != variant.end()) {
                c.pruned = p->second;
                variant.erase(p);
              }
              c.options.merge(variant);
              const double lower_bound = limits.static_bytes / stages / t * copies;
              if (c.pruned.empty() && limits.capacity > 0 && lower_bound > limits.capacity) {
                c.pruned = fmt::format(
                    "weights, gradients and optimizer state alone need {:.1f} GiB per GPU "
                    "> {:.1f} GiB",
                    gib(lower_bound), gib(limits.capacity));
                c.pruned_for_memory = true;
              }
              out.push_back(std::move(c));
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace pipesim::explore
