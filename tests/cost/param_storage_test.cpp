// Megatron-Core's parameter and gradient storage options (cost/static_memory.hpp, ParamStorage):
// fp8-param-gather keeps a low-precision recipe's parameters only in its format (row- and
// column-wise copies) and gathers them in it; grad-reduce-in-bf16 keeps the gradient buffer in
// bf16. Against hand-computed bytes, and NVIDIA's FP8 Llama 3 8B example
// (Megatron-LM examples/llama/train_llama3_8b_h100_fp8.sh: 8 H100s, TP1 PP1, MBS 1, GBS 128,
// sequence 8192, distributed optimizer, both options) fitting its 80 GB as it does.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli_invoke.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::cost {
namespace {

using models::Precision;

TEST(ParamStorage, QuantizedParamsDropTheSixteenBitCopyAndGatherInTheFormat) {
  const ParamBytes fp8 = param_bytes(Precision::FP8, 0, {.quantized_params = true});
  EXPECT_EQ(fp8.weights, 2.0);   // the fp8 weight and its transpose
  EXPECT_EQ(fp8.gathered, 1.0);  // all-gathered in fp8
  EXPECT_EQ(fp8.gradients, 4.0);
  EXPECT_EQ(fp8.total(), 18.0);
  const ParamBytes mx = param_bytes(Precision::MXFP8, 0, {.quantized_params = true});
  EXPECT_DOUBLE_EQ(mx.weights, 2 * (1 + 1.0 / 32));
  // 16-bit training has no quantized format: nothing changes.
  EXPECT_EQ(param_bytes(Precision::BF16, 0, {.quantized_params = true}).total(), 18.0);
}

TEST(ParamStorage, Bf16GradientsHalveTheBufferAndItsReduce) {
  const ParamBytes both =
      param_bytes(Precision::FP8, 0, {.quantized_params = true, .bf16_gradients = true});
  EXPECT_EQ(both.gradients, 2.0);
  EXPECT_EQ(both.total(), 2.0 + 2.0 + 12.0);
  EXPECT_EQ(param_bytes(Precision::BF16, 0, {.bf16_gradients = true}).gradients, 2.0);
  EXPECT_EQ(param_bytes(Precision::FP16, 0, {.bf16_gradients = true}).gradients, 2.0);
  // An explicit bytes per parameter is the user's whole table.
  EXPECT_EQ(param_bytes(Precision::BF16, 20, {.bf16_gradients = true}).total(), 20.0);
}

TEST(ParamStorage, OptionsThatDoNotApplyAreRefused) {
  const models::ModelSpec m = models::load_model("llama3-8b");
  const hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  TrainingSetup s;
  s.fp8_param_gather = true;
  try {
    validate_setup(trained_model(m, s), hw, s);  // the model file trains in bf16
    ADD_FAILURE() << "fp8_param_gather accepted for bf16";
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.field(), "fp8_param_gather");
  }
  s.fp8_param_gather = false;
  s.grad_reduce_in_bf16 = true;
  s.precision = Precision::FP32;
  try {
    validate_setup(trained_model(m, s), hw, s);
    ADD_FAILURE() << "grad_reduce_in_bf16 accepted for fp32";
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.field(), "grad_reduce_in_bf16");
  }
}

nlohmann::json llama3_8b_fp8(std::vector<std::string> extra) {
  std::vector<std::string> args = {"simulate",  "--model",
                                   "llama3-8b", "--hardware",
                                   "h100-dgx",  "-D",
                                   "1",         "-W",
                                   "8",         "-B",
                                   "1",         "-N",
                                   "16",        "--sequence",
                                   "8192",      "--precision",
                                   "fp8",       "--distributed-optimizer",
                                   "on",        "--overlap-grad-reduce",
                                   "on",        "--overlap-param-gather",
                                   "on",        "--format",
                                   "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const pipesim::testing::CliResult r = pipesim::testing::invoke_cli(args);
  EXPECT_TRUE(r.code == 0 || r.code == 4) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(ParamStorage, NvidiasFp8Llama3ExampleFitsItsEightH100s) {
  // Transformer Engine saves its fp8 GEMM inputs for the backward (quantized activations).
  const nlohmann::json as_run = llama3_8b_fp8(
      {"--fp8-param-gather", "on", "--grad-reduce-in-bf16", "on", "--quantized-activations", "on"});
  EXPECT_TRUE(as_run.at("fits_memory").get<bool>()) << as_run.at("peak_memory");
  // Without the two options both weight copies and fp32 gradients are held: it would not.
  const nlohmann::json without = llama3_8b_fp8({"--quantized-activations", "on"});
  EXPECT_FALSE(without.at("fits_memory").get<bool>());
  const nlohmann::json& held = as_run.at("per_worker").at(0).at("memory");
  const nlohmann::json& both = without.at("per_worker").at(0).at("memory");
  EXPECT_EQ(both.at("gradients").get<double>(), 2 * held.at("gradients").get<double>());
  // The weights drop from 2 + 2 bytes to the 2 fp8 copies (pipesim gives the embedding and the
  // head the recipe's bytes too).
  EXPECT_DOUBLE_EQ(2 * held.at("weights").get<double>(), both.at("weights").get<double>());
  // Half the gradient bytes to reduce and fp8 parameters to gather: less exposed communication.
  EXPECT_LT(as_run.at("per_worker").at(0).at("exposed_communication_time").get<double>(),
            without.at("per_worker").at(0).at("exposed_communication_time").get<double>());
}

}  // namespace
}  // namespace pipesim::cost
