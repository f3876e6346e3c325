// torchtitan job configs (scenario/torchtitan_config.hpp): bad TOML, keys of the wrong type or
// out of range, and layouts torchtitan would refuse are ConfigErrors, never a crash or a hang.
#include <map>
#include <string>

#include "fuzz_support.hpp"
#include "pipesim/scenario/torchtitan_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = pipesim::fuzz::as_text(data, size);
  pipesim::fuzz::expect_only_config_errors([&] {
    pipesim::scenario::TorchtitanRun run = pipesim::scenario::parse_torchtitan(text, "fuzz");
    std::map<std::string, std::string> texts;
    (void)pipesim::scenario::merge_torchtitan(texts, run, 64, true);
  });
  return 0;
}
