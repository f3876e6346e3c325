#include "pipesim/core/config_error.hpp"

#include <fmt/format.h>

namespace pipesim::core {

ConfigError::ConfigError(std::string_view source, std::string_view field, std::string_view problem)
    : std::runtime_error(fmt::format("{}: {}: {}", source, field, problem)) {}

}  // namespace pipesim::core
