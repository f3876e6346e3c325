// Value lists and ranges (`4,8,16`, `8:64:x2`, `1:9:+2`) through cli::expand_values.
#include "cli/value_range.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pipesim::fuzz::expect_only_config_errors([&] {
    (void)pipesim::cli::expand_values("fuzz", "value", pipesim::fuzz::as_text(data, size));
  });
  return 0;
}
