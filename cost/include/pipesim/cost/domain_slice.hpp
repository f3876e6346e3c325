#pragma once
// How a job's GPUs land on NVLink domains. A scheduler hands a job whole hosts (a DGX; a 4-GPU
// compute tray of an NVL72 rack), and on rack-scale systems a slice of each rack that tiles
// the job: Megatron-Bridge's Slurm launcher asks for a segment of s trays per rack, s = the job's
// trays when they fit one rack, else the largest divisor of them up to the rack's 18 trays
// (scripts/performance/utils/executors.py, `--segment`), so 256 GB200s run as four 64-GPU
// slices (16 of 18 trays), not three full racks and a partial one. pipesim's ranks are packed
// densely into the job's domains: everything downstream (placement, collectives' tiers,
// expert groups) sees domains of gpus_per_domain GPUs.

#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::cost {

//! The GPUs of the job in one NVLink domain: setup.gpus_per_domain when given (> 0), else the
//! largest slice of whole hosts, at most the domain, that divides the job's hosts and tiles its
//! innermost groups (a worker's t·c GPUs; an expert group of e·e_t GPUs when it fits a domain),
//! else the largest that divides the job's hosts; the whole job when it fits one domain. A
//! profile whose domain is one host (a DGX) always gives its gpus_per_node. Throws
//! core::ConfigError::option("gpus_per_domain") for a value that is not a multiple of the
//! host's GPUs or exceeds the domain.
int gpus_per_domain(const hardware::HardwareProfile& hw, const TrainingSetup& setup, int gpus);

//! The profile as the job sees it: its NVLink domains hold gpus_per_domain GPUs of the job (and
//! their NICs, one per nics_per_node's share of GPUs). `gpus`: the job's, gpu_count().
hardware::HardwareProfile job_hardware(const hardware::HardwareProfile& hw,
                                       const TrainingSetup& setup, int gpus);

//! Where the job's ranks go: D workers of t·c GPUs, W replicas, on job_hardware's domains.
hardware::Placement job_placement(const hardware::HardwareProfile& job_hw,
                                  const TrainingSetup& setup, int workers);

}  // namespace pipesim::cost
