#include "pipesim/models/partition.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

std::vector<StageLayers> from_counts(const std::vector<int>& counts) {
  std::vector<StageLayers> out(counts.size());
  int first = 0;
  for (size_t s = 0; s < counts.size(); ++s) {
    out[s] = {first, counts[s], s == 0, s + 1 == counts.size()};
    first += counts[s];
  }
  return out;
}

// Balanced: layers are identical, so stage s with n layers costs n·c + extra_s (extra_s: the
// head's F+I+W FLOPs on the last stage). Minimise the largest stage cost (the pipeline's
// bottleneck) by bisection on that bound, then trim surplus layers from the costliest stages.
std::vector<int> balanced_counts(const ModelSpec& m, int stages, int b) {
  const int layers = m.layers;
  const LayerConfig cfg{b};
  const double c =
      (kernel_flops(layer_forward(m, cfg)) + kernel_flops(layer_backward_input(m, cfg)) +
       kernel_flops(layer_backward_weight(m, cfg)))
          .value;
  std::vector<double> extra(static_cast<size_t>(stages), 0.0);
  extra.back() += (kernel_flops(head_forward(m, cfg)) + kernel_flops(head_backward_input(m, cfg)) +
                   kernel_flops(head_backward_weight(m, cfg)))
                      .value;
  auto counts_for = [&](double bound) {
    std::vector<int> n(static_cast<size_t>(stages));
    for (size_t s = 0; s < n.size(); ++s) {
      const double fit = (bound - extra[s]) / c;
      n[s] = std::clamp(static_cast<int>(fit + 1e-9), 1, layers);
    }
    return n;
  };
  auto total = [](const std::vector<int>& n) {
    long t = 0;
    for (int x : n)
      t += x;
    return t;
  };
  double lo = 0, hi = (layers + 1) * c + *std::max_element(extra.begin(), extra.end());
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (total(counts_for(mid)) >= layers ? hi : lo) = mid;
  }
  std::vector<int> n = counts_for(hi);
  for (long surplus = total(n) - layers; surplus > 0; --surplus) {
    size_t worst = n.size();
    for (size_t s = 0; s < n.size(); ++s) {
      if (n[s] > 1 && (worst == n.size() || n[s] * c + extra[s] > n[worst] * c + extra[worst])) {
        worst = s;
      }
    }
    --n[worst];
  }
  return n;
}

// The Account* modes give the embedding and/or the loss a slot each, so up to L + 2 stages can
// be filled.
bool embedding_slot(PartitionMode mode) {
  return mode == PartitionMode::AccountEnds || mode == PartitionMode::AccountEmbedding;
}

bool loss_slot(PartitionMode mode) {
  return mode == PartitionMode::AccountEnds || mode == PartitionMode::AccountLoss;
}

}  // namespace

int max_partition_stages(const ModelSpec& m, PartitionMode mode) {
  return m.layers + (embedding_slot(mode) ? 1 : 0) + (loss_slot(mode) ? 1 : 0);
}

std::vector<StageLayers> partition_layers(const ModelSpec& m, int stages, PartitionMode mode,
                                          int micro_batch_size) {
  const bool embedding = embedding_slot(mode);
  const bool loss = loss_slot(mode);
  const int ends = max_partition_stages(m, mode) - m.layers;
  if (stages > m.layers + ends) {
    throw core::ConfigError::option(
        "stages",
        fmt::format("{} pipeline stages exceed the {} layers of model {} (each stage needs a "
                    "layer{})",
                    stages, m.layers, m.name,
                    ends == 2 ? "; the embedding and the loss count as one each"
                    : ends == 1
                        ? (embedding ? "; the embedding counts as one" : "; the loss counts as one")
                        : ""));
  }
  if (mode == PartitionMode::Balanced) {
    return from_counts(balanced_counts(m, stages, micro_batch_size));
  }
  const long slots = m.layers + ends;
  std::vector<int> counts(static_cast<size_t>(stages));
  for (int s = 0; s < stages; ++s) {
    const long first = static_cast<long>(s) * slots / stages;
    const long next = static_cast<long>(s + 1) * slots / stages;
    counts[static_cast<size_t>(s)] = static_cast<int>(next - first);
  }
  // An end stage gives its first (last) slot to the embedding (loss).
  if (embedding) --counts.front();
  if (loss) --counts.back();
  return from_counts(counts);
}

}  // namespace pipesim::models
