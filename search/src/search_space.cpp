#include "pipesim/search/search_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>

#include "pipesim/scenario/scenario.hpp"  // the schedule registry, as a Scenario names its scheme
#include "pipesim/sweep/thread_pool.hpp"

namespace pipesim::search {
namespace {

std::string text(long v) {
  return fmt::format("{}", v);
}

double gib(double bytes) {
  return bytes / (1024.0 * 1024.0 * 1024.0);
}

// The rule of a cost-model refusal ("expert_parallel: ... must divide ..."): the option it
// names, whatever numbers follow.
std::string rule_of(const std::string& refusal) {
  if (refusal.empty()) return {};
  return "the cost model's " + refusal.substr(0, refusal.find(':')) + " rule";
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

// The scheme's shape for this point: pipelines (copies of its stages' weights a worker holds
// at least: Chimera 2f, GEMS and DualPipe 2) and chunks per worker, whether or not the point
// meets the scheme's constraints (it is simulated, and refused there with the reason).
schedules::Shape shape(const std::string& schedule, int stages, int micro_batches,
                       const core::OptionValues& options) {
  try {
    return schedules::shape_of(schedule, {stages, micro_batches, options});
  } catch (const core::ConfigError&) {
    return {};  // an unknown schedule: refused when simulated
  }
}

}  // namespace

std::vector<Parallelism> parallel_layouts(const SearchRequest& request) {
  auto or_one = [](const std::vector<int>& v) { return v.empty() ? std::vector<int>{1} : v; };
  std::vector<Parallelism> out;
  for (const int t : or_one(request.tensor_parallel))
    for (const int c : or_one(request.context_parallel))
      for (const int e : or_one(request.expert_parallel))
        for (const int et : or_one(request.expert_tensor_parallel))
          out.push_back({t, c, e, et});
  return out;
}

std::vector<Candidate> enumerate_candidates(const SearchRequest& request, int jobs) {
  const SearchLimits& limits = request.limits;
  const std::vector<std::string> recompute =
      request.recompute.empty() ? std::vector<std::string>{""} : request.recompute;
  const std::vector<Parallelism> layouts = parallel_layouts(request);
  // The cost model's verdict on each layout for any D and W, asked once per search.
  std::vector<std::string> refused(layouts.size());
  std::vector<std::string> refused_rule(layouts.size());
  std::vector<double> static_per_gpu(layouts.size());
  for (size_t i = 0; i < layouts.size(); ++i) {
    const Parallelism& x = layouts[i];
    const bool divides = x.tensor >= 1 && x.context >= 1 && request.gpus % x.gpus_per_worker() == 0;
    if (!divides) {
      refused_rule[i] = "T·C divides P";
      refused[i] = request.context_parallel.empty()
                       ? fmt::format("T = {} does not divide P = {}", x.tensor, request.gpus)
                       : fmt::format("T·C = {}·{} does not divide P = {}", x.tensor, x.context,
                                     request.gpus);
    } else if (limits.refuse) {
      refused[i] = limits.refuse(x, 0, 0);
      refused_rule[i] = rule_of(refused[i]);
    }
    static_per_gpu[i] = limits.static_bytes_per_gpu ? limits.static_bytes_per_gpu(x)
                                                    : limits.static_bytes / x.tensor;
  }
  // A per (layout, size the ops run at): the same for every schedule, D and recomputation mode.
  std::mutex activations_mutex;
  std::map<std::pair<size_t, int>, double> activations;
  auto activation_bound = [&](size_t layout, int b) {
    if (!limits.activation_bytes_per_gpu) return 0.0;
    const auto key = std::make_pair(layout, b);
    const std::lock_guard lock(activations_mutex);
    auto it = activations.find(key);
    if (it == activations.end()) {
      it = activations.emplace(key, limits.activation_bytes_per_gpu(layouts[layout], b)).first;
    }
    return it->second;
  };
  // Each schedule's candidates on their own, in parallel; then one after another, in order.
  std::vector<std::vector<Candidate>> per_schedule(request.schedules.size());
  sweep::parallel_for(request.schedules.size(), jobs, [&](size_t si) {
    const std::string& schedule = request.schedules[si];
    std::vector<Candidate>& out = per_schedule[si];
    for (size_t li = 0; li < layouts.size(); ++li) {
      const Parallelism& x = layouts[li];
      auto with_layout = [&](Candidate c) {
        c.options["schedule"] = schedule;
        c.options["model"] = request.model;
        c.options["hardware"] = request.hardware;
        if (!request.tensor_parallel.empty()) c.options["tensor_parallel"] = text(x.tensor);
        if (!request.context_parallel.empty()) {
          c.options["context_parallel"] = text(x.context);
          c.options["attention"] = "flash";
        }
        if (!request.expert_parallel.empty()) c.options["expert_parallel"] = text(x.expert);
        if (!request.expert_tensor_parallel.empty())
          c.options["expert_tensor_parallel"] = text(x.expert_tensor);
        return c;
      };
      if (!refused[li].empty()) {
        Candidate c;
        c.pruned = refused[li];
        c.rule = refused_rule[li];
        out.push_back(with_layout(std::move(c)));
        continue;
      }
      const int pipeline_gpus = request.gpus / x.gpus_per_worker();  // D·W
      for (int stages = 1; stages <= pipeline_gpus; ++stages) {
        if (pipeline_gpus % stages != 0) continue;
        const int width = pipeline_gpus / stages;
        auto base = [&] {
          Candidate c;
          c.options = {{"stages", text(stages)}, {"data_parallel", text(width)}};
          return with_layout(std::move(c));
        };
        // Rules that hold for every B: one pruned row for the (schedule, layout, D) triple.
        std::string why, rule;
        if (limits.layers > 0 && stages > limits.layers) {
          why = fmt::format("D = {} > {} layers", stages, limits.layers);
          rule = "D ≤ layers";
        } else if (request.mini_batch % width != 0) {
          why = fmt::format("W = {} does not divide the mini-batch {}", width, request.mini_batch);
          rule = "W divides the mini-batch";
        } else if (limits.refuse) {
          why = limits.refuse(x, stages, width);
          rule = rule_of(why);
        }
        if (!why.empty()) {
          Candidate c = base();
          c.pruned = why;
          c.rule = rule;
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
              c.options["micro_batch_size"] = text(b * variant.micro_batch_divisor);
              c.options["micro_batches"] = text(n);
              if (!mode.empty()) c.options["recompute"] = mode;
              for (const auto& [name, value] : variant.options.items())
                c.options[name] = schedules::scheme_option(name)->format(value);
              c.pruned = variant.pruned;
              if (!c.pruned.empty()) c.rule = "the schedule's own constraints";
              const schedules::Shape sh = shape(schedule, stages, n, variant.options);
              const int virtual_stages = stages * std::max(1, sh.chunks);
              if (c.pruned.empty() && limits.virtual_stages > 0 &&
                  virtual_stages > limits.virtual_stages) {
                c.pruned = fmt::format(
                    "{} virtual stages (D = {}, {} chunks) > {}, the most {} layers "
                    "split into",
                    virtual_stages, stages, sh.chunks, limits.virtual_stages, limits.layers);
                c.rule = "D·chunks ≤ layers";
              }
              const double tensors = static_per_gpu[li] / stages * sh.pipelines +
                                     activation_bound(li, b) / virtual_stages;
              const double lower_bound =
                  tensors + limits.reserved_bytes + limits.fragmentation * tensors;
              if (c.pruned.empty() && limits.capacity > 0 && lower_bound > limits.capacity) {
                c.pruned = fmt::format(
                    "weights, gradients, optimizer state and one micro-batch's activations "
                    "need at least {:.1f} GiB per GPU > {:.1f} GiB",
                    gib(lower_bound), gib(limits.capacity));
                c.pruned_for_memory = true;
                c.memory_bound = lower_bound;
                c.rule = "memory";
              }
              out.push_back(std::move(c));
            }
          }
        }
      }
    }
  });
  std::vector<Candidate> out;
  size_t total = 0;
  for (const auto& part : per_schedule)
    total += part.size();
  out.reserve(total);
  for (auto& part : per_schedule)
    std::move(part.begin(), part.end(), std::back_inserter(out));
  return out;
}

}  // namespace pipesim::search
