#include "pipesim/core/wording.hpp"

#include <algorithm>

namespace pipesim::core {

std::string flag_spelling(std::string_view option) {
  std::string flag = "--" + std::string(option);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string keyword_spelling(std::string_view option) {
  return std::string(option) + "=";
}

std::string cli_wording(const core::ConfigError& error) {
  return error.describe("command line", flag_spelling);
}

std::string python_wording(const core::ConfigError& error, std::string_view call) {
  return error.describe(call, keyword_spelling);
}

}  // namespace pipesim::core
