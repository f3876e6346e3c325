#include "pipesim/cost/stage_compute.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "pipesim/cost/context_parallel.hpp"
#include "pipesim/cost/host_issue.hpp"
#include "pipesim/cost/kernel_time.hpp"
#include "pipesim/cost/tensor_parallel.hpp"
#include "pipesim/hardware/collectives.hpp"
#include "pipesim/hardware/collectives/collective_algorithm.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {
namespace {

using sim::OpKind;

constexpr auto kF = static_cast<size_t>(OpKind::Forward);
constexpr auto kB = static_cast<size_t>(OpKind::Backward);
constexpr auto kI = static_cast<size_t>(OpKind::BackwardInput);
constexpr auto kW = static_cast<size_t>(OpKind::BackwardWeight);
constexpr auto kR = static_cast<size_t>(OpKind::Recompute);

// The precision a kernel computes in: a Transformer Engine low-precision recipe runs only the
// linear layers' GEMMs in it and everything else in bf16.
std::string dtype_of(const models::LayerKernel& k, models::Precision p) {
  return models::low_precision_gemms(p) && !k.linear ? "bf16" : models::precision_name(p);
}

// The kernels one op launches, in order, with each one's GPU seconds: the low-precision
// recipe's cast right before the GEMM it feeds, the linear GEMMs slowed by `linear_slowdown`.
std::vector<IssuedKernel> launched(const models::KernelList& kernels, const hardware::GpuSpec& gpu,
                                   models::Precision precision, double linear_slowdown,
                                   const hardware::FrameworkOverhead& framework,
                                   const CudaGraphScopes& graphs, bool dispatch_syncs) {
  models::KernelList list;
  std::vector<double> seconds;
  const auto add = [&](const models::LayerKernel& k) {
    list.push_back(k);
    seconds.push_back((k.linear ? linear_slowdown : 1.0) *
                      kernel_time(k, gpu, dtype_of(k, precision)));
  };
  for (const models::LayerKernel& k : kernels) {
    for (const models::LayerKernel& cast : low_precision_casts({k}, precision))
      add(cast);
    add(k);
  }
  return issued_kernels(list, seconds, framework, graphs, dispatch_syncs);
}

template <class T>
using PerKind = std::array<T, sim::kNumComputeKinds>;

// One layer of a kind on one GPU: its kernels' seconds per part (F, I, W, R) and, where the
// host's dispatch is modelled, the kernels it issues.
struct Layer {
  PerKind<double> k{};
  PerKind<std::vector<IssuedKernel>> issued;  // F, I, W, R, and B = I then W
};

Layer layer_work(const StageCompute& sc, const models::ModelSpec& model,
                 const hardware::HardwareProfile& hw, const models::LayerConfig& cfg,
                 models::Recompute recompute, models::LayerKind kind, double linear_slowdown,
                 const CudaGraphScopes& graphs, bool moe) {
  const double dispatch = hw.framework.op_overhead;
  Layer l;
  const std::array<models::KernelList, 4> lists{
      models::layer_forward(model, cfg, kind), models::layer_backward_input(model, cfg, kind),
      models::layer_backward_weight(model, cfg, kind),
      models::layer_recompute(model, cfg, recompute, kind)};
  const std::array<size_t, 4> parts{kF, kI, kW, kR};
  for (size_t i = 0; i < parts.size(); ++i) {
    l.k[parts[i]] = sc.compute_time(lists[i]);
    if (dispatch > 0) {
      l.issued[parts[i]] =
          launched(lists[i], hw.gpu, model.precision, linear_slowdown, hw.framework, graphs, moe);
    }
  }
  l.issued[kB] = l.issued[kI];
  l.issued[kB].insert(l.issued[kB].end(), l.issued[kW].begin(), l.issued[kW].end());
  return l;
}

// The seconds of the attention kernels among `ks` (what context parallelism's ring runs beside).
double attention_time(const StageCompute& sc, const models::KernelList& ks) {
  models::KernelList attention;
  for (const models::LayerKernel& k : ks) {
    if (k.op == models::MemoryOp::flash_attention ||
        k.op == models::MemoryOp::flash_attention_backward) {
      attention.push_back(k);
    }
  }
  return sc.compute_time(attention);
}

// Delayed scaling (Transformer Engine's per-tensor FP8 recipe): Megatron-Core opens one
// fp8_autocast around each model chunk's TransformerBlock with the amax-reduction group
// (tensor × context × data parallel: every rank of the pipeline stage). Leaving it, TE
// all-reduces (MAX) the chunk's forward amaxes, synchronously, before the next kernel; a hook
// at the end of the chunk's backward does the same for the gradients' amaxes. Each GEMM keeps
// 3 forward and 2 backward fp32 amaxes: a message of bytes, so latency, and NCCL's tuner takes
// the algorithm it predicts fastest for that size: the least of the ones modelled here.
class AmaxReduction {
 public:
  AmaxReduction(const models::ModelSpec& model, const hardware::HardwareProfile& hw,
                const TrainingSetup& setup, const models::LayerConfig& cfg)
      : fp8_(model.precision == models::Precision::FP8), group_(group_of(hw, setup)) {
    if (fp8_) {
      for (const models::LayerKernel& k :
           models::layer_forward(model, cfg, models::LayerKind::Dense))
        gemms_ += k.linear ? 1 : 0;
    }
  }

