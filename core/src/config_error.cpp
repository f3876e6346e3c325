#include "pipesim/core/config_error.hpp"

#include <fmt/format.h>

#include "pipesim/core/printable.hpp"

namespace pipesim::core {

// Every part is made printable: an error is always exactly one line, whatever the input held.
ConfigError::ConfigError(std::string_view source, std::string_view field, std::string_view problem)
    : std::runtime_error(
          fmt::format("{}: {}: {}", printable(source), printable(field), printable(problem))) {}

ConfigError::ConfigError(const std::string& message) : std::runtime_error(printable(message)) {}

}  // namespace pipesim::core
