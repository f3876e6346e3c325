// Mixture-of-experts, latent-attention and multi-token-prediction models: parameter counts
// against the published ones and against closed forms written out here; per-layer FLOPs, kernels
// and activation bytes of a tiny MoE model against hand-derived closed forms; the expert-parallel
// layout; the refusal of the uniform-layer API the cost model uses.

#include <gtest/gtest.h>

#include <string>

#include "model_test_support.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/models/hf_config.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

using test_support::error_of;
using test_support::fixture;
using test_support::tiny_yaml;

double flops(const KernelList& ks) {
  return kernel_flops(ks).value;
}

const LayerKernel& kernel(const KernelList& ks, const std::string& name) {
  for (const LayerKernel& k : ks) {
    if (k.name == name) return k;
  }
  ADD_FAILURE() << "no kernel " << name;
  static const LayerKernel none;
  return none;
}

// A published count and how precisely it was published.
struct Published {
  const char* what;
  double count;
  double value;
  double tolerance;  // relative
};

void expect_published(const Published& p) {
  EXPECT_NEAR(p.count / p.value, 1.0, p.tolerance) << p.what << ": " << p.count;
}

TEST(MoeCounts, PublishedTotalAndActiveParameters) {
  // Conventions differ: Mistral, Qwen and Meta count the input embedding among the active
  // parameters; DeepSeek (README_WEIGHTS.md: "36.6B (including 0.9B for the output Head)") and
  // OpenAI (gpt-oss model card, Table 1: embedding not counted, unembedding counted) do not.
  const ModelSpec mixtral = load_model("mixtral-8x7b");
  const ModelSpec mixtral22 = load_model("mixtral-8x22b");
  const ModelSpec ds = load_model("deepseek-v3");
  const ModelSpec q30 = load_model("qwen3-30b-a3b");
  const ModelSpec q235 = load_model("qwen3-235b-a22b");
  const ModelSpec oss = load_model(fixture("gpt-oss-120b.json"));
  const ModelSpec q57 = load_model(fixture("qwen2-57b-a14b.json"));
  const ModelSpec q8 = load_model("qwen3-8b");
  const double ds_embedding = embedding_params(ds);
  for (const Published& p :
       {Published{"Mixtral 8x7B total 46.7B", model_params(mixtral), 46.7e9, 0.01},
        {"Mixtral 8x7B active 12.9B", active_params(mixtral), 12.9e9, 0.01},
        {"Mixtral 8x22B total 141B", model_params(mixtral22), 141e9, 0.01},
        {"Mixtral 8x22B active 39B", active_params(mixtral22), 39e9, 0.01},
        {"DeepSeek-V3 main model 671B", model_params(ds), 671e9, 0.01},
        {"DeepSeek-V3 active 36.6B", active_params(ds) - ds_embedding, 36.6e9, 0.01},
        // The report's "37B" is that figure to two digits: 36.63 is 1.01% below it.
        {"DeepSeek-V3 active 37B", active_params(ds) - ds_embedding, 37e9, 0.0135},
        {"DeepSeek-V3 MTP module 11.5B", mtp_params(ds), 11.5e9, 0.01},
        // The checkpoint stores the MTP module with its own copies of the embedding and head:
        // 685B = 671B + 14B (the 14B is the difference of the two rounded totals: 13.5B).
        {"DeepSeek-V3 checkpoint 685B", model_params(ds) + mtp_params(ds) + 2 * ds_embedding, 685e9,
         0.01},
        {"Qwen3-30B-A3B total 30.5B", model_params(q30), 30.5e9, 0.01},
        // Qwen's card truncates (30.53B is "30.5B"): 3.353B is "3.3B", 1.6% above it.
        {"Qwen3-30B-A3B active 3.3B", active_params(q30), 3.3e9, 0.02},
        {"Qwen3-235B-A22B total 235B", model_params(q235), 235e9, 0.01},
        {"Qwen3-235B-A22B active 22B", active_params(q235), 22e9, 0.01},
        {"gpt-oss-120b total 116.83B", model_params(oss), 116.83e9, 0.001},
        {"gpt-oss-120b active 5.13B", active_params(oss) - embedding_params(oss), 5.13e9, 0.01},
        {"Qwen2-57B-A14B total 57B", model_params(q57), 57e9, 0.01},
        // "14B" to two digits; 14.25B counted.
        {"Qwen2-57B-A14B active 14B", active_params(q57), 14e9, 0.02},
        {"Qwen3-8B total 8.2B", model_params(q8), 8.2e9, 0.01},
        {"Qwen3-8B without embeddings 6.95B",
         model_params(q8) - embedding_params(q8) - head_params(q8), 6.95e9, 0.01}}) {
    expect_published(p);
  }
  // Dense models: every parameter is active.
  EXPECT_DOUBLE_EQ(active_params(q8), model_params(q8));
}

