// Profiler traces (Chrome trace JSON), then everything calibration does with one: the grouping
// by phase and stream, the comparison with a DeepSeek-V3 layer on h800-dgx and the samples.
// Bad input must be a ConfigError, never another exception, a crash or a hang.
#include "fuzz_support.hpp"
#include "pipesim/calibrate/trace_check.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"

namespace {

const pipesim::calibrate::TraceRun& deepseek_run() {
  static const pipesim::calibrate::TraceRun run = [] {
    pipesim::cost::TrainingSetup setup;
    setup.expert_parallel = 64;
    setup.precision = pipesim::models::Precision::FP8;
    return pipesim::calibrate::make_trace_run(pipesim::models::load_model("deepseek-v3"),
                                              pipesim::hardware::load_profile("h800-dgx"), setup);
  }();
  return run;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = pipesim::fuzz::as_text(data, size);
  pipesim::fuzz::expect_only_config_errors([&] {
    const auto trace = pipesim::calibrate::parse_profiler_trace(text, "fuzz.json");
    (void)pipesim::calibrate::group_kernels(trace);
    const auto check = pipesim::calibrate::check_trace(trace, deepseek_run());
    (void)pipesim::calibrate::trace_samples(trace, check, deepseek_run());
  });
  return 0;
}
