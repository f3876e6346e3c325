#pragma once
// Refinement: the secondary knobs (placement, partition, the MoE dispatcher and overlap, e_t,
// recomputation and its modules) are not multiplied into the first pass's product, which
// would grow it by their product (2·4·3·2·4·3·4 ≈ 2,300 for an MoE model). A schedule's starts
// are its best configuration at each of its three fastest expert-parallel degrees (one start,
// its best, for a dense model); each start's neighbours change one knob to each of its other
// values, evaluated against the start's own time; the knob values among them that beat the
// start are then combined into one candidate. The best of a round at each degree starts the
// next, until none improves (coordinate search: a knob's best value is assumed not to depend
// much on the others').

#include <set>
#include <string>
#include <vector>

#include "pipesim/search/search_space.hpp"

namespace pipesim::search {

//! A candidate's identity: its options, an option at its default written as absent (so that
//! setting a knob back to its default finds the configuration already tried).
std::string candidate_key(const Candidate& c);

//! `c` with option `option` at `value`: absent when that is the option's default (recompute is
//! kept as given, as the first pass writes it); recompute_modules dropped when the
//! recomputation is no longer selective, whose modules it names.
Candidate with_option(Candidate c, const std::string& option, const std::string& value);

//! Whether knob `option` can apply to `c`: recompute_modules only with selective
//! recomputation; moe_dispatcher and moe_overlap only with E > 1 (otherwise no token moves).
bool knob_applies(const Candidate& c, const std::string& option);

//! The neighbours of `start`: each knob at each value but its current one, that applies and
//! whose key is not in `seen` (added to it), knob by knob in order; not the recomputation modes
//! of a start whose other knobs are all at values.front() (first-pass candidates).
std::vector<Candidate> neighbours(const Candidate& start, const std::vector<SearchKnob>& knobs,
                                  std::set<std::string>& seen);

}  // namespace pipesim::search