// Grok-1 (xAI's release: "314B parameters", "25% of the weights active on a given token"): the
// shape of github.com/xai-org/grok-1 counts 315.7B (the release's figure to three digits, 0.5%
// off) with 26.5% active, and is the closed form of its parts: per layer Q, O 6144² each, K, V
// 6144 × 8·128 each, 8 gated experts of 3 · 6144 · 32768, the 8 × 6144 router and two norms;
// the tied 131072 × 6144 embedding and the final norm once.
TEST(MoeCounts, GrokOneIsThePublishedSizeAndTheClosedForm) {
  const ModelSpec m = load_model("grok-1");
  const double h = 6144, kv = 8 * 128, f = 32768, E = 8, V = 131072;
  const double attention = 2 * h * h + 2 * h * kv, expert = 3 * h * f;
  const double common = attention + E * h + 2 * h;
  EXPECT_DOUBLE_EQ(model_params(m), 64 * (common + E * expert) + V * h + h);
  EXPECT_DOUBLE_EQ(active_params(m), 64 * (common + 2 * expert) + V * h + h);
  expect_published({"Grok-1 total 314B", model_params(m), 314e9, 0.01});
  // "25%" is a rounded share: within 2 points of it.
  EXPECT_NEAR(active_params(m) / model_params(m), 0.25, 0.02);
}

TEST(MoeCounts, DeepSeekV3IsTheClosedFormOfLatentAttentionAndExperts) {
  // DeepSeek-V2 §2.1 / V3 §2.1, written out: W^DQ h×1536 and its RMSNorm, W^UQ|W^QR
  // 1536×128·192, W^DKV|W^KR h×(512+64) and its RMSNorm, W^UK|W^UV 512×128·256, W^O 128·128×h;
  // SwiGLU FFNs; router 256×h plus 256 balancing biases.
  const ModelSpec m = load_model("deepseek-v3");
  const double h = 7168, a = 128, V = 129280;
  const double attention =
      h * 1536 + 1536 + 1536 * a * 192 + h * 576 + 512 + 512 * a * 256 + a * 128 * h;
  const double expert = 3 * h * 2048;
  const double dense = attention + 2 * h + 3 * h * 18432;
  const double moe = attention + 2 * h + 256 * h + 256 + 256 * expert + expert;
  EXPECT_DOUBLE_EQ(model_params(m), 3 * dense + 58 * moe + 2 * V * h + h);
  EXPECT_DOUBLE_EQ(active_params(m), 3 * dense + 58 * (moe - 248 * expert) + 2 * V * h + h);
  // MTP module: two input norms, the projection 2h → h, one MoE layer, the final norm.
  EXPECT_DOUBLE_EQ(mtp_params(m), 3 * h + 2 * h * h + moe);
  EXPECT_EQ(moe_layer_count(m), 58);
  EXPECT_EQ(layer_kind(m, 2), LayerKind::Dense);
  EXPECT_EQ(layer_kind(m, 3), LayerKind::Moe);
  EXPECT_EQ(layer_kind(m, 61), LayerKind::Moe);  // the MTP module's layer
}

TEST(MoeCounts, GptOssCountsItsBiasesEverywhereAndQwen2MoeItsGatedSharedExpert) {
  {
    // gpt-oss: head_dim 64 (queries 4096 wide, h 2880); biases on Q, K, V, O, on each expert's
    // [gate|up] and down projections, and on the router.
    const ModelSpec m = load_model(fixture("gpt-oss-120b.json"));
    const double h = 2880, q = 64 * 64, kv = 8 * 64, f = 2880, E = 128, V = 201088;
    const double attention = h * q + 2 * h * kv + q * h + q + 2 * kv + h;
    const double expert = 3 * h * f + 2 * f + h;
    const double layer = attention + 2 * h + E * h + E + E * expert;
    EXPECT_DOUBLE_EQ(model_params(m), 36 * layer + 2 * V * h + h);
    EXPECT_DOUBLE_EQ(active_params(m), model_params(m) - 36 * (E - 4) * expert);
  }
  {
    // Qwen2-57B-A14B: Q/K/V biases, 64 experts of 2560, one shared expert of 20480 behind a
    // sigmoid gate h → 1.
    const ModelSpec m = load_model(fixture("qwen2-57b-a14b.json"));
    const double h = 3584, kv = 512, V = 151936;
    const double attention = 2 * h * h + 2 * h * kv + h + 2 * kv;
    const double layer = attention + 2 * h + 64 * h + 64 * 3 * h * 2560 + 3 * h * 20480 + h;
    EXPECT_DOUBLE_EQ(model_params(m), 28 * layer + 2 * V * h + h);
  }
}

