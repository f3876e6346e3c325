#pragma once
// Why a search found nothing that fits, for its table: the limit that binds (memory, and by how
// much for the configuration closest to fitting; or the rule most configurations break) and
// what to vary.

#include <string>
#include <vector>

#include "pipesim/scenario/row.hpp"
#include "pipesim/search/search_space.hpp"

namespace pipesim::search {

//! What one candidate is known to need in memory, bytes per GPU: a simulated oom row's peak, or
//! the enumeration's bound; 0 when unknown (an oom row found without a replay: search asks the
//! memory screen) or not about memory.
double memory_need(const Candidate& c, const scenario::SweepRow& row);

//! The binding limit of the candidates `subset` (none of which fits): memory when any of them is
//! known to need more than the GPU holds (how many; the closest one named, with its need and
//! the excess; the rule the others break most), else the rule most of them break, with an
//! example; then what to vary. `needs[i]`: memory_need of candidate i.
std::string binding_limit(const std::vector<Candidate>& candidates,
                          const std::vector<scenario::SweepRow>& rows,
                          const std::vector<double>& needs, const std::vector<size_t>& subset,
                          const SearchRequest& request);

}  // namespace pipesim::search