  // Seconds of the reduction after `layers` layers, `amaxes_per_gemm` amaxes per GEMM; 0
  // without FP8.
  double operator()(double layers, double amaxes_per_gemm) const {
    if (!fp8_) return 0.0;
    const core::Bytes amaxes(std::floor(4.0 * amaxes_per_gemm * gemms_ * layers));
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto a :
         {hardware::AllReduceAlgorithm::Ring, hardware::AllReduceAlgorithm::Rabenseifner,
          hardware::AllReduceAlgorithm::Hierarchical, hardware::AllReduceAlgorithm::Tree}) {
      fastest = std::min(fastest, hardware::algorithm(a)
                                      .time(hardware::Collective::AllReduce, group_, amaxes)
                                      .total()
                                      .value);
    }
    return fastest;
  }

 private:
  static hardware::CollectiveGroup group_of(const hardware::HardwareProfile& hw,
                                            const TrainingSetup& setup) {
    const int ranks = setup.tensor_parallel * setup.context_parallel * setup.data_parallel;
    return {ranks, std::max(1, (ranks + hw.gpus_per_node - 1) / hw.gpus_per_node), hw.intra_node,
            hw.inter_node};
  }

  bool fp8_ = false;
  double gemms_ = 0;  // per layer
  hardware::CollectiveGroup group_;
};

// An op's collectives in the order tensor, expert, context parallelism's, each list built
// once: the op's own (what no other micro-batch hides) are the tensor and context ones.
struct OpComm {
  std::vector<OpCollective> all;
  hardware::CommTime own, exchange;
};

// What an op's collectives depend on besides its counts: the model, the hardware, the layer
// setup, the expert layout and the attention's seconds the rings run beside (F, backward).
struct CommContext {
  const models::ModelSpec& model;
  const hardware::HardwareProfile& hw;
  const models::LayerConfig& cfg;
  const ExpertLayout& experts;
  double attn_f, attn_b;
};

