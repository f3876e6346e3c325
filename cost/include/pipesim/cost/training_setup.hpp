#pragma once
// How a model is trained, besides the schedule: micro-batch, data/tensor parallelism,
// precision, attention kernel, recomputation, optimizer sharding. GPUs = t · c · D · W (D workers
// per pipeline replica; for Chimera W counts pipeline pairs, as the schedule's workers do): a
// worker is a group of t·c GPUs, t tensor-parallel × c context-parallel.

#include <optional>
#include <string>

#include "pipesim/cost/static_memory.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {

//! Megatron-Core's token dispatchers: its `alltoall` (NCCL all-to-all of every routed copy), or
//! `flex` with the DeepEP or HybridEP backend (cost/expert_parallel.hpp).
enum class MoeDispatcher { AllToAll, DeepEP, HybridEP };
//! Megatron-Core's --moe-token-dispatcher-type: its alltoall dispatcher, or flex (whose backend
//! MoeDispatcher names; DeepEP unless one is given); allgather is not modelled.
enum class MoeTokenDispatcher { AllToAll, Flex, AllGather };
//! What the data-parallel ranks shard (ZeRO stages 1-3, Rajbhandari et al. SC'20 §5; FSDP):
//! nothing, the optimizer state (ZeRO-1, Megatron's distributed optimizer), the optimizer state
//! and gradients (ZeRO-2, Megatron-FSDP optim_grads), or those and the parameters (ZeRO-3,
//! torch FSDP2's fully_shard, Megatron-FSDP optim_grads_params). Ordered: each level shards
//! what the one before does and more.
enum class DataParallelSharding { None, Optimizer, Gradients, Params };

