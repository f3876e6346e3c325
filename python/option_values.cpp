#include "option_values.hpp"

#include <fmt/format.h>

namespace py = pybind11;

namespace pipesim::python {

core::OptionValue option_value(const scenario::Option& option, py::handle value) {
  core::OptionValue v;
  // bool before int: Python's bool is an int.
  if (py::isinstance<py::bool_>(value)) {
    v = value.cast<bool>();
  } else if (py::isinstance<py::int_>(value)) {
    v = value.cast<std::int64_t>();
  } else if (py::isinstance<py::float_>(value)) {
    v = value.cast<double>();
  } else if (py::isinstance<py::str>(value)) {
    const auto text = value.cast<std::string>();
    // Numbers and switches given as text read as on the command line.
    return option.spec.parse(text);
  } else {
    throw py::type_error(fmt::format("{}: expected int, float, str or bool, got {}", option.name(),
                                     py::type::of(value).attr("__name__").cast<std::string>()));
  }
  return option.spec.check(v);
}

std::string values_text(const scenario::Option& option, py::handle value) {
  const auto one = [&](py::handle item) {
    // A str may be a list or range text: kept as given, the grid expands and checks it.
    if (py::isinstance<py::str>(item)) return item.cast<std::string>();
    return option.spec.format(option_value(option, item));
  };
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value) &&
      !py::isinstance(value, py::module_::import("builtins").attr("range"))) {
    return one(value);
  }
  std::string text;
  for (const py::handle item : value) {
    if (!text.empty()) text += ',';
    text += one(item);
  }
  return text;
}

std::vector<std::pair<const scenario::Option*, py::handle>> option_arguments(
    const char* function, const py::kwargs& kwargs) {
  std::vector<std::pair<const scenario::Option*, py::handle>> out;
  for (const auto& [key, value] : kwargs) {
    const auto name = key.cast<std::string>();
    const scenario::Option* option = scenario::find_option(name);
    if (option == nullptr) {
      throw py::type_error(
          fmt::format("{}() got an unexpected keyword argument '{}'", function, name));
    }
    // None, or "" for an option whose value is not a text, keeps the default.
    const bool empty = py::isinstance<py::str>(value) && value.cast<std::string>().empty() &&
                       option->spec.kind != core::ValueKind::Text;
    if (!value.is_none() && !empty) out.emplace_back(option, value);
  }
  return out;
}

}  // namespace pipesim::python
