#pragma once
// The configurations `pipesim search` considers (the Chimera paper's configuration selection,
// Li & Hoefler SC'21 §4, done by simulation): for P GPUs and a mini-batch B̂,
//   each tensor-parallel degree T asked for (SearchRequest::tensor_parallel; none: T = 1 and
//   the option left at its default), T dividing P,
//   every D dividing P / T (W = P / (T·D) pipeline replicas),
//   every micro-batch size B, a power of two dividing B̂ / W (N = B̂ / (W·B) micro-batches),
//   every recomputation mode, and the variants of each schedule's own options its registry
//   entry gives (schedules::ScheduleEntry::variants; e.g. Chimera's pipelines and strategies,
//   interleaved's chunks).
// A configuration that cannot run is not simulated but kept, with a status that says why:
//   D > layers, a variant its scheme prunes (interleaved: 2·D > layers), W not dividing B̂, T not
//   dividing P, or weights alone above the GPU's memory (a lower bound on every worker's peak:
//   the fullest stage holds at least 1/D of the model, split T ways, once per pipeline the
//   scheme runs) → status `pruned` with the reason.
// Order: schedules as given, then T as given, D ascending, B ascending, recomputation modes as
// given, then the schedule's options; so rows come out the same on every run.

#include <map>
#include <string>
#include <vector>

namespace pipesim::explore {

//! What search knows about the model and hardware, from the performance model; a zero means
//! unknown and switches that pruning rule off.
struct SearchLimits {
  int layers = 0;             //!< transformer layers L (D ≤ L)
  double static_bytes = 0.0;  //!< weights + gradients + optimizer of the whole model, bytes
  double capacity = 0.0;      //!< memory per GPU, bytes
};

struct SearchRequest {
  std::string model;
  std::string hardware;
  int gpus = 0;                        //!< P
  int mini_batch = 0;                  //!< B̂
  std::vector<std::string> schedules;  //!< in the order to report
  std::vector<std::string> recompute;  //!< recomputation modes to try
  //! Tensor-parallel degrees to try; empty: T = 1 with the option not set (the rows of a search
  //! that does not vary T).
  std::vector<int> tensor_parallel;
  //! Options given once for every candidate (name → text), on top of what search varies.
  std::map<std::string, std::string> fixed;
  SearchLimits limits;
};

struct Candidate {
  std::map<std::string, std::string> options;  //!< option name → value
  std::string pruned;              //!< why it is not simulated (the pruned reason); "" = simulate
  bool pruned_for_memory = false;  //!< pruned because weights alone do not fit
};

//! Every configuration in the documented order.
std::vector<Candidate> enumerate_candidates(const SearchRequest& request);

}  // namespace pipesim::explore
