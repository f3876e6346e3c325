#include "pipesim/schedules/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "pipesim/schedules/generators.hpp"
#include "pipesim/schedules/params_check.hpp"

namespace pipesim::schedules {
namespace {

using P = ScheduleParams;

constexpr std::array<std::string_view, 2> kChimeraOptions{"pipelines", "strategy"};
constexpr std::array<std::string_view, 1> kInterleavedOptions{"chunks"};
constexpr std::array<std::string_view, 2> kAsyncOptions{"iterations", "epoch_drain"};

constexpr std::array kChimera{
    Constraint{"stages", [](const P& p) { return p.stages % 2 == 0; },
               [](const P& p) {
                 return fmt::format(
                     "must be even (a down and an up pipeline share the workers), got {}",
                     p.stages);
               }},
    Constraint{"pipelines",
               [](const P& p) {
                 const int f2 = chimera_pipelines(p);
                 return f2 >= 2 && f2 % 2 == 0 && (p.stages / 2) % (f2 / 2) == 0;
               },
               [](const P& p) {
                 const int half = p.stages / 2;
                 return fmt::format("must be 2f with f dividing D/2 = {} (e.g. 2{}), got {}", half,
                                    half > 1 ? fmt::format(", {}", p.stages) : "",
                                    chimera_pipelines(p));
               }},
    Constraint{"micro_batches", [](const P& p) { return p.micro_batches % p.stages == 0; },
               [](const P& p) {
                 return fmt::format("must be a multiple of D = {} (N = kD), got {}", p.stages,
                                    p.micro_batches);
               }},
    Constraint{"strategy",
               [](const P& p) {
                 const std::string s = chimera_strategy(p);
                 return s == "direct" || s == "doubling" || s == "halving";
               },
               [](const P& p) {
                 return fmt::format("must be direct, doubling or halving, got '{}'",
                                    chimera_strategy(p));
               }},
    Constraint{"strategy",
               [](const P& p) {
                 return chimera_strategy(p) == "direct" ||
                        ((p.micro_batches / p.stages) % 2 == 0 && chimera_pipelines(p) == 2);
               },
               [](const P& p) {
                 return fmt::format(
                     "{} needs N = kD with k even and 2 pipelines, got k = {}, {} pipelines",
                     chimera_strategy(p), p.micro_batches / p.stages, chimera_pipelines(p));
               }},
};

constexpr std::array kInterleaved{
    Constraint{"chunks",
               [](const P& p) {
                 const int v = interleaved_chunks(p);
                 return v >= 1 && v <= 64;
               },
               [](const P& p) {
                 return fmt::format("must be in [1, 64], got {}", interleaved_chunks(p));
               }},
    Constraint{"micro_batches", [](const P& p) { return p.micro_batches % p.stages == 0; },
               [](const P& p) {
                 return fmt::format(
                     "must be a multiple of D = {} (Megatron groups micro-batches by D), got {}",
                     p.stages, p.micro_batches);
               }},
};

constexpr std::array kAsync{
    Constraint{"iterations",
               [](const P& p) {
                 const int i = async_iterations(p);
                 return i >= 3 && i <= 256;
               },
               [](const P& p) {
                 return fmt::format("must be in [3, 256] for an asynchronous schedule, got {}",
                                    p.iterations);
               }},
};

constexpr std::array kDualPipe{
    Constraint{"stages", [](const P& p) { return p.stages % 2 == 0; },
               [](const P& p) { return fmt::format("must be even, got {}", p.stages); }},
    Constraint{
        "micro_batches",
        [](const P& p) { return p.micro_batches % 2 == 0 && p.micro_batches >= 2 * p.stages; },
        [](const P& p) {
          return fmt::format("must be even and at least 2D = {} (half enter from each end), got {}",
                             2 * p.stages, p.micro_batches);
        }},
};

constexpr std::array kDualPipeV{
    Constraint{"micro_batches", [](const P& p) { return p.micro_batches >= 2 * p.stages; },
               [](const P& p) {
                 return fmt::format("must be at least 2D = {}, got {}", 2 * p.stages,
                                    p.micro_batches);
               }},
};

constexpr std::span<const std::string_view> kNoOptions;
constexpr std::span<const Constraint> kNoConstraints;

constexpr std::array kCatalogue{
    ScheduleEntry{"gpipe", "all forwards, then all backwards; flush every iteration",
                  "Huang et al., GPipe, NeurIPS 2019", &make_gpipe, kNoOptions, kNoConstraints},
    ScheduleEntry{"1f1b", "PipeDream-Flush: D-s-1 warm-up forwards, one-forward-one-backward",
                  "Narayanan et al., PipeDream-2BW/Flush, ICML 2021", &make_1f1b, kNoOptions,
                  kNoConstraints},
    ScheduleEntry{"dapple", "early-backward 1F1B (same op order as 1f1b), flush every iteration",
                  "Fan et al., DAPPLE, PPoPP 2021", &make_dapple, kNoOptions, kNoConstraints},
    ScheduleEntry{"pipedream", "asynchronous 1F1B, weight stashing, no flush (steady state)",
                  "Narayanan et al., PipeDream, SOSP 2019", &make_pipedream, kAsyncOptions, kAsync},
    ScheduleEntry{"pipedream-2bw", "asynchronous 1F1B, double-buffered weights, no flush",
                  "Narayanan et al., PipeDream-2BW, ICML 2021", &make_pipedream_2bw, kAsyncOptions,
                  kAsync},
    ScheduleEntry{"gems", "two mirrored replicas, at most two micro-batches in flight",
                  "Jain et al., GEMS, SC 2020", &make_gems, kNoOptions, kNoConstraints},
    ScheduleEntry{"chimera",
                  "bidirectional: 2f pipelines (--pipelines), --strategy direct|doubling|halving",
                  "Li & Hoefler, Chimera, SC 2021", &make_chimera, kChimeraOptions, kChimera},
    ScheduleEntry{"interleaved", "Megatron virtual pipeline, v chunks per worker (--chunks)",
                  "Narayanan et al., Megatron-LM, SC 2021", &make_interleaved, kInterleavedOptions,
                  kInterleaved},
    ScheduleEntry{"zb-h1", "zero bubble, 1F1B memory, backward split into I and W",
                  "Qi et al., Zero Bubble PP, ICLR 2024", &make_zb_h1, kNoOptions, kNoConstraints},
    ScheduleEntry{"zb-h2", "zero bubble, 2D-1 activations, W deferred to the tail",
                  "Qi et al., Zero Bubble PP, ICLR 2024", &make_zb_h2, kNoOptions, kNoConstraints},
    ScheduleEntry{"zb-v", "zero bubble V-shape, 2 chunks per worker, 1F1B memory",
                  "Qi et al., Controllable Memory PP, NeurIPS 2024", &make_zb_v, kNoOptions,
                  kNoConstraints},
    ScheduleEntry{"dualpipe", "bidirectional, split backward, micro-batches from both ends",
                  "DeepSeek-AI, DeepSeek-V3 report 2024", &make_dualpipe, kNoOptions, kDualPipe},
    ScheduleEntry{"dualpipev", "DualPipe folded into a V shape on D workers",
                  "DeepSeek-AI, github.com/deepseek-ai/DualPipe", &make_dualpipev, kNoOptions,
                  kDualPipeV},
};

ParamError unknown(std::string_view name) {
  std::string known;
  for (const ScheduleEntry& e : kCatalogue) {
    known += fmt::format("{}{}", known.empty() ? "" : ", ", e.name);
  }
  return {"command line", option_field("schedule"),
          fmt::format("unknown schedule '{}' (known: {})", name, known)};
}

std::optional<ParamError> first_broken(const ScheduleEntry& e, std::span<const Constraint> rules,
                                       const ScheduleParams& params) {
  for (const Constraint& c : rules) {
    if (!c.holds(params)) {
      return ParamError{fmt::format("schedule {}", e.name), option_field(c.option),
                        c.problem(params)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::span<const ScheduleEntry> all_schedules() {
  return kCatalogue;
}

const ScheduleEntry* find_schedule(std::string_view name) {
  for (const ScheduleEntry& e : kCatalogue) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

bool accepts(std::string_view name, std::string_view option) {
  const ScheduleEntry* e = find_schedule(name);
  if (e == nullptr) return false;
  return option == "stages" || option == "micro_batches" ||
         std::find(e->options.begin(), e->options.end(), option) != e->options.end();
}

std::optional<ParamError> check_params(std::string_view name, const ScheduleParams& params) {
  const ScheduleEntry* e = find_schedule(name);
  if (e == nullptr) return unknown(name);
  // The basic ranges first: the scheme's rules divide by D and compare with N.
  if (auto broken = first_broken(*e, basic_constraints(), params)) return broken;
  return first_broken(*e, e->constraints, params);
}

void require_valid(std::string_view name, const ScheduleParams& params) {
  if (const auto broken = check_params(name, params)) throw broken->error();
}

sim::Schedule make_schedule(std::string_view name, const ScheduleParams& params) {
  const ScheduleEntry* entry = find_schedule(name);
  if (entry == nullptr) throw unknown(name).error();
  return entry->make(params);
}

}  // namespace pipesim::schedules
