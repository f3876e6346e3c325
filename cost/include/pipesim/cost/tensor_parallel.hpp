#pragma once
// Tensor-parallel communication of one layer (Megatron-LM: Shoeybi et al., arXiv 1909.08053,
// §3, Fig. 4; Korthikanti et al., arXiv 2205.05198, §4.2.2).
//
// Per layer and micro-batch each GPU of the t-way group runs, on b·s·h elements of the
// activation dtype (n bytes):
//   without sequence parallelism: 2 all-reduces in the forward (after the row-parallel
//     projection and fc2: operator g) and 2 in the input-gradient backward (operator f);
//   with sequence parallelism: an all-gather before and a reduce-scatter after each of the two
//     blocks, forward and backward — the same bytes on the wire as the ring all-reduce
//     ((t−1)/t·n each, 2(t−1)/t·n per pair), and the same α count.
// With sequence parallelism the backward re-gathers the sharded inputs of the column-parallel
// GEMMs for their weight gradients; Megatron overlaps that all-gather with the data-gradient
// GEMM (Korthikanti §4.2.2), so it is not on the critical path and not priced.
// Full recomputation repeats the forward's collectives; selective recomputation (the attention
// core) has none. Each op's collectives become one Collective task after it on the worker's
// stream (Megatron without TP-communication overlap waits for them), or beside it with
// tp_comm_overlap, a flow on the worker's link ports (op_collective.hpp). The group lies within
// one node (placement), so the intra-node tier prices them, by the profile's algorithm or
// fitted curve (hardware/collectives.hpp).
// First/last stages add one all-reduce of b·s·h for the vocabulary-parallel embedding
// (forward) and one for the input gradient of the vocabulary-parallel head (backward).

#include <vector>

#include "pipesim/core/units.hpp"
#include "pipesim/cost/op_collective.hpp"
#include "pipesim/hardware/collectives.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {

//! Bytes of one TP collective's buffer: b·s·h activation elements.
core::Bytes tp_buffer_bytes(const models::ModelSpec& m, const models::LayerConfig& c);

//! Seconds of one collective pair point (an all-reduce, or an all-gather + reduce-scatter with
//! sequence parallelism) on the intra-node tier over t ranks. Zero for t = 1.
double tp_collective_time(const hardware::HardwareProfile& hw, const models::ModelSpec& m,
                          const models::LayerConfig& c);

//! The collectives of `points` collective points (each an all-reduce, or with sequence
//! parallelism an all-gather and a reduce-scatter) of b·s·h elements over the t GPUs of the
//! group, in one node. Empty for t = 1 or no points.
std::vector<OpCollective> tp_collectives(const models::ModelSpec& m, const models::LayerConfig& c,
                                         double points);

//! Per layer: collectives in the forward (2) and in the input-gradient backward (2).
constexpr int kTpCollectivesForward = 2;
constexpr int kTpCollectivesBackward = 2;

//! Bytes one GPU sends per layer, forward and backward, in its TP collectives (ring):
//! 4 · 2(t−1)/t · b·s·h·e.
core::Bytes tp_layer_traffic(const models::ModelSpec& m, const models::LayerConfig& c);

}  // namespace pipesim::cost