OpComm op_comm(const CommContext& x, double tp_points, double moe_count, double ring_f,
               double ring_b, const std::vector<OpCollective>& units) {
  const std::vector<OpCollective> tp = tp_collectives(x.model, x.cfg, tp_points);
  const std::vector<OpCollective> exchange =
      x.experts.layer_collectives(x.hw, x.model, x.cfg, moe_count);
  std::vector<OpCollective> rings;
  for (const auto& ring : {cp_ring(x.hw, x.model, x.cfg, false, x.attn_f, ring_f),
                           cp_ring(x.hw, x.model, x.cfg, true, x.attn_b, ring_b)}) {
    rings.insert(rings.end(), ring.begin(), ring.end());
  }
  OpComm c{tp, {}, collectives_time(x.hw, exchange)};
  c.all.insert(c.all.end(), exchange.begin(), exchange.end());
  c.all.insert(c.all.end(), rings.begin(), rings.end());
  c.all.insert(c.all.end(), units.begin(), units.end());
  std::vector<OpCollective> own = tp;
  own.insert(own.end(), rings.begin(), rings.end());
  own.insert(own.end(), units.begin(), units.end());
  c.own = collectives_time(x.hw, own);
  return c;
}

// The units of stage `part` in the order an op of kind p computes them (the embedding, the
// layers, the head; backwards in reverse), each with its share of the op's kernels (`extra`:
// a folded recomputation's, per layer); `stage_params` the stage's parameters.
std::vector<ShardUnit> shard_units(const StageCompute& sc, const models::ModelSpec& model,
                                   const models::LayerConfig& cfg, const models::StageLayers& part,
                                   double stage_params, const Layer& dense, const Layer& expert,
                                   size_t p, double extra) {
  std::vector<ShardUnit> units;
  if (part.embedding) {
    units.push_back({models::embedding_params_per_gpu(model, cfg.tensor_parallel), 0.0,
                     p == kF   ? sc.compute_time(models::embedding_forward(model, cfg))
                     : p == kI ? 0.0
                               : sc.compute_time(models::embedding_backward_weight(model, cfg))});
  }
  for (int l = part.first_layer; l < part.first_layer + part.layers; ++l) {
    const models::LayerKind kind = models::layer_kind(model, l);
    const models::GpuLayerParameters lp = models::layer_params_per_gpu(model, cfg, kind);
    const Layer& ly = kind == models::LayerKind::Moe ? expert : dense;
    const double c = p == kB ? ly.k[kI] + ly.k[kW] : ly.k[p];
    units.push_back({lp.dense, lp.expert, c + extra});
  }
  if (part.head) {
    const double heads = 1.0 + model.mtp_layers;
    const double f = sc.compute_time(models::head_forward(model, cfg));
    const double i = sc.compute_time(models::head_backward_input(model, cfg));
    const double w = sc.compute_time(models::head_backward_weight(model, cfg));
    units.push_back({stage_params - std::accumulate(units.begin(), units.end(), 0.0,
                                                    [](double a, const ShardUnit& u) {
                                                      return a + u.params + u.expert_params;
                                                    }),
                     0.0,
                     heads * (p == kF   ? f
                              : p == kI ? i
                              : p == kW ? w
                                        : i + w)});
  }
  if (p != kF) std::reverse(units.begin(), units.end());
  return units;
}

// A stage's work beyond its layers, into its parts' kernels `k` and collective points: the
// unfused gradient accumulation, the embedding, the head.
void add_stage_ends(const StageCompute& sc, const models::ModelSpec& model,
                    const models::LayerConfig& cfg, const TrainingSetup& setup,
                    const models::StageLayers& part, double stage_params, const ParamBytes& bytes,
                    PerKind<double>& k, PerKind<double>& points) {
  if (setup.unfused_grad_accumulation) {
    // Per micro-batch, every weight gradient of the stage (embedding and head included) is
    // added into the gradient buffer: read the gradient and the buffer, write the buffer.
    models::LayerKernel add;
    add.name = "grad_accumulate";
    add.op = models::MemoryOp::other;
    add.bytes = static_cast<std::int64_t>(3.0 * bytes.gradients * stage_params);
    k[kW] += sc.compute_time({add});
  }
  if (part.embedding) {
    // The vocabulary-parallel embedding sums its t partial lookups: one collective.
    k[kF] += sc.compute_time(models::embedding_forward(model, cfg));
    k[kW] += sc.compute_time(models::embedding_backward_weight(model, cfg));
    points[kF] += 1;
  }
  if (part.head) {
    // The head runs once more per multi-token prediction module (DeepSeek-V3 §2.2).
    const double heads = 1.0 + model.mtp_layers;
    k[kF] += heads * sc.compute_time(models::head_forward(model, cfg));
    // The head's input gradient sums over the t vocabulary slices: one collective.
    k[kI] += heads * sc.compute_time(models::head_backward_input(model, cfg));
    k[kW] += heads * sc.compute_time(models::head_backward_weight(model, cfg));
    points[kI] += heads;
  }
}

