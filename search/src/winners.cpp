#include "pipesim/search/winners.hpp"

namespace pipesim::search {

Winners winners_per_group(const std::vector<scenario::SweepRow>& rows, size_t group) {
  const sweep::RankMetric plain = sweep::default_rank_metric(rows);
  Winners w;
  w.metric = sweep::fair_metric(rows, sweep::rank_rows(rows, plain), plain);
  w.rows = sweep::best_per_group(rows, group, w.metric);
  return w;
}

}  // namespace pipesim::search
