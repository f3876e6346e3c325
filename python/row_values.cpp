#include "row_values.hpp"

#include <limits>
#include <string>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"

namespace py = pybind11;

namespace pipesim::python {

py::object python_value(const core::OptionValue& value) {
  return std::visit([](const auto& v) -> py::object { return py::cast(v); }, value);
}

namespace {

// An input column's text as a value of its option's kind. The range is not checked: a row
// shows what the run used, which may lie outside what a user may give (`iterations` 1 for a
// synchronous schedule, whose option starts higher). A text that is not of the kind at all
// would be handed out as it is rather than lose the row.
py::object input_value(const scenario::Option& option, const std::string& text) {
  if (text.empty()) return py::none();
  core::OptionSpec any_value = option.spec;
  // Integer ranges are converted to `long` and the value to `int` (core/option_spec.cpp).
  any_value.lo = std::numeric_limits<int>::min();
  any_value.hi = std::numeric_limits<int>::max();
  any_value.lo_inclusive = true;
  try {
    return python_value(any_value.parse(text));
  } catch (const core::ConfigError&) {
    return py::str(text);
  }
}

py::object metric_value(const scenario::Metric& metric, const scenario::RowMetrics& m) {
  const std::string cell = metric.cell(m);
  if (cell.empty()) return py::none();
  switch (metric.kind) {
    case scenario::MetricKind::Integer:
      return py::int_(static_cast<long long>(*metric.value(m)));
    case scenario::MetricKind::Real:
      return py::float_(*metric.value(m));
    case scenario::MetricKind::Flag:
      return py::bool_(cell == "true");
    case scenario::MetricKind::Text:
      break;
  }
  return py::str(cell);
}

}  // namespace

py::dict row_dict(const scenario::SweepRow& row) {
  py::dict d;
  const std::vector<scenario::Option>& options = scenario::options();
  for (size_t i = 0; i < options.size(); ++i)
    d[py::str(options[i].name())] = input_value(options[i], row.inputs.at(i));
  for (const scenario::Metric& metric : scenario::metrics())
    d[py::str(metric.name)] = metric_value(metric, row.metrics);
  d["status"] = row.status.text();
  return d;
}

py::list row_list(const std::vector<scenario::SweepRow>& rows) {
  py::list out;
  for (const scenario::SweepRow& row : rows)
    out.append(row_dict(row));
  return out;
}

}  // namespace pipesim::python
