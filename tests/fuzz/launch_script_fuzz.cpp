// Launch scripts and pasted argument lists (scenario/launch_script.hpp) through the Megatron-LM
// argument reader (scenario/megatron_args.hpp): bad bash or bad arguments are ConfigErrors, never
// a crash or a hang.
#include "fuzz_support.hpp"
#include "pipesim/scenario/launch_script.hpp"
#include "pipesim/scenario/megatron_args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(pipesim::fuzz::as_text(data, size));
  pipesim::fuzz::expect_only_config_errors([&] {
    (void)pipesim::scenario::read_megatron(pipesim::scenario::parse_launch_script(text, "fuzz"),
                                           "fuzz", "fuzz");
  });
  pipesim::fuzz::expect_only_config_errors([&] {
    (void)pipesim::scenario::read_megatron(pipesim::scenario::parse_argument_list(text, "fuzz"),
                                           "fuzz", "fuzz");
  });
  return 0;
}
