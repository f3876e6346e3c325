#include "pipesim/core/shipped_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "pipesim/core/config_error.hpp"

namespace pipesim::core {

std::vector<std::string> shipped_names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string resolve_shipped_yaml(const std::string& name_or_path, const std::string& dir,
                                 std::string_view flag, std::string_view what) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       name_or_path.ends_with(".yaml") || name_or_path.ends_with(".yml");
  if (is_path) return name_or_path;
  const std::string path = fmt::format("{}/{}.yaml", dir, name_or_path);
  if (std::filesystem::exists(path)) return path;
  throw ConfigError("command line", flag,
                    fmt::format("unknown {} '{}' (shipped: {}; or a path to a YAML file)", what,
                                name_or_path, fmt::join(shipped_names(dir), ", ")));
}

}  // namespace pipesim::core