// Seconds of each worker's optimizer step over the `stages` stages it holds copies of.
std::vector<double> optimizer_seconds(const StageCompute& sc, const models::ModelSpec& model,
                                      const sim::Schedule& schedule, size_t stages,
                                      const std::vector<double>& params,
                                      const std::vector<double>& shards, const ParamBytes& bytes) {
  // Optimizer step: memory-bound passes over the parameters (or, sharded, the slice) the
  // worker updates, optimizer_step_bytes per parameter (static_memory.hpp: Adam, and with mixed
  // precision Megatron-LM's gradient cast, unscale, norm and weight cast around it). Fused
  // multi-tensor kernels: 2 launches per stage copy (Apex FusedAdam).
  const double adam_bytes = optimizer_step_bytes(model.precision, bytes);
  std::vector<models::KernelList> adam(static_cast<size_t>(schedule.workers));
  for (int p = 0; p < schedule.pipelines; ++p) {
    for (size_t s = 0; s < stages; ++s) {
      const auto w = static_cast<size_t>(schedule.stage_worker[static_cast<size_t>(p)][s]);
      models::LayerKernel kernel;
      kernel.name = "adam";
      kernel.op = models::MemoryOp::other;
      kernel.bytes = static_cast<std::int64_t>(0.5 * params[s] * adam_bytes / shards[s]);
      adam[w].push_back(kernel);
      adam[w].push_back(kernel);
      if (models::low_precision_gemms(model.precision)) {
        // The updated weights are quantized once per iteration (row- and column-wise copies,
        // reused by every micro-batch): read bf16, write both copies, every parameter.
        models::LayerKernel cast;
        cast.name = "weight_cast";
        cast.op = models::MemoryOp::other;
        cast.bytes =
            static_cast<std::int64_t>(params[s] * (2.0 + 2.0 * quantized_bytes(model.precision)));
        adam[w].push_back(cast);
      }
    }
  }
  std::vector<double> optimizer(adam.size(), 0.0);
  for (size_t w = 0; w < adam.size(); ++w)
    optimizer[w] = sc.compute_time(adam[w]);
  return optimizer;
}

}  // namespace

