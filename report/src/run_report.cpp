#include "pipesim/report/run_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "pipesim/core/version.hpp"
#include "pipesim/report/option_json.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/scenario/model_facts.hpp"
#include "pipesim/scenario/names.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::report {
namespace {

// Bytes, parameter and sample counts are whole numbers: JSON prints them as integers.
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;  // memory in text, as in tables and plots

std::int64_t whole(double count) {
  return std::llround(count);
}

int max_peak_activations(const sim::Metrics& m) {
  int peak = 0;
  for (const auto& w : m.workers)
    peak = std::max(peak, w.peak_activations);
  return peak;
}

// Per worker, its compute task ids in execution (start) order.
std::vector<std::vector<sim::TaskId>> compute_ops_by_worker(const Result& run) {
  std::vector<std::vector<sim::TaskId>> ops(static_cast<size_t>(run.graph.workers()));
  for (sim::TaskId t = 0; t < run.graph.num_tasks(); ++t) {
    const sim::Task& task = run.graph.task(t);
    if (sim::is_compute(task.kind)) ops[static_cast<size_t>(task.worker)].push_back(t);
  }
  for (auto& list : ops) {
    std::stable_sort(list.begin(), list.end(), [&](sim::TaskId a, sim::TaskId b) {
      return run.trace.timing[a].start < run.trace.timing[b].start;
    });
  }
  return ops;
}

// "L 64, h 1280, heads 20 (kv 20), ffn 5120, V 50257, s 632"; an MoE model's
// "..., 32 MoE layers: experts 8 top-2, expert ffn 14336, ..." instead of a dense FFN it lacks.
std::string model_shape_text(const models::ModelSpec& m) {
  std::string out =
      fmt::format("L {}, h {}, heads {} (kv {})", m.layers, m.hidden, m.heads, m.kv_heads);
  if (m.attention_window > 0)
    out += fmt::format(", window {} on {} layers", m.attention_window, m.window_layers);
  // A dense FFN is shown only where some layer has one; an MoE layer's experts by their own FFN.
  const int moe_layers = scenario::moe_layers(m);
  if (moe_layers < m.layers) out += fmt::format(", ffn {}", m.ffn_hidden);
  if (m.is_moe()) {
    out += fmt::format(", {} MoE layers: experts {} top-{}, expert ffn {}", moe_layers,
                       m.moe.experts, m.moe.top_k, m.moe.ffn_hidden);
    if (m.moe.shared_experts > 0)
      out += fmt::format(" + {} shared of ffn {}", m.moe.shared_experts, m.moe.shared_ffn_hidden);
  }
  return out + fmt::format(", V {}, s {}", m.vocabulary, m.sequence);
}

void add_perf_header(nlohmann::ordered_json& j, const Scenario& spec, const Result& run) {
  const PerfResult& p = *run.perf;
  const cost::TrainingSetup& setup = spec.perf.setup;
  j["mode"] = "real-cost";
  j["model"] = p.model.name;
  j["hardware"] = p.hardware.name;
  j["micro_batch_size"] = setup.micro_batch_size;
  j["data_parallel"] = setup.data_parallel;
  j["tensor_parallel"] = setup.tensor_parallel;
  j["gpus"] = p.gpus;
  j["mini_batch"] = whole(p.samples_per_iteration);
  j["sequence_parallel"] = setup.sequence_parallel;
  j["tp_comm_overlap"] = setup.tp_comm_overlap;
  j["distributed_optimizer"] = setup.distributed_optimizer;
  j["data_parallel_sharding"] = std::string(scenario::data_parallel_sharding_name(setup));
  j["grad_bucket_bytes"] = static_cast<std::int64_t>(setup.grad_bucket_bytes);  // whole bytes
  j["overlap_grad_reduce"] = setup.overlap_grad_reduce;
  j["overlap_param_gather"] = setup.overlap_param_gather;
  j["fp8_param_gather"] = setup.fp8_param_gather;
  j["grad_reduce_in_bf16"] = setup.grad_reduce_in_bf16;
  j["offload"] = setup.offload;
  j["offload_selective"] = setup.offload_selective;
  j["precision"] = scenario::name_of(scenario::kPrecisionNames, p.model.precision);  // as trained
  j["attention"] = scenario::name_of(scenario::kAttentionNames, p.model.attention);  // as trained
  // A schedule with R ops recomputes even under recompute `none` (TrainingCostModel: full).
  using scenario::name_of;
  j["recompute"] = name_of(scenario::kRecomputeNames, scenario::recompute_used(spec, run.schedule));
  j["partition"] = name_of(scenario::kPartitionNames, setup.partition);
  j["placement"] = name_of(scenario::kPlacementNames, setup.placement);
  j["grad_sync"] = name_of(scenario::kGradSyncNames, spec.perf.grad_sync);
  j["overlap_p2p"] = name_of(scenario::kOnOffNames, spec.perf.overlap_p2p);
  j["all_reduce"] = hardware::algorithm_name(p.hardware.all_reduce);
}

void add_perf_metrics(nlohmann::ordered_json& j, const PerfResult& p) {
  if (const auto& r = p.iteration_time_range) {
    j["iteration_time_range"] = {
        {"low", r->low}, {"high", r->high}, {"coverage", r->coverage}, {"basis", r->basis}};
  }
  j["throughput"] = p.throughput;
  j["tokens_per_second"] = p.tokens_per_second;
  j["mfu"] = p.mfu;
  j["fits_memory"] = p.fits_memory;
  j["gpus_per_domain_used"] = p.gpus_per_domain;
  if (p.model.is_moe()) {
    j["expert_group_domains"] = p.expert_group_domains;
    j["expert_group_straddles"] = p.expert_group_straddles;
  }
  j["peak_memory"] = whole(p.peak_memory);
  j["memory_capacity"] = whole(p.memory_capacity);
  j["model_params"] = whole(p.model_params);
  // The shape as trained, the same figures as the CSV's model_* columns.
  j["model_layers"] = p.model.layers;
  j["model_hidden"] = p.model.hidden;
  j["model_heads"] = p.model.heads;
  j["model_kv_heads"] = p.model.kv_heads;
  j["model_ffn_hidden"] = p.model.ffn_hidden;
  j["model_vocabulary"] = p.model.vocabulary;
  j["model_sequence"] = p.model.sequence;
  j["model_experts"] = p.model.moe.experts;
  j["model_flops_per_iteration"] = p.model_flops_per_iteration;
  auto stages = nlohmann::ordered_json::array();
  for (size_t s = 0; s < p.partition.size(); ++s) {
    const cost::StageTimes& t = p.stage_times[s];
    stages.push_back({{"stage", s},
                      {"first_layer", p.partition[s].first_layer},
                      {"layers", p.partition[s].layers},
                      {"embedding", p.partition[s].embedding},
                      {"head", p.partition[s].head},
                      {"t_forward", t.forward},
                      {"t_backward_input", t.backward_input},
                      {"t_backward_weight", t.backward_weight},
                      {"t_recompute", t.recompute}});
  }
  j["stage_costs"] = std::move(stages);
}

// " (-6% +17%: 9.48 to 11.9 s for 80% of validated dense/hopper/multi-node runs)", or nothing.
std::string range_text(double seconds, const std::optional<scenario::TimeRange>& range) {
  if (!range || seconds <= 0) return {};
  return fmt::format(" ({:+.0f}% {:+.0f}%: {:.4g} to {:.4g} s for {:.0f}% of validated {} runs)",
                     100 * (range->low / seconds - 1), 100 * (range->high / seconds - 1),
                     range->low, range->high, 100 * range->coverage, range->basis);
}

nlohmann::ordered_json breakdown_json(const sim::MemoryBreakdown& b) {
  return {{"weights", whole(b.weights)},
          {"gradients", whole(b.gradients)},
          {"optimizer", whole(b.optimizer)},
          {"activations", whole(b.activations)},
          {"other", whole(b.other)}};
}

void add_perf_worker(nlohmann::ordered_json& jw, const Scenario& spec, const PerfResult& p,
                     size_t w) {
  const sim::WorkerMemory& m = p.memory[w];
  jw["peak_memory"] = whole(m.peak);
  jw["memory"] = breakdown_json(m.at_peak);
  jw["static_memory"] = whole(m.static_memory.total());
  jw["compute_time"] = p.time[w].compute;
  jw["exposed_communication_time"] = p.time[w].exposed_communication;
  jw["idle_time"] = p.time[w].idle;
  if (spec.memory_timeline) {
    auto timeline = nlohmann::ordered_json::array();
    for (const sim::MemorySample& sample : m.timeline) {
      timeline.push_back(nlohmann::ordered_json::array({sample.time, whole(sample.bytes)}));
    }
    jw["memory_timeline"] = std::move(timeline);
  }
}

}  // namespace

