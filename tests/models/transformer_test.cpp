// Transformer FLOPs and activations against the closed forms of Narayanan et al. (SC'21),
// Korthikanti et al. (2022) and Qi et al. (zero bubble); layer partitioning.

#include "pipesim/models/transformer.hpp"

#include <gtest/gtest.h>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"

namespace pipesim::models {
namespace {

TEST(Transformer, IterationFlopsMatchNarayanan) {
  for (const char* name : {"gpt3-175b", "gpt2-1.3b", "gpt2-32l", "bert-48"}) {
    const ModelSpec m = load_model(name);
    const double B = 1536, s = m.sequence, L = m.layers, h = m.hidden, V = m.vocabulary;
    // 72·B̂·s·L·h²(1 + s/6h + V/12Lh), no recomputation.
    const double expected = 72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
    EXPECT_NEAR(model_flops_per_iteration(m, B).value / expected, 1.0, 1e-12) << name;
  }
}

LayerConfig with_b(int b) {
  LayerConfig c;
  c.micro_batch_size = b;
  return c;
}

double flops(const KernelList& ks) {
  return kernel_flops(ks).value;
}

TEST(Transformer, PerLayerSplitMatchesZeroBubble) {
  const ModelSpec m = load_model("gpt3-175b");
  const int b = 2;
  const double s = m.sequence, h = m.hidden, sbh = s * b * h;
  EXPECT_DOUBLE_EQ(flops(layer_forward(m, with_b(b))), sbh * (24 * h + 4 * s));
  EXPECT_DOUBLE_EQ(flops(layer_backward_input(m, with_b(b))), sbh * (24 * h + 8 * s));
  EXPECT_DOUBLE_EQ(flops(layer_backward_weight(m, with_b(b))), 24 * sbh * h);
}

TEST(Transformer, SixteenBitActivationBytesMatchKorthikanti) {
  for (const char* name : {"gpt3-175b"}) {
    const ModelSpec m = load_model(name);
    for (int b : {1, 4}) {
      const double s = m.sequence, h = m.hidden, a = m.heads, sbh = s * b * h;
      EXPECT_DOUBLE_EQ(layer_activation_bytes(m, with_b(b), Recompute::None).value,
                       sbh * (34 + 5 * a * s / h));
      EXPECT_DOUBLE_EQ(layer_activation_bytes(m, with_b(b), Recompute::Selective).value, 34 * sbh);
      EXPECT_DOUBLE_EQ(layer_activation_bytes(m, with_b(b), Recompute::Full).value, 2 * sbh);
    }
  }
}

TEST(Transformer, Fp32ActivationsDoubleTheTensorsButNotTheOneByteMasks) {
  // Chimera's fp32 GPT-2: Korthikanti's inventory with 4-byte elements; the three dropout
  // masks (sbh, sbh, as²b) stay one byte.
  const ModelSpec m = load_model("gpt2-1.3b");
  ASSERT_EQ(m.precision, Precision::FP32);
  const double s = m.sequence, h = m.hidden, a = m.heads, sbh = s * h, as2 = a * s * s;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, with_b(1), Recompute::None).value,
                   2 * (32 * sbh + 4 * as2) + 2 * sbh + as2);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, with_b(1), Recompute::Full).value, 4 * sbh);
}

TEST(Transformer, ActivationInventoryCountsGroupedQueryAttentionAndSwiGLU) {
  // Korthikanti's itemisation with K, V of width h_kv, three FFN-wide SwiGLU tensors and no
  // dropout (Llama): no masks, and the attention core keeps only the softmax output 2as²b.
  const ModelSpec m = load_model("llama2-70b");
  ASSERT_FALSE(m.dropout);
  const double s = m.sequence, h = m.hidden, a = m.heads, f = m.ffn_hidden, kv = m.kv_hidden();
  const double sb = s * 1;
  const double linear = 6 * sb * h + 4 * sb * kv + 2 * sb * h + 6 * sb * f + 4 * sb * h;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, with_b(1), Recompute::Selective).value, linear);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, with_b(1), Recompute::None).value,
                   linear + 2 * a * s * sb);
}

TEST(Transformer, RecomputeAddsTheRightForwardPart) {
  const ModelSpec m = load_model("gpt2-1.3b");
  EXPECT_EQ(flops(layer_recompute(m, with_b(1), Recompute::None)), 0.0);
  EXPECT_DOUBLE_EQ(flops(layer_recompute(m, with_b(1), Recompute::Full)),
                   flops(layer_forward(m, with_b(1))));
  const double s = m.sequence, h = m.hidden;
  EXPECT_DOUBLE_EQ(flops(layer_recompute(m, with_b(1), Recompute::Selective)), 4 * s * s * h);
}

