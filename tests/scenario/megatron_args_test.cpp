// Megatron-LM launch scripts and argument lists: the bash subset the reader follows, each
// argument's mapping to pipesim's options and the model, and the refusals.

#include "pipesim/scenario/megatron_args.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/megatron_model.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/scenario/launch_script.hpp"

namespace pipesim::scenario {
namespace {

using Words = std::vector<std::string>;

LaunchCommand script(const std::string& text) {
  return parse_launch_script(text, "test.sh");
}

MegatronRun read(const std::string& args) {
  return read_megatron(parse_argument_list(args, "list"), "list", "megatron-test");
}

std::map<std::string, std::string> settings(const MegatronRun& run) {
  std::map<std::string, std::string> out;
  for (const MegatronSetting& s : run.settings)
    out[s.option] = s.text;
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

TEST(LaunchScript, ArraysExpandIntoTheTrainingCommand) {
  const LaunchCommand c = script(
      "GPUS=8\n"
      "DIST=(\n  --nproc_per_node $GPUS  # per node\n  --nnodes 2\n)\n"
      "MODEL=( --num-layers 4 --hidden-size 64 )\n"
      "torchrun ${DIST[@]} pretrain_gpt.py ${MODEL[@]} --lr 1e-4\n");
  EXPECT_EQ(c.launcher, (Words{"torchrun", "--nproc_per_node", "8", "--nnodes", "2"}));
  EXPECT_EQ(c.entry_point, "pretrain_gpt.py");
  EXPECT_EQ(c.args, (Words{"--num-layers", "4", "--hidden-size", "64", "--lr", "1e-4"}));
}

TEST(LaunchScript, DefaultsAndArithmeticAndContinuations) {
  const LaunchCommand c = script(
      "A=${UNSET:-\"from default\"}\nB=${A:+alt}\nN=$((2*(3+1)))\nE=${NOPE}\n"
      "python \\\n  train.py --a \"$A\" \\\n  --b $B --n $N --e $E --c ${#LIST[@]}\n");
  EXPECT_EQ(c.args, (Words{"--a", "from default", "--b", "alt", "--n", "8", "--e", "--c", "0"}));
}

TEST(LaunchScript, QuotingFollowsBash) {
  // A quoted element stays one word in a quoted expansion and splits in an unquoted one.
  const LaunchCommand c = script(
      "X=( \"--fp8-format hybrid\" 'single $NOT' )\n"
      "Y=()\nY+=(\"${X[@]}\")\n"
      "torchrun t.py ${X[@]} \"${Y[@]}\" \"a b\"c\\ d\n");
  EXPECT_EQ(c.args, (Words{"--fp8-format", "hybrid", "single", "$NOT", "--fp8-format hybrid",
                           "single $NOT", "a bc d"}));
}

TEST(LaunchScript, ConditionsChooseTheirBranch) {
  const LaunchCommand c = script(
      "D=fp8\nARGS=()\n"
      "if [[ \"$D\" == \"fp8\" ]] && [ -z \"$UNSET\" ]; then\n  ARGS+=(--yes)\n"
      "elif [ -n x ]; then\n  ARGS+=(--elif)\nelse\n  ARGS+=(--no)\nfi\n"
      "if [ ! -f \"train.py\" ]; then\n  echo missing; exit 1\nfi\n"
      "if [ -n \"$KEY\" ]; then ARGS+=(--key); fi\n"
      "python train.py \"${ARGS[@]}\" 2>&1 | tee log.txt\n");
  EXPECT_EQ(c.args, (Words{"--yes"}));
}

TEST(LaunchScript, LoopsAreSkippedWithAWarning) {
  const LaunchCommand c =
      script("for i in 1 2; do\n  echo $i\ndone\ntorchrun train.py --num-layers 2\n");
  EXPECT_EQ(c.args, (Words{"--num-layers", "2"}));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("for"), std::string::npos);
}

TEST(LaunchScript, NoTrainingCommandIsAnError) {
  EXPECT_THROW(script("A=1\necho pretrain_gpt.py\n"), core::ConfigError);
  EXPECT_THROW(script("X=( --a \"unclosed )\n"), core::ConfigError);
  EXPECT_THROW(split_words("--a 'open", "list"), core::ConfigError);
}

TEST(LaunchScript, WhatBashRefusesIsAnErrorOrAWarningNeverACrash) {
  // Found by the launch_script fuzzer: an operator-less expansion, a variable that names
  // itself in arithmetic, elif/else/fi without if.
  EXPECT_EQ(script("python t.py --a ${A:} --b").args, (Words{"--a", "--b"}));
  const LaunchCommand self = script("X=X\nN=$((X+1))\npython t.py --n \"$N\"\n");
  EXPECT_EQ(self.args, (Words{"--n", ""}));
  EXPECT_FALSE(self.warnings.empty());
  for (const char* stray : {"elif [ x ]; then :; fi", "else", "fi"}) {
    EXPECT_THROW(script(std::string(stray) + "\npython t.py\n"), core::ConfigError) << stray;
  }
}

TEST(LaunchScript, APastedListSplitsAtTheEntryPoint) {
  const LaunchCommand c = parse_argument_list(
      "torchrun --nproc_per_node 4 pretrain_gpt.py --num-layers 2 \\\n --bf16", "list");
  EXPECT_EQ(c.launcher, (Words{"torchrun", "--nproc_per_node", "4"}));
  EXPECT_EQ(c.args, (Words{"--num-layers", "2", "--bf16"}));
  EXPECT_EQ(parse_argument_list("--a 1 --b", "list").args, (Words{"--a", "1", "--b"}));
  // An operator outside quotes is refused, not read as a pipe.
  EXPECT_THROW(parse_argument_list("--layout Et|tL", "list"), core::ConfigError);
}

TEST(MegatronArgs, EachArgumentSetsItsOption) {
  const MegatronRun run = read(
      "--tensor-model-parallel-size 4 --pipeline-model-parallel-size 8 "
      "--virtual-pipeline-model-parallel-size 2 --context-parallel-size 2 "
      "--expert-model-parallel-size 8 --expert-tensor-parallel-size 1 --micro-batch-size 2 "
      "--seq-length 4096 --sequence-parallel --use-distributed-optimizer --overlap-grad-reduce "
      "--overlap-param-gather --tp-comm-overlap --overlap-moe-expert-parallel-comm "
      "--overlap-p2p-comm --moe-token-dispatcher-type flex --moe-flex-dispatcher-backend "
      "hybridep --recompute-modules mlp moe --pipeline-model-parallel-layout 'Et*3|t*3L' "
      "--ddp-bucket-size 1000 --use-flash-attn --moe-grouped-gemm");
  const auto s = settings(run);
  EXPECT_EQ(s.at("tensor_parallel"), "4");
  EXPECT_EQ(s.at("stages"), "8");
  EXPECT_EQ(s.at("schedule"), "interleaved");
  EXPECT_EQ(s.at("chunks"), "2");
  EXPECT_EQ(s.at("context_parallel"), "2");
  EXPECT_EQ(s.at("expert_parallel"), "8");
  EXPECT_EQ(s.at("micro_batch_size"), "2");
  EXPECT_EQ(s.at("sequence"), "4096");
  EXPECT_EQ(s.at("sequence_parallel"), "on");
  EXPECT_EQ(s.at("distributed_optimizer"), "on");
  EXPECT_EQ(s.at("overlap_grad_reduce"), "on");
  EXPECT_EQ(s.at("overlap_param_gather"), "on");
  EXPECT_EQ(s.at("tp_comm_overlap"), "on");
  EXPECT_EQ(s.at("moe_overlap"), "on");
  EXPECT_EQ(s.at("overlap_p2p"), "on");
  EXPECT_EQ(s.at("moe_token_dispatcher_type"), "flex");
  EXPECT_EQ(s.at("moe_dispatcher"), "hybridep");
  EXPECT_EQ(s.at("recompute_modules"), "mlp,moe");
  EXPECT_EQ(s.at("layout"), "Et*3|t*3L");
  EXPECT_EQ(s.at("grad_bucket_bytes"), "4000");  // fp32 gradient elements
  EXPECT_EQ(s.at("attention"), "flash");
  EXPECT_EQ(s.at("moe_grouped_gemm"), "on");
  EXPECT_TRUE(run.unknown.empty());
}

TEST(MegatronArgs, PrecisionAndRecomputation) {
  EXPECT_EQ(settings(read("--bf16")).at("precision"), "bf16");
  EXPECT_EQ(settings(read("--fp16")).at("precision"), "fp16");
  // fp8 GEMMs on a bf16 model: no contradiction.
  EXPECT_EQ(settings(read("--bf16 --fp8-format hybrid")).at("precision"), "fp8");
  EXPECT_EQ(settings(read("--fp8-format e4m3 --fp8-recipe mxfp8")).at("precision"), "mxfp8");
  EXPECT_EQ(settings(read("--fp4-format e2m1 --fp4-recipe nvfp4 --bf16")).at("precision"), "nvfp4");
  EXPECT_EQ(settings(read("--recompute-activations")).at("recompute"), "selective");
  EXPECT_EQ(settings(read("--recompute-granularity full --recompute-method uniform "
                          "--recompute-num-layers 1"))
                .at("recompute"),
            "full");
  EXPECT_EQ(settings(read("--ddp-bucket-size 10 --grad-reduce-in-bf16")).at("grad_bucket_bytes"),
            "20");
  EXPECT_EQ(settings(read("--cuda-graph-impl local")).at("cuda_graphs"), "partial");
  EXPECT_EQ(settings(read("--cuda-graph-impl transformer_engine --cuda-graph-scope attn mlp"))
                .at("cuda_graphs"),
            "attn,mlp");
  EXPECT_THROW(read("--recompute-method block"), core::ConfigError);  // needs full
  EXPECT_THROW(read("--fp8-format e5m2"), core::ConfigError);
  EXPECT_THROW(read("--cuda-graph-scope attn"), core::ConfigError);
}

TEST(MegatronArgs, FsdpArgumentsSetTheDataParallelSharding) {
  // Megatron-FSDP shards what its strategy says, optim_grads_params when none is given
  // (arguments.py's default); torch FSDP2's fully_shard shards the parameters.
  const MegatronRun fsdp = read(
      "--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params "
      "--use-distributed-optimizer");
  EXPECT_EQ(settings(fsdp).at("data_parallel_sharding"), "params");
  EXPECT_EQ(settings(fsdp).at("distributed_optimizer"), "on");  // consistent: every level
  EXPECT_TRUE(has(fsdp.used, "use_megatron_fsdp"));
  EXPECT_TRUE(has(fsdp.used, "data_parallel_sharding_strategy"));
  EXPECT_TRUE(fsdp.unknown.empty());
  EXPECT_EQ(settings(read("--use-megatron-fsdp")).at("data_parallel_sharding"), "params");
  const std::pair<const char*, const char*> strategies[] = {
      {"no_shard", "none"}, {"optim", "optimizer"}, {"optim_grads", "gradients"}};
  for (const auto& [strategy, level] : strategies) {
    EXPECT_EQ(settings(read(std::string("--use-megatron-fsdp --data-parallel-sharding-strategy ") +
                            strategy))
                  .at("data_parallel_sharding"),
              level)
        << strategy;
  }
  EXPECT_EQ(settings(read("--use-torch-fsdp2")).at("data_parallel_sharding"), "params");
  EXPECT_EQ(settings(read("--use-megatron-fsdp --megatron-fsdp-main-grads-dtype bf16"))
                .at("grad_reduce_in_bf16"),
            "on");
  EXPECT_EQ(settings(read("--megatron-fsdp-main-grads-dtype fp32")).count("grad_reduce_in_bf16"),
            0u);
  // Without Megatron-FSDP the strategy is not read: a warning, no setting.
  const MegatronRun alone = read("--data-parallel-sharding-strategy optim_grads");
  EXPECT_EQ(settings(alone).count("data_parallel_sharding"), 0u);
  EXPECT_FALSE(alone.warnings.empty());
  EXPECT_THROW(read("--use-megatron-fsdp --data-parallel-sharding-strategy zero3"),
               core::ConfigError);
}

TEST(MegatronArgs, TwiceTheSameIsFineTwoValuesAreRefused) {
  EXPECT_EQ(settings(read("--tensor-model-parallel-size 8 --tensor-model-parallel-size 8"))
                .at("tensor_parallel"),
            "8");
  try {
    read("--tensor-model-parallel-size 8 --tensor-model-parallel-size=4");
    FAIL() << "contradiction accepted";
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'8'"), std::string::npos) << what;
    EXPECT_NE(what.find("'4'"), std::string::npos) << what;
  }
  // Two arguments that set one option differently.
  try {
    read("--bf16 --fp16");
    FAIL() << "contradiction accepted";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read("--recompute-activations --recompute-granularity full"), core::ConfigError);
}

TEST(MegatronArgs, ArgumentsAreUsedIgnoredOrUnknown) {
  const MegatronRun run =
      read("--num-layers 2 --lr 1e-4 --wandb-project x --save /ckpt --frobnicate 3 --bf16");
  EXPECT_TRUE(has(run.used, "num_layers"));
  EXPECT_TRUE(has(run.used, "bf16"));
  EXPECT_TRUE(has(run.ignored, "lr"));
  EXPECT_TRUE(has(run.ignored, "wandb_project"));
  EXPECT_TRUE(has(run.ignored, "save"));
  EXPECT_EQ(run.unknown, (Words{"frobnicate"}));
  EXPECT_THROW(read("stray --num-layers 2"), core::ConfigError);
}

TEST(MegatronArgs, TheLauncherGivesTheWorldSize) {
  const MegatronRun run = read_megatron(
      parse_argument_list("torchrun --nproc-per-node=8 --nnodes 4 pretrain_gpt.py --bf16", "l"),
      "l", "megatron-l");
  EXPECT_EQ(run.world_size, 32);
}

TEST(MegatronArgs, MergeDerivesWidthAndMicroBatches) {
  MegatronRun run = read(
      "--num-layers 8 --hidden-size 256 --num-attention-heads 8 --vocab-size 1000 "
      "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --global-batch-size 64 "
      "--micro-batch-size 2");
  std::map<std::string, std::string> texts{{"tensor_parallel", "2"}};  // agrees
  merge_megatron(texts, run, 16, true);
  EXPECT_EQ(texts.at("data_parallel"), "4");
  EXPECT_EQ(texts.at("micro_batches"), "8");  // 64 / (2 · 4)
  EXPECT_EQ(texts.at("model"), "megatron-test");
  std::map<std::string, std::string> other{{"tensor_parallel", "4"}};
  EXPECT_THROW(merge_megatron(other, run, 16, true), core::ConfigError);
  std::map<std::string, std::string> uneven;
  EXPECT_THROW(merge_megatron(uneven, run, 10, true), core::ConfigError);  // 10 % 4
}

TEST(MegatronArgs, LayersPerVirtualStageSetsChunks) {
  MegatronRun run = read(
      "--num-layers 8 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 "
      "--seq-length 128 --pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage "
      "2");
  std::map<std::string, std::string> texts;
  merge_megatron(texts, run, 0, true);
  EXPECT_EQ(texts.at("schedule"), "interleaved");
  EXPECT_EQ(texts.at("chunks"), "2");  // L / (D · k) = 8 / (2 · 2)
  // A schedule of the user's that takes chunks agrees with the virtual pipeline.
  MegatronRun vpp = read(
      "--num-layers 8 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 "
      "--seq-length 128 --virtual-pipeline-model-parallel-size 2");
  std::map<std::string, std::string> mine{{"schedule", "interleaved"}};
  EXPECT_NO_THROW(merge_megatron(mine, vpp, 0, true));
  std::map<std::string, std::string> other{{"schedule", "1f1b"}};
  EXPECT_THROW(merge_megatron(other, vpp, 0, true), core::ConfigError);
}

TEST(MegatronArgs, AModelOptionReplacesTheShapeArguments) {
  MegatronRun run = read(
      "--num-layers 8 --hidden-size 64 --num-attention-heads 4 "
      "--seq-length 128 --bf16");
  std::map<std::string, std::string> texts{{"model", "gpt2-1.3b"}};
  merge_megatron(texts, run, 0, true);
  EXPECT_EQ(texts.at("model"), "gpt2-1.3b");
  EXPECT_EQ(texts.at("sequence"), "128");  // still the run's sequence
  EXPECT_TRUE(has(run.ignored, "num_layers"));
  EXPECT_FALSE(has(run.used, "num_layers"));
  EXPECT_TRUE(has(run.used, "seq_length"));
}

TEST(MegatronArgs, SequenceParallelWithoutTensorParallelIsTurnedOff) {
  MegatronRun run = read(
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 "
      "--vocab-size 100 --sequence-parallel");
  std::map<std::string, std::string> texts;
  const std::vector<std::string> warnings = merge_megatron(texts, run, 0, true);
  EXPECT_EQ(texts.at("sequence_parallel"), "off");
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings.back().find("sequence_parallel"), std::string::npos);
}

TEST(MegatronModel, ShapeArgumentsAndMegatronDefaults) {
  const models::ModelSpec gpt = models::megatron_model({{"num_layers", "2"},
                                                        {"hidden_size", "128"},
                                                        {"num_attention_heads", "4"},
                                                        {"seq_length", "256"},
                                                        {"max_position_embeddings", "512"},
                                                        {"merge_file", ""}},
                                                       "s", "m", 2);
  EXPECT_EQ(gpt.ffn_hidden, 512);
  EXPECT_EQ(gpt.vocabulary, 50432);  // 50257 padded to a multiple of 128·2
  EXPECT_EQ(gpt.position_embeddings, 512);
  EXPECT_TRUE(gpt.tied_embeddings);
  EXPECT_TRUE(gpt.bias);
  EXPECT_EQ(gpt.norm, models::Norm::LayerNorm);
  const models::ModelSpec llama =
      models::megatron_model({{"num_layers", "2"},
                              {"hidden_size", "4096"},
                              {"num_attention_heads", "32"},
                              {"swiglu", ""},
                              {"group_query_attention", ""},
                              {"num_query_groups", "8"},
                              {"position_embedding_type", "rope"},
                              {"normalization", "RMSNorm"},
                              {"untie_embeddings_and_output_weights", ""},
                              {"disable_bias_linear", ""},
                              {"vocab_size", "32000"},
                              {"num_experts", "8"},
                              {"moe_layer_freq", "([0]*1+[1]*1)"},
                              {"moe_shared_expert_intermediate_size", "1024"}},
                             "s", "m", 1);
  EXPECT_EQ(llama.ffn_hidden, 10922 / 64 * 64);  // 8h/3 down to a multiple of 64
  EXPECT_EQ(llama.kv_heads, 8);
  EXPECT_EQ(llama.position_embeddings, 0);
  EXPECT_FALSE(llama.tied_embeddings);
  EXPECT_EQ(llama.moe.top_k, 2);
  EXPECT_EQ(llama.moe.ffn_hidden, llama.ffn_hidden);
  EXPECT_EQ(llama.moe.first_dense_layers, 1);
  EXPECT_EQ(llama.moe.shared_ffn_hidden, 1024);
  const models::ModelSpec narrow = models::megatron_model({{"num_layers", "2"},
                                                           {"hidden_size", "4096"},
                                                           {"num_attention_heads", "32"},
                                                           {"kv_channels", "64"},
                                                           {"vocab_size", "100"},
                                                           {"attention_backend", "unfused"}},
                                                          "s", "m", 1);
  EXPECT_EQ(narrow.head_dim(), 64);
  EXPECT_EQ(narrow.attention, models::Attention::Standard);
  const models::ModelSpec mla = models::megatron_model({{"num_layers", "2"},
                                                        {"hidden_size", "1024"},
                                                        {"num_attention_heads", "16"},
                                                        {"vocab_size", "1000"},
                                                        {"multi_latent_attention", ""},
                                                        {"q_lora_rank", "384"},
                                                        {"kv_lora_rank", "256"},
                                                        {"qk_head_dim", "64"},
                                                        {"qk_pos_emb_head_dim", "32"},
                                                        {"v_head_dim", "64"},
                                                        {"mtp_num_layers", "1"}},
                                                       "s", "m", 1);
  EXPECT_TRUE(mla.is_mla());
  EXPECT_EQ(mla.mla.qk_rope_head_dim, 32);
  EXPECT_EQ(mla.mtp_layers, 1);
  // Every problem at once, each named.
  try {
    models::megatron_model({{"hidden_size", "x"}, {"num_attention_heads", "3"}}, "s", "m", 1);
    FAIL();
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("num_layers"), std::string::npos) << what;
    EXPECT_NE(what.find("hidden_size"), std::string::npos) << what;
    EXPECT_NE(what.find("vocab_size"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace pipesim::scenario