nlohmann::ordered_json to_json(const Scenario& spec, const Result& run, bool ops) {
  const sim::Metrics& m = run.metrics;
  nlohmann::ordered_json j;
  j["schema_version"] = kSchemaVersion;
  j["pipesim_version"] = core::version;
  j["schedule"] = spec.schedule;
  // The values the schedule was generated with: D (not D·v), the pipelines and chunks the
  // scheme used when the option was left at its default.
  const sim::Schedule& sched = run.schedule;
  j["stages"] = sched.workers;
  j["micro_batches"] = sched.micro_batches;
  j["pipelines"] = sched.pipelines;
  j["chunks"] = sched.workers > 0 ? sched.virtual_stages / sched.workers : 1;
  j["virtual_stages"] = sched.virtual_stages;
  j["workers"] = sched.workers;
  if (run.perf) {
    add_perf_header(j, spec, run);
  } else {
    j["mode"] = "unit-cost";
    j["t_forward"] = spec.unit.forward;
    j["t_backward"] = spec.unit.backward;
    j["t_weight"] = sched.split_backward ? spec.unit.weight_part() : 0.0;
    j["t_comm"] = spec.unit.comm;
    j["t_allreduce"] = spec.unit.all_reduce;
  }
  // The other options the CSV row carries, as the run used them; not the other mode's.
  const scenario::Scope other_mode =
      run.perf ? scenario::Scope::UnitCost : scenario::Scope::RealCost;
  const scenario::Point used = scenario::used_point(scenario::option_texts(spec), run);
  std::vector<core::OptionSpec> specs;
  std::vector<std::string> values;
  for (size_t i = 0; i < scenario::options().size(); ++i) {
    if (scenario::options()[i].scope == other_mode) continue;
    specs.push_back(scenario::options()[i].spec);
    values.push_back(used[i]);
  }
  add_missing_options(j, specs, values);
  j["time_unit"] = run.perf ? "s" : "slot";
  j["iteration_time"] = m.iteration_time;
  j["iterations"] = run.schedule.iterations;
  j["asynchronous"] = run.schedule.asynchronous;
  j["epoch_drain"] = run.schedule.drains_each_run;
  j["total_time"] = m.total_time;
  j["span"] = m.span;
  j["bubble_ratio"] = m.bubble_ratio;
  j["peak_activations"] = max_peak_activations(m);
  if (run.perf) add_perf_metrics(j, *run.perf);
  j["tasks"] = run.graph.num_tasks();
  const auto worker_ops = ops ? compute_ops_by_worker(run) : decltype(compute_ops_by_worker(run)){};
  auto per_worker = nlohmann::ordered_json::array();
  for (const sim::WorkerMetrics& w : m.workers) {
    nlohmann::ordered_json jw;
    jw["worker"] = w.worker;
    jw["busy"] = w.busy;
    jw["first_start"] = w.first_start;
    jw["last_end"] = w.last_end;
    jw["peak_activations"] = w.peak_activations;
    const auto wi = static_cast<size_t>(w.worker);
    jw["weight_versions"] =
        wi < run.schedule.weight_versions.size() ? run.schedule.weight_versions[wi] : 1;
    if (run.perf) add_perf_worker(jw, spec, *run.perf, wi);
    if (ops) {
      auto list = nlohmann::ordered_json::array();
      for (sim::TaskId t : worker_ops[static_cast<size_t>(w.worker)]) {
        const sim::Task& task = run.graph.task(t);
        list.push_back({{"kind", std::string(1, sim::op_letter(task.kind))},
                        {"micro_batch", task.micro_batch},
                        {"stage", task.stage},
                        {"pipeline", task.pipeline},
                        {"chunk", task.chunk},
                        {"start", run.trace.timing[t].start},
                        {"end", run.trace.timing[t].end}});
      }
      jw["ops"] = std::move(list);
    }
    per_worker.push_back(std::move(jw));
  }
  j["per_worker"] = std::move(per_worker);
  return j;
}

