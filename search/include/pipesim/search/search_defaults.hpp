#pragma once
// What search varies when it is not told: the expert-parallel degrees of a mixture-of-experts
// model, the context-parallel degree its sequence needs, and the secondary knobs it tries
// around its best configurations. Pure functions of the request and its limits.

#include <string>
#include <vector>

#include "pipesim/search/search_space.hpp"

namespace pipesim::search {

//! E for a model with `experts` routed experts on P GPUs: every divisor of the experts that
//! divides P (E·e_t must divide a stage's T·C·W GPUs, which divide P); {} for a dense model.
std::vector<int> default_expert_parallel(int experts, int gpus);

//! e_t to try around the best configurations: the powers of two dividing the expert FFN and a
//! node's GPUs; {} when only 1 (or for a dense model).
std::vector<int> default_expert_tensor_parallel(int expert_ffn, int gpus_per_node);

//! The least context-parallel degree C (a power of two) at which some layout of the request
//! (its T, E, e_t) passes the enumeration's memory bound with one sample per micro-batch on as
//! many stages as the layers allow, and that the cost model accepts (2C dividing a causal
//! sequence); context 0 when none does. need_at_one: that least bound at C = 1, bytes per GPU.
struct ContextChoice {
  int context = 0;
  double need_at_one = 0.0;
};
ContextChoice least_context_parallel(const SearchRequest& request);

//! The next power of two above `context` that the request's GPUs and the cost model allow for
//! some layout; 0 when none.
int next_context_parallel(const SearchRequest& request, int context);

//! The limits' knobs without those the request fixes (an option given for every candidate),
//! with e_t when search chooses it and the recomputation modes when several are tried.
std::vector<SearchKnob> refinement_knobs(const SearchRequest& request);

}  // namespace pipesim::search
