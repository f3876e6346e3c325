// Launch scripts and pasted argument lists (scenario/launch_script.hpp) through the Megatron-LM
// argument reader (scenario/megatron_args.hpp): bad bash or bad arguments are ConfigErrors, never
// a crash or a hang.
#include <map>
#include <string>

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
    // A list also builds its model and options (registered under one name, replaced each run).
    pipesim::scenario::MegatronRun run = pipesim::scenario::read_megatron(
        pipesim::scenario::parse_argument_list(text, "fuzz"), "fuzz", "megatron-fuzz");
    std::map<std::string, std::string> texts;
    (void)pipesim::scenario::merge_megatron(texts, run, 64, true);
  });
  return 0;
}
