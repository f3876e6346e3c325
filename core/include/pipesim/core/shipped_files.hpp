#pragma once
// Models and hardware profiles are named on the command line either by a shipped YAML file's
// name (`gpt2-1.3b` → models/gpt2-1.3b.yaml) or by a path. One resolver serves both.

#include <string>
#include <string_view>
#include <vector>

namespace pipesim::core {

//! The names (file stems) of the *.yaml files in `dir`, sorted.
std::vector<std::string> shipped_names(const std::string& dir);

//! Anything with a '/' or a .yaml/.yml suffix is a path and is returned as is; otherwise
//! `dir`/NAME.yaml. An unknown name throws ConfigError("command line", flag, "unknown WHAT
//! 'NAME' (shipped: ...; or a path to a YAML file)").
std::string resolve_shipped_yaml(const std::string& name_or_path, const std::string& dir,
                                 std::string_view flag, std::string_view what);

}  // namespace pipesim::core
