// Value lists and ranges (`4,8,16`, `8:64:x2`, `1:9:+2`) through sweep::expand_values.
#include "fuzz_support.hpp"
#include "pipesim/sweep/value_range.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pipesim::fuzz::expect_only_config_errors([&] {
    (void)pipesim::sweep::expand_values("fuzz", "value", pipesim::fuzz::as_text(data, size));
  });
  return 0;
}
