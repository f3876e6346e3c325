#pragma once
// The configurations `pipesim search` considers (the Chimera paper's configuration selection,
// Li & Hoefler SC'21 §4, done by simulation): for P GPUs and a mini-batch B̂,
//   each layout (T, C, E, e_t) of the degrees asked for (tensor, context, expert and
//   expert-tensor parallelism; a list not given: 1 and the option left at its default), in
//   that nesting order; GPUs = T·C·D·W, a worker is T·C GPUs, and the expert layers fold
//   e_t × E × (T·W/(E·e_t)) over a stage's T·W GPUs (Megatron-Core's MoE parallel folding, no
//   GPUs of their own),
//   every D dividing P / (T·C) (W = P / (T·C·D) pipeline replicas),
//   every micro-batch size b the ops run at, a power of two dividing B̂ / W (N = B̂ / (W·b)
//   micro-batches), every recomputation mode, and the variants of each schedule's own options
//   its registry entry gives (schedules::ScheduleEntry::variants; e.g. Chimera's pipelines and
//   strategies, interleaved's chunks); a variant whose ops run at B / divisor (Chimera's
//   backward halving: 2) gets B = b · divisor, so that every configuration trains B̂ samples.
// A configuration that cannot run is not simulated but kept, with a status that says why:
//   T·C not dividing P, a layout the cost model refuses for the model and hardware
//   (SearchLimits::refuse: its own checks, e.g. E dividing the experts, 2C the sequence of a
//   causal model, groups inside the NVLink domain; per layout, then per (layout, D, W) for the
//   placement), D > layers, a variant its scheme prunes (interleaved: 2·D > layers), W not
//   dividing B̂, or a lower bound on the fullest worker's peak above the GPU's memory → status
//   `pruned` with the reason. The bound: every worker's peak is at least its static bytes
//   plus one micro-batch's activations of one of its stages (sim::track_memory adds them when
//   a forward starts), so the fullest worker's is at least the mean over workers:
//   copies · static / D + A / (D · chunks), with static the whole model's weights, gradients
//   and optimizer per GPU, copies the scheme's pipelines, A the whole model's activations of
//   one micro-batch per GPU at the size b its ops run at with full recomputation (the least
//   any mode stores; a scheme may recompute whatever the option says), chunks the scheme's
//   stages per worker and pipeline;
//   then the profile's memory overheads, as the cost model applies them.
// Order: schedules as given, then the layouts, D ascending, B ascending, recomputation modes as
// given, then the schedule's options; so rows come out the same on every run.

#include <boost/container/flat_map.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pipesim/scenario/search_limits.hpp"

namespace pipesim::search {

//! The layouts, knobs and limits search prunes with, from the performance model
//! (scenario/search_limits.hpp).
using scenario::Parallelism;
using scenario::SearchKnob;
using scenario::SearchLimits;

struct SearchRequest {
  std::string model;
  std::string hardware;
  int gpus = 0;                        //!< P
  int mini_batch = 0;                  //!< B̂
  std::vector<std::string> schedules;  //!< in the order to report
  std::vector<std::string> recompute;  //!< recomputation modes to try
  //! Tensor-parallel degrees to try; empty: T = 1 with the option not set (the rows of a search
  //! that does not vary T). The same for the other three degrees.
  std::vector<int> tensor_parallel;
  //! Context-parallel degrees; when given, every candidate runs flash attention (the ring
  //! needs it, and rows with C = 1 then compare like for like).
  std::vector<int> context_parallel;
  std::vector<int> expert_parallel;
  std::vector<int> expert_tensor_parallel;
  //! Options given once for every candidate (name → text), on top of what search varies.
  std::map<std::string, std::string> fixed;
  SearchLimits limits;
  //! C was not given: search picks it (search_defaults.hpp, least_context_parallel) and doubles
  //! it while nothing fits.
  bool context_chosen = false;
  //! Secondary knobs tried around each schedule's best configurations (empty: none; the limits'
  //! knobs but those fixed by the request, search_candidates fills it).
  std::vector<SearchKnob> knobs;
  //! At most this many refinement rounds, each from every schedule's best so far (one start
  //! per schedule: the branch and bound does not simulate a schedule's runners-up, and the
  //! table is the same with every row simulated).
  int refine_rounds = 4;
  //! What search chose itself and why (the degrees it varied, C, the refinement), for the table.
  std::vector<std::string> notes;
};

struct Candidate {
  //! Option name → value; a dozen per candidate and hundreds of thousands of candidates: one
  //! sorted array each, not a tree of nodes.
  boost::container::flat_map<std::string, std::string> options;
  std::string pruned;              //!< why it is not simulated (the pruned reason); "" = simulate
  bool pruned_for_memory = false;  //!< pruned because weights alone do not fit
  //! For a candidate pruned for memory: the bytes per GPU it needs at least.
  double memory_bound = 0.0;
  //! The rule a pruned candidate breaks, without its numbers ("W divides the mini-batch"), so
  //! that a search where nothing fits can say which rule binds most often.
  std::string rule;
};

//! The layouts of the request's degrees in enumeration order (T outermost, e_t innermost).
std::vector<Parallelism> parallel_layouts(const SearchRequest& request);

//! Every configuration in the documented order, each schedule's on one of `jobs` threads.
std::vector<Candidate> enumerate_candidates(const SearchRequest& request, int jobs = 1);

}  // namespace pipesim::search
