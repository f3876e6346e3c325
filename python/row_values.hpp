#pragma once
// Sweep and search rows as Python dicts of typed values: the columns of the CSV
// (scenario::csv_columns()), each value of its own type instead of the CSV's text, so that
// max(r["iteration_time"] for r in rows) compares numbers. An option column takes its
// declaration's type (int, float, bool for on|off, str for a name or choice), a metric column
// its MetricKind; an empty CSV field (a figure the run does not have) is None.

#include <pybind11/pybind11.h>

#include <vector>

#include "pipesim/scenario/row.hpp"

namespace pipesim::python {

//! One row: {column: value} in CSV column order.
pybind11::dict row_dict(const scenario::SweepRow& row);

//! Every row, in order.
pybind11::list row_list(const std::vector<scenario::SweepRow>& rows);

//! A checked option value as the Python object of its type (int, float, bool, str).
pybind11::object python_value(const core::OptionValue& value);

}  // namespace pipesim::python
