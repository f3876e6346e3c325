// torchtitan job configs (TOML): each key's mapping to pipesim's options, the derived layout
// (W from the degrees, B and N from the batch sizes, the stages' layers as torchtitan splits
// them), the used / ignored / unknown lists, and the refusals, each naming the file and key.

#include "pipesim/scenario/torchtitan_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/layout.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {
namespace {

TorchtitanRun read(const std::string& text) {
  return parse_torchtitan(text, "job.toml");
}

std::map<std::string, std::string> settings(const TorchtitanRun& run) {
  std::map<std::string, std::string> out;
  for (const ReadSetting& s : run.settings)
    out[s.option] = s.text;
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// The one-line error a config gets, or "" when it reads.
std::string error_of(const std::string& text, int gpus = 8) {
  try {
    TorchtitanRun run = read(text);
    std::map<std::string, std::string> texts;
    (void)merge_torchtitan(texts, run, gpus, true);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kModel = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n";

TEST(TorchtitanConfig, DegreesAndBatchSetTheirOptions) {
  TorchtitanRun run =
      read(std::string(kModel) +
           "[training]\nlocal_batch_size = 4\nseq_len = 4096\n"
           "[parallelism]\ntensor_parallel_degree = 4\ncontext_parallel_degree = 2\n"
           "data_parallel_replicate_degree = 2\n");
  const auto s = settings(run);
  EXPECT_EQ(s.at("tensor_parallel"), "4");
  EXPECT_EQ(s.at("sequence_parallel"), "on");  // torchtitan's TP plan shards the norms
  EXPECT_EQ(s.at("context_parallel"), "2");
  EXPECT_EQ(s.at("stages"), "1");
  EXPECT_EQ(s.at("sequence"), "4096");
  EXPECT_EQ(s.at("attention"), "flash");
  EXPECT_EQ(s.at("precision"), "bf16");
  std::map<std::string, std::string> texts;
  (void)merge_torchtitan(texts, run, 64, true);
  // 64 GPUs = replicate 2 · shard s · T 4 · C 2: s = 4, W = 8; no pipeline: B = the local batch.
  EXPECT_EQ(texts.at("data_parallel"), "8");
  EXPECT_EQ(texts.at("micro_batch_size"), "4");
  EXPECT_EQ(texts.at("micro_batches"), "1");
  EXPECT_EQ(texts.at("model"), "llama3-8b");
  EXPECT_EQ(texts.count("layout"), 0u);
}

TEST(TorchtitanConfig, TorchtitansDefaultsApply) {
  // No [training] and no [activation_checkpoint]: local batch 8 at 2048 tokens, selective
  // checkpointing of every second layer (read as full, with a warning).
  TorchtitanRun run = read(kModel);
  const auto s = settings(run);
  EXPECT_EQ(s.at("sequence"), "2048");
  EXPECT_EQ(s.at("recompute"), "full");
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_NE(run.warnings[0].find("selective_ac_option"), std::string::npos);
  EXPECT_EQ(s.count("schedule"), 0u);  // no pipeline: no schedule runs
  std::map<std::string, std::string> texts;
  (void)merge_torchtitan(texts, run, 16, true);
  EXPECT_EQ(texts.at("micro_batch_size"), "8");
  EXPECT_EQ(texts.at("data_parallel"), "16");
}

TEST(TorchtitanConfig, CheckpointingAndPrecisionModes) {
  const auto with = [](const std::string& extra) { return settings(read(kModel + extra)); };
  EXPECT_EQ(with("[activation_checkpoint]\nmode = \"none\"\n").at("recompute"), "none");
  EXPECT_EQ(with("[activation_checkpoint]\nmode = \"full\"\n").at("recompute"), "full");
  EXPECT_EQ(with("[activation_checkpoint]\nselective_ac_option = \"op\"\n").at("recompute"),
            "selective");
  EXPECT_EQ(with("[activation_checkpoint]\nselective_ac_option = \"1\"\n").at("recompute"), "full");
  EXPECT_EQ(with("[training]\nmixed_precision_param = \"float32\"\n").at("precision"), "fp32");
  const auto bf16 = with("[training]\ndtype = \"bfloat16\"\n");
  EXPECT_EQ(bf16.at("precision"), "bf16");
  EXPECT_EQ(bf16.at("bytes_per_param"), "8");  // 2 each: weights, gradients, two moments
  // A quantize section alone changes nothing: the converter turns it on.
  const std::string section = "[quantize.linear.float8]\nenable_fsdp_float8_all_gather = true\n";
  EXPECT_EQ(with(section).at("precision"), "bf16");
  EXPECT_EQ(with(section).count("fp8_param_gather"), 0u);
  const std::string fp8 = std::string(
                              "[model]\nname = \"llama3\"\nflavor = \"8B\"\n"
                              "converters = [\"quantize.linear.float8\"]\n") +
                          section;
  const TorchtitanRun run = read(fp8);
  EXPECT_EQ(settings(run).at("precision"), "fp8");
  EXPECT_EQ(settings(run).at("fp8_param_gather"), "on");
  EXPECT_TRUE(has(run.used, "quantize.linear.float8.enable_fsdp_float8_all_gather"));
  EXPECT_EQ(settings(read("[model]\nconverters = [\"mx\"]\n")).at("precision"), "mxfp8");
}

TEST(TorchtitanConfig, AsyncTensorParallelNeedsTheCompiledModel) {
  const std::string tp =
      std::string(kModel) +
      "[parallelism]\ntensor_parallel_degree = 2\nenable_async_tensor_parallel = true\n";
  const TorchtitanRun eager = read(tp);
  EXPECT_EQ(settings(eager).count("tp_comm_overlap"), 0u);
  EXPECT_TRUE(has(eager.ignored, "compile.enable") || !has(eager.used, "compile.enable"));
  ASSERT_FALSE(eager.warnings.empty());
  const TorchtitanRun compiled = read(tp + "[compile]\nenable = true\ncomponents = [\"model\"]\n");
  EXPECT_EQ(settings(compiled).at("tp_comm_overlap"), "on");
  EXPECT_TRUE(has(compiled.used, "compile.enable"));
  EXPECT_TRUE(has(compiled.used, "compile.components"));
}

TEST(TorchtitanConfig, KeysAreUsedIgnoredOrUnknown) {
  const std::string text = std::string(kModel) +
                           "[optimizer]\nname = \"AdamW\"\nlr = 1e-4\n"
                           "[checkpoint]\nfolder = \"ckpt\"\n"
                           "[training]\nseq_len = 1024\nsteps = 10\nenable_cpu_offload = true\n"
                           "[frobnicate]\nlevel = 3\n";
  const TorchtitanRun run = read(text);
  EXPECT_TRUE(has(run.used, "model.flavor"));
  EXPECT_TRUE(has(run.used, "training.seq_len"));
  EXPECT_TRUE(has(run.used, "optimizer.name"));
  EXPECT_TRUE(has(run.ignored, "optimizer.lr"));
  EXPECT_TRUE(has(run.ignored, "checkpoint.folder"));
  EXPECT_TRUE(has(run.ignored, "training.steps"));
  EXPECT_TRUE(has(run.unknown, "frobnicate.level"));
  // A known key whose value pipesim does not model is unknown, with the reason.
  EXPECT_TRUE(has(run.unknown, "training.enable_cpu_offload"));
  EXPECT_EQ(run.unmodelled.count("training.enable_cpu_offload"), 1u);
  // Every key (a line with " = ") is in one list, in file order.
  size_t keys = 0;
  for (size_t at = text.find(" = "); at != std::string::npos; at = text.find(" = ", at + 1))
    ++keys;
  EXPECT_EQ(run.used.size() + run.ignored.size() + run.unknown.size(), keys);
  EXPECT_EQ(run.used.front(), "model.name");
}

TEST(TorchtitanConfig, OlderKeysReadAsTodays) {
  const auto s =
      settings(read(std::string(kModel) + "[training]\nbatch_size = 2\ntensor_parallel_degree = 2\n"
                                          "[experimental]\npipeline_parallel_degree = 2\n"));
  EXPECT_EQ(s.at("tensor_parallel"), "2");
  EXPECT_EQ(s.at("stages"), "2");
  // training.compile was compile.enable, on the model and the loss (compile.components' default).
  EXPECT_EQ(
      settings(read(std::string(kModel) + "[training]\ntensor_parallel_degree = 2\ncompile = true\n"
                                          "enable_async_tensor_parallel = true\n"))
          .at("tp_comm_overlap"),
      "on");
  EXPECT_NE(error_of(std::string(kModel) + "[training]\ntensor_parallel_degree = 2\n"
                                           "[parallelism]\ntensor_parallel_degree = 4\n"),
            "");
}

TEST(TorchtitanConfig, EverySchedulePyTorchNamesMapsToItsPipesimSchedule) {
  // torch.distributed.pipelining's names (get_schedule_class) and the schemes they are.
  const std::map<std::string, std::string> expected = {{"GPipe", "gpipe"},
                                                       {"1F1B", "1f1b"},
                                                       {"Interleaved1F1B", "interleaved"},
                                                       {"LoopedBFS", "bfs"},
                                                       {"ZBVZeroBubble", "zb-v"},
                                                       {"DualPipeV", "dualpipev"},
                                                       {"InterleavedZeroBubble", "interleaved-zb"}};
  EXPECT_EQ(torchtitan_schedules().size(), expected.size());
  for (const auto& [torch_name, pipesim_name] : expected) {
    std::string lower = torch_name;  // torchtitan matches the names case-insensitively
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    for (const std::string& spelled : {torch_name, lower}) {
      const std::string text = std::string(kModel) +
                               "[parallelism]\npipeline_parallel_degree = 2\n"
                               "pipeline_parallel_schedule = \"" +
                               spelled + "\"\n";
      EXPECT_EQ(settings(read(text)).at("schedule"), pipesim_name) << spelled;
    }
  }
  // The CSV-only base classes and names PyTorch does not have are refused.
  for (const char* refused : {"PipelineScheduleMulti", "PipelineScheduleSingle", "Chimera"}) {
    const std::string e = error_of(std::string(kModel) +
                                   "[parallelism]\npipeline_parallel_degree = 2\n"
                                   "pipeline_parallel_schedule = \"" +
                                   refused + "\"\n");
    EXPECT_NE(e.find("parallelism.pipeline_parallel_schedule"), std::string::npos) << e;
    for (const auto& [torch_name, _] : expected)
      EXPECT_NE(e.find(torch_name), std::string::npos) << e;
  }
}

// torchtitan's split checked against its rules: L + first + last effective layers spread over
// the stages as evenly as whole layers allow (the first ones one more), the embedding on the
// first stage standing for `first` layers, the output on the last for `last`.
TEST(TorchtitanConfig, TheSplitFollowsTorchtitansRule) {
  const models::ModelSpec m = models::load_model("llama3-8b");
  for (const int stages : {2, 3, 4, 8, 12, 16}) {
    for (const long ends : {0L, 1L, 2L}) {
      const std::string text = torchtitan_layout(m.layers, stages, ends, ends, "t");
      const std::vector<models::LayoutStage> parsed = models::parse_layout(text);
      ASSERT_EQ(static_cast<int>(parsed.size()), stages) << text;
      const long effective = m.layers + 2 * ends;
      int total = 0;
      for (int i = 0; i < stages; ++i) {
        const auto& st = parsed[static_cast<size_t>(i)];
        const long weight = st.transformer + (i == 0 ? ends : 0) + (i == stages - 1 ? ends : 0);
        EXPECT_EQ(weight, effective / stages + (i < effective % stages ? 1 : 0)) << text;
        EXPECT_EQ(st.embedding, i == 0 ? 1 : 0);
        EXPECT_EQ(st.loss, i == stages - 1 ? 1 : 0);
        total += st.transformer;
      }
      EXPECT_EQ(total, m.layers) << text;
      EXPECT_NO_THROW((void)models::layout_partition(m, text, stages)) << text;
    }
  }
  // More stages than effective layers, or an end heavier than a stage: refused as torchtitan
  // refuses them, naming the key.
  EXPECT_THROW((void)torchtitan_layout(4, 7, 1, 1, "t"), core::ConfigError);
  try {
    (void)torchtitan_layout(32, 16, 3, 1, "t");
    ADD_FAILURE();
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("first_stage_less_layers"), std::string::npos);
  }
}

TEST(TorchtitanConfig, LayersPerStageSetChunksAndTheLayout) {
  const auto config = [](int layers_per_stage) {
    return std::string(kModel) +
           "[training]\nlocal_batch_size = 8\nglobal_batch_size = 32\n"
           "[parallelism]\npipeline_parallel_degree = 2\n"
           "pipeline_parallel_schedule = \"Interleaved1F1B\"\n"
           "pipeline_parallel_first_stage_less_layers = 2\n"
           "pipeline_parallel_microbatch_size = 2\n"
           "pipeline_parallel_layers_per_stage = " +
           std::to_string(layers_per_stage) + "\n";
  };
  TorchtitanRun run = read(config(6));
  std::map<std::string, std::string> texts;
  (void)merge_torchtitan(texts, run, 4, true);
  // 4 GPUs / D 2: W 2. B = 2, 8/2 = 4 micro-batches a step, 32/(8·2) = 2 steps: N = 8.
  EXPECT_EQ(texts.at("data_parallel"), "2");
  EXPECT_EQ(texts.at("micro_batch_size"), "2");
  EXPECT_EQ(texts.at("micro_batches"), "8");
  // ceil((32 + 2 + 1) / 6) = 6 virtual stages, 3 a rank.
  const long stages = (32 + 2 + 1 + 6 - 1) / 6;
  EXPECT_EQ(texts.at("chunks"), std::to_string(stages / 2));
  EXPECT_EQ(texts.at("layout"), torchtitan_layout(32, static_cast<int>(stages), 2, 1, "t"));
  // ceil(35 / 5) = 7 stages do not share among 2 ranks; ceil(35 / 20) = 2 leave one a rank,
  // which a looped schedule does not run: both refused as torchtitan refuses them.
  for (const int refused : {5, 20}) {
    const std::string e = error_of(config(refused), 4);
    EXPECT_NE(e.find("pipeline_parallel_layers_per_stage"), std::string::npos) << e;
  }
}

TEST(TorchtitanConfig, ModulePartsAreTheLayout) {
  // Four parts on two ranks: the V-shaped schedule's two stages a rank, each part's modules
  // counted; the layers must come in order.
  const int cuts[] = {5, 16, 27, 32};  // layers.0 .. layers.31 in four runs
  std::string parts = "[";
  for (int p = 0, next = 0; p < 4; ++p) {
    std::vector<std::string> modules;
    if (p == 0) modules.push_back("tok_embeddings");
    for (; next < cuts[p]; ++next)
      modules.push_back("layers." + std::to_string(next));
    if (p == 3) modules.insert(modules.end(), {"norm", "output"});
    std::string part;
    for (const std::string& m : modules)
      part += (part.empty() ? "\"" : ", \"") + m + "\"";
    parts += (p == 0 ? "[" : ", [") + part + "]";
  }
  parts += "]";
  const std::string config = std::string(kModel) +
                             "[parallelism]\npipeline_parallel_degree = 2\n"
                             "pipeline_parallel_schedule = \"ZBVZeroBubble\"\n"
                             "module_fqns_per_model_part = " +
                             parts + "\n";
  TorchtitanRun run = read(config);
  std::map<std::string, std::string> texts;
  (void)merge_torchtitan(texts, run, 2, true);
  EXPECT_EQ(texts.at("schedule"), "zb-v");
  EXPECT_EQ(texts.count("chunks"), 0u);  // zb-v has two a rank of its own
  const auto stages = models::parse_layout(texts.at("layout"));
  ASSERT_EQ(stages.size(), 4u);
  for (size_t p = 0; p < 4; ++p)
    EXPECT_EQ(stages[p].transformer, cuts[p] - (p == 0 ? 0 : cuts[p - 1]));
  EXPECT_EQ(stages.front().embedding, 1);
  EXPECT_EQ(stages.back().loss, 1);
  // Out of order, or three parts for a schedule of two stages a rank: refused naming the key.
  std::string swapped = config;
  swapped.replace(swapped.find("\"layers.3\""), 10, "\"layers.4\"");
  EXPECT_NE(error_of(swapped, 2).find("module_fqns_per_model_part"), std::string::npos);
  const std::string three = std::string(kModel) +
                            "[parallelism]\npipeline_parallel_degree = 2\n"
                            "pipeline_parallel_schedule = \"DualPipeV\"\n"
                            "module_fqns_per_model_part = [[\"tok_embeddings\"], [\"layers.0\"], "
                            "[\"norm\"]]\n";
  EXPECT_NE(error_of(three, 2).find("module_fqns_per_model_part"), std::string::npos);
}

TEST(TorchtitanConfig, FlavorsAreShippedModelsOfTheirShape) {
  // torchtitan's flavors (torchtitan/models/*/__init__.py): Llama 3.1 405B has 126 layers,
  // DeepSeek-V3 671B trains there without its MTP module, Qwen3 30B-A3B has 128 experts.
  const auto model_of = [](const std::string& name, const std::string& flavor) {
    TorchtitanRun run = read("[model]\nname = \"" + name + "\"\nflavor = \"" + flavor + "\"\n");
    std::map<std::string, std::string> texts;
    (void)merge_torchtitan(texts, run, 8, true);
    return models::load_model(texts.at("model"));
  };
  EXPECT_EQ(model_of("llama3", "405B").layers, 126);
  EXPECT_EQ(model_of("llama3", "70B").hidden, 8192);
  EXPECT_EQ(model_of("deepseek_v3", "671B").mtp_layers, 0);
  EXPECT_EQ(model_of("deepseek_v3", "671B").layers, 61);
  EXPECT_EQ(model_of("qwen3", "30B-A3B").moe.experts, 128);
}

TEST(TorchtitanConfig, RefusalsNameTheFileLineAndKey) {
  // A syntax error: file, line and column.
  const std::string syntax = error_of("[training]\nseq_len = = 3\n");
  EXPECT_EQ(syntax.rfind("job.toml:2:", 0), 0u) << syntax;
  // A wrong type: the key and the type it must be.
  const std::string type = error_of("[parallelism]\ntensor_parallel_degree = \"8\"\n");
  EXPECT_NE(type.find("job.toml:2"), std::string::npos) << type;
  EXPECT_NE(type.find("parallelism.tensor_parallel_degree"), std::string::npos) << type;
  EXPECT_NE(type.find("integer"), std::string::npos) << type;
  EXPECT_NE(error_of("[activation_checkpoint]\nmode = 1\n").find("string"), std::string::npos);
  EXPECT_NE(error_of("[activation_checkpoint]\nmode = \"some\"\n").find("none, selective, full"),
            std::string::npos);
  EXPECT_NE(error_of("[parallelism]\ndata_parallel_shard_degree = 0\n").find("-1"),
            std::string::npos);
  // An unknown flavor lists the known ones; an unknown model the known names.
  const std::string flavor = error_of("[model]\nname = \"llama3\"\nflavor = \"13B\"\n");
  EXPECT_NE(flavor.find("model.flavor"), std::string::npos) << flavor;
  EXPECT_NE(flavor.find("8B, 8B_flex, 8B_varlen, 70B, 405B"), std::string::npos) << flavor;
  EXPECT_NE(error_of("[model]\nname = \"gpt5\"\n").find("llama3, deepseek_v3, qwen3"),
            std::string::npos);
  // The degrees must tile the world.
  const std::string world =
      error_of(std::string(kModel) + "[parallelism]\ntensor_parallel_degree = 3\n", 8);
  EXPECT_NE(world.find("data_parallel_shard_degree"), std::string::npos) << world;
  EXPECT_NE(error_of(std::string(kModel) + "[parallelism]\ndata_parallel_shard_degree = 4\n", 8)
                .find("gpus"),
            std::string::npos);
  EXPECT_NE(error_of(kModel, 0).find("world size (gpus)"), std::string::npos);
}

TEST(TorchtitanConfig, ShardedDataParallelIsAskedForByName) {
  TorchtitanRun run = read(kModel);
  std::map<std::string, std::string> texts;
  const std::vector<std::string> warnings = merge_torchtitan(texts, run, 8, true);
  // FSDP over 8: data_parallel_sharding = params, with no warning about it.
  EXPECT_EQ(texts.at("data_parallel_sharding"), "params");
  EXPECT_TRUE(std::none_of(warnings.begin(), warnings.end(), [](const std::string& w) {
    return w.find("data_parallel_sharding") != std::string::npos;
  }));
  // DDP only (shard 1): nothing to shard.
  TorchtitanRun ddp = read(std::string(kModel) +
                           "[parallelism]\ndata_parallel_replicate_degree = 8\n"
                           "data_parallel_shard_degree = 1\n");
  std::map<std::string, std::string> ddp_texts;
  (void)merge_torchtitan(ddp_texts, ddp, 8, true);
  EXPECT_EQ(ddp_texts.count("data_parallel_sharding"), 0u);
  EXPECT_EQ(ddp_texts.at("data_parallel"), "8");
  // Degrees that fix the world need no --gpus: here 2 · 4 · T 2 = 16 GPUs.
  TorchtitanRun fixed = read(std::string(kModel) +
                             "[parallelism]\ndata_parallel_replicate_degree = 2\n"
                             "data_parallel_shard_degree = 4\ntensor_parallel_degree = 2\n");
  std::map<std::string, std::string> fixed_texts;
  (void)merge_torchtitan(fixed_texts, fixed, 0, true);
  EXPECT_EQ(fixed_texts.at("data_parallel"), "8");
  TorchtitanRun searched = read(kModel);
  std::map<std::string, std::string> search_texts;
  (void)merge_torchtitan(search_texts, searched, 32, false);
  EXPECT_EQ(searched.world_size, 32);
  EXPECT_EQ(searched.mini_batch, 8 * 32);  // torchtitan's local batch 8 on every rank
}

}  // namespace
}  // namespace pipesim::scenario