// A tiny MoE model: layer 0 dense (FFN 256), layers 1-3 MoE of 4 experts of 32, top-2, one
// shared expert of 48 behind a gate; 2 key/value heads.
const std::string kTinyMoe = tiny_yaml(R"(kv_heads: 2
moe:
  experts: 4
  top_k: 2
  ffn_hidden: 32
  shared_experts: 1
  shared_ffn_hidden: 48
  shared_expert_gate: true
  first_dense_layers: 1
)");

struct Tiny {
  double h = 64, a = 4, kv = 32, s = 32, V = 100, f = 256, E = 4, k = 2, fe = 32, fs = 48;
  double attention() const { return h * h + 2 * h * kv + h * h; }  // Q, K, V, O weights
  // GEMM weights a token's forward multiplies by in an MoE layer: router, k experts, shared
  // expert, its gate.
  double moe_gemm() const { return attention() + E * h + k * 3 * h * fe + 3 * h * fs + h; }
  double dense_gemm() const { return attention() + 3 * h * f; }
};

LayerConfig config(int b, int t = 1, bool sp = false) {
  LayerConfig c;
  c.micro_batch_size = b;
  c.tensor_parallel = t;
  c.sequence_parallel = sp;
  return c;
}

TEST(MoeFlops, TinyLayerForwardAndBackwardAreTheClosedForms) {
  const ModelSpec m = parse_model(kTinyMoe, "tiny.yaml");
  const Tiny x;
  const int b = 2;
  const double bs = b * x.s, core = 4 * bs * x.s * x.h;  // QKᵀ + AV over all s² (unfused)
  // F = 2·bs·(GEMM weights) + core; I = 2·bs·(GEMM weights) + 2·core; W = 2·bs·(GEMM weights).
  for (const auto& [kind, gemm] :
       {std::pair{LayerKind::Moe, x.moe_gemm()}, std::pair{LayerKind::Dense, x.dense_gemm()}}) {
    EXPECT_DOUBLE_EQ(flops(layer_forward(m, config(b), kind)), 2 * bs * gemm + core);
    EXPECT_DOUBLE_EQ(flops(layer_backward_input(m, config(b), kind)), 2 * bs * gemm + 2 * core);
    EXPECT_DOUBLE_EQ(flops(layer_backward_weight(m, config(b), kind)), 2 * bs * gemm);
    EXPECT_DOUBLE_EQ(layer_matmul_params(m, kind), gemm);
  }
  // The experts' grouped GEMMs: bs·k token copies over the 4 local experts.
  const KernelList f = layer_forward(m, config(b), LayerKind::Moe);
  const LayerKernel& fc1 = kernel(f, "expert_fc1");
  EXPECT_EQ(fc1.batch, 4);
  EXPECT_EQ(fc1.m, 2 * 64 / 4);
  EXPECT_EQ(fc1.n, 2 * 32);  // [gate|up]
  EXPECT_EQ(fc1.k, 64);
  EXPECT_TRUE(fc1.linear);
  EXPECT_FALSE(kernel(f, "router").linear);  // not a Transformer Engine module: 16-bit
  EXPECT_EQ(kernel(f, "router").n, 4);
}

TEST(MoeFlops, ExpertParallelismImbalanceAndCapacityScaleTheRoutedWorkOnly) {
  ModelSpec m = parse_model(kTinyMoe, "tiny.yaml");
  const Tiny x;
  const double bs = 32;                                 // b = 1
  const double routed = 2 * bs * x.k * 3 * x.h * x.fe;  // the experts' forward GEMM FLOPs
  const double base = flops(layer_forward(m, config(1), LayerKind::Moe));
  // e = 2: this GPU holds 2 experts; with balanced routing it still gets bs·k copies.
  LayerConfig c = config(1);
  c.expert_parallel = 2;
  EXPECT_DOUBLE_EQ(flops(layer_forward(m, c, LayerKind::Moe)), base);
  EXPECT_EQ(kernel(layer_forward(m, c, LayerKind::Moe), "expert_fc2").batch, 2);
  // The busiest GPU 1.5× the average: 1.5× the routed GEMMs, nothing else.
  c.expert_imbalance = 1.5;
  EXPECT_DOUBLE_EQ(flops(layer_forward(m, c, LayerKind::Moe)), base + 0.5 * routed);
  // A capacity factor of 1.25 drops what exceeds 1.25× the average.
  m.moe.capacity_factor = 1.25;
  EXPECT_DOUBLE_EQ(flops(layer_forward(m, c, LayerKind::Moe)), base + 0.25 * routed);
}

