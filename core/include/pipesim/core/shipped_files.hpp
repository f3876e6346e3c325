#pragma once
// Models and hardware profiles are named on the command line either by a shipped YAML file's
// name (`gpt2-1.3b` → <data dir>/models/gpt2-1.3b.yaml) or by a path. One resolver serves both.
//
// The data dir is found at run time, never from a path fixed at build time alone, so an installed
// prefix can be moved (docs/architecture.md §"Shipped data"). Search order, first hit wins:
//   1. $PIPESIM_DATA_DIR, when set (it must then exist: an explicit choice is never skipped);
//   2. the share/pipesim of the installed pipesim a program was built against: find_package
//      (cmake/pipesimConfig.cmake.in) compiles installed_data_dir() into the consumer with the
//      prefix where it found the package, so an embedding program reads that prefix's data;
//   3. <directory of the running executable>/../share/pipesim (the installed layout);
//   4. the source tree the library was built from (running from a build tree, uninstalled).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipesim::core {

//! The inputs of the data-dir search, as values so that every branch can be tested.
struct DataDirSearch {
  std::optional<std::string> env;     //!< $PIPESIM_DATA_DIR; nullopt (or empty) when unset
  std::filesystem::path installed;    //!< installed_data_dir() (empty: not defined)
  std::filesystem::path executable;   //!< the running executable (empty when unknown)
  std::string from_executable;        //!< data dir relative to the executable's directory
  std::filesystem::path source_tree;  //!< last fallback (empty: none)
};

//! The first candidate of `search` that is a directory. Throws ConfigError when $PIPESIM_DATA_DIR
//! names no directory, or when no candidate exists (the message lists every place looked in).
std::filesystem::path find_data_dir(const DataDirSearch& search);

//! find_data_dir for this process: $PIPESIM_DATA_DIR, installed_data_dir(), /proc/self/exe, the
//! compiled source tree.
std::filesystem::path shipped_data_dir();

//! Defined only in a program built against an installed pipesim (find_package adds the source
//! that defines it): that installation's share/pipesim. A weak symbol, so the library itself
//! (CLI, tests, Python module) links without it and `&installed_data_dir` is null there.
[[gnu::weak]] const char* installed_data_dir();

//! The names (file stems) of the *.yaml files in `dir`, sorted.
std::vector<std::string> shipped_names(const std::string& dir);

//! shipped_names of <shipped_data_dir()>/`folder` (e.g. "models").
std::vector<std::string> shipped_names_in(std::string_view folder);

//! Anything with a '/' or a .yaml/.yml suffix is a path and is returned as is (the data dir is
//! not needed); otherwise <shipped_data_dir()>/`folder`/NAME.yaml. An unknown name throws
//! ConfigError("command line", field, "unknown WHAT 'NAME' (shipped: ...; or a path to a YAML
//! file)").
std::string resolve_shipped_yaml(const std::string& name_or_path, std::string_view folder,
                                 std::string_view field, std::string_view what);

}  // namespace pipesim::core
