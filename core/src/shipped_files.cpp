#include "pipesim/core/shipped_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "pipesim/core/config_error.hpp"

// Set by core/CMakeLists.txt: the install layout's bin → data relation, and the source tree.
#ifndef PIPESIM_DATA_DIR_FROM_BIN
#error "PIPESIM_DATA_DIR_FROM_BIN must be defined by the build"
#endif
#ifndef PIPESIM_SOURCE_TREE
#error "PIPESIM_SOURCE_TREE must be defined by the build"
#endif

namespace pipesim::core {

namespace fs = std::filesystem;

namespace {

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

}  // namespace

fs::path find_data_dir(const DataDirSearch& search) {
  if (search.env && !search.env->empty()) {
    if (is_dir(*search.env)) return fs::path(*search.env);
    throw ConfigError(
        "environment", "PIPESIM_DATA_DIR",
        fmt::format("'{}' is not a directory (it must hold models/ and hardware/)", *search.env));
  }
  std::vector<std::string> looked{"$PIPESIM_DATA_DIR (unset)"};
  if (!search.installed.empty()) {
    if (is_dir(search.installed)) return search.installed;
    looked.push_back(search.installed.string());
  }
  if (!search.executable.empty()) {
    const fs::path near_exe =
        (search.executable.parent_path() / search.from_executable).lexically_normal();
    if (is_dir(near_exe)) return near_exe;
    looked.push_back(near_exe.string());
  }
  if (is_dir(search.source_tree)) return search.source_tree;
  if (!search.source_tree.empty()) looked.push_back(search.source_tree.string());
  throw ConfigError(
      fmt::format("shipped data: no folder with models/ and hardware/ found (looked in: {}); set "
                  "PIPESIM_DATA_DIR to one",
                  fmt::join(looked, ", ")));
}

fs::path shipped_data_dir() {
  DataDirSearch search;
  if (const char* env = std::getenv("PIPESIM_DATA_DIR")) search.env = env;
  if (&installed_data_dir != nullptr) search.installed = installed_data_dir();
  std::error_code ec;
  search.executable = fs::read_symlink("/proc/self/exe", ec);  // Linux; empty when unavailable
  search.from_executable = PIPESIM_DATA_DIR_FROM_BIN;
  search.source_tree = PIPESIM_SOURCE_TREE;
  return find_data_dir(search);
}

std::vector<std::string> shipped_names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

//! <data dir>/`folder`, which must exist.
fs::path shipped_folder(std::string_view folder) {
  const fs::path data = shipped_data_dir();
  const fs::path dir = data / folder;
  if (!is_dir(dir)) {
    throw ConfigError(data.string(), folder, "missing: the shipped data has no such folder");
  }
  return dir;
}

}  // namespace

std::vector<std::string> shipped_names_in(std::string_view folder) {
  return shipped_names(shipped_folder(folder).string());
}

std::string resolve_shipped_yaml(const std::string& name_or_path, std::string_view folder,
                                 std::string_view field, std::string_view what) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       name_or_path.ends_with(".yaml") || name_or_path.ends_with(".yml");
  if (is_path) return name_or_path;
  const fs::path dir = shipped_folder(folder);
  const fs::path path = dir / (name_or_path + ".yaml");
  if (fs::exists(path)) return path.string();
  throw ConfigError::option(
      field, fmt::format("unknown {} '{}' (shipped: {}; or a path to a YAML file)", what,
                         name_or_path, fmt::join(shipped_names(dir.string()), ", ")));
}

}  // namespace pipesim::core