std::string to_csv(const Scenario& spec, const Result& run) {
  return rows_to_csv({scenario::make_row(scenario::option_texts(spec), run)});
}

std::string ascii_timeline(const Result& run, int max_columns) {
  // The quantum is the shortest compute op; every start and end must sit on its grid.
  double quantum = std::numeric_limits<double>::infinity();
  for (sim::TaskId t = 0; t < run.graph.num_tasks(); ++t) {
    const double d = run.trace.timing[t].end - run.trace.timing[t].start;
    if (sim::is_compute(run.graph.task(t).kind) && d > 0.0) quantum = std::min(quantum, d);
  }
  if (!std::isfinite(quantum) || run.metrics.span <= 0.0) return {};
  auto on_grid = [&](double x, long& cell) {
    const double q = x / quantum;
    cell = std::lround(q);
    return std::abs(q - static_cast<double>(cell)) < 1e-9 * std::max(1.0, std::abs(q));
  };
  long columns = 0;
  if (!on_grid(run.metrics.iteration_time, columns) || columns > max_columns) return {};
  int max_mb = 0;
  for (sim::TaskId t = 0; t < run.graph.num_tasks(); ++t) {
    max_mb = std::max(max_mb, run.graph.task(t).micro_batch);
  }
  const size_t width = fmt::format("{}", max_mb).size() + 1;
  std::string out;
  const auto ops = compute_ops_by_worker(run);
  for (size_t w = 0; w < ops.size(); ++w) {
    std::vector<std::string> cells(static_cast<size_t>(columns), std::string(width, '.'));
    for (sim::TaskId t : ops[w]) {
      long first = 0, last = 0;
      if (!on_grid(run.trace.timing[t].start, first) || !on_grid(run.trace.timing[t].end, last)) {
        return {};
      }
      const sim::Task& task = run.graph.task(t);
      for (long c = first; c < last && c < columns; ++c) {
        cells[static_cast<size_t>(c)] =
            c == first
                ? fmt::format("{:<{}}",
                              fmt::format("{}{}", sim::op_letter(task.kind), task.micro_batch),
                              width)
                : std::string(width, '-');
      }
    }
    out += fmt::format("P{:<3}", w);
    for (const auto& c : cells)
      out += " " + c;
    out += "\n";
  }
  return out;
}