// SequentialMLP (moe_grouped_gemm off): one plain GEMM per local expert, the same FLOPs as
// the grouped GEMMs, plus the zero-filled output buffer and the copies into it (forward:
// 3·R·h elements for R expert rows) and, in the backward, each expert's slice gradient
// zero-filled at full size and the n gradients summed ((4n − 1)·R·h elements).
TEST(MoeFlops, SequentialExpertsKeepTheFlopsAndAddTheirCopies) {
  const ModelSpec m = parse_model(kTinyMoe, "tiny.yaml");
  const Tiny x;
  LayerConfig c = config(2);
  const KernelList grouped = layer_forward(m, c, LayerKind::Moe);
  const KernelList grouped_bwd = layer_backward_input(m, c, LayerKind::Moe);
  const KernelList grouped_w = layer_backward_weight(m, c, LayerKind::Moe);
  c.expert_grouped_gemm = false;
  const KernelList seq = layer_forward(m, c, LayerKind::Moe);
  const KernelList seq_bwd = layer_backward_input(m, c, LayerKind::Moe);
  const KernelList seq_w = layer_backward_weight(m, c, LayerKind::Moe);
  EXPECT_DOUBLE_EQ(flops(seq), flops(grouped));
  EXPECT_DOUBLE_EQ(flops(seq_bwd), flops(grouped_bwd));
  EXPECT_DOUBLE_EQ(flops(seq_w), flops(grouped_w));
  const auto count = [](const KernelList& ks, const std::string& name) {
    size_t n = 0;
    for (const LayerKernel& k : ks)
      n += k.name == name ? 1 : 0;
    return n;
  };
  EXPECT_EQ(count(seq, "expert_fc1"), 4u);  // E = 4 local experts
  EXPECT_EQ(count(seq_w, "expert_fc1_wgrad"), 4u);
  const LayerKernel& fc1 = kernel(seq, "expert_fc1");
  EXPECT_EQ(fc1.batch, 1);
  EXPECT_EQ(fc1.m, 2 * 32 * 2 / 4);  // b·s·k rows over 4 experts
  EXPECT_TRUE(fc1.linear);
  const auto bytes = [](const KernelList& ks, std::initializer_list<const char*> names) {
    double sum = 0;
    for (const LayerKernel& k : ks)
      for (const char* n : names)
        sum += k.name == n ? static_cast<double>(k.bytes) : 0.0;
    return sum;
  };
  const double rh = 2 * 32 * x.k * x.h * 2;  // R·h elements × 2 bytes (bf16)
  EXPECT_DOUBLE_EQ(bytes(seq, {"expert_output_zero", "expert_output_copy"}), 3 * rh);
  EXPECT_DOUBLE_EQ(bytes(seq_bwd, {"expert_slice_bwd", "expert_grad_sum"}), (4 * 4 - 1) * rh);
}

TEST(MoeFlops, TensorAndExpertTensorParallelismSplitTheExpertsEvenly) {
  const ModelSpec m = parse_model(kTinyMoe, "tiny.yaml");
  const Tiny x;
  const double bs = 32;
  const double routed = 2 * bs * x.k * 3 * x.h * x.fe;
  const double router = 2 * bs * x.E * x.h;
  // t = 2 with sequence parallelism, e_t = t (the default): each GPU takes the group's bs·k
  // copies at half the expert width; the router runs on its bs/2 tokens.
  const KernelList tp = layer_forward(m, config(1, 2, true), LayerKind::Moe);
  EXPECT_DOUBLE_EQ(flops({kernel(tp, "expert_fc1"), kernel(tp, "expert_fc2")}), routed / 2);
  EXPECT_DOUBLE_EQ(kernel(tp, "router").flops(), router / 2);
  EXPECT_EQ(kernel(tp, "expert_fc1").n, 32);  // [gate|up] of 32/2 columns each
  // e_t = 1: whole experts, each GPU its own bs/2 tokens' copies: the same FLOPs.
  LayerConfig c = config(1, 2, true);
  c.expert_tensor_parallel = 1;
  const KernelList et = layer_forward(m, c, LayerKind::Moe);
  EXPECT_DOUBLE_EQ(flops({kernel(et, "expert_fc1"), kernel(et, "expert_fc2")}), routed / 2);
  EXPECT_EQ(kernel(et, "expert_fc1").m, 32 * 2 / 2 / 4);
  EXPECT_EQ(kernel(et, "expert_fc1").n, 64);
}

