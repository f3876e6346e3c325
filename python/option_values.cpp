#include "option_values.hpp"

#include <fmt/format.h>

#include "pipesim/scenario/options.hpp"

namespace py = pybind11;

namespace pipesim::python {

std::string value_text(const std::string& option, py::handle value) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  // bool before int: Python's bool is an int.
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    return py::repr(value).cast<std::string>();
  }
  throw py::type_error(fmt::format("{}: expected int, float, str or bool, got {}", option,
                                   py::type::of(value).attr("__name__").cast<std::string>()));
}

std::string values_text(const std::string& option, py::handle value) {
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value) &&
      !py::isinstance(value, py::module_::import("builtins").attr("range"))) {
    return value_text(option, value);
  }
  std::string text;
  for (const py::handle item : value) {
    if (!text.empty()) text += ',';
    text += value_text(option, item);
  }
  return text;
}

std::vector<std::pair<std::string, std::string>> option_values(
    const char* function, const py::kwargs& kwargs,
    std::string (*to_text)(const std::string&, py::handle)) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& [key, value] : kwargs) {
    const auto name = key.cast<std::string>();
    if (scenario::find_option(name) == nullptr) {
      throw py::type_error(
          fmt::format("{}() got an unexpected keyword argument '{}'", function, name));
    }
    if (value.is_none()) continue;
    std::string text = to_text(name, value);
    if (!text.empty()) values.emplace_back(name, std::move(text));
  }
  return values;
}

}  // namespace pipesim::python
