#include "pipesim/sim/max_min.hpp"

#include <algorithm>

#include "pipesim/core/assert.hpp"

namespace pipesim::sim {

MaxMinSolver::MaxMinSolver(int resources)
    : MaxMinSolver(std::vector<double>(static_cast<size_t>(std::max(resources, 0)), 1.0)) {}

MaxMinSolver::MaxMinSolver(std::vector<double> capacities) : capacity_(std::move(capacities)) {
  saturated_.reserve(capacity_.size());
  for (double c : capacity_) {
    PIPESIM_ASSERT(c > 0.0, "a resource's capacity must be positive");
    saturated_.push_back(kSaturated * c);
  }
  load_.assign(capacity_.size(), 0.0);
  residual_.assign(capacity_.size(), 0.0);
  touched_mark_.assign(capacity_.size(), 0);
}

void MaxMinSolver::clear() {
  for (size_t r : touched_)
    touched_mark_[r] = 0;
  touched_.clear();
  flows_.clear();
}

void MaxMinSolver::add(std::span<const ResourceUse> uses) {
  for (const ResourceUse& u : uses) {
    PIPESIM_ASSERT(u.resource >= 0 && u.resource < num_resources() && u.share > 0.0,
                   "bad resource use");
    const auto r = static_cast<size_t>(u.resource);
    if (!touched_mark_[r]) {
      touched_mark_[r] = 1;
      touched_.push_back(r);
    }
  }
  flows_.push_back(uses);
}

bool MaxMinSolver::solve(std::vector<double>& rates) {
  const size_t n = flows_.size();
  // At full speed, is any resource loaded beyond its capacity? If not, the first filling step
  // (min over resources of capacity / load ≥ 1) already reaches 1 for every flow.
  for (size_t r : touched_)
    load_[r] = 0.0;
  for (const auto& uses : flows_) {
    for (const ResourceUse& u : uses)
      load_[static_cast<size_t>(u.resource)] += u.share;
  }
  bool fits = true;
  for (size_t r : touched_)
    fits = fits && load_[r] <= capacity_[r];
  if (fits) {
    rates.assign(n, 1.0);
    return true;
  }
  rates.assign(n, 0.0);
  frozen_.assign(n, 0);
  for (size_t r : touched_)
    residual_[r] = capacity_[r];
  double level = 0.0;
  size_t unfrozen = n;
  while (unfrozen > 0) {
    // The load the rising flows put on each resource per unit of level.
    for (size_t r : touched_)
      load_[r] = 0.0;
    for (size_t i = 0; i < n; ++i) {
      if (frozen_[i]) continue;
      for (const ResourceUse& u : flows_[i])
        load_[static_cast<size_t>(u.resource)] += u.share;
    }
    // Rise until the first resource saturates, or to full speed.
    double step = 1.0 - level;
    for (size_t r : touched_) {
      if (load_[r] > 0.0) step = std::min(step, residual_[r] / load_[r]);
    }
    level += step;
    for (size_t r : touched_)
      residual_[r] -= load_[r] * step;
    const bool full = level >= 1.0 - kSaturated;
    for (size_t i = 0; i < n; ++i) {
      if (frozen_[i]) continue;
      rates[i] = level;
      bool freeze = full;
      for (const ResourceUse& u : flows_[i]) {
        const auto r = static_cast<size_t>(u.resource);
        freeze = freeze || residual_[r] <= saturated_[r];
      }
      if (freeze) {
        frozen_[i] = 1;
        --unfrozen;
      }
    }
  }
  return false;
}

std::vector<double> max_min_rates(const std::vector<std::vector<ResourceUse>>& flows,
                                  std::vector<double> capacities) {
  MaxMinSolver solver(std::move(capacities));
  for (const auto& uses : flows)
    solver.add(uses);
  std::vector<double> rates;
  solver.solve(rates);
  return rates;
}

}  // namespace pipesim::sim
