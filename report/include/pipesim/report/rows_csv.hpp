#pragma once
// Sweep and search rows as CSV (header scenario::csv_columns(), one line per row) and as a
// CsvTable for plotting: the one CSV schema of sweeps, search and compare.

#include <string>
#include <vector>

#include "pipesim/report/csv.hpp"
#include "pipesim/scenario/row.hpp"

namespace pipesim::report {

//! The row's fields: inputs, then metric cells (status last).
std::vector<std::string> row_fields(const scenario::SweepRow& row);

//! Header and one line per row, in the given order.
std::string rows_to_csv(const std::vector<scenario::SweepRow>& rows);

//! Rows in CsvTable shape (header = csv_columns()), for plotting.
CsvTable rows_to_table(const std::vector<scenario::SweepRow>& rows);

}  // namespace pipesim::report
