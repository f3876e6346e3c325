#pragma once
// The gradient synchronisation of one stage (cost/README.md, "Communication and memory"): over
// its holders in one replica × W replicas, n = the stage's parameters per GPU × gradient bytes,
// by the profile's algorithm: an all-reduce of the gradients, or with the distributed optimizer
// (ZeRO-1) a reduce-scatter of the gradients + an all-gather of the updated parameters. Deeper
// sharding moves the reduce-scatter (gradients) and the gather (params) into the compute ops
// (sharded_data_parallel.hpp), which price them with the same two calls.

#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/collectives.hpp"

namespace pipesim::cost {

//! The sync of a stage of `params` parameters per GPU over `ranks` GPUs on `nodes` nodes. With
//! gradient buckets (setup.grad_bucket_bytes) it is k equal calls: every formula is α terms +
//! bytes-linear terms, so k calls of G/k bytes cost k times the latency and the same bandwidth.
hardware::CommTime gradient_sync_time(const hardware::HardwareProfile& hw,
                                      const TrainingSetup& setup, const ParamBytes& bytes,
                                      double params, int ranks, int nodes);

//! One call of the gradients' reduction for `params` parameters: an all-reduce, or with any
//! data-parallel sharding a reduce-scatter.
hardware::CommTime gradient_reduce_time(const hardware::HardwareProfile& hw,
                                        const TrainingSetup& setup, const ParamBytes& bytes,
                                        double params, int ranks, int nodes);

//! One call of the updated parameters' all-gather (distributed optimizer) for `params`.
hardware::CommTime param_gather_time(const hardware::HardwareProfile& hw, const ParamBytes& bytes,
                                     double params, int ranks, int nodes);

//! How many buckets a stage of `params` parameters per GPU splits its gradients into:
//! ⌈G/grad_bucket_bytes⌉ when given; otherwise, with overlap_grad_reduce, Megatron-Core's
//! default bucket of max(4·10⁷, 10⁶·d) parameters, d the data-parallel ranks the gradients are
//! reduced over (DistributedDataParallelConfig.bucket_size, megatron/core/distributed/
//! distributed_data_parallel_config.py); without either, one.
int gradient_buckets(const TrainingSetup& setup, const ParamBytes& bytes, double params);

}  // namespace pipesim::cost