TEST(MoeFlops, BackwardSplitsIntoInputAndWeightParts) {
  const ModelSpec m = parse_model(kTinyMoe, "tiny.yaml");
  for (int t : {1, 2}) {
    const LayerConfig c = config(2, t, t > 1);
    const KernelList all =
        layer_kernels(layer_shape(m, c, LayerKind::Moe), LayerDirection::backward);
    const KernelList in = layer_backward_input(m, c, LayerKind::Moe);
    const KernelList w = layer_backward_weight(m, c, LayerKind::Moe);
    EXPECT_EQ(in.size() + w.size(), all.size());
    for (const LayerKernel& k : w)
      EXPECT_TRUE(k.is_gemm && k.weight_gradient) << k.name;
    // Router, 2 expert GEMMs, 2 shared-expert GEMMs, the gate, QKV and projection.
    EXPECT_EQ(w.size(), 8u);
    EXPECT_DOUBLE_EQ(flops(in) + flops(w), flops(all));
  }
}

TEST(MoeFlops, ForwardFlopsPerTokenAgreeWithTheKernelLists) {
  // Two independent paths: the analytic per-token count (GEMM weights, attention, logits) and
  // the kernel lists summed by model_flops_per_iteration (3 × forward).
  const ModelSpec tiny = parse_model(kTinyMoe, "tiny.yaml");
  const Tiny x;
  const double tiny_forward =
      x.dense_gemm() * 2 + 3 * x.moe_gemm() * 2 + 4 * (4 * x.s * x.h) + 2 * x.h * x.V;
  EXPECT_DOUBLE_EQ(forward_flops_per_token(tiny), tiny_forward);
  for (const ModelSpec& m :
       {tiny, load_model("mixtral-8x7b"), load_model("deepseek-v3"), load_model("qwen3-30b-a3b"),
        load_model("qwen3-8b"), load_model("gpt3-175b")}) {
    const double per_token = forward_flops_per_token(m) + mtp_forward_flops_per_token(m);
    EXPECT_NEAR(model_flops_per_iteration(m, 8).value / (3 * 8 * m.sequence * per_token), 1.0,
                1e-12)
        << m.name;
  }
  // Dense GPT: 24h² + 4sh per token per layer, 2hV for the logits [N21].
  const ModelSpec gpt = load_model("gpt3-175b");
  const double h = gpt.hidden, s = gpt.sequence;
  EXPECT_DOUBLE_EQ(forward_flops_per_token(gpt),
                   gpt.layers * (24 * h * h + 4 * s * h) + 2 * h * gpt.vocabulary);
  EXPECT_DOUBLE_EQ(mtp_forward_flops_per_token(gpt), 0.0);
}

TEST(MoeActivations, TinyMoeLayerKeepsTheTopKCopies) {
  // Per GPU, 16-bit, no dropout, b = 1, t = 1 (Korthikanti's inventory extended):
  // norm region: QKV input, MLP input, two norm inputs (2·sh each); Q, projection input (2·sh),
  // K, V (2·s·h_kv); softmax output 2as²; router fp32 scores 4sE; per token copy (s·k of them)
  // its expert input 2h (the routing probabilities multiply inside the activation, so the
  // output is not kept) and the SwiGLU tensors 3·f_e·2; the shared expert's SwiGLU tensors
  // 3·2·s·f_s.
  const ModelSpec m = parse_model(kTinyMoe, "tiny.yaml");
  const Tiny x;
  const double s = x.s, h = x.h, e = 2;
  const double dense_part = 4 * e * s * h + e * (2 * s * h + 2 * s * x.kv);
  const double core = e * x.a * s * s;
  const double copies = s * x.k;
  const double moe_part = 4 * s * x.E + copies * e * (h + 3 * x.fe) + 3 * e * s * x.fs;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, config(1), Recompute::None, LayerKind::Moe).value,
                   dense_part + core + moe_part);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, config(1), Recompute::Selective, LayerKind::Moe).value,
                   dense_part + moe_part);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, config(1), Recompute::Full, LayerKind::Moe).value,
                   e * s * h);
  // The dense layer of the same model: its FFN's SwiGLU tensors instead.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, config(1), Recompute::None, LayerKind::Dense).value,
                   dense_part + core + 3 * e * s * x.f);
  // A GPU that receives 1.5× the average keeps 1.5× the copies.
  LayerConfig c = config(1);
  c.expert_parallel = 2;
  c.expert_imbalance = 1.5;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, c, Recompute::None, LayerKind::Moe).value,
                   dense_part + core + moe_part + 0.5 * copies * e * (h + 3 * x.fe));
}

