#include "flags.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pipesim::cli {

std::string flag_of(const std::string& option) {
  std::string flag = "--" + option;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string cli_names(const scenario::Option& option) {
  const std::string flag = flag_of(option.name);
  return option.short_name.empty() ? flag : fmt::format("{},-{}", flag, option.short_name);
}

std::string describe_error(const core::ConfigError& error) {
  if (const auto* e = dynamic_cast<const scenario::OptionError*>(&error)) {
    return fmt::format("command line: {}: {}", flag_of(e->option()), e->problem());
  }
  return error.what();
}

}  // namespace pipesim::cli
