#include "option_values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pipesim/core/config_error.hpp"

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

namespace {

// The option a keyword names: its own name or another front end's (Megatron-LM's
// tensor_model_parallel_size), as the command line takes both.
const scenario::Option* keyword_option(const std::string& keyword) {
  if (const scenario::Option* o = scenario::find_option(keyword)) return o;
  for (const scenario::Option& o : scenario::options()) {
    if (std::find(o.aliases.begin(), o.aliases.end(), keyword) != o.aliases.end()) return &o;
  }
  return nullptr;
}

}  // namespace

std::vector<std::pair<const scenario::Option*, py::handle>> option_arguments(
    const char* function, const py::kwargs& kwargs) {
  std::vector<std::pair<const scenario::Option*, py::handle>> out;
  std::map<const scenario::Option*, std::pair<std::string, std::string>> given;  // keyword, text
  for (const auto& [key, value] : kwargs) {
    const auto name = key.cast<std::string>();
    const scenario::Option* option = keyword_option(name);
    if (option == nullptr) {
      throw py::type_error(
          fmt::format("{}() got an unexpected keyword argument '{}'", function, name));
    }
    // None, or "" for an option whose value is not a text, keeps the default.
    const bool empty = py::isinstance<py::str>(value) && value.cast<std::string>().empty() &&
                       option->spec.kind != core::ValueKind::Text;
    if (value.is_none() || empty) continue;
    // One option under two names (stages=4, pipeline_model_parallel_size=4) must agree.
    const std::string text = values_text(*option, value);
    if (const auto seen = given.find(option); seen != given.end()) {
      if (seen->second.second != text) {
        throw core::ConfigError::option(
            option->name(), fmt::format("given twice with different values: {}={} and {}={}",
                                        seen->second.first, seen->second.second, name, text));
      }
      continue;
    }
    given.emplace(option, std::pair{name, text});
    out.emplace_back(option, value);
  }
  return out;
}

}  // namespace pipesim::python