struct TrainingSetup {
  int micro_batch_size = 1;  //!< B
  int data_parallel = 1;     //!< W pipeline replicas
  models::Recompute recompute = models::Recompute::None;
  //! What selective recomputation re-runs: Megatron-Core's --recompute-modules, comma-separated
  //! (models::RecomputeModules); the default is the attention core.
  std::string recompute_modules = "core_attn";
  //! Activations stored for the backward in the low-precision recipe's format
  //! (models::LayerConfig::quantized_activations; DeepSeek-V3 §3.3.3).
  bool quantized_activations = false;
  models::PartitionMode partition = models::PartitionMode::Uniform;
  //! A hand-written layout of the virtual stages (models/layout.hpp); when set it replaces
  //! `partition`, which must then stay Uniform.
  std::string layout;
  //! Megatron-Core's rank order (tp-cp-ep-dp-pp) unless a run says otherwise.
  hardware::PlacementMode placement = hardware::PlacementMode::DataMajor;
  //! GPUs of the job in one NVLink domain (domain_slice.hpp); 0: the slice a scheduler gives.
  int gpus_per_domain = 0;
  //! Static bytes per parameter (weights + gradients + optimizer); 0 = derived from the
  //! precision and the optimizer (static_memory.hpp).
  double bytes_per_param = 0.0;
  int tensor_parallel = 1;         //!< t GPUs per worker (Megatron tensor parallelism)
  bool sequence_parallel = false;  //!< Korthikanti et al. §4.2.2; needs t > 1
  //! c GPUs per worker each holding 1/c of every sequence (Megatron-Core context parallelism,
  //! ring attention; cost/context_parallel.hpp). Needs flash attention.
  int context_parallel = 1;
  //! The TP collectives overlap the GEMMs next to them (Megatron-Core --tp-comm-overlap,
  //! Transformer Engine userbuffers; needs sequence parallelism): each op's Collective task
  //! runs beside the op instead of after it, max(kernels, collectives) when nothing contends.
  bool tp_comm_overlap = false;
  bool distributed_optimizer = false;  //!< ZeRO-1: optimizer state sharded over W
  //! What the data-parallel ranks shard; unset: what distributed_optimizer says (Optimizer when
  //! on, else None). resolved_setup fills it and sets distributed_optimizer to "at least
  //! Optimizer" (sharding_of).
  std::optional<DataParallelSharding> data_parallel_sharding;
  //! Megatron's fp8-param-gather and grad-reduce-in-bf16 (static_memory.hpp, ParamStorage).
  bool fp8_param_gather = false;
  bool grad_reduce_in_bf16 = false;
  //! Gradient buckets of this many bytes (PyTorch DDP's bucket_cap_mb; 0 = one flat buffer
  //! per stage): each bucket is its own collective call and pays the algorithm's latency, so a
  //! stage's sync costs ⌈G/bucket⌉ latencies and the same bandwidth term.
  double grad_bucket_bytes = 0.0;
  //! Megatron-Core's --overlap-grad-reduce: each gradient bucket's all-reduce (reduce-scatter
  //! with the distributed optimizer) starts as soon as the last backward has computed it
  //! (sim::GradBuckets; buckets by grad_bucket_bytes, else Megatron's default size).
  bool overlap_grad_reduce = false;
  //! Megatron-Core's --overlap-param-gather: the updated parameters' all-gather, bucket by
  //! bucket, overlaps the stage's first forward (needs distributed_optimizer and
  //! overlap_grad_reduce, as Megatron asserts).
  bool overlap_param_gather = false;
  //! The framework's autograd keeps what PyTorch <= 1.10 eager mode keeps (models::LayerConfig::
  //! eager_autograd): softmax and log_softmax inputs, the Python tanh GeLU's intermediates.
  bool eager_autograd = false;
  //! The loss runs Megatron-LM's unfused vocab_parallel_cross_entropy (models::LayerConfig::
  //! unfused_cross_entropy).
  bool unfused_cross_entropy = false;
  //! Each micro-batch's weight gradients are added into the gradient buffer by a pass of their
  //! own in the backward (Megatron-LM's 2021 local DDP hook `main_grad.add_(grad)`, the buffer
  //! in the gradients' dtype): read the gradient and the buffer, write the buffer, per
  //! parameter. Off: accumulated by the weight-gradient GEMM (gradient accumulation fusion).
  bool unfused_grad_accumulation = false;
  //! Recomputation restores a whole stage at once (true: the PipeDream-derived runtimes of the
  //! Chimera paper rerun the stage module's forward before its backward) or one layer at a time
  //! (false: Megatron-LM's per-layer checkpoints).
  bool recompute_stage = false;
  //! A weight-stashing schedule's versions are clones beside the module's working weights
  //! (the PipeDream runtime's OptimizerWithStashing[AndAggregation] clones its queue of
  //! versions from the module's state_dict), so each stage holds one weight copy more than the
  //! schedule's weight_versions. No effect on schedules that keep one version.
  bool stash_working_copy = false;
  std::optional<models::Precision> precision;  //!< overrides the model file's precision
  //! Overrides the model file's attention kernels (ModelSpec::attention) when set.
  std::optional<models::Attention> attention;
  int vocabulary = 0;  //!< overrides the model file's vocabulary V when > 0
  int sequence = 0;    //!< overrides the model file's sequence length s when > 0
  // Mixture-of-experts layers (expert_parallel.hpp): Megatron-Core's MoE parallel folding. The
  // expert layers run e_t × e × (T·C·W / (e·e_t)) over the T·C·W GPUs a stage's attention uses.
  int expert_parallel = 1;         //!< e: routed experts spread over e GPUs (E/e on each)
  int expert_tensor_parallel = 1;  //!< e_t: each expert's FFN split over e_t GPUs
  //! Tokens the busiest expert receives over the mean (>= 1; routing imbalance): the busiest
  //! rank sets the time of the grouped GEMMs and of the all-to-all.
  double moe_imbalance = 1.0;
  //! Megatron-Core's 1F1B all-to-all overlap (--overlap-moe-expert-parallel-comm) and
  //! DualPipe's F&B chunk: a micro-batch's dispatch and combine hidden behind another
  //! micro-batch's compute. Modelled as each op's Collective task running beside the op
  //! (max(kernels, collectives) uncontended, the ideal overlap), with its flows still loading
  //! the links; with t > 1 it needs tp_comm_overlap (one Collective task per op).
  bool moe_overlap = false;
  //! How the tokens travel to and from the experts (expert_parallel.hpp, TokenExchange).
  MoeDispatcher moe_dispatcher = MoeDispatcher::AllToAll;
  //! Megatron's spelling of the same choice, when given (dispatcher_of).
  std::optional<MoeTokenDispatcher> moe_token_dispatcher_type;
  //! The local experts' GEMMs grouped in one kernel each (Megatron-Core's --moe-grouped-gemm,
  //! GroupedMLP) or run expert by expert (SequentialMLP, Megatron-Core's default).
  bool moe_grouped_gemm = true;
  //! What runs as CUDA graphs (host_issue.hpp, parse_cuda_graph_scopes): none, partial, full
  //! or Megatron-Core's cuda_graph_scope names.
  std::string cuda_graphs = "none";
  //! Activation offload (PipeOffload, Wan et al. 2025, arXiv 2503.01328): the fraction of each
  //! micro-batch's stored activations copied to host memory after its forward and back before
  //! its backward, over the profile's links.host_link, [0, 1]; 0 = off.
  double offload = 0.0;
  //! Offload only what is not reused soon (sim::OffloadOps::selective): an activation whose
  //! backward is the worker's next backward after its forward stays resident.
  bool offload_selective = false;
};

