// What a layer stores for its backward under Megatron-Core's fine-grained recomputation
// (recompute_modules) and the low-precision recipes' quantized storage, against the layer's
// tensors listed by hand; what each module re-runs; and DeepSeek-V3's own layout (PP 16
// DualPipe, EP 64, ZeRO-1, 2048 GPUs), which fits 80 GB only with DeepSeek's choices.

#include <gtest/gtest.h>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::cost {
namespace {

using models::LayerKind;
using models::Recompute;

// DeepSeek-V3's MoE layer, one sequence, no tensor parallelism, balanced routing over EP 64:
// each token's k = 8 copies land on this GPU's experts on average.
struct DeepSeekLayer {
  models::ModelSpec m = models::load_model("deepseek-v3");
  double s = 4096, h = 7168, a = 128, qk = 128 + 64, v = 128, ql = 1536, kvl = 512, rope = 64;
  double experts = 256, k = 8, fe = 2048, fs = 2048;
  models::LayerConfig c() const {
    models::LayerConfig cfg;
    cfg.attention = models::Attention::Flash;
    cfg.expert_parallel = 64;
    return cfg;
  }
  double bytes(const models::LayerConfig& cfg, Recompute r) const {
    return models::layer_activation_bytes(m, cfg, r, LayerKind::Moe).value;
  }
};

// Per token, e = 2 (bf16); q the stored bytes of a linear GEMM's input (2 in bf16, 1 in fp8);
// projection_copy the projection's own quantized input beside the attention output (0 or 1);
// act_in the experts' SwiGLU input (2, or 1 with DeepSeek's storage).
struct Tensors {
  double norm_inputs, norm_outputs, router_scores, qkv, attention_out, latents, latents_normed, lse,
      shared_act_in, shared_act_out, expert_in, expert_act_in, expert_act_out;
  double sum() const {
    return norm_inputs + norm_outputs + router_scores + qkv + attention_out + latents +
           latents_normed + lse + shared_act_in + shared_act_out + expert_in + expert_act_in +
           expert_act_out;
  }
};

struct Storage {
  double q = 2, projection_copy = 0, act_in = 2;
};

Tensors stored(const DeepSeekLayer& l, Storage b) {
  const double e = 2;
  return {.norm_inputs = 2 * e * l.h,
          .norm_outputs = (b.q + e) * l.h,  // attention input (linear), router input (16-bit)
          .router_scores = 4 * l.experts,
          .qkv = e * l.a * (2 * l.qk + l.v),
          .attention_out = (e + b.projection_copy) * l.a * l.v,
          .latents = e * (l.ql + l.kvl + l.rope),
          .latents_normed = b.q * (l.ql + l.kvl),
          .lse = 4 * l.a,
          .shared_act_in = e * 2 * l.fs,
          .shared_act_out = b.q * l.fs,
          .expert_in = l.k * b.q * l.h,
          .expert_act_in = l.k * b.act_in * 2 * l.fe,
          .expert_act_out = l.k * b.q * l.fe};
}

// Transformer Engine's storage under fp8, DeepSeek-V3's, and 16-bit training's.
constexpr Storage kTransformerEngineFp8{.q = 1, .projection_copy = 1, .act_in = 2};
constexpr Storage kDeepSeekFp8{.q = 1, .projection_copy = 0, .act_in = 1};
constexpr Storage kSixteenBit{};

models::ModelSpec in_bf16(models::ModelSpec m) {
  m.precision = models::Precision::BF16;
  return m;
}

TEST(ActivationStorage, MoeLatentLayerStoresItsTensorsByHand) {
  DeepSeekLayer l;
  l.m = in_bf16(l.m);
  const Tensors t = stored(l, kSixteenBit);
  EXPECT_NEAR(l.bytes(l.c(), Recompute::None), l.s * t.sum(), 1.0);
  // Selective with the default module drops the log-sum-exp only.
  EXPECT_NEAR(l.bytes(l.c(), Recompute::Selective), l.s * (t.sum() - t.lse), 1.0);
}

TEST(ActivationStorage, EachRecomputeModuleDropsWhatItReRuns) {
  DeepSeekLayer l;
  l.m = in_bf16(l.m);
  const Tensors t = stored(l, kSixteenBit);
  const auto with = [&](const std::string& modules) {
    models::LayerConfig cfg = l.c();
    cfg.recompute_modules = models::parse_recompute_modules(modules, "recompute_modules");
    return l.bytes(cfg, Recompute::Selective);
  };
  const double all = t.sum();
  EXPECT_NEAR(with(""), l.s * all, 1.0);
  EXPECT_NEAR(with("layernorm"), l.s * (all - t.norm_outputs), 1.0);
  EXPECT_NEAR(with("mla_up_proj"), l.s * (all - t.qkv), 1.0);
  EXPECT_NEAR(with("moe_act"), l.s * (all - t.expert_act_out), 1.0);
  EXPECT_NEAR(with("shared_experts"), l.s * (all - t.shared_act_in - t.shared_act_out), 1.0);
  EXPECT_NEAR(with("moe"),
              l.s * (all - t.router_scores - t.shared_act_in - t.shared_act_out - t.expert_in -
                     t.expert_act_in - t.expert_act_out),
              1.0);
  EXPECT_NEAR(with("core_attn, layernorm,mla_up_proj"),
              l.s * (all - t.lse - t.norm_outputs - t.qkv), 1.0);
}

TEST(ActivationStorage, Fp8KeepsEveryLinearInputQuantizedAsTransformerEngineSavesIt) {
  const DeepSeekLayer l;
  ASSERT_EQ(l.m.precision, models::Precision::FP8);
  EXPECT_NEAR(l.bytes(l.c(), Recompute::None), l.s * stored(l, kTransformerEngineFp8).sum(), 1.0);
}

TEST(ActivationStorage, DeepSeekStorageAlsoQuantizesTheExpertActivationInput) {
  const DeepSeekLayer l;
  models::LayerConfig cfg = l.c();
  cfg.quantized_activations = true;
  EXPECT_NEAR(l.bytes(cfg, Recompute::None), l.s * stored(l, kDeepSeekFp8).sum(), 1.0);
  EXPECT_LT(l.bytes(cfg, Recompute::None), l.bytes(l.c(), Recompute::None));
  // bf16 training has no quantized format: nothing changes.
  const models::ModelSpec bf16 = in_bf16(l.m);
  EXPECT_EQ(models::layer_activation_bytes(bf16, cfg, Recompute::None, LayerKind::Moe).value,
            models::layer_activation_bytes(bf16, l.c(), Recompute::None, LayerKind::Moe).value);
}

TEST(ActivationStorage, DenseFp8LayerStoresFewerBytesThanBf16ByTheQuantizedInputs) {
  // Llama 3 8B at T = 1: h 4096, kv 1024, f 14336. Quantized: the two norms' outputs (h each)
  // and fc2's input (f) drop from 2 bytes to 1; the projection adds its 1-byte copy (h).
  models::ModelSpec fp8 = models::load_model("llama3-8b");
  fp8.precision = models::Precision::FP8;
  const models::ModelSpec bf16 = in_bf16(fp8);
  const models::LayerConfig cfg;
  const double s = fp8.sequence, h = fp8.hidden, f = fp8.ffn_hidden;
  EXPECT_NEAR(models::layer_activation_bytes(bf16, cfg, Recompute::None).value -
                  models::layer_activation_bytes(fp8, cfg, Recompute::None).value,
              s * (2 * h + f - h), 1.0);
}

TEST(ActivationStorage, DenseMlpModuleDropsTheFfnWideTensors) {
  const models::ModelSpec m = models::load_model("llama3-8b");  // SwiGLU f 14336, bf16
  models::LayerConfig cfg;
  const double s = m.sequence, f = m.ffn_hidden;
  const double selective = models::layer_activation_bytes(m, cfg, Recompute::Selective).value;
  cfg.recompute_modules = models::parse_recompute_modules("core_attn,mlp", "recompute_modules");
  // [gate|up] and the SwiGLU output, 2 bytes each: 3·2·s·f.
  EXPECT_NEAR(selective - models::layer_activation_bytes(m, cfg, Recompute::Selective).value,
              3 * 2 * s * f, 1.0);
}

TEST(ActivationStorage, EachModuleReRunsItsOwnForwardKernels) {
  const DeepSeekLayer l;
  const auto names = [&](const std::string& modules) {
    models::LayerConfig cfg = l.c();
    cfg.recompute_modules = models::parse_recompute_modules(modules, "recompute_modules");
    std::vector<std::string> out;
    for (const models::LayerKernel& k :
         models::layer_recompute(l.m, cfg, Recompute::Selective, LayerKind::Moe))
      out.push_back(k.name);
    return out;
  };
  EXPECT_EQ(names("layernorm"), (std::vector<std::string>{"ln1", "ln2"}));
  EXPECT_EQ(names("mla_up_proj"), (std::vector<std::string>{"q_up", "kv_up"}));
  EXPECT_EQ(names("moe_act"), (std::vector<std::string>{"expert_swiglu"}));
  EXPECT_EQ(names("shared_experts"),
            (std::vector<std::string>{"shared_fc1", "shared_swiglu", "shared_fc2"}));
  EXPECT_EQ(names("core_attn"), (std::vector<std::string>{"flash_attn"}));
  EXPECT_TRUE(names("").empty());
}

TEST(ActivationStorage, BadModuleListsAreRefusedByName) {
  EXPECT_THROW(models::parse_recompute_modules("core_attn,attention", "recompute_modules"),
               core::ConfigError);
  EXPECT_THROW(models::parse_recompute_modules("moe,moe", "recompute_modules"), core::ConfigError);
  try {
    models::parse_recompute_modules("mla", "recompute_modules");
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.field(), "recompute_modules");
    EXPECT_NE(std::string(e.problem()).find("mla_up_proj"), std::string::npos);
  }
}

