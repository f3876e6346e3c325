// Model specs (models/*.yaml) through models::parse_model.
#include "fuzz_support.hpp"
#include "pipesim/models/model_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pipesim::fuzz::expect_only_config_errors([&] {
    pipesim::models::parse_model(std::string(pipesim::fuzz::as_text(data, size)), "fuzz.yaml");
  });
  return 0;
}