TEST(Transformer, BackwardIsTheLayerListSplitIntoInputAndWeightParts) {
  for (const char* name : {"gpt2-1.3b", "llama2-70b"}) {
    const ModelSpec m = load_model(name);
    for (int t : {1, 8}) {
      LayerConfig c;
      c.tensor_parallel = t;
      const KernelList all = layer_kernels(layer_shape(m, c), LayerDirection::backward);
      const KernelList in = layer_backward_input(m, c), w = layer_backward_weight(m, c);
      EXPECT_EQ(in.size() + w.size(), all.size());
      for (const auto& k : w)
        EXPECT_TRUE(k.is_gemm && k.weight_gradient) << k.name;
      EXPECT_DOUBLE_EQ(flops(in) + flops(w), flops(all));
      EXPECT_DOUBLE_EQ(flops(w), 2.0 * 1 * m.sequence * layer_matmul_params(m) / t) << name;
    }
  }
}

// Megatron-LM's unfused vocab_parallel_cross_entropy on `logits.float()`, per 16-bit logit:
// forward cast 2 + 4, max 4, subtract 8, exp 8, sum 4, divide 8 = 38 bytes; backward multiply
// 8, cast back 4 + 2 = 14. fp32 logits skip both casts (32 and 8); off, a fused 12 and 8.
TEST(Transformer, UnfusedCrossEntropyStreamsTheLogitsOncePerStep) {
  const auto bytes = [](const KernelList& ks, const char* name) {
    for (const LayerKernel& k : ks)
      if (k.name == name) return static_cast<double>(k.bytes);
    ADD_FAILURE() << name;
    return 0.0;
  };
  ModelSpec m = load_model("vocab-1f1b-8gpu");
  LayerConfig c = with_b(2);
  c.tensor_parallel = 4;
  const double logits = 2.0 * m.sequence * (m.vocabulary / 4);
  EXPECT_DOUBLE_EQ(bytes(head_forward(m, c), "cross_entropy"), 12 * logits);
  EXPECT_DOUBLE_EQ(bytes(head_backward_input(m, c), "cross_entropy_bwd"), 8 * logits);
  c.unfused_cross_entropy = true;
  EXPECT_DOUBLE_EQ(bytes(head_forward(m, c), "cross_entropy"), 38 * logits);
  EXPECT_DOUBLE_EQ(bytes(head_backward_input(m, c), "cross_entropy_bwd"), 14 * logits);
  m.precision = Precision::FP32;
  EXPECT_DOUBLE_EQ(bytes(head_forward(m, c), "cross_entropy"), 32 * logits);
  EXPECT_DOUBLE_EQ(bytes(head_backward_input(m, c), "cross_entropy_bwd"), 8 * logits);
}

TEST(Partition, UniformSplitsEvenlyWithEmbeddingFirstAndHeadLast) {
  const ModelSpec m = load_model("gpt2-1.3b");
  const auto p = partition_layers(m, 32, PartitionMode::Uniform, 1);
  ASSERT_EQ(p.size(), 32u);
  int next = 0;
  for (size_t s = 0; s < p.size(); ++s) {
    EXPECT_EQ(p[s].first_layer, next);
    EXPECT_EQ(p[s].layers, 2);
    EXPECT_EQ(p[s].embedding, s == 0);
    EXPECT_EQ(p[s].head, s + 1 == p.size());
    next += p[s].layers;
  }
}

TEST(Partition, BalancedCoversAllLayersAndLightensTheHeadStage) {
  const ModelSpec m = load_model("gpt2-32l");
  for (int d : {2, 3, 4, 7, 8, 16}) {
    const auto p = partition_layers(m, d, PartitionMode::Balanced, 1);
    ASSERT_EQ(static_cast<int>(p.size()), d);
    int total = 0;
    for (const auto& st : p) {
      EXPECT_GE(st.layers, 1);
      EXPECT_EQ(st.first_layer, total);
      total += st.layers;
    }
    EXPECT_EQ(total, m.layers);
    // The head's logits cost about 1.5 layers here, so the last stage gets fewer layers.
    EXPECT_LE(p.back().layers, p.front().layers) << "D=" << d;
  }
}

TEST(Partition, MoreStagesThanLayersIsAnError) {
  const ModelSpec m = load_model("gpt2-32l");
  EXPECT_THROW(partition_layers(m, 33, PartitionMode::Uniform, 1), core::ConfigError);
  EXPECT_NO_THROW(partition_layers(m, 32, PartitionMode::Balanced, 1));
}

}  // namespace
}  // namespace pipesim::models
