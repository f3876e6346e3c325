#pragma once
// The ranked tables `compare` and `search` print.

#include <string>
#include <vector>

#include "pipesim/scenario/row.hpp"

namespace pipesim::report {

using scenario::SweepRow;

struct RankedColumns {
  std::vector<size_t> inputs;        //!< indices into SweepRow::inputs (options() order)
  std::vector<std::string> metrics;  //!< metric columns
  bool limited_by = true;            //!< add a `limited by` column (scenario::limiting_factor)
  //! Input columns shown blank where the row keeps the option's default (a schedule's own
  //! options on rows of other schedules), and left out when blank in every row.
  std::vector<size_t> blank_if_default;
  //! A metric the rows were ranked by per GPU: a `gpus` column and the metric per GPU (a rate
  //! over the GPUs, a time times them) after the other metrics; "" for none.
  std::string per_gpu;
  //! The speed metric the rows were ranked by (iteration_time, throughput, tokens_per_second or
  //! mfu): a `vs best` column saying `tie` where a row's expected range of that metric (its
  //! iteration time's range, scaled like the metric) overlaps the first row's; "" for none.
  std::string ties_on;
};

//! Whether `row` and `best` are tied on the speed metric `metric` (per GPU when `per_gpu`):
//! both carry an iteration time range and the metric's ranges overlap. False for other
//! metrics and rows without a range.
bool tied(const SweepRow& row, const SweepRow& best, const std::string& metric, bool per_gpu);

//! The line that says what `tie` means, for a table whose rows in `order` have a tie; "".
std::string ties_note(const std::vector<SweepRow>& rows, const std::vector<size_t>& order,
                      const RankedColumns& columns);

//! Input columns whose value differs between rows.
std::vector<size_t> varied_inputs(const std::vector<SweepRow>& rows);

//! The `candidates` that at least one of the rows in `order` has a value for.
std::vector<std::string> present_metrics(const std::vector<SweepRow>& rows,
                                         const std::vector<size_t>& order,
                                         const std::vector<std::string>& candidates);

//! A table with a `rank` column and one line per row in `order`.
std::string render_ranked(const std::vector<SweepRow>& rows, const std::vector<size_t>& order,
                          const RankedColumns& columns);

}  // namespace pipesim::report
