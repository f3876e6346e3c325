#pragma once
// How a model is trained, besides the schedule: micro-batch, data/tensor parallelism,
// precision, attention kernel, recomputation, optimizer sharding. GPUs = t · D · W (D workers
// per pipeline replica; for Chimera W counts pipeline pairs, as the schedule's workers do).

#include <optional>
#include <string>

#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {

struct TrainingSetup {
  int micro_batch_size = 1;  //!< B
  int data_parallel = 1;     //!< W pipeline replicas
  models::Recompute recompute = models::Recompute::None;
  models::PartitionMode partition = models::PartitionMode::Uniform;
  //! A hand-written layout of the virtual stages (models/layout.hpp); when set it replaces
  //! `partition`, which must then stay Uniform.
  std::string layout;
  hardware::PlacementMode placement = hardware::PlacementMode::PipelineMajor;
  //! Static bytes per parameter (weights + gradients + optimizer); 0 = derived from the
  //! precision and the optimizer (static_memory.hpp).
  double bytes_per_param = 0.0;
  int tensor_parallel = 1;         //!< t GPUs per worker (Megatron tensor parallelism)
  bool sequence_parallel = false;  //!< Korthikanti et al. §4.2.2; needs t > 1
  //! The TP collectives overlap the GEMMs next to them (Megatron-Core --tp-comm-overlap,
  //! Transformer Engine userbuffers; needs sequence parallelism): each op's Collective task
  //! runs beside the op instead of after it, max(kernels, collectives) when nothing contends.
  bool tp_comm_overlap = false;
  bool distributed_optimizer = false;  //!< ZeRO-1: optimizer state sharded over W
  //! Gradient buckets of this many bytes (PyTorch DDP's bucket_cap_mb; 0 = one flat buffer
  //! per stage): each bucket is its own collective call and pays the algorithm's latency, so a
  //! stage's sync costs ⌈G/bucket⌉ latencies and the same bandwidth term.
  double grad_bucket_bytes = 0.0;
  std::optional<models::Precision> precision;  //!< overrides the model file's precision
  models::Attention attention = models::Attention::Standard;
  int vocabulary = 0;  //!< overrides the model file's vocabulary V when > 0
  int sequence = 0;    //!< overrides the model file's sequence length s when > 0
};

//! The model as trained: precision, vocabulary and sequence replaced by the setup's overrides.
models::ModelSpec trained_model(const models::ModelSpec& m, const TrainingSetup& s);

//! GPUs of the whole run: t · D · W, with `workers` the D workers of one pipeline replica (for
//! Chimera W counts pipeline pairs, as the schedule's workers do). The one place it is counted:
//! TrainingCostModel::gpus, scenario::PerfResult::gpus, which the reports, MFU and the
//! validation suite read.
int gpu_count(const TrainingSetup& s, int workers);

//! The per-GPU layer configuration of the setup.
models::LayerConfig layer_config(const TrainingSetup& s);

//! Checks the combination (throws core::ConfigError("command line", field, problem)):
//! t ≥ 1 dividing heads, key/value heads and the FFN size (Megatron's column/row split),
//! t ≤ gpus_per_node and dividing it (the group stays in one NVLink domain); sequence
//! parallelism needs t > 1 and t dividing the sequence; a sequence fits the model's learned
//! position table; the profile has the precision's peak and GEMM curve.
void validate_setup(const models::ModelSpec& trained, const hardware::HardwareProfile& hw,
                    const TrainingSetup& s);

}  // namespace pipesim::cost