// DeepSeek-V3 report §3.1-3.3, §4.2: PP 16 (DualPipe), EP 64 over 8 nodes, ZeRO-1 data
// parallelism, no TP, 2048 H800; sequences of 4096, batch 15360 sequences: 120 per pipeline
// replica (W = 128), one sequence per micro-batch.
scenario::Scenario deepseek_layout() {
  scenario::Scenario s;
  s.schedule = "dualpipe";
  s.params.stages = 16;
  s.params.micro_batches = 120;
  s.perf.model = "deepseek-v3";
  s.perf.hardware = "h800-dgx";
  s.perf.setup.micro_batch_size = 1;
  s.perf.setup.data_parallel = 128;
  s.perf.setup.expert_parallel = 64;
  s.perf.setup.distributed_optimizer = true;
  s.perf.setup.moe_overlap = true;
  return s;
}

TEST(ActivationStorage, DeepSeekV3LayoutFitsEightyGigabytesOnlyWithDeepSeeksChoices) {
  scenario::Scenario s = deepseek_layout();
  const scenario::Result plain = scenario::simulate(s);
  ASSERT_TRUE(plain.perf);
  EXPECT_EQ(plain.perf->gpus, 2048);
  EXPECT_FALSE(plain.perf->fits_memory);
  s.perf.setup.recompute = Recompute::Selective;
  s.perf.setup.recompute_modules = "layernorm,mla_up_proj,moe_act";
  s.perf.setup.quantized_activations = true;
  const scenario::Result ds = scenario::simulate(s);
  ASSERT_TRUE(ds.perf);
  EXPECT_TRUE(ds.perf->fits_memory) << ds.perf->peak_memory / (1 << 30) << " GiB";
  EXPECT_LE(ds.perf->peak_memory, 80.0 * (1 << 30));
  // Recomputation costs time.
  EXPECT_GT(ds.metrics.iteration_time, plain.metrics.iteration_time);
  // Either choice alone is not enough.
  s.perf.setup.quantized_activations = false;
  EXPECT_FALSE(scenario::simulate(s).perf->fits_memory);
  s.perf.setup.quantized_activations = true;
  s.perf.setup.recompute = Recompute::None;
  s.perf.setup.recompute_modules = "core_attn";
  EXPECT_FALSE(scenario::simulate(s).perf->fits_memory);
}

}  // namespace
}  // namespace pipesim::cost
