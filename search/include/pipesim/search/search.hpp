#pragma once
// `search` as a library call: enumerate the search space for a model on P GPUs and a
// mini-batch, simulate every candidate that is not pruned (in parallel, model and hardware
// loaded once through a SpecCache) and return one row per candidate in enumeration order.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipesim/report/search_report.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/spec_cache.hpp"
#include "pipesim/search/search_space.hpp"
#include "pipesim/sweep/row_job.hpp"
#include "pipesim/sweep/sweep_runner.hpp"

namespace pipesim::search {

//! What a front end was given for a search, as text: every value is checked by the option it
//! names (errors are core::ConfigError::option: `gpus`, `mini_batch`, `schedule`, `recompute`,
//! `tensor_parallel`, `context_parallel`, `expert_parallel`, `expert_tensor_parallel`).
struct SearchArgs {
  std::string model;
  std::string hardware;
  std::string gpus;        //!< P, an integer in [1, 2^20]
  std::string mini_batch;  //!< B̂, an integer in [1, 2^24]
  //! Comma list of schedules; nothing given: every registered one (an empty text is an error).
  std::optional<std::string> schedules;
  std::string recompute = "none,selective,full";  //!< comma list of modes to try
  //! List or range of T; "": every power of two the model and a node allow
  //! (default_tensor_parallel), T = 1 only when that is all.
  std::string tensor_parallel;
  //! List or range of C; "": chosen by search (search_defaults.hpp, least_context_parallel).
  std::string context_parallel;
  //! List or range of E; "": an MoE model's default_expert_parallel, E = 1 for a dense one.
  std::string expert_parallel;
  //! List or range of e_t; "": tried around the best configurations (search_refine.hpp).
  std::string expert_tensor_parallel;
  //! Any other option (name → text as given), the same for every candidate: `attention`,
  //! `sequence`, `precision`, ... Options search chooses itself (`stages`, `micro_batches`,
  //! `micro_batch_size`, `data_parallel`, `context_parallel`, the schedules' own options) are
  //! refused, as are options that do not apply in real-cost mode.
  std::map<std::string, std::string> fixed;
};

//! The request `args` describe. Throws core::ConfigError for a bad value.
SearchRequest make_search_request(const SearchArgs& args);

//! Whether search enumerates `option` or takes it as its own argument (model, hardware,
//! schedule, recompute, tensor_parallel, the schedule's shape and the schedules' own options),
//! so that it cannot be one of SearchArgs::fixed.
bool search_chooses(const scenario::Option& option);

//! The point of a candidate: its options, every other option at its default.
scenario::Point to_point(const Candidate& candidate);

//! Fills request.limits from the model as trained with the fixed options and the hardware (loaded
//! through `specs`), request.tensor_parallel when empty (scenario::default_tensor_parallel), and
//! enumerates the candidates (on `jobs` threads), each with the fixed options. Throws
//! core::ConfigError for a model or hardware that cannot be loaded.
std::vector<Candidate> search_candidates(SearchRequest& request, scenario::SpecCache& specs,
                                         int jobs = 1);

//! How much of a row search needs.
enum class RowDetail {
  Full,        //!< every metric of every simulated row (`search --all`)
  FittingOnly  //!< an oom row only says so (no replay, Scenario::skip_replay_when_oom)
};

//! The row of candidate i: simulated, or its pruned row without simulating. `candidates` and
//! `specs` are kept alive by the caller.
sweep::MakeRow candidate_rows(const std::vector<Candidate>& candidates, scenario::SpecCache& specs,
                              const sweep::DescribeError& describe = {},
                              RowDetail detail = RowDetail::Full);

//! The order search simulates candidates in, for its table (RowDetail::FittingOnly), and what it
//! knows of each before simulating: a run whose memory screen says oom (memory_screen.hpp) or
//! that enumeration pruned is settled; every other one gets a lower bound on its iteration time
//! (scenario::run_bounds, its workers' streams) and a position. Positions run schedule by
//! schedule, each schedule's by ascending bound (then enumeration order), so once a schedule's
//! fastest fitting run so far is faster than the bound at a position, that position and every
//! later one of the schedule cannot win and are pruned unsimulated (branch and bound; the
//! winners are those of simulating everything); a position reached is also pruned when its
//! paths' bound is. Every process that evaluates positions builds the same plan.
struct SearchPlan {
  sweep::MakeRow make_row;  //!< the row of position k: candidate order[k], simulated
  //! The row of position k pruned for `reason`, its inputs as simulating it would report them
  //! (none for RowDetail::FittingOnly).
  std::function<scenario::SweepRow(size_t position, std::string reason)> pruned_row;
  std::vector<size_t> order;  //!< position → candidate index
  //! Per position: seconds the iteration takes at least, by its workers' streams
  //! (scenario::BoundDepth::Streams); the order of a schedule's positions.
  std::vector<double> bound;
  //! The stronger bound of position k, along the paths between workers (BoundDepth::Paths),
  //! computed when the search reaches it.
  std::function<double(size_t position)> path_bound;
  std::vector<size_t> schedule_end;  //!< one past each schedule's last position, in order
  //! Per candidate: its row when known without simulating (pruned by enumeration, screened;
  //! without inputs for RowDetail::FittingOnly), a default row for a candidate with a position.
  std::vector<scenario::SweepRow> settled;
};

//! Candidates whose simulated rows a schedule's part evaluates at once, between two updates of
//! its best time: fixed, so what is pruned does not depend on the number of threads or ranks.
inline constexpr size_t kSearchWave = 16;

//! The plan of `candidates` (search_candidates' enumeration, schedule by schedule), on `jobs`
//! threads. With RowDetail::Full nothing is screened or bounded: every unpruned candidate is a
//! position, with bound 0. `candidates` and `specs` are kept alive by the caller.
SearchPlan plan_search(const std::vector<Candidate>& candidates, scenario::SpecCache& specs,
                       const sweep::DescribeError& describe, RowDetail detail, int jobs);

//! search_candidates(), then every candidate's row on `jobs` threads (or with `evaluator`):
//! plan_search's positions, a wave of kSearchWave at a time per schedule, the rest pruned by
//! bound once they cannot win. Then, for a context-parallel degree search chose itself, C
//! doubled while nothing fits; then refinement (search_refine.hpp) around each schedule's best,
//! its rounds on this process's threads. The rows are those of every candidate of every pass,
//! in that order. With RowDetail::FittingOnly only the fitting (ok) rows keep their inputs;
//! `tally` (optional) gets what every candidate came to, the notes on what was varied and why,
//! and the binding limit of each schedule without a fitting configuration.
std::vector<scenario::SweepRow> run_search(
    SearchRequest& request, scenario::SpecCache& specs, int jobs,
    const sweep::DescribeError& describe = {},
    const std::function<void(size_t done, size_t total)>& on_progress = {},
    sweep::RowEvaluator* evaluator = nullptr, RowDetail detail = RowDetail::Full,
    report::SearchTally* tally = nullptr);

}  // namespace pipesim::search
