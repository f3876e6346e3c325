// search over every schedule × (T, C, E, e_t, D, v, W, B, recomputation) for DeepSeek-V3 on
// 1,024 H100s (h100-dgx), mini-batch 1,024, as `pipesim search` prints its table (a run that
// does not fit skips its replay), on 2 threads; results/bench/README.md has the command and the
// figures. Counters: configurations enumerated, simulated (not pruned) and fitting.

#include <benchmark/benchmark.h>

#include "pipesim/search/search.hpp"

namespace pipesim {
namespace {

search::SearchRequest moe_request(const std::string& schedules) {
  search::SearchArgs args;
  args.model = "deepseek-v3";
  args.hardware = "h100-dgx";
  args.gpus = "1024";
  args.mini_batch = "1024";
  if (!schedules.empty()) args.schedules = schedules;
  args.tensor_parallel = "1,2,4,8";
  args.context_parallel = "1,2,4,8";
  args.expert_parallel = "1,8,16,32,64,128,256";
  args.expert_tensor_parallel = "1,2,4,8";
  return search::make_search_request(args);
}

void run(benchmark::State& state, const std::string& schedules) {
  size_t rows = 0, simulated = 0, fitting = 0, oomsim = 0, screened = 0, invalid = 0;
  for (auto _ : state) {
    search::SearchRequest request = moe_request(schedules);
    scenario::SpecCache specs;
    const auto result =
        search::run_search(request, specs, 2, {}, {}, nullptr, search::RowDetail::FittingOnly);
    rows = result.size();
    simulated = fitting = 0;
    for (const scenario::SweepRow& row : result) {
      simulated += row.status.kind != scenario::Status::Kind::Pruned ? 1 : 0;
      fitting += row.ok() ? 1 : 0;
      if (row.status.kind == scenario::Status::Kind::Oom)
        (row.metrics.peak_memory_max ? oomsim : screened)++;
      if (row.status.kind == scenario::Status::Kind::Invalid) invalid++;
    }
  }
  state.counters["configurations"] = static_cast<double>(rows);
  state.counters["simulated"] = static_cast<double>(simulated);
  state.counters["fitting"] = static_cast<double>(fitting);
  state.counters["oomsim"] = static_cast<double>(oomsim);
  state.counters["screened"] = static_cast<double>(screened);
  state.counters["invalid"] = static_cast<double>(invalid);
}

// Every registered schedule: the benchmark the target is set on.
void BM_MoeSearchEverySchedule(benchmark::State& state) {
  run(state, "");
}
BENCHMARK(BM_MoeSearchEverySchedule)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

// One schedule, for quick comparisons while working.
void BM_MoeSearch1F1B(benchmark::State& state) {
  run(state, "1f1b");
}
BENCHMARK(BM_MoeSearch1F1B)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace pipesim
