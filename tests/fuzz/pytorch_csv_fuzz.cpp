// PyTorch's pipelining CSV action format, then the task graph and cycle check.
#include "fuzz_support.hpp"
#include "pipesim/schedules/schedule_file.hpp"
#include "pipesim/sim/lowering.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pipesim::fuzz::expect_only_config_errors([&] {
    const auto s =
        pipesim::schedules::parse_pytorch_csv(pipesim::fuzz::as_text(data, size), "fuzz.csv");
    (void)pipesim::sim::check_acyclic(pipesim::sim::build_task_graph(s)).ok();
  });
  return 0;
}
