#include "pipesim/explore/search_space.hpp"

#include <fmt/format.h>

#include "pipesim/schedules/registry.hpp"

namespace pipesim::explore {
namespace {

std::string text(long v) {
  return fmt::format("{}", v);
}

double gib(double bytes) {
  return bytes / (1024.0 * 1024.0 * 1024.0);
}

// The registry's variants of the scheme's own options for one (D, N); one without options when
// the scheme has none.
std::vector<schedules::SearchVariant> schedule_variants(const std::string& schedule, int stages,
                                                        int micro_batches,
                                                        const SearchLimits& limits) {
  std::vector<schedules::SearchVariant> variants;
  const schedules::ScheduleEntry* e = schedules::find_schedule(schedule);
  if (e != nullptr && e->variants != nullptr) {
    variants = e->variants({stages, micro_batches, limits.layers});
  }
  if (variants.empty()) variants.emplace_back();
  return variants;
}

// Copies of its stages' weights a worker of this configuration holds at least: one per
// pipeline the scheme runs (Chimera 2f, GEMS and DualPipe 2), whether or not the point meets
// the scheme's constraints (it is simulated, and refused there with the reason).
int weight_copies(const std::string& schedule, int stages, int micro_batches,
                  const core::OptionValues& options) {
  try {
    return schedules::shape_of(schedule, {stages, micro_batches, options}).pipelines;
  } catch (const core::ConfigError&) {
    return 1;  // an unknown schedule: refused when simulated
  }
}

}  // namespace

std::vector<Candidate> enumerate_candidates(const SearchRequest& request) {
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
            for (const auto& variant : schedule_variants(schedule, stages, n, limits)) {
              Candidate c = base();
              c.options["micro_batch_size"] = text(b);
              c.options["micro_batches"] = text(n);
              if (!mode.empty()) c.options["recompute"] = mode;
              for (const auto& [name, value] : variant.options.items())
                c.options[name] = schedules::scheme_option(name)->format(value);
              c.pruned = variant.pruned;
              const int copies = weight_copies(schedule, stages, n, variant.options);
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
