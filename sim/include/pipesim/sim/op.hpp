#pragma once
// The operations a pipeline schedule is made of (docs/architecture.md §2).

#include <cstdint>
#include <string>
#include <vector>

namespace pipesim::sim {

enum class OpKind : std::uint8_t {
  Forward,         //!< F: forward of one micro-batch through one stage
  Backward,        //!< B: whole backward (input and weight gradients)
  BackwardInput,   //!< I: backward w.r.t. the input only (zero-bubble split, B = I + W)
  BackwardWeight,  //!< W: backward w.r.t. the weights only
  Recompute,       //!< R: forward recomputation before a backward (activation checkpointing)
  Transfer,        //!< S/V: activation or gradient message between two workers
  AllReduce,       //!< A: gradient all-reduce of one stage across its replicas
  Optimizer,       //!< O: optimizer step of one worker
  //! C: the collectives inside one compute op's layers (tensor parallelism's), run after the op
  //! on its worker's stream or beside it (lowering.hpp, OpCollectives)
  Collective,
  //! D: a copy of one micro-batch's saved activations of one stage from the device to host
  //! memory after its forward (activation offload, lowering.hpp, OffloadOps)
  Offload,
  //! H: the copy back, host to device, before the backward that needs them
  Reload,
};

inline constexpr int kNumComputeKinds = 5;  //!< F, B, I, W, R: the kinds a Schedule lists
inline constexpr int kNumOpKinds = 11;      //!< every kind, Reload last

//! True for the kinds that run on a worker's compute stream and appear in a Schedule.
constexpr bool is_compute(OpKind k) {
  return static_cast<int>(k) < kNumComputeKinds;
}

//! One letter per kind, as in the papers' figures: F B I W R S A O, and C, D, H.
char op_letter(OpKind kind);
//! Parses a letter back (F B I W R); returns false for anything else.
bool parse_compute_letter(char c, OpKind& kind);

//! How a compute op joins the op before it on its worker into one overlapped unit (DeepSeek-V3
//! report §3.2.1, Fig. 4: a forward of one micro-batch and a backward of another run as one
//! chunk whose communication hides behind the other half's compute). A unit is a run of ops, the
//! first with None and each later one with Half or Pair; it has two halves, split at its one
//! Pair. Lowering (lowering.hpp, build_task_graph) runs the unit's compute back to back, starts
//! it once every input of every op in it has arrived, releases every result at its end, and
//! runs each half's collectives beside the other half's compute.
enum class Join : std::uint8_t {
  None,  //!< starts a unit of its own (every op of an unfused schedule)
  Half,  //!< joins the previous op's half
  Pair,  //!< opens the second half of the previous op's unit
};

//! A compute operation of a schedule. `stage` is the virtual stage index within its pipeline
//! (0 … stages−1); `chunk` the model chunk on the worker (interleaved / V-shape schedules).
struct Op {
  OpKind kind = OpKind::Forward;
  int pipeline = 0;
  int stage = 0;
  int chunk = 0;
  int micro_batch = 0;
  Join join = Join::None;

  friend bool operator==(const Op&, const Op&) = default;
};

//! "F(stage 2, micro-batch 3)", or with the pipeline when there are several.
std::string describe(const Op& op);

//! Whether program[i] (a worker's ops in order) belongs to an overlapped unit: it joins the op
//! before it, or the op after it joins it.
inline bool in_overlapped_unit(const std::vector<Op>& program, size_t i) {
  return program[i].join != Join::None ||
         (i + 1 < program.size() && program[i + 1].join != Join::None);
}

}  // namespace pipesim::sim