TEST(MoeActivations, LatentAttentionKeepsTheLatentsOnEveryGpu) {
  // MLA at t = 2, 16-bit, b = 1, no dropout: Q, K (a·d_qk), V and the projection input (a·d_v)
  // split over t; the two latents' down-projection and norm outputs 2·(q_lora + kv_lora) plus
  // the rotary key part whole on each GPU.
  const ModelSpec m = parse_model(tiny_yaml(test_support::kTinyMla), "mla.yaml");
  const double s = 32, h = 64, a = 4, e = 2, t = 2, f = 256;
  const double replicated = 4 * e * s * h;
  const double split = e * s * a * (2 * 12 + 2 * 8) + 3 * e * s * f;
  const double latents = e * s * (2 * 24 + 2 * 16 + 4);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, config(1, 2), Recompute::Selective).value,
                   replicated + split / t + latents);
  // Its parameters: down-projections and their norms, up-projections, output projection.
  const double attention =
      h * 24 + 24 + 24 * a * 12 + h * (16 + 4) + 16 + 16 * a * (8 + 8) + a * 8 * h;
  EXPECT_DOUBLE_EQ(layer_params(m), attention + 2 * h + 3 * h * f);
  // Forward FLOPs: the projections' GEMMs and QKᵀ over d_qk = 12, AV over d_v = 8.
  const double gemm = attention - 24 - 16 + 3 * h * f;
  EXPECT_DOUBLE_EQ(flops(layer_forward(m, config(1))), 2 * s * gemm + 2 * s * s * a * (12 + 8));
  // At t = 2 each GPU runs the down-projections whole (replicated, as Megatron-Core does) and
  // half of the rest; FlashAttention's causal core is half of 2·s²·a·(d_qk + d_v), over t.
  const double down = h * 24 + h * 20, split_gemm = gemm - down;
  LayerConfig flash = config(1, 2);
  flash.attention = Attention::Flash;
  EXPECT_DOUBLE_EQ(flops(layer_forward(m, flash)),
                   2 * s * down + 2 * s * split_gemm / 2 + 0.5 * 2 * s * s * a * (12 + 8) / 2);
  // Per GPU at t = 2 the down-projections and norms stay whole.
  EXPECT_DOUBLE_EQ(
      layer_params_per_gpu(m, 2),
      (24 * a * 12 + 16 * a * 16 + a * 8 * h + 3 * h * f) / 2 + h * 24 + 24 + h * 20 + 16 + 2 * h);
}

TEST(MoeLayout, GpuParametersDivideTheExpertsOverEAndEt) {
  const ModelSpec m = load_model("deepseek-v3");
  const LayerParameters whole = layer_parameters(m, LayerKind::Moe);
  LayerConfig c;
  c.tensor_parallel = 8;
  c.expert_parallel = 64;
  c.expert_tensor_parallel = 1;
  const GpuLayerParameters gpu = layer_params_per_gpu(m, c, LayerKind::Moe);
  // The e·e_t GPUs of the expert grid hold every routed expert once.
  EXPECT_DOUBLE_EQ(gpu.expert * 64 * 1, whole.experts * whole.expert);
  const double h = 7168, a = 128;
  const double split = 1536 * a * 192 + 512 * a * 256 + a * 128 * h + 3 * h * 2048;  // / t
  const double replicated = h * 1536 + 1536 + h * 576 + 512 + 2 * h + 256 * h + 256;
  EXPECT_DOUBLE_EQ(gpu.dense, split / 8 + replicated);
  // One GPU holding everything holds the whole layer.
  EXPECT_DOUBLE_EQ(layer_params_per_gpu(m, LayerConfig{}, LayerKind::Moe).total(), whole.total());
  // Expert tensor parallelism splits each local expert.
  c.expert_parallel = 32;
  c.expert_tensor_parallel = 2;
  EXPECT_DOUBLE_EQ(layer_params_per_gpu(m, c, LayerKind::Moe).expert * 32 * 2,
                   whole.experts * whole.expert);
}