StageCompute::StageCompute(const models::ModelSpec& model, const hardware::HardwareProfile& hw,
                           const TrainingSetup& setup, const sim::Schedule& schedule,
                           const std::vector<models::StageLayers>& partition,
                           models::Recompute recompute, const std::vector<double>& params,
                           const std::vector<double>& shards, const ParamBytes& bytes,
                           const ExpertLayout& experts, const std::vector<ShardGroup>& groups)
    // An op's collectives run as one Collective task, after it or beside it: beside with the TP
    // overlap; with the MoE all-to-all overlap the task holds the exchange alone, beside, and
    // the TP and CP collectives join the op's kernels (with_own_collectives).
    : model_(model),
      hw_(hw),
      tp_overlap_(setup.tp_comm_overlap),
      exchange_apart_(setup.moe_overlap),
      linear_slowdown_(setup.tp_comm_overlap && setup.tensor_parallel > 1
                           ? 1 / (1 - hw.framework.tp_overlap_sm_fraction)
                           : 1.0) {
  const models::LayerConfig cfg = layer_config(setup);
  // One layer of each kind on one GPU: its kernels (F, I, W, R), and its tensor-parallel
  // collective points (tensor_parallel.hpp): two in the forward, two in the input gradient, the
  // forward's again in a full recomputation. A mixture-of-experts layer adds its
  // expert-parallel collectives (expert_parallel.hpp) in the same three places.
  const bool moe = model_.is_moe();
  // The host's dispatch (host_issue.hpp): what the GPU waits for it in each part of a layer,
  // with the CUDA graphs the run captures; every MoE dispatcher waits for its token counts.
  const CudaGraphScopes graphs = parse_cuda_graph_scopes(setup.cuda_graphs, "cuda_graphs");
  const double dispatch = hw.framework.op_overhead;
  const auto layer = [&](models::LayerKind kind) {
    return layer_work(*this, model_, hw_, cfg, recompute, kind, linear_slowdown_, graphs, moe);
  };
  const Layer dense = layer(models::LayerKind::Dense);
  const Layer expert = moe ? layer(models::LayerKind::Moe) : dense;
  const bool full = recompute == models::Recompute::Full;
  const double points_r = full ? kTpCollectivesForward : 0;
  // A layer's tensor-parallel collective points are the attention's and the MLP's, one each
  // way. A mixture-of-experts layer has no dense MLP: Megatron-Core's token dispatchers
  // (moe/token_dispatcher.py) gather and scatter the routed tokens over the
  // expert-tensor-parallel group themselves (expert_parallel.hpp), so it drops the MLP's
  // point, unless shared experts run as a tensor-parallel MLP beside the routed ones.
  const bool moe_mlp_point = !moe || model_.moe.shared_experts > 0;
  // Context parallelism's ring (context_parallel.hpp): per layer one forward ring beside the
  // attention forward (again when recomputed, full or selective) and one backward ring beside
  // the attention backward, in the input-gradient part.
  const double attn_f =
      attention_time(*this, models::layer_forward(model_, cfg, models::LayerKind::Dense));
  const double attn_b =
      attention_time(*this, models::layer_backward_input(model_, cfg, models::LayerKind::Dense));
  const double rings_r = recompute == models::Recompute::None ? 0 : 1;
  const CommContext comm{model_, hw_, cfg, experts, attn_f, attn_b};
  const AmaxReduction amax_reduction(model_, hw_, setup, cfg);
  // Sharded data parallelism's gathers and reduce-scatters, unit by unit
  // (sharded_data_parallel.hpp): per op kind whether it gathers and whether it reduces.
  const DataParallelSharding level = sharding_of(setup);
  PerKind<bool> gathers{}, reduces{};
  gathers[kF] = gathers[kB] = gathers[kI] = gathers_per_op(level);
  reduces[kB] = reduces[kW] = reduces_per_backward(level);
  const size_t stages = partition.size();
  kernels_.resize(stages);
  collectives_.resize(stages);
  collective_time_.resize(stages);
  exchange_time_.resize(stages);
  own_time_.resize(stages);
  times_.resize(stages);
  for (size_t s = 0; s < stages; ++s) {
    const models::StageLayers& part = partition[s];
    const double L = part.layers;
    double moe_layers = 0;
    for (int l = part.first_layer; moe && l < part.first_layer + part.layers; ++l)
      moe_layers += models::layer_kind(model_, l) == models::LayerKind::Moe ? 1 : 0;
    const double dense_layers = L - moe_layers;
    // The four parts of a stage's work (F, I, W, R): kernels, collective points, MoE layers
    // whose expert collectives they run.
    PerKind<double> k{}, points{}, expert_layers{}, stall{};
    // A weight-gradient op follows other work on its worker with no transfer to synchronize
    // on, so the host is already ahead of it: no stall.
    for (size_t p : {kF, kB, kI, kR}) {
      stall[p] = host_stall(dense.issued[p], static_cast<int>(dense_layers), dispatch) +
                 host_stall(expert.issued[p], static_cast<int>(moe_layers), dispatch);
    }
    for (size_t p : {kF, kI, kW, kR}) {
      k[p] = (dense_layers > 0 ? dense_layers * dense.k[p] : 0.0) +
             (moe_layers > 0 ? moe_layers * expert.k[p] : 0.0) + stall[p];
    }
    k[kF] += amax_reduction(L, 3);
    k[kI] += amax_reduction(L, 2);
    const double no_mlp_point = moe_mlp_point ? 0.0 : moe_layers;
    points[kF] = L * kTpCollectivesForward - no_mlp_point;
    points[kI] = L * kTpCollectivesBackward - no_mlp_point;
    points[kR] = full ? L * points_r - no_mlp_point : 0.0;
    PerKind<double> rings_f{}, rings_b{};  // forward and backward rings per op
    rings_f[kF] = L;
    rings_b[kI] = L;
    rings_f[kR] = L * rings_r;
    expert_layers[kF] = moe_layers;
    expert_layers[kI] = moe_layers;
    // A recomputed MoE FFN (the `moe` module) repeats its dispatch and combine too.
    const bool moe_again =
        full || (recompute == models::Recompute::Selective && cfg.recompute_modules.moe);
    expert_layers[kR] = moe_again ? moe_layers : 0;
    add_stage_ends(*this, model_, cfg, setup, part, params[s], bytes, k, points);
    const auto units_of = [&](size_t p, const PerKind<double>& extra) {
      if (groups.empty() || !(gathers[p] || reduces[p])) return std::vector<ShardUnit>{};
      return shard_units(*this, model_, cfg, part, params[s], dense, expert, p, extra[p]);
    };
    // No groups without sharded data parallelism: no units either, so the group is unused.
    const ShardGroup group = groups.empty() ? ShardGroup{} : groups[s];
    const auto sharded = [&](size_t p, const PerKind<double>& extra) {
      return unit_collectives(hw_, bytes, group, units_of(p, extra), gathers[p], reduces[p]);
    };
    const auto part_alone = [&](size_t p) {
      const OpComm c = op_comm(comm, points[p], expert_layers[p], rings_f[p], rings_b[p],
                               sharded(p, PerKind<double>{}));
      return alone_of(k[p], collectives_time(hw_, c.all).total().value, c.own.total().value,
                      c.exchange.total().value);
    };
    times_[s] = {part_alone(kF), part_alone(kI), part_alone(kW), part_alone(kR)};
    // The ops: a backward of a schedule without R ops recomputes its forward first.
    const bool folds_recompute = !schedule.recompute;
    PerKind<double> op_points = points, op_experts = expert_layers, op_f = rings_f, op_b = rings_b;
    op_points[kI] += folds_recompute ? points[kR] : 0;
    op_points[kB] = op_points[kI];
    op_experts[kI] += folds_recompute ? expert_layers[kR] : 0;
    op_experts[kB] = op_experts[kI];
    op_f[kI] += folds_recompute ? rings_f[kR] : 0;
    op_f[kB] = op_f[kI];
    op_b[kB] = op_b[kI];
    const double extra = folds_recompute ? k[kR] : 0.0;
    PerKind<double>& ops = kernels_[s];
    ops = k;
    // A whole backward issues each layer's input- and weight-gradient kernels together.
    ops[kB] = k[kI] + k[kW] + extra - stall[kI] - stall[kW] + stall[kB];
    ops[kI] = k[kI] + extra;
    // A folded recomputation runs layer by layer inside the backward: its share per unit.
    PerKind<double> folded{};
    folded[kI] = folded[kB] = L > 0 ? extra / L : 0.0;
    for (size_t kind = 0; kind < sim::kNumComputeKinds; ++kind) {
      OpComm c = op_comm(comm, op_points[kind], op_experts[kind], op_f[kind], op_b[kind],
                         sharded(kind, folded));
      collectives_[s][kind] = std::move(c.all);
      collective_time_[s][kind] = collectives_time(hw_, collectives_[s][kind]);
      exchange_time_[s][kind] = c.exchange;
      own_time_[s][kind] = c.own;
    }
  }

  optimizer_ = optimizer_seconds(*this, model_, schedule, stages, params, shards, bytes);
}

