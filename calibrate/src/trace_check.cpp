#include "pipesim/calibrate/trace_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "lower_case.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/expert_parallel.hpp"
#include "pipesim/cost/op_collective.hpp"
#include "pipesim/cost/stage_compute.hpp"

namespace pipesim::calibrate {
namespace {

// The MLP block: the FFN or the experts and what moves tokens to and from them (everything
// else of a layer is the attention block: norms, attention, projections, the router).
bool in_mlp_block(const std::string& name) {
  for (const char* prefix : {"expert_", "shared_", "moe_permute", "moe_unpermute", "fc1", "fc2",
                             "gelu", "swiglu", "mlp_dropout"}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

// The trace kind a predicted kernel would show as.
KernelKind predicted_kind(const models::LayerKernel& k) {
  for (const char* prefix : {"flash_attn", "scores", "context", "softmax", "attn_dropout"}) {
    if (k.name.starts_with(prefix)) return KernelKind::attention;
  }
  if (k.name.starts_with("moe_permute")) return KernelKind::dispatch;
  if (k.name.starts_with("moe_unpermute")) return KernelKind::combine;
  if (k.is_gemm) return k.grouped_gemm() ? KernelKind::grouped_gemm : KernelKind::gemm;
  switch (k.op) {
    case models::MemoryOp::layernorm:
    case models::MemoryOp::layernorm_backward:
    case models::MemoryOp::rmsnorm:
    case models::MemoryOp::rmsnorm_backward:
      return KernelKind::norm;
    default:
      break;
  }
  return k.name.find("norm") != std::string::npos ? KernelKind::norm : KernelKind::elementwise;
}

// The dtype a kernel computes in under the run's precision (cost::op_kernel_time's rule).
std::string kernel_dtype(const models::LayerKernel& k, models::Precision p) {
  if (models::low_precision_gemms(p)) return k.linear ? models::precision_name(p) : "bf16";
  return models::precision_name(p);
}

double price(const models::KernelList& kernels, const TraceRun& run) {
  return cost::op_kernel_time(kernels, run.hardware.gpu, run.model.precision, 0.0, 1.0, false);
}

// "NVIDIA H800 80GB HBM3" → "h800": the GPU model, without vendor and memory.
std::string gpu_model(const std::string& name) {
  std::istringstream words(lower_case(name));
  std::string word;
  while (words >> word) {
    if (word != "nvidia" && word != "tesla") return word;
  }
  return "";
}

std::string_view kind_words(KernelKind kind) {
  switch (kind) {
    case KernelKind::gemm:
      return "GEMMs";
    case KernelKind::grouped_gemm:
      return "grouped GEMMs";
    case KernelKind::attention:
      return "attention kernels";
    case KernelKind::collective:
      return "NCCL collectives";
    case KernelKind::dispatch:
      return "token dispatch";
    case KernelKind::combine:
      return "token combine";
    case KernelKind::norm:
      return "norms";
    case KernelKind::elementwise:
      return "elementwise kernels";
    case KernelKind::cast:
      return "casts";
    case KernelKind::memcpy:
      return "copies";
    case KernelKind::memset:
      return "memsets";
    case KernelKind::other:
      break;
  }
  return "unrecognised kernels";
}

std::string ms(double seconds) {
  return fmt::format("{:.2f} ms", seconds * 1e3);
}

std::vector<std::string> findings_of(const TraceCheck& c) {
  struct Total {
    double measured = 0, predicted = 0;
    std::size_t kernels = 0;
  };
  std::map<KernelKind, Total> per_kind;
  for (const TraceRow& r : c.rows) {
    if (!r.predicted) continue;
    Total& t = per_kind[r.kind];
    t.measured += r.measured;
    t.predicted += *r.predicted;
    t.kernels += r.kernels;
  }
  std::vector<std::pair<double, std::string>> ranked;
  for (const PhaseRow& p : c.phases) {
    if (!p.predicted || *p.predicted <= 0 || p.summary.seconds <= 0) continue;
    const double ratio = p.summary.seconds / *p.predicted;
    ranked.emplace_back(std::abs(p.summary.seconds - *p.predicted),
                        fmt::format("phase {} ({} ranges): {:.2f}x the prediction, {} measured, "
                                    "{} predicted",
                                    p.summary.name, p.summary.ranges, ratio, ms(p.summary.seconds),
                                    ms(*p.predicted)));
  }
  for (const auto& [kind, t] : per_kind) {
    std::string words;
    if (t.predicted <= 0) {
      words = fmt::format("{}: {} measured in {} kernels that pipesim does not price",
                          kind_words(kind), ms(t.measured), t.kernels);
    } else if (t.measured <= 0) {
      words = fmt::format("{}: pipesim prices {} the trace does not run", kind_words(kind),
                          ms(t.predicted));
    } else {
      const double ratio = t.measured / t.predicted;
      words = fmt::format(
          "{}: {:.2f}x the prediction ({} measured, {} predicted), {} than the "
          "profile prices them",
          kind_words(kind), ratio, ms(t.measured), ms(t.predicted),
          ratio >= 1 ? "slower" : "faster");
    }
    ranked.emplace_back(std::abs(t.measured - t.predicted), std::move(words));
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (auto& [diff, words] : ranked)
    out.push_back(std::move(words));
  for (const CommOverlap& o : c.ops.overlap) {
    if (o.busy <= 0) continue;
    out.push_back(fmt::format(
        "{}: {} busy, {:.0f}% of it beside compute kernels (hidden), {} "
        "exposed",
        kind_words(o.kind), ms(o.busy), 100 * o.hidden / o.busy, ms(o.busy - o.hidden)));
  }
  if (!c.ops.unrecognised.empty()) {
    double seconds = 0;
    for (const auto& u : c.ops.unrecognised)
      seconds += u.seconds;
    out.push_back(
        fmt::format("{} kernel names ({}) match no pattern of the kind table: listed "
                    "under 'unrecognised'",
                    c.ops.unrecognised.size(), ms(seconds)));
  }
  return out;
}

}  // namespace

TraceRun make_trace_run(const models::ModelSpec& model, const hardware::HardwareProfile& hardware,
                        const cost::TrainingSetup& setup) {
  const cost::TrainingSetup resolved = cost::resolved_setup(setup, model);
  const models::ModelSpec trained = cost::trained_model(model, resolved);
  cost::validate_setup(trained, hardware, resolved);
  return {cost::rank_model(trained, resolved), hardware, cost::layer_config(resolved),
          resolved.moe_dispatcher};
}

std::vector<PredictedPart> predict_layer(const TraceRun& run) {
  const models::ModelSpec& m = run.model;
  const models::LayerKind layer = m.is_moe() ? models::LayerKind::Moe : models::LayerKind::Dense;
  const std::pair<Pass, models::KernelList> passes[] = {
      {Pass::forward, models::layer_forward(m, run.layer, layer)},
      {Pass::backward_input, models::layer_backward_input(m, run.layer, layer)},
      {Pass::backward_weight, models::layer_backward_weight(m, run.layer, layer)}};
  std::map<std::tuple<Block, Pass, KernelKind>, models::KernelList> parts;
  for (const auto& [pass, kernels] : passes) {
    std::map<Block, models::KernelList> blocks;
    for (const models::LayerKernel& k : kernels) {
      const Block block = in_mlp_block(k.name) ? Block::mlp : Block::attention;
      parts[{block, pass, predicted_kind(k)}].push_back(k);
      blocks[block].push_back(k);
    }
    for (const auto& [block, list] : blocks) {
      models::KernelList casts = cost::low_precision_casts(list, m.precision);
      if (!casts.empty()) parts[{block, pass, KernelKind::cast}] = std::move(casts);
    }
  }
  std::vector<PredictedPart> out;
  for (auto& [key, kernels] : parts) {
    const auto [block, pass, kind] = key;
    const double seconds = price(kernels, run);
    out.push_back({block, pass, kind, std::move(kernels), seconds});
  }
  // The expert token exchange: once per dispatch and per combine, forward and input gradient.
  const int e = run.layer.expert_parallel;
  if (m.is_moe() && e > 1) {
    const int et = run.layer.expert_tensor_parallel > 0 ? run.layer.expert_tensor_parallel
                                                        : run.layer.tensor_parallel;
    const int per_node = std::max(run.hardware.gpus_per_node, 1);
    const int nodes = std::max(1, (e * et + per_node - 1) / per_node);
    const cost::TokenExchange x =
        cost::token_exchange(run.hardware, m, run.layer, run.dispatcher, nodes);
    for (const Block block : {Block::dispatch, Block::combine}) {
      const cost::OpCollective& c = block == Block::dispatch ? x.dispatch : x.combine;
      const double seconds = cost::collectives_time(run.hardware, {c}).total().value;
      for (const Pass pass : {Pass::forward, Pass::backward_input}) {
        // The backward of a dispatch is a combine and the other way round: same bytes each way
        // for the alltoall dispatcher; DeepEP's backward dispatch sends bf16 gradients.
        const cost::OpCollective& moved =
            pass == Pass::forward ? c : (block == Block::dispatch ? x.combine : x.dispatch);
        const double t = pass == Pass::forward
                             ? seconds
                             : cost::collectives_time(run.hardware, {moved}).total().value;
        out.push_back({block,
                       pass,
                       block == Block::dispatch ? KernelKind::dispatch : KernelKind::combine,
                       {},
                       t});
      }
    }
  }
  return out;
}

void check_trace_gpu(const ProfilerTrace& trace, const hardware::HardwareProfile& profile) {
  const std::string ran_on = trace.gpu();
  const std::string measured = gpu_model(ran_on);
  const std::string profiled = gpu_model(profile.provenance.gpu);
  if (measured.empty() || profiled.empty() || profiled == "unknown") return;
  if (measured != profiled) {
    throw core::ConfigError(
        trace.source, "deviceProperties",
        fmt::format("the kernels ran on '{}', but the base profile '{}' is for '{}'; give "
                    "a hardware profile of that GPU",
                    ran_on, profile.name, profile.provenance.gpu));
  }
}

hardware::HardwareProfile choose_trace_profile(const ProfilerTrace& trace,
                                               const std::string& name_or_path) {
  if (!name_or_path.empty()) {
    hardware::HardwareProfile profile = hardware::load_profile(name_or_path);
    check_trace_gpu(trace, profile);
    return profile;
  }
  const std::string gpu = gpu_model(trace.gpu());
  std::vector<std::string> matching, all;
  for (const std::string& name : hardware::shipped_profiles()) {
    const std::string profile_gpu = hardware::load_profile(name).provenance.gpu;
    if (!gpu.empty() && gpu_model(profile_gpu) == gpu) matching.push_back(name);
    all.push_back(name);
  }
  if (matching.size() != 1) {
    throw core::ConfigError::option(
        "hardware",
        fmt::format("required: {} shipped profile is for '{}', the GPU of the trace {} (shipped: "
                    "{}); give one, or a YAML profile of this GPU",
                    matching.empty() ? "no" : "more than one",
                    trace.gpu().empty() ? "unnamed" : trace.gpu(), trace.source,
                    fmt::join(matching.empty() ? all : matching, ", ")));
  }
  return hardware::load_profile(matching.front());
}

TraceCheck check_trace(const ProfilerTrace& trace, const TraceRun& run) {
  check_trace_gpu(trace, run.hardware);
  TraceCheck c;
  c.source = trace.source;
  c.gpu = trace.gpu();
  c.events = trace.events;
  c.rank = trace.rank;
  c.world_size = trace.world_size;
  c.ops = group_kernels(trace);
  const std::vector<PredictedPart> parts = predict_layer(run);
  const auto predicted = [&](Phase p, KernelKind kind) {
    double s = 0;
    for (const PredictedPart& part : parts) {
      if (part.block == p.block && part.pass == p.pass && part.kind == kind) s += part.seconds;
    }
    return s;
  };
  std::map<std::string, const PhaseSummary*> phases;
  for (const PhaseSummary& p : c.ops.phases)
    phases[p.name] = &p;
  for (const TraceOp& op : c.ops.ops) {
    TraceRow row{op.phase, op.kind, op.kernels, 0, op.seconds, std::nullopt};
    const PhaseSummary& phase = *phases.at(op.phase);
    row.ranges = phase.ranges;
    if (phase.phase.recognised()) {
      row.predicted = static_cast<double>(phase.ranges) * predicted(phase.phase, op.kind);
    }
    c.rows.push_back(std::move(row));
  }
  // What pipesim prices in a recognised phase that the trace shows no kernel of.
  for (const PhaseSummary& phase : c.ops.phases) {
    if (!phase.phase.recognised()) continue;
    for (const KernelKind kind : all_kernel_kinds()) {
      const double p = predicted(phase.phase, kind);
      const bool measured = std::any_of(c.ops.ops.begin(), c.ops.ops.end(), [&](const TraceOp& op) {
        return op.phase == phase.name && op.kind == kind;
      });
      if (p > 0 && !measured) {
        c.rows.push_back(
            {phase.name, kind, 0, phase.ranges, 0.0, static_cast<double>(phase.ranges) * p});
      }
    }
  }
  for (const PhaseSummary& phase : c.ops.phases) {
    PhaseRow row{phase, std::nullopt};
    if (phase.phase.recognised()) {
      double p = 0;
      for (const TraceRow& r : c.rows) {
        if (r.phase == phase.name) p += r.predicted.value_or(0.0);
      }
      row.predicted = p;
    }
    c.phases.push_back(std::move(row));
  }
  c.findings = findings_of(c);
  return c;
}

SampleSet trace_samples(const ProfilerTrace& trace, const TraceCheck& check, const TraceRun& run) {
  SampleSet set;
  set.source = trace.source;
  set.metadata["tool"] = "pipesim calibrate, from a profiler trace";
  set.metadata["trace"] = trace.source;
  set.metadata["gpu"] = run.hardware.provenance.gpu;
  set.metadata["trace_gpu"] = check.gpu.empty() ? "unknown" : check.gpu;
  const models::Precision precision = run.model.precision;
  const std::string base_dtype = kernel_dtype(models::LayerKernel{}, precision);

  // GEMM ops that recorded their shapes: their GEMM kernels' time, exactly.
  std::vector<TimedRange> ops;
  for (const ShapedGemm& g : trace.gemms)
    ops.push_back({g.pid, g.tid, g.start, g.start + g.duration});
  std::map<std::int64_t, std::size_t> launch_of;
  for (std::size_t i = 0; i < trace.launches.size(); ++i)
    launch_of.emplace(trace.launches[i].correlation, i);
  std::vector<RangeQuery> queries;
  std::vector<double> durations;
  for (const TraceKernel& k : trace.kernels) {
    const auto it = launch_of.find(k.correlation);
    if (k.kind != KernelKind::gemm || k.correlation < 0 || it == launch_of.end()) continue;
    const TraceLaunch& l = trace.launches[it->second];
    queries.push_back({l.pid, l.tid, l.time});
    durations.push_back(k.duration);
  }
  const std::vector<int> op_of = innermost_ranges(ops, queries, true);
  std::vector<double> op_seconds(trace.gemms.size(), 0.0);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (op_of[q] >= 0) op_seconds[static_cast<std::size_t>(op_of[q])] += durations[q] * 1e-6;
  }
  bool shaped = false;
  for (std::size_t i = 0; i < trace.gemms.size(); ++i) {
    if (op_seconds[i] <= 0) continue;
    const ShapedGemm& g = trace.gemms[i];
    Sample s;
    s.benchmark = "gemm";
    s.dtype = g.dtype.empty() ? base_dtype : g.dtype;
    s.m = g.m * g.batch;
    s.n = g.n;
    s.k = g.k;
    const double elem = s.dtype == "fp32" ? 4.0 : 2.0;
    s.bytes = elem * static_cast<double>(g.batch) *
              static_cast<double>(g.m * g.k + g.k * g.n + g.m * g.n);
    s.seconds = op_seconds[i];
    s.source = fmt::format("trace={};shapes=Input Dims;op_start_us={:.3f}", trace.source, g.start);
    set.rows.push_back(std::move(s));
    shaped = true;
  }

  // Recognised phases: each row's time shared among the predicted kernels of its kind.
  const std::vector<PredictedPart> parts = predict_layer(run);
  std::map<std::string, Phase> phase_of;
  for (const PhaseSummary& p : check.ops.phases)
    phase_of[p.name] = p.phase;
  for (const TraceRow& row : check.rows) {
    const bool fitted = row.kind == KernelKind::grouped_gemm || row.kind == KernelKind::attention ||
                        (row.kind == KernelKind::gemm && !shaped);
    if (!fitted || !row.predicted || row.measured <= 0 || row.ranges == 0) continue;
    const Phase phase = phase_of.at(row.phase);
    models::KernelList kernels;
    for (const PredictedPart& part : parts) {
      if (part.block == phase.block && part.pass == phase.pass && part.kind == row.kind) {
        kernels.insert(kernels.end(), part.kernels.begin(), part.kernels.end());
      }
    }
    std::vector<double> alone;
    double total = 0;
    for (const models::LayerKernel& k : kernels) {
      alone.push_back(price({k}, run));
      total += alone.back();
    }
    if (total <= 0) continue;
    const double per_layer = row.measured / static_cast<double>(row.ranges);
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const models::LayerKernel& k = kernels[i];
      if (k.flops() <= 0) continue;
      Sample s;
      s.benchmark = std::string(kernel_kind_name(row.kind));
      s.dtype = kernel_dtype(k, precision);
      s.m = k.is_gemm ? k.m * k.batch : 0;
      s.n = k.is_gemm ? k.n : 0;
      s.k = k.is_gemm ? k.k : 0;
      s.bytes = static_cast<double>(k.bytes);
      s.flops = k.flops();
      s.seconds = per_layer * alone[i] / total;
      s.source = fmt::format(
          "trace={};phase={};kind={};ranges={};kernels={};predicted={};"
          "apportioned by predicted time",
          trace.source, row.phase, kernel_kind_name(row.kind), row.ranges, row.kernels, k.name);
      set.rows.push_back(std::move(s));
    }
  }
  // A path or phase name with a comma would break the CSV cell.
  for (Sample& s : set.rows)
    std::replace(s.source.begin(), s.source.end(), ',', ' ');
  if (set.rows.empty()) {
    throw core::ConfigError(
        trace.source, "traceEvents",
        "no samples: neither GEMM ops with recorded shapes (record_shapes=True) "
        "nor annotated phases pipesim can read (attn(F), mlp(B), ...)");
  }
  return set;
}

}  // namespace pipesim::calibrate
