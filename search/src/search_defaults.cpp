#include "pipesim/search/search_defaults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "pipesim/scenario/options.hpp"

namespace pipesim::search {
namespace {

constexpr int kMaxContext = 1024;  // the option's range

// The largest D dividing `pipeline_gpus` and at most `layers` (every stage a layer at least).
int most_stages(int pipeline_gpus, int layers) {
  for (int d = std::min(pipeline_gpus, layers > 0 ? layers : pipeline_gpus); d > 1; --d) {
    if (pipeline_gpus % d == 0) return d;
  }
  return 1;
}

// The least bytes per GPU any accepted layout of the request needs at context degree C, by
// the enumeration's own bound (search_space.hpp) at its most favourable point: B = 1, the
// most stages, one pipeline, one chunk; +inf when no layout is accepted.
double least_need(const SearchRequest& request, int context) {
  const SearchLimits& l = request.limits;
  SearchRequest r = request;
  r.context_parallel = {context};
  double least = std::numeric_limits<double>::infinity();
  for (const Parallelism& x : parallel_layouts(r)) {
    if (request.gpus % x.gpus_per_worker() != 0) continue;
    if (l.refuse && !l.refuse(x, 0, 0).empty()) continue;
    const int d = most_stages(request.gpus / x.gpus_per_worker(), l.layers);
    const double statics =
        l.static_bytes_per_gpu ? l.static_bytes_per_gpu(x) : l.static_bytes / x.tensor;
    const double activations = l.activation_bytes_per_gpu ? l.activation_bytes_per_gpu(x, 1) : 0;
    const double tensors = (statics + activations) / d;
    least = std::min(least, tensors + l.reserved_bytes + l.fragmentation * tensors);
  }
  return least;
}

bool accepted(const SearchRequest& request, int context) {
  return context <= kMaxContext && request.gpus % context == 0 &&
         std::isfinite(least_need(request, context));
}

}  // namespace

std::vector<int> default_expert_parallel(int experts, int gpus) {
  std::vector<int> out;
  for (int e = 1; e <= experts && e <= gpus; ++e) {
    if (experts % e == 0 && gpus % e == 0) out.push_back(e);
  }
  if (out.size() <= 1) out.clear();
  return out;
}

std::vector<int> default_expert_tensor_parallel(int expert_ffn, int gpus_per_node) {
  std::vector<int> out;
  for (int et = 1; et <= gpus_per_node && expert_ffn > 0; et *= 2) {
    if (expert_ffn % et == 0 && gpus_per_node % et == 0) out.push_back(et);
  }
  if (out.size() <= 1) out.clear();
  return out;
}

ContextChoice least_context_parallel(const SearchRequest& request) {
  ContextChoice choice;
  choice.need_at_one = least_need(request, 1);
  const double capacity = request.limits.capacity;
  for (int c = 1; c <= kMaxContext && c <= request.gpus; c *= 2) {
    if (!accepted(request, c)) continue;
    if (capacity <= 0 || least_need(request, c) <= capacity) {
      choice.context = c;
      return choice;
    }
  }
  return choice;
}

int next_context_parallel(const SearchRequest& request, int context) {
  for (int c = std::max(1, context) * 2; c <= kMaxContext && c <= request.gpus; c *= 2) {
    if (accepted(request, c)) return c;
  }
  return 0;
}

std::vector<SearchKnob> refinement_knobs(const SearchRequest& request) {
  std::vector<SearchKnob> knobs;
  for (const SearchKnob& k : request.limits.knobs) {
    if (!request.fixed.contains(k.option)) knobs.push_back(k);
  }
  const SearchLimits& l = request.limits;
  if (request.expert_tensor_parallel.empty()) {
    SearchKnob et{"expert_tensor_parallel", {}};
    for (const int v : default_expert_tensor_parallel(l.expert_ffn, l.gpus_per_node))
      et.values.push_back(fmt::format("{}", v));
    if (!et.values.empty()) knobs.push_back(std::move(et));
  }
  // The modes were tried in the first pass; a secondary knob can move which one fits best.
  if (request.recompute.size() > 1) knobs.push_back({"recompute", request.recompute});
  return knobs;
}

}  // namespace pipesim::search