double StageCompute::with_own(double kernels, double own) const {
  return tp_overlap_ ? std::max(kernels, own) : kernels + own;
}

double StageCompute::alone_of(double kernels, double all, double own, double exchange) const {
  if (exchange_apart_) return std::max(with_own(kernels, own), exchange);
  return overlap() ? std::max(kernels, all) : kernels + all;
}

double StageCompute::with_own_collectives(int stage, sim::OpKind kind) const {
  return with_own(kernels(stage, kind), at(own_time_, stage, kind).total().value);
}

double StageCompute::alone(int stage, sim::OpKind kind) const {
  return alone_of(kernels(stage, kind), collective_time(stage, kind).total().value,
                  at(own_time_, stage, kind).total().value,
                  exchange_time(stage, kind).total().value);
}

sim::OpCollectives StageCompute::lowering() const {
  sim::OpCollectives out;
  out.overlap = overlap();
  bool any = false;
  for (const auto& stage : collectives_) {
    for (const auto& list : stage) {
      out.carries.push_back(list.empty() ? 0 : 1);
      any = any || !list.empty();
    }
  }
  if (!any) out.carries.clear();
  return out;
}

double StageCompute::compute_time(const models::KernelList& kernels) const {
  return op_kernel_time(kernels, hw_.gpu, model_.precision, 0.0, linear_slowdown_);
}

