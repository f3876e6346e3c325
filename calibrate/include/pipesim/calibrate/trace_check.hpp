#pragma once
// A user's profiler trace beside pipesim's prediction of the same work, op by op, and the
// measured samples a profile is fitted from (calibrate/README.md, "Calibrate from your own
// training job").
//
// The prediction: one layer of the run's model on one GPU (models/layer_kernels.hpp, the layer
// the simulator prices), its forward (F), input-gradient (B) and weight-gradient (W) kernel
// lists split into the attention block (everything up to the token dispatch: norms, attention,
// projections, the router) and the MLP block (the FFN or the experts, shared experts included),
// then by kind, each part priced by cost::op_kernel_time in the run's precision without the
// framework's per-launch host overhead (the trace times kernels, not the CPU between them).
// A dispatch or combine phase is one token exchange over the expert-parallel group as the run's
// dispatcher makes it (cost/expert_parallel.hpp's TokenExchange); its backward moves the
// gradients the other way (the backward of a dispatch is a combine). A
// recognised phase (trace_ops.hpp) is predicted as its one-layer prediction times the number of
// its annotation ranges: DeepSeek's trace annotates every layer's phases once.

#include <optional>
#include <string>
#include <vector>

#include "pipesim/calibrate/kernel_kind.hpp"
#include "pipesim/calibrate/profiler_trace.hpp"
#include "pipesim/calibrate/samples.hpp"
#include "pipesim/calibrate/trace_ops.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/layer_kernels.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::calibrate {

//! What the trace's kernels computed: the run's model and layer on the base profile.
struct TraceRun {
  models::ModelSpec model;  //!< as one rank trains it (cost::trained_model, rank_model)
  hardware::HardwareProfile hardware;
  models::LayerConfig layer;
  cost::MoeDispatcher dispatcher = cost::MoeDispatcher::AllToAll;
};

//! The run of `setup` (its T, C, E, e_t, B, sequence, precision, recomputation) for `model` on
//! `hardware`. Throws core::ConfigError where the simulator would refuse the layout.
TraceRun make_trace_run(const models::ModelSpec& model, const hardware::HardwareProfile& hardware,
                        const cost::TrainingSetup& setup);

//! One layer's kernels of one block, pass and kind, and their predicted seconds.
struct PredictedPart {
  Block block = Block::none;
  Pass pass = Pass::none;
  KernelKind kind = KernelKind::other;
  models::KernelList kernels;  //!< empty for the all-to-all
  double seconds = 0;
};

//! Every part of one layer (MoE layer for a model with experts), in block, pass, kind order.
std::vector<PredictedPart> predict_layer(const TraceRun& run);

struct TraceRow {
  std::string phase;  //!< annotation; "" = outside every annotation
  KernelKind kind = KernelKind::other;
  std::size_t kernels = 0;
  std::size_t ranges = 0;  //!< the phase's occurrences
  double measured = 0;     //!< seconds
  //! Seconds pipesim predicts for the same work; 0 where it prices no such kernel, nullopt for a
  //! phase it cannot read.
  std::optional<double> predicted;
};

//! One phase: its kernels' time and pipesim's prediction for all of them.
struct PhaseRow {
  PhaseSummary summary;
  std::optional<double> predicted;  //!< nullopt for a phase pipesim cannot read
};

struct TraceCheck {
  std::string source, gpu;
  std::uint64_t events = 0;
  int rank = -1, world_size = -1;
  TraceOps ops;
  std::vector<TraceRow> rows;    //!< the trace's ops in order, then kinds pipesim predicts alone
  std::vector<PhaseRow> phases;  //!< ops.phases with their predictions
  std::vector<std::string> findings;  //!< biggest differences first, in words
};

//! The comparison. Throws core::ConfigError when the trace ran on another GPU than the
//! profile's (check_trace_gpu).
TraceCheck check_trace(const ProfilerTrace& trace, const TraceRun& run);

//! Throws core::ConfigError(trace, "deviceProperties", ...) when the trace names a GPU and the
//! profile another (compared by model, "NVIDIA H800" is "NVIDIA H800 80GB HBM3").
void check_trace_gpu(const ProfilerTrace& trace, const hardware::HardwareProfile& profile);

//! The base profile of a trace: `name_or_path` (shipped name or YAML) checked against the
//! trace's GPU, or when empty the one shipped profile for that GPU; ConfigError::option
//! ("hardware") when none or several are.
hardware::HardwareProfile choose_trace_profile(const ProfilerTrace& trace,
                                               const std::string& name_or_path);

//! The measured samples of the trace, in calibrate's samples format: each GEMM op whose shapes
//! the trace recorded (Input Dims) with the time of its GEMM kernels; for the recognised phases
//! without recorded shapes, the measured time of each GEMM, grouped-GEMM and attention row
//! shared among the predicted layer's kernels of that kind in proportion to their predicted
//! times (the configuration gives the shapes). Each row's `source` cites the trace, the phase
//! and how it was derived.
SampleSet trace_samples(const ProfilerTrace& trace, const TraceCheck& check, const TraceRun& run);

}  // namespace pipesim::calibrate
