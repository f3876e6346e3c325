#include "pipesim/cost/training_setup.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "pipesim/core/config_error.hpp"

namespace pipesim::cost {
namespace {

[[noreturn]] void fail(const std::string& field, const std::string& problem) {
  throw core::ConfigError::option(field, problem);
}

}  // namespace

models::ModelSpec trained_model(const models::ModelSpec& m, const TrainingSetup& s) {
  models::ModelSpec out = m;
  if (s.precision) out.precision = *s.precision;
  if (s.vocabulary > 0) out.vocabulary = s.vocabulary;
  if (s.sequence > 0) out.sequence = s.sequence;
  return out;
}

int gpu_count(const TrainingSetup& s, int workers) {
  return s.tensor_parallel * workers * s.data_parallel;
}

models::LayerConfig layer_config(const TrainingSetup& s) {
  models::LayerConfig c{s.micro_batch_size, s.tensor_parallel, s.sequence_parallel, s.attention};
  c.expert_parallel = s.expert_parallel;
  c.expert_tensor_parallel = s.expert_tensor_parallel;
  c.expert_imbalance = s.moe_imbalance;
  return c;
}

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
  if (s.sequence_parallel) {
    if (t < 2) fail("sequence_parallel", "needs tensor parallelism (tensor_parallel > 1)");
    if (m.sequence % t != 0) {
      fail("sequence_parallel", fmt::format("tensor_parallel = {} must divide the sequence "
                                            "length {}",
                                            t, m.sequence));
    }
  }
  if (s.tp_comm_overlap && !s.sequence_parallel) {
    fail("tp_comm_overlap",
         "needs sequence parallelism (sequence_parallel on), as Megatron-Core's "
         "tp-comm-overlap does");
  }
  if (m.position_embeddings > 0 && m.sequence > m.position_embeddings) {
    fail("sequence", fmt::format("{} tokens exceed the {} rows of model {}'s learned position "
                                 "table",
                                 m.sequence, m.position_embeddings, m.name));
  }
  if (!m.is_moe()) {
    const char* field = s.expert_parallel != 1          ? "expert_parallel"
                        : s.expert_tensor_parallel != 1 ? "expert_tensor_parallel"
                        : s.moe_imbalance != 1.0        ? "moe_imbalance"
                        : s.moe_overlap                 ? "moe_overlap"
                                                        : nullptr;
    if (field != nullptr) {
      fail(field, fmt::format("applies to mixture-of-experts models; model {} is dense", m.name));
    }
  } else {
    if (s.moe_overlap && t > 1 && !s.tp_comm_overlap) {
      fail("moe_overlap",
           "with tensor_parallel > 1 needs tp_comm_overlap on: an op's collectives run all "
           "after it or all beside it");
    }
    try {
      models::validate_expert_layout(m, layer_config(s));
    } catch (const core::ConfigError& e) {
      // As an option error (the front end's spelling); models/ names the imbalance by its
      // layer-config field.
      fail(e.field() == "expert_imbalance" ? std::string("moe_imbalance") : e.field(), e.problem());
    }
  }
  const std::string dtype = models::precision_name(m.precision);
  // fp8 training also computes attention and the head in bf16 (cost model).
  for (const std::string& d : m.precision == models::Precision::FP8
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
