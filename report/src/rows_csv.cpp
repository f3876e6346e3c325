#include "pipesim/report/rows_csv.hpp"

namespace pipesim::report {

std::vector<std::string> row_fields(const scenario::SweepRow& row) {
  std::vector<std::string> fields = row.inputs;
  const auto cells = scenario::metric_cells(row);
  fields.insert(fields.end(), cells.begin(), cells.end());
  return fields;
}

std::string rows_to_csv(const std::vector<scenario::SweepRow>& rows) {
  std::string out = csv_line(scenario::csv_columns());
  for (const scenario::SweepRow& row : rows)
    out += csv_line(row_fields(row));
  return out;
}

CsvTable rows_to_table(const std::vector<scenario::SweepRow>& rows) {
  CsvTable table;
  table.header = scenario::csv_columns();
  for (const scenario::SweepRow& row : rows)
    table.rows.push_back(row_fields(row));
  return table;
}

}  // namespace pipesim::report