//! The model as trained: precision, attention, vocabulary and sequence replaced by the setup's
//! overrides. Throws core::ConfigError::option("sequence") when neither the model nor the setup
//! fixes the sequence (a Hugging Face config.json without seq_length).
models::ModelSpec trained_model(const models::ModelSpec& m, const TrainingSetup& s);

//! The dispatcher the setup runs: moe_dispatcher, or with Megatron's type alltoall the
//! alltoall one and with flex its backend (DeepEP, Megatron's default, when none is given).
//! Throws core::ConfigError::option("moe_token_dispatcher_type") for allgather (not modelled)
//! and for alltoall beside a flex backend.
MoeDispatcher dispatcher_of(const TrainingSetup& s);

//! The sharding the setup runs: data_parallel_sharding, or without it Optimizer when
//! distributed_optimizer is on, else None. Throws core::ConfigError::option(
//! "data_parallel_sharding") for none beside distributed_optimizer on (a contradiction); a
//! deeper level with the switch on is consistent (every level shards the optimizer state).
DataParallelSharding sharding_of(const TrainingSetup& s);

//! `s` with the attention kernels resolved (the setup's override, else the model's default),
//! the dispatcher (dispatcher_of) and the data-parallel sharding (sharding_of; the
//! distributed_optimizer switch on for every level that shards the optimizer state).
TrainingSetup resolved_setup(TrainingSetup s, const models::ModelSpec& m);

//! The model one context-parallel rank computes: the sequence divided by c (attention still
//! reads all c·(s/c) keys through LayerConfig::context_parallel). The model itself for c = 1.
models::ModelSpec rank_model(const models::ModelSpec& trained, const TrainingSetup& s);

//! GPUs of the whole run: t · c · D · W, with `workers` the D workers of one pipeline replica (for
//! Chimera W counts pipeline pairs, as the schedule's workers do). The one place it is counted:
//! TrainingCostModel::gpus, scenario::PerfResult::gpus, which the reports, MFU and the
//! validation suite read.
int gpu_count(const TrainingSetup& s, int workers);

//! The bytes per parameter of the setup: the precision's table, the explicit bytes_per_param,
//! and Megatron's storage options (static_memory.hpp).
ParamBytes setup_param_bytes(models::Precision p, const TrainingSetup& s);

//! The per-GPU layer configuration of the setup (attention unset: standard; resolved_setup
//! fills it from the model).
models::LayerConfig layer_config(const TrainingSetup& s);

//! Checks the combination (throws core::ConfigError("command line", field, problem)):
//! the expert options apply to mixture-of-experts models only (models::validate_expert_layout:
//! e divides the experts, e_t the expert FFN size; the imbalance in range);
//! t ≥ 1 dividing heads, key/value heads and the FFN size (Megatron's column/row split),
//! t ≤ gpus_per_node and dividing it (the group stays in one NVLink domain); c ≥ 1 with c
//! (2c for a causal model: two chunks per rank) dividing the sequence, flash attention when
//! c > 1, and the t·c group placeable (t·c dividing gpus_per_node, or a multiple of it);
//! sequence parallelism needs t > 1 and t dividing the rank's s/c; a sequence fits the model's
//! learned position table; the profile has the precision's peak and GEMM curve.
void validate_setup(const models::ModelSpec& trained, const hardware::HardwareProfile& hw,
                    const TrainingSetup& s);

}  // namespace pipesim::cost
