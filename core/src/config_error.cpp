#include "pipesim/core/config_error.hpp"

#include <fmt/format.h>

#include "pipesim/core/printable.hpp"

namespace pipesim::core {
namespace {

std::string joined(std::string_view source, std::string_view field, std::string_view problem) {
  if (source.empty()) return fmt::format("{}: {}", printable(field), printable(problem));
  return fmt::format("{}: {}: {}", printable(source), printable(field), printable(problem));
}

}  // namespace

// Every part is made printable: an error is always exactly one line, whatever the input held.
ConfigError::ConfigError(std::string_view source, std::string_view field, std::string_view problem)
    : ConfigError(source, field, problem, false) {}

ConfigError::ConfigError(std::string_view source, std::string_view field, std::string_view problem,
                         bool is_option)
    : std::runtime_error(joined(source, field, problem)),
      source_(source),
      field_(field),
      problem_(problem),
      is_option_(is_option) {}

ConfigError::ConfigError(const std::string& message)
    : std::runtime_error(printable(message)), problem_(message) {}

ConfigError ConfigError::option(std::string_view option, std::string_view problem,
                                std::string_view context) {
  return ConfigError(context, option, problem, true);
}

std::string ConfigError::describe(
    std::string_view options_source,
    const std::function<std::string(std::string_view option)>& spell) const {
  if (!is_option_) return what();
  return joined(source_.empty() ? options_source : std::string_view(source_), spell(field_),
                problem_);
}

}  // namespace pipesim::core
