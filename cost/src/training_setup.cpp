#include "pipesim/cost/training_setup.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/host_issue.hpp"

namespace pipesim::cost {
namespace {

[[noreturn]] void fail(const std::string& field, const std::string& problem) {
  throw core::ConfigError::option(field, problem);
}

// Context parallelism (Megatron-Core): c divides the sequence into 2c chunks for a causal model
// (rank i holds chunks i and 2c−1−i, so every rank does the same attention work) or c chunks;
// only Transformer Engine's fused attention implements the ring, hence flash attention; the
// t·c GPUs of a worker are placed innermost (t, then c), so they must tile the NVLink domain.
void validate_context_parallel(const models::ModelSpec& m, const hardware::HardwareProfile& hw,
                               const TrainingSetup& s) {
  const int c = s.context_parallel;
  if (c < 1) fail("context_parallel", fmt::format("must be >= 1, got {}", c));
  if (c == 1) return;
  const int chunks = m.causal ? 2 * c : c;
  if (m.sequence % chunks != 0) {
    fail("context_parallel",
         fmt::format("{} must split the sequence {} of model {} into {} equal chunks ({}), "
                     "which it does not; choose c with {} dividing sequence",
                     c, m.sequence, m.name, chunks,
                     m.causal ? "two per rank, for causal load balancing" : "one per rank",
                     m.causal ? "2c" : "c"));
  }
  if (s.attention != models::Attention::Flash) {
    fail("context_parallel",
         fmt::format("{} needs attention = flash (Megatron-Core runs the context-parallel ring "
                     "in Transformer Engine's fused attention only)",
                     c));
  }
  const int group = s.tensor_parallel * c;
  const int domain = hw.gpus_per_node;
  if (domain % group != 0 && group % domain != 0) {
    fail("context_parallel",
         fmt::format("tensor_parallel · context_parallel = {} · {} = {} GPUs per worker must "
                     "divide the {} GPUs per node of profile {} or be a multiple of it (the "
                     "groups are placed innermost, tensor then context, and may not straddle "
                     "a node)",
                     s.tensor_parallel, c, group, domain, hw.name));
  }
}

}  // namespace

models::ModelSpec trained_model(const models::ModelSpec& m, const TrainingSetup& s) {
  models::ModelSpec out = m;
  if (s.precision) out.precision = *s.precision;
  if (s.attention) out.attention = *s.attention;
  if (s.vocabulary > 0) out.vocabulary = s.vocabulary;
  if (s.sequence > 0) out.sequence = s.sequence;
  if (out.sequence <= 0) {
    throw core::ConfigError::option(
        "sequence",
        fmt::format("required for model {}: its file ({}) gives no training sequence length, "
                    "only the context its positions serve ({} tokens); give the sequence to "
                    "train at, an integer in [1, {}] (e.g. 4096)",
                    m.name, m.source.empty() ? "no file" : m.source, m.context, 1 << 24));
  }
  return out;
}

MoeDispatcher dispatcher_of(const TrainingSetup& s) {
  if (s.moe_token_dispatcher_type == MoeTokenDispatcher::AllGather) {
    fail("moe_token_dispatcher_type",
         "allgather (Megatron-Core's all-gather dispatcher) is not modelled; use alltoall or "
         "flex");
  }
  if (s.moe_token_dispatcher_type == MoeTokenDispatcher::AllToAll) {
    if (s.moe_dispatcher != MoeDispatcher::AllToAll) {
      fail("moe_token_dispatcher_type",
           "alltoall contradicts moe_dispatcher (the flex dispatcher's backend) deepep or "
           "hybridep; give one of them");
    }
    return MoeDispatcher::AllToAll;
  }
  if (s.moe_token_dispatcher_type == MoeTokenDispatcher::Flex &&
      s.moe_dispatcher == MoeDispatcher::AllToAll) {
    return MoeDispatcher::DeepEP;
  }
  return s.moe_dispatcher;
}

DataParallelSharding sharding_of(const TrainingSetup& s) {
  if (!s.data_parallel_sharding) {
    return s.distributed_optimizer ? DataParallelSharding::Optimizer : DataParallelSharding::None;
  }
  if (*s.data_parallel_sharding == DataParallelSharding::None && s.distributed_optimizer) {
    fail("data_parallel_sharding",
         "none contradicts distributed_optimizer on (which shards the optimizer state); give "
         "one of them, or data_parallel_sharding optimizer, gradients or params");
  }
  return *s.data_parallel_sharding;
}

TrainingSetup resolved_setup(TrainingSetup s, const models::ModelSpec& m) {
  if (!s.attention) s.attention = m.attention;
  s.moe_dispatcher = dispatcher_of(s);
  s.moe_token_dispatcher_type.reset();
  s.data_parallel_sharding = sharding_of(s);
  s.distributed_optimizer = *s.data_parallel_sharding != DataParallelSharding::None;
  return s;
}

models::ModelSpec rank_model(const models::ModelSpec& trained, const TrainingSetup& s) {
  models::ModelSpec out = trained;
  if (s.context_parallel > 1) out.sequence /= s.context_parallel;
  return out;
}

ParamBytes setup_param_bytes(models::Precision p, const TrainingSetup& s) {
  return param_bytes(p, s.bytes_per_param, {s.fp8_param_gather, s.grad_reduce_in_bf16});
}

int gpu_count(const TrainingSetup& s, int workers) {
  return s.tensor_parallel * s.context_parallel * workers * s.data_parallel;
}

models::LayerConfig layer_config(const TrainingSetup& s) {
  models::LayerConfig c{s.micro_batch_size, s.tensor_parallel, s.sequence_parallel,
                        s.attention.value_or(models::Attention::Standard)};
  c.context_parallel = s.context_parallel;
  c.expert_parallel = s.expert_parallel;
  c.expert_tensor_parallel = s.expert_tensor_parallel;
  c.expert_imbalance = s.moe_imbalance;
  c.expert_grouped_gemm = s.moe_grouped_gemm;
  c.eager_autograd = s.eager_autograd;
  c.unfused_cross_entropy = s.unfused_cross_entropy;
  c.recompute_modules = models::parse_recompute_modules(s.recompute_modules, "recompute_modules");
  c.quantized_activations = s.quantized_activations;
  return c;
}

namespace {

// Megatron-Core applies recompute_modules with the selective granularity only; a module that
// has nothing to re-run in the model is a mistake, not a no-op.
void validate_activation_storage(const models::ModelSpec& m, const TrainingSetup& s) {
  const models::RecomputeModules rm =
      models::parse_recompute_modules(s.recompute_modules, "recompute_modules");
  if (!(rm == models::RecomputeModules{}) && s.recompute != models::Recompute::Selective) {
    fail("recompute_modules",
         fmt::format("\"{}\" applies with recompute = selective (Megatron-Core's "
                     "recompute_granularity), which is not set",
                     s.recompute_modules));
  }
  if (rm.mla_up_proj && !m.is_mla()) {
    fail("recompute_modules",
         fmt::format("mla_up_proj needs latent attention; model {} has none", m.name));
  }
  if ((rm.moe || rm.moe_act || rm.shared_experts) && !m.is_moe()) {
    fail("recompute_modules",
         fmt::format("moe, moe_act and shared_experts need mixture-of-experts layers; model {} "
                     "is dense",
                     m.name));
  }
  if (rm.shared_experts && m.moe.shared_experts == 0) {
    fail("recompute_modules",
         fmt::format("shared_experts: model {} has no shared experts", m.name));
  }
  if (s.quantized_activations && !models::low_precision_gemms(m.precision)) {
    fail("quantized_activations",
         fmt::format("needs a low-precision recipe (precision fp8, mxfp8 or nvfp4); model {} "
                     "trains in {}",
                     m.name, models::precision_name(m.precision)));
  }
}

}  // namespace

void validate_setup(const models::ModelSpec& m, const hardware::HardwareProfile& hw,
                    const TrainingSetup& s) {
  const int t = s.tensor_parallel;
  if (t < 1) fail("tensor_parallel", fmt::format("must be >= 1, got {}", t));
  auto divides = [&](int value, const char* what) {
    if (value % t != 0) {
      fail("tensor_parallel",
           fmt::format("{} must divide the {} of model {} ({}) for the column/row split", t, what,
                       m.name, value));
    }
  };
  divides(m.heads, "attention heads");
  divides(m.kv_heads, "key/value heads");
  divides(m.ffn_hidden, "FFN size");
  if (t > hw.gpus_per_node || hw.gpus_per_node % t != 0) {
    fail("tensor_parallel",
         fmt::format("{} must divide the {} GPUs per node of profile {} (a tensor-parallel "
                     "group stays within one node)",
                     t, hw.gpus_per_node, hw.name));
  }
  validate_context_parallel(m, hw, s);
  validate_activation_storage(m, s);
  parse_cuda_graph_scopes(s.cuda_graphs, "cuda_graphs");
  if (s.sequence_parallel) {
    if (t < 2) fail("sequence_parallel", "needs tensor parallelism (tensor_parallel > 1)");
    const int local = m.sequence / s.context_parallel;
    if (local % t != 0) {
      fail("sequence_parallel",
           fmt::format("tensor_parallel = {} must divide the sequence length {}{}", t, local,
                       s.context_parallel > 1 ? " each context-parallel rank holds" : ""));
    }
  }
  if (s.tp_comm_overlap && !s.sequence_parallel) {
    fail("tp_comm_overlap",
         "needs sequence parallelism (sequence_parallel on), as Megatron-Core's "
         "tp-comm-overlap does");
  }
  if (s.overlap_param_gather && !(s.distributed_optimizer && s.overlap_grad_reduce)) {
    fail("overlap_param_gather",
         "needs distributed_optimizer and overlap_grad_reduce on, as Megatron-Core's "
         "overlap-param-gather does");
  }
  if (m.position_embeddings > 0 && m.sequence > m.position_embeddings) {
    fail("sequence", fmt::format("{} tokens exceed the {} rows of model {}'s learned position "
                                 "table",
                                 m.sequence, m.position_embeddings, m.name));
  }
  if (s.fp8_param_gather && quantized_bytes(m.precision) == 0) {
    fail("fp8_param_gather",
         fmt::format("keeps the parameters in a low-precision recipe's format; training in {} "
                     "has none (use precision fp8, mxfp8 or nvfp4)",
                     models::precision_name(m.precision)));
  }
  if (s.grad_reduce_in_bf16 && m.precision == models::Precision::FP32) {
    fail("grad_reduce_in_bf16", "applies to mixed-precision training; this run trains in fp32");
  }
  if (!m.is_moe()) {
    const char* field = s.expert_parallel != 1                        ? "expert_parallel"
                        : s.expert_tensor_parallel != 1               ? "expert_tensor_parallel"
                        : s.moe_imbalance != 1.0                      ? "moe_imbalance"
                        : s.moe_overlap                               ? "moe_overlap"
                        : !s.moe_grouped_gemm                         ? "moe_grouped_gemm"
                        : s.moe_dispatcher != MoeDispatcher::AllToAll ? "moe_dispatcher"
                        : s.moe_token_dispatcher_type.has_value()     ? "moe_token_dispatcher_type"
                                                                      : nullptr;
    if (field != nullptr) {
      fail(field, fmt::format("applies to mixture-of-experts models; model {} is dense", m.name));
    }
  } else {
    try {
      models::validate_expert_layout(m, layer_config(s));
    } catch (const core::ConfigError& e) {
      // As an option error (the front end's spelling); models/ names the imbalance by its
      // layer-config field.
      fail(e.field() == "expert_imbalance" ? std::string("moe_imbalance") : e.field(), e.problem());
    }
  }
  const std::string dtype = models::precision_name(m.precision);
  // Low-precision recipes also compute attention and the head in bf16 (cost model).
  for (const std::string& d : models::low_precision_gemms(m.precision)
                                  ? std::vector<std::string>{dtype, "bf16"}
                                  : std::vector<std::string>{dtype}) {
    if (!hw.gpu.peak_flops.contains(d) || !hw.gpu.gemm_efficiency.contains(d)) {
      throw core::ConfigError(
          hw.source,
          hw.gpu.peak_flops.contains(d) ? "gpu.gemm_efficiency." + d : "gpu.peak_flops." + d,
          fmt::format("missing, and model {} computes in {}", m.name, d));
    }
  }
}

}  // namespace pipesim::cost
