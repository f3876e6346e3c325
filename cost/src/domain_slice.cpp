#include "pipesim/cost/domain_slice.hpp"

#include <fmt/format.h>

#include "pipesim/core/config_error.hpp"

namespace pipesim::cost {

int gpus_per_domain(const hardware::HardwareProfile& hw, const TrainingSetup& setup, int gpus) {
  const int domain = hw.gpus_per_node;
  const int host = hw.host_gpus();
  if (setup.gpus_per_domain > 0) {
    const int k = setup.gpus_per_domain;
    if (k > domain || k % host != 0) {
      throw core::ConfigError::option(
          "gpus_per_domain",
          fmt::format("must be a multiple of {}'s {} GPUs per host, at most its {}-GPU NVLink "
                      "domain, got {}",
                      hw.name, host, domain, k));
    }
    return k;
  }
  if (host == domain || gpus <= domain) return domain;
  // Whole hosts: a job of a fraction of a host counts as one.
  const int hosts = (gpus + host - 1) / host;
  const int worker = setup.tensor_parallel * setup.context_parallel;
  const int experts = setup.expert_parallel * setup.expert_tensor_parallel;
  const auto tiles = [&](int k) {
    return k % worker == 0 && (experts > domain || k % experts == 0);
  };
  int fallback = 0;
  for (int s = domain / host; s >= 1; --s) {
    if (hosts % s != 0) continue;
    if (tiles(s * host)) return s * host;
    if (fallback == 0) fallback = s * host;
  }
  return fallback;
}

hardware::HardwareProfile job_hardware(const hardware::HardwareProfile& hw,
                                       const TrainingSetup& setup, int gpus) {
  const int k = gpus_per_domain(hw, setup, gpus);
  if (k == hw.gpus_per_node) return hw;
  hardware::HardwareProfile job = hw;
  // NICs serve gpus_per_node / nics_per_node GPUs each; a slice of whole hosts keeps that ratio
  // whenever a host has at least one NIC.
  const int gpus_per_nic = hw.gpus_per_node / hw.nics_per_node;
  job.gpus_per_node = k;
  job.nics_per_node = k % gpus_per_nic == 0 ? k / gpus_per_nic : 1;
  return job;
}

hardware::Placement job_placement(const hardware::HardwareProfile& job_hw,
                                  const TrainingSetup& setup, int workers) {
  return {workers,         setup.data_parallel,   job_hw.gpus_per_node,  job_hw.nics_per_node,
          setup.placement, setup.tensor_parallel, setup.context_parallel};
}

}  // namespace pipesim::cost