TEST(MoeLayout, BadLayoutsAreNamedWithTheirRange) {
  const ModelSpec m = parse_model(kTinyMoe, "tiny.yaml");
  LayerConfig c;
  c.expert_parallel = 3;
  EXPECT_EQ(error_of([&] { validate_expert_layout(m, c); }),
            "command line: expert_parallel: must divide the 4 experts of model tiny, got 3");
  c.expert_parallel = 2;
  c.expert_tensor_parallel = 5;
  EXPECT_EQ(error_of([&] { validate_expert_layout(m, c); }),
            "command line: expert_tensor_parallel: must divide the expert FFN size 32 of model "
            "tiny, got 5");
  c.expert_tensor_parallel = 0;
  c.expert_imbalance = 0.5;
  EXPECT_EQ(error_of([&] { validate_expert_layout(m, c); }),
            "command line: expert_imbalance: must be in [1, 2] (1: balanced; at most every "
            "token's copies on one GPU) for model tiny with expert_parallel = 2, got 0.5");
  c.expert_imbalance = 2.0;
  EXPECT_NO_THROW(validate_expert_layout(m, c));
  LayerConfig dense;
  dense.expert_parallel = 2;
  EXPECT_EQ(error_of([&] { validate_expert_layout(load_model("llama2-7b"), dense); }),
            "command line: expert_parallel: applies to mixture-of-experts models; model "
            "llama2-7b is dense");
  EXPECT_NO_THROW(validate_expert_layout(load_model("llama2-7b"), LayerConfig{}));
}

TEST(MoeLayout, LayerPatternsFollowEachConvention) {
  ModelSpec m = parse_model(kTinyMoe, "tiny.yaml");
  EXPECT_EQ(layer_kind(m, 0), LayerKind::Dense);
  EXPECT_EQ(moe_layer_count(m), 3);
  // Megatron's moe_layer_freq 2: layers 0, 2, ...; Qwen's decoder_sparse_step 2: 1, 3, ...
  m.moe.first_dense_layers = 0;
  m.moe.layer_frequency = 2;
  EXPECT_EQ(layer_kind(m, 0), LayerKind::Moe);
  EXPECT_EQ(layer_kind(m, 1), LayerKind::Dense);
  m.moe.layer_phase = 1;
  EXPECT_EQ(layer_kind(m, 0), LayerKind::Dense);
  EXPECT_EQ(layer_kind(m, 3), LayerKind::Moe);
  for (int layers : {1, 2, 5, 7, 61}) {
    for (int first = 0; first < 4; ++first) {
      m.layers = layers;
      m.moe.first_dense_layers = first;
      m.moe.layer_frequency = 3;
      m.moe.layer_phase = 2;
      int counted = 0;
      for (int i = 0; i < layers; ++i)
        counted += layer_kind(m, i) == LayerKind::Moe ? 1 : 0;
      EXPECT_EQ(moe_layer_count(m), counted) << layers << " " << first;
    }
  }
}

TEST(MoeRefusal, TheUniformLayerApiRefusesExpertsAndMtpModules) {
  // The cost model prices one uniform layer through these functions: they refuse models whose
  // layers differ, naming the field, until it prices each kind.
  const ModelSpec moe = load_model("mixtral-8x7b");
  const std::string what = error_of([&] { layer_forward(moe, LayerConfig{}); });
  EXPECT_NE(what.find("mixtral-8x7b.yaml: moe: model mixtral-8x7b has 32 mixture-of-experts "
                      "layers, which the cost model does not price yet"),
            std::string::npos)
      << what;
  EXPECT_THROW(layer_params_per_gpu(moe, 1), core::ConfigError);
  EXPECT_THROW(layer_activation_bytes(moe, LayerConfig{}, Recompute::None), core::ConfigError);
  EXPECT_THROW(layer_recompute(moe, LayerConfig{}, Recompute::Selective), core::ConfigError);
  EXPECT_THROW(partition_layers(moe, 4, PartitionMode::Balanced, 1), core::ConfigError);
  ModelSpec mtp = load_model("llama2-7b");
  mtp.mtp_layers = 1;
  EXPECT_NE(error_of([&] { layer_backward_weight(mtp, LayerConfig{}); })
                .find("mtp_layers: model "
                      "llama2-7b has 1 "
                      "multi-token"),
            std::string::npos);
  // Whole-model counts and the embedding and head stay available.
  EXPECT_GT(model_params(moe), 0.0);
  EXPECT_FALSE(head_forward(moe, LayerConfig{}).empty());
}

