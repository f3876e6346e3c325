// Calibration samples CSV, then the fits (they must refuse what they cannot fit with a
// ConfigError, never throw anything else); and the layer-times CSV of the layer check.
#include "fuzz_support.hpp"
#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/layer_check.hpp"
#include "pipesim/calibrate/samples.hpp"
#include "pipesim/hardware/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const pipesim::hardware::HardwareProfile base =
      pipesim::hardware::load_profile("h200-sxm");
  const std::string_view text = pipesim::fuzz::as_text(data, size);
  pipesim::fuzz::expect_only_config_errors([&] {
    const auto samples = pipesim::calibrate::parse_samples(text, "fuzz.csv");
    (void)pipesim::calibrate::fit_samples(samples, base.gpu);
  });
  pipesim::fuzz::expect_only_config_errors([&] {
    const auto layers = pipesim::calibrate::parse_layer_times(text, "fuzz.csv");
    (void)pipesim::calibrate::check_layers(base.gpu, layers, true);
  });
  return 0;
}