std::string to_text(const Scenario& spec, const Result& run) {
  const sim::Metrics& m = run.metrics;
  std::string out;
  out += fmt::format("schedule         {}\n", spec.schedule);
  out += fmt::format("stages (D)       {}\n", run.schedule.workers);
  if (run.schedule.virtual_stages != run.schedule.workers) {
    out += fmt::format("virtual stages   {} (D x {} chunks)\n", run.schedule.virtual_stages,
                       run.schedule.virtual_stages / run.schedule.workers);
  }
  out += fmt::format("micro-batches(N) {}\n", run.schedule.micro_batches);
  out += fmt::format("workers          {}\n", run.schedule.workers);
  if (!run.perf) {
    // t_allreduce only when given: the papers' slot counts price synchronisation at zero.
    const std::string sync = spec.unit.all_reduce > 0.0
                                 ? fmt::format(" t_allreduce={}", spec.unit.all_reduce)
                                 : std::string();
    // t_W only where a split backward runs it; costs are a stage's (a chunk runs its share).
    const std::string weight = run.schedule.split_backward
                                   ? fmt::format(" t_W={}", spec.unit.weight_part())
                                   : std::string();
    out += fmt::format("costs            t_F={} t_B={}{} t_comm={}{} (unit-cost mode{})\n",
                       spec.unit.forward, spec.unit.backward, weight, spec.unit.comm, sync,
                       run.schedule.virtual_stages != run.schedule.workers
                           ? ", per stage: a chunk runs its share"
                           : "");
  } else {
    const PerfResult& p = *run.perf;
    const cost::TrainingSetup& setup = spec.perf.setup;
    out +=
        fmt::format("model            {} ({} parameters)\n", p.model.name, whole(p.model_params));
    out += fmt::format("shape            {}\n", model_shape_text(p.model));
    out += fmt::format("hardware         {} ({} GPUs = T {} x D {} x W {})\n", p.hardware.name,
                       p.gpus, setup.tensor_parallel, run.schedule.workers, setup.data_parallel);
    // Said when it is not the whole domain, or for the expert groups it places.
    if (p.gpus_per_domain != p.hardware.gpus_per_node || p.model.is_moe()) {
      out += fmt::format(
          "domains          {} GPUs of the job in each {}-GPU NVLink domain{}\n", p.gpus_per_domain,
          p.hardware.gpus_per_node,
          p.model.is_moe()
              ? fmt::format("; an expert-parallel group of {} GPUs spans {} "
                            "domain{}{}",
                            setup.expert_parallel * setup.expert_tensor_parallel,
                            p.expert_group_domains, p.expert_group_domains == 1 ? "" : "s",
                            p.expert_group_straddles ? " (more than its size needs: its exchange "
                                                       "crosses the NICs; see the placement and "
                                                       "GPUs per domain)"
                                                     : "")
              : std::string());
    }
    out += fmt::format("mini-batch       {} samples (B {} x N {} x W {})\n",
                       whole(p.samples_per_iteration), setup.micro_batch_size,
                       run.schedule.micro_batches, setup.data_parallel);
    out += fmt::format(
        "options          recompute={} partition={} placement={} grad-sync={} "
        "overlap-p2p={}{}{}\n",
        scenario::name_of(scenario::kRecomputeNames, scenario::recompute_used(spec, run.schedule)),
        scenario::name_of(scenario::kPartitionNames, setup.partition),
        scenario::name_of(scenario::kPlacementNames, setup.placement),
        scenario::name_of(scenario::kGradSyncNames, spec.perf.grad_sync),
        scenario::name_of(scenario::kOnOffNames, spec.perf.overlap_p2p),
        run.schedule.asynchronous
            ? fmt::format(" epoch-drain={}",
                          scenario::name_of(scenario::kOnOffNames, run.schedule.drains_each_run))
            : std::string(),
        scenario::data_parallel_sharding_name(setup) != "none"
            ? fmt::format(" data-parallel-sharding={}",
                          scenario::data_parallel_sharding_name(setup))
            : std::string());
    out += fmt::format("throughput       {:.4g} samples/s, {:.4g} tokens/s\n", p.throughput,
                       p.tokens_per_second);
    out += fmt::format("mfu              {:.4g} %\n", p.mfu * 100.0);
    out += fmt::format("peak_memory      {:.4g} GiB of {:.4g} GiB ({})\n", p.peak_memory / kGiB,
                       p.memory_capacity / kGiB, p.fits_memory ? "fits" : "DOES NOT FIT");
  }
  const char* unit = run.perf ? "s" : "slots";
  out += fmt::format("iteration_time   {:.6g} {}{}\n", m.iteration_time, unit,
                     run.perf ? range_text(m.iteration_time, run.perf->iteration_time_range) : "");
  out += fmt::format("bubble_ratio     {:.6f}\n", m.bubble_ratio);
  out += fmt::format("peak_activations {}\n\n", max_peak_activations(m));
  const std::string suffix = run.perf ? "_s" : "_slots";
  out += fmt::format("{:>6} {:>14} {:>14} {:>14} {:>16}\n", "worker", "busy" + suffix,
                     "first_start" + suffix, "last_end" + suffix, "peak_activations");
  for (const auto& w : m.workers) {
    out += fmt::format("{:>6} {:>14.6g} {:>14.6g} {:>14.6g} {:>16}\n", w.worker, w.busy,
                       w.first_start, w.last_end, w.peak_activations);
  }
  if (run.perf) {
    const PerfResult& p = *run.perf;
    out += fmt::format("\n{:>6} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}\n",
                       "worker", "compute_s", "exposed_s", "idle_s", "peak_GiB", "weights_GiB",
                       "grads_GiB", "optim_GiB", "activ_GiB");
    for (size_t w = 0; w < p.memory.size(); ++w) {
      const sim::MemoryBreakdown& b = p.memory[w].at_peak;
      out += fmt::format(
          "{:>6} {:>11.5g} {:>11.5g} {:>11.5g} {:>11.4g} {:>11.4g} {:>11.4g} "
          "{:>11.4g} {:>11.4g}\n",
          w, p.time[w].compute, p.time[w].exposed_communication, p.time[w].idle,
          p.memory[w].peak / kGiB, b.weights / kGiB, b.gradients / kGiB, b.optimizer / kGiB,
          b.activations / kGiB);
    }
  }
  if (const std::string timeline = ascii_timeline(run); !timeline.empty()) {
    out +=
        "\ntimeline (F forward, B backward, I/W split backward, R recompute, - continues, . "
        "idle)\n";
    out += timeline;
  }
  return out;
}

}  // namespace pipesim::report
