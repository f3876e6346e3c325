// pipesim's schedule text format, then what load_schedule_file does next (task graph, cycle
// check), so an accepted schedule is exercised the way a run would use it.
#include "fuzz_support.hpp"
#include "pipesim/schedules/schedule_file.hpp"
#include "pipesim/sim/lowering.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pipesim::fuzz::expect_only_config_errors([&] {
    const auto s =
        pipesim::schedules::parse_schedule_text(pipesim::fuzz::as_text(data, size), "fuzz.txt");
    (void)pipesim::sim::check_acyclic(pipesim::sim::build_task_graph(s)).ok();
  });
  return 0;
}
