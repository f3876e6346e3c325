#include "pipesim/report/option_json.hpp"

#include "pipesim/core/assert.hpp"

namespace pipesim::report {

nlohmann::ordered_json option_value_json(const core::OptionSpec& spec, const std::string& text) {
  PIPESIM_ASSERT(!text.empty(), "an option value to write");
  switch (spec.kind) {
    case core::ValueKind::Integer:
      return std::stoll(text);
    case core::ValueKind::Real:
      return std::stod(text);
    case core::ValueKind::Switch:
      return text == "on";
    case core::ValueKind::Choice:
    case core::ValueKind::Text:
      break;
  }
  return text;
}

void add_missing_options(nlohmann::ordered_json& j, const std::vector<core::OptionSpec>& specs,
                         const std::vector<std::string>& values) {
  PIPESIM_ASSERT(specs.size() == values.size(), "one value per option");
  for (size_t i = 0; i < specs.size(); ++i) {
    if (values[i].empty() || j.contains(specs[i].name)) continue;
    j[specs[i].name] = option_value_json(specs[i], values[i]);
  }
}

}  // namespace pipesim::report