TEST(MoeRefusal, DenseModelsGetTheSameLayerEitherWay) {
  for (const char* name : {"gpt2-1.3b", "llama2-70b", "qwen3-8b"}) {
    const ModelSpec m = load_model(name);
    for (int t : {1, 8}) {
      LayerConfig c;
      c.tensor_parallel = t;
      c.attention = t > 1 ? Attention::Flash : Attention::Standard;
      EXPECT_EQ(layer_forward(m, c), layer_forward(m, c, LayerKind::Dense)) << name;
      EXPECT_EQ(layer_backward_input(m, c), layer_backward_input(m, c, LayerKind::Dense));
      EXPECT_DOUBLE_EQ(layer_params_per_gpu(m, t),
                       layer_params_per_gpu(m, c, LayerKind::Dense).total());
      EXPECT_EQ(layer_activation_bytes(m, c, Recompute::None).value,
                layer_activation_bytes(m, c, Recompute::None, LayerKind::Dense).value);
    }
    EXPECT_DOUBLE_EQ(layer_params(m), layer_parameters(m, LayerKind::Dense).total()) << name;
    EXPECT_EQ(moe_layer_count(m), 0);
  }
}

TEST(HeadDim, AnExplicitHeadDimWidensQueriesAndTheProjection) {
  // Qwen3-8B has head_dim 128 = h/a: writing it changes nothing; Qwen3-30B-A3B's 128 is twice
  // h/a: queries and the projection input are 4096 wide, K and V 4·128.
  ModelSpec q8 = load_model("qwen3-8b");
  ModelSpec written = q8;
  written.explicit_head_dim = 128;
  EXPECT_EQ(layer_forward(q8, LayerConfig{}), layer_forward(written, LayerConfig{}));
  const ModelSpec m = load_model("qwen3-30b-a3b");
  const KernelList f = layer_forward(m, LayerConfig{}, LayerKind::Moe);
  EXPECT_EQ(kernel(f, "qkv").n, 4096 + 2 * 512);
  EXPECT_EQ(kernel(f, "proj").k, 4096);
  EXPECT_EQ(kernel(f, "scores").k, 128);
  EXPECT_EQ(kernel(f, "q_head_norm").rows, m.sequence * 32);  // one norm per head and token
  const LayerParameters p = layer_parameters(m, LayerKind::Moe);
  EXPECT_DOUBLE_EQ(p.attention, 2048.0 * 4096 * 2 + 2048.0 * 512 * 2 + 2 * 128);
}

}  // namespace
}  // namespace pipesim::models

namespace pipesim::models {
namespace {

TEST(MoeRouting, GroupLimitedRoutingIsReadFromYamlAndConfigJson) {
  const ModelSpec yaml = parse_model(tiny_yaml(R"(moe:
  experts: 8
  top_k: 2
  ffn_hidden: 32
  router_groups: 4
  router_group_topk: 2
)"),
                                     "tiny.yaml");
  EXPECT_EQ(yaml.moe.router_groups, 4);
  EXPECT_EQ(yaml.moe.router_group_topk, 2);
  // DeepSeek-V3's config.json (n_group 8, topk_group 4) gives what the shipped YAML says.
  const ModelSpec hf = load_hf_config(
      (std::filesystem::path(PIPESIM_TEST_SOURCE_DIR) / "tests/data/hf/deepseek-v3.json").string());
  const ModelSpec shipped = load_model("deepseek-v3");
  EXPECT_EQ(hf.moe.router_groups, 8);
  EXPECT_EQ(hf.moe.router_group_topk, 4);
  EXPECT_EQ(shipped.moe.router_groups, hf.moe.router_groups);
  EXPECT_EQ(shipped.moe.router_group_topk, hf.moe.router_group_topk);
}

TEST(MoeRouting, GroupLimitsOutOfRangeAreNamed) {
  const auto bad = [](const std::string& routing) {
    return error_of([&] {
      parse_model(tiny_yaml("moe:\n  experts: 8\n  top_k: 2\n  ffn_hidden: 32\n" + routing),
                  "tiny.yaml");
    });
  };
  EXPECT_NE(bad("  router_groups: 4\n").find("router_group_topk"), std::string::npos);
  EXPECT_NE(bad("  router_groups: 3\n  router_group_topk: 1\n").find("must divide experts = 8"),
            std::string::npos);
  EXPECT_NE(bad("  router_groups: 4\n  router_group_topk: 5\n").find("router_group_topk"),
            std::string::npos);
}

}  // namespace
}  // namespace pipesim::models
