#include "pipesim/sweep/sweep_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/text_file.hpp"
#include "pipesim/core/yaml_reader.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/sweep/value_range.hpp"

namespace pipesim::sweep {
namespace {

// Keys as files usually spell them (`micro-batches`; the option name `micro_batches` works too).
std::string known_keys() {
  std::string keys;
  for (const scenario::Option& option : scenario::options()) {
    std::string key = option.name();
    std::replace(key.begin(), key.end(), '_', '-');
    keys += (keys.empty() ? "" : ", ") + key;
  }
  return keys;
}

//! The option name for `key`, or "" when no option has that name.
std::string option_for(std::string key) {
  std::replace(key.begin(), key.end(), '-', '_');
  return scenario::find_option(key) != nullptr ? key : std::string();
}

}  // namespace

std::map<std::string, SweepFileEntry> load_sweep_file(const std::string& path) {
  // core's reader and text check: a directory or NUL bytes must be errors, not
  // std::ios_base::failure or a yaml-cpp infinite loop (found by fuzzing).
  const std::string text = core::read_text_file(path);
  core::check_yaml_text(text, path);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw core::ConfigError(path, fmt::format("line {}", e.mark.line + 1), e.msg);
  }
  if (!root.IsMap()) {
    throw core::ConfigError(path, "top level",
                            "expected a map of option names to values, e.g. `stages: [4, 8]`");
  }
  std::map<std::string, SweepFileEntry> entries;
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) throw core::ConfigError(path, "key", "keys must be option names");
    const std::string key = kv.first.Scalar();
    const std::string flag = option_for(key);
    if (flag.empty()) {
      throw core::ConfigError(path, key, fmt::format("unknown option; known: {}", known_keys()));
    }
    if (entries.count(flag) != 0) {
      throw core::ConfigError(path, key,
                              fmt::format("given twice (also as '{}')", entries.at(flag).key));
    }
    SweepFileEntry entry{key, {}};
    auto add = [&](const YAML::Node& node) {
      if (!node.IsScalar()) {
        throw core::ConfigError(path, key,
                                "expected a scalar, a list of scalars or list/range text");
      }
      for (auto& v : expand_values(path, key, node.Scalar()))
        entry.values.push_back(std::move(v));
    };
    const YAML::Node& value = kv.second;
    if (value.IsSequence()) {
      if (value.size() == 0) throw core::ConfigError(path, key, "empty list");
      for (const auto& item : value)
        add(item);
    } else if (value.IsNull()) {
      throw core::ConfigError(path, key, "has no value");
    } else {
      add(value);
    }
    entries.emplace(flag, std::move(entry));
  }
  return entries;
}

}  // namespace pipesim::sweep
