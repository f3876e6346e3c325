// Hardware profiles (hardware/*.yaml) through hardware::parse_profile; an accepted profile must
// also survive its own round trip (to_yaml then parse_profile gives the same text).
#include <cstdlib>

#include "fuzz_support.hpp"
#include "pipesim/hardware/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pipesim::fuzz::expect_only_config_errors([&] {
    const auto p = pipesim::hardware::parse_profile(std::string(pipesim::fuzz::as_text(data, size)),
                                                    "fuzz.yaml");
    const std::string text = pipesim::hardware::to_yaml(p);
    if (pipesim::hardware::to_yaml(pipesim::hardware::parse_profile(text, "again.yaml")) != text) {
      std::abort();  // an accepted profile that does not round-trip
    }
  });
  return 0;
}
