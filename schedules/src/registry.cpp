#include "pipesim/schedules/registry.hpp"

#include <fmt/format.h>

#include <array>

#include "pipesim/core/config_error.hpp"
#include "pipesim/schedules/generators.hpp"

namespace pipesim::schedules {
namespace {

constexpr std::array kCatalogue{
    ScheduleEntry{"gpipe", "all forwards, then all backwards; flush every iteration",
                  "Huang et al., GPipe, NeurIPS 2019", &make_gpipe},
    ScheduleEntry{"1f1b", "PipeDream-Flush: D-s-1 warm-up forwards, one-forward-one-backward",
                  "Narayanan et al., PipeDream-2BW/Flush, ICML 2021", &make_1f1b},
    ScheduleEntry{"dapple", "early-backward 1F1B (same op order as 1f1b), flush every iteration",
                  "Fan et al., DAPPLE, PPoPP 2021", &make_dapple},
    ScheduleEntry{"pipedream", "asynchronous 1F1B, weight stashing, no flush (steady state)",
                  "Narayanan et al., PipeDream, SOSP 2019", &make_pipedream},
    ScheduleEntry{"pipedream-2bw", "asynchronous 1F1B, double-buffered weights, no flush",
                  "Narayanan et al., PipeDream-2BW, ICML 2021", &make_pipedream_2bw},
    ScheduleEntry{"gems", "two mirrored replicas, at most two micro-batches in flight",
                  "Jain et al., GEMS, SC 2020", &make_gems},
    ScheduleEntry{"chimera",
                  "bidirectional: 2f pipelines (--pipelines), --strategy direct|doubling|halving",
                  "Li & Hoefler, Chimera, SC 2021", &make_chimera},
    ScheduleEntry{"interleaved", "Megatron virtual pipeline, v chunks per worker (--chunks)",
                  "Narayanan et al., Megatron-LM, SC 2021", &make_interleaved},
    ScheduleEntry{"zb-h1", "zero bubble, 1F1B memory, backward split into I and W",
                  "Qi et al., Zero Bubble PP, ICLR 2024", &make_zb_h1},
    ScheduleEntry{"zb-h2", "zero bubble, 2D-1 activations, W deferred to the tail",
                  "Qi et al., Zero Bubble PP, ICLR 2024", &make_zb_h2},
    ScheduleEntry{"zb-v", "zero bubble V-shape, 2 chunks per worker, 1F1B memory",
                  "Qi et al., Controllable Memory PP, NeurIPS 2024", &make_zb_v},
    ScheduleEntry{"dualpipe", "bidirectional, split backward, micro-batches from both ends",
                  "DeepSeek-AI, DeepSeek-V3 report 2024", &make_dualpipe},
    ScheduleEntry{"dualpipev", "DualPipe folded into a V shape on D workers",
                  "DeepSeek-AI, github.com/deepseek-ai/DualPipe", &make_dualpipev},
};

}  // namespace

std::span<const ScheduleEntry> all_schedules() { return kCatalogue; }

const ScheduleEntry* find_schedule(std::string_view name) {
  for (const ScheduleEntry& e : kCatalogue) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

sim::Schedule make_schedule(std::string_view name, const ScheduleParams& params) {
  const ScheduleEntry* entry = find_schedule(name);
  if (entry == nullptr) {
    std::string known;
    for (const ScheduleEntry& e : kCatalogue) known += fmt::format("{}{}", known.empty() ? "" : ", ", e.name);
    throw core::ConfigError("command line", "--schedule",
                            fmt::format("unknown schedule '{}' (known: {})", name, known));
  }
  return entry->make(params);
}

}  // namespace pipesim::schedules