double op_kernel_time(const models::KernelList& kernels, const hardware::GpuSpec& gpu,
                      models::Precision precision, double host_overhead, double linear_slowdown,
                      bool with_casts) {
  if (!models::low_precision_gemms(precision)) {
    const std::string dtype = models::precision_name(precision);
    if (linear_slowdown == 1.0) return kernel_time(kernels, gpu, dtype, host_overhead);
    // With sequence parallelism every linear layer's GEMM sits next to an all-gather or a
    // reduce-scatter, which the overlap runs beside it on some of the SMs.
    models::KernelList linear, other;
    for (const models::LayerKernel& k : kernels)
      (k.linear ? linear : other).push_back(k);
    return linear_slowdown * kernel_time(linear, gpu, dtype, host_overhead) +
           kernel_time(other, gpu, dtype, host_overhead);
  }
  // A Transformer Engine recipe: the linear layers' GEMMs run in the low-precision format,
  // everything else (attention, LM head, memory-bound kernels) in bf16, plus the quantizing
  // casts in front of the GEMMs (low_precision_casts).
  models::KernelList low, bf16;
  for (const models::LayerKernel& k : kernels)
    (k.linear ? low : bf16).push_back(k);
  if (with_casts) {
    const models::KernelList casts = low_precision_casts(kernels, precision);
    bf16.insert(bf16.end(), casts.begin(), casts.end());
  }
  return linear_slowdown * kernel_time(low, gpu, models::precision_name(precision), host_overhead) +
         kernel_time(bf16, gpu, "bf16", host_overhead);
}

models::KernelList low_precision_casts(const models::KernelList& kernels, models::Precision p) {
  models::KernelList casts;
  const double q = quantized_bytes(p);
  if (q <= 0) return casts;
  for (const models::LayerKernel& k : kernels) {
    // The weight-gradient GEMM reads the column-wise copies its forward and data-gradient
    // GEMMs' casts already wrote: no cast of its own.
    if (!k.linear || k.weight_gradient) continue;
    const double elements =
        static_cast<double>(k.m) * static_cast<double>(k.k) * static_cast<double>(k.batch);
    models::LayerKernel cast;
    cast.name = k.name + "_cast";
    cast.op = models::MemoryOp::other;
    cast.bytes = static_cast<std::int64_t>(elements * (2.0 + 2.0 * q));
    casts.push_back(cast);
  }
  return casts;
}

}  // namespace pipesim::cost
